//! What the simulator's tests share: a policy made of a closure, and tiny machines and workloads.
#![allow(dead_code)]

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Placement, Policy, PolicyFailure, SimpleModel, SystemView, Triggers, Workload};
use ampsched_sim::{Engine, RunResult, SimConfig};

/// Calls `decide` on every thread start and every `quantum_ns`.
pub struct TestPolicy<F> {
    quantum_ns: Option<u64>,
    decide: F,
}

impl<F: FnMut(&SystemView, &mut Placement) + Send> Policy for TestPolicy<F> {
    fn quantum_ns(&self) -> Option<u64> {
        self.quantum_ns
    }
    fn triggers(&self) -> Triggers {
        Triggers { start: true, ..Triggers::NONE }
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        (self.decide)(view, out);
        Ok(())
    }
}

pub fn machine(text: &str) -> Machine {
    Machine::from_toml("test-machine", &format!("name = \"t\"\nmemory_latency_ns = 100.0\n{text}")).unwrap()
}

/// One single-threaded app per entry: (instructions, cpi, llc_mpki).
pub fn apps(threads: &[(f64, f64, f64)]) -> Workload {
    let mut s = String::new();
    for (i, (instructions, cpi, mpki)) in threads.iter().enumerate() {
        s.push_str(&format!(
            "[[app]]\nname = \"a{i}\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions:e}\ncpi = {cpi}\nllc_mpki = {mpki}\n"
        ));
    }
    Workload::from_toml("test-workload", &s, &Programs::new()).unwrap()
}

pub fn simulate(m: &Machine, w: &Workload, quantum_ns: Option<u64>, decide: impl FnMut(&SystemView, &mut Placement) + Send) -> RunResult {
    simulate_seeded(m, w, quantum_ns, SimConfig::default().seed, decide)
}

/// `simulate` with the seed of the local scheduler's draws.
pub fn simulate_seeded(m: &Machine, w: &Workload, quantum_ns: Option<u64>, seed: u64, decide: impl FnMut(&SystemView, &mut Placement) + Send) -> RunResult {
    let mut p = TestPolicy { quantum_ns, decide };
    Engine::new(m, w, &SimpleModel, &mut p, SimConfig { max_segments: 1_000_000, seed, ..SimConfig::default() }).run().unwrap()
}

/// `simulate` with a whole engine configuration.
pub fn simulate_with(m: &Machine, w: &Workload, quantum_ns: Option<u64>, cfg: SimConfig, decide: impl FnMut(&SystemView, &mut Placement) + Send) -> RunResult {
    let mut p = TestPolicy { quantum_ns, decide };
    Engine::new(m, w, &SimpleModel, &mut p, cfg).run().unwrap()
}

/// A run with a policy that does nothing, which may fail (a deadlock, a budget).
pub fn try_simulate(m: &Machine, w: &Workload) -> Result<RunResult, ampsched_sim::SimError> {
    let mut p = TestPolicy { quantum_ns: None, decide: |_: &SystemView, _: &mut Placement| {} };
    Engine::new(m, w, &SimpleModel, &mut p, SimConfig::default()).run()
}
