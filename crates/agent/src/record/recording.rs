//! What `ampsched record` measures of a live run, before any inference: the raw recording.
//!
//! Two sources fill it. The agent's samples (every `--interval`, from /proc, as `monitor.rs`
//! reads them) give each thread's CPU time, run-queue wait and state, and so the time it spent
//! off the CPU. The preload library (preload/ampsched_locks.c), when the agent launched the
//! command, logs the synchronisation events it can see, each stamped with CLOCK_MONOTONIC and
//! the thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID) so that an event has a place in the
//! thread's sequence of work. The converter (`record::convert`) turns this into a workload file;
//! everything it infers (barriers, the holder's critical sections, compression) is inferred
//! there, never here. Serialised as JSON (`ampsched record --raw FILE`) for inspection and tests.

use serde::{Deserialize, Serialize};

/// The format's version; a raw file of another version is refused.
pub const RECORDING_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    pub version: u32,
    /// The command and its arguments, only with `--keep-command` (privacy: none by default).
    pub command: Option<Vec<String>>,
    /// The machine the run was on, as a machine TOML the simulator reads (what `topology
    /// --save` writes for the same `--cores`/`--emulate`/`--machine`).
    pub machine_toml: String,
    /// The policy the recording run used (`oblivious` unless `--policy`).
    pub policy: String,
    pub interval_ns: u64,
    /// The command's wall time, ns (the agent's report's).
    pub wall_ns: u64,
    /// The command's exit status (a signal number as 128 + N).
    pub exit_status: i32,
    /// Whether instructions, cycles and LLC misses were counted (a machine with a PMU).
    pub counters: bool,
    /// Whether the preload library's event log was active (a launched, dynamically linked
    /// command); false for `--pid` and static binaries: no synchronisation events then.
    pub events_logged: bool,
    /// What the reader of the file must know of how it was recorded: why no events were logged
    /// (`--pid`, a static binary), what the library could not see. For the converted file's
    /// comment block. Absent in older raw files: empty.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Events the log could not hold (the agent fell behind its ring buffer): a recording with
    /// any is incomplete, and the converter refuses it unless told to accept the loss.
    pub events_lost: u64,
    /// Why the recording is partial (the agent stopped early, a signal, threads past the
    /// table's capacity), None when it is whole. A partial recording is never converted
    /// silently as if whole.
    pub incomplete: Option<String>,
    /// Per core type of `machine_toml` (same order): the work a CPU-second there does, relative
    /// to a CPU-second on the machine's fastest type. 1.0 on an emulated slow CPU (the emulator
    /// steals time, it does not slow the clock: CPU time there is full-speed work) and on the
    /// fastest type; a real slow type's speed otherwise.
    pub work_per_cpu_s: Vec<f64>,
    /// Threads in the order the agent first saw them (creation order, the first the command's
    /// main thread). A thread the preload library logged (Create) that started and exited between
    /// two samples, never seen by the agent, comes after them, with no samples: its lifetime and
    /// CPU time are its Create and Exit events' (`first_seen_ns` its creation, `exit_ns` its exit).
    pub threads: Vec<RecordedThread>,
    /// The preload library's events, in time order.
    pub events: Vec<SyncEvent>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedThread {
    pub tid: u32,
    pub pid: u32,
    /// Its name (comm) as last seen.
    pub comm: String,
    /// The thread that created it (a `Create` event), None for the first thread of the command
    /// or when the library did not see the creation (a fork, a static binary, `--pid`).
    pub parent: Option<u32>,
    /// ns from the recording's start (the agent's first sample).
    pub first_seen_ns: u64,
    /// When it was last seen alive (exited before the next sample), None if alive at the end.
    pub exit_ns: Option<u64>,
    /// One per agent sample at which the thread was alive, in time order.
    pub samples: Vec<Sample>,
}

/// A thread at one sample. Cumulative values since the thread started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// ns from the recording's start.
    pub t_ns: u64,
    /// CPU time (schedstat), ns.
    pub cpu_ns: u64,
    /// Run-queue wait (schedstat), ns.
    pub runq_ns: u64,
    /// Its CPU time on each core type (index as `work_per_cpu_s`), ns.
    pub cpu_ns_per_type: Vec<u64>,
    /// Where counters exist: instructions, cycles, LLC misses (user space).
    pub instructions: Option<u64>,
    pub cycles: Option<u64>,
    pub llc_misses: Option<u64>,
    /// /proc state letter at the sample (R, S, D, ...).
    pub state: char,
}

/// A synchronisation event the preload library logged. Times are ns from the recording's
/// start; `cpu_ns` is the acting thread's CPU clock at the event's start (its position in the
/// thread's work).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SyncEvent {
    /// `parent` created thread `child` (pthread_create; logged by the child as it starts).
    /// `t_ns` and `parent_cpu_ns` are the parent's, at its call of pthread_create (the child
    /// may start later, or run before the parent returns).
    Create { t_ns: u64, parent: u32, parent_cpu_ns: u64, child: u32 },
    /// Thread `tid` returned from its start routine, called pthread_exit or was cancelled
    /// (threads ended by their process's exit log none).
    Exit { t_ns: u64, tid: u32, cpu_ns: u64 },
    /// A contended pthread_mutex_lock: `tid` waited from `start_ns` to `end_ns` for mutex `lock`
    /// (its address), held at the start by `holder` (0: unknown).
    MutexWait { lock: u64, tid: u32, holder: u32, start_ns: u64, end_ns: u64, cpu_ns: u64 },
    /// pthread_mutex_unlock of `lock` by `tid` while glibc's lock word said a thread may be
    /// waiting on it (so the holder's critical section has an end in its own work). "May": glibc
    /// leaves the word at "waiters" after a woken waiter takes the lock, so a release after the
    /// last waiter got it can be logged too; pair releases with `MutexWait`s by lock and time.
    MutexRelease { lock: u64, tid: u32, t_ns: u64, cpu_ns: u64 },
    /// pthread_cond_wait / pthread_cond_timedwait on `cond` from `start_ns` to `end_ns`.
    /// `timed_out`: a timed wait that ended by its timeout.
    CondWait { cond: u64, tid: u32, start_ns: u64, end_ns: u64, cpu_ns: u64, timed_out: bool },
    /// pthread_cond_signal (`broadcast` false) or pthread_cond_broadcast on `cond`, logged only
    /// when the condition variable had waiters (a signal without any wakes nobody, and glibc
    /// returns at once then too).
    CondSignal { cond: u64, tid: u32, t_ns: u64, cpu_ns: u64, broadcast: bool },
    /// pthread_join of thread `target` (its Linux tid; 0 when the library did not see it
    /// created) by `tid`.
    Join { tid: u32, target: u32, start_ns: u64, end_ns: u64, cpu_ns: u64 },
    /// pthread_barrier_wait on `barrier` (its address) by `tid`, from `start_ns` to `end_ns`:
    /// every call, the last arrival's too (it does not block, but it is one of the parties).
    /// `serial`: it returned PTHREAD_BARRIER_SERIAL_THREAD (one thread per round; glibc's last
    /// to arrive, nptl/pthread_barrier_wait.c).
    BarrierWait { barrier: u64, tid: u32, start_ns: u64, end_ns: u64, cpu_ns: u64, serial: bool },
}
