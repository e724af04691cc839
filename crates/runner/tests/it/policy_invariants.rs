//! Each policy's own promise, checked on the recorded schedule of random runs:
//! - `static` never moves a thread;
//! - `busyfcs` never leaves a fast core idle while a slow core runs a thread;
//! - `rr` (HAFS) gives every thread a fast-core share of its CPU time of F/(F+S);
//! - `bindvm` never runs an application thread on a slow core, nor a runtime thread on a fast one.
//!
//! The random cases are drawn from fixed seeds, so a run is repeatable.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, SimpleModel, ThreadKind, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_sim::{Engine, RunResult, SimConfig};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

use crate::common::{machine_toml, workload_strategy};

fn config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig { cases, rng_seed: RngSeed::Fixed(seed), ..ProptestConfig::default() }
}

/// Run with every segment of the schedule recorded.
fn simulate(m: &Machine, w: &Workload, policy: &str, slice_ms: u64, seed: u64) -> RunResult {
    let mut p = build(&PolicySpec::parse(policy).unwrap(), m).unwrap();
    let cfg = SimConfig { slice_ns: slice_ms * 1_000_000, seed, max_segments: usize::MAX, ..SimConfig::default() };
    let r = Engine::new(m, w, &SimpleModel, p.as_mut(), cfg).run().unwrap();
    assert_eq!(r.segments_dropped, 0);
    r
}

/// A random workload, or None when it is one the parser rejects (an app of barriers alone does
/// no work).
fn parse_workload(text: &str) -> Option<Workload> {
    match Workload::from_toml("prop-workload", text, &Programs::new()) {
        Err(e) if e.message.contains("does no work") => None,
        w => Some(w.unwrap()),
    }
}

proptest! {
    #![proptest_config(config(96, 0x0057_471c))]

    #[test]
    fn static_never_moves_a_thread(
        types in prop::collection::vec((1u32..4, 0.5f64..3.0, 1.0f64..2.0), 1..4),
        wl in workload_strategy(),
        slice_ms in 1u64..8,
        seed in 0u64..1000,
    ) {
        let m = Machine::from_toml("prop-machine", &machine_toml(&types)).unwrap();
        let w = parse_workload(&wl);
        prop_assume!(w.is_some());
        let r = simulate(&m, &w.unwrap(), "static", slice_ms, seed);
        prop_assert_eq!(r.migrations, 0);
        let mut core_of: Vec<Option<u32>> = vec![None; r.threads.len()];
        for s in &r.segments {
            let c = core_of[s.thread as usize].get_or_insert(s.core);
            prop_assert_eq!(*c, s.core, "thread {} ran on core {} and on core {}", s.thread, c, s.core);
        }
        // Every thread that did anything ran, so the check above covered it.
        for t in &r.threads {
            prop_assert!(t.total_time_ns() == 0 || core_of[t.id as usize].is_some());
        }
    }
}

/// The first instant, if any, at which a slow core runs a thread while a fast core is idle:
/// (time, idle fast core, busy slow core). Segments are half-open [start, end): a core whose
/// segment ends at t and whose next starts at t was never idle.
fn fast_idle_while_slow_runs(m: &Machine, r: &RunResult) -> Option<(u64, usize, usize)> {
    // (time, +1 start / -1 end, core), ends before starts at the same instant.
    let mut edges: Vec<(u64, i32, usize)> = Vec::new();
    for s in &r.segments {
        edges.push((s.start_ns, 1, s.core as usize));
        edges.push((s.end_ns, -1, s.core as usize));
    }
    edges.sort_unstable();
    let mut running = vec![0i32; m.num_cores()];
    let mut i = 0;
    while i < edges.len() {
        let t = edges[i].0;
        while i < edges.len() && edges[i].0 == t {
            running[edges[i].2] += edges[i].1;
            i += 1;
        }
        // The state after every change at t holds until the next edge; a zero-length state is
        // not a state.
        if i == edges.len() || edges[i].0 == t {
            continue;
        }
        let busy_slow = (0..m.num_cores()).find(|&c| !m.is_fast(c) && running[c] > 0);
        let idle_fast = (0..m.num_cores()).find(|&c| m.is_fast(c) && running[c] == 0);
        if let (Some(s), Some(f)) = (busy_slow, idle_fast) {
            return Some((t, f, s));
        }
    }
    None
}

proptest! {
    #![proptest_config(config(160, 0x00b0_5fc5))]

    // busyfcs applies its decisions in the instant of the event that calls for them (a thread
    // blocks, sleeps, exits, wakes, starts), and a thread it moves to a fast core pays its
    // migration cost there, so the core is busy from that instant: no tolerance is needed.
    #[test]
    fn busyfcs_never_idles_a_fast_core_while_a_slow_core_runs(
        types in prop::collection::vec((1u32..4, 0.5f64..3.0, 1.0f64..2.0), 1..4),
        wl in workload_strategy(),
        slice_ms in 1u64..8,
        seed in 0u64..1000,
    ) {
        let m = Machine::from_toml("prop-machine", &machine_toml(&types)).unwrap();
        let w = parse_workload(&wl);
        prop_assume!(w.is_some());
        let r = simulate(&m, &w.unwrap(), "busyfcs", slice_ms, seed);
        let bad = fast_idle_while_slow_runs(&m, &r);
        prop_assert!(bad.is_none(), "at {:?} (ns, idle fast core, busy slow core)", bad);
    }
}

#[test]
fn the_idle_fast_core_check_sees_an_idle_fast_core() {
    // The check must be able to fail: under `bound` (thread j on core j), with 2 compute-bound threads on 1 fast and
    // 2 slow cores, one thread is pinned to fast core 0 and one to slow core 1; give the fast one
    // less work, and core 1 runs on while core 0 idles.
    let m = Machine::from_toml("m", &machine_toml(&[(1, 2.0, 1.0), (2, 1.0, 1.0)])).unwrap();
    let w = Workload::from_toml(
        "w",
        "[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e7\n\
         [[app]]\nname = \"b\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e8\n",
        &Programs::new(),
    )
    .unwrap();
    let r = simulate(&m, &w, "bound", 4, 1);
    // a: 1e7 instructions at 2 GHz = 5 ms, then core 0 idles while b goes on on core 1.
    assert_eq!(fast_idle_while_slow_runs(&m, &r), Some((5_000_000, 0, 1)));
    assert_eq!(fast_idle_while_slow_runs(&m, &simulate(&m, &w, "busyfcs", 4, 1)), None);
}

// HAFS keeps a balance counter per thread, BC = α·(slow time) − (1−α)·(fast time), α = F/(F+S),
// and swaps a slow thread whose BC passed +threshold with a fast one whose BC passed −threshold.
// Without clamping, BC is exactly D = α·total − fast, so a thread's fast share deviates from α
// by |D| / total. D stays bounded:
// - a thread has expired once |BC| > threshold, and the policy sees it at its next quantum, at
//   most one quantum of CPU time later (so |BC| <= threshold + quantum then);
// - while it waits for an expired partner on the other side, BC goes on to the clamp at 2
//   thresholds; from there D can run at most about one more threshold ahead of BC before a
//   partner, moving toward its own threshold at the same rate, is ready.
// So |D| <= 3·threshold + quantum, and the share is within (3·threshold + quantum) / total of α.
// This needs every thread to progress at the same rate, which holds when each core carries the
// same number of threads: N = k·(F+S). With unequal core loads a thread sharing a core accrues
// more slowly than its would-be partners and the bound scales with the ratio of the rates.
proptest! {
    #![proptest_config(config(24, 0x4af5))]

    #[test]
    fn rr_gives_every_thread_the_fast_share_f_over_f_plus_s(
        fast in 1u32..4,
        slow in 1u32..5,
        per_core in 1usize..3,
        threshold_ms in prop::sample::select(vec![10u64, 20, 50]),
        quantum_ms in prop::sample::select(vec![2u64, 5, 10]),
        seed in 0u64..1000,
    ) {
        let n = per_core * (fast + slow) as usize;
        let alpha = fast as f64 / (fast + slow) as f64;
        let m = Machine::from_toml("m", &machine_toml(&[(fast, 2.0, 1.0), (slow, 1.0, 1.0)])).unwrap();
        // About 4 s of wall time: per_core threads share a core that runs at 2 GHz a fraction α of the time.
        let instructions = 4.0 * (alpha * 2e9 + (1.0 - alpha) * 1e9) / per_core as f64;
        let w = Workload::from_toml(
            "w",
            &format!("[[app]]\nname = \"a\"\ncopies = {n}\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions:e}\n"),
            &Programs::new(),
        )
        .unwrap();
        let r = simulate(&m, &w, &format!("rr:threshold_ms={threshold_ms}:quantum_ms={quantum_ms}"), 4, seed);
        // While all threads live, every core is busy; after the first exits, the others no longer
        // compete for the fast cores alike. Measure up to that instant.
        let mut last_run = vec![0u64; n];
        for s in &r.segments {
            last_run[s.thread as usize] = last_run[s.thread as usize].max(s.end_ns);
        }
        let window = *last_run.iter().min().unwrap();
        let (mut fast_ns, mut total_ns) = (vec![0u64; n], vec![0u64; n]);
        for s in r.segments.iter().filter(|s| s.start_ns < window) {
            let d = s.end_ns.min(window) - s.start_ns;
            total_ns[s.thread as usize] += d;
            if m.is_fast(s.core as usize) {
                fast_ns[s.thread as usize] += d;
            }
        }
        let bound_ns = (3 * threshold_ms + quantum_ms) as f64 * 1e6;
        for t in 0..n {
            let share = fast_ns[t] as f64 / total_ns[t] as f64;
            let tolerance = bound_ns / total_ns[t] as f64;
            prop_assert!(tolerance < 0.1, "the run is too short to say anything: tolerance {}", tolerance);
            prop_assert!((share - alpha).abs() <= tolerance,
                "thread {} of {}: fast share {:.4}, α = {:.4}, tolerance {:.4} (CPU time {:.2} s of a {:.2} s window)",
                t, n, share, alpha, tolerance, total_ns[t] as f64 / 1e9, window as f64 / 1e9);
        }
    }
}

proptest! {
    #![proptest_config(config(64, 0x000b_1d0f))]

    #[test]
    fn bindvm_runs_application_threads_on_fast_cores_and_runtime_threads_on_slow_ones(
        types in prop::collection::vec((1u32..4, 0.5f64..3.0, 1.0f64..2.0), 1..4),
        wl in workload_strategy(),
        slice_ms in 1u64..8,
        seed in 0u64..1000,
    ) {
        let m = Machine::from_toml("prop-machine", &machine_toml(&types)).unwrap();
        // On a machine of one capacity there is nothing to bind to.
        prop_assume!(!m.slow_cores().is_empty());
        let w = parse_workload(&wl);
        prop_assume!(w.is_some());
        let r = simulate(&m, &w.unwrap(), "bindvm", slice_ms, seed);
        for s in &r.segments {
            let kind = r.threads[s.thread as usize].kind;
            prop_assert_eq!(m.is_fast(s.core as usize), kind == ThreadKind::App, "{:?} thread {} ran on core {}", kind, s.thread, s.core);
        }
    }
}
