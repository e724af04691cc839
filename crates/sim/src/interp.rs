//! The workload interpreter: moves each thread through its group's phases (compute, sleep,
//! barrier, serial section, critical sections, pipeline stages), starts app runs, and decides
//! what a thread does next when its work or wait is over. The rules of barriers and locks are
//! in `sync`, those of pipeline queues in `queue`.

use ampsched_model::workload::{Group, Phase, Profile, Scope, SpinLimit, Stage, Wait, Workers};
use ampsched_model::{ThreadState, ThreadView, Trigger};

use crate::engine::{Engine, Pending};
use crate::events::Event;
use crate::local::LocalScheduler;
use crate::queue::{Put, Queue, StageItems, Take};
use crate::sync::{Barrier, RunSync};

/// Where a thread is in its phase list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
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
    /// Stage: waiting for an item from the input queue.
    Taking,
    /// Stage: has item (sequence number) n, about to process it.
    Taken(u64),
    /// Stage: off the CPU in item n's I/O.
    ItemIo(u64),
    /// Stage: retiring item n's instructions.
    Processing(u64),
    /// Stage: waiting for room in the output queue.
    Putting,
}

/// What a thread does on the CPU right now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Act {
    Compute {
        remaining: f64,
    },
    /// Spin-waiting; `budget` is what it may still spin before it blocks (None: spins
    /// forever): CPU time in ns, or in cycles (`in_cycles`) for a limit in loop iterations,
    /// which a slower clock takes longer to spend.
    Spin {
        budget: Option<u64>,
        in_cycles: bool,
    },
    /// Off the CPU (blocked, sleeping, exited, or not started).
    Off,
}

/// The interpreter's state of a thread (`Engine::flow`).
#[derive(Debug, Clone)]
pub(crate) struct Flow {
    pub app: u32,
    pub group: u32,
    /// Index of the current phase in the group's list repeated `repeat` times.
    pub pc: u32,
    pub step: Step,
    pub act: Act,
    /// In a wait (barrier, serial, lock): counted out of `able`.
    pub waiting: bool,
}

impl Flow {
    /// A thread of group `group` of app `app` about to enter phase step `pc`, off the CPU.
    pub fn new(app: u32, group: u32, pc: u32) -> Flow {
        Flow { app, group, pc, step: Step::Enter, act: Act::Off, waiting: false }
    }
}

/// What a thread does next, once its current work or wait is over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Next {
    Compute,
    Spin,
    Block,
    Sleep(u64),
    Exit,
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    pub(crate) fn spawn_run(&mut self, a: usize) {
        let app = &self.w.apps[a];
        let run = &mut self.apps[a];
        run.run_start = self.now;
        // Counted before any starts: a thread that exits at once must not end the run.
        let opens_serial = |g: &Group| g.workers == Workers::PerPhase && matches!(g.phases.first(), Some(Phase::Serial { .. }));
        run.live = app.groups.iter().map(|g| if opens_serial(g) { 1 } else { g.count }).sum();
        // Set as each group starts; whole from the first, since a thread may spawn a later group
        // as soon as it starts.
        run.group_first = vec![u32::MAX; app.groups.len()];
        run.group_barriers = vec![Barrier::default(); app.groups.len()];
        run.app_barrier = Barrier::default();
        run.locks = vec![Default::default(); app.locks.len()];
        run.queue_peak = run.queue_peaks();
        run.queues = app.queues.iter().map(|q| Queue::new(q.capacity, q.ordered)).collect();
        run.stage_items.clear();
        run.sync = app.sync.as_deref().map(|s| Box::new(RunSync::new(app, s)));
        for g in &app.groups {
            let stages = g.phases.iter().any(|p| matches!(p, Phase::Stage(_)));
            run.stage_items.push(if stages { vec![StageItems::default(); g.phases.len()] } else { Vec::new() });
        }
        if app.tasks.is_some() {
            self.start_task_run(a);
        }
        for (g, group) in app.groups.iter().enumerate() {
            if app.sync.as_deref().is_some_and(|s| s.is_spawned(g)) {
                // Its spawn phase creates its threads (`spawn_group`), and says where they begin.
                continue;
            }
            self.apps[a].group_first[g] = self.book.threads.len() as u32;
            // Per-phase workers of a run that opens with a serial phase are not created yet.
            if opens_serial(group) {
                // Before the master arrives, so that its arrival completes the serial phase.
                self.apps[a].group_barriers[g].absent(group.count - 1);
                self.spawn_thread(a, g, 0, 0);
                continue;
            }
            for i in 0..group.count {
                self.spawn_thread(a, g, i, 0);
            }
        }
    }

    /// Create thread `index` of group `g` of app `a`'s current run at phase step `pc`, and
    /// start it (its first step decides whether it starts on a CPU at all). The caller has
    /// counted it in the run's live threads.
    fn spawn_thread(&mut self, a: usize, g: usize, index: u32, pc: u32) {
        let id = self.book.threads.len() as u32;
        let app = &self.w.apps[a];
        // A task program's main thread starts tied to its cluster (`main = "big" | "little"`).
        let pin = app.tasks.as_deref().filter(|_| g == 0).and_then(|tp| crate::runtime::main_pin(self.m, tp.options.main));
        let all = pin.unwrap_or_else(|| self.m.all_cores());
        let mut view = ThreadView::started(id, a as u32, g as u16, index, app.groups[g].kind, all.clone(), self.now);
        (view.uclamp_min, view.uclamp_max) = (app.groups[g].uclamp.min, app.groups[g].uclamp.max);
        self.book.add_thread(view);
        self.sched.add_thread(id, app.priority);
        self.counters.add_thread();
        self.add_thread_state(Flow::new(a as u32, g as u32, pc), all);
        self.apps[a].all_threads.push(id);
        self.able_up(id);
        let next = self.advance(id);
        self.apply_next(id, next, true);
    }

    /// The master `t` of a per-phase group has finished a serial phase: if a parallel phase
    /// follows, `count - 1` fresh workers (new ids) start it with the master; if another serial
    /// phase follows, the absent workers count as arrived at it.
    fn fork_workers(&mut self, t: u32) {
        let f = &self.flow[t as usize];
        let (a, g, pc) = (f.app as usize, f.group as usize, f.pc);
        let count = self.w.apps[a].groups[g].count;
        match self.phase_of(t) {
            None => {}
            Some(Phase::Serial { .. }) => self.apps[a].group_barriers[g].absent(count - 1),
            Some(_) => {
                self.apps[a].live += count - 1;
                for i in 1..count {
                    self.spawn_thread(a, g, i, pc);
                }
            }
        }
    }

    fn per_phase(&self, t: u32) -> bool {
        let f = &self.flow[t as usize];
        self.w.apps[f.app as usize].groups[f.group as usize].workers == Workers::PerPhase
    }

    pub(crate) fn phase_of(&self, t: u32) -> Option<&'a Phase> {
        let f = &self.flow[t as usize];
        let group = &self.w.apps[f.app as usize].groups[f.group as usize];
        let n = group.phases.len() as u32;
        if f.pc >= n * group.repeat {
            None
        } else {
            Some(&group.phases[(f.pc % n) as usize])
        }
    }

    /// The profile of the instructions thread `t` retires now, if it computes.
    pub(crate) fn computing_profile(&self, t: u32) -> Option<&'a Profile> {
        if !matches!(self.flow[t as usize].act, Act::Compute { .. }) {
            return None;
        }
        match self.phase_of(t)? {
            Phase::Compute { profile, .. } | Phase::Serial { profile, .. } | Phase::Critical { profile, .. } => Some(profile),
            Phase::Stage(stage) => Some(&stage.profile),
            _ => None,
        }
    }

    /// Its rate on a core is set when the core is planned (`memory`).
    fn set_compute(&mut self, t: u32, instructions: f64) {
        self.flow[t as usize].act = Act::Compute { remaining: instructions };
    }

    pub(crate) fn start_wait(&mut self, t: u32, wait: Wait) -> Next {
        if !self.flow[t as usize].waiting {
            self.flow[t as usize].waiting = true;
            self.able_down(t);
        }
        let f = &mut self.flow[t as usize];
        match wait {
            Wait::Block => {
                f.act = Act::Off;
                Next::Block
            }
            // A queue spinlock's spinning phase burns its core until `qspin` ends it.
            Wait::Spin | Wait::QueueSpinlock(_) => {
                f.act = Act::Spin { budget: None, in_cycles: false };
                Next::Spin
            }
            Wait::SpinThenBlock { limit: SpinLimit::Ns(ns) } => {
                f.act = Act::Spin { budget: Some(ns), in_cycles: false };
                Next::Spin
            }
            Wait::SpinThenBlock { limit: limit @ SpinLimit::Iterations(_) } => {
                f.act = Act::Spin { budget: limit.cycles(), in_cycles: true };
                Next::Spin
            }
        }
    }

    /// Move thread `t` past its finished work or wait, to its next activity.
    pub(crate) fn advance(&mut self, t: u32) -> Next {
        if self.apps[self.flow[t as usize].app as usize].runtime.is_some() {
            return self.task_advance(t);
        }
        loop {
            let Some(phase) = self.phase_of(t) else {
                self.flow[t as usize].act = Act::Off;
                return Next::Exit;
            };
            let step = self.flow[t as usize].step;
            match (phase, step) {
                (Phase::Compute { instructions, .. }, Step::Enter) => {
                    self.set_compute(t, *instructions);
                    self.flow[t as usize].step = Step::Computing;
                    return Next::Compute;
                }
                (Phase::Sleep { ns }, Step::Enter) => {
                    self.flow[t as usize].step = Step::Sleeping;
                    self.flow[t as usize].act = Act::Off;
                    return Next::Sleep(*ns);
                }
                (Phase::Barrier { wait, scope }, Step::Enter) => {
                    if self.arrive(t, *scope, false) {
                        self.next_phase(t);
                        continue;
                    }
                    self.flow[t as usize].step = Step::SyncWait;
                    return self.start_wait(t, *wait);
                }
                (Phase::Serial { scope, .. }, Step::Enter) if self.per_phase(t) && self.leader(t, *scope) != t => {
                    // A per-phase worker's parallel phase is over: it exits (the master's join).
                    let leader = self.leader(t, *scope);
                    let needed = self.w.apps[self.flow[t as usize].app as usize].groups[self.flow[t as usize].group as usize].count;
                    if self.barrier_mut(t, *scope).leave(needed) {
                        self.release(leader);
                    }
                    self.flow[t as usize].act = Act::Off;
                    return Next::Exit;
                }
                (Phase::Serial { instructions, wait, scope, .. }, Step::Enter) => {
                    let leader = self.leader(t, *scope);
                    let complete = self.arrive(t, *scope, true);
                    if complete && leader == t {
                        self.set_compute(t, *instructions);
                        self.flow[t as usize].step = Step::Leading;
                        return Next::Compute;
                    }
                    self.flow[t as usize].step = if leader == t { Step::LeaderWait } else { Step::SyncWait };
                    let next = self.start_wait(t, *wait);
                    if complete {
                        self.release(leader);
                    }
                    return next;
                }
                (Phase::Serial { instructions, .. }, Step::LeaderWait) => {
                    self.set_compute(t, *instructions);
                    self.flow[t as usize].step = Step::Leading;
                    return Next::Compute;
                }
                (Phase::Serial { scope, .. }, Step::Leading) => {
                    for w in self.barrier_mut(t, *scope).release_held() {
                        self.release(w);
                    }
                    self.next_phase(t);
                    if self.per_phase(t) {
                        self.fork_workers(t);
                    }
                }
                (Phase::Critical { between_instructions, .. }, Step::Enter) => {
                    if *between_instructions > 0.0 {
                        self.set_compute(t, *between_instructions);
                        self.flow[t as usize].step = Step::Between(0);
                        return Next::Compute;
                    }
                    self.flow[t as usize].step = Step::Between(0);
                }
                (Phase::Critical { lock, wait: Wait::QueueSpinlock(_), .. }, Step::Between(i)) => return self.qspin_acquire(t, *lock, i),
                (Phase::Critical { lock, cs_instructions, wait, .. }, Step::Between(i)) => {
                    let app = self.flow[t as usize].app as usize;
                    match self.apps[app].locks[*lock].acquire(t, self.now) {
                        Ok(()) => {
                            self.set_compute(t, *cs_instructions);
                            self.flow[t as usize].step = Step::Inside(i);
                            return Next::Compute;
                        }
                        Err(holder) => {
                            self.book.threads[t as usize].waiting_for = Some(holder);
                            self.flow[t as usize].step = Step::Acquiring(i);
                            return self.start_wait(t, *wait);
                        }
                    }
                }
                (Phase::Critical { cs_instructions, .. }, Step::Acquiring(i)) => {
                    self.set_compute(t, *cs_instructions);
                    self.flow[t as usize].step = Step::Inside(i);
                    return Next::Compute;
                }
                (Phase::Critical { lock, count, between_instructions, wait, .. }, Step::Inside(i)) => {
                    if let Wait::QueueSpinlock(_) = wait {
                        self.qspin_release(t, *lock);
                    } else {
                        self.unlock(t, *lock);
                    }
                    if i + 1 == *count {
                        self.next_phase(t);
                        continue;
                    }
                    self.flow[t as usize].step = Step::Between(i + 1);
                    if *between_instructions > 0.0 {
                        self.set_compute(t, *between_instructions);
                        return Next::Compute;
                    }
                }
                (Phase::Stage(stage), Step::Enter) => match self.claim_item(t, stage) {
                    None => self.next_phase(t),
                    Some(Ok(item)) => self.flow[t as usize].step = Step::Taken(item),
                    Some(Err(())) => {
                        self.flow[t as usize].step = Step::Taking;
                        return self.start_wait(t, stage.wait);
                    }
                },
                (Phase::Stage(stage), Step::Taken(item)) => {
                    if stage.io_ns > 0 {
                        self.flow[t as usize].step = Step::ItemIo(item);
                        self.flow[t as usize].act = Act::Off;
                        return Next::Sleep(stage.io_ns);
                    }
                    self.set_compute(t, stage.instructions);
                    self.flow[t as usize].step = Step::Processing(item);
                    return Next::Compute;
                }
                (Phase::Stage(stage), Step::ItemIo(item)) => {
                    self.set_compute(t, stage.instructions);
                    self.flow[t as usize].step = Step::Processing(item);
                    return Next::Compute;
                }
                (Phase::Stage(stage), Step::Processing(item)) => {
                    let Some(q) = stage.output else {
                        self.flow[t as usize].step = Step::Enter;
                        continue;
                    };
                    let app = self.flow[t as usize].app as usize;
                    match self.apps[app].queues[q].put(t, item) {
                        Put::Stored => self.flow[t as usize].step = Step::Enter,
                        Put::Handed { taker, item } => {
                            self.flow[t as usize].step = Step::Enter;
                            self.give_item(taker, item);
                        }
                        Put::Full => {
                            self.flow[t as usize].step = Step::Putting;
                            return self.start_wait(t, stage.wait);
                        }
                    }
                }
                (Phase::Spawn { group }, Step::Enter) => {
                    self.next_phase(t);
                    self.spawn_group(t, *group);
                }
                (Phase::Join { group, wait }, Step::Enter) => {
                    if self.join(t, *group) {
                        self.next_phase(t);
                        continue;
                    }
                    self.flow[t as usize].step = Step::SyncWait;
                    return self.start_wait(t, *wait);
                }
                (Phase::SemPost { semaphore, count }, Step::Enter) => {
                    self.next_phase(t);
                    self.sem_post(t, *semaphore, *count);
                }
                (Phase::SemWait { semaphore, wait }, Step::Enter) => {
                    if self.run_sync(t).semaphores[*semaphore].wait(t) {
                        self.next_phase(t);
                        continue;
                    }
                    self.flow[t as usize].step = Step::SyncWait;
                    return self.start_wait(t, *wait);
                }
                (Phase::NamedBarrier { barrier, parties, wait }, Step::Enter) => {
                    let Some(released) = self.run_sync(t).barriers[*barrier].arrive(t, *parties, None) else {
                        self.flow[t as usize].step = Step::SyncWait;
                        return self.start_wait(t, *wait);
                    };
                    for w in released {
                        self.release(w);
                    }
                    self.next_phase(t);
                }
                (_, Step::Computing | Step::Sleeping | Step::SyncWait) => self.next_phase(t),
                (phase, step) => unreachable!("thread {t} in step {step:?} of phase {phase:?}"),
            }
        }
    }

    /// Thread `t` at stage `stage` claims the next of its repetition's items: None when they are
    /// all claimed (the phase is over for it); else the item, made now by a first stage or taken
    /// from the input queue, or Err when it must wait for one (the queue is empty).
    fn claim_item(&mut self, t: u32, stage: &Stage) -> Option<Result<u64, ()>> {
        let f = &self.flow[t as usize];
        let (app, group) = (f.app as usize, f.group as usize);
        let n = self.w.apps[app].groups[group].phases.len() as u32;
        let (rep, index) = (f.pc / n, (f.pc % n) as usize);
        let counter = &mut self.apps[app].stage_items[group][index];
        counter.claim(rep, stage.items)?;
        let Some(q) = stage.input else { return Some(Ok(counter.make())) };
        let (got, freed) = match self.apps[app].queues[q].take(t) {
            Take::Got { item, freed } => (Ok(item), freed),
            Take::Wait { freed } => (Err(()), freed),
        };
        // The room the take made lets waiting putters go on with their next item.
        for p in freed {
            self.flow[p as usize].step = Step::Enter;
            self.hand_over(p);
        }
        Some(got)
    }

    /// A waiting taker `t` gets `item` from its input queue.
    fn give_item(&mut self, t: u32, item: u64) {
        debug_assert_eq!(self.flow[t as usize].step, Step::Taking);
        self.flow[t as usize].step = Step::Taken(item);
        self.hand_over(t);
    }

    fn next_phase(&mut self, t: u32) {
        let f = &mut self.flow[t as usize];
        f.pc += 1;
        f.step = Step::Enter;
    }

    fn leader(&self, t: u32, scope: Scope) -> u32 {
        let f = &self.flow[t as usize];
        let run = &self.apps[f.app as usize];
        match scope {
            Scope::Group => run.group_first[f.group as usize],
            Scope::App => run.group_first[0],
        }
    }

    fn barrier_mut(&mut self, t: u32, scope: Scope) -> &mut Barrier {
        let f = &self.flow[t as usize];
        let run = &mut self.apps[f.app as usize];
        match scope {
            Scope::Group => &mut run.group_barriers[f.group as usize],
            Scope::App => &mut run.app_barrier,
        }
    }

    /// Thread `t` arrives at its barrier; true if it is the last, in which case the waiters are
    /// released (a plain barrier) or held for the leader (a serial section).
    fn arrive(&mut self, t: u32, scope: Scope, serial: bool) -> bool {
        let f = &self.flow[t as usize];
        let app = &self.w.apps[f.app as usize];
        let needed = match scope {
            Scope::Group => app.groups[f.group as usize].count,
            Scope::App => app.app_scope_threads(),
        };
        let leader = serial.then(|| self.leader(t, scope));
        let Some(released) = self.barrier_mut(t, scope).arrive(t, needed, leader) else {
            return false;
        };
        for w in released {
            self.release(w);
        }
        true
    }

    /// Thread `t` releases its lock: the waiting time it caused is booked, and the lock passes
    /// to the longest waiter.
    fn unlock(&mut self, t: u32, lock: usize) {
        let app = self.flow[t as usize].app as usize;
        let book = &mut self.book;
        let l = &mut self.apps[app].locks[lock];
        let mut caused = 0;
        let handoff = l.release(t, self.now, |w, waited| {
            caused += waited;
            book.add_lock_wait(w, t, waited);
        });
        book.threads[t as usize].lock_wait_caused_ns += caused;
        if let Some(h) = handoff {
            let v = &mut book.threads[h.next as usize];
            v.lock_wait_ns += h.waited_ns;
            v.waiting_for = None;
            for w in l.waiters() {
                book.threads[w as usize].waiting_for = Some(h.next);
            }
            self.hand_over(h.next);
        }
    }

    /// The lock (or a queue's item, or room in it) passes to waiter `t`. One blocked in the
    /// kernel (a futex wait) runs only after the machine's wake-up latency
    /// (`Machine::lock_wake_ns`), holding the lock meanwhile; a spinning one (on a core) goes on
    /// at once. Its wait ends now either way (it can progress:
    /// `able`), so a run whose other threads all wait is not taken for a deadlock.
    fn hand_over(&mut self, t: u32) {
        let wake = self.dvfs.machine.lock_wake_ns;
        if wake == 0 || self.book.threads[t as usize].state != ThreadState::Blocked {
            self.release(t);
            return;
        }
        let f = &mut self.flow[t as usize];
        debug_assert!(f.waiting);
        f.waiting = false;
        self.able_up(t);
        self.events.push(self.now + wake, Event::Wake { thread: t });
    }

    /// End the wait of thread `t` (a barrier, serial section or lock let it go).
    pub(crate) fn release(&mut self, t: u32) {
        let f = &mut self.flow[t as usize];
        debug_assert!(f.waiting);
        f.waiting = false;
        self.able_up(t);
        self.finish_step(t);
    }

    /// Thread `t`'s current work, wait or sleep is over: account it, advance, and apply the next step.
    pub(crate) fn finish_step(&mut self, t: u32) {
        let state = self.book.threads[t as usize].state;
        if state == ThreadState::Running {
            let c = self.book.threads[t as usize].core.expect("running thread has a core");
            self.account(c);
        }
        let next = self.advance(t);
        self.apply_next(t, next, false);
    }

    /// Put thread `t` where its next activity needs it. `is_new`: the thread was just created.
    pub(crate) fn apply_next(&mut self, t: u32, next: Next, is_new: bool) {
        let state = self.book.threads[t as usize].state;
        let on_cpu = !is_new && state.is_runnable();
        let was_off = !is_new && !on_cpu;
        self.book.threads[t as usize].spinning = next == Next::Spin;
        match next {
            Next::Compute | Next::Spin if on_cpu => {
                if state == ThreadState::Running {
                    let c = self.book.threads[t as usize].core.expect("running thread has a core");
                    // What it does (a new phase, or spinning) changes what its LLC co-runners get.
                    self.llc_changed(c);
                    self.mark_dirty(c as u32);
                }
            }
            Next::Compute | Next::Spin => {
                self.set_state(t, ThreadState::Ready);
                self.counters.ready(t, self.now);
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

    fn exit(&mut self, t: u32) {
        self.book.set_state(t, ThreadState::Exited);
        self.able_down(t);
        if self.shares[t as usize].is_some() {
            self.end_share(t);
        }
        let a = self.flow[t as usize].app as usize;
        self.pending.push_back(Pending { thread: t, trigger: Some(Trigger::Exit(t)), enqueue: false });
        if self.apps[a].sync.is_some() {
            // Before the run's live count drops: the joiners it lets go are live, so the run
            // goes on until they exit too.
            self.exited_joinable(t);
        }
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
}

/// A recorded program's synchronisation (`ampsched_model::app_sync`): spawned groups, joins,
/// semaphores and named barriers, on the app's `RunSync`. Semaphore and join wake-ups are futex
/// wake-ups, as a lock's hand-off (glibc's sem_post wakes a futex waiter; pthread_join waits on
/// the futex the kernel clears at the thread's exit, CLONE_CHILD_CLEARTID): `hand_over`, with the
/// machine's wake-up latency. A named barrier releases its waiters at once, as the scope
/// barriers do.
impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// Thread `t` can progress again (`able`), counted in its app's `RunSync` too.
    fn able_up(&mut self, t: u32) {
        self.able += 1;
        if let Some(s) = self.apps[self.flow[t as usize].app as usize].sync.as_deref_mut() {
            s.able += 1;
        }
    }

    /// Thread `t` waits or has exited. If that leaves its app with no thread able to progress,
    /// the engine checks after the handler whether the app is stuck (`stuck_app`): not now,
    /// since in the middle of a step a waiter may be about to be let go.
    fn able_down(&mut self, t: u32) {
        self.able -= 1;
        if let Some(s) = self.apps[self.flow[t as usize].app as usize].sync.as_deref_mut() {
            s.able -= 1;
            if s.able == 0 {
                self.sync_stuck = true;
            }
        }
    }

    /// An app with `RunSync` whose live threads all wait: none of them can ever be let go, since
    /// what they wait for (the app's locks, barriers, queues, semaphores, joins) only the app's
    /// own threads can give. None while the network carries a queue spinlock's packets, which
    /// may yet hand a lock on.
    pub(crate) fn stuck_app(&self) -> Option<usize> {
        if self.network_busy() {
            return None;
        }
        self.apps.iter().position(|r| r.live > 0 && r.sync.as_deref().is_some_and(|s| s.able == 0))
    }

    /// The `RunSync` of thread `t`'s app, which has one since `t` runs one of its phases.
    fn run_sync(&mut self, t: u32) -> &mut RunSync {
        self.apps[self.flow[t as usize].app as usize].sync.as_deref_mut().expect("an app with synchronisation phases has its RunSync")
    }

    /// Thread `t` runs the spawn phase of group `g`: its threads start now (each a
    /// `Trigger::Start`, as a program's pthread_create makes a thread the OS then sees). They
    /// were counted in the run's live threads when it started.
    fn spawn_group(&mut self, t: u32, g: usize) {
        let a = self.flow[t as usize].app as usize;
        let sync = self.run_sync(t);
        debug_assert!(!sync.started[g], "a spawned group is spawned once per run (checked at reading)");
        sync.started[g] = true;
        self.apps[a].group_first[g] = self.book.threads.len() as u32;
        for i in 0..self.w.apps[a].groups[g].count {
            self.spawn_thread(a, g, i, 0);
        }
    }

    /// Thread `t` joins group `g`: true if every thread of it has exited, else `t` waits for that.
    fn join(&mut self, t: u32, g: usize) -> bool {
        let sync = self.run_sync(t);
        if sync.joined(g) {
            return true;
        }
        sync.joiners[g].push(t);
        false
    }

    /// Thread `t` of an app with `RunSync` has exited: if that was its group's last, the
    /// threads joining the group go on.
    fn exited_joinable(&mut self, t: u32) {
        let g = self.flow[t as usize].group as usize;
        let sync = self.run_sync(t);
        sync.exited[g] += 1;
        if !sync.joined(g) {
            return;
        }
        for w in std::mem::take(&mut sync.joiners[g]) {
            self.hand_over(w);
        }
    }

    /// Thread `t` posts `count` to semaphore `s`: the longest waiters go on, one each.
    fn sem_post(&mut self, t: u32, s: usize, count: u32) {
        for w in self.run_sync(t).semaphores[s].post(count) {
            self.hand_over(w);
        }
    }
}
