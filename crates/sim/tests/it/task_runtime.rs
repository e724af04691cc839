//! The task runtime (crates/sim/src/runtime; docs/task-runtime.md): work conservation of the
//! FIFO queue, the ideal speedup of a dynamic runtime on big.LITTLE (the big.LITTLE paper's
//! Eq. 4), CATS's critical path on big cores, stealing's balance, the main thread's placement.

use ampsched_model::workload::Programs;
use ampsched_model::{CoreSet, Machine, Workload};
use ampsched_sim::RunResult;

use crate::common::{machine, simulate, simulate_seeded};

/// `cores` cores of one type at 1 GHz.
fn flat(cores: usize) -> Machine {
    machine(&format!("[[core_type]]\nname = \"c\"\ncount = {cores}\nfreq_ghz = 1.0\n"))
}

fn exynos() -> Machine {
    Machine::from_toml("exynos5422.toml", include_str!("../../../../catalog/machines/exynos5422.toml")).unwrap()
}

/// A task app with `[app.runtime]` keys `runtime` and its steps, on `cores` online cores.
fn task_app(runtime: &str, steps: &str, cores: u32) -> Workload {
    repeated_task_app(1, runtime, steps, cores)
}

fn repeated_task_app(repeat: u32, runtime: &str, steps: &str, cores: u32) -> Workload {
    let text = format!("[[app]]\nname = \"t\"\nrepeat = {repeat}\n[app.runtime]\n{runtime}\n{steps}");
    Workload::from_toml("w.toml", &text, &Programs::new()).unwrap().for_machine(cores).unwrap()
}

/// A block of `count` tasks of `instructions` each.
fn block(count: u32, instructions: f64, after: &str) -> String {
    format!("[[app.step]]\nkind = \"tasks\"\ncount = {count}\ninstructions = {instructions:e}\nafter = \"{after}\"\n")
}

fn run(m: &Machine, w: &Workload) -> RunResult {
    simulate(m, w, None, |_, _| {})
}

/// Instructions thread `t` retired, on every core type.
fn retired(r: &RunResult, t: usize) -> f64 {
    r.threads[t].per_type.iter().map(|c| c.instructions).sum()
}

#[test]
fn fifo_keeps_every_worker_busy_while_tasks_are_ready() {
    // Every kind of step, repeated: serial code, a block, a join (all), data dependences
    // (same), a pipeline with an ordered stage, taskwaits. On 4 cores at 1 GHz, CPI 1.
    let steps = [
        "[[app.step]]\nkind = \"serial\"\ninstructions = 2e5\n".to_string(),
        block(16, 1e6, "none"),
        block(16, 5e5, "all"),
        block(16, 2e6, "same"),
        "[[app.step]]\nkind = \"taskwait\"\n".to_string(),
        "[[app.step]]\nkind = \"pipeline\"\nitems = 16\n[[app.step.stage]]\ninstructions = 1e5\nordered = true\n[[app.step.stage]]\ninstructions = 1e6\n"
            .to_string(),
    ]
    .concat();
    let w = repeated_task_app(3, "scheduler = \"fifo\"", &steps, 4);
    let r = run(&flat(4), &w);
    let s = &r.task_runtime;
    assert_eq!(s.tasks_run, 3 * (16 * 3 + 16 * 2));
    // The invariant: no runtime thread ever sat idle while a task was in the queue unclaimed
    // (checked at every step of every runtime thread over the run).
    assert_eq!(s.idle_with_ready_ns, 0);
    // A claimed task starts within a bounded hand-off: the claimant waits behind at most the
    // other 3 threads in the lock's FIFO, each holding it once for at most a 16-task push
    // (16 × 300 instructions = 4.8 µs at 1 GHz), then pops (0.3 µs): 3 × 4.8 + 0.3 = 14.7 µs.
    assert!(s.max_handoff_ns <= 14_700, "{s:?}");
    // The runtime's threads are the app's: one per core, the main thread one of them.
    assert_eq!(r.apps[0].threads, 4);
}

#[test]
fn a_dynamic_runtime_approaches_the_ideal_speedup_on_big_little() {
    // The big.LITTLE paper's Eq. 4: the ideal speedup over one little core of B big and L little
    // cores is B × ratio + L. A compute-bound task (CPI 1, no misses) on exynos5422 takes
    // 1 / 1.6 ns per instruction on an A15 and 1.5 / 0.8 = 1.875 on an A7: ratio 3, ideal
    // 4 × 3 + 4 = 16. 256 tasks of 2e7 instructions: 9.6 s on one little core, 0.6 s ideal on
    // 4 + 4. A dynamic queue loses at most its tail (a task a little core starts just before the
    // others run out: 37.5 ms) and its overheads (per task 5,600 instructions of creation, push
    // and pop, 10.5 µs on a little core: under 3 ms of core time over 8 cores, < 0.5 ms), so the
    // speedup is at least 9.6 / (0.6 + 0.0375 + 0.0005) = 15.05.
    let m = exynos();
    let w = task_app("", &block(256, 2e7, "none"), 8);
    let r = run(&m, &w);
    let one_little = 256.0 * 2e7 * 1.875e-9;
    let speedup = one_little / (r.makespan_ns as f64 / 1e9);
    assert!((15.05..=16.0).contains(&speedup), "speedup {speedup}, makespan {} ns", r.makespan_ns);
    // Statically equal shares (32 tasks a core) would end with the little cores: speedup 8.
    assert_eq!(r.task_runtime.tasks_run, 256);
}

/// 1 big core (3 GHz) and 1 little (1 GHz), same CPI: the big one is 3× faster.
fn one_big_one_little() -> Machine {
    machine("[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 3.0\n[[core_type]]\nname = \"little\"\ncount = 1\nfreq_ghz = 1.0\n")
}

#[test]
fn cats_runs_the_critical_path_on_the_big_core_and_shortens_the_makespan() {
    // A gate G (1e6 instructions), a chain C0 → C1 (3e7 each) after it, and an independent A
    // (3e7) created last; the runtime's own costs set to 0 so that the times are exact. The main
    // thread (thread 0) is tied to the little core (1 GHz), the worker (thread 1) to the big one
    // (3 GHz). Creation is instant, so at time 0 the ready tasks are G then A (C0 waits for G);
    // the main thread, at the final taskwait, takes G; the worker, started after it, takes A.
    // A task pushed while a thread is idle goes to that (longest idle) thread.
    //   fifo: the little core runs G (0–1 ms), then C0, which it pushes while the big core is
    //         busy with A (0–10 ms) and pops itself (1–31 ms); C1, pushed at 31 ms, goes to the
    //         idle big core (31–41 ms). Makespan 41 ms.
    //   cats: when G ends, C0's bottom level is 1 (C0 → C1), equal to botlev's initial maxBL
    //         1 (not strict): critical, to the high-priority queue, which only a big core pops.
    //         The worker took A at its start, before it had a core, so as a thread off the big
    //         cores (no retries of the critical queue; `on_fast`), and ends it at 10 ms; then C0
    //         (10 ms) and C1 (bottom level 0, a successor of the last critical task and
    //         ≥ maxBL − 1: critical) (10 ms). Makespan 30 ms: the critical path ran on the big
    //         core.
    let steps = [block(1, 1e6, "none"), block(1, 3e7, "all"), block(1, 3e7, "same"), block(1, 3e7, "none")].concat();
    let pin = |view: &ampsched_model::SystemView, out: &mut ampsched_model::Placement| {
        for t in view.threads.iter() {
            out.set(t.id, CoreSet::single(if t.id == 0 { 1 } else { 0 }));
        }
    };
    let costs = "create_instructions = 0\nqueue_op_instructions = 0\n";
    let m = one_big_one_little();
    let fifo = simulate(&m, &task_app(&format!("scheduler = \"fifo\"\n{costs}"), &steps, 2), None, pin);
    let cats = simulate(&m, &task_app(&format!("scheduler = \"cats\"\n{costs}"), &steps, 2), None, pin);
    assert_eq!(fifo.makespan_ns, 41_000_000);
    assert_eq!(cats.makespan_ns, 30_000_000);
    assert_eq!((cats.task_runtime.critical, cats.task_runtime.critical_on_fast), (2, 2));
    assert_eq!(fifo.task_runtime.critical, 0);
    // fifo with Nanos++'s immediate successor: the little core, done with G, runs the successor
    // it released (C0) without the queue, then C0's (C1): 1 + 30 + 30 = 61 ms.
    let successor = simulate(&m, &task_app(&format!("immediate_successor = true\n{costs}"), &steps, 2), None, pin);
    assert_eq!(successor.makespan_ns, 61_000_000);
}

#[test]
fn work_stealing_balances_tasks_created_by_one_thread() {
    // The main thread pushes 64 equal tasks on its own deque; the three others steal them. On
    // 4 equal cores each thread ends with 16 ± 1 tasks and the run takes at most one task (1 ms)
    // more than a quarter of the work (16 ms) plus the runtime's costs (64 × 5,600 instructions
    // = 0.36 ms at most on one thread).
    let w = task_app("scheduler = \"steal\"", &block(64, 1e6, "none"), 4);
    let r = run(&flat(4), &w);
    assert_eq!(r.task_runtime.tasks_run, 64);
    assert!(r.makespan_ns <= 16_000_000 + 1_000_000 + 360_000, "{} ns", r.makespan_ns);
    for t in 0..4 {
        let tasks = (retired(&r, t) / 1e6).floor();
        assert!((15.0..=17.0).contains(&tasks), "thread {t} ran {tasks} tasks' worth");
    }
    // The victims are drawn from the run's seed: the same seed, the same run.
    let again = run(&flat(4), &w);
    assert_eq!((r.makespan_ns, retired(&r, 1)), (again.makespan_ns, retired(&again, 1)));
    let other = simulate_seeded(&flat(4), &w, None, 7, |_, _| {});
    assert_eq!(other.task_runtime.tasks_run, 64);
}

#[test]
fn the_main_thread_stays_on_its_cluster_when_tied_and_may_move_by_default() {
    // Serial code and a block per iteration with a taskwait (facesim's shape) on exynos5422.
    let steps = format!("[[app.step]]\nkind = \"serial\"\ninstructions = 2e6\n{}[[app.step]]\nkind = \"taskwait\"\n", block(24, 4e6, "none"));
    let m = exynos();
    let (big, little) = (0, 1);
    // A policy that gives every thread every core cannot untie it: it is placed on its cluster.
    let everywhere = |view: &ampsched_model::SystemView, out: &mut ampsched_model::Placement| {
        for t in view.threads.iter() {
            out.set(t.id, CoreSet::first_n(8));
        }
    };
    for (main, on, off) in [("big", big, little), ("little", little, big)] {
        let r = simulate(&m, &repeated_task_app(4, &format!("main = \"{main}\""), &steps, 8), None, everywhere);
        let t0 = &r.threads[0].per_type;
        assert!(t0[on].time_ns > 0 && t0[off].time_ns == 0, "main = {main}: {:?} ns on big, {:?} on little", t0[big].time_ns, t0[little].time_ns);
        assert_eq!(r.task_runtime.main_moves, 0);
        assert!(r.threads[0].allowed.len() == 4);
    }
    // By default it is free: every core.
    let r = simulate(&m, &repeated_task_app(4, "", &steps, 8), None, everywhere);
    assert_eq!(r.threads[0].allowed.len(), 8);
}

#[test]
fn the_shared_queue_lock_serialises_pushes_and_pops() {
    // 1,000 tasks of 1,000 instructions on 4 cores at 1 GHz, creation free, 300 instructions
    // (300 ns) per queue operation. Every task is pushed once (by the main thread) and popped
    // once, each with the one lock held, one holder at a time: the lock is busy 2 × 1,000 ×
    // 300 ns = 600 µs, and since the main thread asks for it again as soon as it has pushed, it
    // never idles before the last push. The cores alone would need 1,000 × 1 µs / 4 = 250 µs:
    // the lock bounds the run, which ends with the last task's 1 µs after the lock's 600 µs:
    // 601 µs.
    let w = task_app("create_instructions = 0", &block(1000, 1e3, "none"), 4);
    let r = run(&flat(4), &w);
    assert_eq!(r.makespan_ns, 601_000);
}

#[test]
fn a_task_that_blocks_on_io_leaves_its_core_idle() {
    // 4 tasks of 1 ms of work then 10 ms of I/O on 2 cores, runtime costs 0. Each thread runs a
    // task (0–1 ms), blocks on its I/O (1–11 ms: the thread sleeps, no other runtime thread takes
    // the core), then the next task (11–12 ms) and its I/O (12–22 ms): 22 ms, with each core
    // busy only 2 ms.
    let steps = "[[app.step]]\nkind = \"tasks\"\ncount = 4\ninstructions = 1e6\nio_s = 0.01\n";
    let w = task_app("create_instructions = 0\nqueue_op_instructions = 0", steps, 2);
    let r = run(&flat(2), &w);
    assert_eq!(r.makespan_ns, 22_000_000);
    assert!(r.cores.iter().all(|c| c.busy_ns == 2_000_000), "{:?}", r.cores);
}
