//! A task program: the OmpSs/OpenMP-tasks version of a parallel program ("Exploiting Asymmetric
//! Multi-Core Processors with Flexible System Software", the big.LITTLE paper, §III.D). A main
//! thread runs the program's serial code and creates tasks at run time; their dependences form
//! a task graph the runtime builds as it goes; worker threads, one per online core with the
//! main thread one of them, take ready tasks from the runtime's ready queue(s). The engine's
//! runtime (crates/sim/src/runtime) executes it; docs/task-runtime.md gives the model.
//!
//! The graph is described by generators, not task lists: a list of steps the main thread goes
//! through (`repeat` times): serial code, a block of N like tasks, a pipeline of items × stages,
//! a taskwait. A block's tasks depend on the previous block's as `after` says. Cycles cannot be
//! written: every dependence points to a task created earlier.
//!
//! The groups of an app running a task program are made from it (`TaskProgram::groups`): group 0
//! `main` (one thread), group 1 `workers` (one per online core but the main thread's), both with
//! the program's work table as their phases (`TaskProgram::work`): the engine indexes a thread's
//! profile, rate and per-microarchitecture costs by its phase, so a runtime thread's `pc` names
//! the kind of work it does (runtime code, a serial step, a block's or a stage's tasks).

use crate::workload::{Group, Phase, Profile, Signature, ThreadKind, Workers};

/// Which ready-queue discipline the runtime uses (`scheduler`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskScheduler {
    /// One shared FIFO queue behind a lock (the paper's evaluated policy, Nanos++ `bf`).
    Fifo,
    /// Criticality-aware (CATS, Nanos++ `botlev`): bottom levels, critical tasks to big cores.
    Cats,
    /// Per-worker deques with random work stealing (beyond the paper).
    Steal,
}

impl TaskScheduler {
    pub const NAMES: [(&'static str, TaskScheduler); 3] = [("fifo", TaskScheduler::Fifo), ("cats", TaskScheduler::Cats), ("steal", TaskScheduler::Steal)];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, s)| *s == self).map(|(n, _)| *n).unwrap_or("fifo")
    }
}

/// Where the main thread may run (`main`): the big.LITTLE paper's §V.D, Fig. 10.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MainPlacement {
    /// Free: after a taskwait the main thread's continuation goes on on the first available
    /// runtime thread (Nanos++: the main program is a work descriptor any worker may resume).
    Default,
    /// Tied to the big (fastest) cores; only the main thread resumes the continuation.
    Big,
    /// Tied to the little (slowest) cores; only the main thread resumes the continuation.
    Little,
}

impl MainPlacement {
    pub const NAMES: [(&'static str, MainPlacement); 3] = [("default", MainPlacement::Default), ("big", MainPlacement::Big), ("little", MainPlacement::Little)];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, s)| *s == self).map(|(n, _)| *n).unwrap_or("default")
    }
}

/// The runtime's options (`[program.runtime]`, `[app.runtime]`, or a `tasks:` workload name).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuntimeOptions {
    pub scheduler: TaskScheduler,
    /// fifo only: a thread that finishes a task runs one successor it made ready itself, without
    /// the queue (Nanos++ `bf`, `atBeforeExit`). Default false: the paper describes and evaluated
    /// "a single shared FIFO"; true gives Nanos++'s actual default (docs/task-runtime.md).
    pub immediate_successor: bool,
    pub main: MainPlacement,
    /// Instructions the main thread retires to create one task (allocate its descriptor, look up
    /// its dependences in the region table, link it): `DEFAULT_CREATE_INSTRUCTIONS`.
    pub create_instructions: f64,
    /// Instructions retired while holding the ready-queue lock for one push or pop:
    /// `DEFAULT_QUEUE_OP_INSTRUCTIONS`.
    pub queue_op_instructions: f64,
}

/// Task creation cost, instructions on the main thread: 5,000 (~3 µs on a Cortex-A15 at
/// 1.6 GHz). Nanos++ allocates a work descriptor and its data, registers each dependence in the
/// region tree (src/core/dependenciesdomain.cpp, regiondirectory) and links the successor
/// lists: thousands of instructions. We found no measured figure for Nanos++ on ARMv7; the
/// order (a few µs per task) is what the OmpSs/OpenMP-tasks overhead studies report on x86, and
/// the value only matters for tasks short enough that creation limits the speedup.
pub const DEFAULT_CREATE_INSTRUCTIONS: f64 = 5000.0;

/// One push or pop of a ready queue, instructions with its lock held: 300. Nanos++'s WDDeque
/// (src/core/wddeque.hpp) takes a spinlock (an atomic exchange, a cache line brought from the
/// last holder's core), links or unlinks a std::list node (push allocates it) and releases the
/// lock: a few hundred instructions, the line transfer dominating. It is held as instructions
/// (not ns) so that a little core holds the lock longer, as it would. Contention is modelled:
/// one holder at a time, waiters spin in FIFO order (docs/task-runtime.md).
pub const DEFAULT_QUEUE_OP_INSTRUCTIONS: f64 = 300.0;

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            scheduler: TaskScheduler::Fifo,
            immediate_successor: false,
            main: MainPlacement::Default,
            create_instructions: DEFAULT_CREATE_INSTRUCTIONS,
            queue_op_instructions: DEFAULT_QUEUE_OP_INSTRUCTIONS,
        }
    }
}

/// How a block's tasks depend on the tasks of the block created before it (`after`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Independent: ready when created.
    None,
    /// Every task after every task of the previous block: a barrier replaced by a join (one
    /// counter, not N × M edges).
    All,
    /// Task i after task i of the previous block (of the last stage of item i, for a pipeline):
    /// the data dependences that replace a barrier between two loops over the same data.
    Same,
}

impl After {
    pub const NAMES: [(&'static str, After); 3] = [("none", After::None), ("all", After::All), ("same", After::Same)];
}

/// What one task (or serial step) does: compute `instructions` of profile `kind` (an index into
/// `TaskProgram::work`), then block for `io_ns` (I/O: its thread sleeps, the core is free).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskWork {
    pub instructions: f64,
    pub io_ns: u64,
    pub kind: u32,
}

/// A pipeline stage: every item's task of this stage runs after the item's previous stage; an
/// `ordered` (serial) stage also after the previous item's task of the same stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stage {
    pub work: TaskWork,
    pub ordered: bool,
}

/// One step of the main thread.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskStep {
    /// The main thread's own serial code.
    Serial { work: TaskWork },
    /// Create `count` like tasks.
    Tasks { count: u32, work: TaskWork, after: After },
    /// Create `items` items of `stages.len()` tasks each, item by item.
    Pipeline { items: u32, stages: Vec<Stage>, after: After },
    /// Wait until every task created so far has finished, running ready tasks meanwhile.
    Taskwait,
}

impl TaskStep {
    /// The tasks the step creates.
    pub fn tasks(&self) -> u64 {
        match self {
            TaskStep::Tasks { count, .. } => *count as u64,
            TaskStep::Pipeline { items, stages, .. } => *items as u64 * stages.len() as u64,
            TaskStep::Serial { .. } | TaskStep::Taskwait => 0,
        }
    }

    /// The tasks of the step a following `after = "same"` block pairs with (one per item for a
    /// pipeline); None for a step that creates none.
    pub fn width(&self) -> Option<u32> {
        match self {
            TaskStep::Tasks { count, .. } => Some(*count),
            TaskStep::Pipeline { items, .. } => Some(*items),
            TaskStep::Serial { .. } | TaskStep::Taskwait => None,
        }
    }
}

/// A task program (see the module's comment).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskProgram {
    pub options: RuntimeOptions,
    pub steps: Vec<TaskStep>,
    pub repeat: u32,
    /// The kinds of work the program's threads do, as compute phases: entry `RUNTIME_WORK` is
    /// the runtime's own code (creation, queue operations), then one per serial step, block and
    /// stage. A runtime thread's `pc` is the kind it retires now.
    pub work: Vec<Phase>,
}

/// The work kind of the runtime's own code (task creation, queue operations).
pub const RUNTIME_WORK: u32 = 0;

/// The profile of the runtime's own code: CPI 1 on the reference core, no LLC misses (its few
/// data structures stay cached: the big.LITTLE paper, §V.D, "its memory footprint is very
/// small"); scaled by each core type's `cpi_scale` as any plain CPI.
pub fn runtime_profile() -> Profile {
    Profile::flat(1.0, 0.0)
}

/// The names of the two groups of a task app.
pub const MAIN_GROUP: &str = "main";
pub const WORKER_GROUP: &str = "workers";

impl TaskProgram {
    /// Tasks one run creates.
    pub fn tasks_per_run(&self) -> u64 {
        self.steps.iter().map(TaskStep::tasks).sum::<u64>() * self.repeat as u64
    }

    /// The whole-run signature of the program (the work of every task and serial step weighted
    /// by its instructions; runtime overheads left out, as an offline profile of the program's
    /// code would).
    pub fn signature(&self) -> Option<Signature> {
        let mut weighted: Vec<Phase> = Vec::new();
        let mut add = |w: &TaskWork, n: u64| {
            if let Some(Phase::Compute { profile, .. }) = self.work.get(w.kind as usize) {
                if w.instructions > 0.0 {
                    weighted.push(Phase::Compute { instructions: w.instructions * n as f64, profile: profile.clone() });
                }
            }
        };
        for s in &self.steps {
            match s {
                TaskStep::Serial { work } => add(work, 1),
                TaskStep::Tasks { count, work, .. } => add(work, *count as u64),
                TaskStep::Pipeline { items, stages, .. } => stages.iter().for_each(|st| add(&st.work, *items as u64)),
                TaskStep::Taskwait => {}
            }
        }
        Signature::of_phases(&weighted)
    }

    /// The app's groups: `main` (one thread) and `workers` (`workers` threads: one per online
    /// core but the main thread's, set by `Workload::for_machine`).
    pub fn groups(&self, workers: u32) -> Vec<Group> {
        let signature = self.signature();
        let group = |name: &str, count: u32| Group {
            name: name.to_string(),
            count,
            count_per_core: false,
            shared_work: false,
            kind: ThreadKind::App,
            repeat: 1,
            phases: self.work.clone(),
            workers: Workers::Persistent,
            signature: signature.clone(),
            solo_ips: None,
            uclamp: crate::workload::Uclamp::NONE,
        };
        vec![group(MAIN_GROUP, 1), group(WORKER_GROUP, workers)]
    }
}
