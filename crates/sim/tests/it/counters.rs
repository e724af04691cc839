//! The counted events and the counter noise, held against numbers derived by hand from the
//! event table (`ampsched_model::events`) and the noise model (the simulator's `counters`
//! module): each event's rate per instruction; the noise's mean, spread and bound; exact
//! counters at 0; counters that never decrease; results that stay exact; the same seed giving
//! the same reads and another seed others.

use ampsched_model::events::{self, EVENTS};
use ampsched_model::workload::Programs;
use ampsched_model::{Counters, Workload};
use ampsched_sim::{RunResult, SimConfig};

use crate::common::{machine, simulate_with};

fn workload(text: &str) -> Workload {
    Workload::from_toml("test-workload", text, &Programs::new()).unwrap()
}

/// One 2 GHz core with a private 1 MB LLC, memory at 100 ns.
fn one_core() -> ampsched_model::Machine {
    machine("[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n[[llc]]\nsize_kb = 1024\ncores = [0]\n")
}

#[test]
fn each_event_counts_its_rate_per_instruction() {
    // CPI 1.5; misses 20 per thousand at 256 KB, 2 at 4 MB: at 1 MB (halfway in log2 size) 11.
    let w = workload(
        "[[app]]\nname = \"a\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\ncpi = 1.5\n\
         miss_curve = { size_kb = [256, 4096], mpki = [20, 2] }\nbranch_mpki = 8\n",
    );
    let r = simulate_with(&one_core(), &w, None, SimConfig::default(), |_, _| {});
    let c = &r.threads[0].per_type[0];
    assert_eq!(c.instructions, 1e9);
    let per = |e: usize| c.event(e) / c.instructions;
    let misses = 11.0 / 1000.0;
    let references = 20.0 / 1000.0;
    // 11 misses × 100 ns × 2 GHz = 2.2 cycles per instruction, + 40 per LLC hit (9 per thousand).
    let stalls = misses * 100.0 * 2.0;
    let expected = [
        (events::LLC_MISSES, misses),
        (events::LLC_REFERENCES, references),
        (events::MEM_STALL_CYCLES, stalls + (references - misses) * 40.0),
        // 1.3 per miss (writebacks) + the curve's floor, 2 per thousand, prefetched.
        (events::DRAM_ACCESSES, misses * 1.3 + 0.002),
        // The misses' stalls + CPI 1.5 above the 3-wide ideal 1/3.
        (events::DISPATCH_STALLS, stalls + 1.5 - 1.0 / 3.0),
        (events::BRANCH_MISSES, 0.008),
        // No l1d_mpki: the LLC references + 20 per thousand that hit in L2.
        (events::L1D_MISSES, references + 0.020),
        // Time per instruction 1.5 / 2 + 0.011 × 100 = 1.85 ns: 3.7 cycles.
        (events::CYCLES, 3.7),
    ];
    for (e, want) in expected {
        assert!((per(e) - want).abs() < 1e-9 * want.max(1.0), "{}: {} per instruction, expected {want}", EVENTS[e].name, per(e));
    }
}

/// A 4e9-instruction thread (CPI 1, 5 misses per thousand: 1 ns per instruction) read every
/// 10 ms: per quantum, (the view's interval, its cumulative counters).
fn reads(noise: f64, seed: u64) -> (Vec<Counters>, Vec<Counters>, RunResult) {
    let w = workload("[[app]]\nname = \"a\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 4e9\nllc_mpki = 5\n");
    let (mut intervals, mut cumulative) = (Vec::new(), Vec::new());
    let cfg = SimConfig { counter_noise: noise, seed, ..SimConfig::default() };
    let r = simulate_with(&one_core(), &w, Some(10_000_000), cfg, |v, _| {
        if v.threads.is_empty() {
            return;
        }
        intervals.push(v.interval_of(0)[0]);
        cumulative.push(v.threads[0].per_type[0]);
    });
    (intervals, cumulative, r)
}

/// Read / true for every event of every interval that ran: true = the exact time × the rate.
fn ratios(intervals: &[Counters]) -> Vec<f64> {
    let mut out = Vec::new();
    for c in intervals.iter().filter(|c| c.time_ns > 0) {
        let instructions = c.time_ns as f64; // 1 ns per instruction
        let truth = [
            (events::INSTRUCTIONS, instructions),
            (events::CYCLES, c.time_ns as f64 * 2.0),
            (events::LLC_MISSES, instructions * 0.005),
            (events::MEM_STALL_CYCLES, instructions * 0.005 * 200.0),
            (events::BRANCH_MISSES, instructions * 0.005),
        ];
        out.extend(truth.iter().map(|&(e, t)| c.event(e) / t));
    }
    out
}

#[test]
fn zero_noise_reads_the_exact_counts() {
    let (intervals, _, _) = reads(0.0, 1);
    let r = ratios(&intervals);
    assert!(r.len() > 1000);
    assert!(r.iter().all(|x| (x - 1.0).abs() < 1e-9), "{:?}", r.iter().find(|x| (*x - 1.0).abs() >= 1e-9));
}

#[test]
fn noise_has_mean_zero_the_chosen_spread_and_its_bound() {
    let sigma = 0.05;
    let (intervals, _, _) = reads(sigma, 1);
    let r = ratios(&intervals);
    let n = r.len() as f64;
    let mean = r.iter().sum::<f64>() / n;
    let sd = (r.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // ~2000 reads: the mean's standard error is σ/√n ≈ 0.0011; 4 of them allowed.
    assert!((mean - 1.0).abs() < 4.0 * sigma / n.sqrt(), "mean factor {mean}");
    // The sample deviation's relative standard error is about 1/√(2n) ≈ 1.6%: ±10% allowed.
    assert!((sd / sigma - 1.0).abs() < 0.1, "spread {sd} for σ = {sigma}");
    let bound = sigma * 12f64.sqrt() + 1e-9;
    assert!(r.iter().all(|x| (x - 1.0).abs() <= bound), "a factor beyond 1 ± σ√12");
}

#[test]
fn noisy_counters_never_decrease_and_results_stay_exact() {
    let (_, cumulative, noisy) = reads(0.25, 3);
    for pair in cumulative.windows(2) {
        for e in 0..EVENTS.len() {
            assert!(pair[1].event(e) >= pair[0].event(e), "{} decreased", EVENTS[e].name);
        }
    }
    let (_, _, exact) = reads(0.0, 3);
    assert_eq!(noisy.makespan_ns, exact.makespan_ns);
    assert_eq!(noisy.threads[0].per_type, exact.threads[0].per_type, "results are the truth, not the reads");
    assert_eq!(noisy.threads[0].per_type[0].instructions, 4e9);
}

#[test]
fn the_same_seed_reads_the_same_and_another_seed_other_counts() {
    let (a, _, _) = reads(0.02, 7);
    let (b, _, _) = reads(0.02, 7);
    let (c, _, _) = reads(0.02, 8);
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Only the reads differ: the run itself is the same.
    assert_eq!(a.iter().map(|x| x.time_ns).collect::<Vec<_>>(), c.iter().map(|x| x.time_ns).collect::<Vec<_>>());
}

#[test]
fn a_policy_that_reads_no_counters_sees_its_cpu_time_only_and_the_run_reports_the_same() {
    // The 4e9-instruction thread read every 10 ms, by a policy whose needs lack counters
    // (`SimConfig::policy_reads_counters`): each read gives the exact CPU time (1 ns per
    // instruction), and every event reads 0; the run's own results are those of a policy
    // shown everything.
    let w = workload("[[app]]\nname = \"a\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 4e9\nllc_mpki = 5\n");
    let run = |reads_counters: bool| {
        let mut seen = Vec::new();
        let cfg = SimConfig { policy_reads_counters: reads_counters, ..SimConfig::default() };
        let r = simulate_with(&one_core(), &w, Some(10_000_000), cfg, |v, _| {
            if !v.threads.is_empty() {
                seen.push(v.threads[0].per_type[0]);
            }
        });
        (seen, r)
    };
    let (blind, r_blind) = run(false);
    let (shown, r_shown) = run(true);
    assert_eq!(blind.len(), shown.len());
    assert!(blind.len() > 300);
    for (b, s) in blind.iter().zip(&shown) {
        assert_eq!(b.time_ns, s.time_ns);
        assert!((0..EVENTS.len()).all(|e| b.event(e) == 0.0), "{b:?}");
    }
    assert!(shown.last().unwrap().instructions > 3e9);
    assert_eq!(r_blind.threads[0].per_type, r_shown.threads[0].per_type);
    assert_eq!(r_blind.makespan_ns, r_shown.makespan_ns);
}
