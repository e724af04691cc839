//! The engine's cost on a share-heavy run (`cargo test --release -p ampsched-sim --test it
//! share_cost -- --ignored --nocapture`): Kim & Huh's 2 fast + 4 slow machine, 6 CPU-bound threads
//! with fast-core shares summing to the 2 fast cores, 200 s of fast-core work each; the best of
//! `REPEAT` runs' CPU time per event, and what the run did (makespan, core time idle while a thread
//! waited, migrations). Ignored: a measurement, not a check (docs/fast-core-shares.md).

use ampsched_model::{Machine, Trigger};
use ampsched_sim::SimConfig;

use crate::common::{apps, simulate_with};

const KIMHUH_2F4S: &str = include_str!("../../../../catalog/machines/kimhuh-2f4s.toml");
const REPEAT: usize = 5;
const SHARES: [f64; 6] = [0.6, 0.5, 0.4, 0.3, 0.1, 0.1];

/// This thread's CPU time, ns (the measure of `ampsched-bench`, crates/runner/src/bin/bench.rs).
fn cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes only the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[test]
#[ignore = "a measurement of the engine's cost, run by hand (docs/fast-core-shares.md)"]
fn share_heavy_run_cost() {
    let m = Machine::from_toml("kimhuh-2f4s", KIMHUH_2F4S).unwrap();
    // 2.8 GHz × 200 s of instructions at CPI 1: each thread needs 200 s on a fast core.
    let w = apps(&[(5.6e11, 1.0, 0.0); 6]);
    let mut best = u64::MAX;
    let mut last = None;
    for _ in 0..REPEAT {
        let start = cpu_ns();
        let r = simulate_with(&m, &w, None, SimConfig::default(), |v, out| {
            if let Trigger::Start(t) = v.trigger {
                out.set_fast_share(t, Some(SHARES[t as usize]));
            }
        });
        best = best.min(cpu_ns() - start);
        last = Some(r);
    }
    let r = last.expect("REPEAT > 0");
    let migrations: u32 = r.threads.iter().map(|t| t.migrations).sum();
    println!("share-heavy run: {} events, best CPU {:.1} ms, {:.1} ns/event", r.events, best as f64 / 1e6, best as f64 / r.events as f64);
    println!("makespan {:.1} s, idle while waiting {:.1} core-s, {migrations} migrations", r.makespan_ns as f64 / 1e9, r.idle_while_waiting_ns as f64 / 1e9);
}
