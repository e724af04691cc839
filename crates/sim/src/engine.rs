//! The discrete-event engine: its state, the event loop, and `settle`.
//!
//! Time is integer nanoseconds. The layers, one file each: the workload interpreter (`interp`,
//! with `sync`) moves threads through their phases; the cores (`cores`) run them and account
//! what they did; the memory side (`memory`) gives their rate on a core; migrations
//! (`migrate`) cost them time; the local scheduler (`local`, a type parameter; with a
//! fast-core share's rounds, `local::share`) queues and places them; the policy driver
//! (`driver`) calls the policy and applies its placement; `finish` makes the result or explains
//! a deadlock. Observers (`observe`) are told what happened; the engine records nothing itself.
//! On a machine with an `[interconnect]`, the on-chip network (`nocsim`) runs in lock step with
//! the events, and the queue spinlock (`qspin`) sends its packets through it.
//! Each layer keeps its own per-thread state, in arrays of its own (`Engine::flow`, `rates`,
//! `migration`, `shares`); the local scheduler keeps its own (`Cfs`), and reads the rest
//! through `SchedView`.
//!
//! A core has at most one pending event: the moment its running thread finishes its current
//! work or its time slice, whichever is first (re-planning the core replaces it). Everything
//! else (arrivals, I/O completions, the policy's quantum, balancing) is an event of its own. A handler records the triggers it
//! causes; `settle` then calls the policy for them and starts the threads they woke, so the
//! policy always sees a consistent system.

use std::collections::VecDeque;

use ampsched_model::events::MORE_EVENTS;
use ampsched_model::machine::MAX_CORE_TYPES;
use ampsched_model::{AppView, CoreSet, Machine, PerfModel, Placement, Policy, PolicyFailure, Signals, ThreadState, Trigger, ViewBook, Workload};

use crate::counters::CounterBook;
use crate::dvfs::Dvfs;
use crate::events::{Event, EventQueue};
use crate::interp::Flow;
use crate::interrupt::Interrupt;
use crate::local::share::{ShareThread, DEFAULT_ROUND_NS};
use crate::local::{Cfs, LocalScheduler, SchedView};
use crate::memory::{ThreadRate, UarchCosts};
use crate::migrate::Migration;
use crate::observe::TraceRecorder;
use crate::queue::{Queue, StageItems};
use crate::sync::{Barrier, Lock, RunSync};

/// Engine settings that are not part of the machine or the workload.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// The local scheduler's time slice (`defaults::SLICE_MS`).
    pub slice_ns: u64,
    /// Period of the local scheduler's load balancing (Linux balances every few ms per domain).
    pub balance_ns: u64,
    /// The round of a fast-core share (`local::share`).
    pub share_round_ns: u64,
    /// Swaps also on the ticks of slow cores (`local::share`: Kim & Huh describe the rule on fast
    /// cores only; off by default).
    pub share_swap_from_slow: bool,
    pub seed: u64,
    /// Record every run segment of every core (for traces and timelines), up to this many.
    pub max_segments: usize,
    /// Keep each thread's time per instruction while its `memory::RateKey` holds (the default);
    /// false asks the model at every plan, as the engine did before the cache: tests hold the
    /// cache to leaving every run as it was.
    #[doc(hidden)]
    pub rate_cache: bool,
    /// The run's simulated-time budget: a run still going past it stops with
    /// `SimError::OverBudget` (`limits::DEFAULT_MAX_SIM_S`), rather than running (nearly) forever.
    pub max_sim_ns: u64,
    /// The event budget (`limits::DEFAULT_MAX_EVENTS`), which bounds wall time: the run stops
    /// with `SimError::OverBudget` once it and the simulations before it that drew from the
    /// same budget (`events_before`) have used this many events.
    pub max_events: u64,
    /// Events that the command's earlier simulations used of `max_events` (the runner gives one
    /// budget to every simulation of a command: solo references, profiling runs, candidates,
    /// each policy of a comparison); 0 for a run on its own.
    pub events_before: u64,
    /// What this run is, as its errors name it: "the run" on its own; the runner says which of
    /// a command's simulations it is ("the solo reference run of wupwise_m", "the run of rr").
    pub run_name: String,
    /// The most threads a run may create, runs and restarts counted (`limits::MAX_THREADS_SPAWNED`;
    /// smaller in tests).
    #[doc(hidden)]
    pub max_threads_spawned: u64,
    /// Skip the periodic ticks of idle stretches (`Engine::next_tick`; the default); false runs
    /// every tick, as the engine did before: tests hold the skip to leaving runs as they were.
    #[doc(hidden)]
    pub skip_idle: bool,
    /// Asked during the run whether to stop it (Ctrl-C); None: it runs to the end.
    pub interrupt: Option<Interrupt>,
    /// The relative standard deviation of the measurement noise on the counters the policy
    /// reads (`counters`; `defaults::COUNTER_NOISE`; 0: exact). Results are always exact.
    pub counter_noise: f64,
    /// Whether the policy reads hardware counters (`needs` or `optional` of its `PolicyInfo` holds `Signals::COUNTERS`). A
    /// policy that does not is never shown them: at its calls only the OS's CPU time of the
    /// threads that ran is brought up to date, and no measurement noise is drawn, so that a
    /// policy called at every thread event does not pay for what it never reads. What the run
    /// reports is the exact count either way (`counters`). Default true: a policy made outside
    /// the registry and its runner is shown everything.
    pub policy_reads_counters: bool,
    /// Record the power of each rail by windows of this many ns (`power::PowerTrace`, the
    /// paper's daemon sampling every 0.27 s); 0 (the default): no trace.
    pub power_sample_ns: u64,
}

pub const DEFAULT_SLICE_NS: u64 = (ampsched_model::defaults::SLICE_MS * 1e6) as u64;
pub const DEFAULT_BALANCE_NS: u64 = 10_000_000;

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            slice_ns: DEFAULT_SLICE_NS,
            balance_ns: DEFAULT_BALANCE_NS,
            share_round_ns: DEFAULT_ROUND_NS,
            share_swap_from_slow: false,
            seed: ampsched_model::defaults::SEED,
            max_segments: 0,
            rate_cache: true,
            max_sim_ns: (ampsched_model::limits::DEFAULT_MAX_SIM_S * 1e9) as u64,
            max_events: ampsched_model::limits::DEFAULT_MAX_EVENTS,
            events_before: 0,
            run_name: "the run".to_string(),
            max_threads_spawned: ampsched_model::limits::MAX_THREADS_SPAWNED,
            skip_idle: true,
            interrupt: None,
            counter_noise: ampsched_model::defaults::COUNTER_NOISE,
            policy_reads_counters: true,
            power_sample_ns: 0,
        }
    }
}

/// Why a run could not complete.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// No thread can ever make progress again.
    Deadlock(String),
    /// The policy asked for something impossible.
    Policy(String),
    /// The policy failed (`Policy::decide`'s error: a Python policy's exception or overrun).
    PolicyFailed(PolicyFailure),
    /// The run passed its budget before the workload finished: simulated time
    /// (`SimConfig::max_sim_ns`), events (`max_events`) or threads created (`max_threads_spawned`).
    OverBudget(String),
    /// The caller's `Interrupt` hook asked to stop.
    Interrupted,
    /// The workload cannot run on the machine: a phase's CPI table does not cover one of its
    /// core types (`perf::check_uarch_cpi`, which the runner asks before any run).
    Input(String),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Deadlock(m) => write!(f, "the workload can never finish: {m}"),
            SimError::Policy(m) => write!(f, "policy error: {m}"),
            SimError::PolicyFailed(why) => write!(f, "{why}"),
            // The message names the run (`SimConfig::run_name`): a command makes several.
            SimError::OverBudget(m) => write!(f, "{m}"),
            SimError::Interrupted => write!(f, "interrupted"),
            SimError::Input(m) => write!(f, "{m}"),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct CoreRt {
    /// When the running thread was last accounted.
    pub seg_start: u64,
    /// When the running thread was dispatched (start of its segment).
    pub run_start: u64,
    pub slice_end: u64,
    /// When the running thread's current work (after paying its debt) completes.
    pub work_end: u64,
    pub busy_ns: u64,
    /// Marked for re-planning at the end of the current handler.
    pub dirty: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct AppRt {
    pub runs_done: u32,
    pub measured: Vec<u64>,
    pub run_start: u64,
    /// Threads of the current run that have not exited.
    pub live: u32,
    /// First thread id of each group of the current run.
    pub group_first: Vec<u32>,
    pub group_barriers: Vec<Barrier>,
    pub app_barrier: Barrier,
    pub locks: Vec<Lock>,
    /// The pipeline queues of the current run (`App::queues`), and per group the items of
    /// each of its stage phases (by index in its phase list; empty for a group without stages).
    pub queues: Vec<Queue>,
    pub stage_items: Vec<Vec<StageItems>>,
    /// The most items each queue held at once over the app's runs.
    pub queue_peak: Vec<u32>,
    pub done: bool,
    pub all_threads: Vec<u32>,
    /// A task app's runtime (`runtime`): its state for the current run, and its statistics.
    pub runtime: Option<Box<crate::runtime::TaskRun>>,
    /// The current run's spawned groups, joins, semaphores and named barriers (`RunSync`); None
    /// for an app without them, which pays nothing for them.
    pub sync: Option<Box<RunSync>>,
}

impl AppRt {
    /// The most items each queue held at once, over the finished runs and the current one.
    pub fn queue_peaks(&self) -> Vec<u32> {
        let mut peaks = self.queue_peak.clone();
        peaks.resize(self.queues.len().max(peaks.len()), 0);
        for (p, q) in peaks.iter_mut().zip(&self.queues) {
            *p = (*p).max(q.peak());
        }
        peaks
    }
}

/// A thread a handler touched: the policy trigger it causes, and whether it must be queued.
pub(crate) struct Pending {
    pub thread: u32,
    pub trigger: Option<Trigger>,
    pub enqueue: bool,
}

#[derive(Default)]
pub(crate) struct Stats {
    pub events: u64,
    pub policy_calls: u64,
    pub decisions: u64,
    pub migrations: u64,
    /// Core-ns during which a core sat idle while a thread waited for a core
    /// (`Engine::idle_while_waiting`), and how many cores do so now, until the next event.
    pub idle_while_waiting_ns: u64,
    pub idle_while_waiting_now: u64,
    /// Fast-core shares (`local::share`): swaps of two threads' sides, and threads an idle core
    /// took from the other side (work conservation).
    pub share_swaps: u64,
    pub share_takes: u64,
}

pub struct Engine<'a, S: LocalScheduler = Cfs> {
    /// The machine as the policy sees it (nominal frequencies).
    pub(crate) m: &'a Machine,
    /// The machine as it runs now, and busy time per frequency level.
    pub(crate) dvfs: Dvfs,
    pub(crate) w: &'a Workload,
    pub(crate) model: &'a dyn PerfModel,
    pub(crate) policy: &'a mut dyn Policy,
    pub(crate) cfg: SimConfig,
    pub(crate) now: u64,
    pub(crate) events: EventQueue,
    pub(crate) cores: Vec<CoreRt>,
    /// Per core: the thread it runs. Apart from `cores`, so that the local scheduler reads it as
    /// a plain slice (`SchedView`).
    pub(crate) running: Vec<Option<u32>>,
    pub(crate) sched: S,
    /// What the policy sees (threads, apps, cores, lock edges), kept as the run goes.
    pub(crate) book: ViewBook,
    /// The threads' counters, exact, and the noise on what the policy reads of them.
    pub(crate) counters: CounterBook,
    // The threads' private state (the policy sees `ThreadView`): one array per layer, indexed by
    // thread id, each kept by its layer's file, so that a handler brings into the cache only the
    // parts of a thread it uses (a slice switch does not pull in the interpreter's step or a
    // share's rounds with the thread's rate and debt).
    /// The interpreter's (`interp`): where each thread is in its phases, what it does now.
    pub(crate) flow: Vec<Flow>,
    /// The memory side's (`memory`): each thread's rate on its core and its home node, and the
    /// other counted events per instruction at that rate, read only when the rate changes.
    pub(crate) rates: Vec<ThreadRate>,
    pub(crate) more_per_instruction: Vec<[f64; MORE_EVENTS]>,
    /// The migrations' (`migrate`): the core each thread last ran on (a run elsewhere is a
    /// migration; read by the local scheduler through `SchedView`), and what its moves cost it.
    pub(crate) last_ran: Vec<Option<u32>>,
    pub(crate) migration: Vec<Migration>,
    /// The local scheduling's (`local`): the cores each thread may run on now, its affinity
    /// narrowed to one side by a fast-core share (read through `SchedView`), and its share's
    /// rounds and side (boxed: rare, and the array stays a pointer a thread).
    pub(crate) allowed: Vec<CoreSet>,
    pub(crate) shares: Vec<Option<Box<ShareThread>>>,
    /// The threads that have a share, in the order they got it (the swaps' and work
    /// conservation's candidates; a thread leaves it when it exits).
    pub(crate) sharing: Vec<u32>,
    pub(crate) apps: Vec<AppRt>,
    /// Live threads that are not waiting on a synchronisation object: if this and the number of
    /// future arrivals both reach zero before the end, nothing can ever move again.
    pub(crate) able: u64,
    /// The live threads of some app with `RunSync` all waited at one moment of the last handler
    /// (its `RunSync::able` reached 0): after the handler, see whether that app is stuck.
    pub(crate) sync_stuck: bool,
    pub(crate) arrivals_left: u32,
    pub(crate) apps_left: u32,
    pub(crate) pending: VecDeque<Pending>,
    pub(crate) dirty: Vec<u32>,
    pub(crate) placement: Placement,
    pub(crate) stats: Stats,
    pub(crate) trace: Option<TraceRecorder>,
    /// The fast types and cores as the OS sees them (`Machine::is_fast_type`: reported
    /// capacities): what fast-core shares (`local::share`) and a policy's fast side act on.
    pub(crate) fast_type_mask: [bool; MAX_CORE_TYPES],
    pub(crate) fast_cores: CoreSet,
    /// Reused buffer for the local scheduler's balancing moves.
    moved: Vec<(u32, usize)>,
    /// Some phase's miss rate depends on its LLC capacity, and some LLC is shared: co-runners
    /// change each other's speed (`memory`).
    pub(crate) shared_curves: bool,
    /// LLC domains whose running threads changed in this handler.
    pub(crate) llc_dirty: Vec<u32>,
    /// The memory controllers' bandwidth and queues (`memory::Controllers`); None on a machine
    /// without `[memory]`, which then pays nothing for them.
    pub(crate) controllers: Option<crate::memory::Controllers<'a>>,
    /// The hardware threads' siblings (`smt::Smt`); None on a machine without SMT, which then
    /// pays nothing for it.
    pub(crate) smt: Option<Box<crate::smt::Smt>>,
    /// Per thread: the sum of |SF estimate − true SF| over its samples and their number
    /// (`sf_truth`); empty while the policy gives no estimates.
    pub(crate) sf_error: Vec<(f64, u64)>,
    /// The costs on each core type of the phases with a CPI per microarchitecture, resolved
    /// once (`memory::UarchCosts`).
    pub(crate) uarch_costs: UarchCosts,
    /// The rails' power by time window, if asked for (`SimConfig::power_sample_ns`).
    pub(crate) power_trace: Option<crate::power::PowerTrace>,
    /// The on-chip network of a machine with an `[interconnect]` (`nocsim`); None: no network.
    pub(crate) noc: Option<Box<crate::nocsim::NocSim>>,
}

/// What the simulator measures for a policy: everything but the program hints a workload does
/// not give, and the solo profiles only once the runner has measured them.
pub fn simulator_signals(w: &Workload) -> Signals {
    let mut all = Signals::COUNTERS | Signals::LOCKS | Signals::SPIN | Signals::SIMULATOR | Signals::PROGRESS | Signals::WAKEUP;
    if w.has_signatures() {
        all = all | Signals::HINTS;
    }
    if w.has_solo_profiles() {
        all = all | Signals::PROFILE;
    }
    all
}

impl<'a> Engine<'a, Cfs> {
    /// An engine with the CFS-like local scheduler.
    pub fn new(m: &'a Machine, w: &'a Workload, model: &'a dyn PerfModel, policy: &'a mut dyn Policy, cfg: SimConfig) -> Self {
        let sched = Cfs::for_machine(m, cfg.slice_ns, cfg.seed);
        Engine::with_scheduler(m, w, model, policy, cfg, sched)
    }
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    pub fn with_scheduler(m: &'a Machine, w: &'a Workload, model: &'a dyn PerfModel, policy: &'a mut dyn Policy, cfg: SimConfig, sched: S) -> Self {
        // A policy not shown counters (`policy_reads_counters`) is told there are none.
        let available = if cfg.policy_reads_counters { simulator_signals(w) } else { simulator_signals(w).without(Signals::COUNTERS) };
        let mut book = ViewBook::new(m.num_cores(), available, policy.quantum_ns().is_some());
        book.seed = cfg.seed;
        // Such a policy's view gets CPU time alone (`CounterBook::sync_time`).
        book.time_only = (!cfg.policy_reads_counters).then_some(m.core_types.len());
        let counters = CounterBook::new(cfg.counter_noise, cfg.seed);
        book.apps = w
            .apps
            .iter()
            .enumerate()
            .map(|(i, a)| AppView {
                signatures: a.groups.iter().map(|g| g.signature.clone()).collect(),
                solo_ips: a.groups.iter().map(|g| g.solo_ips).collect(),
                program: a.program.clone(),
                policy_managed: a.policy_managed,
                ..AppView::new(i as u32, a.name.clone(), a.priority)
            })
            .collect();
        Engine {
            m,
            dvfs: Dvfs::new(m),
            w,
            model,
            policy,
            trace: (cfg.max_segments > 0).then(|| TraceRecorder::new(cfg.max_segments)),
            power_trace: (cfg.power_sample_ns > 0).then(|| crate::power::PowerTrace::new(m, cfg.power_sample_ns)),
            // The network is simulated only for a workload with queue spinlocks (`nocsim`: its only
            // effect on a run is the lock packets' latency; without them it would change nothing
            // but the run's cost, billions of cycles of background traffic for seconds of run).
            noc: m
                .interconnect
                .as_ref()
                .filter(|_| ampsched_model::queue_spinlock::uses_queue_spinlock(w))
                .map(|spec| Box::new(crate::nocsim::NocSim::new(spec, w, cfg.seed))),
            cfg,
            now: 0,
            events: EventQueue::new(m.num_cores()),
            cores: vec![CoreRt::default(); m.num_cores()],
            running: vec![None; m.num_cores()],
            sched,
            book,
            counters,
            flow: Vec::new(),
            rates: Vec::new(),
            more_per_instruction: Vec::new(),
            last_ran: Vec::new(),
            migration: Vec::new(),
            allowed: Vec::new(),
            shares: Vec::new(),
            sharing: Vec::new(),
            apps: vec![AppRt::default(); w.apps.len()],
            able: 0,
            sync_stuck: false,
            arrivals_left: 0,
            apps_left: w.apps.len() as u32,
            pending: VecDeque::new(),
            dirty: Vec::new(),
            placement: Placement::default(),
            stats: Stats::default(),
            fast_type_mask: m.fast_type_mask(),
            fast_cores: m.fast_cores(),
            moved: Vec::new(),
            shared_curves: w.has_miss_curves() && m.llcs.iter().any(|l| l.cores.len() > 1),
            llc_dirty: Vec::new(),
            controllers: m.memory_bandwidth.map(|bw| crate::memory::Controllers::new(bw, m.numa_nodes)),
            smt: crate::smt::Smt::new(m),
            sf_error: Vec::new(),
            uarch_costs: UarchCosts::new(m, w),
        }
    }

    /// Run the workload to completion.
    pub fn run(mut self) -> Result<crate::RunResult, SimError> {
        ampsched_model::perf::check_uarch_cpi(self.m, self.w).map_err(|e| SimError::Input(e.to_string()))?;
        let nodes = ampsched_model::queue_spinlock::mesh_nodes(self.m);
        ampsched_model::queue_spinlock::check(self.w, nodes, &self.m.name).map_err(|(key, why)| SimError::Input(format!("{key}: {why}")))?;
        for (i, a) in self.w.apps.iter().enumerate() {
            self.events.push(a.arrival_ns, Event::Arrival { app: i as u32 });
            self.arrivals_left += 1;
        }
        if let Some(q) = self.policy.quantum_ns() {
            self.events.push(q.max(1), Event::Quantum);
        }
        self.events.push(self.cfg.balance_ns, Event::Balance);
        // What the earlier simulations of the command left of the event budget.
        let max_events = self.cfg.max_events.saturating_sub(self.cfg.events_before);

        while self.apps_left > 0 {
            self.check_interrupt()?;
            let Some((t, ev)) = self.next_event() else {
                return Err(self.deadlock(None));
            };
            debug_assert!(t >= self.now, "time went backwards");
            if t > self.cfg.max_sim_ns || self.stats.events >= max_events {
                return Err(self.over_budget(t));
            }
            // Nothing changes between events: the state `settle` left held since the last one.
            self.stats.idle_while_waiting_ns += (t - self.now) * self.stats.idle_while_waiting_now;
            self.now = t;
            self.sched.set_now(t);
            match ev {
                Event::Core { core } => self.on_core_event(core as usize),
                Event::Arrival { app } => {
                    self.arrivals_left -= 1;
                    // Before any of the run's threads is made, so that no table grows past the
                    // bound (a constant-load app that restarts without end reaches it).
                    let next_run = self.w.apps[app as usize].groups.iter().map(|g| g.threads_per_run()).sum::<u64>();
                    if self.num_threads() as u64 + next_run > self.cfg.max_threads_spawned {
                        return Err(self.too_many_threads(app as usize, next_run));
                    }
                    self.spawn_run(app as usize);
                }
                Event::Wake { thread } => self.finish_step(thread),
                Event::Quantum => {
                    self.call_policy(Trigger::Quantum)?;
                    if let Some(q) = self.policy.quantum_ns() {
                        let next = self.next_tick(q.max(1));
                        self.events.push(next, Event::Quantum);
                    }
                }
                Event::Balance => {
                    self.balance();
                    let next = self.next_tick(self.cfg.balance_ns);
                    self.events.push(next, Event::Balance);
                }
                Event::Network => self.on_network(),
            }
            self.stats.events += 1;
            self.settle()?;
            self.stats.idle_while_waiting_now = self.idle_while_waiting();
            if self.able == 0 && self.arrivals_left == 0 && self.apps_left > 0 && !self.network_busy() {
                return Err(self.deadlock(None));
            }
            if self.sync_stuck {
                self.sync_stuck = false;
                if let Some(a) = self.stuck_app() {
                    return Err(self.deadlock(Some(a)));
                }
            }
        }
        Ok(self.finish())
    }

    /// The next time of a periodic event (the policy's quantum, balancing) of `period`. While
    /// no thread runs or waits for a core, its ticks find nothing to do, so they skip to the
    /// last tick before the next event that can change that (an arrival, a wake-up): an idle
    /// hour costs a few events, not 720,000. The skipped ticks keep their phase, and that last
    /// tick schedules the next one at the moment it would have been scheduled without the skip,
    /// so events due at one time keep their order (two periodic streams of different periods
    /// included) and the run is the run without skipping, but for its idle policy calls.
    fn next_tick(&self, period: u64) -> u64 {
        let next = self.now.saturating_add(period);
        if !self.cfg.skip_idle || !self.idle() || self.network_busy() {
            return next;
        }
        match self.events.next_busy_time() {
            Some(t) if t > next => next + (t - next - 1) / period * period,
            _ => next,
        }
    }

    /// How many cores sit idle while a thread waits for a core: min(idle cores, runnable threads
    /// queued on any core). Whatever the waiting threads' affinities: a policy's affinities are
    /// how it leaves cores idle (a scheduler that binds more threads to the big cores than there
    /// are, WASH per runtime, leaves the small cores idle with threads queued that may not run
    /// there), and that idleness is what this measures; counting only threads allowed on the idle
    /// core would show the policy's own binding as no waste at all. The minimum, because one
    /// waiting thread could have used only one of several idle cores. The local scheduler's own
    /// delay (an idle core pulls queued threads at its next balance, every `balance_ns`) counts
    /// too: it is idleness a placement could have avoided. Read after `settle`, so every runnable
    /// thread is running or queued; one loop over the cores, and only while some core is idle.
    fn idle_while_waiting(&self) -> u64 {
        let idle = self.running.iter().filter(|r| r.is_none()).count();
        if idle == 0 {
            return 0;
        }
        let queued: usize = (0..self.running.len()).map(|c| self.sched.queue_len(c)).sum();
        idle.min(queued) as u64
    }

    /// No core runs a thread and none is queued.
    fn idle(&self) -> bool {
        self.running.iter().enumerate().all(|(c, running)| running.is_none() && self.sched.queue_len(c) == 0)
    }

    /// Process what the last handler caused: policy calls for its triggers, then queueing the
    /// threads it made runnable, then re-planning the cores it touched.
    fn settle(&mut self) -> Result<(), SimError> {
        while let Some(p) = self.pending.pop_front() {
            if let Some(trig) = p.trigger {
                if self.policy.triggers().wants(trig) {
                    self.call_policy(trig)?;
                }
            }
            if p.enqueue && self.book.threads[p.thread as usize].state == ThreadState::Ready && self.sched.queued_on(p.thread).is_none() {
                self.place(p.thread);
            }
        }
        self.reschedule_dirty();
        // A re-planned core may switch threads at its slice end, which changes its domain (and
        // its sibling's speed) again.
        loop {
            while !self.llc_dirty.is_empty() || self.smt_dirty() {
                self.refresh_llcs();
                self.refresh_smt();
                self.reschedule_dirty();
            }
            // Then the memory controllers, from the miss rates the LLC shares give.
            if !self.controllers.as_ref().is_some_and(|k| k.dirty) {
                break;
            }
            self.refresh_controllers();
            self.reschedule_dirty();
        }
        Ok(())
    }

    fn reschedule_dirty(&mut self) {
        while let Some(c) = self.dirty.pop() {
            let c = c as usize;
            if !self.cores[c].dirty {
                // Marked again while it was being rescheduled (a thread leaving it at its slice
                // end is queued back on it, idle for that moment), and already settled then.
                continue;
            }
            self.cores[c].dirty = false;
            self.reschedule(c);
            self.cores[c].dirty = false;
        }
    }

    /// The local scheduler's periodic balancing, carried out.
    fn balance(&mut self) {
        let mut moved = std::mem::take(&mut self.moved);
        self.sched.balance(&SchedView::new(&self.allowed, &self.last_ran, &self.running), &mut moved);
        for &(t, to) in &moved {
            if self.book.threads[t as usize].state == ThreadState::Running {
                self.move_running(t, to);
            } else {
                self.queued_at(t, to);
            }
        }
        moved.clear();
        self.moved = moved;
    }

    /// A new thread's state in every layer: `flow` from the interpreter, may run on `allowed`.
    pub(crate) fn add_thread_state(&mut self, flow: Flow, allowed: CoreSet) {
        self.flow.push(flow);
        self.rates.push(ThreadRate::default());
        self.more_per_instruction.push([0.0; MORE_EVENTS]);
        self.last_ran.push(None);
        self.migration.push(Migration::default());
        self.allowed.push(allowed);
        self.shares.push(None);
    }

    /// Threads created so far, runs and restarts counted.
    pub(crate) fn num_threads(&self) -> usize {
        self.flow.len()
    }

    pub(crate) fn set_state(&mut self, t: u32, state: ThreadState) {
        self.book.set_state(t, state);
    }
}

/// Run `policy` over the local scheduler it asks for (`Policy::os_scheduler`): CFS, or one of the
/// big.LITTLE paper's OS schedulers (`local::gts`, `local::cluster_switch`, `local::iks`). A
/// switcher on a machine it cannot run on is `SimError::Input`.
pub fn simulate(m: &Machine, w: &Workload, model: &dyn PerfModel, policy: &mut dyn Policy, cfg: SimConfig) -> Result<crate::RunResult, SimError> {
    use crate::local::{cluster_switch, iks, Gts};
    use ampsched_model::OsScheduler;
    let (slice, seed) = (cfg.slice_ns, cfg.seed);
    match policy.os_scheduler() {
        OsScheduler::Cfs => Engine::new(m, w, model, policy, cfg).run(),
        OsScheduler::Gts(p) => Engine::with_scheduler(m, w, model, policy, cfg, Gts::new(m, p, slice, seed)).run(),
        OsScheduler::ClusterSwitch(p) => {
            let s = cluster_switch::new(m, p, slice, seed).map_err(SimError::Input)?;
            Engine::with_scheduler(m, w, model, policy, cfg, s).run()
        }
        OsScheduler::Iks(p) => {
            let s = iks::new(m, p, slice, seed).map_err(SimError::Input)?;
            Engine::with_scheduler(m, w, model, policy, cfg, s).run()
        }
    }
}
