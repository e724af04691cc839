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
fn the_agent_offers_progress_rates_with_or_without_counters() {
    for (counters, locks) in [(false, false), (true, false), (false, true)] {
        assert!(agent_signals(counters, locks).contains(Signals::PROGRESS));
    }
}
