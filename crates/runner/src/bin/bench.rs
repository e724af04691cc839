//! The simulator's reference benchmark (see bench/README.md): 16 cores (4 fast + 12 slow),
//! 16 apps × 4 CPU-bound threads, about 600 simulated seconds, 4 ms slice, `oblivious`, no
//! trace; then the same machine with 64, 1 024 and 16 384 threads, same total work, to show
//! how the cost per event grows with the number of threads.
//!
//! Then the policy-heavy case: 4,096 and 16,384 threads under `oblivious`, `busyfcs` and `rr`,
//! which ask for every thread event (rr also for a 10 ms quantum): a policy's cost must follow
//! what changed, not the number of threads (target: rr and busyfcs at most 2× oblivious).
//!
//! Usage: ampsched-bench [--quick] [--repeat N] [--policy-heavy]
//! (`--policy-heavy`: only the policy-heavy case.)

use std::time::Instant;

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, SimpleModel, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_sim::{Engine, SimConfig};

const MACHINE: &str = r#"
name = "bench-4f12s"
memory_latency_ns = 100.0
[[core_type]]
name = "fast"
count = 4
freq_ghz = 2.0
power_active_w = 10.0
power_idle_w = 2.0
[[core_type]]
name = "slow"
count = 12
freq_ghz = 1.0
power_active_w = 2.0
power_idle_w = 0.5
"#;

/// Instructions per thread for 64 threads: total work 64 × 1.8e11 on a machine retiring 2e10
/// instructions/s is 576 s if perfectly balanced; oblivious balancing lands near 600 s.
const WORK_64: f64 = 1.8e11;

fn workload(threads: u32) -> Workload {
    let apps = 16;
    let per_app = threads / apps;
    let instr = WORK_64 * 64.0 / threads as f64;
    let mut text = String::from("name = \"bench\"\n");
    for a in 0..apps {
        text.push_str(&format!(
            "[[app]]\nname = \"a{a}\"\nthreads = {per_app}\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instr:e}\ncpi = 1.0\n"
        ));
    }
    Workload::from_toml("bench", &text, &Programs::new()).expect("bench workload is valid")
}

/// Best-of-`repeat` wall time of one run, with its events and simulated seconds.
fn time_run(m: &Machine, w: &Workload, policy: &str, repeat: usize) -> (f64, u64, f64, u64, u64) {
    let spec = PolicySpec::parse(policy).expect("bench policy spec");
    let mut best = f64::MAX;
    let (mut events, mut sim_s, mut calls, mut decisions) = (0, 0.0, 0, 0);
    for _ in 0..repeat {
        let mut p = build(&spec, m).expect("bench policy builds");
        let t0 = Instant::now();
        let r = Engine::new(m, w, &SimpleModel, p.as_mut(), SimConfig::default()).run().expect("bench runs");
        best = best.min(t0.elapsed().as_secs_f64());
        events = r.events;
        sim_s = r.makespan_ns as f64 / 1e9;
        calls = r.policy_calls;
        decisions = r.decisions;
    }
    (best, events, sim_s, calls, decisions)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let repeat: usize = args.iter().position(|a| a == "--repeat").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(3);
    let quick = args.iter().any(|a| a == "--quick");
    let policy_heavy_only = args.iter().any(|a| a == "--policy-heavy");
    let m = Machine::from_toml("bench", MACHINE).expect("bench machine is valid");
    if !policy_heavy_only {
        scaling(&m, quick, repeat);
    }
    let sizes: &[u32] = if quick { &[256] } else { &[4096, 16384] };
    for &n in sizes {
        policy_heavy(&m, n, repeat);
    }
}

/// The reference scenario and its thread-count scaling, under `oblivious`.
fn scaling(m: &Machine, quick: bool, repeat: usize) {
    let sizes: &[u32] = if quick { &[64] } else { &[64, 1024, 16384] };
    println!("| threads | simulated s | events | wall s (best of {repeat}) | events/s | simulated s per wall s | ns per event |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let w = workload(n);
        let (best, events, sim_s, _, _) = time_run(m, &w, "oblivious", repeat);
        println!(
            "| {n} | {sim_s:.1} | {events} | {best:.3} | {:.2e} | {:.0} | {:.1} |",
            events as f64 / best,
            sim_s / best,
            best * 1e9 / events as f64
        );
    }
}

/// The policies that ask for every thread event, against `oblivious` on the same workload.
fn policy_heavy(m: &Machine, n: u32, repeat: usize) {
    println!();
    println!("Policy-heavy case: {n} threads");
    println!();
    println!("| policy | events | policy calls | decisions | wall s (best of {repeat}) | × oblivious |");
    println!("|---|---:|---:|---:|---:|---:|");
    let w = workload(n);
    let mut base = 0.0;
    for policy in ["oblivious", "busyfcs", "rr"] {
        let (best, events, _, calls, decisions) = time_run(m, &w, policy, repeat);
        if policy == "oblivious" {
            base = best;
        }
        println!("| {policy} | {events} | {calls} | {decisions} | {best:.3} | {:.2} |", best / base);
    }
}
