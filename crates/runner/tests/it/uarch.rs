//! Core types that differ in microarchitecture (docs/microarchitecture.md): a CPI per `uarch`
//! and memory-level parallelism, with numbers derived by hand from the model
//! (T = CPI_on_core / f + MPKI / 1000 × L / min(mlp, max_mlp) per instruction), and the files
//! without the keys giving exactly the former model's numbers.

use ampsched_model::events;
use ampsched_model::perf::{check_uarch_cpi, CoreCpi};
use ampsched_model::workload::Programs;
use ampsched_model::{Machine, PerfModel, SimpleModel, Workload};
use ampsched_policy::baseline::oblivious::Oblivious;
use ampsched_sim::{Engine, RunResult, SimConfig, SimError};

/// One core of `keys` (besides the name, count 1 and `memory_latency_ns = 100`).
fn one_core(keys: &str) -> Machine {
    Machine::from_toml("m.toml", &format!("memory_latency_ns = 100\n[[core_type]]\nname = \"c\"\ncount = 1\n{keys}\n")).unwrap()
}

/// A big core (2 GHz, cortex-a15, overlaps up to 6 misses) and a little one (1 GHz, cpi_scale
/// 1.5, cortex-a7, in order), memory 100 ns.
const BIG_LITTLE: &str = "memory_latency_ns = 100\n\
    [[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\nuarch = \"cortex-a15\"\nmax_mlp = 6\n\
    [[core_type]]\nname = \"little\"\ncount = 1\nfreq_ghz = 1.0\ncpi_scale = 1.5\nuarch = \"cortex-a7\"\n";

/// One app of one thread retiring 1e9 instructions of a phase with `keys`.
fn one_phase(keys: &str) -> Workload {
    Workload::from_toml("w.toml", &format!("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n{keys}\n"), &Programs::new()).unwrap()
}

fn run(m: &Machine, w: &Workload) -> Result<RunResult, SimError> {
    Engine::new(m, w, &SimpleModel, &mut Oblivious, SimConfig::default()).run()
}

/// The lone thread's time (ns) and cycles on core type 0 of `m`.
fn time_and_cycles(m: &Machine, w: &Workload) -> (u64, f64) {
    let r = run(m, w).unwrap();
    let c = &r.threads[0].per_type[0];
    (c.time_ns, c.cycles)
}

#[test]
fn a_cpi_table_gives_the_cpi_on_each_named_microarchitecture() {
    let phase = "cpi = { \"cortex-a15\" = 1.1, \"cortex-a7\" = 2.5 }\nllc_mpki = 2";
    // On the A7 at 1 GHz: 2.5 / 1 + 2 / 1000 × 100 = 2.7 ns an instruction (not 1.1 × 1.5).
    let little = one_core("freq_ghz = 1.0\ncpi_scale = 1.5\nuarch = \"cortex-a7\"");
    let (t, cycles) = time_and_cycles(&little, &one_phase(phase));
    assert_eq!(t, 2_700_000_000);
    assert!((cycles - 2.7e9).abs() < 1.0, "cycles = time × clock, {cycles}");
    // On the A15 at 2 GHz: 1.1 / 2 + 0.2 = 0.75 ns.
    let big = one_core("freq_ghz = 2.0\nuarch = \"cortex-a15\"");
    assert_eq!(time_and_cycles(&big, &one_phase(phase)).0, 750_000_000);
    // The solo SF the model gives (what best-static and the true SF read): 2.7 / 0.75 = 3.6.
    let m = Machine::from_toml("m.toml", BIG_LITTLE).unwrap();
    let profile = one_phase(phase).apps[0].groups[0].phases[0].profile().unwrap().clone();
    let sf = ampsched_model::perf::speedup_factor(&SimpleModel, &m, &profile, 0, 1);
    assert!((sf - 3.6).abs() < 1e-12, "{sf}");
    // The reference CPI (signatures, estimators) is the lowest entry without a `default`.
    assert_eq!(profile.cpi, 1.1);
    // docs/microarchitecture.md's example: with `mlp = 2` the big core (max_mlp 6) overlaps two
    // misses, 1.1 / 2 + 0.002 × 100 / 2 = 0.65 ns; the in-order little one none: 2.7 / 0.65.
    let profile = one_phase(&format!("{phase}\nmlp = 2")).apps[0].groups[0].phases[0].profile().unwrap().clone();
    let sf = ampsched_model::perf::speedup_factor(&SimpleModel, &m, &profile, 0, 1);
    assert!((sf - 2.7 / 0.65).abs() < 1e-12, "{sf}");
    // The estimators' own model (a reference CPI scaled, no overlap) gives (1.65 + 0.2) / (0.55 + 0.2).
    let plain = ampsched_policy::common::sf_model::sf(&m, profile.cpi, 2.0, 2.0, 100.0);
    assert!((plain - 1.85 / 0.75).abs() < 1e-12, "{plain}");
}

#[test]
fn a_default_entry_holds_on_core_types_the_table_does_not_name() {
    // default 1.2 on a core of no named uarch at 1 GHz with cpi_scale 2: 1.2 × 2 / 1 = 2.4 ns.
    let phase = "cpi = { \"cortex-a15\" = 1.1, default = 1.2 }";
    let other = one_core("freq_ghz = 1.0\ncpi_scale = 2.0\nuarch = \"cortex-a53\"");
    assert_eq!(time_and_cycles(&other, &one_phase(phase)).0, 2_400_000_000);
    let plain = one_core("freq_ghz = 1.0\ncpi_scale = 2.0");
    assert_eq!(time_and_cycles(&plain, &one_phase(phase)).0, 2_400_000_000);
    assert_eq!(one_phase(phase).apps[0].groups[0].phases[0].profile().unwrap().cpi, 1.2);
}

#[test]
fn a_core_type_the_table_does_not_cover_is_refused_by_file_and_key() {
    let m = Machine::from_toml("m.toml", BIG_LITTLE).unwrap();
    let w = one_phase("cpi = { \"cortex-a15\" = 1.1 }");
    let want = "w.toml: app[0].phase[0].cpi: core type 'little' of machine 'm' is a cortex-a7, which the table does not name \
                (it names cortex-a15); add it or a `default` entry";
    assert_eq!(check_uarch_cpi(&m, &w).unwrap_err().to_string(), want);
    // The engine refuses it too, before any event, for a caller that did not ask.
    assert_eq!(run(&m, &w).unwrap_err(), SimError::Input(want.to_string()));
    let none = one_core("freq_ghz = 1.0");
    assert!(check_uarch_cpi(&none, &w).unwrap_err().to_string().contains("core type 'c' of machine 'm' names no uarch"));
}

#[test]
fn misses_overlap_up_to_the_smaller_of_the_program_and_the_core_mlp() {
    // 1 GHz, CPI 1, 10 misses per 1000 instructions of 100 ns: 1 + 1 / overlap ns an instruction.
    let phase = |mlp: &str| one_phase(&format!("cpi = 1.0\nllc_mpki = 10\n{mlp}"));
    let core = |max: &str| one_core(&format!("freq_ghz = 1.0\n{max}"));
    assert_eq!(time_and_cycles(&core("max_mlp = 4"), &phase("mlp = 2")).0, 1_500_000_000, "overlap 2");
    assert_eq!(time_and_cycles(&core("max_mlp = 4"), &phase("mlp = 8")).0, 1_250_000_000, "capped by the core: 4");
    assert_eq!(time_and_cycles(&core(""), &phase("mlp = 8")).0, 2_000_000_000, "an in-order core: 1");
    assert_eq!(time_and_cycles(&core("max_mlp = 4"), &phase("")).0, 2_000_000_000, "a program of MLP 1");
    // The counted stalls follow the time: 0.01 misses × 100 ns / 2 × 1 GHz = 0.5 cycles an
    // instruction; dispatch stalls add the CPI above the 3-wide ideal (1 − 1/3).
    let r = run(&core("max_mlp = 4"), &phase("mlp = 2")).unwrap();
    let c = &r.threads[0].per_type[0];
    let per = |e: usize| c.event(e) / c.instructions;
    assert!((per(events::CYCLES) - 1.5).abs() < 1e-9);
    assert!((per(events::MEM_STALL_CYCLES) - 0.5).abs() < 1e-9, "{}", per(events::MEM_STALL_CYCLES));
    assert!((per(events::DISPATCH_STALLS) - (0.5 + 1.0 - 1.0 / 3.0)).abs() < 1e-9, "{}", per(events::DISPATCH_STALLS));
}

#[test]
fn without_the_keys_the_model_is_the_former_formula_to_the_bit() {
    // The former model, written out: cpi × cpi_scale / f + mpki / 1000 × latency.
    let m = Machine::from_toml("m.toml", BIG_LITTLE).unwrap();
    for t in &m.core_types {
        for (cpi, mpki, latency) in [(1.0, 0.0, 100.0), (1.37, 3.3, 120.0), (0.7, 27.1, 91.3), (2.9, 0.013, 310.0)] {
            let former = cpi * t.cpi_scale / t.freq_ghz + mpki / 1000.0 * latency;
            assert_eq!(SimpleModel.ns_per_instruction_at(t, cpi, mpki, latency).to_bits(), former.to_bits());
            let on = SimpleModel.ns_per_instruction_on(t, CoreCpi::scaled(cpi, t), mpki, latency);
            assert_eq!(on.to_bits(), former.to_bits());
        }
    }
    // A run: naming the cores' microarchitectures and their overlap changes nothing for a phase
    // with a plain CPI and no `mlp`; nor does `mlp = 1`, nor a table whose only entry the
    // machine has is its `default`.
    let plain = Machine::from_toml(
        "m.toml",
        "memory_latency_ns = 100\n[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n\
         [[core_type]]\nname = \"little\"\ncount = 1\nfreq_ghz = 1.0\ncpi_scale = 1.5\n",
    )
    .unwrap();
    let named = Machine::from_toml("m.toml", BIG_LITTLE).unwrap();
    let two = |keys: &str| {
        Workload::from_toml(
            "w.toml",
            &format!(
                "[[app]]\nname = \"a\"\nthreads = 3\n[[app.phase]]\nkind = \"compute\"\ninstructions = 3e8\nllc_mpki = 7\n{keys}\n\
                 [[app.phase]]\nkind = \"compute\"\ninstructions = 2e8\ncpi = 0.8\n"
            ),
            &Programs::new(),
        )
        .unwrap()
    };
    let reference = run(&plain, &two("cpi = 1.3")).unwrap();
    for (m, keys) in [(&named, "cpi = 1.3"), (&plain, "cpi = 1.3\nmlp = 1"), (&named, "cpi = { \"cortex-x1\" = 0.5, default = 1.3 }")] {
        let r = run(m, &two(keys)).unwrap();
        assert_eq!(format!("{:?}", r.threads), format!("{:?}", reference.threads), "{keys}");
        assert_eq!(r.makespan_ns, reference.makespan_ns);
    }
}

#[test]
fn the_new_keys_have_documented_ranges() {
    let machine_err = |keys: &str| {
        Machine::from_toml("m.toml", &format!("memory_latency_ns = 100\n[[core_type]]\nname = \"c\"\ncount = 1\nfreq_ghz = 1\n{keys}\n"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(machine_err("max_mlp = 0.5"), "m.toml: core_type[0].max_mlp: must be from 1 to 1024, got 0.5");
    assert_eq!(machine_err("uarch = \"\""), "m.toml: core_type[0].uarch: must be a name of 1 to 64 characters");
    assert_eq!(machine_err("uarch = 3"), "m.toml: core_type[0].uarch: expected a string, got integer");
    assert!(machine_err("uarch = \"default\"").starts_with("m.toml: core_type[0].uarch: 'default' is reserved"));
    let phase_err = |keys: &str| {
        Workload::from_toml("w.toml", &format!("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n{keys}\n"), &Programs::new())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(phase_err("mlp = 0"), "w.toml: app[0].phase[0].mlp: must be from 1 to 1024, got 0");
    assert_eq!(phase_err("cpi = { a15 = 1e308 }"), "w.toml: app[0].phase[0].cpi.a15: must be from 0.01 to 1000, got 1e308");
    assert_eq!(phase_err("cpi = { a15 = \"fast\" }"), "w.toml: app[0].phase[0].cpi.a15: expected a number, got string");
    assert_eq!(phase_err("cpi = {}"), "w.toml: app[0].phase[0].cpi: expected a number or a table of numbers by name, got an empty table");
    assert!(phase_err("cpi = { default = 1.0 }").starts_with("w.toml: app[0].phase[0].cpi: a table needs at least one microarchitecture"));
    assert_eq!(phase_err("cpi = [1.0]"), "w.toml: app[0].phase[0].cpi: expected a number, got array");
}

#[test]
fn a_table_equal_to_the_scaled_cpi_gives_the_same_run_through_shared_caches_and_phases() {
    // The engine's resolved costs (one per phase and core type, `memory::UarchCosts`) on the
    // paths a plain CPI takes: co-runners in a shared LLC (their access rates), repeated phase
    // lists (the phase index), several groups. {a15 = c, a7 = 1.5 c} is c × cpi_scale exactly.
    // Two little cores sharing their LLC, so that every phase runs on the A7 beside a co-runner.
    let m = Machine::from_toml(
        "m.toml",
        "memory_latency_ns = 100\n[[core_type]]\nname = \"little\"\ncount = 2\nfreq_ghz = 1.0\ncpi_scale = 1.5\nuarch = \"cortex-a7\"\n\
         [[llc]]\nsize_kb = 1024\ncores = \"0-1\"\n",
    )
    .unwrap();
    let text = |c1: &str, c2: &str| {
        format!(
            "[[app]]\nname = \"a\"\n[[app.group]]\nname = \"m\"\ncount = 2\nrepeat = 3\n\
             [[app.group.phase]]\nkind = \"compute\"\ninstructions = 2e8\ncpi = {c1}\nmiss_curve = {{ size_kb = [128, 1024], mpki = [12, 2] }}\n\
             [[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e8\ncpi = {c2}\nllc_mpki = 3\n\
             [[app.group]]\nname = \"w\"\ncount = 2\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 3e8\ncpi = 0.9\n\
             miss_curve = {{ size_kb = [256, 1024], mpki = [8, 1] }}\n"
        )
    };
    let w = |t: String| Workload::from_toml("w.toml", &t, &Programs::new()).unwrap();
    let plain = run(&m, &w(text("1.2", "0.8"))).unwrap();
    let table = run(
        &m,
        &w(text("{ \"cortex-a15\" = 1.2, \"cortex-a7\" = 1.7999999999999998 }", "{ \"cortex-a15\" = 0.8, default = 9.0, \"cortex-a7\" = 1.2000000000000002 }")),
    )
    .unwrap();
    assert_eq!(1.2f64 * 1.5, 1.7999999999999998);
    assert_eq!(0.8f64 * 1.5, 1.2000000000000002);
    assert_eq!(format!("{:?}", table.threads), format!("{:?}", plain.threads));
    assert_eq!(table.makespan_ns, plain.makespan_ns);
    // And the tables are read: 3.0 on the A7 for the second phase instead (3 × 2 threads × 1e8
    // instructions at 1.8 ns more each, over two cores) ends the run later.
    let slower = run(&m, &w(text("1.2", "{ \"cortex-a15\" = 0.8, \"cortex-a7\" = 3.0 }"))).unwrap();
    assert!(slower.makespan_ns > plain.makespan_ns + 400_000_000, "{} vs {}", slower.makespan_ns, plain.makespan_ns);
}
