//! `wash` on the agent's views: a runtime's helper thread that names itself after it started (as
//! HotSpot's do) is first seen under its creator's name, an application thread, and must become
//! a runtime helper for WASH once renamed: sent to the small core when the application's threads
//! need the big one (WASH, "Portable Performance on Asymmetric Multicore Processors", Algorithm 1,
//! line 20). The /proc tree is built (common::ProcTree), the policy called through the agent's
//! own `call_policy`.

mod common;

use std::path::Path;

use ampsched_agent::call_policy;
use ampsched_agent::enforce::Enforcer;
use ampsched_agent::monitor::Monitor;
use ampsched_model::{Machine, Placement, Signals, ThreadKind, ViewBook};
use ampsched_policy::{build, PolicySpec};
use common::ProcTree;

#[test]
fn a_helper_renamed_after_it_started_goes_to_the_small_core_under_wash() {
    let machine = Machine::from_toml("fixture machine", common::ONE_FAST_ONE_SLOW).unwrap();
    let (fast, slow) = (machine.fast_cores(), machine.slow_cores());
    let spec = PolicySpec::parse("wash").unwrap();
    let mut policy = build(&spec, &machine).unwrap();
    let proc = ProcTree::new("wash-rename");
    // A JVM-like process: the main thread and two application threads, all computing, and a GC
    // thread first seen under the process's name.
    let pid = 7171u32;
    let (app1, app2, gc) = (7172u32, 7173u32, 7174u32);
    let write = |gc_name: &str, run_ns: u64| {
        proc.thread_named(pid, pid, "java", 'R', 0, run_ns);
        proc.thread_named(pid, app1, "worker", 'R', 0, run_ns);
        proc.thread_named(pid, app2, "worker", 'R', 1, run_ns);
        proc.thread_named(pid, gc, gc_name, 'R', 1, run_ns);
    };
    write("java", 1_000);
    let mut monitor = Monitor::with_proc_root(machine.clone(), &proc.path());
    monitor.book = ViewBook::new(machine.num_cores(), Signals::LOCKS, true);
    assert!(monitor.add_process(pid));
    let mut enforcer = Enforcer::new(Path::new("/nonexistent"), 10_000_000);
    let (mut events, mut last_quantum, mut out) = (Vec::new(), None, Placement::default());
    let mut step = |monitor: &mut Monitor, now: u64| {
        events.clear();
        monitor.sample(now, &mut events);
        call_policy(policy.as_mut(), monitor, &mut enforcer, now, &events, &mut last_quantum, &mut out).unwrap();
    };

    step(&mut monitor, 0);
    let gc_id = monitor.thread_of_tid(gc).unwrap() as usize;
    assert_eq!(monitor.book.threads[gc_id].kind, ThreadKind::App);
    // (Its first quantum, at once, finds four application threads and none contended: the app
    // is scalable, every application thread gets all cores, WASH's line 12.)
    assert_eq!(monitor.book.threads[gc_id].allowed, machine.all_cores());

    // It renames itself; the quanta go by (every thread computing).
    write("GC Thread#0", 50_000_000);
    step(&mut monitor, 50_000_000);
    write("GC Thread#0", 100_000_000);
    step(&mut monitor, 100_000_000);
    assert_eq!(monitor.book.threads[gc_id].kind, ThreadKind::Runtime);
    assert_eq!(monitor.book.threads[gc_id].allowed, slow, "three application threads need the one big core: the helper goes small");
    for tid in [pid, app1, app2] {
        let t = &monitor.book.threads[monitor.thread_of_tid(tid).unwrap() as usize];
        assert!(t.allowed.contains(fast.iter().next().unwrap()), "application thread {tid} may use the big core: {:?}", t.allowed);
    }
}
