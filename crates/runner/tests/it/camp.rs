//! CAMP and the schedulers chapter 6 of the Sáez thesis compares it with (SFD, PA rebuilt on
//! the Utility Factor): numbers derived by hand from the performance model (T per instruction =
//! CPI / f + MPKI / 1000 × latency on these machines), the UF (eq. 6.14) and the policies'
//! stated rules.
//!
//! The machines: fast cores at 2 GHz, slow at 1 GHz, 100 ns memory, private caches. With CPI 1 a
//! thread missing x MPKI takes 0.5 + 0.1x ns per instruction on a fast core and 1 + 0.1x on a
//! slow one: SF 2 at 0 MPKI, 1.6 at 10/3, 1.2 at 20. The highest SF is 2, so CAMP's SF categories
//! split at 1.5 and 1.8 and label 1.25, 1.65 and 1.9; its default thresholds are 1.5 / 1.8 while
//! only single-threaded apps run and 1.2 / 1.6 once a multi-threaded one does. The dynamic
//! estimate is the model's SF (flat miss rates, private caches) from 0.8 s on: the period of the
//! start discarded, then a phase and 2 stable periods of 200 ms.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, SimpleModel, Watched, Workload};
use ampsched_policy::common::uf::{utility_factor, Utility};
use ampsched_policy::thesis::camp::{Camp, Variant};
use ampsched_policy::{Options, PolicySpec, POLICIES};
use ampsched_sim::{Engine, RunResult, SimConfig};

/// `fast` cores at 2 GHz and `slow` at 1 GHz, 100 ns memory.
fn machine(fast: u32, slow: u32) -> Machine {
    let text = format!(
        "name = \"{fast}f{slow}s\"\nmemory_latency_ns = 100.0\n\
         [[core_type]]\nname = \"fast\"\ncount = {fast}\nfreq_ghz = 2.0\npower_active_w = 1.0\npower_idle_w = 0.1\n\
         [[core_type]]\nname = \"slow\"\ncount = {slow}\nfreq_ghz = 1.0\npower_active_w = 1.0\npower_idle_w = 0.1\n"
    );
    Machine::from_toml("m.toml", &text).unwrap()
}

fn workload(text: &str) -> Workload {
    Workload::from_toml("w.toml", text, &Programs::new()).unwrap()
}

/// Run a variant of the chapter-6 code with options `spec` (e.g. "camp:skip=false"), keeping the
/// policy to read its class history.
fn simulate(m: &Machine, w: &Workload, variant: Variant, spec: &str) -> (RunResult, Camp) {
    let spec = PolicySpec::parse(spec).unwrap();
    let info = POLICIES.iter().find(|p| p.name == variant.name).unwrap();
    let options = Options::new(&spec, info.options).unwrap();
    let mut camp = Camp::new(variant, &options, m).with_history();
    // The timings below are derived by hand from SF estimates of exact counters: no noise.
    let r = Engine::new(m, w, &SimpleModel, &mut camp, SimConfig { counter_noise: 0.0, ..SimConfig::default() }).run().unwrap();
    (r, camp)
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Thread `t`'s (fast, slow) CPU time, s: core type 0 is fast.
fn times(r: &RunResult, t: usize) -> (f64, f64) {
    (secs(r.threads[t].per_type[0].time_ns), secs(r.threads[t].per_type[1].time_ns))
}

/// A single-threaded app of `instructions` at `mpki`.
fn st_app(name: &str, instructions: f64, mpki: f64) -> String {
    format!("[[app]]\nname = \"{name}\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions}\nllc_mpki = {mpki}\n")
}

/// A fork-join app: `threads` threads each retire `instructions` at `mpki`, then one of them a
/// serial phase of as many at the same rate while the others block.
fn forkjoin_app(name: &str, threads: u32, instructions: f64, mpki: f64) -> String {
    format!(
        "[[app]]\nname = \"{name}\"\nthreads = {threads}\n\
         [[app.phase]]\nkind = \"compute\"\ninstructions = {instructions}\nllc_mpki = {mpki}\n\
         [[app.phase]]\nkind = \"serial\"\ninstructions = {instructions}\nllc_mpki = {mpki}\nwait = \"block\"\n"
    )
}

#[test]
fn uf_is_eq_6_14() {
    // SF 2, 5 runnable threads, 2 fast cores: ⌊4/2⌋ + 1 = 3 iterations, UF = 1 + 1/9.
    assert!((utility_factor(2.0, 5, 2) - 1.111_111_111_111_111).abs() < 1e-12);
    // The derived table of the thesis's summary (NFC 2, SF 1.6): N 1-2 → 1.6, 3-4 → 1.15, 7-8 → 1.0375.
    for (n, uf) in [(1, 1.6), (2, 1.6), (3, 1.15), (4, 1.15), (7, 1.0375), (8, 1.0375)] {
        assert!((utility_factor(1.6, n, 2) - uf).abs() < 1e-12, "N = {n}");
    }
}

#[test]
fn high_threads_share_the_fast_core_equally() {
    // Three compute-bound single-threaded apps (SF 2, category label 1.9 ≥ 1.8: HIGH) on one
    // fast and two slow cores. Until 0.8 s all warm up as LOW and thread 0 holds the fast core
    // (it started first; ties go fast). Then HAFS shares it: each thread's fair fast fraction
    // is 1/3 (α = 1 fast core / 3 HIGH threads). Each thread retires 6e9 instructions: with the
    // core shared equally from the start all three would end together at 6e9 / (2/3 + 2/3 ×
    // 1) ns = 4.5 s; thread 0's 0.8 s head start (0.8 s × 2 instr/ns against 1 on a slow core)
    // is repaid over the sharing. With 200 ms sampling quanta and a 50 ms threshold a stint is
    // one or two quanta, so the shares are fair within one stint per thread over ~4 s.
    let m = machine(1, 2);
    let w = workload(&[st_app("a", 6e9, 0.0), st_app("b", 6e9, 0.0), st_app("c", 6e9, 0.0)].concat());
    let (r, camp) = simulate(&m, &w, Variant::CAMP, "camp");
    for t in 0..3 {
        assert_eq!(camp.history().iter().find(|h| h.1 == t).map(|h| h.2), Some(Utility::High), "thread {t}");
    }
    // From 0.8 s each gets a third of the fast core: 4/3 instructions per ns. Thread 0 is then
    // 1.6e9 instructions in, the others 0.8e9: thread 0 ends at 0.8 + 4.4e9 / (4/3) = 4.1 s;
    // the others have 0.8e9 left and share the core by halves (1.5 per ns): 4.633 s, each with
    // 3.3 / 3 + 0.533 / 2 = 1.367 s of fast time.
    let ends: Vec<f64> = r.apps.iter().map(|a| secs(a.turnarounds_ns[0])).collect();
    assert!((ends[0] - 4.1).abs() < 0.01 * 4.1, "ends {ends:?}");
    for t in 1..3 {
        assert!((ends[t] - 4.633).abs() < 0.02 * 4.633, "ends {ends:?}");
        let (fast, _) = times(&r, t);
        assert!((fast - 1.367).abs() < 0.1, "thread {t}: {fast} s fast");
    }
    // hass-d, ordering by raw SF, has no reason to move equal threads: thread 0 keeps the fast
    // core, 6e9 × 0.5 ns = 3 s.
    let mut p = ampsched_policy::build(&PolicySpec::parse("hass-d").unwrap(), &m).unwrap();
    let rh = Engine::new(&m, &w, &SimpleModel, p.as_mut(), SimConfig::default()).run().unwrap();
    assert_eq!(times(&rh, 0).1, 0.0);
}

#[test]
fn a_medium_thread_gets_the_fast_core_high_threads_leave() {
    // Two fast, two slow cores; three single-threaded apps (only-single-threaded mode,
    // thresholds 1.5 / 1.8): hi (SF 2 → 1.9: HIGH), lo (SF 1.2 → 1.25: LOW), mid (SF 1.6 →
    // 1.65: MEDIUM). They start in that order: hi and lo on the fast cores, mid on a slow one.
    // At 0.8 s the classes are known; one HIGH thread leaves one fast core, which MEDIUM takes
    // before LOW: mid and lo swap, at once.
    let m = machine(2, 2);
    let w = workload(&[st_app("hi", 4e9, 0.0), st_app("lo", 2e9, 20.0), st_app("mid", 4e9, 10.0 / 3.0)].concat());
    let (r, camp) = simulate(&m, &w, Variant::CAMP, "camp");
    let classes: Vec<(u32, Utility)> = camp.history().iter().map(|h| (h.1, h.2)).collect();
    assert!(classes.contains(&(2, Utility::Medium)) && classes.contains(&(0, Utility::High)), "{classes:?}");
    let (mid_fast, mid_slow) = times(&r, 2);
    assert!((0.8..0.81).contains(&mid_slow), "mid's slow time {mid_slow} s: the 0.8 s of warm-up");
    // The rest of mid's 4e9 instructions on the fast core: 4e9 − 0.8 s / (1 + 1/3) ns = 3.4e9 at
    // (0.5 + 1/3) ns, 2.833 s (plus its migration).
    assert!((mid_fast - 3.4e9 * (0.5 + 1.0 / 3.0) * 1e-9).abs() < 0.01, "mid's fast time {mid_fast} s");
    // lo (2.5 ns per instruction fast, 3 slow) ran 0.32e9 instructions on a fast core in the
    // warm-up, then on a slow core until hi's 4e9 × 0.5 ns = 2 s were done (0.4e9): the fast core
    // hi leaves then takes it back, for the last 1.28e9 × 2.5 ns = 3.2 s.
    let (lo_fast, lo_slow) = times(&r, 1);
    assert!((lo_slow - 1.2).abs() < 0.01, "lo's slow time {lo_slow} s: from 0.8 s until hi ends");
    assert!((lo_fast - 4.0).abs() < 0.01, "lo's fast time {lo_fast} s");
    // hi never leaves its fast core.
    assert_eq!(times(&r, 0).1, 0.0);
}

/// A compute-bound single-threaded app beside a 3-thread fork-join app whose threads miss `mpki`,
/// on one fast and three slow cores. The single thread starts first and takes the fast core; the
/// fork-join threads run their 1.5e9 instructions each on the slow cores (they are LOW: N = 3 on
/// one fast core is 3 iterations, UF ≤ 1 + 0.9/9 = 1.1 < 1.2), then one of them its serial 1.5e9.
fn serial_phase_workload(mpki: f64) -> Workload {
    workload(&[st_app("st", 2e10, 0.0), forkjoin_app("fj", 3, 1.5e9, mpki)].concat())
}

#[test]
fn a_serial_phase_of_high_sf_is_boosted_and_one_of_low_sf_is_not() {
    let m = machine(1, 3);
    // Compute-bound fork-join (SF 2): the parallel phase takes 1.5 s on the slow cores, long
    // enough for an estimate (0.8 s). At 1.5 s two threads block: N = 1, UF = SF's label 1.9 ≥
    // 1.6, HIGH, so the serial thread is SEQUENTIAL_BOOSTED and swaps with st at once. Its 1.5e9
    // instructions take 0.75 s on the fast core, under the boost's 1 s.
    let (r, camp) = simulate(&m, &serial_phase_workload(0.0), Variant::CAMP, "camp");
    let boosted: Vec<u32> = camp.history().iter().filter(|h| h.2 == Utility::SequentialBoosted).map(|h| h.1).collect();
    assert_eq!(boosted.len(), 1, "{:?}", camp.history());
    let serial = boosted[0] as usize;
    let (fast, slow) = times(&r, serial);
    assert!((fast - 0.75).abs() < 0.001, "the serial phase on the fast core: {fast} s");
    assert!((slow - 1.5).abs() < 0.001, "the parallel phase on a slow core: {slow} s");
    let (_, st_slow) = times(&r, 0);
    assert!((st_slow - 0.75).abs() < 0.002, "st waits out the serial phase on a slow core: {st_slow} s");

    // Memory-bound fork-join (20 MPKI, SF 1.2, label 1.25): its serial thread's UF is 1.25, under
    // the upper threshold 1.6: MEDIUM, not boosted; st (HIGH) keeps the fast core throughout, and
    // the serial phase runs on a slow core: 1.5e9 × 3 ns = 4.5 s.
    let (r, camp) = simulate(&m, &serial_phase_workload(20.0), Variant::CAMP, "camp");
    assert!(camp.history().iter().all(|h| h.2 != Utility::SequentialBoosted), "{:?}", camp.history());
    assert!(camp.history().iter().any(|h| h.1 != 0 && h.2 == Utility::Medium), "the serial thread is MEDIUM: {:?}", camp.history());
    assert_eq!(times(&r, 0).1, 0.0, "st never leaves the fast core");
    for t in 1..4 {
        assert_eq!(times(&r, t).0, 0.0, "fork-join thread {t} never runs on the fast core");
    }
    let fj_end = secs(r.apps[1].turnarounds_ns[0]);
    assert!((fj_end - (4.5 + 4.5)).abs() < 0.01, "parallel 4.5 s + serial 4.5 s on slow cores: {fj_end} s");

    // PA on the UF sees TLP only: its SF is the highest, so the same memory-bound serial phase
    // is boosted at once (no warm-up), and takes 1.5e9 × 2.5 ns = 3.75 s of fast time, more than
    // the boost's 1 s: after 1 s of it the thread is HIGH (UF 2), and shares the core with st
    // (HAFS), neither taking it from the other for good.
    let (r, pa) = simulate(&m, &serial_phase_workload(20.0), Variant::PA_UF, "pa-uf");
    assert!(pa.history().iter().any(|h| h.2 == Utility::SequentialBoosted), "{:?}", pa.history());
    let serial_fast: f64 = (1..4).map(|t| times(&r, t).0).sum();
    assert!(serial_fast > 1.0, "the boosted serial phase runs on the fast core: {serial_fast} s");
}

#[test]
fn a_boosted_thread_whose_sf_drops_is_downgraded() {
    // The serial phase starts compute-bound (0.4e9 instructions, SF 2) and turns memory-bound
    // (20 MPKI, SF 1.2), as FFTW's does (thesis §6.3.3). Boosted at first, the thread is
    // downgraded once its new phase is estimated (UF 1.25: MEDIUM) and st takes the core back.
    let m = machine(1, 3);
    let w = workload(&format!(
        "{}[[app]]\nname = \"fj\"\nthreads = 3\n\
         [[app.phase]]\nkind = \"compute\"\ninstructions = 1.5e9\n\
         [[app.phase]]\nkind = \"serial\"\ninstructions = 0.4e9\nwait = \"block\"\n\
         [[app.phase]]\nkind = \"serial\"\ninstructions = 1e9\nllc_mpki = 20\nwait = \"block\"\n",
        st_app("st", 2e10, 0.0)
    ));
    let (r, camp) = simulate(&m, &w, Variant::CAMP, "camp:boost_ticks=1000");
    let h = camp.history();
    let boost = h.iter().find(|h| h.2 == Utility::SequentialBoosted).expect("boosted");
    let down = h.iter().find(|x| x.1 == boost.1 && x.0 > boost.0).expect("downgraded");
    assert_eq!(down.2, Utility::Medium, "{h:?}");
    // The boost was long enough (10 s) not to end by itself: the downgrade is the SF's. It comes
    // within 4 periods of the change (0.8 s) plus the compute part (0.2 s on the fast core).
    assert!(secs(down.0 - boost.0) < 1.0 + 0.01, "{h:?}");
    assert!(times(&r, 0).1 < 1.01, "st is back on the fast core within 1 s");
}

#[test]
fn sfd_orders_by_sf_and_camp_by_utility() {
    // A memory-bound single thread (SF 1.2, label 1.25) beside a compute-bound 3-thread app
    // (SF 2) on one fast and three slow cores: multi-threaded mode (1.2 / 1.6). SFD's UF is the
    // SF alone: the single thread is MEDIUM, the parallel threads HIGH, so from 0.8 s they take
    // the fast core and share it; the single thread runs on a slow core until they end. CAMP's UF
    // counts the 3 runnable threads: 1 + 0.9/9 = 1.1 < 1.2, LOW (the app is skipped: even SF 2
    // gives 1.11), so the MEDIUM single thread keeps the fast core.
    let m = machine(1, 3);
    let w = workload(
        &[st_app("mem", 3e9, 20.0), "[[app]]\nname = \"par\"\nthreads = 3\n[[app.phase]]\nkind = \"compute\"\ninstructions = 3e9\n".to_string()].concat(),
    );
    let (r, sfd) = simulate(&m, &w, Variant::SFD, "sfd");
    assert!(sfd.history().contains(&(800_000_000, 0, Utility::Medium)), "{:?}", sfd.history());
    // By 0.8 s each parallel thread has retired 0.8e9 instructions on a slow core; the three
    // then share the fast core (HAFS, α = 1/3: 4/3 instructions per ns) for their other 2.2e9,
    // 1.65 s, a third of it each on the fast core. mem waits on a slow core until they end.
    let (_, mem_slow) = times(&r, 0);
    assert!((mem_slow - 1.65).abs() < 0.1, "mem is on a slow core while the parallel threads run: {mem_slow} s");
    for t in 1..4 {
        let (fast, _) = times(&r, t);
        assert!((fast - 0.55).abs() < 0.1, "parallel thread {t} gets a third of the fast core: {fast} s");
    }
    let (r, _) = simulate(&m, &w, Variant::CAMP, "camp");
    assert!(times(&r, 0).1 < 1e-4, "under CAMP mem keeps the fast core (at most a migration's 20 µs elsewhere): {:?}", times(&r, 0));
    // The skip optimisation changes no decision here (the app's threads are LOW either way).
    let (r2, _) = simulate(&m, &w, Variant::CAMP, "camp:skip=false");
    assert_eq!(r.makespan_ns, r2.makespan_ns);
}

#[test]
fn new_threads_warm_up_as_low() {
    // Until its SF is first estimated (0.8 s) a thread is LOW: a compute-bound thread started on
    // a slow core beside a memory-bound one on the fast core waits 0.8 s before they swap.
    let m = machine(1, 1);
    let w = workload(&[st_app("mem", 2e9, 20.0), st_app("cpu", 2e9, 0.0)].concat());
    let (r, camp) = simulate(&m, &w, Variant::CAMP, "camp");
    let first: Vec<(u64, u32, Utility)> = camp.history().iter().copied().filter(|h| h.2 != Utility::Low).collect();
    assert!(first.iter().all(|h| h.0 >= 800_000_000), "{first:?}");
    let (_, cpu_slow) = times(&r, 1);
    assert!((0.8..0.81).contains(&cpu_slow), "cpu waits out the warm-up on the slow core: {cpu_slow} s");
}

use crate::common;

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 128, rng_seed: proptest::test_runner::RngSeed::Fixed(6), ..Default::default() })]

    /// On random two-type machines and workloads (every phase kind, several groups, short
    /// sampling periods so that classes change often), every variant finishes every measured run,
    /// and after every call no runnable slow thread has a higher class than a runnable fast one.
    #[test]
    fn classes_stay_in_order_on_random_runs(
        types in proptest::collection::vec((1u32..4, 0.5f64..3.0, 1.0f64..2.0), 2..3),
        wl in common::workload_strategy(),
        which in 0usize..3,
        seed in 0u64..1000,
    ) {
        let m = Machine::from_toml("prop-machine", &common::machine_toml(&types)).unwrap();
        proptest::prop_assume!(m.capacity_levels().len() == 2);
        let w = Workload::from_toml("prop-workload", &wl, &Programs::new());
        proptest::prop_assume!(!matches!(&w, Err(e) if e.message.contains("does no work")));
        let w = w.unwrap();
        let (variant, spec) = [
            (Variant::CAMP, "camp:sample_ms=5:boost_ticks=2:share_threshold_ms=2"),
            (Variant::SFD, "sfd:sample_ms=5:share_threshold_ms=2"),
            (Variant::PA_UF, "pa-uf:quantum_ms=2:boost_ticks=1"),
        ][which];
        let spec = PolicySpec::parse(spec).unwrap();
        let info = POLICIES.iter().find(|p| p.name == variant.name).unwrap();
        // The class order, checked after every call: the first inversion (ns, slow thread, fast thread).
        let mut inversion = None;
        let mut p = Watched::new(Camp::new(variant, &Options::new(&spec, info.options).unwrap(), &m), |camp, view, _| {
            if let (None, Some((s, f))) = (inversion, camp.class_inversion()) {
                inversion = Some((view.now_ns, s, f));
            }
        });
        let r = Engine::new(&m, &w, &SimpleModel, &mut p, SimConfig { seed, ..SimConfig::default() }).run().unwrap();
        drop(p);
        for (a, res) in w.apps.iter().zip(&r.apps) {
            proptest::prop_assert_eq!(res.turnarounds_ns.len() as u32, a.runs);
        }
        proptest::prop_assert!(inversion.is_none(), "at {:?} (ns, slow thread, fast thread)", inversion);
    }
}

#[test]
fn camp_with_offline_sfs_knows_them_from_the_start() {
    // mid (10/3 MPKI: SF 1.6, medium category) starts first and takes the fast core (ties go
    // fast); hi (compute-bound: SF 2, high category) starts on the slow one. Offline, both SFs
    // are known at the start from the solo profiling runs (alone, one core of each type: mid's
    // rate 1/0.8333 on the fast type, 1/1.3333 on the slow one, exactly 1.6; hi's 2), so hi is
    // HIGH at once and swaps with mid before either runs: it never runs slow, and each estimate
    // is the truth (one phase, flat rates, private caches). Online, hi warms up as LOW for 0.8 s
    // on the slow core (the start period discarded, then a phase and 2 stable periods).
    use ampsched_runner::{Experiment, Settings};
    let dir = crate::common::ScratchDir::new("camp-offline");
    let m = "name = \"1f1s\"\nmemory_latency_ns = 100.0\n\
             [[core_type]]\nname = \"fast\"\ncount = 1\nfreq_ghz = 2.0\npower_active_w = 1.0\npower_idle_w = 0.1\n\
             [[core_type]]\nname = \"slow\"\ncount = 1\nfreq_ghz = 1.0\npower_active_w = 1.0\npower_idle_w = 0.1\n";
    let w = format!("{}{}", st_app("mid", 3e9, 10.0 / 3.0), st_app("hi", 4e9, 0.0));
    let settings = Settings { counter_noise: 0.0, ..Settings::default() };
    let mut e = Experiment::new(&dir.write("m.toml", m), &dir.write("w.toml", &w), settings).unwrap();
    let hi_slow = |v: &serde_json::Value| {
        let t = &v["threads"][1];
        assert_eq!(t["app"], "hi");
        t["cpu_s"].as_f64().unwrap() - t["fast_s"].as_f64().unwrap()
    };
    let offline = e.run("camp:sf=offline").unwrap();
    assert!(hi_slow(&offline).abs() < 1e-9, "{}", hi_slow(&offline));
    assert!(offline["sf_error"].as_f64().unwrap() < 1e-9, "{}", offline["sf_error"]);
    let online = e.run("camp").unwrap();
    assert!((hi_slow(&online) - 0.8).abs() < 0.01, "{}", hi_slow(&online));
    assert!(online["sf_error"].as_f64().unwrap() > 0.01);
    // SFD has no such option; a live agent could not give the profile (checked by `needs`).
    assert!(e.run("sfd:sf=offline").is_err());
    let spec = PolicySpec::parse("camp:sf=offline").unwrap();
    assert!(ampsched_policy::needs(&spec).unwrap().contains(ampsched_model::Signals::PROFILE));
    assert!(!ampsched_policy::needs(&PolicySpec::parse("camp").unwrap()).unwrap().contains(ampsched_model::Signals::PROFILE));
}
