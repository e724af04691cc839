//! Bad input gets one clear line naming the file, the key and the problem; an unfinishable
//! workload is reported, never a hang.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, SimpleModel, Workload};
use ampsched_policy::baseline::oblivious::Oblivious;
use ampsched_runner::{Experiment, Settings};
use ampsched_sim::{Engine, SimConfig, SimError};

mod common;
use common::ScratchDir;

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
        "m.toml: core_type[0].count: must be a whole number of at least 1, got 0"
    );
    assert_eq!(
        machine_err("memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = 1\nfreq_ghz = -2\n"),
        "m.toml: core_type[0].freq_ghz: must be greater than 0, got -2"
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
    assert_eq!(
        machine_err(&types(limit, 1)),
        format!("m.toml: core_type[1].count: brings the machine to {} cores; at most {limit} are supported", limit + 1)
    );
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
        "w.toml: app[0].phase[0].kind: unknown phase kind 'dance' (expected compute, serial, barrier, critical or sleep)"
    );
    assert_eq!(
        workload_err("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = -5\n"),
        "w.toml: app[0].phase[0].instructions: must be greater than 0, got -5"
    );
    assert_eq!(workload_err("[[app]]\nname = \"a\"\nthreads = 0\nprogram = \"x\"\n"), "w.toml: app[0].threads: must be a whole number of at least 1, got 0");
    assert!(workload_err("[[app]]\nname = \"a\"\nprogram = \"nope\"\n").starts_with("w.toml: app[0].program: unknown program 'nope'"));
    assert!(workload_err("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"barrier\"\ninstructions = 5\n")
        .starts_with("w.toml: app[0].phase[0].instructions: unknown key"));
    assert_eq!(
        workload_err("[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"barrier\"\nwait = \"spin_then_block\"\n"),
        "w.toml: app[0].phase[0].spin_limit_us: wait = \"spin_then_block\" needs spin_limit_us"
    );
    assert_eq!(workload_err("name = \"x\"\n"), "w.toml: app: a workload needs at least one [[app]]");
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
    assert_eq!(run("dvfs-2x", "demo", "rr:speed=3"), "--policy: rr:speed=3: unknown option 'speed' (rr takes: quantum_ms, threshold_ms)");
    assert_eq!(run("dvfs-2x", "demo", "rr:threshold_ms=-1"), "--policy: rr:threshold_ms=-1: option 'threshold_ms' must be a number > 0, got '-1'");
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
    assert_eq!(machine_err("memory_latency_ns = nan\n[[core_type]]\nname = \"a\"\ncount = 1\nfreq_ghz = 1\n"), "m.toml: memory_latency_ns: must be finite, got NaN");
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
