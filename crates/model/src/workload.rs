//! The workload: applications, their thread groups and the phases each thread runs.
//!
//! An app's threads come in groups with a role (a main thread and workers, a managed runtime's
//! helper threads...). Each thread of a group runs the group's phase list in order, `repeat`
//! times. The simple form of an app (`threads` plus `[[app.phase]]`, or `program`) is one group
//! of application threads.

use std::collections::BTreeMap;

use crate::app_sync::{AppSync, SyncRefs};
use crate::cache::MissCurve;
use crate::error::{InputError, Result};
use crate::events::EventRates;
use crate::limits;
use crate::queue_spinlock::{self, QueueSpinlock};
use crate::task_program::{After, MainPlacement, RuntimeOptions, Stage as TaskStage, TaskProgram, TaskScheduler, TaskStep, TaskWork, RUNTIME_WORK};
use crate::toml_read::{parse, Node, NumberOrMap};

/// How a thread behaves at a compute chunk: its CPI on the reference big core (and, where
/// known, on named microarchitectures), its last-level-cache misses per thousand instructions as
/// a function of the capacity it gets, how many of them it keeps outstanding at once, and the
/// cached data a migration to another LLC leaves behind (see `cache`).
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The reference CPI: on the reference big core (`cpi_scale` 1), and scaled by `cpi_scale`
    /// on every core type `uarch_cpi` does not name. For a table, its `default` entry, else its
    /// lowest entry (see `UarchCpi::reference`).
    pub cpi: f64,
    /// `cpi = { "cortex-a15" = 1.1, ... }`: the CPI on the core types of those
    /// microarchitectures (None for a plain number: every type scales `cpi`). Boxed: rare.
    pub uarch_cpi: Option<Box<UarchCpi>>,
    /// Memory-level parallelism (`mlp`, default 1): misses outstanding at once on a core that
    /// can overlap that many (`CoreType::max_mlp`); see `perf`.
    pub mlp: f64,
    pub misses: MissCurve,
    pub footprint_kb: f64,
    /// The rates of the counted events no miss curve gives (`events`): keys `branch_mpki` and
    /// `l1d_mpki`, documented defaults when absent.
    pub events: EventRates,
}

impl Profile {
    /// A profile whose miss rate does not depend on the cache (a flat curve, no footprint).
    pub fn flat(cpi: f64, llc_mpki: f64) -> Profile {
        Profile { cpi, uarch_cpi: None, mlp: 1.0, misses: MissCurve::flat(llc_mpki), footprint_kb: 0.0, events: EventRates::default() }
    }
}

/// A phase's CPI per microarchitecture (`cpi = { "cortex-a15" = 1.1, "cortex-a7" = 2.0 }`): on a
/// core type whose `uarch` it names, the cycles per instruction at that core's clock, misses
/// apart (it replaces `cpi × cpi_scale`: a microarchitecture differs per program, which one
/// `cpi_scale` for every program cannot say). The key `default` is not a microarchitecture: the
/// CPI on the reference big core for every other core type, scaled by its `cpi_scale` as a
/// plain `cpi` is.
#[derive(Debug, Clone, PartialEq)]
pub struct UarchCpi {
    /// (microarchitecture, CPI on it), sorted by name.
    pub entries: Vec<(String, f64)>,
    pub default: Option<f64>,
    /// The file and key the table was given at, for the error of a core type it does not cover.
    pub source: String,
    pub key: String,
}

/// The table key that is not a microarchitecture (`UarchCpi::default`).
pub const DEFAULT_UARCH_KEY: &str = "default";

impl UarchCpi {
    /// The CPI on a core of microarchitecture `uarch`, if the table names it.
    pub fn of(&self, uarch: &str) -> Option<f64> {
        self.entries.iter().find(|(u, _)| u == uarch).map(|(_, c)| *c)
    }

    /// The plain reference CPI of the phase (`Profile::cpi`: what its signature, an offline
    /// profile on the reference big core, averages, and what the types the table does not name
    /// scale): the `default` entry; without one, the lowest CPI the table gives, i.e. the CPI on
    /// its fastest microarchitecture per cycle. That is what the reference big core means
    /// (`cpi_scale` 1: the type on which a plain `cpi` holds unscaled), and it needs no machine,
    /// so a program's signature is the same on every machine. Without a `default`, a machine
    /// with a core type the table does not name is refused (`perf::check_uarch_cpi`), so this
    /// value is never scaled by a `cpi_scale` in a run.
    pub fn reference(&self) -> f64 {
        self.default.unwrap_or_else(|| self.entries.iter().map(|(_, c)| *c).fold(f64::INFINITY, f64::min))
    }
}

/// A program's architectural signature, as an offline profiling run of the whole program alone
/// would measure it (the static hint HASS-S reads: Sáez thesis, §4.2.1, "static signatures"):
/// its CPI on the reference big core and its LLC misses per thousand instructions as a function
/// of the LLC size (the thesis's signature is such a curve, Table 4.1), so that a policy reads
/// it at each core type's LLC size. One per program (a group): no per-phase knowledge.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    pub cpi: f64,
    pub misses: MissCurve,
}

impl Signature {
    /// A signature whose miss rate does not depend on the LLC size.
    pub fn flat(cpi: f64, llc_mpki: f64) -> Signature {
        Signature { cpi, misses: MissCurve::flat(llc_mpki) }
    }

    /// The whole-run signature of a thread running `phases` alone, as an offline profiling run
    /// would measure it: CPI and misses averaged over the phases weighted by the instructions
    /// each retires (the run's total cycles and misses over its total instructions; `repeat`
    /// scales every phase alike, so it drops out). The averaged curve is exact at every size:
    /// each phase's curve is linear in log2(size) between its own points and flat beyond its
    /// ends, so their weighted sum is linear between the union of the points. None for phases
    /// that retire no instructions (only barriers and sleeps): nothing to profile.
    pub fn of_phases(phases: &[Phase]) -> Option<Signature> {
        let weighted: Vec<(f64, &Profile)> =
            phases.iter().filter_map(|p| Some((p.instructions_per_thread(), p.profile()?))).filter(|(n, _)| *n > 0.0).collect();
        let total: f64 = weighted.iter().map(|(n, _)| n).sum();
        if total <= 0.0 {
            return None;
        }
        let cpi = weighted.iter().map(|(n, p)| n * p.cpi).sum::<f64>() / total;
        let curves: Vec<(f64, &MissCurve)> = weighted.iter().map(|(n, p)| (n / total, &p.misses)).collect();
        Some(Signature { cpi, misses: MissCurve::weighted_sum(&curves) })
    }
}

impl Phase {
    /// The instructions one thread retires in the phase at most (a serial phase's leader; a
    /// critical phase's `count` acquisitions with the work between them).
    pub fn instructions_per_thread(&self) -> f64 {
        match self {
            Phase::Compute { instructions, .. } | Phase::Serial { instructions, .. } => *instructions,
            Phase::Critical { cs_instructions, between_instructions, count, .. } => *count as f64 * (cs_instructions + between_instructions),
            // The group's items: a pool's threads share them, so this is one thread's at most.
            Phase::Stage(stage) => stage.items as f64 * stage.instructions,
            Phase::Barrier { .. } | Phase::Sleep { .. } => 0.0,
            Phase::Spawn { .. } | Phase::Join { .. } | Phase::SemPost { .. } | Phase::SemWait { .. } | Phase::NamedBarrier { .. } => 0.0,
        }
    }

    /// The profile of the instructions the phase retires, if it retires any.
    pub fn profile(&self) -> Option<&Profile> {
        match self {
            Phase::Compute { profile, .. } | Phase::Serial { profile, .. } | Phase::Critical { profile, .. } => Some(profile),
            Phase::Stage(stage) => Some(&stage.profile),
            Phase::Barrier { .. } | Phase::Sleep { .. } => None,
            Phase::Spawn { .. } | Phase::Join { .. } | Phase::SemPost { .. } | Phase::SemWait { .. } | Phase::NamedBarrier { .. } => None,
        }
    }
}

/// How a thread waits for a barrier, a serial section or a lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Leaves the CPU until woken.
    Block,
    /// Stays runnable and burns its core until the wait ends.
    Spin,
    /// Spins for at most `limit` (CPU time, or loop iterations), then blocks (adaptive
    /// mutexes, OpenMP's OMP_WAIT_POLICY/GOMP_SPINCOUNT).
    SpinThenBlock { limit: SpinLimit },
    /// A critical phase's queue spinlock over the machine's mesh (`wait = "queue_spinlock"`,
    /// docs/queue-spinlock.md): retries by request packets to the lock's home, then a futex sleep.
    QueueSpinlock(QueueSpinlock),
}

/// How long a spin-then-block wait spins before it blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpinLimit {
    /// CPU time, ns, whatever the core (`spin_limit_us`).
    Ns(u64),
    /// Iterations of the spin loop (`spin_limit_iterations`), as an OpenMP runtime counts them
    /// (GOMP_SPINCOUNT; the Sáez thesis sweeps 1M, 10M and 100M, §5.2.2, Fig. 5.2). Each costs
    /// `CYCLES_PER_SPIN_ITERATION` cycles, so the CPU time depends on the waiting core's clock.
    Iterations(u64),
}

/// Cycles one iteration of a spin-wait loop costs: 10. libgomp's loop (config/linux/wait.h,
/// `do_spin`) is a relaxed load of the flag, a compare, a taken branch and `cpu_relax()`, a
/// PAUSE on x86. The load hits L1 (the line stays shared until the waker writes it) and the
/// other three instructions issue in a cycle or two; PAUSE is what costs: about 10 cycles on
/// Intel cores before Skylake (which raised it to ~140, Intel's optimization manual). The
/// thesis's Opteron 8356 is taken alike: we found no figure for its PAUSE, and the value only
/// sets the scale of a threshold given in iterations. So 1M iterations are ~4.3 ms on a
/// 2.3 GHz core and ~8.7 ms at 1.15 GHz, 100M ~0.43 s and ~0.87 s: the order at which the
/// thesis finds blocking thresholds hiding serial phases from the OS (Sáez thesis, §5.2.2,
/// Fig. 5.3).
pub const CYCLES_PER_SPIN_ITERATION: u64 = 10;

impl SpinLimit {
    /// The spin budget in the unit the engine charges it in: ns, or cycles.
    pub fn cycles(self) -> Option<u64> {
        match self {
            SpinLimit::Ns(_) => None,
            SpinLimit::Iterations(n) => Some(n.saturating_mul(CYCLES_PER_SPIN_ITERATION)),
        }
    }
}

/// Whether a group's workers live through the whole run or are created anew for each
/// parallel phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Workers {
    /// A pool created once that waits through the serial phases (OpenMP runtimes): the default.
    #[default]
    Persistent,
    /// Created at every parallel phase and exited at its end, as BLAST and FFTW do (Sáez
    /// thesis, §5.2.3): at a `serial` phase every thread but the group's first (the master)
    /// exits, the master runs the serial part alone, and after it `count - 1` fresh threads
    /// (new ids, `Trigger::Start`) join it for the phases up to the next serial one.
    PerPhase,
}

impl Workers {
    pub const NAMES: [(&'static str, Workers); 2] = [("persistent", Workers::Persistent), ("per_phase", Workers::PerPhase)];
}

/// Which threads a barrier or serial section synchronises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Group,
    App,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// Every thread retires `instructions`.
    Compute { instructions: f64, profile: Profile },
    /// A fork-join serial section: the threads of the scope meet; the first thread of the scope
    /// (the leader) retires `instructions` while the others wait; then all go on.
    Serial { instructions: f64, profile: Profile, wait: Wait, scope: Scope },
    /// All threads of the scope meet before any goes on.
    Barrier { wait: Wait, scope: Scope },
    /// `count` times: retire `between_instructions` outside the lock, acquire lock `lock`
    /// (app-local), retire `cs_instructions` inside it, release it. Waiters are served FIFO.
    Critical { lock: usize, cs_instructions: f64, between_instructions: f64, count: u32, profile: Profile, wait: Wait },
    /// Off the CPU for `ns` (I/O).
    Sleep { ns: u64 },
    /// A pipeline stage (`kind = "stage"`, docs/pipelines.md): the group's threads, a pool, take
    /// the stage's items one at a time, each from its input queue (or, for the first stage, from
    /// a counter of `items`), retire `instructions` for it and put it in the output queue.
    /// Boxed: the other phases stay small.
    Stage(Box<Stage>),
    /// Start the threads of group `group` (an index in `App::groups`; its `start = "spawned"`,
    /// `app_sync`), as pthread_create does: costs the spawning thread nothing.
    Spawn { group: usize },
    /// Wait until every thread of group `group` has exited (pthread_join); at once if it has.
    Join { group: usize, wait: Wait },
    /// Add `count` to semaphore `semaphore` (an index in `AppSync::semaphores`), waking that
    /// many of its waiters, longest first (sem_post): costs nothing.
    SemPost { semaphore: usize, count: u32 },
    /// Take one from semaphore `semaphore`, waiting while it is 0 (sem_wait).
    SemWait { semaphore: usize, wait: Wait },
    /// Named barrier `barrier` (an index in `AppSync::barriers`), shared by any threads of the
    /// app: releases when `parties` threads have arrived, then is reusable (pthread_barrier_t).
    NamedBarrier { barrier: usize, parties: u32, wait: Wait },
}

/// One stage of a pipeline (`Phase::Stage`). A pool of threads runs it as PARSEC's pthreads
/// pipelines do (dedup's src/encoder.c: "Each stage has basically three steps: 1. fetch a group
/// of items from the queue 2. process the items 3. put them in the queue for the next stage";
/// ferret and bodytrack alike): whichever thread of the group is free takes the next item, so a
/// faster core takes more of them (application-level load balancing, the big.LITTLE paper §IV).
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// The queue it takes items from (`input`, an index in `App::queues`); None for the first
    /// stage, which makes its items.
    pub input: Option<usize>,
    /// The queue it puts each processed item in (`output`); None for the last stage.
    pub output: Option<usize>,
    /// The items one repetition of the phase handles, the group's threads together: the first
    /// stage's `items`; for a later stage what its input queue receives over the run divided by
    /// the group's `repeat` (set when the app's queues are checked, `check_queues`).
    pub items: u64,
    /// Retired per item, with `profile`.
    pub instructions: f64,
    pub profile: Profile,
    /// `io_seconds`: per item, off the CPU before its instructions (a stage that reads or
    /// writes a file: dedup's first and last); 0 for none.
    pub io_ns: u64,
    /// `ordered = true`: items are processed in the order the first stage made them (dedup's
    /// output stage writes the file in order); an item that comes early waits in the stage's
    /// reorder buffer, out of the queue. One thread only.
    pub ordered: bool,
    /// How a thread waits for an item (input empty) or for room (output full).
    pub wait: Wait,
}

/// A bounded FIFO queue between two pipeline stages (`[[app.queue]]` or `[[program.queue]]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Queue {
    pub name: String,
    /// Items it holds at most; a stage that would put one more waits for room.
    pub capacity: u32,
    /// Its consuming stage is `ordered` (set by `check_queues`): the engine keeps a reorder buffer.
    pub ordered: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadKind {
    /// An application thread.
    App,
    /// A managed runtime's helper thread (garbage collector, JIT compiler), which WASH treats apart.
    Runtime,
}

impl ThreadKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ThreadKind::App => "app",
            ThreadKind::Runtime => "runtime",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub name: String,
    /// Threads of the group; for `count = "cores"` the machine's core count, set when the
    /// workload meets its machine (`Workload::for_machine`; 1 until then).
    pub count: u32,
    /// `count = "cores"`: as many threads as the machine has cores (a managed runtime's garbage
    /// collector threads, which WASH's methodology sizes so: WASH, §7, "We configure the number
    /// of collection threads to be the same as available cores").
    pub count_per_core: bool,
    /// `work = "shared"`: the group's compute instructions and critical-section counts are the
    /// group's total, divided evenly among its threads (a parallel collector has one heap to
    /// trace however many threads it runs; a benchmark's fixed work over one thread per core).
    /// Divided when the count is known: at reading, or for `count = "cores"` in `for_machine`.
    pub shared_work: bool,
    pub kind: ThreadKind,
    pub repeat: u32,
    pub phases: Vec<Phase>,
    /// `workers = "persistent" | "per_phase"`.
    pub workers: Workers,
    /// The program hint policies may read (`Signals::HINTS`): the workload's `[signature]`,
    /// else the whole-run signature of the group's phases (`Signature::of_phases`), as an
    /// offline profiling run would measure it; None only for a group that retires nothing.
    pub signature: Option<Signature>,
    /// The group's instructions per second alone on each core type (`Signals::PROFILE`):
    /// measured by the runner's offline profiling runs when a policy needs them, never read
    /// from a file.
    pub solo_ips: Option<SoloIps>,
    /// The group's utilisation clamps (`uclamp_min`, `uclamp_max`): what Linux's sched_setattr(2)
    /// sets per task, hints that capacity-aware policies read (`ThreadView::uclamp_min`, `_max`).
    pub uclamp: Uclamp,
}

/// A task's utilisation clamps on Linux's capacity scale (0..=1024, min <= max): the default, 0
/// and 1024, clamps nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uclamp {
    pub min: u32,
    pub max: u32,
}

impl Default for Uclamp {
    fn default() -> Self {
        Uclamp::NONE
    }
}

impl Uclamp {
    pub const NONE: Uclamp = Uclamp { min: 0, max: limits::UCLAMP_MAX };

    /// `uclamp_min` and `uclamp_max` of a table, each 0..=1024, min <= max.
    fn read(n: &mut Node) -> Result<Uclamp> {
        let one = |n: &mut Node, key: &'static str| match n.opt_int(key)? {
            None => Ok(None),
            Some(v) if (0..=limits::UCLAMP_MAX as i64).contains(&v) => Ok(Some(v as u32)),
            Some(v) => Err(n.err(key, format!("must be a whole number from 0 to {} (Linux's capacity scale), got {v}", limits::UCLAMP_MAX))),
        };
        let min = one(n, "uclamp_min")?.unwrap_or(Uclamp::NONE.min);
        let max = one(n, "uclamp_max")?.unwrap_or(Uclamp::NONE.max);
        if min > max {
            return Err(n.err("uclamp_min", format!("{min} is above uclamp_max ({max}): a clamp's minimum must not exceed its maximum")));
        }
        Ok(Uclamp { min, max })
    }
}

impl Group {
    /// The threads one run of the group creates: `count`, or for per-phase workers the master
    /// plus `count - 1` for each parallel stretch (a maximal run of phases other than `serial`
    /// in the phase list repeated `repeat` times; a stretch that ends one repetition and begins
    /// the next is one).
    pub fn threads_per_run(&self) -> u64 {
        let serial = |p: &Phase| matches!(p, Phase::Serial { .. });
        if self.workers == Workers::Persistent || !self.phases.iter().any(serial) {
            return self.count as u64;
        }
        let starts = (0..self.phases.len()).filter(|&i| !serial(&self.phases[i]) && (i == 0 || serial(&self.phases[i - 1]))).count() as u64;
        let wraps = !serial(&self.phases[0]) && !serial(self.phases.last().expect("a group has phases"));
        let stretches = starts * self.repeat as u64 - if wraps { self.repeat as u64 - 1 } else { 0 };
        1 + (self.count as u64 - 1) * stretches
    }
}

/// Instructions per second of CPU time on each core type (index = machine core type; 0 for a
/// type the machine lacks).
pub type SoloIps = [f64; crate::machine::MAX_CORE_TYPES];

#[derive(Debug, Clone, PartialEq)]
pub struct App {
    pub name: String,
    pub arrival_ns: u64,
    /// Linux nice value, -20..=19; weights the local scheduler's fair share.
    pub priority: i32,
    /// Completions to measure: the app restarts as soon as it ends until it has completed this often.
    pub runs: u32,
    pub groups: Vec<Group>,
    /// Names of the app's locks; `Phase::Critical::lock` indexes this.
    pub locks: Vec<String>,
    /// The app's pipeline queues; `Stage::input` and `Stage::output` index this.
    pub queues: Vec<Queue>,
    /// The catalog program the app runs (`program = "..."`), None for inline phases.
    pub program: Option<String>,
    /// False for an app left to the OS (`os_scheduled = true`): the engine ignores any
    /// placement a policy makes for its threads, which keep every core (the OS-scheduled
    /// eclipse adversary of WASH, §8.6, Figure 12).
    pub policy_managed: bool,
    /// A task program (`[app.runtime]`/`[[app.step]]`, or a program that has them): the engine's
    /// task runtime drives the app's two groups, `main` and `workers` (`task_program`).
    pub tasks: Option<Box<TaskProgram>>,
    /// Spawned groups, semaphores and named barriers (`app_sync`); None for an app without
    /// them (boxed: rare).
    pub sync: Option<Box<AppSync>>,
}

impl App {
    pub fn threads(&self) -> u32 {
        self.groups.iter().map(|g| g.count).sum()
    }

    /// The threads an app-wide barrier or serial section waits for: those of the groups with
    /// persistent workers. Per-phase workers come and go (short-lived threads), so they take
    /// no part in app-wide phases (they may not have any themselves).
    pub fn app_scope_threads(&self) -> u32 {
        self.groups.iter().filter(|g| g.workers == Workers::Persistent).map(|g| g.count).sum()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub name: String,
    pub description: String,
    pub source: String,
    /// The thesis's constant-load methodology (Sáez, §4.3.1): an app that has completed its runs
    /// keeps restarting, unmeasured, until every app has completed its runs.
    pub constant_load: bool,
    /// The baseline `compare` measures speedups against when none is named (`baseline = "..."`
    /// at the top level); None: the first policy compared.
    pub baseline: Option<Baseline>,
    pub apps: Vec<App>,
}

/// A baseline a workload file may name for `compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    /// The Sáez thesis's default metric (§4.3.3), from bound runs (the runner's `default`).
    Default,
}

impl Baseline {
    pub const NAMES: [(&'static str, Baseline); 1] = [("default", Baseline::Default)];

    pub fn name(self) -> &'static str {
        Baseline::NAMES.iter().find(|(_, b)| *b == self).map(|(n, _)| *n).unwrap_or("default")
    }
}

/// A named program profile (e.g. a SPEC benchmark): the phases one of its threads runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub name: String,
    pub suite: String,
    pub source: String,
    pub phases: Vec<Phase>,
    /// How a multithreaded program's workers live (`workers`); an app running it may override.
    pub workers: Workers,
    /// How often one run goes through the phases (`repeat`, default 1): a fork-join program's
    /// loop; an app running it may override.
    pub repeat: u32,
    /// A program with threads of several roles (`[[program.group]]`, the keys of
    /// `[[app.group]]`): the groups an app running it gets; `phases` is then empty.
    pub groups: Vec<Group>,
    /// The locks of the program's groups' critical phases (`Phase::Critical::lock` indexes it).
    pub locks: Vec<String>,
    /// The queues of the program's groups' pipeline stages (`[[program.queue]]`).
    pub queues: Vec<Queue>,
    /// A task program (`[program.runtime]` and `[[program.step]]`): `groups` are then its
    /// `main` and `workers` groups (`TaskProgram::groups`).
    pub tasks: Option<Box<TaskProgram>>,
}

/// What an app or group runs: its phases, and how its workers live and how often it repeats
/// the phases unless it says otherwise (a program's, or the defaults for a phase list).
struct Body {
    phases: Vec<Phase>,
    workers: Workers,
    repeat: u32,
}

pub type Programs = BTreeMap<String, Program>;

/// Read a program catalog file: `[[program]]` tables with `name`, `suite`, `source` and either
/// `[[program.phase]]` (one kind of thread) or `[[program.group]]` (threads of several roles,
/// each group with the keys of `[[app.group]]`; the groups may use locks, which become the app's).
pub fn programs_from_toml(source: &str, text: &str, into: &mut Programs) -> Result<()> {
    let table = parse(source, text)?;
    let mut root = Node::root(source, &table);
    for mut n in root.tables("program")? {
        let name = n.str("name")?;
        let suite = n.opt_str("suite")?.unwrap_or_default();
        let src = n.opt_str("source")?.unwrap_or_default();
        let mut locks = Vec::new();
        let group_nodes = n.tables("group")?;
        let program = if is_task_program(&n) {
            for key in ["phase", "group", "workers"] {
                if n.has(key) {
                    return Err(n.err(key, "a task program ([program.runtime], [[program.step]]) has no phases, groups or workers of its own"));
                }
            }
            let tasks = read_task_program(&mut n, None)?;
            let groups = tasks.groups(1);
            Program {
                name: name.clone(),
                suite,
                source: src,
                phases: Vec::new(),
                workers: Workers::Persistent,
                repeat: 1,
                groups,
                locks,
                queues: Vec::new(),
                tasks: Some(Box::new(tasks)),
            }
        } else if group_nodes.is_empty() {
            // A program of one kind of thread has no queues (a stage of it may only share items).
            let mut sync = SyncRefs::default();
            let phases = read_phases(&mut n, &mut locks, &[], &mut sync)?;
            sync.refuse(n.source, "a catalog program")?;
            if phases.is_empty() {
                return Err(n.err("phase", "a program needs at least one [[program.phase]] or [[program.group]]"));
            }
            if !locks.is_empty() {
                return Err(
                    n.err("phase", "a program of one kind of thread may not use locks; give [[program.group]] tables or put critical phases in the workload")
                );
            }
            let workers = read_workers(&mut n, &phases, Workers::Persistent)?;
            let repeat = n.opt_count("repeat", limits::MAX_PHASE_STEPS)?.unwrap_or(1);
            check_steps(&n, &phases, repeat)?;
            Program { name: name.clone(), suite, source: src, phases, workers, repeat, groups: Vec::new(), locks, queues: Vec::new(), tasks: None }
        } else {
            for key in ["phase", "workers", "repeat"] {
                if n.has(key) {
                    return Err(n.err(key, "a program with [[program.group]] gives this per group"));
                }
            }
            let mut queues = read_queues(&mut n)?;
            let mut sync = SyncRefs::default();
            let groups = read_groups(&n, group_nodes, &Programs::new(), &mut locks, &mut queues, &mut sync)?;
            sync.refuse(n.source, "a catalog program")?;
            Program { name: name.clone(), suite, source: src, phases: Vec::new(), workers: Workers::Persistent, repeat: 1, groups, locks, queues, tasks: None }
        };
        if into.contains_key(&name) {
            return Err(n.err("name", format!("duplicate program '{name}'")));
        }
        n.finish()?;
        into.insert(name, program);
    }
    root.finish()
}

impl Workload {
    /// Read a workload from TOML text; `programs` resolves `program = "..."` references.
    pub fn from_toml(source: &str, text: &str, programs: &Programs) -> Result<Workload> {
        let table = parse(source, text)?;
        let mut root = Node::root(source, &table);
        let name = root.opt_str("name")?.unwrap_or_else(|| crate::machine::default_name(source));
        let description = root.opt_str("description")?.unwrap_or_default();
        let src = root.opt_str("source")?.unwrap_or_default();
        let constant_load = root.opt_bool("constant_load")?.unwrap_or(false);
        let baseline = match root.opt_str("baseline")? {
            None => None,
            Some(b) => match Baseline::NAMES.iter().find(|(n, _)| *n == b) {
                Some((_, v)) => Some(*v),
                None => {
                    let known: Vec<&str> = Baseline::NAMES.iter().map(|(n, _)| *n).collect();
                    return Err(root.err("baseline", format!("unknown baseline '{b}' (known: {})", known.join(", "))));
                }
            },
        };
        let mut apps = Vec::new();
        let app_nodes = root.tables("app")?;
        if app_nodes.is_empty() {
            return Err(root.err("app", "a workload needs at least one [[app]]"));
        }
        // Counted in u64 before any copy is made, so no count can overflow or allocate first.
        let (mut threads, mut spawned): (u64, u64) = (0, 0);
        for mut n in app_nodes {
            let copies = n.opt_count("copies", limits::MAX_THREADS)?.unwrap_or(1);
            let app = read_app(&mut n, programs)?;
            let app_threads = copies as u64 * app.groups.iter().map(|g| g.count as u64).sum::<u64>();
            threads += app_threads;
            spawned += copies as u64 * app.groups.iter().map(Group::threads_per_run).sum::<u64>() * app.runs as u64;
            // The key that brought the total over: copies if given, else the thread count.
            let key = if copies > 1 {
                "copies"
            } else if n.has("group") {
                "group"
            } else {
                "threads"
            };
            if threads > limits::MAX_THREADS {
                return Err(n.err(key, format!("brings the workload to {threads} threads; at most {} are supported", limits::MAX_THREADS)));
            }
            if spawned > limits::MAX_THREADS_SPAWNED {
                let why = format!(
                    "brings the threads a run creates (threads × runs, per-phase workers counted at each phase) to {spawned}; at most {} are supported",
                    limits::MAX_THREADS_SPAWNED
                );
                return Err(n.err("runs", why));
            }
            if apps.iter().any(|other: &App| other.name == app.name || other.name.starts_with(&format!("{}#", app.name))) {
                // Apps are reported, compared and named in policies' options by name.
                return Err(n.err("name", format!("duplicate app name '{}' (give `copies` for several of one app)", app.name)));
            }
            n.finish()?;
            if copies == 1 {
                apps.push(app);
            } else {
                for i in 1..=copies {
                    apps.push(App { name: format!("{}#{i}", app.name), ..app.clone() });
                }
            }
        }
        root.finish()?;
        Ok(Workload { name, description, source: src, constant_load, baseline, apps })
    }

    /// The workload as it runs on a machine of `cores` cores: every `count = "cores"` group gets
    /// that many threads. Err when that brings the workload over `limits::MAX_THREADS`.
    pub fn for_machine(mut self, cores: u32) -> std::result::Result<Workload, String> {
        for app in &mut self.apps {
            if app.tasks.is_some() {
                // One runtime thread per online core, the main thread one of them.
                app.groups[1].count = cores.saturating_sub(1);
            }
            for g in app.groups.iter_mut().filter(|g| g.count_per_core) {
                g.count = cores;
                if g.shared_work {
                    g.phases = divide_work(&g.phases, cores);
                }
            }
        }
        if self.total_threads() as u64 > limits::MAX_THREADS {
            return Err(format!(
                "{} threads on this machine's {cores} cores (count = \"cores\" groups); at most {} are supported",
                self.total_threads(),
                limits::MAX_THREADS
            ));
        }
        Ok(self)
    }

    /// Whether some phase's miss rate depends on the LLC capacity it gets.
    pub fn has_miss_curves(&self) -> bool {
        self.apps.iter().flat_map(|a| &a.groups).flat_map(|g| &g.phases).any(|p| p.profile().is_some_and(|pr| !pr.misses.is_flat()))
    }

    /// True when every group of every app has a signature, given or derived (`Signals::HINTS`
    /// can be met).
    pub fn has_signatures(&self) -> bool {
        self.apps.iter().all(|a| a.groups.iter().all(|g| g.signature.is_some()))
    }

    /// True when every group of every app has its offline solo profile (`Signals::PROFILE`).
    pub fn has_solo_profiles(&self) -> bool {
        self.apps.iter().all(|a| a.groups.iter().all(|g| g.solo_ips.is_some()))
    }

    pub fn total_threads(&self) -> u32 {
        self.apps.iter().map(App::threads).sum()
    }

    /// The same workload with only app `i`, arriving at time 0, run once: for solo reference runs.
    pub fn solo(&self, i: usize) -> Workload {
        let app = App { arrival_ns: 0, runs: 1, ..self.apps[i].clone() };
        Workload {
            name: format!("{}-solo-{}", self.name, app.name),
            description: String::new(),
            source: String::new(),
            constant_load: false,
            baseline: None,
            apps: vec![app],
        }
    }
}

fn read_app(n: &mut Node, programs: &Programs) -> Result<App> {
    let name = n.str("name")?;
    let arrival_s = n.opt_number("arrival_s", &limits::ARRIVAL_S)?.unwrap_or(0.0);
    let priority = match n.opt_int("priority")? {
        None => 0,
        Some(p) if (-20..=19).contains(&p) => p as i32,
        Some(p) => return Err(n.err("priority", format!("must be a nice value from -20 to 19, got {p}"))),
    };
    let runs = n.opt_count("runs", limits::MAX_RUNS)?.unwrap_or(1);
    let policy_managed = !n.opt_bool("os_scheduled")?.unwrap_or(false);
    let mut locks = Vec::new();
    let mut sync = SyncRefs::default();
    sync.read_semaphores(n)?;
    let group_nodes = n.tables("group")?;
    // An app without [[app.group]] clamps all its threads; with groups, each group gives its own.
    let app_uclamp = if group_nodes.is_empty() { Some(Uclamp::read(n)?) } else { None };
    let program = if group_nodes.is_empty() { n.opt_str("program")? } else { None };
    let task_program = program.as_ref().and_then(|p| programs.get(p)).and_then(|p| p.tasks.as_deref());
    let grouped = program.as_ref().and_then(|p| programs.get(p)).filter(|p| !p.groups.is_empty());
    let mut queues;
    let mut tasks = None;
    let groups = if task_program.is_some() || (program.is_none() && is_task_program(n)) {
        for key in ["threads", "phase", "group", "signature", "workers"] {
            if n.has(key) {
                return Err(n.err(
                    key,
                    "a task program's app has the runtime's threads (main and one worker per core): it gives no threads, phases, groups, signature or workers",
                ));
            }
        }
        sync.refuse(n.source, "a task program's app")?;
        let tp = read_task_program(n, task_program)?;
        let groups = tp.groups(1);
        tasks = Some(Box::new(tp));
        queues = Vec::new();
        groups
    } else if let Some(prog) = grouped {
        // A program of several roles brings its groups, locks and queues whole.
        for key in ["threads", "phase", "repeat", "signature", "workers", "queue"] {
            if n.has(key) {
                return Err(n.err(key, format!("program '{}' has [[program.group]] tables, which give this per group", prog.name)));
            }
        }
        sync.refuse(n.source, "an app running a catalog program")?;
        locks = prog.locks.clone();
        queues = prog.queues.clone();
        prog.groups.clone()
    } else if group_nodes.is_empty() {
        let count = n.opt_count("threads", limits::MAX_THREADS)?.unwrap_or(1);
        queues = read_queues(n)?;
        let body = read_body(n, program.as_deref(), programs, &mut locks, &queues, &mut sync)?;
        sync.refuse(n.source, "an app without [[app.group]] tables")?;
        let repeat = n.opt_count("repeat", limits::MAX_PHASE_STEPS)?.unwrap_or(body.repeat);
        let phases = body.phases;
        check_steps(n, &phases, repeat)?;
        let workers = read_workers(n, &phases, body.workers)?;
        let given = read_signature(n)?;
        let mut groups = vec![Group {
            name: "main".into(),
            count,
            count_per_core: false,
            shared_work: false,
            kind: ThreadKind::App,
            repeat,
            phases,
            workers,
            signature: None,
            solo_ips: None,
            uclamp: Uclamp::NONE,
        }];
        check_queues(n, &mut groups, &mut queues)?;
        groups[0].signature = given.or_else(|| Signature::of_phases(&groups[0].phases));
        groups
    } else {
        for key in ["threads", "phase", "program", "repeat", "signature", "workers", "uclamp_min", "uclamp_max"] {
            if n.has(key) {
                return Err(n.err(key, "an app with [[app.group]] gives this per group"));
            }
        }
        queues = read_queues(n)?;
        read_groups(n, group_nodes, programs, &mut locks, &mut queues, &mut sync)?
    };
    let mut groups = groups;
    let sync = sync.resolve(n, &mut groups)?;
    if let Some(u) = app_uclamp {
        groups.iter_mut().for_each(|g| g.uclamp = u);
    }
    // A run that takes no time would restart forever at the same instant.
    let works = |p: &Phase| matches!(p, Phase::Compute { .. } | Phase::Serial { .. } | Phase::Critical { .. } | Phase::Sleep { .. } | Phase::Stage(_));
    if !groups.iter().any(|g| g.phases.iter().any(works)) {
        return Err(n.err("phase", "the app does no work: give it a compute, serial, critical, sleep or stage phase"));
    }
    Ok(App { name, arrival_ns: s_to_ns(arrival_s), priority, runs, groups, locks, queues, program, policy_managed, tasks, sync })
}

/// `[[app.group]]` or `[[program.group]]` tables. A group in a program may not itself name a
/// program (`programs` is empty there). `queues`: the app's (or program's) pipeline queues,
/// checked against the groups' stages (`check_queues`).
fn read_groups(
    parent: &Node,
    group_nodes: Vec<Node>,
    programs: &Programs,
    locks: &mut Vec<String>,
    queues: &mut [Queue],
    sync: &mut SyncRefs,
) -> Result<Vec<Group>> {
    let mut groups: Vec<Group> = Vec::new();
    // The signatures the groups give; the others are derived once the stages know their items.
    let mut given = Vec::new();
    for mut g in group_nodes {
        let gname = g.str("name")?;
        let (count, count_per_core) = read_group_count(&mut g)?;
        let shared_work = match g.opt_str("work")?.as_deref() {
            None | Some("per_thread") => false,
            Some("shared") => true,
            Some(other) => return Err(g.err("work", format!("unknown work '{other}' (expected per_thread or shared)"))),
        };
        let kind = match g.opt_str("kind")?.as_deref() {
            None | Some("app") => ThreadKind::App,
            Some("runtime") => ThreadKind::Runtime,
            Some(other) => return Err(g.err("kind", format!("unknown thread kind '{other}' (expected app or runtime)"))),
        };
        let program = g.opt_str("program")?;
        if let Some(p) = program.as_ref().and_then(|p| programs.get(p)).filter(|p| !p.groups.is_empty()) {
            return Err(
                g.err("program", format!("program '{}' has [[program.group]] tables: run it as a whole app (program = \"{}\" in [[app]])", p.name, p.name))
            );
        }
        let body = read_body(&mut g, program.as_deref(), programs, locks, queues, sync)?;
        sync.read_start(&mut g)?;
        let repeat = g.opt_count("repeat", limits::MAX_PHASE_STEPS)?.unwrap_or(body.repeat);
        let mut phases = body.phases;
        check_steps(&g, &phases, repeat)?;
        if shared_work && !count_per_core {
            phases = divide_work(&phases, count);
        }
        let workers = read_workers(&mut g, &phases, body.workers)?;
        given.push(read_signature(&mut g)?);
        let uclamp = Uclamp::read(&mut g)?;
        if groups.iter().any(|other| other.name == gname) {
            // As core types: a name that picks out two things picks out neither.
            return Err(g.err("name", format!("duplicate group name '{gname}' in this app")));
        }
        g.finish()?;
        groups.push(Group { name: gname, count, count_per_core, shared_work, kind, repeat, phases, workers, signature: None, solo_ips: None, uclamp });
    }
    check_queues(parent, &mut groups, queues)?;
    for (group, given) in groups.iter_mut().zip(given) {
        group.signature = given.or_else(|| Signature::of_phases(&group.phases));
    }
    let app_wide = |p: &Phase| matches!(p, Phase::Serial { scope: Scope::App, .. } | Phase::Barrier { scope: Scope::App, .. });
    if groups.iter().any(|g| g.phases.iter().any(app_wide)) && groups.first().is_some_and(|g| g.workers == Workers::PerPhase) {
        // The app's first thread leads app-wide serial phases and must live through them.
        return Err(parent.err("group", "an app with scope = \"app\" phases needs a first group with persistent workers (its first thread leads them)"));
    }
    Ok(groups)
}

/// The phases of one of `n` threads sharing a group's work (`work = "shared"`): each compute
/// phase's instructions and each critical phase's acquisitions divided by `n` (rounded up: at
/// least one); serial parts (the leader's alone), barriers and sleeps unchanged.
fn divide_work(phases: &[Phase], n: u32) -> Vec<Phase> {
    let mut out = phases.to_vec();
    for p in &mut out {
        match p {
            Phase::Compute { instructions, .. } => *instructions /= n as f64,
            Phase::Critical { count, .. } => *count = count.div_ceil(n),
            _ => {}
        }
    }
    out
}

/// A group's `count`: a whole number, or `"cores"` (as many as the machine has, resolved by
/// `Workload::for_machine`; 1 until then).
fn read_group_count(g: &mut Node) -> Result<(u32, bool)> {
    match g.opt_str("count") {
        Ok(Some(s)) if s == "cores" => Ok((1, true)),
        Ok(Some(s)) => Err(g.err("count", format!("expected a whole number or \"cores\", got \"{s}\""))),
        Ok(None) => Ok((1, false)),
        Err(_) => Ok((g.count("count", limits::MAX_THREADS)?, false)),
    }
}

/// `workers = "persistent" | "per_phase"` (default persistent). Per-phase workers exit at each
/// serial phase, whose master runs it alone: an app-wide serial phase or barrier would wait
/// for threads that are gone.
/// `default`: the program's, for an app that runs one.
fn read_workers(n: &mut Node, phases: &[Phase], default: Workers) -> Result<Workers> {
    let workers = match n.opt_str("workers")? {
        None => default,
        Some(w) => match Workers::NAMES.iter().find(|(name, _)| *name == w) {
            Some((_, v)) => *v,
            None => return Err(n.err("workers", format!("unknown workers '{w}' (expected persistent or per_phase)"))),
        },
    };
    if workers == Workers::PerPhase {
        if phases.iter().any(|p| matches!(p, Phase::Serial { scope: Scope::App, .. } | Phase::Barrier { scope: Scope::App, .. })) {
            return Err(n.err("workers", "per_phase workers need scope = \"group\" serial phases and barriers (the workers exit at each serial phase)"));
        }
        if !phases.iter().any(|p| matches!(p, Phase::Serial { .. })) {
            return Err(n.err("workers", "per_phase workers need a serial phase (the workers exit at each one); without one give persistent"));
        }
    }
    Ok(workers)
}

/// A thread's place in its phase list repeated `repeat` times is counted in 32 bits.
fn check_steps(n: &Node, phases: &[Phase], repeat: u32) -> Result<()> {
    let steps = phases.len() as u64 * repeat as u64;
    if steps > limits::MAX_PHASE_STEPS {
        return Err(
            n.err("repeat", format!("{} phases repeated {repeat} times make {steps} steps; at most {} are supported", phases.len(), limits::MAX_PHASE_STEPS))
        );
    }
    Ok(())
}

/// The phases of an app or group: `program = "..."` or a `[[phase]]` list, not both; with the
/// program's workers and repeat (persistent and 1 for a phase list).
fn read_body(n: &mut Node, program: Option<&str>, programs: &Programs, locks: &mut Vec<String>, queues: &[Queue], sync: &mut SyncRefs) -> Result<Body> {
    let phases = read_phases(n, locks, queues, sync)?;
    match (program, phases.is_empty()) {
        (Some(_), false) => Err(n.err("program", "give either program or [[phase]] tables, not both")),
        (Some(p), true) => match programs.get(p) {
            Some(prog) => Ok(Body { phases: prog.phases.clone(), workers: prog.workers, repeat: prog.repeat }),
            None => {
                let known: Vec<&str> = programs.keys().map(String::as_str).collect();
                Err(n.err("program", format!("unknown program '{p}' (known: {})", known.join(", "))))
            }
        },
        (None, true) => Err(n.err("phase", "missing: give program = \"...\" or at least one [[phase]]")),
        (None, false) => Ok(Body { phases, workers: Workers::Persistent, repeat: 1 }),
    }
}

fn read_phases(n: &mut Node, locks: &mut Vec<String>, queues: &[Queue], sync: &mut SyncRefs) -> Result<Vec<Phase>> {
    let mut out = Vec::new();
    for mut p in n.tables("phase")? {
        let kind = p.str("kind")?;
        let phase = match kind.as_str() {
            "compute" => Phase::Compute { instructions: p.number("instructions", &limits::INSTRUCTIONS)?, profile: read_profile(&mut p)? },
            "serial" => Phase::Serial {
                instructions: p.number("instructions", &limits::INSTRUCTIONS)?,
                profile: read_profile(&mut p)?,
                wait: read_wait(&mut p)?,
                scope: read_scope(&mut p)?,
            },
            "barrier" => match sync.read_named_barrier(&mut p, read_wait)? {
                Some(named) => named,
                None => Phase::Barrier { wait: read_wait(&mut p)?, scope: read_scope(&mut p)? },
            },
            "critical" => {
                let lock = read_lock(&mut p, locks)?;
                Phase::Critical {
                    lock,
                    cs_instructions: p.number("cs_instructions", &limits::INSTRUCTIONS)?,
                    between_instructions: p.opt_number("between_instructions", &limits::INSTRUCTIONS_BETWEEN)?.unwrap_or(0.0),
                    count: p.count("count", limits::MAX_CRITICAL_COUNT)?,
                    profile: read_profile(&mut p)?,
                    wait: read_lock_wait(&mut p)?,
                }
            }
            "sleep" => Phase::Sleep { ns: s_to_ns(p.number("seconds", &limits::SLEEP_S)?).max(1) },
            "stage" => Phase::Stage(Box::new(read_stage(&mut p, queues)?)),
            other => match sync.read_phase(other, &mut p, read_wait)? {
                Some(phase) => phase,
                None => {
                    let why = format!(
                        "unknown phase kind '{other}' (expected compute, serial, barrier, critical, sleep or stage; for a recorded program's synchronisation {})",
                        crate::app_sync::KINDS.join(", ")
                    );
                    return Err(p.err("kind", why));
                }
            },
        };
        p.finish()?;
        out.push(phase);
    }
    Ok(out)
}

/// A `kind = "stage"` phase (docs/pipelines.md). Its `items` only for the first stage (no
/// `input`); a later stage's are what its queue receives, set by `check_queues`.
fn read_stage(p: &mut Node, queues: &[Queue]) -> Result<Stage> {
    let input = read_queue_ref(p, "input", queues)?;
    let output = read_queue_ref(p, "output", queues)?;
    if input.is_some() && input == output {
        return Err(p.err("output", "a stage may not put its items back in the queue it takes them from"));
    }
    let items = match (input, p.opt_count("items", limits::MAX_STAGE_ITEMS)?) {
        (None, Some(n)) => n as u64,
        (None, None) => return Err(p.err("items", "missing: a stage without input (a pipeline's first) makes its items; give how many")),
        (Some(_), Some(_)) => {
            return Err(p.err("items", "only a stage without input (a pipeline's first) gives items; this one handles what its input queue receives"))
        }
        (Some(_), None) => 0,
    };
    let ordered = p.opt_bool("ordered")?.unwrap_or(false);
    if ordered && input.is_none() {
        return Err(p.err("ordered", "an ordered stage takes its input queue's items in the order they were made; this stage has no input"));
    }
    let instructions = p.number("instructions", &limits::INSTRUCTIONS)?;
    let io_ns = p.opt_number("io_seconds", &limits::SLEEP_S)?.map_or(0, |s| s_to_ns(s).max(1));
    Ok(Stage { input, output, items, instructions, profile: read_profile(p)?, io_ns, ordered, wait: read_wait(p)? })
}

/// A stage's `input` or `output`: the name of one of the app's (or program's) queues.
fn read_queue_ref(p: &mut Node, key: &'static str, queues: &[Queue]) -> Result<Option<usize>> {
    let Some(name) = p.opt_str(key)? else { return Ok(None) };
    match queues.iter().position(|q| q.name == name) {
        Some(i) => Ok(Some(i)),
        None if queues.is_empty() => {
            Err(p.err(key, format!("unknown queue '{name}': none is declared (give [[app.queue]] or [[program.queue]] with name and capacity)")))
        }
        None => {
            let known: Vec<&str> = queues.iter().map(|q| q.name.as_str()).collect();
            Err(p.err(key, format!("unknown queue '{name}' (declared: {})", known.join(", "))))
        }
    }
}

/// `[[queue]]` tables of an app or program: `name` and `capacity`.
fn read_queues(n: &mut Node) -> Result<Vec<Queue>> {
    let nodes = n.tables("queue")?;
    if nodes.len() > limits::MAX_QUEUES {
        return Err(n.err("queue", format!("{} queues; at most {} are supported", nodes.len(), limits::MAX_QUEUES)));
    }
    let mut out: Vec<Queue> = Vec::new();
    for mut q in nodes {
        let name = q.str("name")?;
        if out.iter().any(|other| other.name == name) {
            return Err(q.err("name", format!("duplicate queue name '{name}'")));
        }
        let capacity = q.count("capacity", limits::MAX_QUEUE_CAPACITY)?;
        q.finish()?;
        out.push(Queue { name, capacity, ordered: false });
    }
    Ok(out)
}

/// The app's (or program's) pipeline, checked whole: every queue filled by exactly one stage and
/// emptied by exactly one, no cycle of queues, an ordered stage run by one thread, no stage in a
/// group of per-phase workers. Sets each later stage's items per repetition (what its input
/// receives over the run, `items × repeat` of the stage before, over its own group's `repeat`:
/// a whole number, else refused) and the queues' `ordered`. So a queue nobody fills, or one
/// whose items nobody takes, is refused here, not met as a run that cannot finish; a pipeline
/// can still deadlock at run time (a thread that fills one bounded queue before it empties
/// another that others wait on), which the engine reports as a deadlock naming the queues.
fn check_queues(parent: &Node, groups: &mut [Group], queues: &mut [Queue]) -> Result<()> {
    type At = Option<(usize, usize)>;
    let (mut producer, mut consumer): (Vec<At>, Vec<At>) = (vec![None; queues.len()], vec![None; queues.len()]);
    let twice = |q: &Queue, role: &str, a: usize, b: usize| {
        let (a, b) = (&groups[a].name, &groups[b].name);
        parent.err("queue", format!("queue '{}' has two {role} stages (groups '{a}' and '{b}'): one stage per queue end; give each its own queue", q.name))
    };
    for (g, group) in groups.iter().enumerate() {
        for (i, phase) in group.phases.iter().enumerate() {
            let Phase::Stage(st) = phase else { continue };
            if group.workers == Workers::PerPhase {
                return Err(parent.err(
                    "group",
                    format!("group '{}' has per_phase workers and a stage: a stage's pool lives through the run (give persistent workers)", group.name),
                ));
            }
            if st.ordered && (group.count != 1 || group.count_per_core) {
                return Err(parent.err("group", format!("group '{}' runs an ordered stage with more than one thread: give it count = 1", group.name)));
            }
            if let Some(q) = st.output {
                if let Some((other, _)) = producer[q] {
                    return Err(twice(&queues[q], "producing", other, g));
                }
                producer[q] = Some((g, i));
            }
            if let Some(q) = st.input {
                if let Some((other, _)) = consumer[q] {
                    return Err(twice(&queues[q], "consuming", other, g));
                }
                consumer[q] = Some((g, i));
            }
        }
    }
    for (q, queue) in queues.iter().enumerate() {
        match (producer[q], consumer[q]) {
            (None, _) => {
                return Err(
                    parent.err("queue", format!("queue '{}' has no producer: no stage gives output = \"{}\", so its items never come", queue.name, queue.name))
                );
            }
            (_, None) => {
                return Err(parent.err(
                    "queue",
                    format!(
                        "queue '{}' has no consumer: no stage gives input = \"{}\", so its producer would fill it and wait forever",
                        queue.name, queue.name
                    ),
                ));
            }
            _ => {}
        }
    }
    // Along each chain from a first stage: a later stage's items are known once its input's
    // producer's are. A queue left unknown when nothing more can be learnt lies on a cycle.
    let mut left: Vec<usize> = (0..queues.len()).collect();
    while !left.is_empty() {
        let before = left.len();
        let mut still = Vec::new();
        for q in left {
            let (Some(from), Some(to)) = (producer[q], consumer[q]) else { unreachable!("checked above") };
            let (repeat_from, made) = stage(groups, from);
            let total = made.items * repeat_from as u64;
            if total == 0 {
                still.push(q);
                continue;
            }
            let (repeat_to, taking) = stage(groups, to);
            if !total.is_multiple_of(repeat_to as u64) {
                let name = &groups[to.0].name;
                return Err(parent.err(
                    "queue",
                    format!(
                        "queue '{}' receives {total} items over a run, which group '{name}' (repeat = {repeat_to}) cannot take in equal shares per repetition",
                        queues[q].name
                    ),
                ));
            }
            taking.items = total / repeat_to as u64;
            queues[q].ordered = taking.ordered;
        }
        if still.len() == before {
            let names: Vec<&str> = still.iter().map(|&q| queues[q].name.as_str()).collect();
            return Err(parent.err("queue", format!("queues {} form a cycle: each stage on it waits for items only the others make", names.join(", "))));
        }
        left = still;
    }
    Ok(())
}

/// The repeat of group `g` and its stage at phase `i` (a queue's end).
fn stage(groups: &mut [Group], (g, i): (usize, usize)) -> (u32, &mut Stage) {
    let repeat = groups[g].repeat;
    match &mut groups[g].phases[i] {
        Phase::Stage(st) => (repeat, st),
        _ => unreachable!("a queue end is a stage"),
    }
}

/// CPI defaults to 1.0 and LLC misses to none: a compute-bound chunk on the reference core.
/// `cpi` is a number or a table per microarchitecture (`UarchCpi`); `mlp` defaults to 1 (each
/// miss waits alone: today's model). Misses are a flat `llc_mpki` or a `miss_curve`; the
/// footprint defaults to the curve's knee.
fn read_profile(p: &mut Node) -> Result<Profile> {
    let (cpi, uarch_cpi) = match p.opt_number_or_map("cpi", &limits::CPI, limits::MAX_UARCH_CPI_ENTRIES, limits::MAX_UARCH_NAME)? {
        None => (1.0, None),
        Some(NumberOrMap::Number(x)) => (x, None),
        Some(NumberOrMap::Map(mut entries)) => {
            let default = entries.iter().position(|(u, _)| u == DEFAULT_UARCH_KEY).map(|i| entries.remove(i).1);
            if entries.is_empty() {
                return Err(p.err("cpi", "a table needs at least one microarchitecture besides `default` (or give cpi as a number)"));
            }
            let table = UarchCpi { entries, default, source: p.source.to_string(), key: p.key_path("cpi") };
            (table.reference(), Some(Box::new(table)))
        }
    };
    let mlp = p.opt_number("mlp", &limits::PROGRAM_MLP)?.unwrap_or(1.0);
    let flat = p.opt_number("llc_mpki", &limits::LLC_MPKI)?;
    let misses = match (flat, MissCurve::read(p)?) {
        (Some(_), Some(_)) => return Err(p.err("miss_curve", "give either llc_mpki or miss_curve, not both")),
        (_, Some(curve)) => curve,
        (mpki, None) => MissCurve::flat(mpki.unwrap_or(0.0)),
    };
    let footprint_kb = p.opt_number("footprint_kb", &limits::FOOTPRINT_KB)?.unwrap_or_else(|| misses.knee_kb());
    let events = EventRates { branch_mpki: p.opt_number("branch_mpki", &limits::EVENT_PKI)?, l1d_mpki: p.opt_number("l1d_mpki", &limits::EVENT_PKI)? };
    Ok(Profile { cpi, uarch_cpi, mlp, misses, footprint_kb, events })
}

/// `[app.signature]` (or `[app.group.signature]`): `cpi` and either `llc_mpki` or a
/// `miss_curve`, both required.
fn read_signature(n: &mut Node) -> Result<Option<Signature>> {
    let Some(mut t) = n.opt_table("signature")? else { return Ok(None) };
    let cpi = t.number("cpi", &limits::CPI)?;
    let flat = t.opt_number("llc_mpki", &limits::LLC_MPKI)?;
    let misses = match (flat, MissCurve::read(&mut t)?) {
        (Some(_), Some(_)) => return Err(t.err("miss_curve", "give either llc_mpki or miss_curve, not both")),
        (_, Some(curve)) => curve,
        (Some(mpki), None) => MissCurve::flat(mpki),
        (None, None) => return Err(t.err("llc_mpki", "missing required key (or give a miss_curve)")),
    };
    t.finish()?;
    Ok(Some(Signature { cpi, misses }))
}

/// A critical phase's wait: those of `read_wait`, or a queue spinlock with its keys.
fn read_lock_wait(p: &mut Node) -> Result<Wait> {
    if p.opt_str("wait")?.as_deref() != Some("queue_spinlock") {
        return read_wait(p);
    }
    for key in ["spin_limit_us", "spin_limit_iterations"] {
        if p.has(key) {
            return Err(p.err(key, "only wait = \"spin_then_block\" takes a spin limit"));
        }
    }
    Ok(Wait::QueueSpinlock(queue_spinlock::read(p)?))
}

fn read_wait(p: &mut Node) -> Result<Wait> {
    queue_spinlock::refuse_keys(p)?;
    let mode = p.opt_str("wait")?;
    let limit_us = p.opt_number("spin_limit_us", &limits::SPIN_LIMIT_US)?;
    let limit_iterations = p.opt_number("spin_limit_iterations", &limits::SPIN_LIMIT_ITERATIONS)?;
    let limit = match (limit_us, limit_iterations) {
        (Some(_), Some(_)) => return Err(p.err("spin_limit_iterations", "give either spin_limit_us or spin_limit_iterations, not both")),
        (Some(us), None) => Some(("spin_limit_us", SpinLimit::Ns(((us * 1000.0).round() as u64).max(1)))),
        (None, Some(n)) if n.fract() != 0.0 => return Err(p.err("spin_limit_iterations", format!("must be a whole number of iterations, got {n}"))),
        (None, Some(n)) => Some(("spin_limit_iterations", SpinLimit::Iterations(n as u64))),
        (None, None) => None,
    };
    match (mode.as_deref(), limit) {
        (None | Some("block"), None) => Ok(Wait::Block),
        (Some("spin"), None) => Ok(Wait::Spin),
        (Some("spin_then_block"), Some((_, limit))) => Ok(Wait::SpinThenBlock { limit }),
        (Some("spin_then_block"), None) => Err(p.err("spin_limit_us", "wait = \"spin_then_block\" needs spin_limit_us or spin_limit_iterations")),
        (None | Some("block") | Some("spin"), Some((key, _))) => Err(p.err(key, "only wait = \"spin_then_block\" takes a spin limit")),
        (Some("queue_spinlock"), _) => Err(p.err("wait", "wait = \"queue_spinlock\" is a lock's: only a critical phase takes it")),
        (Some(other), _) => {
            Err(p.err("wait", format!("unknown wait '{other}' (expected block, spin, spin_then_block or, for a critical phase, queue_spinlock)")))
        }
    }
}

fn read_scope(p: &mut Node) -> Result<Scope> {
    match p.opt_str("scope")?.as_deref() {
        None | Some("group") => Ok(Scope::Group),
        Some("app") => Ok(Scope::App),
        Some(other) => Err(p.err("scope", format!("unknown scope '{other}' (expected group or app)"))),
    }
}

fn read_lock(p: &mut Node, locks: &mut Vec<String>) -> Result<usize> {
    let name = match p.opt_str("lock") {
        Ok(Some(s)) => s,
        Ok(None) => return Err(p.err("lock", "missing required key")),
        Err(_) => match p.opt_int("lock")? {
            Some(i) => i.to_string(),
            None => unreachable!("opt_str failed, so the key is present"),
        },
    };
    Ok(match locks.iter().position(|l| *l == name) {
        Some(i) => i,
        None => {
            locks.push(name);
            locks.len() - 1
        }
    })
}

pub fn s_to_ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

// ---- task programs (`task_program`; docs/task-runtime.md)

/// Whether a program or app table describes a task program.
fn is_task_program(n: &Node) -> bool {
    n.has("runtime") || n.has("step")
}

/// A task program: `[runtime]` options, `[[step]]` tables and `repeat`. For an app that runs a
/// catalog task program (`base`), its `[app.runtime]` keys and `repeat` override the program's,
/// and it may give no steps.
fn read_task_program(n: &mut Node, base: Option<&TaskProgram>) -> Result<TaskProgram> {
    let options = read_runtime_options(n, base.map(|b| b.options).unwrap_or_default())?;
    let repeat = n.opt_count("repeat", limits::MAX_PHASE_STEPS)?.unwrap_or(base.map_or(1, |b| b.repeat));
    let step_nodes = n.tables("step")?;
    let mut tp = match base {
        Some(b) if step_nodes.is_empty() => TaskProgram { options, repeat, ..b.clone() },
        Some(_) => return Err(n.err("step", "give either program or [[step]] tables, not both")),
        None if step_nodes.is_empty() => return Err(n.err("step", "a task program needs at least one [[step]]")),
        None => {
            let mut work = vec![Phase::Compute { instructions: 1.0, profile: crate::task_program::runtime_profile() }];
            let mut steps = Vec::new();
            for s in step_nodes {
                steps.push(read_task_step(s, &mut work)?);
            }
            TaskProgram { options, steps, repeat, work }
        }
    };
    tp.repeat = repeat;
    check_task_program(n, &tp)?;
    Ok(tp)
}

/// `[runtime]`: every key optional, over `defaults`.
fn read_runtime_options(n: &mut Node, defaults: RuntimeOptions) -> Result<RuntimeOptions> {
    let Some(mut r) = n.opt_table("runtime")? else { return Ok(defaults) };
    let mut o = defaults;
    if let Some(s) = r.opt_str("scheduler")? {
        o.scheduler = parse_task_scheduler(&s).map_err(|why| r.err("scheduler", why))?;
    }
    if let Some(m) = r.opt_str("main")? {
        o.main = parse_main_placement(&m).map_err(|why| r.err("main", why))?;
    }
    if let Some(b) = r.opt_bool("immediate_successor")? {
        o.immediate_successor = b;
    }
    if let Some(x) = r.opt_number("create_instructions", &limits::RUNTIME_OP_INSTRUCTIONS)? {
        o.create_instructions = x;
    }
    if let Some(x) = r.opt_number("queue_op_instructions", &limits::RUNTIME_OP_INSTRUCTIONS)? {
        o.queue_op_instructions = x;
    }
    if o.immediate_successor && o.scheduler != TaskScheduler::Fifo {
        return Err(r.err("immediate_successor", format!("is an option of scheduler = \"fifo\", not \"{}\"", o.scheduler.name())));
    }
    r.finish()?;
    Ok(o)
}

/// A scheduler's name (`fifo`, `cats`, `steal`), or the message that says what is known.
pub fn parse_task_scheduler(s: &str) -> std::result::Result<TaskScheduler, String> {
    match TaskScheduler::NAMES.iter().find(|(n, _)| *n == s) {
        Some((_, v)) => Ok(*v),
        None => Err(format!("unknown scheduler '{s}' (expected fifo, cats or steal)")),
    }
}

/// A main-thread placement's name (`default`, `big`, `little`).
pub fn parse_main_placement(s: &str) -> std::result::Result<MainPlacement, String> {
    match MainPlacement::NAMES.iter().find(|(n, _)| *n == s) {
        Some((_, v)) => Ok(*v),
        None => Err(format!("unknown main placement '{s}' (expected default, big or little)")),
    }
}

/// One `[[step]]`; its work's profile becomes a new entry of `work`.
fn read_task_step(mut s: Node, work: &mut Vec<Phase>) -> Result<TaskStep> {
    let kind = s.str("kind")?;
    let step = match kind.as_str() {
        "serial" => {
            let instructions = s.number("instructions", &limits::INSTRUCTIONS)?;
            TaskStep::Serial { work: new_work(&mut s, work, instructions, 0)? }
        }
        "tasks" => {
            let count = s.count("count", limits::MAX_TASKS_PER_STEP)?;
            let after = read_after(&mut s)?;
            TaskStep::Tasks { count, work: read_task_work(&mut s, work)?, after }
        }
        "pipeline" => {
            let items = s.count("items", limits::MAX_TASKS_PER_STEP)?;
            let after = read_after(&mut s)?;
            let stage_nodes = s.tables("stage")?;
            if stage_nodes.is_empty() || stage_nodes.len() > limits::MAX_PIPELINE_STAGES {
                return Err(s.err("stage", format!("a pipeline needs 1 to {} [[stage]] tables, got {}", limits::MAX_PIPELINE_STAGES, stage_nodes.len())));
            }
            let mut stages = Vec::new();
            for mut st in stage_nodes {
                let ordered = st.opt_bool("ordered")?.unwrap_or(false);
                stages.push(TaskStage { work: read_task_work(&mut st, work)?, ordered });
                st.finish()?;
            }
            TaskStep::Pipeline { items, stages, after }
        }
        "taskwait" => TaskStep::Taskwait,
        other => return Err(s.err("kind", format!("unknown step kind '{other}' (expected serial, tasks, pipeline or taskwait)"))),
    };
    s.finish()?;
    Ok(step)
}

/// A task's work: `instructions` (with the profile keys of a compute phase) and/or `io_s`, the
/// I/O it then blocks on; at least one of them.
fn read_task_work(s: &mut Node, work: &mut Vec<Phase>) -> Result<TaskWork> {
    let instructions = s.opt_number("instructions", &limits::INSTRUCTIONS)?;
    let io_ns = s.opt_number("io_s", &limits::SLEEP_S)?.map(|x| s_to_ns(x).max(1));
    if instructions.is_none() && io_ns.is_none() {
        return Err(s.err("instructions", "missing: give instructions, io_s or both"));
    }
    new_work(s, work, instructions.unwrap_or(0.0), io_ns.unwrap_or(0))
}

fn new_work(s: &mut Node, work: &mut Vec<Phase>, instructions: f64, io_ns: u64) -> Result<TaskWork> {
    let profile = read_profile(s)?;
    let kind = work.len() as u32;
    debug_assert!(kind > RUNTIME_WORK);
    // The table's phase carries the profile; its instruction count is only a label (at least 1).
    work.push(Phase::Compute { instructions: instructions.max(1.0), profile });
    Ok(TaskWork { instructions, io_ns, kind })
}

fn read_after(s: &mut Node) -> Result<After> {
    match s.opt_str("after")? {
        None => Ok(After::None),
        Some(a) => match After::NAMES.iter().find(|(n, _)| *n == a) {
            Some((_, v)) => Ok(*v),
            None => Err(s.err("after", format!("unknown after '{a}' (expected none, all or same)"))),
        },
    }
}

/// What a step list must satisfy: `after = "all" | "same"` has an earlier block to follow (the
/// previous repetition's last, for the first of a repeated list), `same` one of its width; a run
/// creates at most `limits::MAX_TASKS_PER_RUN` tasks. Dependences point to earlier tasks only,
/// so no cycle can be written.
fn check_task_program(n: &Node, tp: &TaskProgram) -> Result<()> {
    let creating: Vec<usize> = (0..tp.steps.len()).filter(|&i| tp.steps[i].width().is_some()).collect();
    for (k, &i) in creating.iter().enumerate() {
        let after = match &tp.steps[i] {
            TaskStep::Tasks { after, .. } | TaskStep::Pipeline { after, .. } => *after,
            _ => unreachable!("a creating step"),
        };
        if after == After::None {
            continue;
        }
        let key = format!("step[{i}].after");
        let prev = if k > 0 {
            creating[k - 1]
        } else if tp.repeat > 1 {
            *creating.last().expect("k indexes it")
        } else {
            return Err(InputError::new(
                n.source,
                n.key_path(&key),
                "the first block of a program run once has no earlier block to follow (give after = \"none\")",
            ));
        };
        let (w, pw) = (tp.steps[i].width().unwrap_or(0), tp.steps[prev].width().unwrap_or(0));
        if after == After::Same && w != pw {
            return Err(InputError::new(
                n.source,
                n.key_path(&key),
                format!("after = \"same\" pairs task i with task i of the block before (step {prev}), which has {pw} tasks (items), not {w}"),
            ));
        }
    }
    let total = tp.tasks_per_run();
    if total > limits::MAX_TASKS_PER_RUN {
        return Err(n.err("step", format!("a run creates {total} tasks (every block's count, repeated); at most {} are supported", limits::MAX_TASKS_PER_RUN)));
    }
    Ok(())
}
