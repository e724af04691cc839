//! Properties over random machines, workloads and policies: every run ends; no core runs two
//! threads at once and no thread runs on two cores at once; every instruction retires exactly
//! once; counters agree with the recorded schedule; time never goes backwards.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Phase, SimpleModel, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_sim::{Engine, SimConfig};
use proptest::prelude::*;

mod common;
use common::{machine_toml, workload_strategy};

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

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_run_ends_consistently(
        types in prop::collection::vec((1u32..4, 0.5f64..3.0, 1.0f64..2.0), 1..4),
        wl in workload_strategy(),
        policy in prop::sample::select(vec!["oblivious", "static", "rr", "busyfcs", "rr:threshold_ms=5:quantum_ms=2", "pa", "pa:expire_fast_ms=5:boost_ticks=3", "mintlp", "pa-rtx:spin_threshold_us=50", "pa-rtx:master=app", "wash", "wash:quantum_ms=5:behind_window_quanta=1:lock_candidates=contended", "bindvm", "pfs"]),
        slice_ms in 1u64..8,
        seed in 0u64..1000,
    ) {
        let m = Machine::from_toml("prop-machine", &machine_toml(&types)).unwrap();
        let w = Workload::from_toml("prop-workload", &wl, &Programs::new());
        // An app made of barriers alone does no work and is rejected as input; nothing to run.
        prop_assume!(!matches!(&w, Err(e) if e.message.contains("does no work")));
        let w = w.unwrap();
        let mut p = build(&PolicySpec::parse(policy).unwrap(), &m).unwrap();
        let cfg = SimConfig { slice_ns: slice_ms * 1_000_000, seed, max_segments: usize::MAX, ..SimConfig::default() };
        let r = Engine::new(&m, &w, &SimpleModel, p.as_mut(), cfg).run().unwrap();

        // Every measured run completed.
        for (a, res) in w.apps.iter().zip(&r.apps) {
            prop_assert_eq!(res.turnarounds_ns.len() as u32, a.runs);
        }
        // Every instruction retired exactly once.
        let want = total_instructions(&w);
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
    }
}
