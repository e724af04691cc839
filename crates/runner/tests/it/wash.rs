//! WASH, bindVM and PFS (WASH, "Portable Performance on Asymmetric Multicore Processors",
//! Algorithm 1, §3–§6) on the catalog's WASH machines: wash-1b5s (core 0 big at 2.8 GHz, cores
//! 1–5 small at 0.8 GHz), wash-2b4s (cores 0–1 big). Compute phases here have CPI 1 and no
//! misses, so a thread retires 2.8 instructions per ns on a big core and 0.8 on a small one.

use ampsched_model::workload::Programs;
use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, SimpleModel, SystemView, ThreadId, ThreadKind, Triggers, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_runner::catalog;
use ampsched_sim::{Engine, RunResult, SimConfig};
use proptest::prelude::*;

use crate::common::{machine_toml, workload_strategy};

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
    // The paper's reading, one WASH per runtime: machine-wide, the second worker starts on every
    // core rather than queued behind the first on C_B (so its app ends otherwise).
    let m = machine("wash-2b4s");
    let w = workload(
        "[[app]]\nname = \"j\"\n\
         [[app.group]]\nname = \"main\"\ncount = 3\nkind = \"app\"\nworkers = \"per_phase\"\n\
         [[app.group.phase]]\nkind = \"serial\"\ninstructions = 2.8e8\n\
         [[app.group.phase]]\nkind = \"compute\"\ninstructions = 2.8e8\n\
         [[app.group]]\nname = \"gc\"\ncount = 5\nkind = \"runtime\"\n\
         [[app.group.phase]]\nkind = \"compute\"\ninstructions = 4e8\n",
    );
    let (r, _) = simulate(&m, &w, "wash:scope=runtime");
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
    // rotation=off: Algorithm 1's line 12 alone (the rotation's test is below).
    let (r, p) = simulate(&m, &w, "wash:model=core-type:rotation=off");
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
    // core. WASH keeps runtime threads on the small cores when |T_A| > |C_B|. Both per runtime,
    // as the paper runs them: machine-wide, PFS's fourth thread would start on every core, not
    // queued for the one big core behind three others.
    let m = machine("wash-1b5s");
    let w = workload(
        "[[app]]\nname = \"j\"\n\
         [[app.group]]\nname = \"main\"\ncount = 3\nkind = \"app\"\n\
         [[app.group.phase]]\nkind = \"critical\"\nlock = \"l\"\ncs_instructions = 1e7\nbetween_instructions = 0\ncount = 30\nwait = \"block\"\n\
         [[app.group]]\nname = \"jit\"\ncount = 1\nkind = \"runtime\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1.4e9\n",
    );
    let (pfs, _) = simulate(&m, &w, "pfs:scope=runtime");
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
    let (wash, _) = simulate(&m, &w, "wash:scope=runtime");
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

/// Four single-threaded managed apps (4 s of work each on a big core) on 2B4S.
const FOUR_SINGLE_THREADED_APPS: &str = "[[app]]\nname = \"a\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1.12e10\ncpi = 1.0\n\
    [[app]]\nname = \"b\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1.12e10\ncpi = 1.0\n\
    [[app]]\nname = \"c\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1.12e10\ncpi = 1.0\n\
    [[app]]\nname = \"d\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1.12e10\ncpi = 1.0\n";

#[test]
fn per_runtime_wash_piles_single_threaded_apps_onto_one_big_core_machine_wide_wash_does_not() {
    // scope=runtime: each app is its own runtime with |T_A| = 1 ≤ |C_B| = 2, so each gives its
    // thread "|T_A| of the big cores", the first: after their first quantum on C_B (the
    // fallback, 40 ms), all four share core 0 (4 × 1.12e10 / 2.8 per ns = 16 s), the small cores
    // never run anything, and three threads wait beside them.
    let m = machine("wash-2b4s");
    let w = workload(FOUR_SINGLE_THREADED_APPS);
    let (r, _) = simulate(&m, &w, "wash:scope=runtime");
    let busy: Vec<u64> = r.cores.iter().map(|c| c.busy_ns).collect();
    assert!(busy[2..].iter().all(|&b| b == 0) && busy[1] <= 40 * MS, "cores other than 0 ran: {busy:?}");
    // The first 40 ms on both big cores, then 15.96 s on core 0.
    assert!(r.makespan_ns as f64 >= 15.96e9, "makespan {}", r.makespan_ns);
    // While four wait on core 0 three do and five cores idle: min(5, 3) = 3, then 2, 1, as they
    // finish; at least 3 core-seconds in all.
    assert!(r.idle_while_waiting_ns as f64 >= 3e9, "idle while waiting {}", r.idle_while_waiting_ns);
    // scope=machine (the default): 4 application threads > 2 big cores, one decision over all: at
    // most two bound to the big cores, the others free to run anywhere, so every thread has a core
    // of its own; the runs end within the 1.12e10 / 0.8 per ns = 14 s a thread takes on a small
    // core alone, and no core idles while a thread waits past the local scheduler's balancing.
    // (rotation=off: the rotation moves two threads onto the big cores every quantum, and the
    // ones it moves off wait there until the balancer, every 10 ms, pulls them to the small cores
    // that freed: that lag is the local scheduler's, but it is more than this bound allows.)
    let (r, _) = simulate(&m, &w, "wash:rotation=off");
    let used = r.cores.iter().filter(|c| c.busy_ns > 0).count();
    assert!(used >= 4, "only {used} cores ran: {:?}", r.cores.iter().map(|c| c.busy_ns).collect::<Vec<_>>());
    assert!(r.makespan_ns as f64 <= 14e9 + 1e8, "makespan {}", r.makespan_ns);
    assert!(r.idle_while_waiting_ns as f64 <= 0.02 * r.makespan_ns as f64 * m.num_cores() as f64, "idle while waiting {}", r.idle_while_waiting_ns);
}

/// Wraps a WASH-family policy and checks, after every decision, that the affinities it leaves
/// let the threads it ranks (application threads under `wash`, every thread under `pfs`) that
/// are runnable each have a core of their own: a matching of them to distinct cores within their
/// affinities covers min(threads, cores). Where it does, no core need idle while such a thread
/// waits: what remains is the local scheduler's own delay (an idle core pulls queued threads at
/// its next balance), which is the OS's, not the policy's. The first violation is kept.
struct WorkConserving {
    inner: Box<dyn Policy>,
    all_threads: bool,
    violation: Option<String>,
}

impl Policy for WorkConserving {
    fn quantum_ns(&self) -> Option<u64> {
        self.inner.quantum_ns()
    }
    fn triggers(&self) -> Triggers {
        self.inner.triggers()
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        self.inner.decide(view, out)?;
        if self.violation.is_some() {
            return Ok(());
        }
        let threads: Vec<ThreadId> = view
            .live
            .iter()
            .copied()
            .filter(|&t| {
                let v = view.thread(t);
                view.apps[v.app as usize].policy_managed && v.state.is_runnable() && (self.all_threads || v.kind == ThreadKind::App)
            })
            .collect();
        let affinity = |t: ThreadId| out.affinity.iter().rev().find(|a| a.0 == t).map_or_else(|| view.thread(t).allowed.clone(), |a| a.1.clone());
        let sets: Vec<CoreSet> = threads.iter().map(|&t| affinity(t)).collect();
        let matched = max_matching(&sets, view.machine.num_cores());
        let want = threads.len().min(view.machine.num_cores());
        if matched < want {
            let shown: Vec<String> = threads.iter().zip(&sets).map(|(t, s)| format!("{t}:{:?}", s.iter().collect::<Vec<_>>())).collect();
            self.violation =
                Some(format!("at {} ns ({:?}): {matched} of {want} threads can have a core; affinities {}", view.now_ns, view.trigger, shown.join(" ")));
        }
        Ok(())
    }
}

/// The size of a largest matching of threads (their allowed cores) to distinct cores
/// (Kuhn's augmenting paths; a few threads and cores).
fn max_matching(sets: &[CoreSet], cores: usize) -> usize {
    fn augment(t: usize, sets: &[CoreSet], seen: &mut [bool], owner: &mut [Option<usize>]) -> bool {
        for c in sets[t].iter() {
            if !seen[c] {
                seen[c] = true;
                if owner[c].is_none_or(|o| augment(o, sets, seen, owner)) {
                    owner[c] = Some(t);
                    return true;
                }
            }
        }
        false
    }
    let mut owner = vec![None; cores];
    (0..sets.len()).filter(|&t| augment(t, sets, &mut vec![false; cores], &mut owner)).count()
}

proptest! {
    // Each case runs four specs on one random two-type machine and workload (1–3 apps of 1–2
    // groups, application and runtime threads, every phase kind): a few hundred events each.
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn machine_wide_wash_never_leaves_a_core_idle_while_a_thread_it_ranks_waits(
        big in (1u32..4, 2.0f64..3.0),
        small in (1u32..5, 0.5f64..1.5),
        wl in workload_strategy(),
        seed in 0u64..1000,
    ) {
        let m = Machine::from_toml("prop-machine", &machine_toml(&[(big.0, big.1, 1.0), (small.0, small.1, 1.0)])).unwrap();
        let w = Workload::from_toml("prop-workload", &wl, &Programs::new());
        prop_assume!(!matches!(&w, Err(e) if e.message.contains("does no work")));
        let w = w.unwrap();
        for spec in ["wash", "wash:quantum_ms=5:behind_window_quanta=1", "pfs", "pfs:quantum_ms=5"] {
            let inner = build(&PolicySpec::parse(spec).unwrap(), &m).unwrap();
            let mut p = WorkConserving { inner, all_threads: spec.starts_with("pfs"), violation: None };
            let cfg = SimConfig { seed, ..SimConfig::default() };
            Engine::new(&m, &w, &SimpleModel, &mut p, cfg).run().map_err(|e| TestCaseError::fail(format!("{spec}: {e:?}")))?;
            prop_assert!(p.violation.is_none(), "{}: {}", spec, p.violation.unwrap());
        }
    }
}

#[test]
fn a_scalable_app_rotates_its_threads_through_the_big_core() {
    // Four compute-bound application threads (CPI 1, no misses, 1e9 instructions each) on 1B5S:
    // |T_A| = 4 > |C_B| = 1, no lock, alike: scalable. They start on C_B (the fallback) and share
    // it for the first quantum, 10 ms each. From then on, each quantum, the ready thread with the
    // smallest share of its life on the big core is bound to it (ties: lowest id) and the others
    // keep every core (each alone on a small one): each thread gets the big core one quantum in
    // four, a quarter of the big core's time. Its average rate is then (2.8 + 3 × 0.8) / 4 = 1.3
    // instructions per ns, so each finishes its remaining 1e9 − 2.8e7 after 9.72e8 / 1.3 =
    // 748 ms: all end near 40 + 748 = 788 ms. Without the rotation the thread the OS left on the
    // big core keeps it (357 ms) and the three others run on small cores to ~1.24 s.
    let m = machine("wash-1b5s");
    let w = workload("[[app]]\nname = \"s\"\nthreads = 4\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n");
    let (r, _) = simulate(&m, &w, "wash:model=core-type:rotation=on");
    let big: Vec<f64> = r.threads.iter().map(|t| t.per_type[0].time_ns as f64 / MS as f64).collect();
    let total: f64 = big.iter().sum();
    let end = r.makespan_ns as f64 / MS as f64;
    for (t, b) in big.iter().enumerate() {
        assert!((b / total - 0.25).abs() < 0.03, "thread {t}: {b} ms of {total} ms on the big core");
    }
    assert!((end - 788.0).abs() < 25.0, "makespan {end} ms");
    let (off, _) = simulate(&m, &w, "wash:model=core-type:rotation=off");
    let big_off: Vec<f64> = off.threads.iter().map(|t| t.per_type[0].time_ns as f64 / MS as f64).collect();
    let end_off = off.makespan_ns as f64 / MS as f64;
    assert!(big_off.iter().filter(|&&b| b > 100.0).count() == 1, "one thread keeps the big core: {big_off:?}");
    assert!(end_off > 1150.0 && end_off < 1300.0, "makespan without rotation {end_off} ms");
}

#[test]
fn threads_that_progress_unlike_make_the_app_non_scalable() {
    // Six lock-free application threads on 1B5S: three "fast" ones (ids 0–2, CPI 1, 1e9
    // instructions) and three "slow" ones (ids 3–5, CPI 4, 1e8). model=core-type: every
    // prediction is 3.5 (2.8 / 0.8 GHz), so the type of work is alike and only the amount
    // differs. One-quantum windows; the falls-behind check is off (behind_fraction = 0) to see the
    // homogeneity test alone: with windows this short it would fire too (a slow thread on a small
    // core retires 0.2 per ns, under a quarter of the raw mean (2.8 + 2 × 0.8 + 3 × 0.2) / 6 = 0.83).
    // 0–40 ms: thread 0 starts on C_B (the fallback), the others, crowded, each on a small core.
    // 40 ms: the first window opens; the rotation binds thread 1 (no big-core time yet, lowest
    // id) to C_B; thread 0 shares core 0 with it until the balancer (10 ms) moves it to a small one.
    // 80 ms: the window closes. Scaled by its core assignment a fast thread progresses 2.8
    // instructions per ns wherever it runs alone (0.8 × 3.5 on a small core), a slow one 0.7;
    // threads 0 and 1 lost at most 5 ms each to that sharing (2.45): the mean is at least
    // (2.8 + 2 × 2.45 + 3 × 0.7) / 6 = 1.63, and 0.7 is 0.57 of it away, beyond the tolerance of
    // 0.5: the app is non-scalable from then on. The execution set (capped at |C_B| = 1) is the
    // thread of highest ExecRank: thread 2, alone on a small core since 0 (80 × 2.8 big-core
    // instructions per ns, more than threads 0 and 1). It holds the big core until it ends:
    // (1e9 − 80 ms × 0.8) / 2.8 = 334.3 ms there. The slow threads end at 1e8 / 0.2 = 500 ms alone
    // on their small cores, while fast threads 0 and 1 still live (at 0.8 per ns they are not half
    // done at 414 ms, when thread 2 ends), so a fast thread keeps the highest ExecRank and the big
    // core; when thread 2 exits no thread waits, so none moves to the idle big core before the
    // next plan gives it to another fast thread: the slow threads never run on the big core.
    // Without the test the app stays scalable and the rotation gives the big core to threads 2, 3,
    // 4, 5 in turn at 80, 120, 160, 200 ms (none has big-core time yet: lowest id first): a slow
    // thread gets a quantum of it, less at most the 10 ms it shares core 0 with the one it evicted.
    let m = machine("wash-1b5s");
    let w = workload(
        "[[app]]\nname = \"h\"\n\
         [[app.group]]\nname = \"fast\"\ncount = 3\nkind = \"app\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e9\n\
         [[app.group]]\nname = \"slow\"\ncount = 3\nkind = \"app\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e8\ncpi = 4\n",
    );
    let big_ms = |r: &RunResult, t: usize| r.threads[t].per_type[0].time_ns as f64 / MS as f64;
    let spec = "wash:model=core-type:behind_window_quanta=1:behind_fraction=0";
    let (on, _) = simulate(&m, &w, &format!("{spec}:homogeneity=on"));
    let (off, _) = simulate(&m, &w, &format!("{spec}:homogeneity=off"));
    assert_eq!(group_threads(&on, 0, 1), vec![3, 4, 5]);
    assert!((big_ms(&on, 2) - 334.3).abs() < 2.0, "thread 2 on the big core: {} ms", big_ms(&on, 2));
    for t in 3..6 {
        assert_eq!(on.threads[t].per_type[0].time_ns, 0, "slow thread {t} ran on the big core with the test");
        assert!(big_ms(&off, t) >= 30.0, "slow thread {t}: {} ms on the big core without the test", big_ms(&off, t));
    }
}
