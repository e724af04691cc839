//! The task runtime (crates/sim/src/runtime; docs/task-runtime.md): work conservation of the
//! FIFO queue, the ideal speedup of a dynamic runtime on big.LITTLE (the big.LITTLE paper's Eq.
//! 4), CATS's critical path on big cores, stealing's balance, the main thread's placement.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Workload};
use ampsched_sim::RunResult;

use crate::common::{machine, simulate};

/// `cores` cores of one type at 1 GHz.
fn flat(cores: usize) -> Machine {
    machine(&format!("[[core_type]]\nname = \"c\"\ncount = {cores}\nfreq_ghz = 1.0\n"))
}

/// A task app: `[app.runtime]` keys and its steps, on `cores` online cores.
fn task_app(runtime: &str, steps: &str, cores: u32) -> Workload {
    let text = format!("[[app]]\nname = \"t\"\n[app.runtime]\n{runtime}\n{steps}");
    Workload::from_toml("w.toml", &text, &Programs::new()).unwrap().for_machine(cores).unwrap()
}

fn run(m: &Machine, w: &Workload) -> RunResult {
    simulate(m, w, None, |_, _| {})
}

#[test]
fn smoke() {
    let m = flat(4);
    let w = task_app("", "[[app.step]]\nkind = \"tasks\"\ncount = 64\ninstructions = 1e8\n", 4);
    let r = run(&m, &w);
    eprintln!("{} {:?}", r.makespan_ns, r.task_runtime);
    panic!();
}
