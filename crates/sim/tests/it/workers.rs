//! Per-phase workers (`workers = "per_phase"`, the BLAST/FFTW pattern of the Sáez thesis,
//! §5.2.3) and spin limits in loop iterations (`spin_limit_iterations`, §5.2.2): what a policy
//! sees and how long things take, derived by hand. A tiny policy records every trigger and the
//! app's thread counts at each call.

use crate::common;

use std::collections::BTreeMap;

use ampsched_model::workload::{Programs, CYCLES_PER_SPIN_ITERATION};
use ampsched_model::{Placement, Policy, PolicyFailure, SimpleModel, SystemView, Trigger, Triggers, Workload};
use ampsched_sim::{Engine, RunResult, SimConfig};

use crate::common::machine;

/// Four 1 GHz cores, migrations free: CPI 1 makes 1e9 instructions one second anywhere.
const FOUR_EQUAL: &str = "[[core_type]]\nname = \"c\"\ncount = 4\nfreq_ghz = 1.0\n[migration]\ncost_us = 0.0\n";

/// Every trigger it is called for, with the time and the app's live and runnable threads.
#[derive(Default)]
struct Recorder {
    calls: Vec<(u64, Trigger, u32, u32)>,
}

impl Policy for Recorder {
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    /// A call every 250 ms, so that each phase is seen while it runs.
    fn quantum_ns(&self) -> Option<u64> {
        Some(250_000_000)
    }
    fn decide(&mut self, v: &SystemView, _out: &mut Placement) -> Result<(), PolicyFailure> {
        let app = &v.apps[0];
        self.calls.push((v.now_ns, v.trigger, app.live_threads, app.runnable_threads));
        Ok(())
    }
}

fn run(machine_text: &str, workload: &str) -> (RunResult, Recorder) {
    let m = machine(machine_text);
    let w = Workload::from_toml("test-workload", workload, &Programs::new()).unwrap();
    let mut p = Recorder::default();
    let r = Engine::new(&m, &w, &SimpleModel, &mut p, SimConfig::default()).run().unwrap();
    (r, p)
}

fn fork_join(workers: &str, first: &str, second: &str) -> String {
    format!(
        "[[app]]\nname = \"fj\"\nthreads = 4\nrepeat = 3\nworkers = \"{workers}\"\n\
         [[app.phase]]\nkind = \"{first}\"\ninstructions = 1e9\n\
         [[app.phase]]\nkind = \"{second}\"\ninstructions = 1e9\n"
    )
}

/// Per thread id: its start and exit times (None: never seen).
fn lifetimes(p: &Recorder) -> BTreeMap<u32, (Option<u64>, Option<u64>)> {
    let mut out: BTreeMap<u32, (Option<u64>, Option<u64>)> = BTreeMap::new();
    for &(t, trigger, _, _) in &p.calls {
        match trigger {
            Trigger::Start(id) => {
                let e = out.entry(id).or_default();
                assert!(e.0.is_none(), "thread {id} started twice");
                e.0 = Some(t);
            }
            Trigger::Exit(id) => {
                let e = out.entry(id).or_default();
                assert!(e.0.is_some() && e.1.is_none(), "thread {id} exited without a start, or twice");
                e.1 = Some(t);
            }
            _ => {}
        }
    }
    out
}

#[test]
fn per_phase_workers_are_new_threads_at_every_parallel_phase() {
    // 3 × (parallel 1e9 per thread on 4 threads, serial 1e9 by the master): every phase takes
    // 1 s on the 1 GHz cores, so the run takes 6 s. The master (id 0) lives throughout; each
    // parallel phase i (from 2i s to 2i+1 s) has 3 fresh workers, which exit at 2i+1 s, when
    // they reach the serial phase: 1 + 3 × 3 = 10 threads, each started and exited once.
    let (r, p) = run(FOUR_EQUAL, &fork_join("per_phase", "compute", "serial"));
    assert_eq!(r.makespan_ns, 6_000_000_000);
    let life = lifetimes(&p);
    assert_eq!(life.len(), 10);
    assert_eq!(life[&0], (Some(0), Some(6_000_000_000)));
    for phase in 0..3u64 {
        for k in 0..3u32 {
            let id = 1 + 3 * phase as u32 + k;
            assert_eq!(life[&id], (Some(2 * phase * 1_000_000_000), Some((2 * phase + 1) * 1_000_000_000)), "worker {id}");
        }
    }
    assert_eq!(r.apps[0].thread_ids.len(), 10);
    // The policy's quantum calls inside the phases see 4 live, runnable threads in the
    // parallel ones and 1 in the serial ones: the workers are gone.
    assert_eq!(quantum_counts(&p), expected_counts(4, 1));
}

/// (live, runnable) at each quantum call strictly inside a phase (not at a whole second).
fn quantum_counts(p: &Recorder) -> Vec<(u64, u32, u32)> {
    p.calls.iter().filter(|c| c.1 == Trigger::Quantum && c.0 % 1_000_000_000 != 0).map(|c| (c.0, c.2, c.3)).collect()
}

/// At 0.25, 0.5, 0.75 s of each of the 6 one-second phases: 4 runnable threads in the parallel
/// (even) seconds, 1 in the serial ones, `serial_live` of them live.
fn expected_counts(parallel: u32, serial_live: u32) -> Vec<(u64, u32, u32)> {
    let mut out = Vec::new();
    for second in 0..6u64 {
        for q in 1..4u64 {
            let at = second * 1_000_000_000 + q * 250_000_000;
            out.push(if second % 2 == 0 { (at, parallel, parallel) } else { (at, serial_live, 1) });
        }
    }
    out
}

#[test]
fn persistent_workers_block_through_the_serial_phases() {
    // The same phases with today's pool: 4 threads only, blocked (not runnable, still live)
    // in the serial phases, and the same 6 s.
    let (r, p) = run(FOUR_EQUAL, &fork_join("persistent", "compute", "serial"));
    assert_eq!(r.makespan_ns, 6_000_000_000);
    assert_eq!(lifetimes(&p).len(), 4);
    assert_eq!(quantum_counts(&p), expected_counts(4, 4));
}

#[test]
fn per_phase_workers_of_a_run_that_opens_serial_start_after_it() {
    // 3 × (serial, parallel): the run opens with the master alone for 1 s; workers exist from
    // 1-2 s, 3-4 s and 5-6 s, the last three exiting at the end with the master.
    let (r, p) = run(FOUR_EQUAL, &fork_join("per_phase", "serial", "compute"));
    assert_eq!(r.makespan_ns, 6_000_000_000);
    let life = lifetimes(&p);
    assert_eq!(life.len(), 10);
    assert_eq!(life[&0], (Some(0), Some(6_000_000_000)));
    let starts: Vec<u64> = (1..10).map(|id| life[&id].0.unwrap() / 1_000_000_000).collect();
    assert_eq!(starts, vec![1, 1, 1, 3, 3, 3, 5, 5, 5]);
    let exits: Vec<u64> = (1..10).map(|id| life[&id].1.unwrap() / 1_000_000_000).collect();
    assert_eq!(exits, vec![2, 2, 2, 4, 4, 4, 6, 6, 6]);
}

#[test]
fn per_phase_workers_counted_in_the_model() {
    // What the workload reader counts for the spawn budget must be what the engine creates.
    let programs = Programs::new();
    for (first, second) in [("compute", "serial"), ("serial", "compute")] {
        let w = Workload::from_toml("t", &fork_join("per_phase", first, second), &programs).unwrap();
        assert_eq!(w.apps[0].groups[0].threads_per_run(), 10);
        let (r, _) = run(FOUR_EQUAL, &fork_join("per_phase", first, second));
        assert_eq!(r.threads.len(), 10);
    }
    // compute, serial, compute repeated 3 times: the stretch that ends a repetition and the one
    // that begins the next are one (no serial between them): 4 stretches, 1 + 3 × 4 threads.
    let text = "[[app]]\nname = \"x\"\nthreads = 4\nrepeat = 3\nworkers = \"per_phase\"\n\
                [[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n\
                [[app.phase]]\nkind = \"serial\"\ninstructions = 1e9\n\
                [[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n";
    let w = Workload::from_toml("t", text, &programs).unwrap();
    assert_eq!(w.apps[0].groups[0].threads_per_run(), 13);
    let (r, _) = run(FOUR_EQUAL, text);
    assert_eq!(r.threads.len(), 13);
    assert_eq!(r.makespan_ns, 9_000_000_000);
}

#[test]
fn spin_limit_in_iterations_takes_longer_on_a_slower_clock() {
    // Two threads meet at a serial section: thread 0 (the leader) retires 1e9 instructions
    // while thread 1 waits, spinning for 1e7 iterations before it blocks: 1e7 ×
    // CYCLES_PER_SPIN_ITERATION cycles, 0.1 s at 1 GHz and 0.05 s at 2 GHz. Thread 1 is pinned
    // to the slow core (1 GHz) or the fast one (2 GHz).
    const FAST_SLOW: &str =
        "[[core_type]]\nname = \"fast\"\ncount = 1\nfreq_ghz = 2.0\n[[core_type]]\nname = \"slow\"\ncount = 1\nfreq_ghz = 1.0\n[migration]\ncost_us = 0.0\n";
    let text = "[[app]]\nname = \"s\"\nthreads = 2\n[[app.phase]]\nkind = \"serial\"\ninstructions = 1e9\n\
                wait = \"spin_then_block\"\nspin_limit_iterations = 1e7\n";
    let m = machine(FAST_SLOW);
    let w = Workload::from_toml("t", text, &Programs::new()).unwrap();
    let cycles = 1e7 * CYCLES_PER_SPIN_ITERATION as f64;
    for (waiter_fast, ghz) in [(false, 1.0), (true, 2.0)] {
        let (fast, slow) = (m.fast_cores(), m.slow_cores());
        let r = common::simulate(&m, &w, None, |v, out| {
            if let Trigger::Start(t) = v.trigger {
                let on_fast = (t == 1) == waiter_fast;
                out.set(t, if on_fast { fast.clone() } else { slow.clone() });
            }
        });
        assert_eq!(r.threads[1].spin_ns, (cycles / ghz) as u64, "waiter at {ghz} GHz");
    }
}
