//! Memory bandwidth as a queue: what a miss costs when the threads that share a memory
//! controller ask for a good part of its bandwidth (`Machine::memory_bandwidth`).
//!
//! Each controller is an M/D/1 queue: misses arrive at random (Poisson: many threads' misses,
//! each thread's far apart), and each takes the same time to serve, the transfer of one line at
//! the controller's peak bandwidth, S = line_bytes / bandwidth. The Pollaczek–Khinchine mean
//! value formula gives the mean wait in the queue of an M/G/1 queue as λ·E[S²] / (2(1 − ρ));
//! with a deterministic S (E[S²] = S²) and ρ = λS, it is
//!
//!   W(ρ) = ρ·S / (2·(1 − ρ))
//!
//! (Kleinrock, Queueing Systems, Vol. 1: Theory, 1975, ch. 5, the M/G/1 queue; Harchol-Balter,
//! Performance Modeling and Design of Computer Systems, 2013, ch. 23, the P-K formula). A miss
//! then takes the unloaded latency plus W. The unloaded latency already holds one line's
//! transfer, so only the wait is added.
//!
//! The controller's utilisation is ρ = demand / bandwidth, where demand is the bytes per ns of
//! every running thread it serves: Σ misses per ns × line_bytes. A thread's misses per ns fall
//! as its misses get slower, so ρ is the fixed point of ρ = D(W(ρ)) / bandwidth, with D the
//! demand at a wait. `solve` finds it (see there for why it exists, is unique, and is below 1).
//!
//! Closed form, used by the tests: n identical threads, each with time per instruction
//! x = A + m·W (A: the time per instruction at the unloaded latency, m: misses per
//! instruction), give ρ = c / x with c = n·m·line_bytes / bandwidth, and x solves
//! (x − A)(x − c) = m·c·S / 2, so x = ((A + c) + √((A − c)² + 2·m·c·S)) / 2 (the root above c,
//! where ρ < 1).

use crate::machine::MemoryBandwidth;

/// The M/D/1 mean wait in queue (Pollaczek–Khinchine) at utilisation `rho` < 1, service time
/// `service_ns`.
pub fn md1_wait_ns(rho: f64, service_ns: f64) -> f64 {
    rho * service_ns / (2.0 * (1.0 - rho))
}

/// The most steps `solve` takes: a bound, not the usual count (Illinois converges superlinearly:
/// 6 to 12 evaluations of the demand from a light load to a saturated one, in
/// `converges_in_a_few_evaluations`). Each step keeps the root inside the bracket, so stopping
/// here still gives a point within it.
const MAX_STEPS: u32 = 200;

/// The controller's utilisation and the mean queueing delay at the fixed point, for
/// `demand(wait_ns)`, the bytes per ns of its threads when each miss waits `wait_ns` more than
/// unloaded: (ρ, W(ρ)).
///
/// Why it exists and is unique: h(ρ) = demand(W(ρ)) / bandwidth − ρ is continuous on [0, 1),
/// and strictly decreasing, as W grows with ρ and demand does not grow with W (a thread's
/// misses per ns fall as each miss takes longer; the performance model's time per instruction
/// does not decrease with the latency). h(0) ≥ 0, and as ρ → 1, W → ∞ and demand → 0 (a thread
/// that misses at all spends unbounded time per miss), so h → −1 < 0: exactly one root, and it
/// is below 1, so the loaded latency is always finite. With no demand at all the root is 0.
///
/// How it is found: the Illinois variant of regula falsi on the bracket [0, 1] (with h(1) = −1,
/// its limit), which keeps the root inside the bracket at every step and converges
/// superlinearly (Dowell & Jarratt, "A modified regula falsi method for computing the root of
/// an equation", BIT 11, 1971). It stops when h is 0 or the new point does not fall strictly
/// inside the bracket (the bracket has collapsed to adjacent floats), or at `MAX_STEPS`.
/// Deterministic: the same inputs give the same bits.
pub fn solve(bw: &MemoryBandwidth, demand: impl Fn(f64) -> f64) -> (f64, f64) {
    let s = bw.service_ns();
    let h = |rho: f64| demand(md1_wait_ns(rho, s)) / bw.bandwidth_gbps - rho;
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    let (mut h_lo, mut h_hi) = (h(0.0), -1.0_f64);
    if h_lo <= 0.0 {
        return (0.0, 0.0);
    }
    // Which end the last step moved: Illinois halves the other end's value when one end stays.
    let mut last_moved = 0i8;
    for _ in 0..MAX_STEPS {
        let x = (lo * h_hi - hi * h_lo) / (h_hi - h_lo);
        if !(x > lo && x < hi) {
            break;
        }
        let hx = h(x);
        if hx == 0.0 {
            return (x, md1_wait_ns(x, s));
        }
        if hx > 0.0 {
            lo = x;
            h_lo = hx;
            if last_moved == -1 {
                h_hi /= 2.0;
            }
            last_moved = -1;
        } else {
            hi = x;
            h_hi = hx;
            if last_moved == 1 {
                h_lo /= 2.0;
            }
            last_moved = 1;
        }
    }
    // The end where h is nearer 0 (both ends are within a float or two of the root here).
    let rho = if h_lo.abs() <= h_hi.abs() { lo } else { hi };
    (rho, md1_wait_ns(rho, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed form of the module comment: time per instruction of `n` identical threads,
    /// each A ns per instruction unloaded and m misses per instruction.
    fn closed_form_tpi(n: f64, a: f64, m: f64, bw: &MemoryBandwidth) -> f64 {
        let c = n * m * bw.line_bytes / bw.bandwidth_gbps;
        let s = bw.service_ns();
        ((a + c) + ((a - c).powi(2) + 2.0 * m * c * s).sqrt()) / 2.0
    }

    /// `n` threads of the thesis's model: 1 ns of compute per instruction, m misses each of
    /// 100 ns plus the wait: demand in bytes per ns.
    fn demand(n: f64, m: f64, bw: &MemoryBandwidth) -> impl Fn(f64) -> f64 {
        let line = bw.line_bytes;
        move |w: f64| n * m / (1.0 + m * (100.0 + w)) * line
    }

    #[test]
    fn the_md1_wait_is_pollaczek_khinchine() {
        // ρ = 0.5, S = 10 ns: 0.5 × 10 / (2 × 0.5) = 5 ns; ρ = 0.9: 0.9 × 10 / 0.2 = 45 ns.
        assert_eq!(md1_wait_ns(0.5, 10.0), 5.0);
        assert!((md1_wait_ns(0.9, 10.0) - 45.0).abs() < 1e-12);
        assert_eq!(md1_wait_ns(0.0, 10.0), 0.0);
    }

    #[test]
    fn two_streaming_threads_match_the_closed_form_by_hand() {
        // 1.28 GB/s, 64 B lines: S = 50 ns. Two threads, A = 1 + 0.1 × 100 = 11 ns, m = 0.1:
        // c = 2 × 0.1 × 64 / 1.28 = 10 ns, m·c·S/2 = 25, x = (21 + √(1 + 100)) / 2
        // = (21 + 10.04987562) / 2 = 15.52493781 ns; ρ = c / x = 0.64412496; W = (x − A) / m
        // = 45.2493781 ns.
        let bw = MemoryBandwidth { bandwidth_gbps: 1.28, line_bytes: 64.0 };
        let (rho, w) = solve(&bw, demand(2.0, 0.1, &bw));
        let x = 11.0 + 0.1 * w;
        assert!((x - 15.524_937_81).abs() < 1e-8, "x = {x}");
        assert!((rho - 0.644_124_96).abs() < 1e-8, "rho = {rho}");
        assert!((w - 45.249_378_1).abs() < 1e-7, "w = {w}");
        assert!((x - closed_form_tpi(2.0, 11.0, 0.1, &bw)).abs() < 1e-9);
        // Alone: c = 5, x = (16 + √(36 + 50)) / 2 = (16 + 9.27361850) / 2 = 12.63680925 ns.
        let (_, w1) = solve(&bw, demand(1.0, 0.1, &bw));
        assert!((11.0 + 0.1 * w1 - 12.636_809_25).abs() < 1e-8);
    }

    #[test]
    fn the_fixed_point_stays_below_saturation_and_matches_the_closed_form() {
        // From a light load to one asking 100 times the bandwidth unloaded: ρ < 1 always, and
        // the solver agrees with the closed form to 1e-9 relative.
        for &gbps in &[100.0, 10.0, 1.28, 0.3, 0.05, 0.01] {
            for &n in &[1.0, 2.0, 8.0, 64.0] {
                for &m in &[0.001, 0.03, 0.1, 0.5] {
                    let bw = MemoryBandwidth { bandwidth_gbps: gbps, line_bytes: 64.0 };
                    let (rho, w) = solve(&bw, demand(n, m, &bw));
                    assert!((0.0..1.0).contains(&rho), "rho = {rho} at {gbps} GB/s, n = {n}, m = {m}");
                    let a = 1.0 + m * 100.0;
                    let want = closed_form_tpi(n, a, m, &bw);
                    let got = a + m * w;
                    assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want} at {gbps} GB/s, n = {n}, m = {m}");
                }
            }
        }
    }

    #[test]
    fn no_demand_no_wait() {
        let bw = MemoryBandwidth { bandwidth_gbps: 1.0, line_bytes: 64.0 };
        assert_eq!(solve(&bw, |_| 0.0), (0.0, 0.0));
    }

    #[test]
    fn converges_in_a_few_evaluations() {
        // What the engine pays per solve: the demand's evaluations (each a pass over the
        // controller's threads). 1 or 16 threads of 1 ns + 10 MPKI × 100 ns, 0.05 to 100 GB/s.
        for &gbps in &[100.0, 12.8, 1.28, 0.05] {
            for &n in &[1.0, 16.0] {
                let bw = MemoryBandwidth { bandwidth_gbps: gbps, line_bytes: 64.0 };
                let calls = std::cell::Cell::new(0);
                solve(&bw, |w| {
                    calls.set(calls.get() + 1);
                    demand(n, 0.01, &bw)(w)
                });
                assert!(calls.get() <= 12, "{} evaluations at {gbps} GB/s, {n} threads", calls.get());
            }
        }
    }
}
