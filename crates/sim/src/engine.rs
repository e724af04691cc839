//! The discrete-event engine.
//!
//! Time is integer nanoseconds. Each core time-shares the threads queued on it (see
//! `runqueue`); an idle core pulls a runnable thread allowed on it; a periodic balancer evens
//! queue lengths. The policy is called every quantum and on thread start, exit, block and wake
//! (the ones it asks for), and its placement (per-thread allowed cores) is applied at once.
//!
//! A core has at most one live event: the moment its running thread finishes its current work
//! or its time slice, whichever is first. Everything else (arrivals, I/O completions, the
//! policy's quantum, balancing) is an event of its own. A handler records the triggers it
//! causes; `settle` then calls the policy for them and starts the threads they woke, so the
//! policy always sees a consistent system.

use std::collections::VecDeque;

use ampsched_model::machine::MAX_CORE_TYPES;
use ampsched_model::rng::Rng;
use ampsched_model::workload::{Phase, Scope, Wait};
use ampsched_model::{
    AppView, CoreSet, CoreView, Machine, PerfModel, Placement, Policy, Signals, ThreadState, ThreadView, Trigger, ViewBook,
    Workload,
};

use crate::events::{Event, EventQueue};
use crate::result::{AppResult, CoreResult, RunResult, Segment, TraceMark};
use crate::runqueue::{weight_of_nice, RunQueue};
use crate::sync::{Barrier, Lock};

/// Engine settings that are not part of the machine or the workload.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// The local scheduler's time slice (`defaults::SLICE_MS`).
    pub slice_ns: u64,
    /// Period of the local scheduler's load balancing (Linux balances every few ms per domain).
    pub balance_ns: u64,
    pub seed: u64,
    /// Record every run segment of every core (for traces and timelines), up to this many.
    pub max_segments: usize,
}

pub const DEFAULT_SLICE_NS: u64 = (ampsched_model::defaults::SLICE_MS * 1e6) as u64;
pub const DEFAULT_BALANCE_NS: u64 = 10_000_000;

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { slice_ns: DEFAULT_SLICE_NS, balance_ns: DEFAULT_BALANCE_NS, seed: ampsched_model::defaults::SEED, max_segments: 0 }
    }
}

/// Why a run could not complete.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// No thread can ever make progress again.
    Deadlock(String),
    /// The policy asked for something impossible.
    Policy(String),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Deadlock(m) => write!(f, "the workload can never finish: {m}"),
            SimError::Policy(m) => write!(f, "policy error: {m}"),
        }
    }
}

/// Where a thread is in its phase list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// About to begin phase `pc`.
    Enter,
    /// Retiring a compute phase's instructions.
    Computing,
    /// Off the CPU in a sleep phase.
    Sleeping,
    /// Waiting for a barrier (or, as a non-leader, for a serial section) to release it.
    SyncWait,
    /// The serial leader, waiting for the others to arrive.
    LeaderWait,
    /// The serial leader, retiring the serial instructions.
    Leading,
    /// Critical phase, iteration i: retiring the instructions between acquisitions.
    Between(u32),
    /// Critical phase, iteration i: waiting for the lock.
    Acquiring(u32),
    /// Critical phase, iteration i: holding the lock.
    Inside(u32),
}

/// What a thread does on the CPU right now.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Act {
    Compute { remaining: f64 },
    /// Spin-waiting; `budget` is the CPU time left before it blocks (None: spins forever).
    Spin { budget: Option<u64> },
    /// Off the CPU (blocked, sleeping, exited, or not started).
    Off,
}

/// What a thread does next, once its current work or wait is over.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Next {
    Compute,
    Spin,
    Block,
    Sleep(u64),
    Exit,
}

/// The engine's private per-thread state (the policy sees `ThreadView`).
#[derive(Debug, Clone)]
struct ThreadRt {
    app: u32,
    group: u32,
    /// Index of the current phase in the group's list repeated `repeat` times.
    pc: u32,
    step: Step,
    act: Act,
    /// ns per instruction of the current chunk on each core type.
    tpi: [f64; MAX_CORE_TYPES],
    llc_mpki: f64,
    vruntime: u64,
    /// The thread's key in its run queue.
    qkey: (u64, u64),
    /// vruntime minus the queue floor, kept while the thread is off any queue.
    lag: i64,
    /// The core it last ran on: a run elsewhere is a migration.
    last_ran: Option<usize>,
    /// The migration charged at its latest dispatch (previous core, cost), until it has run: a
    /// dispatch undone in the same instant (the policy moved it at once) is no migration.
    unpaid_move: Option<(Option<usize>, u64)>,
    weight: u32,
    queued_on: Option<u32>,
    /// Time the thread still owes to its last migration before it makes progress.
    debt_ns: u64,
    /// In a wait (barrier, serial, lock): counted out of `able`.
    waiting: bool,
}

#[derive(Debug, Clone)]
struct CoreRt {
    running: Option<u32>,
    queue: RunQueue,
    gen: u32,
    /// When the running thread was last accounted.
    seg_start: u64,
    /// When the running thread was dispatched (start of its trace segment).
    run_start: u64,
    slice_end: u64,
    /// When the running thread's current work (after paying its debt) completes.
    work_end: u64,
    busy_ns: u64,
    /// Marked for re-planning at the end of the current handler.
    dirty: bool,
}

#[derive(Debug, Clone, Default)]
struct AppRt {
    runs_done: u32,
    measured: Vec<u64>,
    run_start: u64,
    /// Threads of the current run that have not exited.
    live: u32,
    /// First thread id of each group of the current run.
    group_first: Vec<u32>,
    group_barriers: Vec<Barrier>,
    app_barrier: Barrier,
    locks: Vec<Lock>,
    done: bool,
    all_threads: Vec<u32>,
}

struct Pending {
    thread: u32,
    trigger: Option<Trigger>,
    enqueue: bool,
}

pub struct Engine<'a> {
    m: &'a Machine,
    w: &'a Workload,
    model: &'a dyn PerfModel,
    policy: &'a mut dyn Policy,
    cfg: SimConfig,
    now: u64,
    events: EventQueue,
    cores: Vec<CoreRt>,
    /// What the policy sees (threads, apps, cores, lock edges), kept as the run goes.
    book: ViewBook,
    rts: Vec<ThreadRt>,
    apps: Vec<AppRt>,
    rng: Rng,
    /// Live threads that are not waiting on a synchronisation object: if this and the number of
    /// future arrivals both reach zero before the end, nothing can ever move again.
    able: u64,
    arrivals_left: u32,
    apps_left: u32,
    pending: VecDeque<Pending>,
    dirty: Vec<u32>,
    placement: Placement,
    stats: Stats,
    segments: Vec<Segment>,
    marks: Vec<TraceMark>,
    fast_type_mask: [bool; MAX_CORE_TYPES],
}

#[derive(Default)]
struct Stats {
    events: u64,
    policy_calls: u64,
    decisions: u64,
    migrations: u64,
    segments_dropped: u64,
}

/// What the simulator measures for a policy: everything but the program hints a workload does
/// not give.
pub fn simulator_signals(w: &Workload) -> Signals {
    let all = Signals::COUNTERS | Signals::LOCKS | Signals::SPIN | Signals::SIMULATOR;
    if w.has_signatures() {
        all | Signals::HINTS
    } else {
        all
    }
}

/// How far down another core's queue an idle core looks for a thread allowed on it: bounds the
/// cost of a pull when affinities exclude most queued threads.
const PULL_SCAN_LIMIT: usize = 64;

impl<'a> Engine<'a> {
    pub fn new(m: &'a Machine, w: &'a Workload, model: &'a dyn PerfModel, policy: &'a mut dyn Policy, cfg: SimConfig) -> Self {
        let fast_type_mask = m.fast_type_mask();
        let cores = (0..m.num_cores())
            .map(|_| CoreRt {
                running: None,
                queue: RunQueue::default(),
                gen: 0,
                seg_start: 0,
                run_start: 0,
                slice_end: 0,
                work_end: 0,
                busy_ns: 0,
                dirty: false,
            })
            .collect();
        let mut book = ViewBook::new(m.num_cores(), simulator_signals(w), policy.quantum_ns().is_some());
        book.apps = w
            .apps
            .iter()
            .enumerate()
            .map(|(i, a)| AppView { signatures: a.groups.iter().map(|g| g.signature).collect(), ..AppView::new(i as u32, a.name.clone(), a.priority) })
            .collect();
        Engine {
            m,
            w,
            model,
            policy,
            rng: Rng::new(cfg.seed),
            cfg,
            now: 0,
            events: EventQueue::default(),
            cores,
            book,
            rts: Vec::new(),
            apps: vec![AppRt::default(); w.apps.len()],
            able: 0,
            arrivals_left: 0,
            apps_left: w.apps.len() as u32,
            pending: VecDeque::new(),
            dirty: Vec::new(),
            placement: Placement::default(),
            stats: Stats::default(),
            segments: Vec::new(),
            marks: Vec::new(),
            fast_type_mask,
        }
    }

    /// Run the workload to completion.
    pub fn run(mut self) -> Result<RunResult, SimError> {
        for (i, a) in self.w.apps.iter().enumerate() {
            self.events.push(a.arrival_ns, Event::Arrival { app: i as u32 });
            self.arrivals_left += 1;
        }
        if let Some(q) = self.policy.quantum_ns() {
            self.events.push(q.max(1), Event::Quantum);
        }
        self.events.push(self.cfg.balance_ns, Event::Balance);

        while self.apps_left > 0 {
            let Some((t, ev)) = self.events.pop() else {
                return Err(self.deadlock());
            };
            debug_assert!(t >= self.now, "time went backwards");
            self.now = t;
            match ev {
                Event::Core { core, gen } => {
                    if self.cores[core as usize].gen != gen {
                        continue;
                    }
                    self.on_core_event(core as usize);
                }
                Event::Arrival { app } => {
                    self.arrivals_left -= 1;
                    self.spawn_run(app as usize);
                }
                Event::Wake { thread } => self.finish_step(thread),
                Event::Quantum => {
                    self.call_policy(Trigger::Quantum)?;
                    if let Some(q) = self.policy.quantum_ns() {
                        self.events.push(self.now + q.max(1), Event::Quantum);
                    }
                }
                Event::Balance => {
                    self.balance();
                    self.events.push(self.now + self.cfg.balance_ns, Event::Balance);
                }
            }
            self.stats.events += 1;
            self.settle()?;
            if self.able == 0 && self.arrivals_left == 0 && self.apps_left > 0 {
                return Err(self.deadlock());
            }
        }
        Ok(self.finish())
    }

    // ----- threads and apps -------------------------------------------------------------

    fn spawn_run(&mut self, a: usize) {
        let app = &self.w.apps[a];
        let weight = weight_of_nice(app.priority);
        let run = &mut self.apps[a];
        run.run_start = self.now;
        run.live = app.threads();
        run.group_first.clear();
        run.group_barriers = vec![Barrier::default(); app.groups.len()];
        run.app_barrier = Barrier::default();
        run.locks = vec![Lock::default(); app.locks.len()];
        self.book.apps[a].live_threads = app.threads();
        for (g, group) in app.groups.iter().enumerate() {
            self.apps[a].group_first.push(self.book.threads.len() as u32);
            for i in 0..group.count {
                let id = self.book.threads.len() as u32;
                self.book.add_thread(ThreadView::started(id, a as u32, g as u16, i, group.kind, self.m.all_cores(), self.now));
                self.rts.push(ThreadRt {
                    app: a as u32,
                    group: g as u32,
                    pc: 0,
                    step: Step::Enter,
                    act: Act::Off,
                    tpi: [0.0; MAX_CORE_TYPES],
                    llc_mpki: 0.0,
                    vruntime: 0,
                    qkey: (0, 0),
                    lag: 0,
                    last_ran: None,
                    unpaid_move: None,
                    weight,
                    queued_on: None,
                    debt_ns: 0,
                    waiting: false,
                });
                self.apps[a].all_threads.push(id);
                self.able += 1;
                // The thread's first step decides whether it starts on a CPU at all.
                let next = self.advance(id);
                self.apply_next(id, next, true);
            }
        }
    }

    fn phase_of(&self, t: u32) -> Option<&'a Phase> {
        let rt = &self.rts[t as usize];
        let group = &self.w.apps[rt.app as usize].groups[rt.group as usize];
        let n = group.phases.len() as u32;
        if rt.pc >= n * group.repeat {
            None
        } else {
            Some(&group.phases[(rt.pc % n) as usize])
        }
    }

    fn set_compute(&mut self, t: u32, instructions: f64, profile: &ampsched_model::Profile) {
        let rt = &mut self.rts[t as usize];
        rt.tpi = self.model.ns_per_instruction_by_type(self.m, profile);
        rt.llc_mpki = profile.llc_mpki;
        rt.act = Act::Compute { remaining: instructions };
    }

    fn start_wait(&mut self, t: u32, wait: Wait) -> Next {
        let rt = &mut self.rts[t as usize];
        if !rt.waiting {
            rt.waiting = true;
            self.able -= 1;
        }
        match wait {
            Wait::Block => {
                rt.act = Act::Off;
                Next::Block
            }
            Wait::Spin => {
                rt.act = Act::Spin { budget: None };
                Next::Spin
            }
            Wait::SpinThenBlock { limit_ns } => {
                rt.act = Act::Spin { budget: Some(limit_ns) };
                Next::Spin
            }
        }
    }

    /// Move thread `t` past its finished work or wait, to its next activity.
    fn advance(&mut self, t: u32) -> Next {
        loop {
            let Some(phase) = self.phase_of(t) else {
                self.rts[t as usize].act = Act::Off;
                return Next::Exit;
            };
            let step = self.rts[t as usize].step;
            match (phase, step) {
                (Phase::Compute { instructions, profile }, Step::Enter) => {
                    self.set_compute(t, *instructions, profile);
                    self.rts[t as usize].step = Step::Computing;
                    return Next::Compute;
                }
                (Phase::Sleep { ns }, Step::Enter) => {
                    self.rts[t as usize].step = Step::Sleeping;
                    self.rts[t as usize].act = Act::Off;
                    return Next::Sleep(*ns);
                }
                (Phase::Barrier { wait, scope }, Step::Enter) => {
                    if self.arrive(t, *scope, false) {
                        self.next_phase(t);
                        continue;
                    }
                    self.rts[t as usize].step = Step::SyncWait;
                    return self.start_wait(t, *wait);
                }
                (Phase::Serial { instructions, profile, wait, scope }, Step::Enter) => {
                    let leader = self.leader(t, *scope);
                    let complete = self.arrive(t, *scope, true);
                    if complete && leader == t {
                        self.set_compute(t, *instructions, profile);
                        self.rts[t as usize].step = Step::Leading;
                        return Next::Compute;
                    }
                    self.rts[t as usize].step = if leader == t { Step::LeaderWait } else { Step::SyncWait };
                    let next = self.start_wait(t, *wait);
                    if complete {
                        self.release(leader);
                    }
                    return next;
                }
                (Phase::Serial { instructions, profile, .. }, Step::LeaderWait) => {
                    self.set_compute(t, *instructions, profile);
                    self.rts[t as usize].step = Step::Leading;
                    return Next::Compute;
                }
                (Phase::Serial { scope, .. }, Step::Leading) => {
                    let held = std::mem::take(&mut self.barrier_mut(t, *scope).held);
                    for w in held {
                        self.release(w);
                    }
                    self.next_phase(t);
                }
                (Phase::Critical { between_instructions, profile, .. }, Step::Enter) => {
                    if *between_instructions > 0.0 {
                        self.set_compute(t, *between_instructions, profile);
                        self.rts[t as usize].step = Step::Between(0);
                        return Next::Compute;
                    }
                    self.rts[t as usize].step = Step::Between(0);
                }
                (Phase::Critical { lock, cs_instructions, profile, wait, .. }, Step::Between(i)) => {
                    let app = self.rts[t as usize].app as usize;
                    let l = &mut self.apps[app].locks[*lock];
                    match l.holder {
                        None => {
                            l.holder = Some(t);
                            l.holder_since = self.now;
                            self.set_compute(t, *cs_instructions, profile);
                            self.rts[t as usize].step = Step::Inside(i);
                            return Next::Compute;
                        }
                        Some(h) => {
                            l.queue.push_back((t, self.now));
                            self.book.threads[t as usize].waiting_for = Some(h);
                            self.rts[t as usize].step = Step::Acquiring(i);
                            return self.start_wait(t, *wait);
                        }
                    }
                }
                (Phase::Critical { cs_instructions, profile, .. }, Step::Acquiring(i)) => {
                    self.set_compute(t, *cs_instructions, profile);
                    self.rts[t as usize].step = Step::Inside(i);
                    return Next::Compute;
                }
                (Phase::Critical { lock, count, between_instructions, profile, .. }, Step::Inside(i)) => {
                    self.unlock(t, *lock);
                    if i + 1 == *count {
                        self.next_phase(t);
                        continue;
                    }
                    self.rts[t as usize].step = Step::Between(i + 1);
                    if *between_instructions > 0.0 {
                        self.set_compute(t, *between_instructions, profile);
                        return Next::Compute;
                    }
                }
                (_, Step::Computing | Step::Sleeping | Step::SyncWait) => self.next_phase(t),
                (phase, step) => unreachable!("thread {t} in step {step:?} of phase {phase:?}"),
            }
        }
    }

    fn next_phase(&mut self, t: u32) {
        let rt = &mut self.rts[t as usize];
        rt.pc += 1;
        rt.step = Step::Enter;
    }

    fn leader(&self, t: u32, scope: Scope) -> u32 {
        let rt = &self.rts[t as usize];
        let run = &self.apps[rt.app as usize];
        match scope {
            Scope::Group => run.group_first[rt.group as usize],
            Scope::App => run.group_first[0],
        }
    }

    fn barrier_mut(&mut self, t: u32, scope: Scope) -> &mut Barrier {
        let rt = &self.rts[t as usize];
        let run = &mut self.apps[rt.app as usize];
        match scope {
            Scope::Group => &mut run.group_barriers[rt.group as usize],
            Scope::App => &mut run.app_barrier,
        }
    }

    /// Thread `t` arrives at its barrier; true if it is the last, in which case the waiters are
    /// released (a plain barrier) or held for the leader (a serial section).
    fn arrive(&mut self, t: u32, scope: Scope, serial: bool) -> bool {
        let rt = &self.rts[t as usize];
        let app = &self.w.apps[rt.app as usize];
        let needed = match scope {
            Scope::Group => app.groups[rt.group as usize].count,
            Scope::App => app.threads(),
        };
        let leader = self.leader(t, scope);
        let b = self.barrier_mut(t, scope);
        b.arrived += 1;
        if b.arrived < needed {
            b.waiters.push(t);
            return false;
        }
        b.arrived = 0;
        let waiters = std::mem::take(&mut b.waiters);
        if serial {
            b.held = waiters.iter().copied().filter(|&w| w != leader).collect();
            if t != leader {
                b.held.push(t);
            }
        } else {
            for w in waiters {
                self.release(w);
            }
        }
        true
    }

    fn unlock(&mut self, t: u32, lock: usize) {
        let app = self.rts[t as usize].app as usize;
        let now = self.now;
        let l = &mut self.apps[app].locks[lock];
        debug_assert_eq!(l.holder, Some(t));
        let mut caused = 0;
        for &(w, since) in &l.queue {
            let waited = now - since.max(l.holder_since);
            caused += waited;
            self.book.add_lock_wait(w, t, waited);
        }
        self.book.threads[t as usize].lock_wait_caused_ns += caused;
        match l.queue.pop_front() {
            None => l.holder = None,
            Some((next, since)) => {
                l.holder = Some(next);
                l.holder_since = now;
                let waiters: Vec<u32> = l.queue.iter().map(|&(w, _)| w).collect();
                let v = &mut self.book.threads[next as usize];
                v.lock_wait_ns += now - since;
                v.waiting_for = None;
                for w in waiters {
                    self.book.threads[w as usize].waiting_for = Some(next);
                }
                self.release(next);
            }
        }
    }

    /// End the wait of thread `t` (a barrier, serial section or lock let it go).
    fn release(&mut self, t: u32) {
        let rt = &mut self.rts[t as usize];
        debug_assert!(rt.waiting);
        rt.waiting = false;
        self.able += 1;
        self.finish_step(t);
    }

    /// Thread `t`'s current work, wait or sleep is over: account it, advance, and apply the next step.
    fn finish_step(&mut self, t: u32) {
        let state = self.book.threads[t as usize].state;
        if state == ThreadState::Running {
            let c = self.book.threads[t as usize].core.expect("running thread has a core") as usize;
            self.account(c);
        }
        let next = self.advance(t);
        self.apply_next(t, next, false);
    }

    /// Put thread `t` where its next activity needs it. `is_new`: the thread was just created.
    fn apply_next(&mut self, t: u32, next: Next, is_new: bool) {
        let state = self.book.threads[t as usize].state;
        let on_cpu = !is_new && state.is_runnable();
        let was_off = !is_new && !on_cpu;
        self.book.threads[t as usize].spinning = next == Next::Spin;
        match next {
            Next::Compute | Next::Spin if on_cpu => {
                if state == ThreadState::Running {
                    self.mark_dirty(self.book.threads[t as usize].core.expect("running thread has a core") as u32);
                }
            }
            Next::Compute | Next::Spin => {
                self.set_state(t, ThreadState::Ready);
                let trigger = if is_new { Trigger::Start(t) } else { Trigger::Wake(t) };
                self.pending.push_back(Pending { thread: t, trigger: Some(trigger), enqueue: true });
            }
            Next::Block | Next::Sleep(_) => {
                if on_cpu {
                    self.take_off_cpu(t);
                }
                if let Next::Sleep(ns) = next {
                    self.set_state(t, ThreadState::Sleeping);
                    self.events.push(self.now + ns, Event::Wake { thread: t });
                } else {
                    self.set_state(t, ThreadState::Blocked);
                }
                // A thread already off the CPU that goes straight into another wait has not blocked anew.
                if !was_off {
                    let trigger = if is_new { Trigger::Start(t) } else { Trigger::Block(t) };
                    self.pending.push_back(Pending { thread: t, trigger: Some(trigger), enqueue: false });
                }
            }
            Next::Exit => {
                if on_cpu {
                    self.take_off_cpu(t);
                }
                self.exit(t);
            }
        }
    }

    fn take_off_cpu(&mut self, t: u32) {
        let v = &self.book.threads[t as usize];
        let rt = &mut self.rts[t as usize];
        match v.state {
            ThreadState::Running => {
                let c = v.core.unwrap();
                self.stop_running(c);
                self.mark_dirty(c as u32);
            }
            ThreadState::Ready => {
                if let Some(c) = rt.queued_on.take() {
                    let core = &mut self.cores[c as usize];
                    core.queue.remove(rt.qkey, t);
                    rt.lag = rt.vruntime as i64 - core.queue.min_vruntime as i64;
                }
            }
            _ => {}
        }
    }

    fn exit(&mut self, t: u32) {
        self.book.set_state(t, ThreadState::Exited);
        self.able -= 1;
        let a = self.rts[t as usize].app as usize;
        self.book.apps[a].live_threads -= 1;
        self.pending.push_back(Pending { thread: t, trigger: Some(Trigger::Exit(t)), enqueue: false });
        let run = &mut self.apps[a];
        run.live -= 1;
        if run.live > 0 {
            return;
        }
        let app = &self.w.apps[a];
        if !run.done {
            run.measured.push(self.now - run.run_start);
            run.runs_done += 1;
            if run.runs_done >= app.runs {
                run.done = true;
                self.apps_left -= 1;
            }
        }
        if self.apps_left > 0 && (!run.done || self.w.constant_load) {
            // The next run starts now, as an event of its own (not a nested call).
            self.arrivals_left += 1;
            self.events.push(self.now, Event::Arrival { app: a as u32 });
        }
    }

    // ----- cores ------------------------------------------------------------------------

    fn mark_dirty(&mut self, c: u32) {
        let core = &mut self.cores[c as usize];
        if !core.dirty {
            core.dirty = true;
            self.dirty.push(c);
        }
    }

    /// Credit the running thread of core `c` with what it did since it was last accounted.
    fn account(&mut self, c: usize) {
        let core = &mut self.cores[c];
        let Some(t) = core.running else { return };
        let elapsed = self.now - core.seg_start;
        if elapsed == 0 {
            return;
        }
        core.seg_start = self.now;
        core.busy_ns += elapsed;
        let done = self.now >= core.work_end;
        let ty = self.m.cores[c].core_type;
        self.book.mark_ran(t);
        let rt = &mut self.rts[t as usize];
        let v = &mut self.book.threads[t as usize];
        rt.unpaid_move = None;
        let paid = rt.debt_ns.min(elapsed);
        rt.debt_ns -= paid;
        let useful = elapsed - paid;
        let ctr = &mut v.per_type[ty];
        ctr.time_ns += elapsed;
        ctr.cycles += elapsed as f64 * self.m.core_types[ty].freq_ghz;
        match &mut rt.act {
            Act::Compute { remaining } => {
                let retired = if done { *remaining } else { (useful as f64 / rt.tpi[ty]).min(*remaining) };
                *remaining -= retired;
                ctr.instructions += retired;
                ctr.llc_misses += retired * rt.llc_mpki / 1000.0;
            }
            Act::Spin { budget } => {
                v.spin_ns += useful;
                if let Some(b) = budget {
                    *b = b.saturating_sub(useful);
                }
            }
            Act::Off => {}
        }
        rt.vruntime += elapsed * 1024 / rt.weight as u64;
        // As CFS's min_vruntime: the floor follows the smallest of the running and queued vruntimes.
        let floor = core.queue.first_vruntime().map_or(rt.vruntime, |q| q.min(rt.vruntime));
        core.queue.advance_floor(floor);
    }

    /// Schedule core `c`'s next event for its running thread.
    fn plan(&mut self, c: usize) {
        let core = &mut self.cores[c];
        let t = core.running.expect("plan needs a running thread");
        let rt = &self.rts[t as usize];
        let ty = self.m.cores[c].core_type;
        let work = match rt.act {
            // Rounded to the nearest ns (float noise must not add a ns); never 0 while work remains.
            Act::Compute { remaining } if remaining > 0.0 => ((remaining * rt.tpi[ty]).round() as u64).max(1),
            Act::Compute { .. } => 0,
            Act::Spin { budget: Some(b) } => b,
            Act::Spin { budget: None } => u64::MAX / 4,
            Act::Off => unreachable!("a running thread has something to do"),
        };
        core.work_end = self.now + rt.debt_ns + work;
        core.gen = core.gen.wrapping_add(1);
        self.events.push(core.work_end.min(core.slice_end), Event::Core { core: c as u32, gen: core.gen });
    }

    fn on_core_event(&mut self, c: usize) {
        self.account(c);
        let core = &self.cores[c];
        let t = core.running.expect("a core event has a running thread");
        if self.now >= core.work_end {
            match self.rts[t as usize].act {
                Act::Spin { .. } => {
                    // A spin-then-block wait used up its spin budget: block, still waiting.
                    self.rts[t as usize].act = Act::Off;
                    self.book.threads[t as usize].spinning = false;
                    self.stop_running(c);
                    self.set_state(t, ThreadState::Blocked);
                    self.pending.push_back(Pending { thread: t, trigger: Some(Trigger::Block(t)), enqueue: false });
                }
                _ => {
                    let next = self.advance(t);
                    self.apply_next(t, next, false);
                }
            }
        }
        self.mark_dirty(c as u32);
    }

    /// Remove the running thread from core `c` (it blocked, exited, was preempted or moved).
    fn stop_running(&mut self, c: usize) {
        let core = &mut self.cores[c];
        let Some(t) = core.running.take() else { return };
        core.gen = core.gen.wrapping_add(1);
        if self.segments.len() < self.cfg.max_segments {
            if self.now > core.run_start {
                self.segments.push(Segment { core: c as u32, thread: t, start_ns: core.run_start, end_ns: self.now });
            }
        } else if self.cfg.max_segments > 0 {
            self.stats.segments_dropped += 1;
        }
        let rt = &mut self.rts[t as usize];
        rt.lag = rt.vruntime as i64 - core.queue.min_vruntime as i64;
        if let Some((prev, cost)) = rt.unpaid_move.take() {
            // Taken off in the instant it was dispatched: it never ran here, so it did not move.
            let counted = prev.is_some();
            rt.debt_ns -= cost;
            rt.last_ran = prev;
            if counted {
                self.book.threads[t as usize].migrations -= 1;
                self.stats.migrations -= 1;
            }
            if matches!(self.marks.last(), Some(TraceMark::Migration { time_ns, thread, .. }) if *time_ns == self.now && *thread == t) {
                self.marks.pop();
            }
        }
    }

    /// Give core `c` something to run: keep its thread, switch at slice end, or pick/pull one.
    fn reschedule(&mut self, c: usize) {
        if let Some(t) = self.cores[c].running {
            if self.now >= self.cores[c].slice_end {
                if self.cores[c].queue.is_empty() {
                    self.cores[c].slice_end = self.now + self.cfg.slice_ns;
                } else {
                    // Slice over and others wait: back into the queue (CFS picks the smallest vruntime next).
                    self.stop_running(c);
                    self.book.threads[t as usize].state = ThreadState::Ready;
                    self.enqueue_on(t, c);
                }
            }
        }
        if self.cores[c].running.is_none() {
            let next = match self.cores[c].queue.pop_first() {
                Some((_, t)) => Some(t),
                None => self.pull(c),
            };
            match next {
                Some(t) => self.dispatch(c, t),
                None => return,
            }
        }
        self.plan(c);
    }

    fn dispatch(&mut self, c: usize, t: u32) {
        let rt = &mut self.rts[t as usize];
        rt.queued_on = None;
        let v = &mut self.book.threads[t as usize];
        if let Some(prev) = rt.last_ran {
            if prev != c {
                // A migration: the thread pays a fixed cost, and refills the LLC if it left its domain.
                let mut cost = self.m.migration.fixed_ns;
                if self.m.cores[prev].llc != self.m.cores[c].llc {
                    cost += self.m.migration.llc_refill_ns;
                }
                rt.debt_ns += cost;
                rt.unpaid_move = Some((Some(prev), cost));
                v.migrations += 1;
                self.stats.migrations += 1;
                if self.cfg.max_segments > 0 && self.marks.len() < self.cfg.max_segments {
                    self.marks.push(TraceMark::Migration { time_ns: self.now, thread: t, from: prev as u32, to: c as u32 });
                }
            }
        }
        if rt.last_ran.is_none() {
            rt.unpaid_move = Some((None, 0));
        }
        rt.last_ran = Some(c);
        v.core = Some(c);
        v.state = ThreadState::Running;
        let core = &mut self.cores[c];
        core.running = Some(t);
        core.seg_start = self.now;
        core.run_start = self.now;
        core.slice_end = self.now + self.cfg.slice_ns;
    }

    /// Put a runnable thread in core `c`'s queue, placed by its lag relative to the core's floor.
    /// A thread that slept gets at most one slice of credit, as CFS bounds sleeper credit.
    fn enqueue_on(&mut self, t: u32, c: usize) {
        let slice = self.cfg.slice_ns as i64;
        let core = &mut self.cores[c];
        let rt = &mut self.rts[t as usize];
        let v = core.queue.min_vruntime as i64 + rt.lag.max(-slice);
        rt.vruntime = v.max(0) as u64;
        rt.queued_on = Some(c as u32);
        rt.qkey = core.queue.insert(rt.vruntime, t);
        self.book.threads[t as usize].core = Some(c);
        if core.running.is_none() {
            self.mark_dirty(c as u32);
        }
    }

    fn nr(&self, c: usize) -> usize {
        self.cores[c].queue.len() + self.cores[c].running.is_some() as usize
    }

    /// Choose a core for a thread that becomes runnable: its last core if idle, else an idle
    /// allowed core (at random, seeded: like a default scheduler's arbitrary binding), else the
    /// least loaded allowed core.
    fn select_core(&mut self, t: u32) -> usize {
        let allowed = self.book.threads[t as usize].allowed;
        let last = self.rts[t as usize].last_ran;
        if let Some(prev) = last {
            if allowed.contains(prev) && self.nr(prev) == 0 {
                return prev;
            }
        }
        let mut best_nr = usize::MAX;
        let mut ties = 0usize;
        let mut choice = allowed.first().unwrap_or(0);
        for c in allowed.iter() {
            let nr = self.nr(c);
            if nr < best_nr {
                best_nr = nr;
                ties = 1;
                choice = c;
            } else if nr == best_nr {
                // Reservoir sampling: each tied core is equally likely.
                ties += 1;
                if self.rng.below(ties) == 0 {
                    choice = c;
                }
            }
        }
        if let Some(prev) = last {
            if allowed.contains(prev) && self.nr(prev) == best_nr {
                return prev;
            }
        }
        choice
    }

    /// An idle core takes a queued thread that may run on it, from the busiest other core.
    fn pull(&mut self, c: usize) -> Option<u32> {
        let mut best: Option<(usize, u32)> = None;
        let mut best_len = 0;
        for o in 0..self.cores.len() {
            let len = self.cores[o].queue.len();
            if o == c || len == 0 || len <= best_len {
                continue;
            }
            if let Some(t) = self.first_allowed(o, c) {
                best = Some((o, t));
                best_len = len;
            }
        }
        let (o, t) = best?;
        self.move_queued(t, o);
        Some(t)
    }

    fn first_allowed(&self, from: usize, to: usize) -> Option<u32> {
        self.cores[from]
            .queue
            .iter()
            .take(PULL_SCAN_LIMIT)
            .map(|(_, t)| t)
            .find(|&t| self.book.threads[t as usize].allowed.contains(to))
    }

    /// Take queued thread `t` out of core `from`'s queue, keeping its lag.
    fn move_queued(&mut self, t: u32, from: usize) {
        let core = &mut self.cores[from];
        let rt = &mut self.rts[t as usize];
        core.queue.remove(rt.qkey, t);
        rt.lag = rt.vruntime as i64 - core.queue.min_vruntime as i64;
        rt.queued_on = None;
    }

    /// Periodic balancing: move queued threads from the longest queues to cores with at least
    /// two fewer runnable threads that they may run on.
    fn balance(&mut self) {
        for _ in 0..self.cores.len() {
            let Some(busiest) = (0..self.cores.len()).filter(|&c| !self.cores[c].queue.is_empty()).max_by_key(|&c| (self.nr(c), usize::MAX - c))
            else {
                return;
            };
            let mut moved = false;
            let mut targets: Vec<usize> = (0..self.cores.len()).filter(|&c| self.nr(c) + 2 <= self.nr(busiest)).collect();
            targets.sort_by_key(|&c| (self.nr(c), c));
            for to in targets {
                if let Some(t) = self.first_allowed(busiest, to) {
                    self.move_queued(t, busiest);
                    self.enqueue_on(t, to);
                    moved = true;
                    break;
                }
            }
            if !moved {
                return;
            }
        }
    }

    // ----- the policy -------------------------------------------------------------------

    /// Process what the last handler caused: policy calls for its triggers, then queueing the
    /// threads it made runnable, then re-planning the cores it touched.
    fn settle(&mut self) -> Result<(), SimError> {
        while let Some(p) = self.pending.pop_front() {
            if let Some(trig) = p.trigger {
                if self.policy.triggers().wants(trig) {
                    self.call_policy(trig)?;
                }
            }
            if p.enqueue && self.book.threads[p.thread as usize].state == ThreadState::Ready && self.rts[p.thread as usize].queued_on.is_none() {
                let c = self.select_core(p.thread);
                self.enqueue_on(p.thread, c);
            }
        }
        while let Some(c) = self.dirty.pop() {
            self.cores[c as usize].dirty = false;
            self.reschedule(c as usize);
        }
        Ok(())
    }

    fn call_policy(&mut self, trigger: Trigger) -> Result<(), SimError> {
        self.stats.policy_calls += 1;
        self.book.begin_call(trigger, self.now);
        for (c, core) in self.cores.iter().enumerate() {
            self.book.cores[c] =
                CoreView { nr_running: core.queue.len() as u32 + core.running.is_some() as u32, running: core.running, busy_ns: core.busy_ns };
        }
        self.placement.clear();
        self.policy.decide(&self.book.view(self.m, trigger, self.now), &mut self.placement);
        self.book.end_call();
        let placement = std::mem::take(&mut self.placement);
        if let Err(e) = placement.validate(self.m, self.book.threads.len()) {
            return Err(SimError::Policy(format!("{} {e}", self.policy.name())));
        }
        if !(placement.fast_share.is_empty() && placement.slice_ns.is_empty() && placement.weight.is_empty() && placement.frequency.is_empty()) {
            return Err(SimError::Policy(format!("{} made a decision the simulator does not apply yet", self.policy.name())));
        }
        let mut changed = 0;
        for &(t, cores) in &placement.affinity {
            if self.set_affinity(t, cores) {
                changed += 1;
            }
            // Named threads are changes even when refused or unchanged, so a policy's cache of
            // what it decided is corrected by what happened.
            self.book.mark_changed(t);
        }
        self.placement = placement;
        if changed > 0 {
            self.stats.decisions += changed;
            if self.cfg.max_segments > 0 && self.marks.len() < self.cfg.max_segments {
                self.marks.push(TraceMark::Decision { time_ns: self.now, changed: changed as u32 });
            }
        }
        Ok(())
    }

    /// Apply one thread's new allowed set; a thread on a core it may no longer use is moved.
    fn set_affinity(&mut self, t: u32, cores: CoreSet) -> bool {
        let v = &mut self.book.threads[t as usize];
        if v.state == ThreadState::Exited || v.allowed == cores {
            return false;
        }
        v.allowed = cores;
        let here = match v.state {
            ThreadState::Running => v.core,
            ThreadState::Ready => self.rts[t as usize].queued_on.map(|c| c as usize),
            _ => None,
        };
        if let Some(c) = here {
            if !cores.contains(c) {
                if v.state == ThreadState::Running {
                    self.account(c);
                }
                self.take_off_cpu(t);
                self.book.threads[t as usize].state = ThreadState::Ready;
                self.pending.push_back(Pending { thread: t, trigger: None, enqueue: true });
            }
        }
        true
    }

    fn set_state(&mut self, t: u32, state: ThreadState) {
        self.book.set_state(t, state);
    }

    // ----- the end ----------------------------------------------------------------------

    fn deadlock(&self) -> SimError {
        let mut waits = Vec::new();
        for (i, rt) in self.rts.iter().enumerate() {
            if self.book.threads[i].state == ThreadState::Exited || !rt.waiting {
                continue;
            }
            let app = &self.w.apps[rt.app as usize];
            let what = match (self.phase_of(i as u32), rt.step) {
                (Some(Phase::Critical { lock, .. }), _) => format!("lock '{}'", app.locks[*lock]),
                (Some(Phase::Serial { .. }), _) => "a serial section".to_string(),
                (Some(Phase::Barrier { .. }), _) => "a barrier".to_string(),
                _ => "something".to_string(),
            };
            let group = &app.groups[rt.group as usize];
            waits.push(format!(
                "app '{}' group '{}' thread {} waits for {} (phase {})",
                app.name,
                group.name,
                self.book.threads[i].index_in_group,
                what,
                rt.pc % group.phases.len() as u32
            ));
        }
        let shown = waits.len().min(4);
        let more = if waits.len() > shown { format!("; and {} more", waits.len() - shown) } else { String::new() };
        SimError::Deadlock(format!(
            "at t={:.6} s no thread can make progress: {}{} (a barrier or serial section that some thread never reaches?)",
            self.now as f64 / 1e9,
            waits[..shown].join("; "),
            more
        ))
    }

    fn finish(mut self) -> RunResult {
        for c in 0..self.cores.len() {
            self.account(c);
            self.stop_running(c);
        }
        let makespan = self.now;
        let apps = self
            .w
            .apps
            .iter()
            .zip(&self.apps)
            .map(|(a, run)| AppResult {
                name: a.name.clone(),
                threads: a.threads(),
                runs: a.runs,
                turnarounds_ns: run.measured.clone(),
                thread_ids: run.all_threads.clone(),
            })
            .collect();
        let cores = self
            .m
            .cores
            .iter()
            .zip(&self.cores)
            .map(|(c, rt)| CoreResult { id: c.id as u32, core_type: c.core_type as u32, busy_ns: rt.busy_ns })
            .collect();
        RunResult {
            makespan_ns: makespan,
            events: self.stats.events,
            policy_calls: self.stats.policy_calls,
            decisions: self.stats.decisions,
            migrations: self.stats.migrations,
            apps,
            threads: self.book.threads,
            cores,
            fast_types: self.fast_type_mask,
            segments: self.segments,
            segments_dropped: self.stats.segments_dropped,
            marks: self.marks,
        }
    }
}

