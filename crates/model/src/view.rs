//! The policy interface, shared by the simulator and the live agent: a policy reads a
//! `SystemView` and writes a `Placement`. It never knows which of the two is calling it.
//!
//! Like sched-ext's user-space schedulers, the observation is a small documented struct and the
//! decision a small one: per thread, the set of cores it may run on. A plain local scheduler
//! below the policy time-shares each core among the threads allowed on it.

use crate::coreset::CoreSet;
use crate::machine::{Machine, MAX_CORE_TYPES};
use crate::workload::ThreadKind;

pub type ThreadId = u32;
pub type AppId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadState {
    /// On a core now (computing or spin-waiting; see `ThreadView::spinning`).
    Running,
    /// Runnable, waiting in a core's run queue.
    Ready,
    /// Off the CPU, waiting for a barrier, a serial section or a lock.
    Blocked,
    /// Off the CPU, in I/O (a sleep phase).
    Sleeping,
    Exited,
}

impl ThreadState {
    /// Running or ready: wants a core.
    pub fn is_runnable(self) -> bool {
        matches!(self, ThreadState::Running | ThreadState::Ready)
    }
}

/// What a thread did on one core type.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counters {
    /// Time on a core of this type, ns (computing, spinning and paying migrations).
    pub time_ns: u64,
    pub instructions: f64,
    pub cycles: f64,
    pub llc_misses: f64,
}

#[derive(Debug, Clone)]
pub struct ThreadView {
    pub id: ThreadId,
    pub app: AppId,
    /// Index of the thread's group in its app, and of the thread in its group.
    pub group: u16,
    pub index_in_group: u32,
    pub kind: ThreadKind,
    pub state: ThreadState,
    /// Runnable but only waiting (a spin-wait): occupies a core without progress.
    pub spinning: bool,
    /// The core it runs or is queued on; for a thread off the CPU, the core it was last on.
    pub core: Option<usize>,
    /// The cores it may run on (its affinity).
    pub allowed: CoreSet,
    pub started_ns: u64,
    /// Counters per core type (index = machine core type).
    pub per_type: [Counters; MAX_CORE_TYPES],
    /// Total time this thread has waited to acquire locks, ns.
    pub lock_wait_ns: u64,
    /// The thread holding the lock this thread waits for now, if any.
    pub waiting_for: Option<ThreadId>,
    /// Total time other threads waited for locks while this thread held them, ns (WASH's lock-contention signal).
    pub lock_wait_caused_ns: u64,
    /// Time spent spin-waiting on a core, ns.
    pub spin_ns: u64,
    pub migrations: u32,
}

impl ThreadView {
    /// A thread that has just started: Ready, no counters yet. The simulator and the live agent
    /// both start a thread's view here, so a policy sees new threads alike from either.
    pub fn started(id: ThreadId, app: AppId, group: u16, index_in_group: u32, kind: ThreadKind, allowed: CoreSet, now_ns: u64) -> ThreadView {
        ThreadView {
            id,
            app,
            group,
            index_in_group,
            kind,
            state: ThreadState::Ready,
            spinning: false,
            core: None,
            allowed,
            started_ns: now_ns,
            per_type: [Counters::default(); MAX_CORE_TYPES],
            lock_wait_ns: 0,
            waiting_for: None,
            lock_wait_caused_ns: 0,
            spin_ns: 0,
            migrations: 0,
        }
    }

    pub fn total_time_ns(&self) -> u64 {
        self.per_type.iter().map(|c| c.time_ns).sum()
    }
}

#[derive(Debug, Clone)]
pub struct AppView {
    pub id: AppId,
    pub name: String,
    /// Nice value.
    pub priority: i32,
    /// Threads of the app's current run that have started and not exited.
    pub live_threads: u32,
}

/// Why the policy is being called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    Quantum,
    Start(ThreadId),
    Exit(ThreadId),
    Block(ThreadId),
    Wake(ThreadId),
}

/// Which triggers a policy wants to be called for, besides its quantum. A policy that ignores
/// per-thread events says so, and the engine does not build a view for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Triggers {
    pub start: bool,
    pub exit: bool,
    pub block: bool,
    pub wake: bool,
}

impl Triggers {
    pub const NONE: Triggers = Triggers { start: false, exit: false, block: false, wake: false };
    pub const ALL: Triggers = Triggers { start: true, exit: true, block: true, wake: true };

    pub fn wants(&self, t: Trigger) -> bool {
        match t {
            Trigger::Quantum => true,
            Trigger::Start(_) => self.start,
            Trigger::Exit(_) => self.exit,
            Trigger::Block(_) => self.block,
            Trigger::Wake(_) => self.wake,
        }
    }
}

/// What the policy sees.
pub struct SystemView<'a> {
    pub now_ns: u64,
    pub trigger: Trigger,
    /// Topology: core types with capacity, cores, LLC domains.
    pub machine: &'a Machine,
    /// Every thread started so far, indexed by `ThreadId` (exited ones included, in state `Exited`).
    pub threads: &'a [ThreadView],
    /// Every app, indexed by `AppId`.
    pub apps: &'a [AppView],
}

impl<'a> SystemView<'a> {
    /// Threads that have not exited.
    pub fn live_threads(&self) -> impl Iterator<Item = &'a ThreadView> + 'a {
        self.threads.iter().filter(|t| t.state != ThreadState::Exited)
    }

    pub fn thread(&self, id: ThreadId) -> &'a ThreadView {
        &self.threads[id as usize]
    }
}

/// What the policy decides: new affinities for some threads. A thread not named keeps its
/// current set (all cores, for a thread no decision has named yet).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placement {
    pub affinity: Vec<(ThreadId, CoreSet)>,
}

impl Placement {
    pub fn set(&mut self, thread: ThreadId, cores: CoreSet) {
        self.affinity.push((thread, cores));
    }

    pub fn clear(&mut self) {
        self.affinity.clear();
    }
}

/// A scheduler. Called every `quantum_ns` and on the per-thread events it asks for.
pub trait Policy: Send {
    fn name(&self) -> &str;
    /// Period of the periodic call; None for a policy that only reacts to events.
    fn quantum_ns(&self) -> Option<u64>;
    fn triggers(&self) -> Triggers;
    fn decide(&mut self, view: &SystemView, out: &mut Placement);
}
