//! The policy interface, shared by the simulator and the live agent: a policy reads a
//! `SystemView` and writes a `Placement`. It never knows which of the two is calling it.
//!
//! Like sched-ext's user-space schedulers, the observation is a small documented struct and the
//! decision a small one. A plain local scheduler below the policy time-shares each core among
//! the threads allowed on it.
//!
//! Three rules keep a policy honest and cheap:
//! - **Only what was measured.** A source says what it measures (`SystemView::available`); a
//!   policy says what it needs (`Signals`), and is refused where a need is not met, by the same
//!   check (`Signals::check`) in the simulator, the agent and `ampsched list policies`. A field
//!   group a source does not measure reads as zero: never read it without declaring the need.
//! - **Cost in changes, not threads.** The view lists the live threads (`live`) and the threads
//!   whose state or affinity changed since the policy's previous call (`changed`); the table
//!   indexed by `ThreadId` also holds exited threads and must not be scanned.
//! - **Deltas are given.** `interval` holds each thread's counters over the policy's last
//!   quantum, so no policy diffs cumulative counters itself; `ran` lists the threads whose
//!   interval is not zero.

use crate::coreset::CoreSet;
use crate::events::{CYCLES, FIRST_MORE, INSTRUCTIONS, LLC_MISSES, MORE_EVENTS};
use crate::machine::{Machine, MAX_CORE_TYPES};
use crate::workload::{Signature, SoloIps, ThreadKind};

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

/// What a source can measure and a policy can need, beyond what both sources always give
/// (thread states, affinities, CPU time per core type, per-app and per-core counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Signals(u8);

impl Signals {
    pub const NONE: Signals = Signals(0);
    /// Per-thread hardware counters: `Counters::{instructions, cycles, llc_misses, more}`.
    pub const COUNTERS: Signals = Signals(1 << 0);
    /// Lock waits: `ThreadView::{lock_wait_ns, waiting_for, lock_wait_caused_ns}` and `lock_edges`.
    pub const LOCKS: Signals = Signals(1 << 1);
    /// Spin-waiting: `ThreadView::{spinning, spin_ns}`.
    pub const SPIN: Signals = Signals(1 << 2);
    /// Static program hints (`AppView::signatures`) for every app.
    pub const HINTS: Signals = Signals(1 << 3);
    /// The simulator itself: an oracle that simulates alternatives. Never live.
    pub const SIMULATOR: Signals = Signals(1 << 4);
    /// Offline solo profiles (`AppView::solo_ips`) for every app: what profiling runs of each
    /// program alone on each core type measured before the run. The runner measures them when a
    /// policy needs them; never live.
    pub const PROFILE: Signals = Signals(1 << 5);
    /// Per-thread runnable wall time per core type (`Counters::runnable_ns`, `corun_ns`): with
    /// `time_ns`, each thread's progress rate on each core type, the CPU time it got per wall
    /// second it wanted a CPU there. The live agent measures it from schedstat's run-queue wait, with or
    /// without hardware counters; what the rate means depends on the source (see the field).
    pub const PROGRESS: Signals = Signals(1 << 6);
    /// The OS's wake-up path: the policy is called at each `Start` and `Wake` before the thread
    /// runs, and its placement applies to that very wake-up (a per-wake-up CPU choice, as
    /// Linux's `select_task_rq` makes). The simulator gives it; the live agent sees a wake-up
    /// only at its next sample, after the kernel has already placed the thread, so never live.
    pub const WAKEUP: Signals = Signals(1 << 7);

    const NAMES: [(Signals, &'static str, &'static str); 8] = [
        (Signals::COUNTERS, "counters", "per-thread hardware counters (instructions, cycles, LLC misses)"),
        (Signals::LOCKS, "locks", "lock waits and who caused them"),
        (Signals::SPIN, "spin", "spin-wait time"),
        (Signals::HINTS, "hints", "static program hints (signatures) for every app"),
        (Signals::SIMULATOR, "simulator", "the simulator itself (an oracle)"),
        (Signals::PROFILE, "profile", "offline solo profiles (each program's instructions per second alone on each core type)"),
        (Signals::PROGRESS, "progress", "per-thread runnable wall time per core type (CPU-time progress rates)"),
        (Signals::WAKEUP, "wakeup", "the OS's wake-up path (a CPU chosen at each wake-up, before the thread runs)"),
    ];

    /// The signal a short name ("counters", "locks", ...) stands for; the error lists the
    /// known names. How a policy written outside Rust (Python) declares its needs.
    pub fn named(name: &str) -> Result<Signals, String> {
        Signals::NAMES.iter().find(|(_, n, _)| *n == name).map(|(s, _, _)| *s).ok_or_else(|| {
            let known: Vec<&str> = Signals::NAMES.iter().map(|(_, n, _)| *n).collect();
            format!("unknown signal '{name}' (known: {})", known.join(", "))
        })
    }

    pub const fn union(self, other: Signals) -> Signals {
        Signals(self.0 | other.0)
    }

    pub fn contains(self, other: Signals) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The signals of `self` that `available` lacks.
    pub fn missing(self, available: Signals) -> Signals {
        Signals(self.0 & !available.0)
    }

    /// `self` less `other`.
    pub fn without(self, other: Signals) -> Signals {
        Signals(self.0 & !other.0)
    }

    /// Short names ("counters", "locks", ...), for tables and JSON.
    pub fn names(self) -> Vec<&'static str> {
        Signals::NAMES.iter().filter(|(s, _, _)| self.contains(*s)).map(|(_, n, _)| *n).collect()
    }

    /// What each signal is, in words.
    pub fn describe(self) -> String {
        let parts: Vec<&str> = Signals::NAMES.iter().filter(|(s, _, _)| self.contains(*s)).map(|(_, _, d)| *d).collect();
        if parts.is_empty() {
            "nothing beyond thread states and CPU time".to_string()
        } else {
            parts.join("; ")
        }
    }

    /// The one check every caller makes: can a policy that needs `self` run where `available`
    /// is measured? The error names what is missing and where (`source`, e.g. "the live agent").
    pub fn check(self, available: Signals, source: &str) -> Result<(), String> {
        let missing = self.missing(available);
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!("it needs {}, which {source} does not give", missing.describe()))
        }
    }
}

impl std::ops::BitOr for Signals {
    type Output = Signals;
    fn bitor(self, rhs: Signals) -> Signals {
        self.union(rhs)
    }
}

/// What a thread did on one core type.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counters {
    /// Time on a core of this type, ns (computing, spinning and paying migrations).
    pub time_ns: u64,
    /// Wall time the thread was runnable (running, or waiting in a run queue) while placed on
    /// this core type, ns: `time_ns` plus its run-queue waits there. `time_ns / runnable_ns` is
    /// its progress rate on the type, the fraction of the time it wanted a CPU that it got one.
    /// The live agent reads the waits from /proc/TID/schedstat, where the kernel counts every
    /// wait for the CPU: behind other threads, and behind an emulated slow CPU's real-time
    /// stealer (`--emulate`), so that a thread alone on a slow CPU of speed s has a rate of s
    /// there and the ratio of its rates on two types is the emulated speed ratio (`corun_ns`
    /// takes the waits behind the target's own threads out). On real asymmetric cores a slow
    /// core gives a thread its whole time, slowly: the rate there measures contention, not
    /// speed (`policy::common::progress_rate`). Needs `Signals::PROGRESS`.
    pub runnable_ns: u64,
    /// Of `runnable_ns`, the waits behind the source's other threads on the thread's core (the
    /// live agent's targets; every thread in the simulator), ns: so that `(time_ns + corun_ns) /
    /// runnable_ns`, the share of the thread's runnable time its core ran the target's threads,
    /// is the core's speed as far as the target's own contention goes (two threads sharing a
    /// stolen-from CPU each get half of what the stealer leaves, yet it runs one or the other
    /// all the time the stealer does not). The live agent counts it per sample: the other
    /// targets' CPU time on the CPU the thread last ran on in a sample where it was runnable
    /// there, at most its wait. Needs `Signals::PROGRESS`.
    pub corun_ns: u64,
    /// Needs `Signals::COUNTERS`.
    pub instructions: f64,
    /// Needs `Signals::COUNTERS`.
    pub cycles: f64,
    /// Needs `Signals::COUNTERS`.
    pub llc_misses: f64,
    /// The other performance-monitoring events (`events::EVENTS[FIRST_MORE..]`: LLC references,
    /// memory stall cycles, DRAM accesses, dispatch stalls, branch and L1 data misses), which the
    /// simulator counts and the live agent leaves at 0 (`Counters::event` reads any by index).
    /// Needs `Signals::COUNTERS`.
    pub more: [f64; MORE_EVENTS],
}

impl Counters {
    /// What was added between `earlier` and `self`.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            time_ns: self.time_ns - earlier.time_ns,
            runnable_ns: self.runnable_ns - earlier.runnable_ns,
            corun_ns: self.corun_ns - earlier.corun_ns,
            instructions: self.instructions - earlier.instructions,
            cycles: self.cycles - earlier.cycles,
            llc_misses: self.llc_misses - earlier.llc_misses,
            more: std::array::from_fn(|i| self.more[i] - earlier.more[i]),
        }
    }

    /// The sum of `self` and `other` (a thread's counters over several core types or runs).
    pub fn plus(&self, other: &Counters) -> Counters {
        Counters {
            time_ns: self.time_ns + other.time_ns,
            runnable_ns: self.runnable_ns + other.runnable_ns,
            corun_ns: self.corun_ns + other.corun_ns,
            instructions: self.instructions + other.instructions,
            cycles: self.cycles + other.cycles,
            llc_misses: self.llc_misses + other.llc_misses,
            more: std::array::from_fn(|i| self.more[i] + other.more[i]),
        }
    }

    /// Event `e` (an index of `events::EVENTS`).
    pub fn event(&self, e: usize) -> f64 {
        match e {
            INSTRUCTIONS => self.instructions,
            CYCLES => self.cycles,
            LLC_MISSES => self.llc_misses,
            _ => self.more[e - FIRST_MORE],
        }
    }

    /// Event `e`, to write.
    pub fn event_mut(&mut self, e: usize) -> &mut f64 {
        match e {
            INSTRUCTIONS => &mut self.instructions,
            CYCLES => &mut self.cycles,
            LLC_MISSES => &mut self.llc_misses,
            _ => &mut self.more[e - FIRST_MORE],
        }
    }
}

/// Counters per core type (index = machine core type).
pub type PerType = [Counters; MAX_CORE_TYPES];

#[derive(Debug, Clone)]
pub struct ThreadView {
    pub id: ThreadId,
    pub app: AppId,
    /// Index of the thread's group in its app, and of the thread in its group.
    pub group: u16,
    pub index_in_group: u32,
    pub kind: ThreadKind,
    pub state: ThreadState,
    /// Runnable but only waiting (a spin-wait): occupies a core without progress. Needs `Signals::SPIN`.
    pub spinning: bool,
    /// The core it runs or is queued on; for a thread off the CPU, the core it was last on.
    pub core: Option<usize>,
    /// The cores it may run on (its affinity).
    pub allowed: CoreSet,
    pub started_ns: u64,
    /// Cumulative counters per core type.
    pub per_type: PerType,
    /// Total time this thread has waited to acquire locks, ns. Needs `Signals::LOCKS`.
    pub lock_wait_ns: u64,
    /// The thread holding the lock this thread waits for now, if any. Needs `Signals::LOCKS`.
    pub waiting_for: Option<ThreadId>,
    /// Total time other threads waited for locks while this thread held them, ns (WASH's
    /// lock-contention signal). Needs `Signals::LOCKS`.
    pub lock_wait_caused_ns: u64,
    /// Time spent spin-waiting on a core, ns. Needs `Signals::SPIN`.
    pub spin_ns: u64,
    pub migrations: u32,
    /// The memory node holding its pages: placed by first touch (Linux's and Solaris's default),
    /// the node of the first core it ran on, as Linux reports in /proc/PID/numa_maps. None until
    /// it has run, and in the live agent, which does not read numa_maps.
    pub home_node: Option<usize>,
    /// Its utilisation clamps on Linux's capacity scale (0..=1024): the workload group's
    /// `uclamp_min` / `uclamp_max` in the simulator, sched_getattr(2)'s `sched_util_min` /
    /// `sched_util_max` live (0 and 1024, no clamp, on a kernel without uclamp). The OS always
    /// knows them: no `Signals` need.
    pub uclamp_min: u32,
    pub uclamp_max: u32,
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
            home_node: None,
            uclamp_min: 0,
            uclamp_max: crate::limits::UCLAMP_MAX,
        }
    }

    pub fn total_time_ns(&self) -> u64 {
        self.per_type.iter().map(|c| c.time_ns).sum()
    }

    /// Time on fast cores (`Machine::is_fast_type`), ns: the cores the OS believes fast (reported
    /// capacities), as a policy or the agent's share enforcement counts it.
    pub fn fast_time_ns(&self, m: &Machine) -> u64 {
        (0..m.core_types.len()).filter(|&t| m.is_fast_type(t)).map(|t| self.per_type[t].time_ns).sum()
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
    /// Threads of the app that are runnable now (running or ready): the app's thread-level
    /// parallelism as PA, MinTLP and CAMP read it (Sáez thesis, ch. 5).
    pub runnable_threads: u32,
    /// Static program hints per group (index = `ThreadView::group`), given by the workload or
    /// derived from the group's phases as a whole-run profile (`Signature::of_phases`): what an
    /// offline profiling run would have measured, never the engine's per-phase truth. Needs
    /// `Signals::HINTS`.
    pub signatures: Vec<Option<Signature>>,
    /// Per group (index = `ThreadView::group`): its instructions per second of CPU time on each
    /// core type (index = machine core type), measured offline by running the program alone on a
    /// machine of that type only (`Group::solo_ips`). Needs `Signals::PROFILE`.
    pub solo_ips: Vec<Option<SoloIps>>,
    /// The catalog program the app runs (a workload's `program = "..."`, e.g. "eclipse"); None
    /// for inline phases and for live processes. A policy may pick per-program knowledge by it
    /// (WASH's leave-one-out speedup model: the model trained on the other programs).
    pub program: Option<String>,
    /// False for an app left to the OS (a workload's `os_scheduled = true`, WASH's §8.6
    /// adversary): the engine ignores any placement (affinity, share, slice, weight) that names
    /// its threads, which keep every core; a policy should leave them alone.
    pub policy_managed: bool,
}

impl AppView {
    pub fn new(id: AppId, name: String, priority: i32) -> AppView {
        AppView { id, name, priority, live_threads: 0, runnable_threads: 0, signatures: Vec::new(), solo_ips: Vec::new(), program: None, policy_managed: true }
    }
}

/// One core as the local scheduler has it now.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CoreView {
    /// Threads running or queued on the core (Linux's nr_running).
    pub nr_running: u32,
    pub running: Option<ThreadId>,
    /// Time the core has been busy since the start, ns (up to its last accounting).
    pub busy_ns: u64,
}

/// Who waited on whom: the total time `waiter` has waited for locks `holder` held, ns (the
/// edges of WASH's LockRank). Needs `Signals::LOCKS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockEdge {
    pub waiter: ThreadId,
    pub holder: ThreadId,
    pub wait_ns: u64,
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
    /// Called as each thread starts, and for nothing else: a placement fixed at start.
    pub const START: Triggers = Triggers { start: true, ..Triggers::NONE };

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
#[derive(Clone, Copy)]
pub struct SystemView<'a> {
    pub now_ns: u64,
    pub trigger: Trigger,
    /// This call's number for this policy (1, 2, ...). A policy that keeps a cache derived from
    /// `changed` can tell from it whether it missed a call (then it rebuilds from `live`).
    pub call: u64,
    /// Topology: core types with capacity, cores, LLC domains (and the fast-core definition).
    pub machine: &'a Machine,
    /// What this source measures; a policy reads only what it declared it needs.
    pub available: Signals,
    /// The run's seed: the simulator's `--seed` (its config seed), the agent's `--seed`. A
    /// policy that must choose arbitrarily (`static`'s core order) draws from it, so that one
    /// seed gives one result and the choice is not the workload's listing order.
    pub seed: u64,
    /// Every thread started so far, indexed by `ThreadId`, exited ones included: look threads up
    /// here, but iterate `live` or `changed`, never this.
    pub threads: &'a [ThreadView],
    /// The threads that have not exited, in ascending id.
    pub live: &'a [ThreadId],
    /// Threads that started, exited, became runnable or not, or whose affinity was set (or that
    /// a placement named) since this policy's previous call, in no particular order. Moves
    /// between running and ready, and counter updates, are not changes.
    pub changed: &'a [ThreadId],
    /// Per thread (indexed by `ThreadId`): its counters over the policy's last quantum, from
    /// `interval_start_ns` to the latest `Trigger::Quantum` call (zero before the first one, or
    /// for a policy without a quantum).
    pub interval: &'a [PerType],
    /// The threads that ran during the last quantum (ascending id): the only ones whose
    /// `interval` is not zero, so a per-quantum update costs what ran, not what lives.
    pub ran: &'a [ThreadId],
    pub interval_start_ns: u64,
    /// Every app, indexed by `AppId`.
    pub apps: &'a [AppView],
    /// Every core, indexed like `machine.cores`.
    pub cores: &'a [CoreView],
    /// Lock waits per (waiter, holder) pair. Needs `Signals::LOCKS`.
    pub lock_edges: &'a [LockEdge],
}

impl<'a> SystemView<'a> {
    /// Threads that have not exited, in ascending id.
    pub fn live_threads(&self) -> impl Iterator<Item = &'a ThreadView> + 'a {
        let threads = self.threads;
        self.live.iter().map(move |&t| &threads[t as usize])
    }

    pub fn thread(&self, id: ThreadId) -> &'a ThreadView {
        &self.threads[id as usize]
    }

    /// Counters of thread `id` over the last quantum.
    pub fn interval_of(&self, id: ThreadId) -> &'a PerType {
        const NOTHING: PerType =
            [Counters { time_ns: 0, runnable_ns: 0, corun_ns: 0, instructions: 0.0, cycles: 0.0, llc_misses: 0.0, more: [0.0; MORE_EVENTS] }; MAX_CORE_TYPES];
        self.interval.get(id as usize).unwrap_or(&NOTHING)
    }
}

/// What the policy decides, per thread and per core type. Anything not named keeps its
/// current value: a thread's affinity is all cores until a decision names it.
///
/// Besides affinities (the only decision the thesis's and WASH's schedulers make), a policy may
/// set, as scx's dispatch carries a slice and a weight beside the CPU:
/// - a thread's **fast-core share** (Kim & Huh's fast_round/slow_round): the local layer
///   alternates it, round by round, between its allowed fast cores and its allowed other cores
///   so that this fraction of its CPU time is on fast cores;
/// - a thread's **time slice** on the local scheduler;
/// - a thread's **weight** (CFS weight; 1024 = nice 0);
/// - a core type's **frequency**, one of the levels its machine declares (`freq_levels_ghz`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placement {
    pub affinity: Vec<(ThreadId, CoreSet)>,
    /// `None` ends a share: the thread keeps its plain affinity again.
    pub fast_share: Vec<(ThreadId, Option<f64>)>,
    /// `None` returns to the local scheduler's default slice.
    pub slice_ns: Vec<(ThreadId, Option<u64>)>,
    /// `None` returns to the weight of the app's nice value.
    pub weight: Vec<(ThreadId, Option<u32>)>,
    /// (core type, GHz).
    pub frequency: Vec<(usize, f64)>,
}

impl Placement {
    pub fn set(&mut self, thread: ThreadId, cores: CoreSet) {
        self.affinity.push((thread, cores));
    }

    pub fn set_fast_share(&mut self, thread: ThreadId, share: Option<f64>) {
        self.fast_share.push((thread, share));
    }

    pub fn set_slice(&mut self, thread: ThreadId, slice_ns: Option<u64>) {
        self.slice_ns.push((thread, slice_ns));
    }

    pub fn set_weight(&mut self, thread: ThreadId, weight: Option<u32>) {
        self.weight.push((thread, weight));
    }

    pub fn set_frequency(&mut self, core_type: usize, ghz: f64) {
        self.frequency.push((core_type, ghz));
    }

    pub fn clear(&mut self) {
        self.affinity.clear();
        self.fast_share.clear();
        self.slice_ns.clear();
        self.weight.clear();
        self.frequency.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.affinity.is_empty() && self.fast_share.is_empty() && self.slice_ns.is_empty() && self.weight.is_empty() && self.frequency.is_empty()
    }

    /// Every thread any decision names, in order (a thread named twice appears twice).
    pub fn named_threads(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.affinity
            .iter()
            .map(|(t, _)| *t)
            .chain(self.fast_share.iter().map(|(t, _)| *t))
            .chain(self.slice_ns.iter().map(|(t, _)| *t))
            .chain(self.weight.iter().map(|(t, _)| *t))
    }

    /// Check the decisions against the machine and the threads that exist; the error says
    /// what is wrong in words a policy author can act on.
    pub fn validate(&self, m: &Machine, threads: usize) -> Result<(), String> {
        for t in self.named_threads() {
            if t as usize >= threads {
                return Err(format!("placed thread {t}, which does not exist"));
            }
        }
        for (t, cores) in &self.affinity {
            if cores.is_empty() || !cores.difference(&m.all_cores()).is_empty() {
                return Err(format!("gave thread {t} the core set '{cores}', which is empty or names cores the machine lacks"));
            }
        }
        for &(t, share) in &self.fast_share {
            if let Some(s) = share {
                if !(0.0..=1.0).contains(&s) {
                    return Err(format!("gave thread {t} a fast-core share of {s}; a share is between 0 and 1"));
                }
            }
        }
        use crate::defaults::{MAX_SLICE_NS, MIN_SLICE_NS};
        for &(t, slice) in &self.slice_ns {
            if let Some(ns) = slice.filter(|ns| !(MIN_SLICE_NS..=MAX_SLICE_NS).contains(ns)) {
                return Err(format!("gave thread {t} a time slice of {ns} ns; a slice is from {MIN_SLICE_NS} to {MAX_SLICE_NS} ns (Linux's range)"));
            }
        }
        for &(t, w) in &self.weight {
            if w == Some(0) {
                return Err(format!("gave thread {t} a weight of 0"));
            }
        }
        for &(ty, ghz) in &self.frequency {
            let Some(ct) = m.core_types.get(ty) else {
                return Err(format!("set the frequency of core type {ty}, which does not exist"));
            };
            if !ct.freq_levels_ghz.contains(&ghz) {
                return Err(format!("set core type '{}' to {ghz} GHz, which is not one of its levels ({:?})", ct.name, ct.freq_levels_ghz));
            }
        }
        Ok(())
    }
}

/// A scheduler. Called every `quantum_ns` and on the per-thread events it asks for.
///
/// This is all a scheduler implements; its name and what it reads are its `PolicyInfo`
/// (ampsched-policy's registry), and what it may tell a report besides its placements is its
/// `Diagnostics`.
pub trait Policy: Send {
    /// Period of the periodic call; None (the default) for a policy that only reacts to events.
    /// The simulator skips the calls that fall while no thread runs or waits for a core (idle
    /// stretches): a policy reads elapsed time from the view's `now_ns`, never by counting calls.
    fn quantum_ns(&self) -> Option<u64> {
        None
    }
    fn triggers(&self) -> Triggers;
    /// Decide, from `view`, the changes of placement in `out` (empty on entry).
    ///
    /// A Rust policy never fails; a policy written in Python fails when its `decide` raises or
    /// overruns its time limit. A failed policy decides nothing more, and whoever runs it (the
    /// simulator, the agent) ends the run with the failure's message.
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure>;
    /// What the policy can tell besides its decisions, if anything (the default: nothing).
    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        None
    }
    /// The local scheduler (the OS's layer below the policy) the simulator runs this policy
    /// over: CFS (the default), or one of the big.LITTLE paper's OS schedulers (`OsScheduler`).
    /// Read once, when the run starts.
    fn os_scheduler(&self) -> crate::OsScheduler {
        crate::OsScheduler::Cfs
    }
}

/// A boxed policy is a policy (the registry builds them boxed; `Watched` wraps them).
impl<P: Policy + ?Sized> Policy for Box<P> {
    fn quantum_ns(&self) -> Option<u64> {
        (**self).quantum_ns()
    }
    fn triggers(&self) -> Triggers {
        (**self).triggers()
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        (**self).decide(view, out)
    }
    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        (**self).diagnostics()
    }
    fn os_scheduler(&self) -> crate::OsScheduler {
        (**self).os_scheduler()
    }
}

/// Why a policy cannot go on (see `Policy::decide`): a message for the user, naming the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFailure(pub String);

impl std::fmt::Display for PolicyFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a policy may report besides its placements, for the simulator's and the agent's
/// reports. Optional: a scheduler that offers nothing leaves `Policy::diagnostics` at its
/// default, and each method here has a default too.
pub trait Diagnostics {
    /// The policy's current estimate of thread `t`'s speedup factor (time on the slowest core
    /// type / time on the fastest), if it keeps one: HASS-S's static SF, HASS-D's dynamic one.
    /// Read by the simulator after each quantum call, for the threads running then, to report
    /// the estimator's error against the true SF of the thread's current phase (`sf_error` in a
    /// run's JSON). Never called live.
    fn sf_estimate(&self, _t: ThreadId) -> Option<f64> {
        None
    }
    /// Where the policy's speedup predictions came from, for a report to say (the live agent's
    /// `speedup` line): e.g. "core type alone: no hardware counters" when it had to predict every
    /// thread the cores' peak-rate ratio. None (the default) for a policy that does not say.
    fn speedup_source(&self) -> Option<String> {
        None
    }
    /// A fairness policy's fast-core efficiency estimates of each thread (IPS on fast cores / IPS
    /// on slow ones), one per scheduling interval until the first app finished a run: what Kim &
    /// Huh average and compare with pinned runs (IEEE TC 2018, §7.5). Read by the runner after
    /// the run for its `efficiency_error` report; empty (the default) for a policy without them.
    fn efficiency_estimates(&self) -> Vec<(ThreadId, Vec<f64>)> {
        Vec::new()
    }
}

/// A policy and a watcher that sees each of its calls once it has decided: the policy (to read
/// its state), the view and the placement. For tests and tools that check or record what a
/// policy does; everything else (quantum, triggers, diagnostics) is the inner policy's, so the
/// watched policy gets the calls it would get alone. The watcher sees a failed call too (its
/// placement as the policy left it; a Python policy clears it), before the run ends with it.
pub struct Watched<P, F> {
    pub inner: P,
    pub watch: F,
}

impl<P, F> Watched<P, F>
where
    P: Policy,
    F: FnMut(&P, &SystemView, &Placement) + Send,
{
    pub fn new(inner: P, watch: F) -> Self {
        Watched { inner, watch }
    }
}

impl<P, F> Policy for Watched<P, F>
where
    P: Policy,
    F: FnMut(&P, &SystemView, &Placement) + Send,
{
    fn quantum_ns(&self) -> Option<u64> {
        self.inner.quantum_ns()
    }
    fn triggers(&self) -> Triggers {
        self.inner.triggers()
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let decided = self.inner.decide(view, out);
        (self.watch)(&self.inner, view, out);
        decided
    }
    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        self.inner.diagnostics()
    }
    fn os_scheduler(&self) -> crate::OsScheduler {
        self.inner.os_scheduler()
    }
}
