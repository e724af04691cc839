//! Memory bandwidth (`[memory]`, `ampsched_model::bandwidth`): the engine gives the closed
//! form's time per instruction, re-rates co-runners as demand changes, and leaves a machine
//! without a bandwidth as it was.

use ampsched_model::bandwidth::solve;
use ampsched_model::workload::Programs;
use ampsched_model::{Machine, MemoryBandwidth, Policy, SimpleModel, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_runner::catalog;
use ampsched_sim::{Engine, RunResult, SimConfig};

/// 2 cores at 1 GHz, 100 ns misses, and `memory` (top-level keys and tables: a `[memory]`, or nothing).
fn machine(memory: &str) -> Machine {
    Machine::from_toml("m.toml", &format!("memory_latency_ns = 100\n{memory}\n[[core_type]]\nname = \"c\"\ncount = 2\nfreq_ghz = 1.0\n")).unwrap()
}

/// `n` single-thread apps of 1e6 instructions at CPI 1 with 100 misses per 1000 instructions:
/// 1 + 0.1 × 100 = 11 ns per instruction on an idle memory.
fn streaming(n: usize) -> Workload {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("[[app]]\nname = \"s{i}\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\ncpi = 1.0\nllc_mpki = 100\n"));
    }
    Workload::from_toml("w.toml", &s, &Programs::new()).unwrap()
}

fn simulate(m: &Machine, w: &Workload, policy: &str, rate_cache: bool) -> RunResult {
    let mut p: Box<dyn Policy> = build(&PolicySpec::parse(policy).unwrap(), m).unwrap();
    Engine::new(m, w, &SimpleModel, p.as_mut(), SimConfig { rate_cache, ..SimConfig::default() }).run().unwrap()
}

const SLOW_MEMORY: &str = "[memory]\nbandwidth_gbps = 1.28\n";

#[test]
fn two_streaming_threads_run_at_the_closed_form() {
    // Closed form (ampsched_model::bandwidth): S = 64 / 1.28 = 50 ns, c = 2 × 0.1 × 64 / 1.28 =
    // 10 ns, x = (11 + 10 + √((11 − 10)² + 2 × 0.1 × 10 × 50)) / 2 = (21 + √101) / 2
    // = 15.52493781 ns per instruction: 15,524,938 ns for 1e6 instructions.
    let r = simulate(&machine(SLOW_MEMORY), &streaming(2), "oblivious", true);
    for t in &r.threads {
        let c = &t.per_type[0];
        assert!((c.time_ns as f64 - 15_524_937.8).abs() <= 2.0, "time {} ns", c.time_ns);
        assert!((c.instructions - 1e6).abs() < 1e-6);
        // Misses are those of the program; cycles count the loaded stalls (time × 1 GHz).
        assert!((c.llc_misses - 1e5).abs() < 1e-6, "misses {}", c.llc_misses);
        assert!((c.cycles - c.time_ns as f64).abs() < 1e-6);
    }
    // Alone: c = 5, x = (16 + √(36 + 50)) / 2 = 12.63680925 ns.
    let r = simulate(&machine(SLOW_MEMORY), &streaming(1), "oblivious", true);
    assert!((r.threads[0].per_type[0].time_ns as f64 - 12_636_809.25).abs() <= 2.0, "{}", r.threads[0].per_type[0].time_ns);
    // The solver agrees: the same machine's numbers through `solve`.
    let bw = MemoryBandwidth { bandwidth_gbps: 1.28, line_bytes: 64.0 };
    let (_, w) = solve(&bw, |w| 2.0 * 0.1 / (11.0 + 0.1 * w) * 64.0);
    assert!((11.0 + 0.1 * w - 15.524_937_81).abs() < 1e-8);
}

#[test]
fn each_memory_node_has_its_own_controller() {
    // The same two threads with a [[numa]] node per core: each thread's memory is on its own
    // core's node (first touch), so each controller serves one thread, at the one-thread rate
    // of 12.63680925 ns per instruction, not the shared 15.52.
    let numa = format!("remote_memory_latency_ns = 150\n{SLOW_MEMORY}[[numa]]\ncores = [0]\n[[numa]]\ncores = [1]\n");
    let r = simulate(&machine(&numa), &streaming(2), "oblivious", true);
    for t in &r.threads {
        assert_eq!(t.migrations, 0);
        assert!((t.per_type[0].time_ns as f64 - 12_636_809.25).abs() <= 2.0, "{}", t.per_type[0].time_ns);
    }
}

#[test]
fn a_machine_without_bandwidth_is_unchanged() {
    // 11 ns per instruction whoever runs beside.
    let r = simulate(&machine(""), &streaming(2), "oblivious", true);
    for t in &r.threads {
        assert_eq!(t.per_type[0].time_ns, 11_000_000);
    }
}

#[test]
fn a_thread_that_leaves_speeds_up_the_other() {
    // Three threads on two cores: while two run, each is at the two-thread rate; the one left
    // alone at the end runs at the one-thread rate. So the makespan lies strictly between all
    // three at the two-thread rate (3 × 15.52 / 2 = 23.3 ms) and the time the same work would
    // take if the third ran alone at its solo rate after the first two (15.52 + 12.64 = 28.2 ms).
    let r = simulate(&machine(SLOW_MEMORY), &streaming(3), "oblivious", true);
    let total: u64 = r.threads.iter().map(|t| t.per_type[0].time_ns).sum();
    // CPU time = instructions × the rate each ran at: between 3 × 12.64 and 3 × 15.52 ms.
    assert!(total > 3 * 12_636_809 && total < 3 * 15_524_938 + 10, "total CPU time {total}");
    assert!(r.makespan_ns > 23_287_406 && r.makespan_ns < 28_161_748, "makespan {}", r.makespan_ns);
}

#[test]
fn runs_with_bandwidth_are_deterministic_and_the_rate_cache_keeps_them() {
    let (m, w) = (machine(SLOW_MEMORY), streaming(5));
    let a = format!("{:?}", simulate(&m, &w, "rr", true));
    assert_eq!(a, format!("{:?}", simulate(&m, &w, "rr", true)));
    assert!(a == format!("{:?}", simulate(&m, &w, "rr", false)), "the rate cache changed a run with bandwidth");
}

/// The catalog machine `name`'s TOML, with its `[memory]` table or without it.
fn catalog_machine(name: &str, with_memory: bool) -> Machine {
    let text = catalog::MACHINES.iter().find(|(n, _)| *n == name).unwrap().1;
    let text = if with_memory { text.to_string() } else { text.split("\n[memory]").next().unwrap().to_string() };
    let m = Machine::from_toml(name, &text).unwrap();
    assert_eq!(m.memory_bandwidth.is_some(), with_memory, "{name} states a bandwidth");
    m
}

/// Mean turnaround of `copies` copies of catalog program `program` on `m`, s.
fn mean_turnaround_s(m: &Machine, program: &str, copies: u32) -> f64 {
    let w =
        Workload::from_toml("w.toml", &format!("[[app]]\nname = \"p\"\nprogram = \"{program}\"\ncopies = {copies}\n"), &catalog::programs().unwrap()).unwrap();
    let r = simulate(m, &w, "oblivious", true);
    let all: Vec<u64> = r.apps.iter().flat_map(|a| a.turnarounds_ns.iter().copied()).collect();
    all.iter().sum::<u64>() as f64 / all.len() as f64 / 1e9
}

#[test]
fn streaming_programs_slow_each_other_down() {
    // The catalog's streaming programs (SPEC CPU2006 libquantum, lbm, milc; CPU2000 swim, applu)
    // on the Exynos 5422, against the same machine without a stated bandwidth, so that the LLC's
    // sharing is the same on both sides: alone, a program pays a little for its own queue; four
    // copies pay more, and eight more still. At the Exynos's 14.9 GB/s the loss is small (a
    // copy on a big core asks ~0.3 GB/s: the thesis's model stalls on each miss in turn, with no overlap or
    // prefetch to raise its demand); with the memory of one 32-bit LPDDR2-800 channel (3.2 GB/s)
    // eight copies ask most of it, and lose several percent.
    let without = catalog_machine("exynos5422", false);
    let with = catalog_machine("exynos5422", true);
    let mut narrow = with.clone();
    narrow.memory_bandwidth = Some(MemoryBandwidth { bandwidth_gbps: 3.2, line_bytes: 64.0 });
    for program in ["libquantum", "lbm", "milc", "swim", "applu"] {
        let base: Vec<f64> = [1, 4, 8].iter().map(|&n| mean_turnaround_s(&without, program, n)).collect();
        for (m, least) in [(&with, 1.0002), (&narrow, 1.02)] {
            let slowdown: Vec<f64> = [1, 4, 8].iter().zip(&base).map(|(&n, b)| mean_turnaround_s(m, program, n) / b).collect();
            let gbps = m.memory_bandwidth.unwrap().bandwidth_gbps;
            eprintln!("{program} at {gbps} GB/s: slowdown from bandwidth with 1, 4, 8 copies {slowdown:.5?}");
            assert!(slowdown[0] >= 1.0 && slowdown[1] > slowdown[0] && slowdown[2] > slowdown[1], "{program} at {gbps} GB/s: {slowdown:?}");
            assert!(slowdown[2] > least, "{program} at {gbps} GB/s: eight copies lose only {}", slowdown[2]);
        }
    }
}

#[test]
fn memory_keys_are_checked_with_one_line_errors() {
    let err = |memory: &str| {
        Machine::from_toml("m.toml", &format!("memory_latency_ns = 100\n{memory}\n[[core_type]]\nname = \"c\"\ncount = 1\nfreq_ghz = 1\n"))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(err("[memory]\nline_bytes = 64\n"), "m.toml: memory.bandwidth_gbps: missing required key");
    assert_eq!(err("[memory]\nbandwidth_gbps = 0\n"), "m.toml: memory.bandwidth_gbps: must be from 0.01 to 100000 GB/s, got 0");
    assert_eq!(err("[memory]\nbandwidth_gbps = 10\nline_bytes = 4096\n"), "m.toml: memory.line_bytes: must be from 8 to 1024 B, got 4096");
    assert!(err("[memory]\nbandwidth_gbps = 10\nchannels = 2\n").starts_with("m.toml: memory"), "{}", err("[memory]\nbandwidth_gbps = 10\nchannels = 2\n"));
    assert!(err("memory = 3\n").starts_with("m.toml: memory: expected a table"));
    let m = machine("[memory]\nbandwidth_gbps = 12.8\n");
    assert_eq!(m.memory_bandwidth, Some(MemoryBandwidth { bandwidth_gbps: 12.8, line_bytes: 64.0 }));
}
