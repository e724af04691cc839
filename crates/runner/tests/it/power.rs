//! Power rails (docs/power.md): energy per rail derived by hand for one thread on one big core,
//! a cluster with no core online drawing nothing, the power trace integrating to the energy,
//! and bad rail keys as one-line errors.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Workload};
use ampsched_policy::baseline::bound::Bound;
use ampsched_runner::{catalog, Experiment, Settings};
use ampsched_sim::power::PowerTrace;
use ampsched_sim::{metrics, Engine, RunResult, SimConfig};

/// A big core (1 GHz, 2.0 W busy, 0.5 W idle, rail "a" with 0.3 W static) and a little one
/// (1 GHz, cpi_scale 2, 0.5 / 0.1 W, rail "b" with 0.2 W static); memory 100 ns away, its rail
/// 0.1 W static and 1000 pJ per byte of 64-byte lines (no `[memory]`: the default line).
const MACHINE: &str = "memory_latency_ns = 100\n\
    [[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 1.0\npower_active_w = 2.0\npower_idle_w = 0.5\nrail = \"a\"\n\
    [[core_type]]\nname = \"little\"\ncount = 1\nfreq_ghz = 1.0\ncpi_scale = 2.0\npower_active_w = 0.5\npower_idle_w = 0.1\nrail = \"b\"\n\
    [[rail]]\nname = \"a\"\nstatic_w = 0.3\n\
    [[rail]]\nname = \"b\"\nstatic_w = 0.2\n\
    [[rail]]\nname = \"mem\"\nmemory = true\nstatic_w = 0.1\npj_per_byte = 1000\n";

/// One thread retiring 1e9 instructions at CPI 1 with 2 misses per 1000: on the big core
/// 1 ns + 2/1000 × 100 ns = 1.2 ns an instruction, 1.2 s; 2e6 misses.
const ONE_THREAD: &str = "[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\ncpi = 1.0\nllc_mpki = 2\n";

/// The run of ONE_THREAD bound to core 0 (the big core) of `m`, with a power trace of `sample_ns`.
fn run_on_big(m: &Machine, sample_ns: u64) -> RunResult {
    let w = Workload::from_toml("w.toml", ONE_THREAD, &Programs::new()).unwrap();
    let mut p = Bound::new(m.num_cores(), 0);
    Engine::new(m, &w, &ampsched_model::SimpleModel, &mut p, SimConfig { power_sample_ns: sample_ns, ..SimConfig::default() }).run().unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn energy_per_rail_of_one_thread_on_the_big_core_by_hand() {
    let m = Machine::from_toml("m.toml", MACHINE).unwrap();
    let r = run_on_big(&m, 0);
    assert_eq!(r.makespan_ns, 1_200_000_000);
    let met = metrics(&m, &r, &[1.2]);
    let rails = met.rail_energy_j.unwrap();
    // a: busy 1.2 s at 2.0 W, plus 0.3 W static: 2.4 + 0.36 = 2.76 J.
    // b: its core idle 1.2 s at 0.1 W, plus 0.2 W static: 0.12 + 0.24 = 0.36 J.
    // mem: 0.1 W × 1.2 s + 2e6 misses × 64 B × 1000 pJ = 0.12 + 0.128 = 0.248 J.
    let want = [2.76, 0.36, 0.248];
    assert!(rails.iter().zip(want).all(|(&got, w)| close(got, w)), "{rails:?}");
    let energy = met.energy_j.unwrap();
    assert!(close(energy, 3.368), "{energy}");
    assert!(close(met.avg_power_w.unwrap(), 3.368 / 1.2));
    assert!(close(met.edp.unwrap(), 3.368 * 1.2));
}

#[test]
fn a_cluster_with_no_core_online_draws_nothing() {
    let m = Machine::from_toml("m.toml", MACHINE).unwrap();
    let big_only = m.with_online(&[1, 0], "m:little=0".into());
    let met = metrics(&big_only, &run_on_big(&big_only, 0), &[1.2]);
    // Rail b is hotplugged off: neither its core's idle power nor its static power.
    let rails = met.rail_energy_j.unwrap();
    assert_eq!(rails.len(), 3, "the rail stays listed");
    assert_eq!(rails[1], 0.0);
    assert!(close(rails[0], 2.76) && close(rails[2], 0.248), "{rails:?}");
    assert!(close(met.energy_j.unwrap(), 3.008));
}

#[test]
fn the_power_trace_integrates_to_each_rails_energy() {
    let m = Machine::from_toml("m.toml", MACHINE).unwrap();
    // 0.27 s windows (the paper's daemon) here; below, 50 ms windows of a Java program (threads
    // that come and go, both clusters, the memory) on the catalog's exynos5422, through the
    // runner's JSON: every rail's samples × their windows sum to its energy.
    let r = run_on_big(&m, 270_000_000);
    let trace = r.power_trace.as_ref().unwrap();
    let (times, power) = trace.samples(&m, r.makespan_ns);
    // 1.2 s in 0.27 s windows: four full ones and one of 0.12 s, ending with the run.
    assert_eq!(times.len(), 5);
    assert!(close(*times.last().unwrap(), 1.2));
    // The big core is busy throughout: rail a draws 2.0 + 0.3 W in every window.
    assert!(power.iter().all(|p| close(p[0], 2.3)), "{power:?}");
    check_integral(&m, &r, trace);

    let exynos = catalog::machine("exynos5422").unwrap();
    let mut exp = Experiment::new("exynos5422", "dacapo-lusearch", Settings { power_sample_s: Some(0.05), ..Settings::default() }).unwrap();
    let v = exp.run("oblivious").unwrap();
    let trace = &v["power_trace"];
    let rails = v["rail_energy_j"].as_object().unwrap();
    let times: Vec<f64> = trace["time_s"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(times.len() > 2, "several windows");
    for rail in &exynos.rails {
        let p: Vec<f64> = trace["power_w"][&rail.name].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let integral: f64 = p.iter().zip(&times).enumerate().map(|(k, (w, end))| w * (end - if k == 0 { 0.0 } else { times[k - 1] })).sum();
        let energy = rails[&rail.name].as_f64().unwrap();
        assert!((integral - energy).abs() <= 1e-9 * energy, "{}: trace {integral} J, energy {energy} J", rail.name);
    }
}

/// Σ over windows of power × window length = the run's energy of each rail.
fn check_integral(m: &Machine, r: &RunResult, trace: &PowerTrace) {
    let (times, power) = trace.samples(m, r.makespan_ns);
    let energy = metrics(m, r, &[1.0]).rail_energy_j.unwrap();
    for (i, e) in energy.iter().enumerate() {
        let integral: f64 = (0..times.len()).map(|k| power[k][i] * (times[k] - if k == 0 { 0.0 } else { times[k - 1] })).sum();
        assert!((integral - e).abs() <= 1e-9 * e.max(1.0), "rail {i}: {integral} vs {e}");
    }
}

#[test]
fn a_long_run_at_a_short_interval_keeps_a_bounded_trace() {
    // 1.2 s at 1 µs would be 1.2 million windows: they are merged to at most MAX_POWER_SAMPLES
    // (the interval doubling each time), and still integrate to the energy.
    let m = Machine::from_toml("m.toml", MACHINE).unwrap();
    let r = run_on_big(&m, 1_000);
    let trace = r.power_trace.as_ref().unwrap();
    assert!(trace.above_j.len() <= ampsched_sim::power::MAX_POWER_SAMPLES);
    assert_eq!(trace.interval_ns, 1_000 << 5, "1.2e6 windows halved five times fit 65536");
    check_integral(&m, &r, trace);
}

#[test]
fn a_machine_without_rails_keeps_its_energy_and_has_a_rail_per_type() {
    let m = Machine::from_toml("m.toml", &MACHINE[..MACHINE.find("[[rail]]").unwrap()].replace("rail = \"a\"\n", "").replace("rail = \"b\"\n", "")).unwrap();
    assert!(!m.has_rails);
    assert_eq!(m.rails.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["big", "little"]);
    let met = metrics(&m, &run_on_big(&m, 0), &[1.2]);
    // The cores alone: 2.4 + 0.12 J, as before rails existed.
    assert_eq!(met.energy_j.unwrap(), met.core_energy_j.unwrap().iter().sum::<f64>());
    assert!(close(met.energy_j.unwrap(), 2.52));
}

#[test]
fn bad_rail_keys_are_one_line_errors() {
    let err = |text: String| Machine::from_toml("m.toml", &text).unwrap_err().to_string();
    let cases = [
        (
            MACHINE.replace("rail = \"b\"\n", ""),
            "m.toml: core_type[1].rail: missing: the machine has [[rail]] tables, so every core type names the rail it draws from (a, b)",
        ),
        (MACHINE.replace("rail = \"b\"", "rail = \"c\""), "m.toml: core_type[1].rail: no [[rail]] named 'c' (the core rails: a, b)"),
        (MACHINE.replace("rail = \"b\"", "rail = \"mem\""), "m.toml: core_type[1].rail: 'mem' is the memory rail; a core type draws from a core rail (a, b)"),
        (MACHINE.replace("static_w = 0.2", "static_w = -1"), "m.toml: rail[1].static_w: must be from 0 to 10000 W, got -1"),
        (MACHINE.replace("pj_per_byte = 1000", "pj_per_byte = 1e9"), "m.toml: rail[2].pj_per_byte: must be from 0 to 10000 pJ/B, got 1e9"),
        (
            MACHINE.replace("name = \"b\"\nstatic_w = 0.2", "name = \"b\"\nstatic_w = 0.2\npj_per_byte = 5"),
            "m.toml: rail[1].pj_per_byte: only the memory rail (memory = true) draws energy per byte of DRAM traffic",
        ),
        (MACHINE.replace("name = \"b\"\nstatic_w", "name = \"a\"\nstatic_w"), "m.toml: rail[1].name: duplicate rail name 'a'"),
        (
            format!("{MACHINE}[[rail]]\nname = \"m2\"\nmemory = true\n"),
            "m.toml: rail[3].memory: a second memory rail: the machine's DRAM traffic is one rail's",
        ),
        (format!("{MACHINE}[[rail]]\nname = \"spare\"\n"), "m.toml: rail[3]: rail 'spare' feeds no core type and is not the memory rail (memory = true)"),
        (format!("{MACHINE}[[rail]]\nname = \"x\"\nvolts = 1\n"), "m.toml: rail[3].volts: unknown key"),
    ];
    for (text, want) in cases {
        let got = err(text);
        assert!(got.starts_with(want), "{got}\nwanted {want}");
        assert!(!got.contains('\n'), "{got}");
    }
    let no_rails = MACHINE[..MACHINE.find("[[rail]]").unwrap()].to_string();
    assert_eq!(err(no_rails), "m.toml: core_type[0].rail: names a rail, but the machine has no [[rail]] tables");
}

#[test]
fn a_power_trace_needs_a_power_model_and_a_sane_interval() {
    let err = |machine: &str, s: f64| {
        Experiment::new(machine, "dacapo-lusearch", Settings { power_sample_s: Some(s), ..Settings::default() }).err().unwrap().to_string()
    };
    assert_eq!(err("exynos5422", 0.0), "--power-trace: must be from 1e-6 to 86400 s, got 0");
    assert!(
        err("kimhuh-gem5-2f4s", 0.27).starts_with("--power-trace: the machine kimhuh-gem5-2f4s does not give every core type a power"),
        "{}",
        err("kimhuh-gem5-2f4s", 0.27)
    );
}
