//! The agent loop: every interval, sample the target threads into a `SystemView`, call the
//! policy for the interval's events and its quantum, and apply its `Placement` (`enforce`):
//! affinities, fast-core shares, weights, slices and frequencies, each only where it changes.
//!
//! Whatever ends the agent (the target exits, an error, or any signal whose default action
//! would end the process and that can be caught: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, ...,
//! the real-time signals; `STOP_SIGNALS`), every thread it moved gets its original affinity,
//! nice value and slice back, cpufreq files their original text, and the emulation threads are
//! stopped and joined (`Session::drop`). Before that, the targets are scanned once more: a thread
//! created since the last sample by a thread the agent had pinned or reniced inherited the pin or
//! the nice value, and gets its original back too. A policy that fails ends the agent the same way,
//! and the launched command gets SIGTERM (`run_with`). The handlers are installed before the agent changes anything; a signal
//! that comes before it has launched or attached ends it at once, with a report. A signal the
//! agent receives from another process (`kill`, not the terminal, whose Ctrl-C already reaches
//! the whole foreground process group) is forwarded to the command it launched, as `timeout(1)`
//! does.
//!
//! What the agent cannot catch (SIGKILL, a crash, the OOM killer) its guardian handles: a process
//! forked before anything changes, which restores from a shared ledger when the agent dies
//! (`guardian.rs`).
//!
//! The agent sleeps between samples in ppoll(2) on a pidfd per target process and on a pipe its
//! signal handlers write to: a target's exit or a signal wakes it at once, whatever the interval
//! (a signal delivered to another thread of the host process, too).
//!
//! When the launched command exits, the agent ends with it, restoring the processes it leaves
//! behind (a shell's background jobs) and naming them in the report; with `until_tree_exits`
//! it goes on scheduling them until every one has exited.

use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use ampsched_model::defaults::ms_to_ns;
use ampsched_model::{InputError, Machine, Placement, Policy, Signals, Trigger, ViewBook};
use ampsched_policy::PolicySpec;
use serde_json::Value;

use crate::counters::Counting;
use crate::emulate::{Emulation, DEFAULT_PERIOD_MS, MIN_SPEED};
use crate::enforce::{Enforcer, Restored};
use crate::guardian;
use crate::locks::{LockRecord, LockTable};
use crate::monitor::Monitor;
use crate::perf::{raise_fd_limit, restore_fd_limit, PerfCounters};
use crate::procfs::{self, monotonic_ns, own_thread_cpu_ns, set_affinity};
use crate::record::events::EventLog;
use crate::record::recorder::Recorder;
use crate::report::{self, AgentCost, ExitStatus, FastShare, MachineReport, ProcessLeft, Report, Target};
use crate::runtime_threads::RuntimeThreads;
use crate::topology::{detect, Topology};
use crate::trace::Tracer;

pub const DEFAULT_INTERVAL_MS: f64 = ampsched_model::defaults::AGENT_INTERVAL_MS;
/// How long, after being stopped by a signal, the agent waits for the command it launched to exit.
pub const STOP_GRACE_MS: u64 = 5000;
/// The interval's range (`defaults::AGENT_INTERVAL_MIN_MS`, `AGENT_INTERVAL_MAX_MS`).
pub const MIN_INTERVAL_MS: f64 = ampsched_model::defaults::AGENT_INTERVAL_MIN_MS;
pub const MAX_INTERVAL_MS: f64 = ampsched_model::defaults::AGENT_INTERVAL_MAX_MS;
/// How many times, at the end, the agent looks again for threads created while it restored
/// (by a thread that still had an imposed affinity): each look finds the few created during the
/// previous one's restore, so a handful covers even a program that starts threads nonstop.
const RESTORE_RESCANS: usize = 4;
/// Longest wait between two checks on the launched command after a stop, when the kernel gives
/// no pidfd (Linux before 5.3) to wake the agent at its exit.
const NO_PIDFD_POLL_NS: u64 = 10_000_000;
/// How often the live status line is redrawn.
const STATUS_PERIOD_NS: u64 = 250_000_000;

/// The note of a machine with one core type (one capacity) as the agent sees it: an asymmetry
/// policy has nothing to choose between, and would end with 0 decisions without a word.
pub const NOTHING_TO_DO: &str =
    "one core type here: the policy has nothing to do (no fast core to give); make CPUs slow with --emulate small=CPUS:SPEED or name core types with --cores";

#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub policy: String,
    pub interval_ms: f64,
    /// `--emulate small=1:0.5`.
    pub emulate: Option<String>,
    pub emulate_period_ms: f64,
    /// `--cores big=0-3,small=4-7`.
    pub cores: Option<String>,
    /// A machine to use instead of the detected one (its core types' `cpus` map cores to Linux CPUs).
    pub machine: Option<Machine>,
    /// The command to launch, or empty to attach to `pids`.
    pub command: Vec<String>,
    pub pids: Vec<u32>,
    /// Inject the lock preload library into the launched command.
    pub locks: bool,
    /// Draw the live status line on stderr (when it is a terminal).
    pub status: bool,
    /// The sysfs root (tests point it at a tree of their own).
    pub sysfs_root: String,
    /// The seed handed to the policy in its view (`SystemView::seed`), as the simulator's is.
    pub seed: u64,
    /// After the launched command exits, go on until every process it started has exited too
    /// (otherwise the agent ends with the command, restoring those left running).
    pub until_tree_exits: bool,
    /// `--runtime-threads`: comma-separated globs on thread names that mark a managed runtime's
    /// helper threads (`runtime_threads.rs`); None for the defaults (HotSpot's and OpenJ9's).
    pub runtime_threads: Option<String>,
    /// `--trace FILE`: what ran where, sampled, in the simulator's trace format (`trace.rs`).
    pub trace: Option<String>,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            policy: "oblivious".into(),
            interval_ms: DEFAULT_INTERVAL_MS,
            emulate: None,
            emulate_period_ms: DEFAULT_PERIOD_MS,
            cores: None,
            machine: None,
            command: Vec::new(),
            pids: Vec::new(),
            locks: true,
            status: true,
            sysfs_root: "/".into(),
            seed: ampsched_model::defaults::SEED,
            until_tree_exits: false,
            runtime_threads: None,
            trace: None,
        }
    }
}

#[derive(Debug)]
pub enum AgentError {
    /// Bad input or missing privileges: the user has something to fix (exit status 2).
    Input(InputError),
    /// Something failed underneath the agent (exit status 1).
    Internal(String),
}

impl std::fmt::Display for AgentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentError::Input(e) => write!(f, "{e}"),
            AgentError::Internal(m) => write!(f, "{m}"),
        }
    }
}

impl From<InputError> for AgentError {
    fn from(e: InputError) -> Self {
        AgentError::Input(e)
    }
}

fn input(option: &str, value: impl Into<String>, message: impl Into<String>) -> AgentError {
    AgentError::Input(InputError::new(option, value, message))
}

/// The topology the agent schedules: detected, then overridden by `--cores` or `--emulate`.
pub fn resolve_topology(root: &str, cores: Option<&str>, emulate: Option<&str>) -> Result<Topology, AgentError> {
    let topo = detect(Path::new(root)).map_err(AgentError::Internal)?;
    match (cores, emulate) {
        (Some(_), Some(_)) => Err(input("--cores", cores.unwrap_or(""), "give --cores or --emulate, not both")),
        (Some(c), None) => Ok(topo.with_cores(c)?),
        (None, Some(e)) => Ok(topo.with_emulation(e, MIN_SPEED)?),
        (None, None) => Ok(topo),
    }
}

// ---- signals

static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);
static STOP_FROM_PROCESS: AtomicBool = AtomicBool::new(false);
/// The write end of the pipe the handler wakes the agent's wait through (-1: none).
static WAKE_PIPE: AtomicI32 = AtomicI32::new(-1);
/// The signals whose default action ends the process and that a handler can catch: the agent
/// stops on each as on SIGTERM. (The faults, SIGSEGV and the like, are left to their default
/// action: the agent cannot go on after one, and its guardian restores.) The real-time signals,
/// which also end a process by default, are added in `stop_signals`.
const STOP_SIGNALS: &[libc::c_int] = &[
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGPIPE,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGXCPU,
    libc::SIGXFSZ,
    libc::SIGPWR,
    libc::SIGSTKFLT,
    libc::SIGIO,
];
/// si_code of a signal the kernel sent (a terminal's Ctrl-C), as opposed to kill(2) (SI_USER).
const SI_KERNEL: libc::c_int = 0x80;

/// Every signal the agent stops on. Allocates nothing (the guardian calls it after fork).
pub(crate) fn stop_signals() -> impl Iterator<Item = libc::c_int> {
    STOP_SIGNALS.iter().copied().chain(libc::SIGRTMIN()..=libc::SIGRTMAX())
}

/// Whether a stop signal has come since the agent started: a Python policy's call in progress
/// is then interrupted (the watchdog of `ampsched._core`), so that the agent stops at once.
pub fn stop_requested() -> bool {
    STOP_SIGNAL.load(Ordering::SeqCst) != 0
}

/// The last resort when a policy's call in progress cannot be interrupted (it catches what is
/// raised in it, or blocks where nothing reaches it) and the agent cannot go on without its
/// return: the agent's process ends here, with one line on stderr, and its guardian, which sees
/// it gone, restores every thread and cpufreq file and sends the launched command SIGTERM
/// (`guardian.rs`). The status is 128 + the signal when a stop signal came, else 2 (the
/// policy's failure, as `error` says it).
pub fn abandon(error: &str) -> ! {
    let sig = STOP_SIGNAL.load(Ordering::SeqCst);
    let (line, status) =
        if sig != 0 { (format!("ampsched: agent: stopped by {}, but {error}", signal_name(sig)), 128 + sig) } else { (format!("ampsched: error: {error}"), 2) };
    let _ = writeln!(std::io::stderr(), "{line}: the agent exits; its guardian restores every thread and stops the command");
    // SAFETY: _exit ends the process without running anything more of it (the stuck call's
    // thread holds the interpreter), which is what the guardian waits for.
    unsafe { libc::_exit(status) }
}

extern "C" fn on_stop_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let code = if info.is_null() { SI_KERNEL } else { unsafe { (*info).si_code } };
    STOP_FROM_PROCESS.store(code != SI_KERNEL, Ordering::SeqCst);
    STOP_SIGNAL.store(sig, Ordering::SeqCst);
    let fd = WAKE_PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; errno is saved and put back so the interrupted
        // code does not see ours. A full pipe (EAGAIN) already holds a wake-up.
        unsafe {
            let errno = *libc::__errno_location();
            libc::write(fd, [0u8].as_ptr().cast(), 1);
            *libc::__errno_location() = errno;
        }
    }
}

/// Our handlers for the stop signals while the agent runs; the caller's (Python's) come back on
/// drop. Also the pipe the handlers wake the agent's wait through.
struct SignalGuard {
    old: Vec<(libc::c_int, libc::sigaction)>,
    /// The wake-up pipe: (read end, write end).
    pipe: [libc::c_int; 2],
}

impl SignalGuard {
    fn install() -> SignalGuard {
        STOP_SIGNAL.store(0, Ordering::SeqCst);
        let mut pipe = [-1; 2];
        // SAFETY: pipe2 writes two descriptors into the array. Non-blocking: the handler must
        // never block, and the agent drains the pipe without waiting.
        if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            pipe = [-1; 2]; // no pipe: a signal still interrupts the agent's own wait (EINTR)
        }
        WAKE_PIPE.store(pipe[1], Ordering::SeqCst);
        let mut old = Vec::new();
        for sig in stop_signals() {
            // SAFETY: plain sigaction calls with structures we own; no SA_RESTART, so the
            // agent's wait ends at once with EINTR when the signal reaches its thread.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = on_stop_signal;
                sa.sa_sigaction = handler as usize;
                sa.sa_flags = libc::SA_SIGINFO;
                libc::sigemptyset(&mut sa.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                // A signal the caller ignores (SIGHUP under nohup, SIGPIPE under Python) stays
                // ignored, for the agent and for the command it launches.
                if libc::sigaction(sig, std::ptr::null(), &mut prev) != 0 || prev.sa_sigaction == libc::SIG_IGN {
                    continue;
                }
                if libc::sigaction(sig, &sa, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
        SignalGuard { old, pipe }
    }

    /// The read end of the wake-up pipe, if there is one.
    fn wake_fd(&self) -> Option<libc::c_int> {
        (self.pipe[0] >= 0).then_some(self.pipe[0])
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: restores the action saved in `install`.
            unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
        }
        WAKE_PIPE.store(-1, Ordering::SeqCst);
        for fd in self.pipe.into_iter().filter(|&fd| fd >= 0) {
            // SAFETY: the pipe made in `install`, closed once.
            unsafe { libc::close(fd) };
        }
    }
}

/// The report's `stopped_by` when the agent ended because its target did.
pub const TARGET_EXITED: &str = "target exited";

fn signal_name(sig: i32) -> String {
    match SIGNAL_NAMES.iter().find(|(n, _)| *n == sig) {
        Some((_, name)) => name.to_string(),
        None => format!("signal {sig}"),
    }
}

/// The number of the signal `signal_name` names so (the report's names), if it is one.
pub fn signal_number(name: &str) -> Option<i32> {
    SIGNAL_NAMES.iter().find(|(_, n)| *n == name).map(|&(sig, _)| sig).or_else(|| name.strip_prefix("signal ")?.parse().ok())
}

/// The names the report gives signals (`signal_name`), as signal(7) spells them.
const SIGNAL_NAMES: &[(libc::c_int, &str)] = &[
    (libc::SIGHUP, "SIGHUP"),
    (libc::SIGINT, "SIGINT"),
    (libc::SIGQUIT, "SIGQUIT"),
    (libc::SIGILL, "SIGILL"),
    (libc::SIGTRAP, "SIGTRAP"),
    (libc::SIGABRT, "SIGABRT"),
    (libc::SIGBUS, "SIGBUS"),
    (libc::SIGFPE, "SIGFPE"),
    (libc::SIGKILL, "SIGKILL"),
    (libc::SIGUSR1, "SIGUSR1"),
    (libc::SIGSEGV, "SIGSEGV"),
    (libc::SIGUSR2, "SIGUSR2"),
    (libc::SIGPIPE, "SIGPIPE"),
    (libc::SIGALRM, "SIGALRM"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGSTKFLT, "SIGSTKFLT"),
    (libc::SIGXCPU, "SIGXCPU"),
    (libc::SIGXFSZ, "SIGXFSZ"),
    (libc::SIGVTALRM, "SIGVTALRM"),
    (libc::SIGPROF, "SIGPROF"),
    (libc::SIGIO, "SIGIO"),
    (libc::SIGPWR, "SIGPWR"),
    (libc::SIGSYS, "SIGSYS"),
];

// ---- waiting: for the next sample, a target's exit or a signal

/// What ended a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wake {
    /// The time waited for came.
    Time,
    /// A target process exited, or a signal came: before the time.
    Early,
}

/// Waits in ppoll(2) on a pidfd per watched process and on the signal handlers' pipe.
struct Waiter {
    wake_fd: Option<libc::c_int>,
    pidfds: HashMap<u32, libc::c_int>,
    /// Processes whose pidfd said they exited (or that have none): never watched again, so an
    /// exited process not yet reaped does not wake every wait.
    done: HashSet<u32>,
    /// Some watched process has no pidfd (Linux before 5.3, or out of descriptors).
    missing: bool,
    /// Exits seen since the last `take_exits`: the monitor must know them, as /proc lists an
    /// exited process until its parent reaps it.
    fresh_exits: Vec<u32>,
}

/// pidfd_open(2) (Linux 5.3), which libc does not wrap everywhere: the descriptor, or errno.
fn pidfd_open(pid: u32) -> Result<libc::c_int, i32> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd >= 0 {
        Ok(fd as libc::c_int)
    } else {
        Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
    }
}

impl Waiter {
    fn new(wake_fd: Option<libc::c_int>) -> Waiter {
        Waiter { wake_fd, pidfds: HashMap::new(), done: HashSet::new(), missing: false, fresh_exits: Vec::new() }
    }

    /// Watch exactly `pids` (those not yet seen exiting).
    fn watch(&mut self, pids: impl Iterator<Item = u32>) {
        let want: HashSet<u32> = pids.filter(|p| !self.done.contains(p)).collect();
        self.pidfds.retain(|pid, fd| {
            let keep = want.contains(pid);
            if !keep {
                // SAFETY: our pidfd, closed once.
                unsafe { libc::close(*fd) };
            }
            keep
        });
        self.missing = false;
        for pid in want {
            if self.pidfds.contains_key(&pid) {
                continue;
            }
            match pidfd_open(pid) {
                Ok(fd) => {
                    self.pidfds.insert(pid, fd);
                }
                // Gone (exited and reaped) since the monitor last saw it alive: an exit like
                // one a pidfd reports, not a process to poll for until the next sample.
                Err(libc::ESRCH) => self.exited(pid),
                Err(_) => self.missing = true,
            }
        }
    }

    fn exited(&mut self, pid: u32) {
        if self.done.insert(pid) {
            self.fresh_exits.push(pid);
        }
    }

    /// The processes seen exiting since the last call.
    fn take_exits(&mut self) -> std::vec::Drain<'_, u32> {
        self.fresh_exits.drain(..)
    }

    /// Wait until `deadline` (CLOCK_MONOTONIC, ns), a watched process's exit, or a stop signal.
    fn wait_until(&mut self, deadline: u64) -> Wake {
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(self.pidfds.len() + 1);
        let mut pids: Vec<u32> = Vec::with_capacity(self.pidfds.len());
        if let Some(fd) = self.wake_fd {
            fds.push(libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
        }
        for (&pid, &fd) in &self.pidfds {
            fds.push(libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
            pids.push(pid);
        }
        let first_pid = fds.len() - pids.len();
        loop {
            let now = monotonic_ns();
            if now >= deadline {
                return Wake::Time;
            }
            let left = deadline - now;
            let ts = libc::timespec { tv_sec: (left / 1_000_000_000) as libc::time_t, tv_nsec: (left % 1_000_000_000) as libc::c_long };
            // SAFETY: ppoll on descriptors we own, with a timeout we own and no signal mask change.
            let r = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
            if r > 0 {
                if let Some(fd) = self.wake_fd {
                    let mut buf = [0u8; 64];
                    // SAFETY: drain the non-blocking pipe into our buffer.
                    while unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
                }
                for (i, pfd) in fds[first_pid..].iter().enumerate() {
                    if pfd.revents != 0 {
                        self.exited(pids[i]);
                        if let Some(fd) = self.pidfds.remove(&pids[i]) {
                            // SAFETY: our pidfd, closed once.
                            unsafe { libc::close(fd) };
                        }
                    }
                }
                return Wake::Early;
            }
            if r < 0 && STOP_SIGNAL.load(Ordering::SeqCst) != 0 {
                return Wake::Early; // EINTR by a stop signal that reached this thread
            }
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.watch(std::iter::empty());
    }
}

// ---- the session: what must be undone whatever happens

struct Session {
    monitor: Monitor,
    enforcer: Enforcer,
    /// RLIMIT_NOFILE's soft limit before the agent raised it for counters.
    fd_soft_limit: Option<u64>,
    // Dropped after `monitor`'s threads are restored (field order): stops the stealers, removes the table.
    emulation: Option<Emulation>,
    locks: Option<LockTable>,
    /// Recording (`ampsched record`): what each sample and the preload library's log say.
    recorder: Option<Recorder>,
    /// When the agent started following the targets (CLOCK_MONOTONIC, ns): the view's time 0.
    start_ns: u64,
    restored: Option<Restored>,
}

impl Session {
    /// Put back everything the agent changed on the target (once; later calls repeat the result).
    /// The targets are scanned first, and again after, for threads (and child processes) created
    /// since the last look by a thread that had an affinity the agent imposed: they inherited it.
    fn restore(&mut self) -> Restored {
        if let Some(r) = self.restored {
            return r;
        }
        let mut r = Restored::default();
        for round in 0..=RESTORE_RESCANS {
            let seen = self.monitor.book.threads.len();
            self.rescan();
            if round > 0 && self.monitor.book.threads.len() == seen {
                break;
            }
            r = self.enforcer.restore_found_since(&self.monitor);
        }
        if let Some(soft) = self.fd_soft_limit.take() {
            // Open counter groups stay valid under the lower limit; only new ones could not open,
            // and after a restore the agent samples no more.
            restore_fd_limit(soft);
        }
        self.restored = Some(r);
        r
    }

    /// Sample the targets once more, outside the schedule: only to find new threads and processes.
    fn rescan(&mut self) {
        if self.start_ns == 0 {
            return; // never started following anything
        }
        let mut events = Vec::new();
        self.monitor.sample(monotonic_ns().saturating_sub(self.start_ns), &mut events);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.restore();
    }
}

/// The launched command.
struct Child {
    pid: u32,
    status: Option<ExitStatus>,
}

impl Child {
    /// Reap it if it has ended.
    fn poll(&mut self) {
        if self.status.is_some() {
            return;
        }
        let mut st: libc::c_int = 0;
        // SAFETY: waitpid on our own child, non-blocking.
        let r = unsafe { libc::waitpid(self.pid as libc::pid_t, &mut st, libc::WNOHANG) };
        if r == self.pid as libc::pid_t {
            self.status = Some(if libc::WIFEXITED(st) {
                ExitStatus { exit_code: Some(libc::WEXITSTATUS(st)), signal: None, still_running: None }
            } else {
                ExitStatus { exit_code: None, signal: Some(signal_name(libc::WTERMSIG(st))), still_running: None }
            });
        } else if r < 0 {
            self.status = Some(ExitStatus { exit_code: None, signal: None, still_running: None });
        }
    }
}

/// Once the launched command is reaped its pid may be reused: nobody may signal it any more,
/// neither the agent's error path nor the guardian.
fn forget_if_reaped(c: &Child, s: &mut Session, launched: &mut Option<u32>) {
    if c.status.is_some() && launched.take().is_some() {
        if let Some(l) = s.monitor.ledger.as_mut() {
            l.launched(0);
        }
    }
}

/// Reap any target process that is our child (orphans reparented to the agent as subreaper).
fn reap_children(pids: &[u32], child: Option<u32>) {
    for &pid in pids {
        if Some(pid) == child {
            continue;
        }
        let mut st = 0;
        // SAFETY: non-blocking waitpid; ECHILD for processes that are not ours.
        unsafe { libc::waitpid(pid as libc::pid_t, &mut st, libc::WNOHANG) };
    }
}

/// Each core type's speed as `topo` emulates it (1 for the full-speed one), by its first CPU.
fn session_machine_speeds(topo: &Topology, m: &Machine) -> Vec<f64> {
    (0..m.core_types.len())
        .map(|ty| {
            let cpu = m.cores.iter().find(|c| c.core_type == ty).map(|c| c.cpu);
            topo.cpus.iter().find(|c| Some(c.id) == cpu).map_or(1.0, |c| c.perf.min(1.0))
        })
        .collect()
}

/// What the agent measures for a policy here: hardware counters where the machine gives them,
/// lock waits and spin-waits (pthread mutexes and spinlocks) when it launches the command with
/// the preload library; always each thread's runnable time per core type (schedstat's waits,
/// which the monitor reads with its CPU time). Never program hints or the simulator.
pub fn agent_signals(counters: bool, locks: bool) -> Signals {
    let mut s = Signals::PROGRESS;
    if counters {
        s = s | Signals::COUNTERS;
    }
    if locks {
        s = s | Signals::LOCKS | Signals::SPIN;
    }
    s
}

/// Why the preload library is not active, when a policy needs what only it measures.
const NO_PRELOAD: &str = "the agent sees lock and spin waits only through its preload library, \
                          injected into a command it launches: not with --pid or --no-locks";

/// Refuse a policy whose needs the agent does not meet here, by the check the simulator makes;
/// `no_counters` is why the machine gives no hardware counters, if it does not.
pub fn check_policy(name: &str, needs: Signals, available: Signals, no_counters: Option<&str>) -> Result<(), AgentError> {
    needs.check(available, "the live agent here").map_err(|why| {
        let mut counters = match no_counters {
            Some(e) if needs.contains(Signals::COUNTERS) => format!(" ({e})"),
            _ => String::new(),
        };
        if !available.contains(Signals::LOCKS) && (needs.contains(Signals::LOCKS) || needs.contains(Signals::SPIN)) {
            counters.push_str(&format!(" ({NO_PRELOAD})"));
        }
        input("--policy", name, format!("{name} cannot run live: {why}{counters}"))
    })
}

/// What `--interval` must be, as its error says it.
pub fn interval_range() -> String {
    format!("must be between {MIN_INTERVAL_MS} and {MAX_INTERVAL_MS} ms (1 ms to 1 hour)")
}

fn check_config(cfg: &AgentConfig) -> Result<(), AgentError> {
    if !(MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&cfg.interval_ms) {
        return Err(input("--interval", cfg.interval_ms.to_string(), interval_range()));
    }
    if cfg.command.is_empty() == cfg.pids.is_empty() {
        return Err(input("agent", "", "give either a command to launch (after --) or --pid PID, not both and not neither"));
    }
    if !(cfg.emulate_period_ms >= 0.1 && cfg.emulate_period_ms <= 1000.0) {
        return Err(input("--emulate-period", cfg.emulate_period_ms.to_string(), "must be between 0.1 and 1000 ms"));
    }
    runtime_threads(cfg)?;
    if let Some(path) = &cfg.trace {
        // Before the command runs: a live run cannot be made again for want of a file name.
        ampsched_sim::trace::check_trace_path(path)?;
    }
    Ok(())
}

/// The thread-name patterns of `--runtime-threads`, or the defaults.
fn runtime_threads(cfg: &AgentConfig) -> Result<RuntimeThreads, AgentError> {
    Ok(match &cfg.runtime_threads {
        Some(spec) => RuntimeThreads::parse(spec)?,
        None => RuntimeThreads::default(),
    })
}

/// Run the agent until the target ends or a stop signal arrives. Returns the `--json` report.
pub fn run(cfg: &AgentConfig) -> Result<Value, AgentError> {
    check_config(cfg)?;
    let spec = PolicySpec::parse(&cfg.policy)?;
    // The simulator's OS schedulers (gts, cluster-switch, iks, os=gts) have no live form.
    if let Some(why) = ampsched_policy::live_refusal(&spec)? {
        return Err(input("--policy", spec.canonical(), why));
    }
    let needs = ampsched_policy::needs(&spec)?;
    run_with(cfg, &spec.name, needs, |m| Ok(ampsched_policy::build(&spec, m)?))
}

/// `run` with a policy made outside the registry (a Python policy) that needs `needs`; the
/// report names it by `cfg.policy`. A policy that fails (`Policy::decide`'s error) ends the agent at
/// that sample: everything is restored, the launched command gets SIGTERM and `STOP_GRACE_MS`
/// to exit, and the agent returns the policy's error.
pub fn run_with_policy(cfg: &AgentConfig, policy: Box<dyn Policy>, needs: Signals) -> Result<Value, AgentError> {
    run_with(cfg, &cfg.policy, needs, |_| Ok(policy))
}

/// Run the agent with the policy `build` makes for the machine (`name` and `needs` as its
/// registration gives them). `run` passes a registered policy; tests pass their own.
pub fn run_with(
    cfg: &AgentConfig,
    name: &str,
    needs: Signals,
    build: impl FnOnce(&Machine) -> Result<Box<dyn Policy>, AgentError>,
) -> Result<Value, AgentError> {
    let report = run_session(cfg, name, needs, build, None)?;
    Ok(serde_json::to_value(&report).expect("the report is plain data"))
}

/// What a recording run (`run_session` with a recorder) leaves: the recorder, and how many
/// threads found the lock table full.
pub(crate) struct RecordingRun {
    pub recorder: Option<Recorder>,
    pub lock_dropped: u32,
}

/// `run` of a registered policy, recording (`record::recorder::record`): the report, or the
/// agent's error, and what was recorded (None when it failed before it launched or attached).
pub(crate) fn run_recording(cfg: &AgentConfig) -> (Result<Report, AgentError>, RecordingRun) {
    let mut rec = RecordingRun { recorder: None, lock_dropped: 0 };
    let result = (|| {
        check_config(cfg)?;
        let spec = PolicySpec::parse(&cfg.policy)?;
        if let Some(why) = ampsched_policy::live_refusal(&spec)? {
            return Err(input("--policy", spec.canonical(), why));
        }
        let needs = ampsched_policy::needs(&spec)?;
        run_session(cfg, &spec.name, needs, |m| Ok(ampsched_policy::build(&spec, m)?), Some(&mut rec))
    })();
    (result, rec)
}

/// `run_with`, recording when `record` is given (the preload library's recording build and its
/// event log, when the agent launches the command; a `Recorder` fed at every sample, put in
/// `record` at the end, whatever the result).
fn run_session(
    cfg: &AgentConfig,
    name: &str,
    needs: Signals,
    build: impl FnOnce(&Machine) -> Result<Box<dyn Policy>, AgentError>,
    mut record: Option<&mut RecordingRun>,
) -> Result<Report, AgentError> {
    check_config(cfg)?;
    let kinds = runtime_threads(cfg)?;
    // First of all: a stop signal from here on ends the agent with its report and everything
    // put back, never by the default action halfway through (dropped last: after the restore).
    let signals = SignalGuard::install();
    let lock_insight = cfg.locks && !cfg.command.is_empty();
    let counters = PerfCounters::new();
    let available = agent_signals(counters.is_ok(), lock_insight);
    check_policy(name, needs, available, counters.as_ref().err().map(String::as_str))?;

    let topo = resolve_topology(&cfg.sysfs_root, cfg.cores.as_deref(), cfg.emulate.as_deref())?;
    let machine = match &cfg.machine {
        Some(m) => {
            let name = &m.name;
            // With --emulate, the machine file only describes the cores to the policy (say, to
            // number the slow core first); --emulate alone decides which CPUs are slowed.
            if cfg.cores.is_some() {
                return Err(input("--machine", name, "give --machine or --cores, not both"));
            }
            let online: HashSet<usize> = topo.cpus.iter().map(|c| c.id).collect();
            if let Some(c) = m.cores.iter().find(|c| !online.contains(&c.cpu)) {
                return Err(input("--machine", name, format!("core {} is on CPU {}, which is not online here", c.id, c.cpu)));
            }
            m.clone()
        }
        None => topo.to_machine("live")?,
    };
    let mut policy: Box<dyn Policy> = build(&machine)?;
    let mut notes = Vec::new();
    if machine.core_types.iter().map(|t| t.capacity).collect::<HashSet<_>>().len() == 1 {
        notes.push(NOTHING_TO_DO.to_string());
    }

    // Before the first change (the emulation's threads hold CPUs; the lock table is a directory
    // in /dev/shm): whatever kills the agent from here on, the guardian undoes it.
    let (mut guardian, mut ledger, guardian_pid) = match guardian::start() {
        Ok((g, l)) => {
            let pid = g.pid();
            (Some(g), Some(l), Ok(pid))
        }
        Err(why) => (None, None, Err(why)),
    };
    let emulation = match &cfg.emulate {
        None => None,
        Some(_) => {
            let slow: Vec<(usize, f64)> = topo.cpus.iter().filter(|c| c.perf < 1.0).map(|c| (c.id, c.perf)).collect();
            let period = (cfg.emulate_period_ms * 1e6).round() as u64;
            Some(Emulation::start(&slow, period).map_err(|m| input("--emulate", cfg.emulate.clone().unwrap_or_default(), m))?)
        }
    };

    let locks = if lock_insight {
        let base = ["/dev/shm", "/tmp"].iter().map(Path::new).find(|p| p.is_dir()).unwrap_or(Path::new("/tmp"));
        let library = if record.is_some() { crate::locks::RECORD_LIBRARY } else { crate::locks::PRELOAD_LIBRARY };
        let table =
            LockTable::create_with(base, library).map_err(|e| AgentError::Internal(format!("cannot create the lock table in {}: {e}", base.display())))?;
        if let Some(l) = ledger.as_mut() {
            l.lock_dir(table.dir());
        }
        Some(table)
    } else {
        None
    };

    let interval_ns = ms_to_ns(cfg.interval_ms);
    let mut monitor = Monitor::new(machine);
    monitor.ledger = ledger;
    monitor.runtime_threads = kinds;
    if let Some(g) = &guardian {
        monitor.ignore_process(g.pid());
    }
    // As the simulator does: the available signals, and intervals only for a policy with a quantum.
    monitor.book = ViewBook::new(monitor.machine.num_cores(), available, policy.quantum_ns().is_some());
    monitor.book.seed = cfg.seed;
    let counters_unavailable = counters.as_ref().err().cloned();
    let fd_soft_limit = counters.ok().map(|source| {
        monitor.counting = Some(Counting::new(Box::new(source)));
        raise_fd_limit()
    });
    let mut enforcer = Enforcer::new(Path::new(&cfg.sysfs_root), interval_ns);
    if cfg.emulate.is_some() {
        // Fast-core shares count the time a thread holds a slow CPU, not only the CPU time the
        // stealer leaves it (`enforce/share.rs`): each core type's emulated speed.
        let m = &session_machine_speeds(&topo, &monitor.machine);
        enforcer.shares.emulated(m);
    }
    let recorder = match (&record, &locks) {
        (None, _) => None,
        (Some(_), None) => Some(Recorder::new(None)),
        (Some(_), Some(t)) => {
            let log = EventLog::create(t.dir()).map_err(|e| AgentError::Internal(format!("cannot create the event log in {}: {e}", t.dir().display())))?;
            Some(Recorder::new(Some(log)))
        }
    };
    let mut session = Session { monitor, enforcer, fd_soft_limit, emulation, locks, recorder, start_ns: 0, restored: None };
    let mut launched: Option<u32> = None;
    let run = Run { cfg, name, needs, interval_ns, counters_unavailable, guardian_pid, notes };
    let result = drive(&run, &mut session, policy.as_mut(), &mut launched, Waiter::new(signals.wake_fd()));
    if let (Err(_), Some(pid)) = (&result, launched) {
        // The agent failed under a command it launched (its policy failed, or something under
        // it): do not leave the command running unattended. Everything is put back first, so
        // that the command's own clean-up runs as it would without the agent; then it gets
        // SIGTERM and the usual grace period (STOP_GRACE_MS), after which it is left running.
        session.restore();
        let mut child = Child { pid, status: None };
        // SAFETY: kill on the pid of our own unreaped child.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
        let end = monotonic_ns() + STOP_GRACE_MS * 1_000_000;
        while child.status.is_none() && monotonic_ns() < end {
            child.poll();
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    // SAFETY: prctl with integer arguments: the agent's host process stops being a subreaper.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) };
    let restored = session.restore();
    let emulation_threads = session.emulation.as_ref().map_or(0, |e| e.threads());
    drop(session.emulation.take());
    if let Some(r) = record.as_mut() {
        r.recorder = session.recorder.take();
        r.lock_dropped = session.locks.as_ref().map_or(0, |t| t.dropped());
    }
    drop(session.locks.take());
    if let Some(g) = guardian.as_mut() {
        g.dismiss(); // everything is back: it exits without acting
    }
    let mut report = result?;
    let a = &mut report.agent;
    (a.affinities_restored, a.threads_vanished_before_restore) = restored.affinities;
    a.emulation_threads_stopped = emulation_threads;
    a.nice_values_restored = restored.nice_values.0;
    a.slices_restored = restored.slices.0;
    a.cpufreq_files_restored = restored.frequencies;
    Ok(report)
}

/// What `drive` needs to know of the run beyond the session.
struct Run<'a> {
    cfg: &'a AgentConfig,
    name: &'a str,
    needs: Signals,
    interval_ns: u64,
    /// Why there are no hardware counters, if there are none.
    counters_unavailable: Option<String>,
    /// The guardian's process id, or why there is none.
    guardian_pid: Result<u32, String>,
    /// The report's notes so far (`Report::notes`).
    notes: Vec<String>,
}

fn launch(cfg: &AgentConfig, locks: Option<&LockTable>, events: Option<&Path>, fd_soft_limit: Option<u64>) -> Result<Child, AgentError> {
    let mut cmd = std::process::Command::new(&cfg.command[0]);
    cmd.args(&cfg.command[1..]);
    if let Some(soft) = fd_soft_limit {
        use std::os::unix::process::CommandExt;
        // The command gets the descriptor limit it would have had without the agent's counters.
        // SAFETY: between fork and exec only async-signal-safe calls are allowed; restore_fd_limit
        // makes two system calls (getrlimit, setrlimit) on its own stack and allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                restore_fd_limit(soft);
                Ok(())
            });
        }
    }
    if let Some(t) = locks {
        let lib = t.library_path().display().to_string();
        let preload = match std::env::var("LD_PRELOAD") {
            Ok(old) if !old.is_empty() => format!("{lib}:{old}"),
            _ => lib,
        };
        cmd.env("LD_PRELOAD", preload).env("AMPSCHED_LOCKS_SHM", t.table_path());
        if let Some(path) = events {
            cmd.env("AMPSCHED_EVENTS_SHM", path);
        }
    }
    // Orphaned grandchildren are reparented to the agent, so they stay found and followed.
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    let child = cmd.spawn().map_err(|e| input("--", &cfg.command[0], format!("cannot run the command: {e}")))?;
    Ok(Child { pid: child.id(), status: None })
}

/// Check that the agent may move the threads of `pid`: set its main thread's affinity to itself.
fn check_permission(pid: u32) -> Result<(), AgentError> {
    let mask = match procfs::get_affinity(pid) {
        Ok(mask) => mask,
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => return Err(input("--pid", pid.to_string(), "no such process")),
        Err(e) => return Err(input("--pid", pid.to_string(), format!("cannot read its affinity: {e}"))),
    };
    match set_affinity(pid, &mask) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => Err(input(
            "--pid",
            pid.to_string(),
            "not permitted to set this process's thread affinities: moving another user's threads needs CAP_SYS_NICE (run as root or as its owner)",
        )),
        Err(e) => Err(input("--pid", pid.to_string(), format!("cannot set its affinity: {e}"))),
    }
}

fn drive(run: &Run, s: &mut Session, policy: &mut dyn Policy, launched: &mut Option<u32>, mut waiter: Waiter) -> Result<Report, AgentError> {
    let cfg = run.cfg;
    let early = STOP_SIGNAL.load(Ordering::SeqCst);
    if early != 0 {
        // Stopped while starting, before it launched or attached to anything: nothing to undo.
        return Ok(report(run, s, policy, None, Some(early), 0, 0, [0; 6]));
    }
    // The command's wall time starts before it is launched: it runs from its exec on, while the
    // agent returns from spawn and reads /proc for it (measured: a program's own wall time ended
    // up to 4 ms above the report's when the clock started after those, on a loaded machine).
    let start = monotonic_ns();
    let mut child = None;
    if cfg.command.is_empty() {
        for &pid in &cfg.pids {
            check_permission(pid)?;
        }
        for &pid in &cfg.pids {
            if !s.monitor.add_process(pid) {
                return Err(input("--pid", pid.to_string(), "no such process"));
            }
        }
    } else {
        let events = s.recorder.as_ref().and_then(|r| r.log_path());
        let c = launch(cfg, s.locks.as_ref(), events, s.fd_soft_limit)?;
        *launched = Some(c.pid);
        if let Some(l) = s.monitor.ledger.as_mut() {
            l.launched(c.pid);
        }
        s.monitor.add_process(c.pid);
        child = Some(c);
    }

    let interval_ns = run.interval_ns;
    let status_line = cfg.status && std::io::stderr().is_terminal();
    s.start_ns = start;
    if let Some(r) = s.recorder.as_mut() {
        r.started(start);
    }
    let cpu_start = own_thread_cpu_ns();
    let mut next = start;
    let mut woken_early = false;
    let mut last_quantum: Option<u64> = None;
    let mut events: Vec<Trigger> = Vec::new();
    let mut out = Placement::default();
    let mut lock_data: HashMap<u32, LockRecord> = HashMap::new();
    let (mut samples, mut late, mut max_sample_ns, mut total_sample_ns, mut calls) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut decisions = 0u64;
    let mut last_status = 0u64;
    let mut stopped_by: Option<i32> = None;
    let mut tracer = cfg.trace.as_ref().map(|_| Tracer::default());

    loop {
        let t0 = monotonic_ns();
        let now = t0 - start;
        if let Some(c) = child.as_mut() {
            c.poll();
            forget_if_reaped(c, s, launched);
        }
        let pids: Vec<u32> = s.monitor.live_processes().collect();
        reap_children(&pids, child.as_ref().map(|c| c.pid));

        events.clear();
        for pid in waiter.take_exits() {
            s.monitor.saw_exit(pid);
        }
        s.monitor.sample(now, &mut events);
        if let Some(t) = &s.locks {
            t.read(monotonic_ns(), &mut lock_data);
            s.monitor.apply_locks(&lock_data);
        }
        if let Some(r) = s.recorder.as_mut() {
            r.sample(now, &s.monitor);
        }

        if let (true, Some(why)) = (run.needs.contains(Signals::COUNTERS), s.monitor.counting.as_ref().and_then(|c| c.stopped())) {
            return Err(input("--policy", run.name, format!("{} needs hardware counters, which stopped: {why}", run.name)));
        }
        // A policy that failed (a Python policy's exception, or a call past its limit) decides
        // nothing more: the agent ends now, and the command with it (`run_with`).
        let (c, d) = call_policy(run.name, policy, &mut s.monitor, &mut s.enforcer, now, &events, &mut last_quantum, &mut out)?;
        calls += c;
        decisions += d;
        s.enforcer.after_sample(&mut s.monitor);
        if let Some(t) = tracer.as_mut() {
            t.sample(now, &s.monitor, d);
        }

        let took = monotonic_ns() - t0;
        if took > interval_ns {
            late += 1; // this sample overran its interval: the next one starts late
        }
        samples += 1;
        total_sample_ns += took;
        max_sample_ns = max_sample_ns.max(took);

        if status_line && (now >= last_status + STATUS_PERIOD_NS) {
            last_status = now;
            let cpu = own_thread_cpu_ns() - cpu_start;
            let share = if now > 0 { cpu as f64 / now as f64 * 100.0 } else { 0.0 };
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[K[ampsched agent: {}] {:.1} s  interval {} ms  threads {} live / {} seen  decisions {}  migrations {}  agent CPU {:.2}%",
                run.name,
                now as f64 / 1e9,
                cfg.interval_ms,
                s.monitor.live_count(),
                s.monitor.book.threads.len(),
                decisions,
                s.monitor.migrations,
                share
            );
            let _ = err.flush();
        }

        // Done? The launched command has exited (and, with `until_tree_exits`, every process it
        // started has too), or every attached process has.
        let none_left = s.monitor.live_processes().count() == 0;
        let target_gone = match &child {
            Some(c) => c.status.is_some() && (none_left || !cfg.until_tree_exits),
            None => none_left,
        };
        if target_gone {
            break;
        }
        let sig = STOP_SIGNAL.load(Ordering::SeqCst);
        if sig != 0 {
            stopped_by = Some(sig);
            // Stop moving threads: give them back their affinities now, then wait for the
            // launched command (which gets the signal too) to end. The policy runs no more.
            s.restore();
            if let Some(c) = child.as_mut() {
                if STOP_FROM_PROCESS.load(Ordering::SeqCst) && c.status.is_none() {
                    // SAFETY: kill on the pid of our own unreaped child.
                    unsafe { libc::kill(c.pid as libc::pid_t, sig) };
                }
                let stop_at = monotonic_ns() + STOP_GRACE_MS * 1_000_000;
                waiter.watch(std::iter::once(c.pid));
                c.poll();
                while c.status.is_none() && monotonic_ns() < stop_at {
                    let until = if waiter.missing { stop_at.min(monotonic_ns() + NO_PIDFD_POLL_NS) } else { stop_at };
                    waiter.wait_until(until);
                    c.poll();
                }
                forget_if_reaped(c, s, launched);
            }
            break;
        }

        // Wait for the next sample, or less: a target's exit or a signal is seen at once. After
        // such an early wake the schedule is kept: the next sample is still due at `next`.
        if !woken_early {
            next += interval_ns;
        }
        let now_abs = monotonic_ns();
        if next <= now_abs {
            next = now_abs; // overran: sample again at once rather than fall further behind
            woken_early = false;
        } else {
            woken_early = wait_for_sample(&mut waiter, next, &mut child, s, cfg.until_tree_exits);
        }
    }

    if status_line {
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    }
    let wall_ns = monotonic_ns() - start;
    let cpu_ns = own_thread_cpu_ns() - cpu_start;
    if let Some(r) = s.recorder.as_mut() {
        r.end(wall_ns);
    }
    // Put everything back now (the last look at the targets finds the processes left running,
    // which the report names); the caller's restore repeats this result.
    s.restore();
    let mut r = report(run, s, policy, child, stopped_by, wall_ns, cpu_ns, [samples, late, max_sample_ns, total_sample_ns, calls, decisions]);
    if let (Some(t), Some(path)) = (&tracer, &cfg.trace) {
        t.write(path, &s.monitor, run.name, &cfg.command.join(" "))?;
        if t.dropped > 0 {
            r.notes.push(format!("the trace kept its first {} slices and left out {} more", crate::trace::TRACE_SEGMENTS, t.dropped));
        }
    }
    Ok(r)
}

/// Wait for the sample due at `next`, or less: for what ends the agent, which it then sees at
/// once (a stop signal; the launched command's exit, unless the tree is followed; the exit of
/// every process followed). Another process's exit waits for the sample, so that the interval
/// still bounds the agent's cost (a `make -j` under `--pid` ends processes all the time).
/// Without pidfds (Linux before 5.3) the launched command is polled every `NO_PIDFD_POLL_NS`.
/// True when woken before `next`.
fn wait_for_sample(waiter: &mut Waiter, next: u64, child: &mut Option<Child>, s: &Session, until_tree_exits: bool) -> bool {
    loop {
        let running = child.as_ref().filter(|c| c.status.is_none()).map(|c| c.pid);
        let exits_seen = waiter.done.len();
        waiter.watch(s.monitor.live_processes().chain(running));
        // A process can exit and be reaped between the monitor's look and its pidfd_open (a
        // shell reaps its jobs at once): `watch` then counts the exit, and nothing would wake
        // the wait for it.
        let gone_before_watched = waiter.done.len() > exits_seen;
        let until = if waiter.missing { next.min(monotonic_ns() + NO_PIDFD_POLL_NS) } else { next };
        if !gone_before_watched && waiter.wait_until(until) == Wake::Time && until == next {
            return false;
        }
        if STOP_SIGNAL.load(Ordering::SeqCst) != 0 {
            return true;
        }
        if let Some(c) = child.as_mut() {
            c.poll();
            if c.status.is_some() && !until_tree_exits {
                return true;
            }
        }
        // Only on a new exit: a process already seen exiting but still listed (a zombie nobody
        // reaps) must not wake every wait.
        if waiter.done.len() > exits_seen && !waiter.missing && s.monitor.live_processes().all(|p| waiter.done.contains(&p)) {
            return true;
        }
    }
}

/// Call the policy on a sample: for each of the interval's events it subscribes to, in order,
/// then for its quantum when one has passed. Each call's placement is checked as the simulator
/// checks it, then applied before the next call, so the next call sees it. Returns (calls,
/// decisions that changed something), or the error of the policy called `name`: its failure (a
/// `--policy` input error) or its invalid decision.
#[allow(clippy::too_many_arguments)]
pub fn call_policy(
    name: &str,
    policy: &mut dyn Policy,
    m: &mut Monitor,
    enforcer: &mut Enforcer,
    now: u64,
    events: &[Trigger],
    last_quantum: &mut Option<u64>,
    out: &mut Placement,
) -> Result<(u64, u64), AgentError> {
    let wants = policy.triggers();
    let (mut calls, mut decisions) = (0, 0);
    let mut call = |policy: &mut dyn Policy, m: &mut Monitor, trigger: Trigger| -> Result<(), AgentError> {
        out.clear();
        m.book.begin_call(trigger, now);
        let decided = policy.decide(&m.book.view(&m.machine, trigger, now), out);
        m.book.end_call();
        decided.map_err(|why| input("--policy", name, why.0))?;
        out.validate(&m.machine, m.book.threads.len()).map_err(|e| AgentError::Internal(format!("policy error: the live run of {name}: {e}")))?;
        calls += 1;
        decisions += enforcer.apply(m, out);
        Ok(())
    };
    for &ev in events {
        if wants.wants(ev) {
            call(policy, m, ev)?;
        }
    }
    if let Some(q) = policy.quantum_ns() {
        if last_quantum.is_none_or(|l| now >= l + q) {
            call(policy, m, Trigger::Quantum)?;
            *last_quantum = Some(now);
        }
    }
    Ok((calls, decisions))
}

/// The report's `speedup` line for a policy that does not say where its speedups come from
/// (most predict none).
pub const NO_SPEEDUP_SOURCE: &str = "not stated by the policy";

/// What the progress rates (CPU time over runnable wall time per core type, from schedstat,
/// `Signals::PROGRESS`) are worth as efficiencies on a machine emulated (`--emulate`) or not,
/// with `types` core types (`policy::common::progress_rate` says why).
pub fn progress_rate_line(emulated: bool, types: usize) -> &'static str {
    match (emulated, types) {
        (true, _) => {
            "emulated efficiency: a slow CPU gives a thread alone its speed's share of the time, so a thread's fast rate over its slow rate is the emulated speed ratio (the same for every program); waits behind other threads bias it unless alike on both types"
        }
        (false, 1) => "nothing to compare: one core type here",
        (false, _) => {
            "not an efficiency here: real slow cores give a thread all its time, slowly, so its rates show contention only and their ratio stays near 1 whatever its efficiency; efficiencies need hardware counters (or --emulate)"
        }
    }
}

/// What hardware counters the run read, or why none.
fn counters_line(run: &Run, m: &Monitor) -> String {
    match (&m.counting, &run.counters_unavailable) {
        (Some(c), _) => match c.stopped() {
            Some(why) => format!("stopped ({why}); not offered to the policy from then on"),
            None if c.unmeasured_intervals > 0 => {
                format!("read: {} ({} threads; {} thread intervals never on the PMU, left uncharged)", c.describe(), c.threads_counted, c.unmeasured_intervals)
            }
            None => format!("read: {} ({} threads)", c.describe(), c.threads_counted),
        },
        (None, Some(why)) => why.clone(),
        (None, None) => "not read".to_string(),
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    run: &Run,
    s: &Session,
    policy: &dyn Policy,
    child: Option<Child>,
    stopped_by: Option<i32>,
    wall_ns: u64,
    cpu_ns: u64,
    [samples, late, max_sample_ns, total_sample_ns, calls, decisions]: [u64; 6],
) -> Report {
    let (cfg, m, e) = (run.cfg, &s.monitor, &s.enforcer);
    let status = child.as_ref().map(|c| c.status.clone().unwrap_or(ExitStatus { exit_code: None, signal: None, still_running: Some(true) }));
    // Every target process still running: the launched command if it outlived the grace period,
    // its children (a shell's background jobs), or the attached processes.
    let processes_left_running: Vec<ProcessLeft> = m.running_processes().into_iter().map(|(pid, command)| ProcessLeft { pid, command }).collect();
    let left_running = !processes_left_running.is_empty() || child.as_ref().is_some_and(|c| c.status.is_none());
    Report {
        policy: run.name.to_string(),
        policy_spec: cfg.policy.clone(),
        interval_ms: cfg.interval_ms,
        machine: MachineReport::of(&m.machine),
        emulate: cfg.emulate.clone(),
        notes: run.notes.clone(),
        command: cfg.command.clone(),
        pids: cfg.pids.clone(),
        stopped_by: stopped_by.map_or(TARGET_EXITED.to_string(), signal_name),
        target: Target { wall_s: wall_ns as f64 / 1e9, status, left_running, processes_left_running },
        counters: counters_line(run, m),
        progress_rate: progress_rate_line(cfg.emulate.is_some(), m.machine.core_types.len()).to_string(),
        speedup: policy.diagnostics().and_then(|d| d.speedup_source()).unwrap_or_else(|| NO_SPEEDUP_SOURCE.to_string()),
        runtime_threads: m.runtime_threads.patterns().collect::<Vec<_>>().join(","),
        locks: match &s.locks {
            Some(t) if t.dropped() > 0 => format!("preload library ({} threads past the table's capacity unrecorded)", t.dropped()),
            Some(_) => "preload library".to_string(),
            None if cfg.command.is_empty() => "none (lock insight needs the agent to launch the command)".to_string(),
            None => "none (disabled)".to_string(),
        },
        guardian: match (&run.guardian_pid, m.ledger.as_ref().map_or(0, |l| l.unrecorded)) {
            (Ok(pid), 0) => format!("ready (pid {pid}): would have restored everything had the agent been killed"),
            (Ok(pid), n) => format!("ready (pid {pid}), but {n} records past its ledger's capacity would have been left as they were"),
            (Err(why), _) => format!("unavailable ({why}): had the agent been killed, nothing would have been restored"),
        },
        decisions,
        migrations: m.migrations,
        unmanaged_threads: m.extra.iter().filter_map(|e| e.unmanaged.clone()).collect(),
        decisions_not_applied: e.not_applied.total,
        not_applied: e.not_applied.entries.clone(),
        fast_share_rounds: FastShare { round_ms: e.shares.round_ns(run.interval_ns) as f64 / 1e6, round_switches: e.shares.switches },
        agent: AgentCost {
            cpu_s: cpu_ns as f64 / 1e9,
            cpu_share: if wall_ns > 0 { cpu_ns as f64 / wall_ns as f64 } else { 0.0 },
            samples,
            late_samples: late,
            mean_sample_ms: if samples > 0 { total_sample_ns as f64 / samples as f64 / 1e6 } else { 0.0 },
            max_sample_ms: max_sample_ns as f64 / 1e6,
            policy_calls: calls,
            ..AgentCost::default()
        },
        threads: report::threads(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_gone_before_it_is_watched_counts_as_exited_not_as_unwatchable() {
        // A child that exited and was reaped: its pid names no process (pid reuse within the
        // test is as unlikely as a wrap of the pid space).
        let mut child = std::process::Command::new("true").spawn().expect("spawn true");
        let pid = child.id();
        child.wait().expect("reap");
        let mut waiter = Waiter::new(None);
        waiter.watch(std::iter::once(pid));
        assert!(waiter.done.contains(&pid), "a reaped process is done");
        assert!(!waiter.missing, "ESRCH is an exit, not a missing pidfd (which would poll until the sample)");
        assert!(waiter.pidfds.is_empty());
        // Watched again (the monitor still lists it until its next look): not reopened.
        waiter.watch(std::iter::once(pid));
        assert!(waiter.pidfds.is_empty() && !waiter.missing);
    }
}
