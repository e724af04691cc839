//! Fast-core efficiency without hardware counters: from each thread's CPU-time progress rate on
//! each core type (`Signals::PROGRESS`).
//!
//! Kim & Huh, "Exploring the Design Space of Fair Scheduling Supports for Asymmetric Multicore
//! Systems", IEEE Trans. Computers 2018, §6.1 estimate a thread's efficiency e = IPS_fast /
//! IPS_slow from its instructions per second on each core type, measured with per-thread PMU
//! counters while every thread is forced onto both types in every interval. Where no PMU is
//! read, the live agent still knows, per thread and core type, the CPU time the thread got
//! (`Counters::time_ns`), the wall time it was runnable there (`Counters::runnable_ns`: that
//! CPU time plus its run-queue waits, from schedstat), and how much of those waits were behind
//! the target's own threads on its core (`Counters::corun_ns`). The share of its runnable time
//! its core ran the target, (time + corun) / runnable, is its progress rate there with the
//! target's own contention taken out (two threads sharing a CPU each get half of it, yet the
//! CPU runs one or the other all the time), and e is estimated as the fast types' rate over the
//! other types':
//!
//!   e ≈ (Σ_fast (time + corun) / Σ_fast runnable) / (Σ_slow (time + corun) / Σ_slow runnable)
//!
//! What this is worth depends on how the slow cores are slow:
//! - **Emulated by cycle stealing** (`--emulate`, the agent's `emulate.rs`): a real-time thread
//!   takes `1 − speed` of every period of a slow CPU, and the kernel counts that as the other
//!   threads' run-queue wait. A thread alone on a slow CPU of speed s has rate s, alone on a
//!   full-speed one rate 1: the ratio is 1/s, the emulated efficiency, which under cycle
//!   stealing is the same for every program (it steals time, not frequency).
//! - **Real asymmetric cores** (big.LITTLE, hybrid x86): a slow core gives a thread its whole
//!   time, slowly, so the rate is 1 on either type for a thread alone, and the ratio is 1 for
//!   every thread, whatever its true efficiency. There the progress rate is no efficiency
//!   source; the agent's report says so.
//!
//! Waits behind other programs' threads lower a rate too, as stolen time does: they cancel from
//! the ratio only when alike on both types (a build on the fast CPU lowers the estimate). The
//! target's own contention is taken out at the agent's sample grain (`Counters::corun_ns`):
//! without it, unequal shares bias the estimates apart (measured: threads at fast shares 0.9
//! and 0.1 under an emulated 2 read about 3 and 1.2, each meeting the other on its rarer side).

use ampsched_model::{Machine, PerType};

/// Least runnable time on each side for an estimate, ns. The kernel charges CPU time exactly
/// at each switch, but preemption follows the scheduler tick (4 ms at Linux's common HZ = 250),
/// so a side with only a tick or two of runnable time gives a rate that is mostly the grain of
/// one tick; 10 ms is two and a half ticks, and a 30 ms share round (Kim & Huh §6.2) spends at
/// least this long on a side whenever its share of that side is a third or more.
pub const MIN_RUNNABLE_NS: u64 = 10_000_000;

/// A side's progress rate: CPU time and waits behind the target's threads over runnable time,
/// on the fast core types or the others, or None when it was runnable there for less than
/// `MIN_RUNNABLE_NS`.
fn side_rate(m: &Machine, c: &PerType, fast: bool) -> Option<f64> {
    let (mut ran, mut runnable) = (0u64, 0u64);
    for ty in (0..m.core_types.len()).filter(|&ty| m.is_fast_type(ty) == fast) {
        ran += c[ty].time_ns + c[ty].corun_ns;
        runnable += c[ty].runnable_ns;
    }
    (runnable >= MIN_RUNNABLE_NS).then(|| ran.min(runnable) as f64 / runnable as f64)
}

/// A thread's efficiency (fast-core progress rate over the other cores') from its counters
/// `c` (an interval's, or cumulative), or None when it was not runnable long enough on both
/// sides, or got no CPU at all on the slow side.
pub fn efficiency(m: &Machine, c: &PerType) -> Option<f64> {
    let fast = side_rate(m, c, true)?;
    let slow = side_rate(m, c, false)?;
    (slow > 0.0).then(|| fast / slow)
}

/// How the report names this source (`Diagnostics::speedup_source`).
pub const SOURCE: &str =
    "CPU-time progress rate per core type (no hardware counters): CPU time over runnable wall time on each type, the target's own contention taken out";

#[cfg(test)]
mod tests {
    use super::*;
    use ampsched_model::Counters;

    /// Two types, one core each: "big" (the fast one) and "small".
    const MACHINE: &str = "name = \"t\"\nmemory_latency_ns = 100.0\n\
        [[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n\
        [[core_type]]\nname = \"small\"\ncount = 1\nfreq_ghz = 1.0\n";

    fn machine() -> Machine {
        Machine::from_toml("t.toml", MACHINE).expect("a valid machine")
    }

    fn per_type(big: (u64, u64), small: (u64, u64)) -> PerType {
        with_coruns(big, 0, small, 0)
    }

    fn with_coruns(big: (u64, u64), big_corun: u64, small: (u64, u64), small_corun: u64) -> PerType {
        let mut c = PerType::default();
        c[0] = Counters { time_ns: big.0, runnable_ns: big.1, corun_ns: big_corun, ..Counters::default() };
        c[1] = Counters { time_ns: small.0, runnable_ns: small.1, corun_ns: small_corun, ..Counters::default() };
        c
    }

    #[test]
    fn a_thread_alone_under_emulation_gets_the_speed_ratio() {
        // Alone on each side for 100 ms of wall time; the slow CPU (speed 0.4) gave it 40 ms.
        let e = efficiency(&machine(), &per_type((100_000_000, 100_000_000), (40_000_000, 100_000_000))).unwrap();
        assert!((e - 2.5).abs() < 1e-12, "{e}");
    }

    #[test]
    fn equal_contention_by_others_cancels() {
        // Sharing each CPU with another program's thread: rate 1/2 fast, 0.4/2 slow: still 2.5.
        let e = efficiency(&machine(), &per_type((50_000_000, 100_000_000), (20_000_000, 100_000_000))).unwrap();
        assert!((e - 2.5).abs() < 1e-12, "{e}");
    }

    #[test]
    fn waits_behind_the_target_s_own_threads_are_taken_out() {
        // 100 ms on each side. Fast: alone 50 ms (all of it), then beside another target
        // thread 50 ms (25 ms each): ran 75, waited 25 behind it. Slow (speed 0.4): beside it
        // throughout, 20 ms each of the 40 the stealer leaves: ran 20, 20 behind it, 60 stolen.
        let c = with_coruns((75_000_000, 100_000_000), 25_000_000, (20_000_000, 100_000_000), 20_000_000);
        let e = efficiency(&machine(), &c).unwrap();
        assert!((e - 2.5).abs() < 1e-12, "{e}");
        // Without taking them out: 0.75 / 0.2 = 3.75.
        let e = efficiency(&machine(), &per_type((75_000_000, 100_000_000), (20_000_000, 100_000_000))).unwrap();
        assert!((e - 3.75).abs() < 1e-12, "{e}");
    }

    #[test]
    fn real_slow_cores_give_one() {
        // A real slow core gives a thread alone its whole time: rate 1 on each side.
        let e = efficiency(&machine(), &per_type((30_000_000, 30_000_000), (70_000_000, 70_000_000))).unwrap();
        assert_eq!(e, 1.0);
    }

    #[test]
    fn too_little_runnable_time_on_a_side_gives_nothing() {
        let m = machine();
        assert_eq!(efficiency(&m, &per_type((9_999_999, 9_999_999), (40_000_000, 100_000_000))), None);
        assert_eq!(efficiency(&m, &per_type((50_000_000, 50_000_000), (0, 9_000_000))), None);
        // Runnable long enough on the slow side but never given the CPU: no rate to divide by.
        assert_eq!(efficiency(&m, &per_type((50_000_000, 50_000_000), (0, 50_000_000))), None);
        assert!(efficiency(&m, &per_type((50_000_000, 50_000_000), (1, 10_000_000))).is_some());
    }
}
