//! The memory side, held against numbers derived by hand: a cache-hungry co-runner raises a
//! cache-sensitive thread's misses (FOA sharing of an LLC), a migration costs a cache-heavy
//! thread more than a light one (the refill of its footprint), and a thread away from its
//! memory node runs slower (remote latency).

use ampsched_model::workload::Programs;
use ampsched_model::{CoreSet, Machine, Trigger, Workload};
use ampsched_sim::RunResult;

use crate::common::{machine, simulate};

fn workload(text: &str) -> Workload {
    Workload::from_toml("test-workload", text, &Programs::new()).unwrap()
}

fn app(name: &str, instructions: f64, misses: &str) -> String {
    format!("[[app]]\nname = \"{name}\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions:e}\ncpi = 1.0\n{misses}\n")
}

/// Per thousand instructions, over its whole run.
fn mpki(r: &RunResult, t: usize) -> f64 {
    let (misses, instructions) = r.threads[t].per_type.iter().fold((0.0, 0.0), |(m, i), c| (m + c.llc_misses, i + c.instructions));
    misses / instructions * 1000.0
}

fn turnaround_ns(r: &RunResult, app: usize) -> u64 {
    r.apps[app].turnarounds_ns[0]
}

/// Two 2 GHz cores (CPI 1: 0.5 ns per instruction plus 0.1 ns per miss per thousand).
const TWO_CORES: &str = "[[core_type]]\nname = \"big\"\ncount = 2\nfreq_ghz = 2.0\n";

/// Misses 20 per thousand instructions with 256 KB or less, 2 with 2 MB or more.
const SENSITIVE: &str = "miss_curve = { size_kb = [256, 2048], mpki = [20, 2] }";

#[test]
fn a_cache_hungry_co_runner_raises_a_sensitive_threads_misses() {
    let shared = machine(&format!("{TWO_CORES}[[llc]]\nsize_kb = 2048\ncores = [0, 1]\n"));
    let private = machine(&format!("{TWO_CORES}[[llc]]\nsize_kb = 2048\ncores = [0]\n[[llc]]\nsize_kb = 2048\ncores = [1]\n"));
    let alone = workload(&app("sensitive", 1e9, SENSITIVE));
    let pair = workload(&(app("sensitive", 1e9, SENSITIVE) + &app("hungry", 2e10, "llc_mpki = 30")));
    let run = |m: &Machine, w: &Workload| simulate(m, w, None, |_, _| {});

    // Alone with the whole 2 MB: 2 misses per thousand, 0.5 + 0.2 = 0.7 ns per instruction.
    let r = run(&shared, &alone);
    assert!((mpki(&r, 0) - 2.0).abs() < 1e-9);
    assert_eq!(turnaround_ns(&r, 0), 700_000_000);

    // Beside the hungry thread (0.5 + 3.0 = 3.5 ns per instruction, 70 s: it outlives the
    // other), FOA shares the cache by access rate: 20/1000/0.7 against 30/1000/3.5 accesses
    // per ns, 10 : 3. The sensitive thread gets 2048 × 10/13 KB, and its curve, linear in
    // log2(size) from 256 KB to 2 MB, gives 20 - 18 × (log2(2048 × 10/13) - 8) / 3
    // = 2 - 6 log2(10/13) = 4.27107 misses per thousand: 0.5 + 0.427107 ns per instruction.
    let r = run(&shared, &pair);
    let expected_mpki = 2.0 - 6.0 * (10.0f64 / 13.0).log2();
    assert!((expected_mpki - 4.27107).abs() < 1e-5);
    assert!((mpki(&r, 0) - expected_mpki).abs() < 1e-9, "{}", mpki(&r, 0));
    let expected_ns = 1e9 * (0.5 + expected_mpki / 10.0);
    assert!((turnaround_ns(&r, 0) as f64 - expected_ns).abs() <= 1.0, "{} vs {expected_ns}", turnaround_ns(&r, 0));
    // The hungry thread's flat miss rate does not depend on what it gets.
    assert!((mpki(&r, 1) - 30.0).abs() < 1e-9);

    // Private LLCs: no competition, exactly as alone.
    let r = run(&private, &pair);
    assert!((mpki(&r, 0) - 2.0).abs() < 1e-9);
    assert_eq!(turnaround_ns(&r, 0), 700_000_000);
}

/// One thread alternating between two cores with private 2 MB LLCs every 100 ms. A 1 GHz
/// core: 1 ns per instruction plus 0.1 per miss per thousand; migrations cost 10 µs fixed.
fn ping_pong(misses: &str) -> RunResult {
    let m = machine(
        "[[core_type]]\nname = \"c\"\ncount = 2\nfreq_ghz = 1.0\n[[llc]]\nsize_kb = 2048\ncores = [0]\n[[llc]]\nsize_kb = 2048\ncores = [1]\n[migration]\ncost_us = 10.0\n",
    );
    let w = workload(&app("t", 1e9, misses));
    simulate(&m, &w, Some(100_000_000), |v, out| {
        let core = if v.trigger == Trigger::Quantum && v.threads[0].core == Some(0) { 1 } else { 0 };
        if !v.live.is_empty() {
            out.set(0, CoreSet::single(core));
        }
    })
}

#[test]
fn a_migration_costs_a_cache_heavy_thread_more_than_a_light_one() {
    // Both miss 2 per thousand with the whole 2 MB: 1e9 instructions at 1.2 ns, 1.2 s of work
    // whatever the migrations.
    let work_ns = 1_200_000_000u64;
    // Streaming (flat): nothing it had cached would have hit, so it refills nothing: 10 µs.
    let light = ping_pong("llc_mpki = 2");
    assert!(light.migrations >= 10, "{}", light.migrations);
    assert_eq!(turnaround_ns(&light, 0), work_ns + light.migrations * 10_000);
    assert!((mpki(&light, 0) - 2.0).abs() < 1e-9);

    // Cache-heavy: 20 accesses per thousand, 2 of them missing at 2 MB (a 90% hit rate), its
    // footprint the curve's knee, 2 MB. Each move refills 90% of 2 MB / 64 B = 29,491.2 lines,
    // 29,491 whole lines, at 100 ns: 2,949.1 µs.
    let heavy = ping_pong(SENSITIVE);
    assert!(heavy.migrations >= 10, "{}", heavy.migrations);
    assert_eq!(turnaround_ns(&heavy, 0), work_ns + heavy.migrations * (10_000 + 2_949_100));
    // The refill's misses are counted, as a counter would see them after a migration.
    let misses: f64 = heavy.threads[0].per_type.iter().map(|c| c.llc_misses).sum();
    assert!((misses - (2e6 + heavy.migrations as f64 * 29_491.0)).abs() < 1e-3, "{misses}");
    // An explicit footprint bounds the refill: 512 KB is a quarter of that.
    let small = ping_pong(&format!("{SENSITIVE}\nfootprint_kb = 512"));
    assert_eq!(turnaround_ns(&small, 0), work_ns + small.migrations * (10_000 + 737_200));
}

#[test]
fn a_thread_away_from_its_memory_node_runs_slower() {
    // Two 1 GHz cores, each its own memory node: 100 ns local, 150 ns remote; free migrations.
    let numa = machine(
        "remote_memory_latency_ns = 150.0\n[[core_type]]\nname = \"c\"\ncount = 2\nfreq_ghz = 1.0\n[[numa]]\ncores = [0]\n[[numa]]\ncores = [1]\n[migration]\ncost_us = 0.0\n",
    );
    // 10 misses per thousand: 1 + 1.0 = 2 ns per instruction at home, 1 + 1.5 = 2.5 away.
    let w = workload(&app("t", 1e9, "llc_mpki = 10"));
    let moved_at_100ms = |first: usize, then: usize| {
        simulate(&numa, &w, Some(100_000_000), move |v, out| {
            if !v.live.is_empty() {
                out.set(0, CoreSet::single(if v.trigger == Trigger::Quantum { then } else { first }));
            }
        })
    };
    // First touch on core 0's node; moved to core 1 after 100 ms (5e7 instructions), it runs
    // the other 9.5e8 remote: 100 ms + 2.375 s.
    let r = moved_at_100ms(0, 1);
    assert_eq!(r.migrations, 1);
    assert_eq!(turnaround_ns(&r, 0), 2_475_000_000);
    // Started on core 1, its memory is there: all local, 2 s.
    let r = moved_at_100ms(1, 1);
    assert_eq!(turnaround_ns(&r, 0), 2_000_000_000);
}

#[test]
fn machine_format_refuses_bad_numa_and_curves() {
    // Top-level keys, then tables after the core types.
    let err =
        |top: &str, tables: &str| Machine::from_toml("m.toml", &format!("memory_latency_ns = 100.0\n{top}\n{TWO_CORES}{tables}")).unwrap_err().to_string();
    let two_nodes = "[[numa]]\ncores = [0]\n[[numa]]\ncores = [1]\n";
    assert!(err("remote_memory_latency_ns = 150.0", "[[numa]]\ncores = [0]\n").contains("core 1 is in no [[numa]] node"));
    assert_eq!(err("", two_nodes), "m.toml: remote_memory_latency_ns: missing required key (the machine has [[numa]] nodes)");
    assert!(err("remote_memory_latency_ns = 150.0", "[[numa]]\ncores = [0]\n[[numa]]\ncores = [0, 1]\n").contains("core 0 is already in another [[numa]] node"));
    assert!(err("remote_memory_latency_ns = 90.0", two_nodes).contains("below memory_latency_ns"));
    assert!(err("", "[migration]\nllc_refill_us = 500.0\n").starts_with("m.toml: migration.llc_refill_us: no longer a machine key"));
    let werr = |misses: &str| Workload::from_toml("w.toml", &app("a", 1e9, misses), &Programs::new()).unwrap_err().to_string();
    assert!(werr("miss_curve = { size_kb = [512, 256], mpki = [5, 4] }").contains("size_kb[1]: sizes must increase"));
    assert!(werr("miss_curve = { size_kb = [256, 512], mpki = [4, 5] }").contains("mpki[1]: misses must not grow with size"));
    assert!(werr("miss_curve = { size_kb = [256, 512], mpki = [4] }").contains("has 1 values for 2 sizes"));
    assert!(werr("llc_mpki = 3\nmiss_curve = { size_kb = [256], mpki = [4] }").contains("either llc_mpki or miss_curve"));
}
