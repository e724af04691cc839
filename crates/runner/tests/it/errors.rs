//! Bad input gets one clear line naming the file, the key and the problem; an unfinishable
//! workload is reported, never a hang.

use ampsched_model::workload::Programs;
use ampsched_model::{limits, Machine, SimpleModel, Workload};
use ampsched_policy::baseline::oblivious::Oblivious;
use ampsched_runner::{Experiment, Settings};
use ampsched_sim::{Engine, SimConfig, SimError};

use crate::common::ScratchDir;

const GOOD_MACHINE: &str = "memory_latency_ns = 100\n[[core_type]]\nname = \"fast\"\ncount = 2\nfreq_ghz = 2.0\n";

fn machine_err(text: &str) -> String {
    Machine::from_toml("m.toml", text).unwrap_err().to_string()
}

fn workload_err(text: &str) -> String {
    Workload::from_toml("w.toml", text, &Programs::new()).unwrap_err().to_string()
}

#[test]
fn machine_errors_name_file_key_and_problem() {
    assert_eq!(machine_err("[[core_type]]\nname = \"a\"\ncount = 1\nfreq_ghz = 1\n"), "m.toml: memory_latency_ns: missing required key");
    assert!(machine_err(&format!("colour = 3\n{GOOD_MACHINE}")).starts_with("m.toml: colour: unknown key"));
    assert_eq!(
        machine_err("memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = \"two\"\nfreq_ghz = 1\n"),
        "m.toml: core_type[0].count: expected an integer, got string"
    );
    assert_eq!(
        machine_err("memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = 0\nfreq_ghz = 1\n"),
        "m.toml: core_type[0].count: must be a whole number from 1 to 8192, got 0"
    );
    assert_eq!(
        machine_err("memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = 1\nfreq_ghz = -2\n"),
        "m.toml: core_type[0].freq_ghz: must be from 0.01 to 100 GHz, got -2"
    );
    assert!(machine_err("memory_latency_ns = = 3\n").starts_with("m.toml: line 1: invalid TOML"));
    assert!(machine_err(&format!("{GOOD_MACHINE}[[llc]]\ncores = [0, 5]\n")).contains("llc[0].cores: core 5 does not exist"));
}

#[test]
fn a_machine_past_the_core_limit_is_refused_by_file_and_key() {
    let limit = ampsched_model::MAX_CORES;
    let types = |a: usize, b: usize| {
        format!("memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = {a}\nfreq_ghz = 2\n[[core_type]]\nname = \"b\"\ncount = {b}\nfreq_ghz = 1\n")
    };
    assert_eq!(Machine::from_toml("m.toml", &types(limit - 1, 1)).unwrap().num_cores(), limit);
    assert_eq!(machine_err(&types(limit, 1)), format!("m.toml: core_type[1].count: brings the machine to {} cores; at most {limit} are supported", limit + 1));
    assert_eq!(
        machine_err("memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = 1\nfreq_ghz = 1\ncpus = [9000]\n"),
        format!("m.toml: core_type[0].cpus[0]: core or CPU number 9000 is too large (the largest supported is {})", limit - 1)
    );
    assert_eq!(
        machine_err(&format!("{GOOD_MACHINE}[[llc]]\ncores = \"0-99999999999\"\n")),
        format!("m.toml: llc[0].cores: core or CPU number 99999999999 is too large (the largest supported is {})", limit - 1)
    );
}

#[test]
fn workload_errors_name_file_key_and_problem() {
    assert_eq!(
        workload_err("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"dance\"\n"),
        "w.toml: app[0].phase[0].kind: unknown phase kind 'dance' (expected compute, serial, barrier, critical, sleep or stage; for a recorded program's synchronisation spawn, join, sem_post, sem_wait)"
    );
    assert_eq!(
        workload_err("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = -5\n"),
        "w.toml: app[0].phase[0].instructions: must be greater than 0 and at most 1e15, got -5"
    );
    assert_eq!(workload_err("[[app]]\nname = \"a\"\nthreads = 0\nprogram = \"x\"\n"), "w.toml: app[0].threads: must be a whole number from 1 to 262144, got 0");
    assert!(workload_err("[[app]]\nname = \"a\"\nprogram = \"nope\"\n").starts_with("w.toml: app[0].program: unknown program 'nope'"));
    assert!(workload_err("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"barrier\"\ninstructions = 5\n")
        .starts_with("w.toml: app[0].phase[0].instructions: unknown key"));
    assert_eq!(
        workload_err("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"barrier\"\nwait = \"spin_then_block\"\n"),
        "w.toml: app[0].phase[0].spin_limit_us: wait = \"spin_then_block\" needs spin_limit_us or spin_limit_iterations"
    );
    let serial = |keys: &str| format!("[[app]]\nname = \"a\"\nthreads = 2\n[[app.phase]]\nkind = \"serial\"\ninstructions = 1e6\n{keys}\n");
    assert_eq!(
        workload_err(&serial("wait = \"spin_then_block\"\nspin_limit_iterations = 1.5e6\nspin_limit_us = 5")),
        "w.toml: app[0].phase[0].spin_limit_iterations: give either spin_limit_us or spin_limit_iterations, not both"
    );
    assert_eq!(
        workload_err(&serial("wait = \"spin_then_block\"\nspin_limit_iterations = 2.5")),
        "w.toml: app[0].phase[0].spin_limit_iterations: must be a whole number of iterations, got 2.5"
    );
    assert_eq!(
        workload_err(&serial("wait = \"spin_then_block\"\nspin_limit_iterations = 0")),
        "w.toml: app[0].phase[0].spin_limit_iterations: must be greater than 0 and at most 1e10 iterations, got 0"
    );
    assert_eq!(
        workload_err(&serial("wait = \"block\"\nspin_limit_iterations = 1e6")),
        "w.toml: app[0].phase[0].spin_limit_iterations: only wait = \"spin_then_block\" takes a spin limit"
    );
    assert!(workload_err(&format!("workers = \"sometimes\"\n{}", serial(""))).starts_with("w.toml: workers: unknown key"));
    let with_workers = |w: &str, phase: &str| format!("[[app]]\nname = \"a\"\nthreads = 2\nworkers = \"{w}\"\n[[app.phase]]\n{phase}\n");
    assert_eq!(
        workload_err(&with_workers("sometimes", "kind = \"serial\"\ninstructions = 1e6")),
        "w.toml: app[0].workers: unknown workers 'sometimes' (expected persistent or per_phase)"
    );
    assert_eq!(
        workload_err(&with_workers("per_phase", "kind = \"compute\"\ninstructions = 1e6")),
        "w.toml: app[0].workers: per_phase workers need a serial phase (the workers exit at each one); without one give persistent"
    );
    assert_eq!(
        workload_err(&with_workers("per_phase", "kind = \"serial\"\ninstructions = 1e6\nscope = \"app\"")),
        "w.toml: app[0].workers: per_phase workers need scope = \"group\" serial phases and barriers (the workers exit at each serial phase)"
    );
    let two_groups = "[[app]]\nname = \"a\"\n[[app.group]]\nname = \"w\"\ncount = 2\nworkers = \"per_phase\"\n[[app.group.phase]]\nkind = \"serial\"\ninstructions = 1e6\n\
                      [[app.group]]\nname = \"h\"\n[[app.group.phase]]\nkind = \"barrier\"\nscope = \"app\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e6\n";
    // Per-phase workers take no part in app-wide phases, but the app's first thread leads them.
    assert_eq!(
        workload_err(two_groups),
        "w.toml: app[0].group: an app with scope = \"app\" phases needs a first group with persistent workers (its first thread leads them)"
    );
    assert_eq!(workload_err("name = \"x\"\n"), "w.toml: app: a workload needs at least one [[app]]");
}

#[test]
fn program_group_errors_name_file_key_and_problem() {
    use ampsched_model::workload::programs_from_toml;
    let program_err = |text: &str| {
        let mut p = Programs::new();
        programs_from_toml("p.toml", text, &mut p).unwrap_err().to_string()
    };
    let group = |keys: &str| {
        format!("[[program]]\nname = \"j\"\n[[program.group]]\nname = \"g\"\n{keys}\n[[program.group.phase]]\nkind = \"compute\"\ninstructions = 1e6\n")
    };
    assert_eq!(program_err(&group("count = \"many\"")), "p.toml: program[0].group[0].count: expected a whole number or \"cores\", got \"many\"");
    assert_eq!(program_err(&group("count = 0")), "p.toml: program[0].group[0].count: must be a whole number from 1 to 262144, got 0");
    assert_eq!(program_err(&group("work = \"half\"")), "p.toml: program[0].group[0].work: unknown work 'half' (expected per_thread or shared)");
    assert_eq!(program_err(&group("program = \"x\"")), "p.toml: program[0].group[0].program: give either program or [[phase]] tables, not both");
    assert_eq!(
        program_err(&format!("repeat = 2\n{}", group("")).replacen("[[program]]\nname = \"j\"\n", "", 1).replacen(
            "repeat = 2\n",
            "[[program]]\nname = \"j\"\nrepeat = 2\n",
            1
        )),
        "p.toml: program[0].repeat: a program with [[program.group]] gives this per group"
    );
    let one_kind = "[[program]]\nname = \"j\"\n[[program.phase]]\nkind = \"critical\"\nlock = \"l\"\ncs_instructions = 1e6\ncount = 2\n";
    assert_eq!(
        program_err(one_kind),
        "p.toml: program[0].phase: a program of one kind of thread may not use locks; give [[program.group]] tables or put critical phases in the workload"
    );
    // An app running a program of groups gives nothing the groups give.
    let mut progs = Programs::new();
    programs_from_toml("p.toml", &group("count = \"cores\""), &mut progs).unwrap();
    let app_err = |keys: &str| Workload::from_toml("w.toml", &format!("[[app]]\nname = \"a\"\nprogram = \"j\"\n{keys}\n"), &progs).unwrap_err().to_string();
    assert_eq!(app_err("threads = 4"), "w.toml: app[0].threads: program 'j' has [[program.group]] tables, which give this per group");
    assert_eq!(app_err("os_scheduled = \"yes\""), "w.toml: app[0].os_scheduled: expected true or false, got string");
    let in_group = "[[app]]\nname = \"a\"\n[[app.group]]\nname = \"g\"\nprogram = \"j\"\n";
    assert_eq!(
        Workload::from_toml("w.toml", in_group, &progs).unwrap_err().to_string(),
        "w.toml: app[0].group[0].program: program 'j' has [[program.group]] tables: run it as a whole app (program = \"j\" in [[app]])"
    );
}

#[test]
fn policy_and_name_errors() {
    let run = |m: &str, w: &str, p: &str| -> String {
        match Experiment::new(m, w, Settings::default()) {
            Err(e) => e.to_string(),
            Ok(mut e) => e.run(p).map(|_| String::from("ok")).unwrap_or_else(|e| e.to_string()),
        }
    };
    assert!(run("nosuch", "demo", "rr").starts_with("--machine: nosuch: no such machine in the catalog"));
    assert!(run("dvfs-2x", "demo", "nosuch").starts_with("--policy: nosuch: unknown policy"));
    assert_eq!(run("dvfs-2x", "demo", "rr:speed=3"), "--policy: rr:speed=3: unknown option 'speed' (rr takes: quantum_ms, threshold_ms, prefer_local)");
    assert_eq!(
        run("dvfs-2x", "demo", "rr:threshold_ms=-1"),
        "--policy: rr:threshold_ms=-1: option 'threshold_ms' must be a number from 0.001 to 1000000, got '-1'"
    );
    assert!(run("/no/such/file.toml", "demo", "rr").starts_with("/no/such/file.toml: cannot read machine file"));
    let dir = ScratchDir::new("errors");
    let big = dir.write("17-threads.toml", "[[app]]\nname = \"a\"\nthreads = 17\nprogram = \"gzip\"\n");
    assert!(run("dvfs-2x", &big, "best-static").contains("the oracle searches at most 16 threads; workload"));
    // Miss curves need the size of every LLC: the listed one has none.
    let sizeless = dir.write("sizeless.toml", &format!("{GOOD_MACHINE}[[llc]]\ncores = [0, 1]\n"));
    assert_eq!(
        run(&sizeless, "hh1", "rr"),
        format!("{sizeless}: llc: the LLC of core 0 has no size_kb, and the workload's miss curves need it (add an [[llc]] with size_kb)")
    );
    assert_eq!(run(&sizeless, "demo", "rr"), "ok");
}

fn deadlock(text: &str) -> SimError {
    let m = Machine::from_toml("m", GOOD_MACHINE).unwrap();
    let w = Workload::from_toml("w", text, &Programs::new()).unwrap();
    Engine::new(&m, &w, &SimpleModel, &mut Oblivious, SimConfig::default()).run().unwrap_err()
}

#[test]
fn a_barrier_some_thread_never_reaches_is_a_deadlock_not_a_hang() {
    // The workers meet at an app-wide barrier that the main thread never reaches.
    for wait in ["block", "spin"] {
        let e = deadlock(&format!(
            "[[app]]\nname = \"x\"\n[[app.group]]\nname = \"main\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e6\n\
             [[app.group]]\nname = \"workers\"\ncount = 2\n[[app.group.phase]]\nkind = \"barrier\"\nscope = \"app\"\nwait = \"{wait}\"\n"
        ));
        let SimError::Deadlock(msg) = e else { panic!("expected a deadlock, got {e:?}") };
        assert!(msg.contains("app 'x' group 'workers' thread 0 waits for a barrier"), "{msg}");
    }
}

#[test]
fn a_number_that_is_not_finite_is_named_as_such() {
    assert_eq!(
        machine_err("memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = 1\nfreq_ghz = inf\n"),
        "m.toml: core_type[0].freq_ghz: must be finite, got inf"
    );
    assert_eq!(
        machine_err("memory_latency_ns = nan\n[[core_type]]\nname = \"a\"\ncount = 1\nfreq_ghz = 1\n"),
        "m.toml: memory_latency_ns: must be finite, got NaN"
    );
}

#[test]
fn input_files_are_read_with_a_size_limit_and_as_text() {
    use ampsched_runner::catalog;
    // A wrong path that never ends is refused at the limit, not read until memory runs out.
    let e = catalog::workload("/dev/zero").unwrap_err().to_string();
    assert_eq!(e, "/dev/zero: workload file larger than 16 MiB: not a workload file?");
    let dir = ScratchDir::new("input-limits");
    let big = dir.write("big.toml", &"#".repeat(catalog::MAX_INPUT_BYTES as usize + 1));
    assert!(catalog::machine(&big).unwrap_err().to_string().ends_with("machine file larger than 16 MiB: not a machine file?"));
    let path = dir.path().join("latin1.toml");
    std::fs::write(&path, b"name = \"w\"\n# caf\xe9\n").unwrap();
    let path = path.to_str().unwrap();
    assert_eq!(catalog::workload(path).unwrap_err().to_string(), format!("{path}: line 2: not UTF-8 text (byte 16)"));
}

#[test]
fn a_slice_outside_linuxs_range_is_refused_not_run_for_ever() {
    for (ms, shown) in [(1e-4, "0.0001"), (2e13, "20000000000000"), (f64::NAN, "NaN"), (0.0, "0")] {
        let e = Experiment::new("2fc-2sc-amd", "forkjoin", Settings { slice_ms: ms, ..Settings::default() }).err().expect("refused").to_string();
        assert_eq!(e, format!("--slice-ms: must be from 0.1 to 100 ms (Linux's range for a slice), got {shown}"));
    }
    assert!(Experiment::new("2fc-2sc-amd", "forkjoin", Settings { slice_ms: 100.0, ..Settings::default() }).is_ok());
}

#[test]
fn duplicate_app_and_group_names_are_refused_as_core_type_names_are() {
    let phase = "[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\ncpi = 1.0\n";
    let app = |name: &str, extra: &str| format!("[[app]]\nname = \"{name}\"\n{extra}{phase}");
    let dup_a = "duplicate app name 'a' (give `copies` for several of one app)";
    assert_eq!(workload_err(&format!("{}{}", app("a", ""), app("a", ""))), format!("w.toml: app[1].name: {dup_a}"));
    // Copies are named a#1, a#2: another app named a would be mistaken for them.
    assert_eq!(workload_err(&format!("{}{}", app("a", "copies = 2\n"), app("a", ""))), format!("w.toml: app[1].name: {dup_a}"));
    assert!(Workload::from_toml("w.toml", &format!("{}{}", app("a", "copies = 2\n"), app("b", "")), &Programs::new()).is_ok());
    let group = |name: &str| format!("[[app.group]]\nname = \"{name}\"\n[[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e6\ncpi = 1.0\n");
    assert_eq!(
        workload_err(&format!("[[app]]\nname = \"a\"\n{}{}", group("g"), group("g"))),
        "w.toml: app[0].group[1].name: duplicate group name 'g' in this app"
    );
}

/// A machine of two fast and two slow cores, the slow ones' key `slow` given.
fn machine_with_slow(slow: &str) -> String {
    format!("memory_latency_ns = 100\n[[core_type]]\nname = \"fast\"\ncount = 2\nfreq_ghz = 2.0\n[[core_type]]\nname = \"slow\"\ncount = 2\n{slow}\n")
}

#[test]
fn every_size_and_time_has_a_documented_range() {
    // The reproducers: each once accepted, then overflowed or saturated into a wrong result.
    let slow = |kv: &str| machine_err(&machine_with_slow(kv));
    assert_eq!(slow("freq_ghz = 1e-11"), "m.toml: core_type[1].freq_ghz: must be from 0.01 to 100 GHz, got 1e-11");
    assert_eq!(machine_err(&format!("{GOOD_MACHINE}[migration]\ncost_us = 1e17\n")), "m.toml: migration.cost_us: must be from 0 to 1000000 µs, got 1e17");
    assert_eq!(
        machine_err("memory_latency_ns = 1e308\n[[core_type]]\nname = \"a\"\ncount = 1\nfreq_ghz = 1\n"),
        "m.toml: memory_latency_ns: must be greater than 0 and at most 1000000 ns, got 1e308"
    );
    assert_eq!(
        machine_err("memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = 2147483648\nfreq_ghz = 1\n"),
        "m.toml: core_type[0].count: must be a whole number from 1 to 8192, got 2147483648"
    );
    let phase = |kv: &str| workload_err(&format!("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n{kv}\n"));
    assert_eq!(phase("cpi = 1e308"), "w.toml: app[0].phase[0].cpi: must be from 0.01 to 1000, got 1e308");
    assert_eq!(phase("llc_mpki = 1e308"), "w.toml: app[0].phase[0].llc_mpki: must be from 0 to 1000, got 1e308");
    assert_eq!(
        workload_err("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e308\n"),
        "w.toml: app[0].phase[0].instructions: must be greater than 0 and at most 1e15, got 1e308"
    );
    let app = |kv: &str| workload_err(&format!("[[app]]\nname = \"a\"\n{kv}\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n"));
    assert_eq!(app("arrival_s = 1e308"), "w.toml: app[0].arrival_s: must be from 0 to 1000000 s, got 1e308");
    assert_eq!(app("threads = 10000000"), "w.toml: app[0].threads: must be a whole number from 1 to 262144, got 10000000");
    assert_eq!(app("copies = 4294967295"), "w.toml: app[0].copies: must be a whole number from 1 to 262144, got 4294967295");
    assert_eq!(app("runs = 4294967295"), "w.toml: app[0].runs: must be a whole number from 1 to 1000000, got 4294967295");
}

#[test]
fn counts_are_checked_as_a_product_before_anything_is_made() {
    // Each count is within its range; together they pass the thread limit (2^18).
    let app = |name: &str, kv: &str| format!("[[app]]\nname = \"{name}\"\n{kv}\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n");
    assert_eq!(
        workload_err(&app("a", "threads = 256\ncopies = 1028")),
        "w.toml: app[0].copies: brings the workload to 263168 threads; at most 262144 are supported"
    );
    assert_eq!(
        workload_err(&format!("{}{}", app("a", "threads = 262144"), app("b", ""))),
        "w.toml: app[1].threads: brings the workload to 262145 threads; at most 262144 are supported"
    );
    let w = Workload::from_toml("w.toml", &app("a", "threads = 256\ncopies = 1024"), &Programs::new()).unwrap();
    assert_eq!(w.total_threads(), 1 << 18);
    // Two phases repeated 2^31 times pass the 32-bit step count.
    let two = "[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n";
    assert_eq!(
        workload_err(&format!("[[app]]\nname = \"a\"\nrepeat = 2147483648\n{two}{two}")),
        "w.toml: app[0].repeat: 2 phases repeated 2147483648 times make 4294967296 steps; at most 4294967295 are supported"
    );
}

#[test]
fn a_long_value_is_cut_on_the_error_line() {
    let long = "z".repeat(10_000);
    let e = workload_err(&format!("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"{long}\"\n"));
    assert!(e.len() < 500, "{e}");
    assert!(e.starts_with("w.toml: app[0].phase[0].kind: unknown phase kind 'zzz") && e.contains("(9874 more chars)"), "{e}");
}

fn run_with(workload: &str, settings: Settings) -> Result<serde_json::Value, String> {
    let dir = ScratchDir::new("budget");
    let w = dir.write("w.toml", workload);
    let mut e = Experiment::new("2fc-2sc-amd", &w, settings).map_err(|e| e.to_string())?;
    e.run("oblivious").map_err(|e| e.to_string().replace(&w, "w.toml"))
}

#[test]
fn a_run_past_its_simulated_time_budget_is_an_error_naming_the_option() {
    // 1e12 instructions at CPI 1 on a 2.6 GHz core: about 385 s; a 100 s budget stops it.
    let w = "[[app]]\nname = \"long\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e12\n";
    let e = run_with(w, Settings { max_sim_s: 100.0, ..Settings::default() }).unwrap_err();
    assert!(e.starts_with("w.toml: the solo reference run of long passed its budget: 100 s of simulated time (--max-sim-s) went by, stopped at t=100."), "{e}");
    assert!(e.ends_with("with 1 of 1 apps unfinished ('long'); raise the budget if the run is meant to be this long"), "{e}");
    assert!(run_with(w, Settings { max_sim_s: 1000.0, ..Settings::default() }).is_ok());
    for bad in [0.0, -1.0, 2e9, f64::NAN] {
        let e = run_with(w, Settings { max_sim_s: bad, ..Settings::default() }).unwrap_err();
        assert!(e.starts_with("--max-sim-s: must be greater than 0 and at most 1e9 s, got"), "{e}");
    }
}

#[test]
fn idle_stretches_cost_no_events() {
    // An app that arrives after 1e6 s of nothing: before, ~200 events per idle simulated
    // second (balancing every 10 ms, and the policy's quantum); now a few for the whole wait.
    let w = "[[app]]\nname = \"late\"\narrival_s = 1e6\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\n";
    let r = run_with(w, Settings::default()).unwrap();
    assert!(r["events"].as_u64().unwrap() < 50, "{}", r["events"]);
    let turnaround = r["apps"][0]["turnaround_s"].as_f64().unwrap();
    assert!(turnaround > 0.0 && turnaround < 0.01, "{turnaround}");
}

#[test]
fn a_phase_longer_than_u64_nanoseconds_runs_into_the_budget_not_a_wrapped_clock() {
    // 1e15 instructions at CPI 1000 on a 10 MHz core: 1e23 ns, past u64. Once this
    // saturated and wrapped the clock into a makespan of milliseconds.
    let m = "memory_latency_ns = 100\n[[core_type]]\nname = \"slow\"\ncount = 1\nfreq_ghz = 0.01\n";
    let w = "[[app]]\nname = \"huge\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e15\ncpi = 1000\n";
    let m = Machine::from_toml("m", m).unwrap();
    let w = Workload::from_toml("w", w, &Programs::new()).unwrap();
    let cfg = SimConfig { max_sim_ns: 10_000_000_000, ..SimConfig::default() };
    let e = Engine::new(&m, &w, &SimpleModel, &mut Oblivious, cfg).run().unwrap_err();
    assert!(matches!(e, SimError::OverBudget(_)), "{e:?}");
}

#[test]
fn threads_created_over_a_run_are_bounded_too() {
    // Every run creates its threads anew: 2^18 threads run 5 times would be 2^20 + 2^18.
    let app = "[[app]]\nname = \"a\"\nthreads = 262144\nruns = 5\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1\n";
    assert_eq!(workload_err(app), "w.toml: app[0].runs: brings the threads a run creates (threads × runs, per-phase workers counted at each phase) to 1310720; at most 1048576 are supported");
    // Per-phase workers are created anew at each parallel phase: 1000 threads, 600 times
    // (compute, serial) make 1 + 999 × 600 = 599401 a run, two runs 1198802.
    let app = "[[app]]\nname = \"a\"\nthreads = 1000\nruns = 2\nrepeat = 600\nworkers = \"per_phase\"\n\
               [[app.phase]]\nkind = \"compute\"\ninstructions = 1\n[[app.phase]]\nkind = \"serial\"\ninstructions = 1\n";
    assert_eq!(workload_err(app), "w.toml: app[0].runs: brings the threads a run creates (threads × runs, per-phase workers counted at each phase) to 1198802; at most 1048576 are supported");
    // Constant-load restarts are not known ahead: a short app beside a long one restarts
    // without end, and the run stops when it has created its most threads.
    let w = "constant_load = true\n\
             [[app]]\nname = \"short\"\nthreads = 4\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\n\
             [[app]]\nname = \"long\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e12\n";
    let m = Machine::from_toml("m", GOOD_MACHINE).unwrap();
    let w = Workload::from_toml("w", w, &Programs::new()).unwrap();
    let cfg = SimConfig { max_threads_spawned: 100, ..SimConfig::default() };
    let SimError::OverBudget(msg) = Engine::new(&m, &w, &SimpleModel, &mut Oblivious, cfg).run().unwrap_err() else { panic!() };
    // Checked before a run's threads are made (issue 23: the check came after, and the tables
    // had grown past the bound, by a doubling, when it stopped the run): the long app's thread
    // and 24 runs of 4 make 97, and the 25th run, which would make 101, is not started.
    assert!(
        msg.starts_with(
            "the run passed its budget: 97 threads were created, runs and restarts counted, and the next run of 'short' would create 4 more, past the most a run may create (100), stopped at t="
        ),
        "{msg}"
    );
    assert!(msg.contains("with 1 of 2 apps unfinished ('long')") && !msg.contains('\n'), "{msg}");
}

/// Two apps, each with a solo reference of its own, for the budget's tests.
const TWO_APPS: &str = "[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e9\n\
                        [[app]]\nname = \"b\"\nthreads = 2\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n";

#[test]
fn the_event_budget_bounds_the_whole_command() {
    // Issue 23: each simulation had the whole budget, so a command of k simulations could run k
    // budgets' worth. Now the solo references and every policy of a comparison draw from one.
    let dir = ScratchDir::new("budget-command");
    let path = dir.write("w.toml", TWO_APPS);
    let m = ampsched_runner::catalog::machine("2fc-2sc-amd").unwrap();
    let w = ampsched_runner::catalog::workload(&path).unwrap();
    // The solo references' events, simulated as the runner does: each app alone on the all-fast
    // machine under oblivious.
    let fast = m.all_fast();
    let solo: u64 = (0..2).map(|i| Engine::new(&fast, &w.solo(i), &SimpleModel, &mut Oblivious, SimConfig::default()).run().unwrap().events).sum();
    let policies = ["oblivious".to_string(), "static".to_string()];
    let compare_with = |max_events: u64| {
        let mut e = Experiment::new("2fc-2sc-amd", &path, Settings { max_events, ..Settings::default() }).unwrap();
        ampsched_runner::compare(&mut e, &policies, None, &mut |_, _, _| true).map_err(|e| e.to_string().replace(&path, "w.toml"))
    };
    let r = compare_with(limits::DEFAULT_MAX_EVENTS).unwrap();
    let runs: Vec<u64> = r.as_array().unwrap().iter().map(|x| x["events"].as_u64().unwrap()).collect();
    let total = solo + runs[0] + runs[1];
    // Exactly the command's events pass; one fewer stops the last run, which the earlier ones
    // left one event short (before, each run had 1 event fewer than the total, which they all
    // fitted in).
    assert_eq!(compare_with(total).unwrap(), r, "the same results within the budget");
    let e = compare_with(total - 1).unwrap_err();
    let head = format!(
        "w.toml: the run of static passed its budget: {} events (--max-events, one budget for every simulation of the command) went by, {} of them in its earlier simulations, stopped at t=",
        total - 1,
        solo + runs[0]
    );
    assert!(e.starts_with(&head), "{e}\nexpected: {head}");
    assert!(runs[1] > 1 && total - 1 > runs[0].max(runs[1]) + solo / 2, "each run alone fits the budget: {runs:?} {solo}");
}

#[test]
fn a_budget_error_names_the_simulation_that_passed_it() {
    // Issue 23: the error said "1 of 1 apps unfinished" of a workload of six: it was a solo
    // reference run, and did not say so.
    let e = run_with(TWO_APPS, Settings { max_events: 50, ..Settings::default() }).unwrap_err();
    assert!(e.starts_with("w.toml: the solo reference run of a passed its budget: 50 events (--max-events) went by, stopped at t="), "{e}");
    assert!(e.ends_with("with 1 of 1 apps unfinished ('a'); raise the budget if the run is meant to be this long"), "{e}");
    // a's 2e9 instructions take 0.77 s at 2.6 GHz, b's 0.38 s: 0.6 s stops a's reference.
    let e = run_with(TWO_APPS, Settings { max_sim_s: 0.6, ..Settings::default() }).unwrap_err();
    assert!(e.starts_with("w.toml: the solo reference run of a passed its budget: 0.6 s of simulated time (--max-sim-s) went by"), "{e}");
}
