//! Properties over random machines, workloads and policies: every run ends; no core runs two
//! threads at once and no thread runs on two cores at once; every instruction retires exactly
//! once; counters agree with the recorded schedule; time never goes backwards.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Phase, Signals, SimpleModel, Workload, MAX_CORE_TYPES};
use ampsched_policy::{build, Build, PolicySpec, POLICIES};
use ampsched_sim::{Engine, SimConfig};
use proptest::prelude::*;

use crate::common::{machine_toml, workload_strategy};

/// Instructions the workload retires: every thread of every measured run, every phase.
fn total_instructions(w: &Workload) -> f64 {
    w.apps
        .iter()
        .map(|a| {
            a.runs as f64
                * a.groups
                    .iter()
                    .map(|g| {
                        let per: f64 = g
                            .phases
                            .iter()
                            .map(|p| match p {
                                Phase::Compute { instructions, .. } => *instructions,
                                Phase::Serial { instructions, .. } => *instructions / g.count as f64,
                                Phase::Critical { cs_instructions, between_instructions, count, .. } => {
                                    (cs_instructions + between_instructions) * *count as f64
                                }
                                _ => 0.0,
                            })
                            .sum();
                        per * g.count as f64 * g.repeat as f64
                    })
                    .sum::<f64>()
        })
        .sum()
}

/// Option variants worth running beside every registered policy's defaults: short thresholds and
/// quanta that make the policies act often on these short runs.
const VARIANTS: &[&str] = &[
    "rr:threshold_ms=5:quantum_ms=2",
    "pa:expire_fast_ms=5:boost_ticks=3",
    "pa-rtx:spin_threshold_us=50",
    "pa-rtx:master=app",
    "wash:quantum_ms=5:behind_window_quanta=1:lock_candidates=contended",
];

/// Every registered policy with its default options, from the registry (so a policy is covered
/// the day it is registered), then the variants. The oracle (`best-static`) is no policy the
/// engine runs: the runner simulates its candidates, which are `static` assignments.
fn specs() -> Vec<&'static str> {
    let registered = POLICIES.iter().filter(|p| !matches!(p.build, Build::Oracle)).map(|p| p.name);
    registered.chain(VARIANTS.iter().copied()).collect()
}

/// The workload a policy that needs `needs` is given. The runner measures the solo profiles
/// (`Signals::PROFILE`) with profiling runs; the properties below hold whatever a profile says,
/// so each type's peak rate (freq / cpi_scale instructions per ns) stands in for them.
fn with_profiles(w: &Workload, m: &Machine, needs: Signals) -> Workload {
    let mut w = w.clone();
    if needs.contains(Signals::PROFILE) {
        let mut ips = [0.0; MAX_CORE_TYPES];
        for (rate, t) in ips.iter_mut().zip(&m.core_types) {
            *rate = t.freq_ghz / t.cpi_scale * 1e9;
        }
        for g in w.apps.iter_mut().flat_map(|a| a.groups.iter_mut()) {
            g.solo_ips = Some(ips);
        }
    }
    w
}

proptest! {
    // Every case runs every spec (23 policies and variants today) on one random machine and
    // workload, so every policy is sure to be run on each. These runs are short (a few hundred
    // events): 128 cases of 23 runs take well under a second.
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_run_ends_consistently(
        types in prop::collection::vec((1u32..4, 0.5f64..3.0, 1.0f64..2.0), 1..4),
        wl in workload_strategy(),
        slice_ms in 1u64..8,
        seed in 0u64..1000,
    ) {
        let m = Machine::from_toml("prop-machine", &machine_toml(&types)).unwrap();
        let w = Workload::from_toml("prop-workload", &wl, &Programs::new());
        // An app made of barriers alone does no work and is rejected as input; nothing to run.
        prop_assume!(!matches!(&w, Err(e) if e.message.contains("does no work")));
        let w = w.unwrap();
        for policy in specs() {
            let spec = PolicySpec::parse(policy).unwrap();
            let w = with_profiles(&w, &m, ampsched_policy::info(&spec.name).unwrap().needs);
            check_run(&m, &w, policy, slice_ms, seed).map_err(|e| TestCaseError::fail(format!("{policy}: {e}")))?;
        }
    }
}

/// One run of `policy` and its conservation properties.
fn check_run(m: &Machine, w: &Workload, policy: &str, slice_ms: u64, seed: u64) -> Result<(), TestCaseError> {
    let mut p = build(&PolicySpec::parse(policy).unwrap(), m).unwrap();
    let cfg = SimConfig { slice_ns: slice_ms * 1_000_000, seed, max_segments: usize::MAX, ..SimConfig::default() };
    let r = Engine::new(m, w, &SimpleModel, p.as_mut(), cfg).run().map_err(|e| TestCaseError::fail(format!("{e:?}")))?;

    // Every measured run completed.
    for (a, res) in w.apps.iter().zip(&r.apps) {
        prop_assert_eq!(res.turnarounds_ns.len() as u32, a.runs);
    }
    // Every instruction retired exactly once.
    let want = total_instructions(w);
    prop_assert!((r.instructions() - want).abs() <= 1e-9 * want, "retired {} of {}", r.instructions(), want);

    // No core runs two threads at once; segments are well-formed and end by the makespan.
    let mut by_core: Vec<Vec<(u64, u64)>> = vec![Vec::new(); m.num_cores()];
    let mut by_thread: Vec<Vec<(u64, u64)>> = vec![Vec::new(); r.threads.len()];
    let mut per_thread_time = vec![0u64; r.threads.len()];
    for s in &r.segments {
        prop_assert!(s.start_ns < s.end_ns && s.end_ns <= r.makespan_ns);
        by_core[s.core as usize].push((s.start_ns, s.end_ns));
        by_thread[s.thread as usize].push((s.start_ns, s.end_ns));
        per_thread_time[s.thread as usize] += s.end_ns - s.start_ns;
    }
    for spans in by_core.iter_mut().chain(by_thread.iter_mut()) {
        spans.sort_unstable();
        for pair in spans.windows(2) {
            prop_assert!(pair[0].1 <= pair[1].0, "overlapping runs {:?} and {:?}", pair[0], pair[1]);
        }
    }
    // The counters' time is the time the schedule shows (and so never ran backwards).
    for t in &r.threads {
        prop_assert_eq!(t.total_time_ns(), per_thread_time[t.id as usize]);
    }
    // A migration is a run on another core than the thread's previous run, and nothing else.
    let mut runs: Vec<Vec<(u64, u32)>> = vec![Vec::new(); r.threads.len()];
    for s in &r.segments {
        runs[s.thread as usize].push((s.start_ns, s.core));
    }
    for (t, mut rs) in runs.into_iter().enumerate() {
        rs.sort_unstable();
        let moves = rs.windows(2).filter(|w| w[0].1 != w[1].1).count() as u32;
        prop_assert_eq!(r.threads[t].migrations, moves, "thread {}", t);
    }
    let busy: u64 = r.cores.iter().map(|c| c.busy_ns).sum();
    prop_assert_eq!(busy, per_thread_time.iter().sum::<u64>());
    Ok(())
}
