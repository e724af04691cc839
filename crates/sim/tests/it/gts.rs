//! The big.LITTLE paper's OS schedulers as local schedulers (`local::gts`, `local::cluster_switch`,
//! `local::iks`) on the catalog's Exynos 5422 (cores 0-3 big A15 at 1.6 GHz, 4-7 little A7 at
//! 0.8 GHz with CPI × 1.5), run through `ampsched_sim::simulate` with a policy that decides
//! nothing and asks for the scheduler. Times are derived from PELT (`local::pelt`) and the
//! engine's balance period (`DEFAULT_BALANCE_NS`, 10 ms: the forced migrations' softirq).

use ampsched_model::workload::Programs;
use ampsched_model::{GtsParams, Machine, OsScheduler, Placement, Policy, PolicyFailure, SimpleModel, SwitchParams, SystemView, Triggers, Workload};
use ampsched_sim::{simulate, RunResult, SimConfig};

const MS: u64 = 1_000_000;

fn exynos() -> Machine {
    Machine::from_toml("catalog/machines/exynos5422.toml", include_str!("../../../../catalog/machines/exynos5422.toml")).unwrap()
}

/// Decides nothing; runs over `os`.
struct Os(OsScheduler);

impl Policy for Os {
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, _: &SystemView, _: &mut Placement) -> Result<(), PolicyFailure> {
        Ok(())
    }
    fn os_scheduler(&self) -> OsScheduler {
        self.0
    }
}

fn run(w: &str, os: OsScheduler) -> RunResult {
    let w = Workload::from_toml("test-workload", w, &Programs::new()).unwrap();
    simulate(&exynos(), &w, &SimpleModel, &mut Os(os), SimConfig { max_segments: 1_000_000, ..SimConfig::default() }).unwrap()
}

fn gts(p: GtsParams) -> OsScheduler {
    OsScheduler::Gts(p)
}

fn big(core: u32) -> bool {
    core < 4
}

/// Thread `t`'s segments in time order.
fn segments_of(r: &RunResult, t: u32) -> Vec<(u32, u64, u64)> {
    let mut s: Vec<_> = r.segments.iter().filter(|s| s.thread == t).map(|s| (s.core, s.start_ns, s.end_ns)).collect();
    s.sort_by_key(|&(_, start, _)| start);
    s
}

/// A thread that runs a moment and sleeps 1 s, twice, then runs CPU-bound (1.6e9 instructions:
/// 1 s on a big core). Forked with a full load (PELT starts a task at sum = period), it goes to an
/// idle big core. A wake-up reads the load at the block, before the sleep is accounted
/// (`select_task_rq_fair` runs before `enqueue_entity_load_avg`): the first wake-up still sees the
/// full load and keeps it on a big core; its enqueue accounts the 1 s sleep (load ≈ 0), so it
/// blocks again at a load ≈ 0 < 512 and the second wake-up moves it down (its down delay never
/// armed). On the little core its load climbs as 1024·(1 − y^n); it reaches 700 at
/// n = 32·log2(1024/324) = 53.1 periods = 55.7 ms (`pelt`'s test: between 55 and 57 ms), and the
/// next forced-migration pass (every 10 ms) moves it up, every big core being idle and its up
/// delay long over: 55 ms ≤ time on little ≤ 57 + 10 ms.
#[test]
fn gts_moves_a_cpu_bound_thread_up_after_its_load_reaches_700() {
    let w = "[[app]]\nname = \"a\"\nthreads = 1\n\
             [[app.phase]]\nkind = \"compute\"\ninstructions = 1e5\n\
             [[app.phase]]\nkind = \"sleep\"\nseconds = 1.0\n\
             [[app.phase]]\nkind = \"compute\"\ninstructions = 1e5\n\
             [[app.phase]]\nkind = \"sleep\"\nseconds = 1.0\n\
             [[app.phase]]\nkind = \"compute\"\ninstructions = 1.6e9\n";
    let r = run(w, gts(GtsParams::DEFAULT));
    let segs = segments_of(&r, 0);
    assert!(big(segs[0].0), "forked onto a big core: {segs:?}");
    let first = segs.iter().find(|s| (1000 * MS..2000 * MS).contains(&s.1)).expect("runs between its sleeps");
    assert!(big(first.0), "woke from its first sleep on a big core: {segs:?}");
    let woke = segs.iter().position(|s| s.1 >= 2000 * MS).expect("runs after its sleeps");
    let (core, wake, _) = segs[woke];
    assert!(!big(core), "woke on a little core: {segs:?}");
    let up = segs[woke..].iter().find(|s| big(s.0)).expect("moves up");
    let on_little = up.1 - wake;
    assert!((55 * MS..=67 * MS).contains(&on_little), "{} ms on little: {segs:?}", on_little as f64 / 1e6);
    // And it stays up: one big core, no other migration.
    assert!(segs[woke..].iter().skip_while(|s| !big(s.0)).all(|s| s.0 == up.0), "{segs:?}");
}

/// A 20%-duty thread (2 ms of work on a big core, 8 ms asleep, 50 times): forked on a big core
/// with a full load of one slice's history (sum = period = 3,906 units). A wake-up reads the load
/// at the block (`select_task_rq_fair` runs before the sleep is accounted): at its first block
/// (2 ms) the history is all runnable, load 1023, so the wake-up at 10 ms keeps it big; at its
/// second block (12 ms), the 8 ms sleep accounted and decayed, sum ≈ 6.5k and period ≈ 13.4k
/// units: ≈ 497 < 512, so the wake-up at 20 ms moves it down. On a little core the same work takes
/// 6 ms (CPI × 1.5 at half the clock), a 43% duty, whose load (at most ≈ 490 at a block) stays
/// below 700: it never comes back up.
#[test]
fn gts_moves_a_light_thread_down_and_keeps_it_there() {
    let w = "[[app]]\nname = \"a\"\nthreads = 1\nrepeat = 50\n\
             [[app.phase]]\nkind = \"compute\"\ninstructions = 3.2e6\n\
             [[app.phase]]\nkind = \"sleep\"\nseconds = 0.008\n";
    let r = run(w, gts(GtsParams::DEFAULT));
    let segs = segments_of(&r, 0);
    assert!(big(segs[0].0), "{:?}", &segs[..3]);
    let down = segs.iter().position(|s| !big(s.0)).expect("moves down");
    assert!((20 * MS..=22 * MS).contains(&segs[down].1), "down at {} ms", segs[down].1 as f64 / 1e6);
    assert!(segs[down..].iter().all(|s| !big(s.0)), "came back up");
}

/// With thresholds no load can pass (up 1024 > 1023; down 0; starvation gate 0), none of GTS's
/// own rules can move a thread across clusters, so every cross-cluster migration would be CFS's
/// (its wake-up choice, pull or balance) leaking across: there must be none. 24 threads that
/// sleep and compute unevenly over 8 cores, where plain CFS crosses clusters often.
#[test]
fn gts_balancing_never_crosses_clusters() {
    let mut w = String::new();
    for i in 0..24 {
        let sleep = 0.002 * (1 + i % 5) as f64;
        w.push_str(&format!(
            "[[app]]\nname = \"a{i}\"\nthreads = 1\nrepeat = 20\n[[app.phase]]\nkind = \"compute\"\ninstructions = {}\n[[app.phase]]\nkind = \"sleep\"\nseconds = {sleep}\n",
            2e6 * (1 + i % 7) as f64
        ));
    }
    let crossings =
        |r: &RunResult| (0..r.threads.len() as u32).map(|t| segments_of(r, t).windows(2).filter(|p| big(p[0].0) != big(p[1].0)).count()).sum::<usize>();
    let frozen = GtsParams { up_threshold: 1024, down_threshold: 0, starvation: 0, ..GtsParams::DEFAULT };
    let r = run(&w, gts(frozen));
    assert_eq!(r.segments_dropped, 0);
    assert_eq!(crossings(&r), 0);
    let cfs = run(&w, OsScheduler::Cfs);
    assert!(crossings(&cfs) > 50, "CFS crossed only {} times", crossings(&cfs));
    // Both clusters were used (forks land anywhere), so the zero is not a run on one cluster.
    assert!(r.cores.iter().all(|c| c.busy_ns > 0), "{:?}", r.cores.iter().map(|c| c.busy_ns).collect::<Vec<_>>());
}

/// Offload: with `fork_migrate_big` five CPU-bound threads (250 ms of work each on a big core)
/// all start on the four big cores, two sharing core 0 (all four equally loaded and stamped at
/// t = 0: the lowest). Sharing halves their running time against their runnable time: starvation
/// = usage/runnable falls from 1023 below 768 after about 4 ms ((3906 + 500n)/(3906 + 1000n) ≤ 3/4
/// for n ≥ 3.9 ms); at the first pass (10 ms) no big core is idle, core 0 has two tasks, a little
/// core is idle: the lighter of the two (equal loads: the running one, A, which ran 0-4 and 8-10
/// ms) moves down. Then: B finishes on core 0 at 10 + 246 = 256 ms, cores 1-3 at 250 ms; at
/// 250 ms core 1, going idle, pulls A back up (load 1023 > 700: idle pull). A did 6 ms before,
/// 240/3 = 80 ms of big-core work on the little core (3× slower), and finishes its 164 ms left at
/// 414 ms (plus two 20 µs migrations). With the gate closed (starvation 0) nothing ever runs on
/// a little core (no idle big core for an up-move, no rule sends one down): cores 1-3 finish at
/// 250 ms; core 0's two threads took 4 ms slices in turn, the queued one has had 31 (124 ms) and
/// core 1 pulls it: its 126 ms left end at 376 ms (plus 20 µs). Offloading a
/// CPU-bound thread to a slow core lost here, the paper's GTS loss at 4+1 (§V.B).
#[test]
fn gts_offloads_to_an_idle_little_core_when_the_big_cores_are_overloaded() {
    let w = "[[app]]\nname = \"a\"\nthreads = 5\n[[app.phase]]\nkind = \"compute\"\ninstructions = 4e8\n";
    let p = GtsParams { fork_migrate_big: true, ..GtsParams::DEFAULT };
    let r = run(w, gts(p));
    let little: Vec<_> = r.segments.iter().filter(|s| !big(s.core)).collect();
    assert_eq!(little.iter().map(|s| s.start_ns).min(), Some(10 * MS), "first little segment");
    assert_eq!(little.iter().map(|s| s.end_ns).max(), Some(250 * MS), "pulled up when a big core went idle");
    assert!((414 * MS..=414 * MS + MS / 10).contains(&r.makespan_ns), "{} ms", r.makespan_ns as f64 / 1e6);
    let closed = run(w, gts(GtsParams { starvation: 0, ..p }));
    assert!(closed.cores.iter().filter(|c| c.id >= 4).all(|c| c.busy_ns == 0));
    assert!((376 * MS..=376 * MS + MS / 10).contains(&closed.makespan_ns), "{} ms", closed.makespan_ns as f64 / 1e6);
}

/// Segments of cores `a` and `b` never overlap in time (a shared instant is no overlap).
fn never_together(r: &RunResult, a: impl Fn(u32) -> bool, b: impl Fn(u32) -> bool) -> bool {
    let sa: Vec<_> = r.segments.iter().filter(|s| a(s.core)).collect();
    let sb: Vec<_> = r.segments.iter().filter(|s| b(s.core)).collect();
    sa.iter().all(|x| sb.iter().all(|y| x.end_ns <= y.start_ns || y.end_ns <= x.start_ns))
}

/// Light phases and a CPU-bound one, for the switchers: 4 threads run at 5% duty for 200 ms,
/// then 0.4 s of big-core work each, then light again.
const SWITCH_WORKLOAD: &str = "[[app]]\nname = \"a\"\nthreads = 4\n\
    [[app.phase]]\nkind = \"compute\"\ninstructions = 1.6e5\n[[app.phase]]\nkind = \"sleep\"\nseconds = 0.2\n\
    [[app.phase]]\nkind = \"compute\"\ninstructions = 6.4e8\n\
    [[app.phase]]\nkind = \"sleep\"\nseconds = 0.2\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1.6e5\n";

/// Cluster switching: at no moment do a big and a little core both run, yet both clusters ran
/// (the CPU-bound phase switched the workload up, the light start ran on little).
#[test]
fn cluster_switch_runs_one_cluster_at_a_time() {
    let r = run(SWITCH_WORKLOAD, OsScheduler::ClusterSwitch(SwitchParams::DEFAULT));
    assert!(never_together(&r, big, |c| !big(c)));
    assert!(r.cores.iter().any(|c| c.id < 4 && c.busy_ns > 0) && r.cores.iter().any(|c| c.id >= 4 && c.busy_ns > 0));
}

/// IKS: core k and core k + 4 (a pair) never run at once; both types ran. Cores 0..3 pair with
/// 4..7 in number order.
#[test]
fn iks_runs_one_core_of_each_pair() {
    let r = run(SWITCH_WORKLOAD, OsScheduler::Iks(SwitchParams::DEFAULT));
    for k in 0..4 {
        assert!(never_together(&r, |c| c == k, |c| c == k + 4), "pair {k}");
    }
    assert!(r.cores.iter().any(|c| c.id < 4 && c.busy_ns > 0) && r.cores.iter().any(|c| c.id >= 4 && c.busy_ns > 0));
}

/// A switcher on a machine without equal big and little counts is refused in one line.
#[test]
fn switchers_refuse_unequal_clusters() {
    let m = Machine::from_toml(
        "m.toml",
        "name = \"m\"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = \"big\"\ncount = 2\nfreq_ghz = 2.0\n[[core_type]]\nname = \"little\"\ncount = 4\nfreq_ghz = 1.0\n",
    )
    .unwrap();
    let w = Workload::from_toml("w", "[[app]]\nname = \"a\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\n", &Programs::new()).unwrap();
    for os in [OsScheduler::ClusterSwitch(SwitchParams::DEFAULT), OsScheduler::Iks(SwitchParams::DEFAULT)] {
        let e = simulate(&m, &w, &SimpleModel, &mut Os(os), SimConfig::default()).unwrap_err().to_string();
        assert!(e.contains("as many big as little cores") && e.contains("2 big + 4 little") && !e.contains('\n'), "{e}");
    }
}
