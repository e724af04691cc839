//! HASS-S and HASS-D (Sáez thesis, §4.2) and the SF estimation they share: numbers derived by
//! hand from the performance model (T = CPI × cpi_scale / f + MPKI / 1000 × latency per
//! instruction), the FOA cache-sharing model and the estimator's stated rules.

use crate::common;

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Policy, SimpleModel, Workload};
use ampsched_policy::{build, PolicySpec, POLICIES};
use ampsched_runner::{Experiment, Settings};
use ampsched_sim::{Engine, RunResult, SimConfig};

/// One fast core at 2 GHz and one slow at 1 GHz, 100 ns memory; `llc` adds LLC tables.
fn machine_1f1s(llc: &str) -> Machine {
    let text = format!(
        "name = \"1f1s\"\nmemory_latency_ns = 100.0\n\
         [[core_type]]\nname = \"fast\"\ncount = 1\nfreq_ghz = 2.0\npower_active_w = 1.0\npower_idle_w = 0.1\n\
         [[core_type]]\nname = \"slow\"\ncount = 1\nfreq_ghz = 1.0\npower_active_w = 1.0\npower_idle_w = 0.1\n{llc}"
    );
    Machine::from_toml("1f1s.toml", &text).unwrap()
}

fn workload(text: &str) -> Workload {
    Workload::from_toml("w.toml", text, &Programs::new()).unwrap()
}

fn simulate(m: &Machine, w: &Workload, spec: &str) -> (RunResult, Box<dyn Policy>) {
    let mut p = build(&PolicySpec::parse(spec).unwrap(), m).unwrap();
    // The estimates and timings below are derived by hand from exact counters: no noise.
    let r = Engine::new(m, w, &SimpleModel, p.as_mut(), SimConfig { counter_noise: 0.0, ..SimConfig::default() }).run().unwrap();
    (r, p)
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

#[test]
fn hass_s_puts_the_thread_of_higher_sf_on_the_fast_core() {
    // mem: 1 + 20 MPKI × 0.1 ns: 2.5 ns per instruction fast, 3.0 slow: SF 1.2. cpu: SF 2.0.
    // (The estimator's base CPI set to the programs' 1.0, so its model is their truth.)
    // mem starts first and takes the fast core (ties go fast); cpu starts on the slow core,
    // where its expected performance (1 × a whole core) is no better than on the fast one
    // (2.0 × half a core), so Algorithm 4.1 rebinds it: a swap, at once, before either has run.
    // cpu's 2e9 instructions then take 1 s on the fast core; mem moves up when it exits.
    let m = machine_1f1s("");
    let w = workload(
        "[[app]]\nname = \"mem\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e9\nllc_mpki = 20\n\
         [[app]]\nname = \"cpu\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e9\n",
    );
    let (r, p) = simulate(&m, &w, "hass-s:base_cpi=1");
    let (mem, cpu) = (&r.threads[0], &r.threads[1]);
    assert_eq!(p.diagnostics().unwrap().sf_estimate(0), Some(1.2));
    assert_eq!(p.diagnostics().unwrap().sf_estimate(1), Some(2.0));
    assert_eq!(cpu.per_type[0].time_ns, 1_000_000_000, "cpu runs on the fast core from the start");
    assert_eq!(cpu.per_type[1].time_ns, 0);
    // mem: 1 s on the slow core (1e9 / 3 instructions at 3 ns), then 20 µs of migration and the
    // other 5e9 / 3 at 2.5 ns.
    assert_eq!(mem.per_type[1].time_ns, 1_000_000_000);
    assert!((secs(mem.per_type[0].time_ns) - (20e-6 + 5e9 / 3.0 * 2.5e-9)).abs() < 1e-6, "{}", mem.per_type[0].time_ns);
    // Private caches, flat miss rates and the programs' own CPI: the static SF is the truth.
    assert!(r.sf_error_mean().unwrap() < 1e-12);
}

#[test]
fn the_static_estimate_uses_the_thesis_base_cpi_not_the_programs() {
    // Both 20 MPKI (2 ns of stall per instruction at 100 ns). The estimator takes CPI 1.5
    // (thesis §4.1.3) for both: T_fast = 1.5 / 2 + 2 = 2.75 ns, T_slow = 1.5 + 2 = 3.5 ns,
    // SF 14/11 = 1.2727. "cpi1" really has CPI 1: 2.5 ns fast, 3 ns slow, true SF 1.2, so its
    // estimate is off by 14/11 − 1.2 = 0.0727 whenever it runs; "cpi15" has CPI 1.5: exact.
    let m = machine_1f1s("");
    let w = workload(
        "[[app]]\nname = \"cpi1\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e9\nllc_mpki = 20\n\
         [[app]]\nname = \"cpi15\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e9\ncpi = 1.5\nllc_mpki = 20\n",
    );
    let (r, p) = simulate(&m, &w, "hass-s");
    for t in 0..2 {
        let estimate = p.diagnostics().unwrap().sf_estimate(t).unwrap();
        assert!((estimate - 14.0 / 11.0).abs() < 1e-12, "thread {t}: {estimate}");
    }
    let off = r.sf_error_of(0).unwrap();
    assert!((off - (14.0 / 11.0 - 1.2)).abs() < 1e-12, "{off}");
    assert!(r.sf_error_of(1).unwrap() < 1e-12);
    // A base CPI of 3 (a slower core's guess): T_fast = 1.5 + 2, T_slow = 3 + 2: SF 10/7.
    let (_, p) = simulate(&m, &w, "hass-s:base_cpi=3");
    assert!((p.diagnostics().unwrap().sf_estimate(0).unwrap() - 10.0 / 7.0).abs() < 1e-12);
}

#[test]
fn hass_d_moves_a_thread_turning_memory_bound_off_the_fast_core_within_four_periods() {
    // a: 4.1e9 compute-bound instructions (SF 2; 2.05 s on the fast core), then 1e9 at 30 MPKI
    // (0.5 + 3 = 3.5 ns fast, 4 ns slow: SF 8/7). b: 5 MPKI throughout (1 ns fast, 1.5 ns slow:
    // SF 1.5). a starts on the fast core (ties go fast), b on the slow one; by 0.8 s their
    // estimates are 2 and 1.5 (start period discarded, then a phase and 2 stable periods), no
    // swap. a's phase turns at 2.05 s, inside the period ending at 2.2 s: that mixed sample
    // (9 MPKI) is a change, the pure one ending at 2.4 s another, those ending at 2.6 and 2.8 s
    // agree, so at 2.8 s a's SF becomes 8/7 < 1.5 and a swaps with b: 0.75 s after the change,
    // under the bound of 4 periods (change period + 1 clean one to start the phase + 2 stable).
    let m = machine_1f1s("");
    let w = workload(
        "[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 4.1e9\n\
         [[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\nllc_mpki = 30\n\
         [[app]]\nname = \"b\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e10\nllc_mpki = 5\n",
    );
    let (r, p) = simulate(&m, &w, "hass-d");
    let a_fast = secs(r.threads[0].per_type[0].time_ns);
    assert!(a_fast > 2.05 && a_fast <= 2.05 + 4.0 * 0.2, "a left the fast core at {a_fast} s");
    assert!((a_fast - 2.8).abs() < 1e-6, "{a_fast}");
    assert_eq!(r.threads[0].migrations, 1);
    // Its last estimate, from its memory-bound phase on the slow core: exactly 8/7.
    assert!((p.diagnostics().unwrap().sf_estimate(0).unwrap() - 8.0 / 7.0).abs() < 1e-9, "{:?}", p.diagnostics().unwrap().sf_estimate(0));
}

#[test]
fn the_dynamic_estimate_of_a_stable_thread_alone_on_its_llc_is_within_5_percent() {
    // CPI 1.2 and 4 MPKI at its 2 MB LLC: 0.6 + 0.4 = 1.0 ns fast, 1.2 + 0.4 = 1.6 ns slow: SF 1.6.
    let m = machine_1f1s("[[llc]]\nsize_kb = 2048\ncores = [0]\n[[llc]]\nsize_kb = 2048\ncores = [1]\n");
    let w = workload(
        "[[app]]\nname = \"x\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 5e9\ncpi = 1.2\n\
         miss_curve = { size_kb = [256, 2048], mpki = [20, 4] }\n",
    );
    let (r, p) = simulate(&m, &w, "hass-d");
    let estimate = p.diagnostics().unwrap().sf_estimate(0).unwrap();
    assert!((estimate - 1.6).abs() / 1.6 < 0.05, "{estimate}");
    // 5 s of run, 25 samples: the first 3 at the new thread's 1.0 (error 0.6), the rest exact.
    let mean = r.sf_error_of(0).unwrap();
    assert!((mean - 3.0 * 0.6 / 25.0).abs() < 1e-9, "{mean}");
}

#[test]
fn the_static_signature_misjudges_a_thread_beside_a_cache_hungry_co_runner_the_dynamic_estimate_does_not() {
    // One 2 MB LLC shared by both cores. t (listed first, so on the fast core under both
    // policies): 20 MPKI at 256 KB down to 1 at 2 MB; alone 0.6 ns per instruction, 0.02 / 0.6
    // = 0.0333 LLC accesses per ns. h (slow core): 100 MPKI down to 10; alone 2 ns, 0.05
    // accesses per ns. FOA gives t 2048 × 0.0333 / 0.0833 = 819.2 KB, where its curve reads
    // 20 − 19 × log2(3.2) / 3 = 9.372 MPKI: true SF (1 + 0.9372) / (0.5 + 0.9372) = 1.3479.
    // Its static signature, read at 2 MB alone (1 MPKI), says 1.1 / 0.6 = 1.8333: off by 0.4854.
    // h: 10 MPKI static (SF 1.333); beside t 32.11 MPKI (SF 1.135): t keeps the fast core.
    let m = machine_1f1s("[[llc]]\nsize_kb = 2048\ncores = [0, 1]\n");
    let w = workload(
        "[[app]]\nname = \"t\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e10\n\
         miss_curve = { size_kb = [256, 2048], mpki = [20, 1] }\n\
         [[app]]\nname = \"h\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e11\n\
         miss_curve = { size_kb = [256, 2048], mpki = [100, 10] }\n",
    );
    let truth = (1.0 + 0.937_218) / (0.5 + 0.937_218);
    // The estimator's base CPI is t's own (1.0), so that its error here is the co-runner's alone.
    let (s, ps) = simulate(&m, &w, "hass-s:base_cpi=1");
    assert!((ps.diagnostics().unwrap().sf_estimate(0).unwrap() - 1.1 / 0.6).abs() < 1e-9);
    let static_error = s.sf_error_of(0).unwrap();
    assert!((static_error - (1.1 / 0.6 - truth)).abs() < 1e-3, "{static_error}");
    let (d, pd) = simulate(&m, &w, "hass-d");
    assert!((pd.diagnostics().unwrap().sf_estimate(0).unwrap() - truth).abs() < 1e-3, "{:?}", pd.diagnostics().unwrap().sf_estimate(0));
    // t runs 1e10 × 1.437 ns = 14.4 s: 72 samples, the first 3 at 1.0 (off by 0.348).
    let dynamic_error = d.sf_error_of(0).unwrap();
    assert!(dynamic_error < 0.02, "{dynamic_error}");
    assert_eq!(d.threads[0].per_type[1].time_ns, 0, "t never left the fast core");
}

#[test]
fn no_policy_beats_best_static_on_a_workload_without_phases() {
    // 2 fast (2 GHz) + 2 slow (1 GHz) private cores; two compute-bound apps (SF 2) and two at
    // 45 MPKI (0.5 + 4.5 = 5 ns fast, 6 ns slow: SF 1.2), one phase each, under constant load.
    // With SFs this far apart the best static assignment (SF-2 apps fast) is the optimum of
    // the geometric mean of slowdowns: giving a slow app fast time gains less (SF 1.2 − 1 =
    // 0.2 per unit of share, in log terms) than the fast app loses (1 − 1/2 = 0.5), and
    // migrations cost on top. No policy may do better.
    let dir = common::ScratchDir::new("hass-best-static");
    let mut machine = String::from("name = \"2f2s\"\nmemory_latency_ns = 100.0\n");
    for (name, ghz) in [("fast", 2.0), ("slow", 1.0)] {
        machine.push_str(&format!("[[core_type]]\nname = \"{name}\"\ncount = 2\nfreq_ghz = {ghz}\npower_active_w = 1.0\npower_idle_w = 0.1\n"));
    }
    let mut work = String::from("constant_load = true\n");
    for (name, instructions, mpki) in [("c1", 2e9, 0.0), ("m1", 2e8, 45.0), ("c2", 2e9, 0.0), ("m2", 2e8, 45.0)] {
        work.push_str(&format!(
            "[[app]]\nname = \"{name}\"\nruns = 3\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions:e}\nllc_mpki = {mpki}\n"
        ));
    }
    let (mpath, wpath) = (dir.write("2f2s.toml", &machine), dir.write("flat.toml", &work));
    let mut e = Experiment::new(&mpath, &wpath, Settings::default()).unwrap();
    let geomean = |v: &serde_json::Value| {
        let apps = v["apps"].as_array().unwrap();
        (apps.iter().map(|a| a["slowdown"].as_f64().unwrap().ln()).sum::<f64>() / apps.len() as f64).exp()
    };
    let best = geomean(&e.run("best-static").unwrap());
    for p in POLICIES.iter().filter(|p| p.name != "best-static") {
        let g = geomean(&e.run(p.name).unwrap());
        assert!(g >= best * (1.0 - 1e-9), "{} beats best static: {g} < {best}", p.name);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 64, rng_seed: proptest::test_runner::RngSeed::Fixed(12), ..Default::default() })]

    /// On random machines (up to three capacities: three partitions) and workloads (every phase
    /// kind, several groups), both policies finish every measured run and give SF estimates
    /// within the model's range [1, fastest / slowest peak rate (f / cpi_scale)].
    #[test]
    fn hass_policies_finish_random_runs_with_estimates_in_range(
        types in proptest::collection::vec((1u32..4, 0.5f64..3.0, 1.0f64..2.0), 1..4),
        wl in common::workload_strategy(),
        policy in proptest::sample::select(vec!["hass-s", "hass-d:sample_ms=5", "hass-s:refresh_ms=1:quantum_ms=1"]),
        seed in 0u64..1000,
    ) {
        let m = Machine::from_toml("prop-machine", &common::machine_toml(&types)).unwrap();
        let w = Workload::from_toml("prop-workload", &wl, &Programs::new());
        proptest::prop_assume!(!matches!(&w, Err(e) if e.message.contains("does no work")));
        let w = w.unwrap();
        let mut p = build(&PolicySpec::parse(policy).unwrap(), &m).unwrap();
        let r = Engine::new(&m, &w, &SimpleModel, p.as_mut(), SimConfig { seed, ..SimConfig::default() }).run().unwrap();
        for (a, res) in w.apps.iter().zip(&r.apps) {
            proptest::prop_assert_eq!(res.turnarounds_ns.len() as u32, a.runs);
        }
        let (fast, slow) = ampsched_model::perf::sf_types(&m);
        let peak = |t: usize| m.core_types[t].freq_ghz / m.core_types[t].cpi_scale;
        let max_sf = peak(fast) / peak(slow);
        for t in 0..r.threads.len() as u32 {
            if let Some(sf) = p.diagnostics().unwrap().sf_estimate(t) {
                proptest::prop_assert!((1.0 - 1e-9..=max_sf + 1e-9).contains(&sf), "thread {} SF {} outside [1, {}]", t, sf, max_sf);
            }
        }
    }
}

#[test]
fn hass_runs_are_deterministic_on_a_shared_llc_numa_machine() {
    // 4FC-12SC (four chips sharing an L3 each, a NUMA node per chip), the thesis's HH1 ×4 with
    // miss curves: the same inputs give the same JSON, estimates and errors included.
    for policy in ["hass-s", "hass-d"] {
        let run = || Experiment::new("4fc-12sc", "hh1-x4", Settings::default()).unwrap().run(policy).unwrap();
        let (a, b) = (run(), run());
        assert!(a["sf_error"].as_f64().is_some(), "{policy} reports its estimator's error");
        assert_eq!(a, b, "{policy}");
    }
}

#[test]
fn hass_s_fills_the_fast_partition_by_sf_within_the_balance_rules() {
    // 2 fast (2 GHz) + 2 slow (1 GHz). Arrival order: a0, a1 at 20 MPKI (SF (1 + 2) / (0.5 + 2) =
    // 1.2), then b2, b3, b4 compute-bound (SF 2). a0 and a1 take the fast cores; b2 starts slow
    // and would do better on a fast core (2 × 2/3 > 1), but a move alone would overload the fast
    // partition beside an idle slow core, so it swaps with a0 (rebinding); b3 likewise with a1.
    // b4 arrives with both partitions at scaled load 1, so goes fast (ties go fast), where its
    // expected 2 × 2/3 beats 1 × 2/3 slow: the three SF-2 threads share the fast cores, 1 s of
    // CPU each (2e9 × 0.5 ns) over 1.5 s, while a0 and a1 run slow until the fast cores free.
    let dir = common::ScratchDir::new("hass-s-fill");
    let mut machine = String::from("name = \"2f2s\"\nmemory_latency_ns = 100.0\n");
    for (name, ghz) in [("fast", 2.0), ("slow", 1.0)] {
        machine.push_str(&format!("[[core_type]]\nname = \"{name}\"\ncount = 2\nfreq_ghz = {ghz}\npower_active_w = 1.0\npower_idle_w = 0.1\n"));
    }
    let mut work = String::new();
    for (name, instructions, mpki) in [("a0", 1e9, 20.0), ("a1", 1e9, 20.0), ("b2", 2e9, 0.0), ("b3", 2e9, 0.0), ("b4", 2e9, 0.0)] {
        work.push_str(&format!("[[app]]\nname = \"{name}\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions:e}\nllc_mpki = {mpki}\n"));
    }
    let m = Machine::from_toml("2f2s", &machine).unwrap();
    let w = Workload::from_toml(&dir.write("fill.toml", &work), &work, &Programs::new()).unwrap();
    // The estimator's base CPI is the programs' own (1.0): the SFs above.
    let (r, _) = simulate(&m, &w, "hass-s:base_cpi=1");
    for b in &r.threads[2..5] {
        assert_eq!(b.per_type[1].time_ns, 0, "thread {} ran on a slow core", b.id);
        let fast = secs(b.per_type[0].time_ns);
        assert!((1.0..1.005).contains(&fast), "thread {}: {fast} s on the fast cores (1 s of work plus intra-partition migrations)", b.id);
    }
    for a in &r.threads[0..2] {
        let slow = secs(a.per_type[1].time_ns);
        assert!((1.49..1.51).contains(&slow), "thread {}: {slow} s on a slow core before the fast cores freed", a.id);
    }
}
