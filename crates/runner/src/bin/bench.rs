//! The simulator's reference benchmark (see bench/README.md): 16 cores (4 fast + 12 slow),
//! 16 apps × 4 CPU-bound threads, about 600 simulated seconds, 4 ms slice, `oblivious`, no
//! trace; then the same machine with 64, 1 024 and 16 384 threads, same total work, to show
//! how the cost per event grows with the number of threads; then a 1,024-core machine with
//! 4,096 threads. Each is set against the floor: a bare DES loop doing only what any simulator
//! of the scenario must do per event (`floor`).
//!
//! Times are the calling thread's CPU time (best of N), which a loaded machine disturbs far
//! less than wall time.
//!
//! Then the policy-heavy case: 4,096 and 16,384 threads under `oblivious`, `busyfcs` and `rr`,
//! which ask for every thread event (rr also for a 10 ms quantum): a policy's cost must follow
//! what changed, not the number of threads (target: rr and busyfcs at most 2× oblivious).
//!
//! The bandwidth case (`--bandwidth`, alone): the reference machine and workloads with misses
//! (`BANDWIDTH_MPKI`), without `[memory]` and with it (`BANDWIDTH_GBPS`): what solving the
//! memory controllers' queues and re-planning their threads at each change costs per event.
//!
//! The network case (`--noc`, alone): the mesh sub-engine alone (`ampsched_sim::noc`) on Table
//! 2's 8×8 mesh for `NOC_CYCLES` cycles: uniform-random traffic at loads a run's background
//! reaches, and miss-like traffic (1-flit requests answered by 8-flit lines), under round-robin
//! and OCOR: CPU time per simulated network cycle (docs/noc.md).
//!
//! Usage: ampsched-bench [--quick] [--repeat N] [--threads N] [--policy-heavy] [--bandwidth] [--noc]
//! (`--threads N`: only the scaling cases of N threads; `--policy-heavy`: only the policy-heavy case.)

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Signals, SimpleModel, Workload};
use ampsched_policy::{build, info, PolicySpec};
use ampsched_sim::{Engine, SimConfig};

/// The bench's machines: `fast` cores at 2 GHz and `slow` ones at 1 GHz. The reference has
/// 4 + 12; the large machine 256 + 768 (1,024 cores).
fn machine(fast: usize, slow: usize) -> Machine {
    machine_with(fast, slow, "")
}

/// The same with `extra` TOML at its end (a `[memory]` table).
fn machine_with(fast: usize, slow: usize, extra: &str) -> Machine {
    let kind = |name: &str, count: usize, ghz: f64, active: f64, idle: f64| {
        format!("[[core_type]]\nname = \"{name}\"\ncount = {count}\nfreq_ghz = {ghz}\npower_active_w = {active}\npower_idle_w = {idle}\n")
    };
    let text = format!(
        "name = \"bench-{fast}f{slow}s\"\nmemory_latency_ns = 100.0\n{}{}{extra}",
        kind("fast", fast, 2.0, 10.0, 2.0),
        kind("slow", slow, 1.0, 2.0, 0.5)
    );
    Machine::from_toml("bench", &text).expect("bench machine is valid")
}

/// The time slice of the scenario (the engine's default), for the floor loop.
const SLICE_NS: u64 = 4_000_000;

/// Instructions per thread for 64 threads: total work 64 × 1.8e11 on a machine retiring 2e10
/// instructions/s is 576 s if perfectly balanced; oblivious balancing lands near 600 s.
const WORK_64: f64 = 1.8e11;

/// 16 apps sharing the reference scenario's total work.
fn workload(threads: u32) -> Workload {
    workload_of(16, threads, WORK_64 * 64.0 / threads as f64)
}

/// 4,096 threads on the 1,024-core machine, about 9 simulated seconds: as many events as the
/// reference (1.28e12 instructions/s × 9 s / 4,096 threads).
fn big_workload() -> Workload {
    workload_of(64, 4096, 2.8e9)
}

fn workload_of(apps: u32, threads: u32, instr: f64) -> Workload {
    workload_missing(apps, threads, instr, 0.0)
}

/// The same, each instruction missing the LLC `mpki` times per thousand.
fn workload_missing(apps: u32, threads: u32, instr: f64, mpki: f64) -> Workload {
    workload_mpki(apps, threads, instr, |_| mpki)
}

/// The same, app `a`'s threads missing `mpki(a)` times per thousand instructions.
fn workload_mpki(apps: u32, threads: u32, instr: f64, mpki: impl Fn(u32) -> f64) -> Workload {
    let per_app = threads / apps;
    let mut text = String::from("name = \"bench\"\n");
    for a in 0..apps {
        let mpki = mpki(a);
        text.push_str(&format!(
            "[[app]]\nname = \"a{a}\"\nthreads = {per_app}\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instr:e}\ncpi = 1.0\nllc_mpki = {mpki}\n"
        ));
    }
    Workload::from_toml("bench", &text, &Programs::new()).expect("bench workload is valid")
}

/// CPU time of the calling thread, s.
fn cpu_s() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given, nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Best-of-`repeat` CPU time of `f`, and its last result.
fn best_of<T>(repeat: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..repeat.max(1) {
        let t0 = cpu_s();
        let r = f();
        best = best.min(cpu_s() - t0);
        last = Some(r);
    }
    (best, last.expect("at least one run"))
}

/// What one run did.
struct Run {
    events: u64,
    sim_s: f64,
    calls: u64,
    decisions: u64,
}

/// Best-of-`repeat` CPU time of one engine run.
fn time_run(m: &Machine, w: &Workload, policy: &str, repeat: usize) -> (f64, Run) {
    let spec = PolicySpec::parse(policy).expect("bench policy spec");
    best_of(repeat, || {
        let mut p = build(&spec, m).expect("bench policy builds");
        // As the runner configures a run: a policy that reads no counters is not shown them.
        let reads = ampsched_runner::reads(info(&spec.name).expect("a registered policy"));
        let cfg = SimConfig { policy_reads_counters: reads.contains(Signals::COUNTERS), ..SimConfig::default() };
        let r = Engine::new(m, w, &SimpleModel, p.as_mut(), cfg).run().expect("bench runs");
        Run { events: r.events, sim_s: r.makespan_ns as f64 / 1e9, calls: r.policy_calls, decisions: r.decisions }
    })
}

/// The floor: the work any discrete-event simulator of this scenario does per event, and
/// nothing else. Pop the next core event (a binary heap of (time, core)); requeue that core's
/// thread in the core's run queue (a binary heap ordered by (vruntime, arrival)) one slice
/// further on; take the queue's first thread; push the core's next event one slice later.
/// No accounting, no policy, no workload. Returns a checksum so the work cannot be optimised out.
fn floor(cores: usize, threads: usize, events: u64) -> u64 {
    let mut future: BinaryHeap<Reverse<(u64, u32)>> = (0..cores).map(|c| Reverse((SLICE_NS, c as u32))).collect();
    let mut queues: Vec<BinaryHeap<Reverse<(u64, u64, u32)>>> = vec![BinaryHeap::new(); cores];
    let mut running: Vec<(u64, u32)> = (0..cores).map(|c| (0, c as u32)).collect();
    let mut seq = 0;
    for t in cores..threads {
        seq += 1;
        queues[t % cores].push(Reverse((0, seq, t as u32)));
    }
    let mut checksum = 0u64;
    for _ in 0..events {
        let Reverse((now, c)) = future.pop().expect("every core has an event");
        let c = c as usize;
        let (vruntime, t) = running[c];
        seq += 1;
        queues[c].push(Reverse((vruntime + SLICE_NS, seq, t)));
        let Reverse((v, _, next)) = queues[c].pop().expect("the thread just queued");
        running[c] = (v, next);
        checksum = checksum.wrapping_add(next as u64);
        future.push(Reverse((now + SLICE_NS, c as u32)));
    }
    checksum
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let repeat: usize = args.iter().position(|a| a == "--repeat").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(3);
    let quick = args.iter().any(|a| a == "--quick");
    let only: Option<u32> = args.iter().position(|a| a == "--threads").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok());
    let policy_heavy_only = args.iter().any(|a| a == "--policy-heavy");
    if args.iter().any(|a| a == "--bandwidth") {
        bandwidth(quick, repeat);
        return;
    }
    if args.iter().any(|a| a == "--noc") {
        noc(quick, repeat);
        return;
    }
    let m = machine(4, 12);
    if !policy_heavy_only {
        scaling(&m, quick, repeat, only);
    }
    if only.is_some() {
        return;
    }
    let sizes: &[u32] = if quick { &[256] } else { &[4096, 16384] };
    for &n in sizes {
        policy_heavy(&m, n, repeat);
    }
}

/// The reference scenario, its thread-count scaling and the 1,024-core machine, under
/// `oblivious`, each against the floor.
fn scaling(m: &Machine, quick: bool, repeat: usize, only: Option<u32>) {
    let big = machine(256, 768);
    println!("| case | cores | threads | simulated s | events | CPU s (best of {repeat}) | events/s | ns per event | × floor |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut cases: Vec<(&str, &Machine, u32, fn() -> Workload)> = vec![("reference", m, 64, || workload(64))];
    if !quick {
        cases.push(("more threads", m, 1024, || workload(1024)));
        cases.push(("more threads", m, 16384, || workload(16384)));
        cases.push(("1,024 cores", &big, 4096, big_workload));
    }
    for (name, machine, n, make) in cases {
        if only.is_some_and(|o| o != n) {
            continue;
        }
        let w = make();
        let (cpu, run) = time_run(machine, &w, "oblivious", repeat);
        let cores = machine.num_cores();
        let (floor_cpu, _) = best_of(repeat, || std::hint::black_box(floor(cores, n as usize, run.events)));
        let ns = cpu * 1e9 / run.events as f64;
        println!(
            "| {name} | {cores} | {n} | {:.1} | {} | {cpu:.3} | {:.2e} | {ns:.1} | {:.1} |",
            run.sim_s,
            run.events,
            run.events as f64 / cpu,
            cpu / floor_cpu
        );
        if n == 64 {
            println!(
                "| floor (bare DES loop) | {cores} | {n} | | {} | {floor_cpu:.3} | {:.2e} | {:.1} | 1.0 |",
                run.events,
                run.events as f64 / floor_cpu,
                floor_cpu * 1e9 / run.events as f64
            );
        }
    }
}

/// The policies that ask for every thread event, against `oblivious` on the same workload.
fn policy_heavy(m: &Machine, n: u32, repeat: usize) {
    println!();
    println!("Policy-heavy case: {n} threads");
    println!();
    println!("| policy | events | policy calls | decisions | CPU s (best of {repeat}) | × oblivious |");
    println!("|---|---:|---:|---:|---:|---:|");
    let w = workload(n);
    let mut base = 0.0;
    for policy in ["oblivious", "busyfcs", "rr"] {
        let (cpu, run) = time_run(m, &w, policy, repeat);
        if policy == "oblivious" {
            base = cpu;
        }
        println!("| {policy} | {} | {} | {} | {cpu:.3} | {:.2} |", run.events, run.calls, run.decisions, cpu / base);
    }
}

/// Misses per thousand instructions of the bandwidth case's threads: a memory-bound program
/// (the catalog's streaming ones miss 6 to 9 times per thousand).
const BANDWIDTH_MPKI: f64 = 10.0;
/// The bandwidth case's controller: 12.8 GB/s, one DDR4-1600 channel, which the 16 cores'
/// threads load to about 40% (at 10 MPKI and 100 ns, 4 fast threads of 1.5 ns per instruction and
/// 12 slow of 2 ns ask 64 B × (4 × 0.01 / 1.5 + 12 × 0.01 / 2) per ns = 5.5 GB/s).
const BANDWIDTH_GBPS: f64 = 12.8;

/// The reference scenario and its 1,024-thread version with misses, without and with a stated
/// bandwidth: the cost of the controllers' queues per event.
fn bandwidth(quick: bool, repeat: usize) {
    let plain = machine(4, 12);
    let with = machine_with(4, 12, &format!("[memory]\nbandwidth_gbps = {BANDWIDTH_GBPS}\n"));
    println!("Bandwidth case: {BANDWIDTH_MPKI} MPKI, without [memory] and with {BANDWIDTH_GBPS} GB/s");
    println!();
    // CPU time, not time per event, is what compares: a re-plan at a slice end that another
    // core's event reaches first handles that core's switch in the same event, so a run with
    // the queues has fewer events for the same work.
    println!("| machine | threads | simulated s | events | CPU s (best of {repeat}) | ns per event | CPU × without |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let sizes: &[u32] = if quick { &[64] } else { &[64, 1024] };
    for (&n, mixed) in sizes.iter().flat_map(|n| [(n, false), (n, true)]) {
        // A tenth of the reference's instructions: misses make each one ~6 times slower. Mixed:
        // each app its own miss rate (5 to 15 MPKI), so that a slice switch changes the demand
        // and every switch solves the queue and re-plans the other cores' threads.
        let instr = WORK_64 * 64.0 / n as f64 / 10.0;
        let w = if mixed { workload_mpki(16, n, instr, |a| 5.0 + a as f64 * 10.0 / 15.0) } else { workload_missing(16, n, instr, BANDWIDTH_MPKI) };
        let mut base = 0.0;
        for (machine, m) in [("without [memory]", &plain), ("with [memory]", &with)] {
            let name = if mixed { format!("{machine}, mixed MPKI") } else { machine.to_string() };
            let (cpu, run) = time_run(m, &w, "oblivious", repeat);
            let ns = cpu * 1e9 / run.events as f64;
            if base == 0.0 {
                base = cpu;
            }
            println!("| {name} | {n} | {:.1} | {} | {cpu:.3} | {ns:.1} | {:.2} |", run.sim_s, run.events, cpu / base);
        }
    }
}

/// Network cycles of the network case: a 64-thread run of a few simulated milliseconds at 2 GHz.
const NOC_CYCLES: u64 = 3_000_000;

/// The network case (module comment): each load as uniform-random 8-flit packets (the
/// synthetic traffic of `ampsched.noc_traffic`) and as L2 misses (a 1-flit request to a random
/// bank, an 8-flit line back; a tenth of them to a memory controller besides), under each
/// arbitration.
fn noc(quick: bool, repeat: usize) {
    use ampsched_model::Arbitration;
    use ampsched_runner::noc_traffic::{traffic, TrafficSpec};
    use ampsched_sim::noc::{BackgroundRate, Network};
    let text =
        "name = \"bench-mesh\"\nmemory_latency_ns = 80\n[[core_type]]\nname = \"c\"\ncount = 64\nfreq_ghz = 2.0\n[interconnect]\nkind = \"mesh\"\nwidth = 8\n";
    let base = Machine::from_toml("bench", text).expect("bench mesh is valid");
    let cycles = if quick { NOC_CYCLES / 10 } else { NOC_CYCLES };
    println!("Network case: Table 2's 8×8 mesh, {cycles} cycles (after a warm-up of a tenth), CPU time best of {repeat}");
    println!();
    println!("| traffic | offered flits/node/cycle | arbitration | accepted | mean latency (cycles) | packets | CPU s | ns per cycle |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|");
    for arbitration in [Arbitration::RoundRobin, Arbitration::Ocor] {
        let mut m = base.clone();
        m.interconnect.as_mut().expect("a mesh").arbitration = arbitration;
        for rate in [0.1, 0.3] {
            let spec = TrafficSpec { injection_rate: rate, cycles, warmup: None, seed: 1, pattern: "uniform".into(), packet_flits: None };
            let (cpu, t) = best_of(repeat, || traffic(&m, &spec).expect("valid traffic"));
            let total = cycles + (cycles / 10).max(1_000);
            println!(
                "| uniform, 8-flit packets | {rate} | {} | {:.3} | {:.1} | {} | {cpu:.3} | {:.0} |",
                arbitration.name(),
                t.accepted,
                t.mean_latency,
                t.packets,
                cpu * 1e9 / total as f64
            );
        }
        // Misses: requests per node per cycle to L2 banks, a tenth as many to memory controllers.
        let ic = m.interconnect.clone().expect("a mesh");
        for misses in [0.01, 0.03] {
            let (cpu, s) = best_of(repeat, || {
                let mut net = Network::new(&ic, 128, 1);
                let rate = BackgroundRate { l2_per_cycle: misses, mc_per_cycle: misses / 10.0, request_flits: 1, reply_flits: ic.line_flits() };
                for node in 0..64 {
                    net.set_background(node, rate);
                }
                net.run_until(cycles);
                net.stats()
            });
            let t = s.total();
            println!(
                "| misses, {misses} L2 + {} MC requests/node/cycle, 1-flit request + 8-flit line | {:.3} | {} | {:.3} | {:.1} | {} | {cpu:.3} | {:.0} |",
                misses / 10.0,
                t.flits_injected as f64 / 64.0 / cycles as f64,
                arbitration.name(),
                t.flits_delivered as f64 / 64.0 / cycles as f64,
                t.mean_latency(),
                t.packets_delivered,
                cpu * 1e9 / cycles as f64
            );
        }
    }
}
