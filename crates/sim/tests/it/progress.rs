//! Each thread's runnable time per core type (`Counters::runnable_ns`, `Signals::PROGRESS`): its
//! time there plus its run-queue waits, charged when a wait ends to the type of the core it then
//! gets, as Linux's schedstat does. Held against what a placement makes of it by hand: a thread
//! alone on its core never waits; two sharing one core wait for each other; and on simulated
//! cores, slow by running slowly (not by losing time), a thread's progress rate (time over
//! runnable time) is 1 on each type when it is alone, whatever the types' speeds.

use ampsched_model::{CoreSet, Signals};

use crate::common::{apps, machine, simulate};

/// One 2 GHz "big" core (core 0) and one 1 GHz "small" core (core 1).
fn big_small() -> ampsched_model::Machine {
    machine("[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n[[core_type]]\nname = \"small\"\ncount = 1\nfreq_ghz = 1.0\n")
}

#[test]
fn waits_behind_a_core_s_other_thread_are_runnable_time_and_a_thread_alone_has_none() {
    // Threads 0 and 1 share the big core (1e8 and 2e8 instructions at CPI 1: 50 and 100 ms
    // there); thread 2 is alone on the small core.
    let w = apps(&[(1e8, 1.0, 0.0), (2e8, 1.0, 0.0), (1e8, 1.0, 0.0)]);
    let mut offered = Signals::NONE;
    let r = simulate(&big_small(), &w, None, |v, out| {
        offered = v.available;
        for &t in v.changed {
            out.set(t, CoreSet::from_cores([if t == 2 { 1 } else { 0 }]));
        }
    });
    assert!(offered.contains(Signals::PROGRESS), "the simulator offers progress rates");
    let (a, b, c) = (&r.threads[0].per_type, &r.threads[1].per_type, &r.threads[2].per_type);
    // Alone on the small core: never waited, so runnable time is its time there, to the ns.
    assert!(c[1].time_ns > 0);
    assert_eq!(c[1].runnable_ns, c[1].time_ns);
    // Thread 1 was runnable from its start to the end, and the big core ran thread 0 or 1 all
    // that time: its runnable time is both threads' time there, to the ns.
    assert_eq!(b[0].runnable_ns, a[0].time_ns + b[0].time_ns);
    // Every wait is behind the other thread (no stealer here): the core ran one of them all the
    // time either wanted it, a progress rate of 1 with the target's contention taken out.
    assert_eq!((b[0].corun_ns, c[1].corun_ns), (a[0].time_ns, 0));
    assert_eq!(a[0].time_ns + a[0].corun_ns, a[0].runnable_ns);
    // Thread 0 shared the core half and half until it ended: runnable about twice its time, give
    // or take the one slice by which it ended before or after its last turn.
    let slice = ampsched_sim::SimConfig::default().slice_ns;
    assert!(a[0].runnable_ns.abs_diff(2 * a[0].time_ns) <= slice, "{} against 2 × {}", a[0].runnable_ns, a[0].time_ns);
    // Nothing ran or waited on the other type.
    assert_eq!((a[1].runnable_ns, b[1].runnable_ns, c[0].runnable_ns), (0, 0, 0));
}

#[test]
fn the_progress_rate_of_a_thread_alone_is_one_on_either_simulated_type() {
    // One thread, 2e9 instructions, moved between the two cores every 100 ms: its time on the
    // 1 GHz core does half as much as on the 2 GHz one, but a rate counts time, not work.
    let w = apps(&[(2e9, 1.0, 0.0)]);
    let r = simulate(&big_small(), &w, Some(100_000_000), |v, out| {
        let core = (v.now_ns / 100_000_000 % 2) as usize;
        for &t in v.live {
            out.set(t, CoreSet::from_cores([core]));
        }
    });
    let c = &r.threads[0].per_type;
    assert!(c[0].time_ns > 0 && c[1].time_ns > 0, "ran on both");
    assert_eq!((c[0].runnable_ns, c[1].runnable_ns), (c[0].time_ns, c[1].time_ns));
}
