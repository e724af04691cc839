//! A machine past the 256 cores a core set keeps inline: 1,024 cores load, and a simulation on
//! them uses cores on both sides of that boundary and runs to completion.

use ampsched_model::{CoreSet, Trigger};

use crate::common::{apps, machine, simulate};

/// 256 fast cores and 768 slow ones, an LLC per kind, migrations free so that times are exact.
const CORES_1024: &str = "[[core_type]]\nname = \"fast\"\ncount = 256\nfreq_ghz = 2.0\n\
    [[core_type]]\nname = \"slow\"\ncount = 768\nfreq_ghz = 1.0\n\
    [[llc]]\ncores = \"0-255\"\n[[llc]]\ncores = \"256-1023\"\n[migration]\ncost_us = 0.0\n";

/// More threads than the cores kept inline, so the local scheduler must place some above them.
const THREADS: usize = 300;
const PINNED_CORE: usize = 1000;

#[test]
fn a_1024_core_machine_loads_and_runs_threads_on_cores_above_256() {
    let m = machine(CORES_1024);
    assert_eq!(m.num_cores(), 1024);
    assert_eq!(m.all_cores().len(), 1024);
    assert_eq!(m.fast_cores(), CoreSet::first_n(256));
    assert_eq!(m.slow_cores().to_string(), "256-1023");
    assert_eq!(m.llcs[1].cores.len(), 768);

    // Thread 0: 1e8 instructions pinned to core 1000 (1 GHz, CPI 1): 100 ms there. Thread 1: a
    // fast-core share over core 3 and the last 256 slow cores, the only thread with a share: no
    // partner to swap with, it goes to core 3, idle when it starts (work conservation), and runs
    // its 1e9 instructions there, 0.5 s at 2 GHz. The rest: wherever the local scheduler puts them.
    let mut work = vec![(1e8, 1.0, 0.0); THREADS];
    work[1].0 = 1e9;
    let w = apps(&work);
    let decided = CoreSet::from_cores([3].into_iter().chain(768..1024));
    let r = simulate(&m, &w, None, move |v, out| match v.trigger {
        Trigger::Start(0) => out.set(0, CoreSet::single(PINNED_CORE)),
        Trigger::Start(1) => {
            out.set(1, decided.clone());
            out.set_fast_share(1, Some(0.5));
        }
        _ => {}
    });

    assert!(r.threads.iter().all(|t| t.state == ampsched_model::ThreadState::Exited), "every thread finished");
    let pinned = &r.threads[0];
    assert_eq!(pinned.core, Some(PINNED_CORE));
    assert_eq!((pinned.per_type[0].time_ns, pinned.per_type[1].time_ns), (0, 100_000_000));

    let sharing = &r.threads[1];
    assert_eq!((sharing.per_type[0].time_ns, sharing.per_type[1].time_ns), (500_000_000, 0));
    assert_eq!(sharing.core, Some(3));

    let highest = r.threads[2..].iter().filter_map(|t| t.core).max().unwrap();
    assert!(highest >= 256, "the local scheduler used cores above 256 (highest {highest})");
}
