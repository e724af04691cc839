//! `wash` on the agent's views: a runtime's helper thread that names itself after it started (as
//! HotSpot's do) is first seen under its creator's name, an application thread, and must become
//! a runtime helper for WASH once renamed: sent to the small core when the application's threads
//! need the big one (WASH, "Portable Performance on Asymmetric Multicore Processors", Algorithm 1,
//! line 20). The /proc tree is built (common::ProcTree), the policy called through the agent's
//! own `call_policy`.

use crate::common;

use std::path::Path;

use crate::common::ProcTree;
use ampsched_agent::call_policy;
use ampsched_agent::enforce::Enforcer;
use ampsched_agent::monitor::Monitor;
use ampsched_model::{Machine, Placement, Signals, ThreadKind, ViewBook};
use ampsched_policy::{build, PolicySpec};

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
        call_policy("wash", policy.as_mut(), monitor, &mut enforcer, now, &events, &mut last_quantum, &mut out).unwrap();
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
    // The view offered no counters: what the agent's report says of wash's speedups.
    assert_eq!(policy.diagnostics().and_then(|d| d.speedup_source()).as_deref(), Some("core type alone: no hardware counters (model default needs them)"));
}

#[test]
fn wash_and_pfs_say_where_their_speedups_come_from_and_bindvm_predicts_none() {
    let machine = Machine::from_toml("fixture machine", common::ONE_FAST_ONE_SLOW).unwrap();
    for name in ["wash", "pfs", "bindvm"] {
        let mut policy = build(&PolicySpec::parse(name).unwrap(), &machine).unwrap();
        let proc = ProcTree::new(&format!("speedup-{name}"));
        proc.thread_named(8181, 8181, "java", 'R', 0, 1_000);
        for counters in [false, true] {
            let mut monitor = Monitor::with_proc_root(machine.clone(), &proc.path());
            let available = if counters { Signals::LOCKS | Signals::COUNTERS } else { Signals::LOCKS };
            monitor.book = ViewBook::new(machine.num_cores(), available, true);
            assert!(monitor.add_process(8181));
            let mut events = Vec::new();
            monitor.sample(0, &mut events);
            let mut enforcer = Enforcer::new(Path::new("/nonexistent"), 10_000_000);
            call_policy(name, policy.as_mut(), &mut monitor, &mut enforcer, 0, &events, &mut None, &mut Placement::default()).unwrap();
            let said = policy.diagnostics().and_then(|d| d.speedup_source());
            match (name, counters) {
                ("bindvm", _) => assert_eq!(said, None),
                // The default model, the trained one, needs counters; without them the prediction is
                // the cores' peak-rate ratio, and the report says both.
                (_, false) => assert_eq!(said.as_deref(), Some("core type alone: no hardware counters (model default needs them)"), "{name}"),
                (_, true) => assert_eq!(said.as_deref(), Some("hardware counters, model default"), "{name}"),
            }
        }
    }
}

#[test]
fn a_helper_renamed_after_it_started_is_bound_to_the_small_core_under_bindvm() {
    let machine = Machine::from_toml("fixture machine", common::ONE_FAST_ONE_SLOW).unwrap();
    let mut policy = build(&PolicySpec::parse("bindvm").unwrap(), &machine).unwrap();
    let proc = ProcTree::new("bindvm-rename");
    let (pid, gc) = (9191u32, 9192u32);
    proc.thread_named(pid, pid, "java", 'R', 0, 1_000);
    proc.thread_named(pid, gc, "java", 'R', 1, 1_000);
    let mut monitor = Monitor::with_proc_root(machine.clone(), &proc.path());
    monitor.book = ViewBook::new(machine.num_cores(), Signals::LOCKS, true);
    assert!(monitor.add_process(pid));
    let mut enforcer = Enforcer::new(Path::new("/nonexistent"), 10_000_000);
    let (mut events, mut last_quantum, mut out) = (Vec::new(), None, Placement::default());
    let gc_allowed = |monitor: &Monitor| monitor.book.threads[monitor.thread_of_tid(gc).unwrap() as usize].allowed.clone();
    monitor.sample(0, &mut events);
    call_policy("bindvm", policy.as_mut(), &mut monitor, &mut enforcer, 0, &events, &mut last_quantum, &mut out).unwrap();
    assert_eq!(gc_allowed(&monitor), machine.fast_cores(), "first seen as an application thread");
    // Renamed; no thread starts, so only bindvm's quantum can see it.
    proc.thread_named(pid, gc, "GC Thread#0", 'R', 1, 50_000_000);
    events.clear();
    monitor.sample(50_000_000, &mut events);
    assert!(events.is_empty());
    call_policy("bindvm", policy.as_mut(), &mut monitor, &mut enforcer, 50_000_000, &events, &mut last_quantum, &mut out).unwrap();
    assert_eq!(gc_allowed(&monitor), machine.slow_cores(), "a runtime helper once renamed");
}

#[test]
fn in_the_simulator_bindvm_s_quantum_calls_bind_nothing() {
    // Kinds never change in the simulator: bindvm's rebinding at its quanta (for live renames)
    // must leave every simulated run as its start-time binding made it.
    let machine = Machine::from_toml("wash-2b4s", include_str!("../../../../catalog/machines/wash-2b4s.toml")).unwrap();
    let workload = ampsched_model::Workload::from_toml(
        "java-like",
        include_str!("../../../../catalog/workloads/java-like.toml"),
        &ampsched_model::workload::Programs::new(),
    )
    .unwrap();
    // Where bindvm placed threads at its quantum calls.
    let (mut quanta, mut at_quantum) = (0, 0);
    let mut rec = ampsched_model::Watched::new(build(&PolicySpec::parse("bindvm").unwrap(), &machine).unwrap(), |_, view, out| {
        if view.trigger == ampsched_model::Trigger::Quantum {
            quanta += 1;
            at_quantum += out.affinity.len();
        }
    });
    ampsched_sim::Engine::new(&machine, &workload, &ampsched_model::SimpleModel, &mut rec, ampsched_sim::SimConfig::default()).run().unwrap();
    drop(rec);
    assert!(quanta > 10, "the run lasts many quanta: {quanta}");
    assert_eq!(at_quantum, 0);
}
