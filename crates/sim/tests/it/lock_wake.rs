//! The wake-up latency of a contended lock's hand-off (`Machine::lock_wake_ns`): a waiter
//! blocked in the kernel runs that long after the release that handed it the lock, holding the
//! lock meanwhile; a spinning waiter takes it at once.

use ampsched_model::workload::Programs;
use ampsched_model::Workload;

use crate::common::{machine, simulate};

/// Two cores at 1 GHz: at CPI 1 without misses, 1e6 instructions take 1 ms.
fn two_cores(wake_us: f64) -> String {
    format!("lock_wake_us = {wake_us}\n[[core_type]]\nname = \"c\"\ncount = 2\nfreq_ghz = 1.0\n")
}

/// Two threads that each take one lock three times for 1 ms, nothing between: the lock passes
/// from one to the other at every release, five hand-offs in all.
fn ping_pong(wait: &str) -> Workload {
    let text = format!(
        "[[app]]\nname = \"a\"\nthreads = 2\n[[app.phase]]\nkind = \"critical\"\nlock = \"l\"\ncs_instructions = 1e6\n\
         count = 3\ncpi = 1.0\nllc_mpki = 0.0\nwait = \"{wait}\"\n"
    );
    Workload::from_toml("w.toml", &text, &Programs::new()).unwrap()
}

const MS: u64 = 1_000_000;

#[test]
fn each_hand_off_to_a_blocked_waiter_adds_the_wake_up_latency_once() {
    // Six critical sections in a row (each thread waits for the other's), and five hand-offs to
    // a blocked waiter, each 50 µs: 6 ms + 5 × 50 µs.
    let r = simulate(&machine(&two_cores(50.0)), &ping_pong("block"), None, |_, _| {});
    assert_eq!(r.makespan_ns, 6 * MS + 5 * 50_000);
    // Without the key (or 0): as before, the hand-off is instant.
    let r = simulate(&machine(&two_cores(0.0)), &ping_pong("block"), None, |_, _| {});
    assert_eq!(r.makespan_ns, 6 * MS);
}

#[test]
fn a_spinning_waiter_takes_the_lock_at_once() {
    let r = simulate(&machine(&two_cores(50.0)), &ping_pong("spin"), None, |_, _| {});
    assert_eq!(r.makespan_ns, 6 * MS);
}

#[test]
fn the_key_is_checked_against_its_range() {
    let err = ampsched_model::Machine::from_toml("m.toml", &format!("memory_latency_ns = 100\n{}", two_cores(2e4))).unwrap_err();
    assert!(err.to_string().contains("lock_wake_us"), "{err}");
    assert!(!err.to_string().contains('\n'), "one line: {err}");
}
