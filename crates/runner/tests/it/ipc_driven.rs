//! `ipc-driven` and `static-ipc-driven` (Sáez thesis, §4.2.3, Algorithm 4.3) against numbers
//! derived by hand from the performance model (time per instruction = cpi / f + mpki / 1000 ×
//! memory latency; crates/model/src/perf.rs):
//! - a stable single-phase thread's measured ratio is its speedup factor, off only by the
//!   migration's cost inside the 30 ms refresh (bounded below);
//! - a thread whose phase changes during the refresh gets a ratio from two phases, above the
//!   clock ratio (the thesis's mcf at 2.2–2.5 where 2.0 is the most);
//! - a forced migration makes threads wait for a core (wall time over CPU time, Fig. 4.7), and
//!   none without them;
//! - no thread is forced to migrate, or swapped, more often than the inactivity period allows;
//! - the offline profiles are the programs' solo speedup factors, and static-ipc-driven ranks by them.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, PerfModel, Phase, SimpleModel, Workload};
use ampsched_policy::thesis::ipc_driven::{Event, IpcDriven, What};
use ampsched_policy::{Options, PolicySpec};
use ampsched_runner::{Experiment, Settings};
use ampsched_sim::{Engine, RunResult, SimConfig};
use serde_json::Value;

use crate::common::ScratchDir;

/// The thesis's refresh period (§4.2.3), the option's default.
const REFRESH_NS: f64 = 30e6;

/// 1 fast core at 2 GHz, 1 slow at 1 GHz, 100 ns memory; a migration costs `cost_us`.
fn one_fast_one_slow(cost_us: f64) -> Machine {
    let text = format!(
        "name = \"1f1s\"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = \"fast\"\ncount = 1\nfreq_ghz = 2.0\n\
         [[core_type]]\nname = \"slow\"\ncount = 1\nfreq_ghz = 1.0\n[migration]\ncost_us = {cost_us}\n"
    );
    Machine::from_toml("1f1s", &text).unwrap()
}

/// A thread's phases: (instructions, cpi, llc_mpki) each.
type Phases<'a> = &'a [(f64, f64, f64)];

/// Apps of one thread each: (arrival s, phases).
fn workload(apps: &[(f64, Phases)]) -> Workload {
    let mut s = String::new();
    for (i, (arrival, phases)) in apps.iter().enumerate() {
        s.push_str(&format!("[[app]]\nname = \"a{i}\"\narrival_s = {arrival}\n"));
        for (instructions, cpi, mpki) in phases.iter() {
            s.push_str(&format!("[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions:e}\ncpi = {cpi}\nllc_mpki = {mpki}\n"));
        }
    }
    Workload::from_toml("test-workload", &s, &Programs::new()).unwrap()
}

fn ipc_driven(spec: &str, m: &Machine) -> IpcDriven {
    let spec = PolicySpec::parse(spec).unwrap();
    IpcDriven::new(&Options::new(&spec, ampsched_policy::thesis::ipc_driven::INFO.options).unwrap(), m)
}

fn run(m: &Machine, w: &Workload, p: &mut IpcDriven) -> RunResult {
    // The ratios and timings below are derived by hand from exact counters: no noise.
    Engine::new(m, w, &SimpleModel, p, SimConfig { max_segments: 1_000_000, counter_noise: 0.0, ..SimConfig::default() }).run().unwrap()
}

/// The ratios measured, in order: (thread, time, ratio).
fn ratios(log: &[Event]) -> Vec<(u32, u64, f64)> {
    log.iter()
        .filter_map(|e| match e.what {
            What::Measured { ratio, .. } => Some((e.thread, e.now_ns, ratio)),
            _ => None,
        })
        .collect()
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs()
}

#[test]
fn a_stable_thread_measures_its_speedup_factor() {
    // cpi 1, 2 misses per 1000 instructions: 1/2 + 0.2 = 0.7 ns per instruction on the fast core,
    // 1/1 + 0.2 = 1.2 ns on the slow one; SF = 1.2 / 0.7 = 12/7.
    let sf = 1.2 / 0.7;
    let w = workload(&[(0.0, &[(1e9, 1.0, 2.0)])]);
    // Free migrations: the ratio is the SF itself (the home sample and the refresh each at one
    // phase's constant rate).
    let m = one_fast_one_slow(0.0);
    let mut p = ipc_driven("ipc-driven", &m);
    run(&m, &w, &mut p);
    let r = ratios(p.log());
    assert_eq!(r.len(), 1, "one refresh, after the warm-up: {r:?}");
    assert!(close(r[0].2, sf, 1e-9), "ratio {} against SF {sf}", r[0].2);
    // A migration costing c (here the catalog's 50 µs) is CPU time on the slow core without
    // instructions, inside the refresh: over a refresh of D ns the slow rate reads (D - c) / D of
    // the truth, so the ratio reads SF × D / (D - c). D is at least R = 30 ms: the error is at
    // most c / (R - c), 0.17%. With flat miss rates there is no other noise (no LLC refill; a
    // refill of r ns would count as c does). Here D = 36 ms (see `TIMING`): the thread left at
    // 210 ms and the first call to see 30 ms of it on the slow core is at 250 ms, which sees 36.
    let c = 50e3;
    let m = one_fast_one_slow(c / 1e3);
    let mut p = ipc_driven("ipc-driven", &m);
    run(&m, &w, &mut p);
    let r = ratios(p.log());
    let d = 36e6;
    let want = sf * d / (d - c);
    assert!(close(r[0].2, want, 1e-9), "ratio {} against SF x D/(D-c) = {want}", r[0].2);
    assert!(close(r[0].2, sf, c / (REFRESH_NS - c)));
}

/// When things happen, by the engine's rules: a running thread's counters are brought up to
/// date at its slice ends (every 4 ms from its dispatch) and when it leaves a core, and a policy
/// call at the same instant as a slice end sees the counters before it. A thread alone on the
/// fast core from 0 is seen at the 10 ms calls with 8, 16, 28, 36, 48, ... ms of CPU; the
/// 10 ms samples close at 20 ([0, 16] ms of CPU), 30 ([16, 28]), 50 ([28, 48]), 70, 90, ..., 190
/// ([168, 188]) and 210 ms ([188, 208]), the first at or past the 200 ms warm-up: the thread
/// leaves for the slow core at 210 ms. There its slices end at 214, 218, ... ms; the calls at
/// 220, 230, 240 and 250 ms see 8, 16, 28 and 36 ms on the slow core: the refresh ends at 250
/// ms, over D = [210, 246] ms, 36 ms of slow-core time.
#[allow(dead_code)]
const TIMING: () = ();

#[test]
fn a_phase_change_during_the_refresh_gives_a_ratio_from_two_phases() {
    // Phase A: cpi 1, no misses: 0.5 ns per instruction fast, 1.0 slow (SF 2, the clock ratio).
    // Phase B: cpi 1, 10 misses per 1000: 0.5 + 1.0 = 1.5 ns fast, 1.0 + 1.0 = 2.0 slow (SF 4/3).
    // A lasts 210 ms on the fast core (4.2e8 instructions) and the first 20 ms of the refresh
    // on the slow one (2e7); the refresh's last 16 ms (230 to 246 ms, see `TIMING`) are in B:
    // 16 ms / 2.0 ns = 8e6 instructions. Home rate: the sample [188, 208] ms, all A on the fast
    // core, 2 instructions/ns. Slow rate: 2.8e7 instructions in 36 ms, 7/9 per ns. Ratio
    // 2 / (7/9) = 18/7 = 2.57: more than either phase's SF and than the 2.0 the clocks allow,
    // as the thesis's mcf (2.2 and 2.5).
    let m = one_fast_one_slow(0.0);
    let w = workload(&[(0.0, &[(4.4e8, 1.0, 0.0), (3e9, 1.0, 10.0)])]);
    let mut p = ipc_driven("ipc-driven", &m);
    run(&m, &w, &mut p);
    let r = ratios(p.log());
    assert!(close(r[0].2, 18.0 / 7.0, 1e-9), "first ratio {} (want 18/7)", r[0].2);
    assert!(r[0].2 > 2.0);
    // Back on the fast core at 250 ms, in B: its rate (1/1.5 per ns) is a third of the reference
    // (2 per ns), a new phase at every sample, but it may not be forced to migrate until it has
    // run 1.5 s since it came back: a sample closes at the first call that sees 10 ms of CPU in
    // it, and calls 10 ms apart see 8 or 12 ms more, so a sample is 12 to 20 ms long and at least
    // 1500 / 20 = 75 close in that time, the first (cold, after the move) not compared. Then
    // both rates are B's: the ratio is right, 4/3.
    assert!(p.deferred() >= 74, "deferred new phases: {}", p.deferred());
    assert_eq!(r.len(), 2, "{r:?}");
    let came_back = p.log().iter().find(|e| matches!(e.what, What::Measured { .. })).unwrap().cpu_ns;
    let left_again = p.log().iter().filter(|e| e.what == What::Refresh).nth(1).unwrap().cpu_ns;
    assert!(left_again - came_back >= 1_500_000_000);
    assert!(close(r[1].2, 4.0 / 3.0, 1e-9), "second ratio {} (want 4/3)", r[1].2);
}

/// Wall time in the system minus CPU time, per app (one thread each, one run), ns.
fn waits(r: &RunResult) -> Vec<i64> {
    r.apps.iter().zip(&r.threads).map(|(a, t)| a.turnarounds_ns[0] as i64 - t.total_time_ns() as i64).collect()
}

#[test]
fn forced_migrations_make_threads_wait_for_a_core() {
    // Two threads on 1 fast + 1 slow core: A (cpi 1, no misses, SF 2) from 0 s, B (1 miss per
    // 1000: 0.6 ns fast, 1.1 slow, SF 1.83) from 0.1 s. B starts on the slow core (the fast one
    // has A). Each refresh sends one thread to the core the other runs on, for 30 ms of its CPU
    // time, while its own core idles: the other thread, runnable and allowed only there, waits
    // at least those 30 ms. Two refreshes (A's at 200 ms, B's after its warm-up), so at least
    // 30 ms of waiting each. Neither thread is swapped (B's ratio is below A's).
    let m = one_fast_one_slow(50.0);
    let w = workload(&[(0.0, &[(3e9, 1.0, 0.0)]), (0.1, &[(3e9, 1.0, 1.0)])]);
    let mut p = ipc_driven("ipc-driven", &m);
    let r = run(&m, &w, &mut p);
    let refreshes = p.log().iter().filter(|e| e.what == What::Refresh).count();
    assert_eq!(refreshes, 2);
    assert!(!p.log().iter().any(|e| matches!(e.what, What::Swap { .. })));
    let wait = waits(&r);
    assert!(wait.iter().all(|&w| w >= REFRESH_NS as i64), "each waits at least a refresh: {wait:?} ns");
    // A's refresh shares the slow core with B: 30 ms of A's CPU time there take longer than 30 ms
    // of wall time.
    // With `clock=wall` it lasts 30 ms of wall time: it begins at a 10 ms call and ends at the
    // call 30 ms later, with about half of that as A's CPU time on the slow core.
    let span = |p: &IpcDriven| {
        let from = p.log().iter().find(|e| e.thread == 0 && e.what == What::Refresh).unwrap().now_ns;
        p.log().iter().find(|e| e.thread == 0 && matches!(e.what, What::Measured { .. })).unwrap().now_ns - from
    };
    // The local scheduler shares the core fairly, B running about as much as A meanwhile: about
    // twice as long (70 ms here; the bound leaves room for the slices' granularity).
    assert!(span(&p) > 40_000_000, "{} ns", span(&p));
    let mut wall = ipc_driven("ipc-driven:clock=wall", &m);
    run(&m, &w, &mut wall);
    assert_eq!(span(&wall), 30_000_000);
    // The same run with the warm-up longer than the run: no forced migration, each thread alone
    // on its core from start to end (B moves up to the fast core when A ends), no wait at all.
    let mut p = ipc_driven("ipc-driven:warmup_ms=1000000", &m);
    let r = run(&m, &w, &mut p);
    assert!(!p.log().iter().any(|e| e.what == What::Refresh));
    assert_eq!(waits(&r), vec![0, 0]);
}

#[test]
fn no_thread_is_forced_to_migrate_or_swapped_more_often_than_the_inactivity_period() {
    // Four threads on 2 fast + 2 slow cores, each alternating a CPU-bound phase (cpi 1, no
    // misses: SF 2) of 50 to 125 ms on a fast core and a memory-bound one (cpi 1, 20 misses per
    // 1000: 0.5 + 2.0 = 2.5 ns fast, 1.0 + 2.0 = 3.0 slow, SF 1.2) of 100 ms, out of step: every
    // thread changes phase far more often than every 1.5 s, so the policy would refresh (and
    // then swap) all the time if it could.
    let text = "name = \"2f2s\"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = \"fast\"\ncount = 2\nfreq_ghz = 2.0\n\
                [[core_type]]\nname = \"slow\"\ncount = 2\nfreq_ghz = 1.0\n[migration]\ncost_us = 50.0\n";
    let m = Machine::from_toml("2f2s", text).unwrap();
    let mut s = String::new();
    for i in 0..4 {
        let cpu_bound = 1e8 * (1.0 + 0.5 * i as f64);
        s.push_str(&format!(
            "[[app]]\nname = \"a{i}\"\nrepeat = 25\n[[app.phase]]\nkind = \"compute\"\ninstructions = {cpu_bound:e}\ncpi = 1.0\nllc_mpki = 0.0\n\
             [[app.phase]]\nkind = \"compute\"\ninstructions = 4e7\ncpi = 1.0\nllc_mpki = 20.0\n"
        ));
    }
    let w = Workload::from_toml("phases", &s, &Programs::new()).unwrap();
    let inactivity = 1_500_000_000u64;
    let mut p = ipc_driven("ipc-driven", &m);
    let r = run(&m, &w, &mut p);
    let log = p.log();
    // The log holds every move that changed a thread's core type, so what it is held to below
    // holds for the run: the engine's own record (its run segments) shows as many changes of
    // type per thread as the log has moves, a return from a refresh and a swap in the same call
    // counting as none.
    for t in 0..4u32 {
        let mut segs: Vec<_> = r.segments.iter().filter(|s| s.thread == t).collect();
        segs.sort_by_key(|s| s.start_ns);
        let seen = segs.windows(2).filter(|p| m.is_fast(p[0].core as usize) != m.is_fast(p[1].core as usize)).count();
        let mine: Vec<&Event> = log.iter().filter(|e| e.thread == t).collect();
        let logged = mine
            .iter()
            .enumerate()
            .filter(|(i, e)| match e.what {
                // Sent home and swapped away at once: no change.
                What::Measured { .. } => !mine.get(i + 1).is_some_and(|n| matches!(n.what, What::Swap { .. }) && n.now_ns == e.now_ns),
                What::Swap { .. } => !(*i > 0 && matches!(mine[i - 1].what, What::Measured { .. }) && mine[i - 1].now_ns == e.now_ns),
                What::Refresh | What::Balance => true,
            })
            .count();
        assert_eq!(seen, logged, "thread {t}: changes of core type against logged moves");
        assert!(seen > 0);
    }
    let (mut refreshes, mut swaps) = (0, 0);
    for t in 0..4u32 {
        // The thread's CPU time at its last move, and at its last swap.
        // Before its first ratio, the thread must have warmed up 200 ms where it is instead.
        let (mut landed, mut swapped): (u64, Option<u64>) = (0, None);
        let mut measured = false;
        for e in log.iter().filter(|e| e.thread == t) {
            match e.what {
                What::Refresh => {
                    let since = e.cpu_ns - landed;
                    let need = if measured { inactivity } else { 200_000_000 };
                    assert!(since >= need, "thread {t} forced to migrate {since} ns of CPU after it moved");
                    refreshes += 1;
                }
                What::Swap { .. } => {
                    if let Some(s) = swapped {
                        assert!(e.cpu_ns - s >= inactivity, "thread {t} swapped {} ns of CPU after its last swap", e.cpu_ns - s);
                    }
                    swapped = Some(e.cpu_ns);
                    swaps += 1;
                }
                What::Measured { .. } => measured = true,
                What::Balance => {}
            }
            if !matches!(e.what, What::Refresh) {
                landed = e.cpu_ns;
            }
        }
    }
    // The bound was what held the policy back: it saw many more new phases than it acted on.
    assert!(refreshes >= 8 && swaps >= 2, "refreshes {refreshes}, swaps {swaps}");
    assert!(p.deferred() > 10 * refreshes as u64, "deferred {}", p.deferred());
}

/// The model's whole-program SF of an app: time on `slow` over time on `fast`, each alone.
fn model_sf(m: &Machine, w: &Workload, app: usize, fast: usize, slow: usize) -> f64 {
    let time = |ty: usize| -> f64 {
        w.apps[app].groups[0]
            .phases
            .iter()
            .map(|p| match p {
                Phase::Compute { instructions, profile } => instructions * SimpleModel.ns_per_instruction(m, ty, profile),
                _ => 0.0,
            })
            .sum()
    };
    time(slow) / time(fast)
}

#[test]
fn the_offline_profiles_are_the_solo_speedup_factors() {
    // hh1 on 2fc-2sc-amd: each program alone on a fast-only and a slow-only machine; its rate
    // ratio is its instructions over its time on each, so the model's SF, mcf's six phases
    // included (only ns rounding of event times differs).
    let mut exp = Experiment::new("2fc-2sc-amd", "hh1", Settings::default()).unwrap();
    let profiles = exp.solo_profiles().unwrap();
    let (m, w) = (exp.machine.clone(), exp.workload.clone());
    let (fast, slow) = (m.fastest_type(), 1 - m.fastest_type());
    for (a, p) in profiles.iter().enumerate() {
        let ratio = p[0][fast] / p[0][slow];
        let sf = model_sf(&m, &w, a, fast, slow);
        assert!(close(ratio, sf, 1e-6), "{}: profile ratio {ratio}, model SF {sf}", w.apps[a].name);
    }
}

#[test]
fn static_ipc_driven_ranks_threads_by_their_solo_speedup_factors() {
    // 2 fast cores at 2 GHz, 2 slow at 1 GHz, 100 ns memory, free migrations. Four programs of
    // cpi 1, listed worst first so that the start placement (the first two threads to the fast
    // cores) is the wrong way round and only the ranking can fix it:
    //   a0: 10 misses per 1000, 1.5 ns fast, 2.0 slow, SF 4/3;  1e9 instructions, 2.0 s slow
    //   a1:  5 misses,          1.0 ns fast, 1.5 slow, SF 3/2;  1e9,           1.5 s slow
    //   a2:  1 miss,            0.6 ns fast, 1.1 slow, SF 11/6; 5e9,           3.0 s fast
    //   a3:  none,              0.5 ns fast, 1.0 slow, SF 2;    6e9,           3.0 s fast
    // The profiles are those SFs; a2 and a3 take the fast cores at once and hold them to their
    // ends, a0 and a1 end on the slow cores before a fast core frees.
    let dir = ScratchDir::new("static-ipc");
    let machine = dir.write(
        "2f2s.toml",
        "name = \"2f2s\"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = \"fast\"\ncount = 2\nfreq_ghz = 2.0\n\
         [[core_type]]\nname = \"slow\"\ncount = 2\nfreq_ghz = 1.0\n[migration]\ncost_us = 0.0\n",
    );
    let mut s = String::from("name = \"worst-first\"\n");
    for (i, (instructions, mpki)) in [(1e9, 10.0), (1e9, 5.0), (5e9, 1.0), (6e9, 0.0)].iter().enumerate() {
        s.push_str(&format!("[[app]]\nname = \"a{i}\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions:e}\ncpi = 1.0\nllc_mpki = {mpki}\n"));
    }
    let workload = dir.write("worst-first.toml", &s);
    let mut exp = Experiment::new(&machine, &workload, Settings::default()).unwrap();
    let profiles = exp.solo_profiles().unwrap();
    for (p, sf) in profiles.iter().zip([4.0 / 3.0, 1.5, 11.0 / 6.0, 2.0]) {
        assert!(close(p[0][0] / p[0][1], sf, 1e-9), "profile ratio {} against SF {sf}", p[0][0] / p[0][1]);
    }
    let r: Value = exp.run("static-ipc-driven").unwrap();
    let thread = |r: &Value, app: &str, key: &str| r["threads"].as_array().unwrap().iter().find(|t| t["app"] == app).unwrap()[key].as_f64().unwrap();
    let shares: Vec<f64> = (0..4).map(|i| thread(&r, &format!("a{i}"), "fast_share")).collect();
    assert_eq!(shares, vec![0.0, 0.0, 1.0, 1.0]);
    let turnaround: Vec<f64> = r["apps"].as_array().unwrap().iter().map(|a| a["turnaround_s"].as_f64().unwrap()).collect();
    for (got, want) in turnaround.iter().zip([2.0, 1.5, 3.0, 3.0]) {
        assert!(close(*got, want, 1e-6), "turnarounds {turnaround:?}");
    }
    // The same start under ipc-driven, which must first measure: the fast cores go to a0 and a1
    // for at least their 200 ms warm-ups.
    let r: Value = exp.run("ipc-driven").unwrap();
    assert!(thread(&r, "a0", "fast_s") >= 0.2 && thread(&r, "a1", "fast_s") >= 0.2);
}

#[test]
fn on_the_thesis_mix_mcf_measures_ratios_the_clocks_cannot_give() {
    // hh1 on 2fc-2sc-amd (2.3 / 1.15 GHz: no program can run more than 2.0 times faster on a
    // fast core), the mix of the thesis's analysis (§4.3.4). mcf alternates phases of SF 1.70,
    // 1.40 and 1.115 (catalog), so its refreshes straddle phase changes, and some of its ratios
    // come out above 2.0 (the thesis measured 2.2 and 2.5) and some below 1 (a phase change the
    // other way). Nothing in the policy or the catalog aims at these numbers: they come from
    // where mcf's phase boundaries fall against the 30 ms refreshes.
    let m = ampsched_runner::catalog::machine("2fc-2sc-amd").unwrap();
    let w = ampsched_runner::catalog::workload("hh1").unwrap();
    let mut p = ipc_driven("ipc-driven", &m);
    let r = Engine::new(&m, &w, &SimpleModel, &mut p, SimConfig::default()).run().unwrap();
    let mcf: Vec<f64> = ratios(p.log()).iter().filter(|(t, _, _)| w.apps[r.threads[*t as usize].app as usize].name == "mcf").map(|x| x.2).collect();
    assert!(mcf.iter().any(|&x| x > 2.0), "mcf's ratios: {mcf:?}");
    assert!(mcf.iter().any(|&x| x < 1.0), "mcf's ratios: {mcf:?}");
}
