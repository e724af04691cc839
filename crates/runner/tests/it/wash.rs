//! WASH, bindVM and PFS (WASH, "Portable Performance on Asymmetric Multicore Processors",
//! Algorithm 1, §3–§6) on the catalog's WASH machines: wash-1b5s (core 0 big at 2.8 GHz, cores
//! 1–5 small at 0.8 GHz), wash-2b4s (cores 0–1 big). Compute phases here have CPI 1 and no
//! misses, so a thread retires 2.8 instructions per ns on a big core and 0.8 on a small one.

use ampsched_model::workload::Programs;
use ampsched_model::{CoreSet, Machine, Policy, SimpleModel, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_runner::catalog;
use ampsched_sim::{Engine, RunResult, SimConfig};

const MS: u64 = 1_000_000;

fn machine(name: &str) -> Machine {
    catalog::machine(name).unwrap()
}

fn workload(text: &str) -> Workload {
    Workload::from_toml("w.toml", text, &Programs::new()).unwrap()
}

fn simulate(m: &Machine, w: &Workload, spec: &str) -> (RunResult, Box<dyn Policy>) {
    let mut p = build(&PolicySpec::parse(spec).unwrap(), m).unwrap();
    let cfg = SimConfig { max_segments: usize::MAX, ..SimConfig::default() };
    let r = Engine::new(m, w, &SimpleModel, p.as_mut(), cfg).run().unwrap();
    (r, p)
}

fn cores(list: &[usize]) -> CoreSet {
    CoreSet::from_cores(list.iter().copied())
}

/// The ids of an app's threads in group `group` (threads are numbered in start order, groups in
/// listing order).
fn group_threads(r: &RunResult, app: u32, group: u16) -> Vec<usize> {
    r.threads.iter().filter(|t| t.app == app && t.group == group).map(|t| t.id as usize).collect()
}

/// A lock whose holder makes five others wait: the holder's critical sections are 2e7
/// instructions (7.14 ms on the big core, 25 ms on a small one), the waiters' 1e5 with 1e6
/// between acquisitions; everyone blocks when the lock is taken. So each waiter spends most of
/// its life waiting for the holder (Lock% > 0.5: contended), the holder waits only for the
/// waiters' short sections (not contended), and nobody is active (all block every cycle).
const HOLDER_AND_WAITERS: &str = "[[app]]\nname = \"j\"\n\
    [[app.group]]\nname = \"holder\"\ncount = 1\nkind = \"app\"\n\
    [[app.group.phase]]\nkind = \"critical\"\nlock = \"l\"\ncs_instructions = 2e7\nbetween_instructions = 1e5\ncount = 20\nwait = \"block\"\n\
    [[app.group]]\nname = \"waiter\"\ncount = 5\nkind = \"app\"\n\
    [[app.group.phase]]\nkind = \"critical\"\nlock = \"l\"\ncs_instructions = 1e5\nbetween_instructions = 1e6\ncount = 20\nwait = \"block\"\n";

#[test]
fn the_holder_of_a_contended_lock_is_bound_to_the_big_core() {
    // Six application threads on 1B5S: |T_A| > |C_B|. Five are contended: the app is
    // non-scalable. No thread is active (each blocks every cycle), so the execution set is empty;
    // the lock set holds ceil(1/6 × 5) = 1 thread, the one others waited on longest: the holder.
    // It starts on C_B (the fallback), stays there: all its 20 × 2e7 instructions retire on the
    // big core, 4e8 / 2.8 per ns = 142.86 ms, none on a small one. The waiters get all cores.
    let m = machine("wash-1b5s");
    let w = workload(HOLDER_AND_WAITERS);
    let (r, _) = simulate(&m, &w, "wash");
    let holder = group_threads(&r, 0, 0)[0];
    assert_eq!(r.threads[holder].allowed, cores(&[0]));
    assert_eq!(r.threads[holder].per_type[1].time_ns, 0, "the holder never ran on a small core");
    let big_ms = r.threads[holder].per_type[0].time_ns as f64 / MS as f64;
    // Its CPU time: 20 × 2e7 + 20 × 1e5 instructions (sections and the code between them).
    assert!((big_ms - (4e8 + 2e6) / 2.8e6).abs() < 0.5, "{big_ms} ms");
    for t in group_threads(&r, 0, 1) {
        assert_eq!(r.threads[t].allowed, m.all_cores(), "waiter {t}");
        assert!(r.threads[t].lock_wait_ns > 0);
    }
    // Read literally (only contended threads may enter the lock set), Algorithm 1 never promotes
    // this holder, which waits little itself: a waiter gets the big core instead.
    let (lit, _) = simulate(&m, &w, "wash:lock_candidates=contended");
    assert_eq!(lit.threads[holder].allowed, m.all_cores());
    let promoted: Vec<usize> = group_threads(&lit, 0, 1).into_iter().filter(|&t| lit.threads[t].allowed == cores(&[0])).collect();
    assert_eq!(promoted.len(), 1, "one waiter in the lock set");
    // PFS has no lock set: nobody is bound to the big core.
    let (pfs, _) = simulate(&m, &w, "pfs");
    assert!(pfs.threads.iter().all(|t| t.allowed == m.all_cores()));
}

#[test]
fn runtime_threads_lose_the_free_big_core_when_application_threads_outnumber_the_big_cores() {
    // 2B4S. The app opens with a serial phase, so its master runs alone (|T_A| = 1 ≤ |C_B| = 2):
    // from the first quantum (40 ms) it shares one big core ({0}) and the five runtime threads
    // get the rest, {1..5}: with four small cores for five of them, the idle big core 1 takes
    // the fifth. The serial part (2.8e8 instructions on a big core) ends at 100 ms (plus 40 µs
    // if the master moved from core 1 to 0 at 40 ms); two fresh workers join: |T_A| = 3 > 2.
    // At the next quantum (120 ms) the runtime threads are confined to C_S = {2..5}, until the
    // application threads are gone (the helpers then get every core the app leaves free).
    let m = machine("wash-2b4s");
    let w = workload(
        "[[app]]\nname = \"j\"\n\
         [[app.group]]\nname = \"main\"\ncount = 3\nkind = \"app\"\nworkers = \"per_phase\"\n\
         [[app.group.phase]]\nkind = \"serial\"\ninstructions = 2.8e8\n\
         [[app.group.phase]]\nkind = \"compute\"\ninstructions = 2.8e8\n\
         [[app.group]]\nname = \"gc\"\ncount = 5\nkind = \"runtime\"\n\
         [[app.group.phase]]\nkind = \"compute\"\ninstructions = 4e8\n",
    );
    let (r, _) = simulate(&m, &w, "wash");
    let runtime: Vec<u32> = r.threads.iter().filter(|t| t.kind == ampsched_model::ThreadKind::Runtime).map(|t| t.id).collect();
    assert_eq!(runtime.len(), 5);
    let on_core_1 = |from: u64, to: u64| r.segments.iter().any(|s| runtime.contains(&s.thread) && s.core == 1 && s.end_ns > from && s.start_ns < to);
    assert!(on_core_1(40 * MS, 100 * MS), "a runtime thread used the free big core");
    assert!(!on_core_1(0, 40 * MS), "before the first quantum runtime threads are on C_S (fallback)");
    let app_end = r.segments.iter().filter(|s| !runtime.contains(&s.thread)).map(|s| s.end_ns).max().unwrap();
    assert!(app_end > 200 * MS, "the workers' 2.8e8 instructions take at least 100 ms");
    assert!(!on_core_1(120 * MS, app_end), "after the workers joined, no runtime thread on a big core");
    assert!(!r.segments.iter().any(|s| runtime.contains(&s.thread) && s.core == 0 && s.start_ns < app_end));
}

#[test]
fn a_scalable_app_is_spread_over_all_cores() {
    // Six homogeneous compute-bound application threads, no locks, on 1B5S: they start on C_B
    // (the fallback) and at the first quantum, |T_A| = 6 > 1 with no contended thread, every one
    // gets all cores. Each then runs alone on a core: the one on the big core retires 3.5 times
    // what the others do, which is not falling behind (each small-core thread retires 1 / 1.417
    // of the mean, above a quarter), so the app stays scalable and nobody is bound to C_B.
    let m = machine("wash-1b5s");
    let w = workload("[[app]]\nname = \"s\"\nthreads = 6\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n");
    // model=core-type so that the prediction is known exactly (below); the trained models change
    // no placement of a scalable app, which has no execution set.
    let (r, p) = simulate(&m, &w, "wash:model=core-type");
    for t in &r.threads {
        assert_eq!(t.allowed, m.all_cores(), "thread {}", t.id);
    }
    let on_small = r.threads.iter().filter(|t| t.per_type[1].time_ns > 0).count();
    assert!(on_small >= 5, "{on_small} threads ran on small cores");
    // Five threads finish on small cores: after 40 ms of sharing the big core (6 × 40 ms × 2.8
    // = 6.72e8 instructions among them) each has ~1e9 − 1.1e8 left at 0.8 per ns, ~1.1 s.
    let end = r.makespan_ns as f64 / 1e9;
    assert!(end > 1.15 && end < 1.3, "makespan {end} s");
    // Without counters the prediction is the cores' peak-rate ratio, 2.8 / 0.8.
    assert!((p.diagnostics().unwrap().sf_estimate(0).unwrap() - 3.5).abs() < 1e-12);
    assert!(r.sf_error_mean().is_some());
}

#[test]
fn threads_shorter_than_a_quantum_keep_their_fallback_placement() {
    // 2B4S. App "long": one application thread and one runtime thread, both long; from the first
    // quantum its thread shares one big core ({0}) and its helper gets the rest ({1..5}). App
    // "short" arrives at 30 ms with an application thread of 5e7 instructions (17.9 ms on a big
    // core) and a runtime thread of 2e7 (25 ms on a small one): both live through the quantum at
    // 40 ms, but neither has lived a whole quantum then, so they keep their start placement, C_B
    // = {0, 1} and C_S = {2..5}, to their end.
    let m = machine("wash-2b4s");
    let w = workload(
        "[[app]]\nname = \"long\"\n\
         [[app.group]]\nname = \"main\"\ncount = 1\nkind = \"app\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e9\n\
         [[app.group]]\nname = \"gc\"\ncount = 1\nkind = \"runtime\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 2e8\n\
         [[app]]\nname = \"short\"\narrival_s = 0.03\n\
         [[app.group]]\nname = \"main\"\ncount = 1\nkind = \"app\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 5e7\n\
         [[app.group]]\nname = \"jit\"\ncount = 1\nkind = \"runtime\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 2e7\n",
    );
    let (r, _) = simulate(&m, &w, "wash");
    let (long_main, long_gc) = (group_threads(&r, 0, 0)[0], group_threads(&r, 0, 1)[0]);
    let (short_main, short_jit) = (group_threads(&r, 1, 0)[0], group_threads(&r, 1, 1)[0]);
    assert_eq!(r.threads[long_main].allowed, cores(&[0]));
    assert_eq!(r.threads[long_gc].allowed, cores(&[1, 2, 3, 4, 5]));
    assert_eq!(r.threads[short_main].allowed, cores(&[0, 1]));
    assert_eq!(r.threads[short_jit].allowed, cores(&[2, 3, 4, 5]));
    // They did live through 40 ms: started at 30 ms, 17.86 ms and 25 ms of CPU time.
    assert_eq!(r.threads[short_main].started_ns, 30 * MS);
    assert!((r.threads[short_main].per_type[0].time_ns as f64 - 5e7 / 2.8).abs() < 1e3);
    assert_eq!(r.threads[short_main].per_type[1].time_ns, 0);
    assert_eq!(r.threads[short_jit].per_type[0].time_ns, 0);
    assert_eq!(r.threads[short_jit].per_type[1].time_ns, 25 * MS);
}

#[test]
fn bindvm_binds_application_threads_to_big_cores_and_helpers_to_small_ones() {
    // 1B5S: two application threads of 2.8e8 instructions share the one big core (bindVM confines
    // the application to it, WASH §7.3): 100 ms of CPU each, both done at 200 ms. Two runtime
    // threads of 8e7 instructions take 100 ms each on small cores. Nothing ever migrates.
    let m = machine("wash-1b5s");
    let w = workload(
        "[[app]]\nname = \"j\"\n\
         [[app.group]]\nname = \"main\"\ncount = 2\nkind = \"app\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 2.8e8\n\
         [[app.group]]\nname = \"gc\"\ncount = 2\nkind = \"runtime\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 8e7\n",
    );
    let (r, _) = simulate(&m, &w, "bindvm");
    for t in group_threads(&r, 0, 0) {
        assert_eq!(r.threads[t].allowed, cores(&[0]));
        assert_eq!(r.threads[t].per_type[0].time_ns, 100 * MS);
    }
    for t in group_threads(&r, 0, 1) {
        assert_eq!(r.threads[t].allowed, cores(&[1, 2, 3, 4, 5]));
        assert_eq!(r.threads[t].per_type[1].time_ns, 100 * MS);
    }
    assert_eq!(r.makespan_ns, 200 * MS);
    assert_eq!(r.migrations, 0);
}

#[test]
fn pfs_gives_the_big_core_to_a_runtime_thread_that_ranks_highest_wash_does_not() {
    // 1B5S. Three application threads take turns at a lock with 1e7-instruction sections and
    // nothing between, blocking while they wait: each waits for the two others' sections, Lock%
    // about 2/3 (contended, the app non-scalable), and none is active. A compute-bound runtime
    // thread never blocks: the only active thread, it alone makes up the execution set. PFS
    // ranks it with the application threads and binds it to the big core (it starts there too:
    // PFS's fallback treats every thread as an application thread), so it never runs on a small
    // core. WASH keeps runtime threads on the small cores when |T_A| > |C_B|.
    let m = machine("wash-1b5s");
    let w = workload(
        "[[app]]\nname = \"j\"\n\
         [[app.group]]\nname = \"main\"\ncount = 3\nkind = \"app\"\n\
         [[app.group.phase]]\nkind = \"critical\"\nlock = \"l\"\ncs_instructions = 1e7\nbetween_instructions = 0\ncount = 30\nwait = \"block\"\n\
         [[app.group]]\nname = \"jit\"\ncount = 1\nkind = \"runtime\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1.4e9\n",
    );
    let (pfs, _) = simulate(&m, &w, "pfs");
    let jit = group_threads(&pfs, 0, 1)[0];
    assert_eq!(pfs.threads[jit].allowed, cores(&[0]));
    assert_eq!(pfs.threads[jit].per_type[1].time_ns, 0);
    // All 1.4e9 instructions on the big core: 500 ms of CPU time.
    assert_eq!(pfs.threads[jit].per_type[0].time_ns, 500 * MS);
    // The application threads run on small cores but for their first 40 ms: each retires
    // 30 × 1e7 instructions, 375 ms of CPU time on a small core.
    for t in group_threads(&pfs, 0, 0) {
        assert!(pfs.threads[t].per_type[1].time_ns > 300 * MS, "thread {t}");
    }
    // Under WASH the runtime thread has the small cores as long as the application threads live
    // (they retire 3 × 3e8 instructions, at least 320 ms even all on the big core).
    let (wash, _) = simulate(&m, &w, "wash");
    let app_end = wash.segments.iter().filter(|s| s.thread as usize != jit).map(|s| s.end_ns).max().unwrap();
    assert!(app_end > 320 * MS);
    assert!(!wash.segments.iter().any(|s| s.thread as usize == jit && s.core == 0 && s.start_ns < app_end));
}

/// WASH §5 and §8.4 on a Java model: each run reports the speedup predictor's error against the
/// truth of each thread's phase (`sf_error`: mean |predicted − true| over the threads running at
/// each quantum, in speedup units; the true speedups of these programs' phases are 1.9 to 3.3),
/// with the model trained leaving the app's program out. Its whole-run leave-one-out error in
/// training is about 3%; per quantum it is larger, up to ~0.25 (~10%): a prediction is the last
/// quantum's, so each phase change (GC cycles, JIT bursts) costs a quantum of error, and quanta
/// mix phases and barrier waits. A model whose
/// weights are negated predicts speedups backwards around the same mean, so its error is larger,
/// and the prediction without counters (every thread the 3.5 clock ratio) is worse than the
/// trained one on a program whose threads range from memory-bound to compute-bound.
#[test]
fn the_leave_one_out_model_error_is_reported_and_the_negated_model_does_worse() {
    use ampsched_runner::{Experiment, Settings};
    for workload in ["dacapo-pmd", "dacapo-sunflow"] {
        let error = |model: &str| {
            let r = Experiment::new("wash-1b5s", workload, Settings::default()).unwrap().run(&format!("wash:model={model}")).unwrap();
            r["sf_error"].as_f64().unwrap_or_else(|| panic!("{workload}: wash:model={model} reports no sf_error"))
        };
        let (trained, negated, core_type) = (error("default"), error("negated"), error("core-type"));
        assert!(trained < 0.3, "{workload}: the leave-one-out model's error {trained} is small");
        assert!(negated > trained * 2.0, "{workload}: negated {negated} against default {trained}");
        assert!(core_type > trained, "{workload}: core-type {core_type} against default {trained}");
    }
}
