//! The task runtime: what the threads of a task program do (`ampsched_model::task_program`;
//! docs/task-runtime.md). The big.LITTLE paper's OmpSs model (§III.D): the main thread runs the
//! serial code and creates tasks, each added to the task graph with its dependences on earlier
//! tasks, ready when they are done; runtime threads, one per online core with the main thread
//! one of them, take ready tasks from the ready queue(s) of the scheduler (`fifo`, `cats`,
//! `steal`, one file each) and, when a task ends, release its successors. At a taskwait the main
//! thread runs ready tasks itself; after it, its continuation goes on on the first free runtime
//! thread (`main = "default"`: Nanos++'s main work descriptor may be resumed by any thread) or
//! on the main thread itself (`big`, `little`: tied to that cluster, §V.D).
//!
//! The threads are ordinary app threads to the engine, its local scheduler and the policy;
//! this file replaces only the phase interpreter's decision of what a thread does next
//! (`Engine::advance` calls `task_advance` for a task app's threads). A thread's `pc` is the
//! kind of work it retires (`TaskProgram::work`), so that rates, per-microarchitecture costs and
//! refills see the right profile.
//!
//! Idle threads spin (they stay on their core, as Nanos++ workers do in their idle loop: one
//! thread per core, nothing else to yield to) until a task is pushed for them. A thread about to
//! pop first claims a task (a count per queue), so that exactly one idle thread goes for each
//! pushed task, as the first of the spinning threads to see the queue non-empty would; then it
//! takes the queue's lock (FIFO hand-off, waiters spin), holds it for `queue_op_instructions`,
//! pops and releases. A push is the same under the pusher's lock; a thread that releases several
//! successors pushes them under one hold (their count times the cost). Pops and pushes of the
//! same lock thus serialise: the contention the paper's single locked queue has.

pub(crate) mod cats;
pub(crate) mod fifo;
pub(crate) mod steal;

use std::collections::VecDeque;

use ampsched_model::task_program::{After, MainPlacement, TaskProgram, TaskScheduler, TaskStep, TaskWork, RUNTIME_WORK};
use ampsched_model::workload::Wait;
use ampsched_model::CoreSet;

use crate::engine::Engine;
use crate::events::Event;
use crate::interp::{Act, Next};
use crate::local::LocalScheduler;

/// What the runtime measured in a run, summed over its task apps' runs (`RunResult::task_runtime`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskRuntimeStats {
    /// Tasks run, and of them those run on a fast core (`Machine::true_fast_cores`).
    pub tasks_run: u64,
    pub tasks_on_fast: u64,
    /// CATS: tasks found critical when ready, and of them those run on a fast core.
    pub critical: u64,
    pub critical_on_fast: u64,
    /// Thread-ns during which a runtime thread sat idle (spinning for work) while a ready task it
    /// may take was in a queue unclaimed: the work conservation of the runtime itself (0 by
    /// design; a test holds it so).
    pub idle_with_ready_ns: u64,
    /// The longest hand-off: from an idle thread's claim of a pushed task to the task's start
    /// (its wait for the lock and its pop).
    pub max_handoff_ns: u64,
    /// The main thread's continuation resumed by another thread after a taskwait (`default`).
    pub main_moves: u64,
}

impl TaskRuntimeStats {
    pub(crate) fn add(&mut self, o: &TaskRuntimeStats) {
        self.tasks_run += o.tasks_run;
        self.tasks_on_fast += o.tasks_on_fast;
        self.critical += o.critical;
        self.critical_on_fast += o.critical_on_fast;
        self.idle_with_ready_ns += o.idle_with_ready_ns;
        self.max_handoff_ns = self.max_handoff_ns.max(o.max_handoff_ns);
        self.main_moves += o.main_moves;
    }
}

/// What one runtime thread is doing.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Doing {
    /// Just created.
    Start,
    /// The main thread, retiring a serial step.
    Serial,
    /// The main thread, creating the next task.
    Create,
    /// Retiring a task, then blocked on its I/O.
    Run(u32),
    Io(u32),
    /// Has claimed a task of queue `q` (a CATS big core first retries the critical queue).
    Claimed(usize),
    Retrying(usize),
    /// Waiting for, then holding, the lock of its operation (`Worker::op`).
    Locking,
    Holding,
    /// Spinning for work.
    Idle,
    /// Woken to resume the main program.
    Resume,
    Exit,
}

/// A queue operation.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    /// Push `Worker::to_push`; then run `then` (an immediate successor) or, with `main`, go on
    /// with the main program.
    Push { then: Option<u32>, main: bool },
    /// Pop a task of queue `q` (the claim's), from deque `target` (steal).
    Pop { q: usize, target: usize },
}

#[derive(Debug, Clone)]
struct Worker {
    doing: Doing,
    op: Op,
    lock: usize,
    to_push: Vec<u32>,
    /// When it claimed a task from idle (for `max_handoff_ns`).
    claimed_at: Option<u64>,
}

#[derive(Debug, Clone, Default)]
struct Task {
    work: Option<TaskWork>,
    pending: u32,
    succ: Vec<u32>,
    /// Unfinished predecessors, for CATS's bottom levels.
    preds: Vec<u32>,
    blev: u32,
    done: bool,
    critical: bool,
}

/// A lock with FIFO hand-off.
#[derive(Debug, Clone, Default)]
struct QLock {
    holder: Option<u32>,
    waiters: VecDeque<u32>,
}

#[derive(Debug, Clone)]
enum Queues {
    Fifo(fifo::Fifo),
    Cats(cats::Cats),
    Steal(steal::Steal),
}

/// The main program's place: repetition, step, and the next task (or item × stage) of a block
/// (for a serial step, 1 once it has started).
#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
    rep: u32,
    step: usize,
    sub: u64,
}

/// The runtime's state for one run of a task app.
#[derive(Debug, Clone)]
pub(crate) struct TaskRun {
    /// The thread id of the run's first thread (the main group's); runtime thread `t` is
    /// `workers[t - base]`.
    base: u32,
    workers: Vec<Worker>,
    tasks: Vec<Task>,
    queues: Queues,
    locks: Vec<QLock>,
    idle: VecDeque<u32>,
    /// The thread holding the main program.
    main: u32,
    cursor: Cursor,
    /// Tasks created and not finished.
    outstanding: u64,
    /// The main program waits at a taskwait (or the final one); `resume`: that wait is over and
    /// its continuation not yet taken.
    main_waiting: bool,
    resume: bool,
    /// The ends (task i, or item i's last stage) of the block being created and of the one
    /// before it, and that one's join (`after = "all"`).
    cur_ends: Vec<u32>,
    prev_ends: Vec<u32>,
    prev_join: Option<u32>,
    shutdown: bool,
    /// Since when an idle thread has waited while a task it may take was unclaimed.
    idle_with_ready_since: Option<u64>,
    pub(crate) stats: TaskRuntimeStats,
}

impl TaskRun {
    fn worker(&mut self, t: u32) -> &mut Worker {
        &mut self.workers[(t - self.base) as usize]
    }

    fn local(&self, t: u32) -> usize {
        (t - self.base) as usize
    }
}

/// The cores a runtime thread is tied to: the main thread's cluster for `main = "big"` or
/// `"little"` (the fastest or the slowest core type). The truly fastest and slowest (peak
/// rates): a workload pins to a cluster it knows, as an experiment's `taskset` names its CPUs,
/// not to what a reported capacity claims.
pub(crate) fn main_pin(m: &ampsched_model::Machine, placement: MainPlacement) -> Option<CoreSet> {
    let fast = m.true_fast_cores();
    match placement {
        MainPlacement::Default => None,
        MainPlacement::Big => Some(fast),
        MainPlacement::Little => {
            let (_, slow) = ampsched_model::perf::true_sf_types(m);
            Some(CoreSet::from_cores(m.cores.iter().enumerate().filter(|(_, c)| c.core_type == slow).map(|(i, _)| i)))
        }
    }
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    fn tp(&self, a: usize) -> &'a TaskProgram {
        self.w.apps[a].tasks.as_deref().expect("a task app")
    }

    fn rt(&mut self, a: usize) -> &mut TaskRun {
        self.apps[a].runtime.as_deref_mut().expect("a task app's run has its runtime")
    }

    /// The runtime state of a new run of task app `a`, whose threads are created next from id
    /// `base` on.
    pub(crate) fn start_task_run(&mut self, a: usize) {
        let base = self.book.threads.len() as u32;
        let tp = self.tp(a);
        let threads = self.w.apps[a].threads() as usize;
        let queues = match tp.options.scheduler {
            TaskScheduler::Fifo => Queues::Fifo(fifo::Fifo::default()),
            TaskScheduler::Cats => Queues::Cats(cats::Cats::default()),
            // One stream per run: the run's seed and its first thread id (runs and restarts differ).
            TaskScheduler::Steal => Queues::Steal(steal::Steal::new(threads, self.cfg.seed ^ (base as u64).wrapping_mul(0x9E37_79B9))),
        };
        let locks = match tp.options.scheduler {
            TaskScheduler::Steal => vec![QLock::default(); threads],
            _ => vec![QLock::default()],
        };
        let worker = Worker { doing: Doing::Start, op: Op::Pop { q: 0, target: 0 }, lock: 0, to_push: Vec::new(), claimed_at: None };
        let stats = self.apps[a].runtime.take().map(|r| r.stats).unwrap_or_default();
        self.apps[a].runtime = Some(Box::new(TaskRun {
            base,
            workers: vec![worker; threads],
            tasks: Vec::new(),
            queues,
            locks,
            idle: VecDeque::new(),
            main: base,
            cursor: Cursor::default(),
            outstanding: 0,
            main_waiting: false,
            resume: false,
            cur_ends: Vec::new(),
            prev_ends: Vec::new(),
            prev_join: None,
            shutdown: false,
            idle_with_ready_since: None,
            stats,
        }));
    }

    /// The cores runtime thread `t` of app `a` is tied to (`main_pin`), if any: only the first
    /// thread (the main thread) is, and only for `main = "big" | "little"`.
    pub(crate) fn runtime_pin(&self, t: u32) -> Option<CoreSet> {
        let a = self.flow.get(t as usize)?.app as usize;
        let tp = self.w.apps[a].tasks.as_deref()?;
        let run = self.apps[a].runtime.as_deref()?;
        if t != run.base {
            return None;
        }
        main_pin(self.m, tp.options.main)
    }

    /// Thread `t`'s current work, wait or I/O is over: what it does next.
    pub(crate) fn task_advance(&mut self, t: u32) -> Next {
        let a = self.flow[t as usize].app as usize;
        let next = self.task_step(a, t);
        self.check_idle_with_ready(a);
        next
    }

    fn task_step(&mut self, a: usize, t: u32) -> Next {
        loop {
            let doing = self.rt(a).worker(t).doing;
            let next = match doing {
                Doing::Start => {
                    if self.rt(a).main == t {
                        self.main_next(a, t)
                    } else {
                        self.look_for_work(a, t)
                    }
                }
                Doing::Serial => {
                    let c = &mut self.rt(a).cursor;
                    c.step += 1;
                    c.sub = 0;
                    self.main_next(a, t)
                }
                Doing::Create => match self.create_task(a) {
                    Some(id) => self.push(a, t, vec![id], Op::Push { then: None, main: true }),
                    None => self.main_next(a, t),
                },
                Doing::Run(id) => {
                    let io = self.rt(a).tasks[id as usize].work.map_or(0, |w| w.io_ns);
                    if io > 0 {
                        self.rt(a).worker(t).doing = Doing::Io(id);
                        self.flow[t as usize].act = Act::Off;
                        Some(Next::Sleep(io))
                    } else {
                        self.complete(a, t, id)
                    }
                }
                Doing::Io(id) => self.complete(a, t, id),
                Doing::Claimed(q) => {
                    let retry = matches!(self.rt(a).queues, Queues::Cats(_)) && q == cats::LOW && self.on_fast(t);
                    if retry {
                        self.rt(a).worker(t).doing = Doing::Retrying(q);
                        self.compute(t, RUNTIME_WORK, cats::SPIN_INSTRUCTIONS)
                    } else {
                        self.pop(a, t, q)
                    }
                }
                Doing::Retrying(q) => self.pop(a, t, q),
                Doing::Locking => self.hold(a, t),
                Doing::Holding => self.operate(a, t),
                Doing::Idle => unreachable!("an idle runtime thread is woken with something to do"),
                Doing::Resume => self.main_next(a, t),
                Doing::Exit => Some(Next::Exit),
            };
            if let Some(next) = next {
                return next;
            }
        }
    }

    /// Retire `instructions` of work kind `kind`; None (go on at once) when there are none.
    fn compute(&mut self, t: u32, kind: u32, instructions: f64) -> Option<Next> {
        if instructions <= 0.0 {
            return None;
        }
        let f = &mut self.flow[t as usize];
        f.pc = kind;
        f.act = Act::Compute { remaining: instructions };
        Some(Next::Compute)
    }

    /// For each idle thread of app `a`'s run, in order, whether it is on a fast core.
    fn idle_on_fast(&self, a: usize) -> Vec<bool> {
        let rt = self.apps[a].runtime.as_deref().expect("a task app's run has its runtime");
        rt.idle.iter().map(|&w| self.on_fast(w)).collect()
    }

    /// Whether `t` is on (or queued on, or last ran on) a fast core.
    fn on_fast(&self, t: u32) -> bool {
        let c = self.book.threads[t as usize].core.or(self.last_ran[t as usize].map(|c| c as usize));
        // Truly fast (peak rates), as `main_pin`: the runtime knows its machine's clusters.
        c.is_some_and(|c| self.m.is_truly_fast(c))
    }

    /// The main program goes on from its cursor (thread `t` holds it).
    fn main_next(&mut self, a: usize, t: u32) -> Option<Next> {
        let tp = self.tp(a);
        loop {
            let c = self.rt(a).cursor;
            if c.step == tp.steps.len() {
                let c = &mut self.rt(a).cursor;
                c.rep += 1;
                c.step = 0;
                continue;
            }
            if c.rep >= tp.repeat {
                // The end: an implicit taskwait, then every runtime thread exits.
                if self.rt(a).outstanding > 0 {
                    return self.wait_for_tasks(a, t);
                }
                self.shut_down(a, t);
                return Some(Next::Exit);
            }
            match &tp.steps[c.step] {
                TaskStep::Serial { work } if c.sub == 0 => {
                    let rt = self.rt(a);
                    rt.cursor.sub = 1;
                    rt.worker(t).doing = Doing::Serial;
                    return self.compute(t, work.kind, work.instructions);
                }
                TaskStep::Serial { .. } => unreachable!("a serial step in progress is the thread's own work"),
                step @ (TaskStep::Tasks { .. } | TaskStep::Pipeline { .. }) => {
                    if c.sub == 0 {
                        let rt = self.rt(a);
                        rt.prev_ends = std::mem::take(&mut rt.cur_ends);
                        rt.prev_join = None;
                    }
                    if c.sub < step.tasks() {
                        self.rt(a).worker(t).doing = Doing::Create;
                        if let Some(next) = self.compute(t, RUNTIME_WORK, tp.options.create_instructions) {
                            return Some(next);
                        }
                        // Free creation: the task now.
                        if let Some(id) = self.create_task(a) {
                            return self.push(a, t, vec![id], Op::Push { then: None, main: true });
                        }
                        continue;
                    }
                    let c = &mut self.rt(a).cursor;
                    c.step += 1;
                    c.sub = 0;
                }
                TaskStep::Taskwait => {
                    let c = &mut self.rt(a).cursor;
                    c.step += 1;
                    c.sub = 0;
                    if self.rt(a).outstanding > 0 {
                        return self.wait_for_tasks(a, t);
                    }
                }
            }
        }
    }

    /// The main thread waits for the tasks created so far, running ready tasks meanwhile.
    fn wait_for_tasks(&mut self, a: usize, t: u32) -> Option<Next> {
        self.rt(a).main_waiting = true;
        self.look_for_work(a, t)
    }

    /// Create the task at the cursor (its work, its dependences on earlier tasks) and move the
    /// cursor past it. Some(id) if it is ready at once.
    fn create_task(&mut self, a: usize) -> Option<u32> {
        let tp = self.tp(a);
        let cats = matches!(self.rt(a).queues, Queues::Cats(_));
        let rt = self.rt(a);
        let c = rt.cursor;
        rt.cursor.sub += 1;
        let id = rt.tasks.len() as u32;
        // The task's work, its index in the block (its item's, for a pipeline), whether it
        // begins its item (and so follows the previous block), whether it ends it (the task a
        // following block's `same` pairs with), and the previous item's task of an ordered stage.
        let (work, index, first_of_item, ends_item, after, ordered_pred) = match &tp.steps[c.step] {
            TaskStep::Tasks { work, after, .. } => (*work, c.sub, true, true, *after, None),
            TaskStep::Pipeline { stages, after, .. } => {
                let s = stages.len() as u64;
                let (item, stage) = (c.sub / s, (c.sub % s) as usize);
                let ordered = (stages[stage].ordered && item > 0).then(|| id - s as u32);
                (stages[stage].work, item, stage == 0, stage + 1 == stages.len(), *after, ordered)
            }
            _ => unreachable!("tasks are created by a block"),
        };
        let mut preds: Vec<u32> = Vec::new();
        if first_of_item {
            match after {
                After::None => {}
                After::Same => preds.extend(rt.prev_ends.get(index as usize).copied()),
                After::All => preds.push(self.join_of_previous(a)),
            }
        } else {
            preds.push(id - 1);
        }
        preds.extend(ordered_pred);
        let rt = self.rt(a);
        let id = rt.tasks.len() as u32;
        rt.tasks.push(Task { work: Some(work), ..Task::default() });
        rt.outstanding += 1;
        if ends_item {
            rt.cur_ends.push(id);
        }
        for p in preds {
            add_dependence(&mut rt.tasks, p, id, cats);
        }
        (rt.tasks[id as usize].pending == 0).then_some(id)
    }

    /// The join of the previous block (`after = "all"`), made at the block's first task: a task
    /// without work after every unfinished end of the previous block.
    fn join_of_previous(&mut self, a: usize) -> u32 {
        let cats = matches!(self.rt(a).queues, Queues::Cats(_));
        let rt = self.rt(a);
        if let Some(j) = rt.prev_join {
            return j;
        }
        let j = rt.tasks.len() as u32;
        rt.tasks.push(Task::default());
        for &p in &rt.prev_ends {
            add_dependence(&mut rt.tasks, p, j, cats);
        }
        rt.tasks[j as usize].done = rt.tasks[j as usize].pending == 0;
        rt.prev_join = Some(j);
        j
    }

    /// Thread `t` finished task `id`: release its successors (joins pass through at once), end
    /// a taskwait it completes, push what became ready (fifo with `immediate_successor`: all
    /// but the first, which `t` runs next).
    fn complete(&mut self, a: usize, t: u32, id: u32) -> Option<Next> {
        let tp = self.tp(a);
        let rt = self.rt(a);
        rt.outstanding -= 1;
        let mut ready = Vec::new();
        let mut done = vec![id];
        while let Some(d) = done.pop() {
            let task = &mut rt.tasks[d as usize];
            task.done = true;
            task.preds = Vec::new();
            for s in std::mem::take(&mut task.succ) {
                let st = &mut rt.tasks[s as usize];
                st.pending -= 1;
                if st.pending == 0 {
                    if st.work.is_some() {
                        ready.push(s);
                    } else {
                        done.push(s);
                    }
                }
            }
        }
        if rt.outstanding == 0 && rt.main_waiting {
            self.taskwait_done(a, t);
        }
        let then = (tp.options.immediate_successor && !ready.is_empty()).then(|| ready.remove(0));
        if !ready.is_empty() {
            return self.push(a, t, ready, Op::Push { then, main: false });
        }
        self.after_task(a, t, then)
    }

    /// What `t` does once it has no more to push: its immediate successor, else look for work.
    fn after_task(&mut self, a: usize, t: u32, then: Option<u32>) -> Option<Next> {
        match then {
            Some(id) => self.run_task(a, t, id),
            None => self.look_for_work(a, t),
        }
    }

    fn run_task(&mut self, a: usize, t: u32, id: u32) -> Option<Next> {
        let fast = self.on_fast(t);
        let rt = self.rt(a);
        rt.worker(t).doing = Doing::Run(id);
        let task = &rt.tasks[id as usize];
        let work = task.work.expect("a task with work");
        rt.stats.tasks_run += 1;
        rt.stats.tasks_on_fast += fast as u64;
        if task.critical {
            rt.stats.critical_on_fast += fast as u64;
        }
        if let Some(at) = rt.worker(t).claimed_at.take() {
            let handoff = self.now - at;
            let rt = self.rt(a);
            rt.stats.max_handoff_ns = rt.stats.max_handoff_ns.max(handoff);
        }
        // None for an I/O-only task: `task_step` goes straight on to its I/O.
        self.compute(t, work.kind, work.instructions)
    }

    /// The last outstanding task of a taskwait has finished (on thread `finisher`).
    fn taskwait_done(&mut self, a: usize, finisher: u32) {
        let placement = self.tp(a).options.main;
        let rt = self.rt(a);
        rt.main_waiting = false;
        let main = rt.main;
        if rt.worker(main).doing == Doing::Idle {
            rt.idle.retain(|&w| w != main);
            rt.worker(main).doing = Doing::Resume;
            self.wake(main);
        } else if placement == MainPlacement::Default && main != finisher {
            // The first free thread takes the continuation (Nanos++: the main work descriptor
            // is resumed by whichever thread is free).
            rt.main = finisher;
            rt.resume = true;
            rt.stats.main_moves += 1;
        } else {
            rt.resume = true;
        }
    }

    /// Thread `t` is free: resume the main program if it holds it and may, else claim a task,
    /// else go idle (spin).
    fn look_for_work(&mut self, a: usize, t: u32) -> Option<Next> {
        let rt = self.rt(a);
        if rt.shutdown {
            rt.worker(t).doing = Doing::Exit;
            return Some(Next::Exit);
        }
        if rt.main == t && rt.resume {
            rt.resume = false;
            return self.main_next(a, t);
        }
        let fast = self.on_fast(t);
        if let Some(q) = self.claim(a, fast) {
            self.rt(a).worker(t).doing = Doing::Claimed(q);
            return None;
        }
        let rt = self.rt(a);
        rt.worker(t).doing = Doing::Idle;
        rt.idle.push_back(t);
        Some(self.start_wait(t, Wait::Spin))
    }

    fn claim(&mut self, a: usize, fast: bool) -> Option<usize> {
        match &mut self.rt(a).queues {
            Queues::Fifo(q) => q.claim().then_some(0),
            Queues::Cats(q) => q.claim(fast),
            Queues::Steal(q) => q.claim().then_some(0),
        }
    }

    /// Take the lock for a pop of a claimed task of queue `q`.
    fn pop(&mut self, a: usize, t: u32, q: usize) -> Option<Next> {
        let rt = self.rt(a);
        let me = rt.local(t);
        let target = match &mut rt.queues {
            Queues::Steal(s) => s.target(me),
            _ => 0,
        };
        let w = rt.worker(t);
        w.op = Op::Pop { q, target };
        w.lock = target;
        self.lock(a, t)
    }

    /// Push `tasks` under the pusher's lock, then `op`'s continuation.
    fn push(&mut self, a: usize, t: u32, tasks: Vec<u32>, op: Op) -> Option<Next> {
        let rt = self.rt(a);
        let me = rt.local(t);
        let lock = if matches!(rt.queues, Queues::Steal(_)) { me } else { 0 };
        let w = rt.worker(t);
        w.to_push = tasks;
        w.op = op;
        w.lock = lock;
        self.lock(a, t)
    }

    /// Acquire the operation's lock: hold it now, or wait (spinning) for a FIFO hand-off.
    fn lock(&mut self, a: usize, t: u32) -> Option<Next> {
        let rt = self.rt(a);
        let l = rt.worker(t).lock;
        let lock = &mut rt.locks[l];
        if lock.holder.is_none() {
            lock.holder = Some(t);
            return self.hold(a, t);
        }
        lock.waiters.push_back(t);
        rt.worker(t).doing = Doing::Locking;
        Some(self.start_wait(t, Wait::Spin))
    }

    /// Holding the lock: retire the operation's instructions.
    fn hold(&mut self, a: usize, t: u32) -> Option<Next> {
        let per_op = self.tp(a).options.queue_op_instructions;
        let rt = self.rt(a);
        let w = rt.worker(t);
        w.doing = Doing::Holding;
        let ops = match w.op {
            Op::Push { .. } => w.to_push.len().max(1),
            Op::Pop { .. } => 1,
        };
        self.compute(t, RUNTIME_WORK, per_op * ops as f64)
    }

    /// The operation is done: its effect on the queues, the lock passed on, the continuation.
    fn operate(&mut self, a: usize, t: u32) -> Option<Next> {
        let rt = self.rt(a);
        let w = rt.worker(t);
        let (op, l) = (w.op, w.lock);
        let to_push = std::mem::take(&mut w.to_push);
        if let Some(next) = rt.locks[l].waiters.pop_front() {
            rt.locks[l].holder = Some(next);
            self.wake(next);
        } else {
            self.rt(a).locks[l].holder = None;
        }
        match op {
            Op::Push { then, main } => {
                for id in to_push {
                    self.enqueue_ready(a, t, id);
                }
                if main {
                    self.main_next(a, t)
                } else {
                    self.after_task(a, t, then)
                }
            }
            Op::Pop { q, target } => {
                let rt = self.rt(a);
                let me = rt.local(t);
                let got = match &mut rt.queues {
                    Queues::Fifo(f) => f.pop(),
                    Queues::Cats(c) => c.pop(q),
                    Queues::Steal(s) => s.pop(me, target),
                };
                match got {
                    Some(id) => self.run_task(a, t, id),
                    None => unreachable!("a claimed pop finds a task"),
                }
            }
        }
    }

    /// Task `id` is in the ready queue (pushed by `t`): an idle thread that may take it claims it.
    fn enqueue_ready(&mut self, a: usize, t: u32, id: u32) {
        let rt = self.rt(a);
        let me = rt.local(t);
        let critical = match &mut rt.queues {
            Queues::Fifo(f) => {
                f.push(id);
                false
            }
            Queues::Steal(s) => {
                s.push(me, id);
                false
            }
            Queues::Cats(c) => {
                let blev = rt.tasks[id as usize].blev;
                let tasks = &rt.tasks;
                let critical = c.is_critical(id, blev, |last| tasks[id as usize].preds.contains(&last));
                c.push(id, blev, critical);
                critical
            }
        };
        if critical {
            rt.tasks[id as usize].critical = true;
            rt.stats.critical += 1;
        }
        // The idle thread that goes for it: the longest idle one that may take it (CATS: a big
        // core for a critical task; a little one, else a big one, for another).
        let fast = self.idle_on_fast(a);
        let rt = self.rt(a);
        let pick = match &rt.queues {
            Queues::Cats(_) if critical => fast.iter().position(|&f| f),
            Queues::Cats(_) => fast.iter().position(|&f| !f).or_else(|| fast.iter().position(|&f| f)),
            _ => (!fast.is_empty()).then_some(0),
        };
        let Some(i) = pick else { return };
        let Some(q) = self.claim(a, fast[i]) else { return };
        let w = self.rt(a).idle.remove(i).expect("picked from the idle list");
        let now = self.now;
        let rt = self.rt(a);
        let wk = rt.worker(w);
        wk.doing = Doing::Claimed(q);
        wk.claimed_at = Some(now);
        self.wake(w);
    }

    /// End the spinning wait of runtime thread `t` now; it goes on (`task_advance`) in an event
    /// of its own at this time, after the handler that woke it, so that what it does next is
    /// decided once the waker's own step is settled.
    fn wake(&mut self, t: u32) {
        let f = &mut self.flow[t as usize];
        debug_assert!(f.waiting);
        f.waiting = false;
        self.able += 1;
        self.events.push(self.now, Event::Wake { thread: t });
    }

    /// The program is over: idle threads exit, busy ones when they are next free.
    fn shut_down(&mut self, a: usize, t: u32) {
        let rt = self.rt(a);
        rt.shutdown = true;
        rt.worker(t).doing = Doing::Exit;
        let idle: Vec<u32> = rt.idle.drain(..).collect();
        for w in idle {
            self.rt(a).worker(w).doing = Doing::Exit;
            self.wake(w);
        }
    }

    /// Keep `idle_with_ready_ns`: an idle thread waits while a task it may take is unclaimed.
    fn check_idle_with_ready(&mut self, a: usize) {
        let fast = self.idle_on_fast(a);
        let now = self.now;
        let rt = self.rt(a);
        let waiting = match &rt.queues {
            Queues::Fifo(f) => f.unclaimed() > 0 && !fast.is_empty(),
            Queues::Steal(s) => s.unclaimed() > 0 && !fast.is_empty(),
            Queues::Cats(c) => fast.iter().any(|&f| c.claimable(f)),
        };
        match (waiting, rt.idle_with_ready_since) {
            (true, None) => rt.idle_with_ready_since = Some(now),
            (false, Some(since)) => {
                rt.stats.idle_with_ready_ns += now - since;
                rt.idle_with_ready_since = None;
            }
            _ => {}
        }
    }
}

/// `succ` waits for `pred` if it has not finished; CATS raises the bottom levels up from `pred`.
fn add_dependence(tasks: &mut [Task], pred: u32, succ: u32, cats: bool) {
    if tasks[pred as usize].done {
        return;
    }
    tasks[pred as usize].succ.push(succ);
    tasks[succ as usize].pending += 1;
    if !cats {
        return;
    }
    tasks[succ as usize].preds.push(pred);
    let mut stack = vec![(pred, tasks[succ as usize].blev + 1)];
    while let Some((p, level)) = stack.pop() {
        let task = &mut tasks[p as usize];
        if task.done || task.blev >= level {
            continue;
        }
        task.blev = level;
        stack.extend(task.preds.iter().map(|&pp| (pp, level + 1)));
    }
}
