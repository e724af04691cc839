//! `RunResult::idle_while_waiting_ns`: core-time during which a core sat idle while a runnable
//! thread waited for a core (min(idle cores, queued threads), whatever the affinities), derived
//! by hand. Cores at 1 GHz and CPI 1: 1e9 instructions take 1 s; migrations free.

use ampsched_model::{CoreSet, Trigger};
use ampsched_sim::SimConfig;

use crate::common::{apps, machine, simulate_with};

const S: u64 = 1_000_000_000;

fn three_cores() -> ampsched_model::Machine {
    machine("[[core_type]]\nname = \"c\"\ncount = 3\nfreq_ghz = 1.0\n[migration]\ncost_us = 0.0\n")
}

/// A slice longer than the run: a thread, once dispatched, runs to its end.
fn long_slices() -> SimConfig {
    SimConfig { slice_ns: 10 * S, ..SimConfig::default() }
}

#[test]
fn two_threads_pinned_to_one_of_three_cores_leave_one_core_idle_while_one_waits() {
    // Both threads (1 s of work each) may run on core 0 only. One runs 0–1 s while the other
    // waits, two cores idle: min(2 idle, 1 waiting) = 1 core for 1 s. Then the second runs
    // alone 1–2 s, nobody waits: 0. So 1 core-second, not 2 (one waiting thread could have used
    // only one of the idle cores), in a run of 2 s.
    let m = three_cores();
    let w = apps(&[(1e9, 1.0, 0.0), (1e9, 1.0, 0.0)]);
    let r = simulate_with(&m, &w, None, long_slices(), |v, out| {
        if let Trigger::Start(t) = v.trigger {
            out.set(t, CoreSet::from_cores([0]));
        }
    });
    assert_eq!(r.makespan_ns, 2 * S);
    assert_eq!(r.idle_while_waiting_ns, S);
}

#[test]
fn three_threads_pinned_to_one_core_count_each_waiting_thread_an_idle_core_could_take() {
    // Three threads on core 0 alone: 0–1 s two wait and two cores idle (2), 1–2 s one waits
    // (1), 2–3 s none (0): 3 core-seconds.
    let m = three_cores();
    let w = apps(&[(1e9, 1.0, 0.0), (1e9, 1.0, 0.0), (1e9, 1.0, 0.0)]);
    let r = simulate_with(&m, &w, None, long_slices(), |v, out| {
        if let Trigger::Start(t) = v.trigger {
            out.set(t, CoreSet::from_cores([0]));
        }
    });
    assert_eq!(r.makespan_ns, 3 * S);
    assert_eq!(r.idle_while_waiting_ns, 3 * S);
}

#[test]
fn threads_free_to_run_anywhere_never_wait_beside_an_idle_core() {
    // The same three threads unpinned: each starts on a core of its own, nobody ever waits.
    let m = three_cores();
    let w = apps(&[(1e9, 1.0, 0.0), (1e9, 1.0, 0.0), (1e9, 1.0, 0.0)]);
    let r = simulate_with(&m, &w, None, long_slices(), |_, _| {});
    assert_eq!(r.makespan_ns, S);
    assert_eq!(r.idle_while_waiting_ns, 0);
}
