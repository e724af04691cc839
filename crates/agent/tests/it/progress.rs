//! Each thread's runnable time per core type (`Counters::runnable_ns`, `Signals::PROGRESS`): the
//! monitor adds the run-queue wait schedstat reports since its last look to the CPU time, on the
//! same core type; the agent offers the signal with or without counters.

use ampsched_agent::agent::agent_signals;
use ampsched_agent::monitor::Monitor;
use ampsched_model::{Machine, Signals};

use crate::common::{ProcTree, ONE_FAST_ONE_SLOW};

#[test]
fn the_monitor_adds_each_wait_to_the_runnable_time_of_the_core_type_it_charges() {
    let proc = ProcTree::new("progress");
    let pid = 7000;
    proc.thread(pid, 7000, 'R', 1, 0);
    let mut m = Monitor::with_proc_root(Machine::from_toml("machine", ONE_FAST_ONE_SLOW).unwrap(), &proc.path());
    assert!(m.add_process(pid));
    let mut events = Vec::new();
    m.sample(0, &mut events);

    // On CPU 1 (slow): 10 ms run, 30 ms waited (a stealer at speed 0.25 would leave this).
    proc.thread(pid, 7000, 'R', 1, 10_000_000);
    proc.schedstat(pid, 7000, 10_000_000, 30_000_000);
    m.sample(40_000_000, &mut events);
    let c = m.book.threads[0].per_type;
    assert_eq!((c[1].time_ns, c[1].runnable_ns), (10_000_000, 40_000_000));
    assert_eq!((c[0].time_ns, c[0].runnable_ns), (0, 0));

    // Then on CPU 0 (fast): 20 ms more run, 5 ms more waited: all of it to the fast type.
    proc.thread(pid, 7000, 'R', 0, 30_000_000);
    proc.schedstat(pid, 7000, 30_000_000, 35_000_000);
    m.sample(65_000_000, &mut events);
    let c = m.book.threads[0].per_type;
    assert_eq!((c[0].time_ns, c[0].runnable_ns), (20_000_000, 25_000_000));
    assert_eq!((c[1].time_ns, c[1].runnable_ns), (10_000_000, 40_000_000), "the slow type's unchanged");
}

#[test]
fn a_wait_behind_another_target_thread_on_the_same_cpu_is_a_corun_up_to_the_wait() {
    let proc = ProcTree::new("corun");
    let pid = 7100;
    proc.thread(pid, 7100, 'R', 1, 0);
    proc.thread(pid, 7101, 'R', 1, 0);
    proc.thread(pid, 7102, 'R', 0, 0);
    let mut m = Monitor::with_proc_root(Machine::from_toml("machine", ONE_FAST_ONE_SLOW).unwrap(), &proc.path());
    assert!(m.add_process(pid));
    m.sample(0, &mut Vec::new());
    // 40 ms on CPU 1, stolen from at speed 1/2: 7100 and 7101 ran 10 ms each, and each waited
    // 30 ms (10 behind the other, 20 behind the stealer). 7102, alone on CPU 0, ran 40 ms; its
    // 2 ms wait (another program) is behind no target thread of its CPU.
    proc.schedstat(pid, 7100, 10_000_000, 30_000_000);
    proc.schedstat(pid, 7101, 10_000_000, 30_000_000);
    proc.schedstat(pid, 7102, 40_000_000, 2_000_000);
    m.sample(40_000_000, &mut Vec::new());
    for id in [0, 1] {
        let c = m.book.threads[id].per_type[1];
        assert_eq!((c.time_ns, c.runnable_ns, c.corun_ns), (10_000_000, 40_000_000, 10_000_000), "thread {id}");
    }
    let c = m.book.threads[2].per_type[0];
    assert_eq!((c.time_ns, c.runnable_ns, c.corun_ns), (40_000_000, 42_000_000, 0));
    // A co-runner's time beyond the wait counts only up to the wait: 7100 ran 20 ms more and
    // waited 5 ms, 7101 ran 5 ms more.
    proc.schedstat(pid, 7100, 30_000_000, 35_000_000);
    proc.schedstat(pid, 7101, 15_000_000, 30_000_000);
    m.sample(80_000_000, &mut Vec::new());
    assert_eq!(m.book.threads[0].per_type[1].corun_ns, 15_000_000, "10 + min(5 ran by 7101, 5 waited)");
    assert_eq!(m.book.threads[1].per_type[1].corun_ns, 10_000_000, "no wait this time: nothing added");
}

#[test]
fn the_agent_offers_progress_rates_with_or_without_counters() {
    for (counters, locks) in [(false, false), (true, false), (false, true)] {
        assert!(agent_signals(counters, locks).contains(Signals::PROGRESS));
    }
}
