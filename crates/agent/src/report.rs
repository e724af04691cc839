//! The agent's `--json` report: what the target did under the policy, what the agent applied and
//! could not, and what the agent itself cost. Field order is the report's key order.

use ampsched_model::{Machine, ThreadState};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::cores::format_ranges;
use crate::enforce::NotAppliedEntry;
use crate::monitor::Monitor;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExitStatus {
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    /// Only for a launched command the agent left running (present and true, or absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub still_running: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub policy: String,
    pub policy_spec: String,
    pub interval_ms: f64,
    pub machine: MachineReport,
    pub emulate: Option<String>,
    /// What the user should know of the run, one line each: the policy had nothing to do (one
    /// core type), the trace left slices out. The CLI prints them on stderr at the end.
    pub notes: Vec<String>,
    pub command: Vec<String>,
    pub pids: Vec<u32>,
    pub stopped_by: String,
    pub target: Target,
    /// What hardware counters were read, or why none.
    pub counters: String,
    /// Where the policy's speedup predictions came from (`Diagnostics::speedup_source`).
    pub speedup: String,
    /// What each thread's CPU-time progress rate per core type (`Signals::PROGRESS`, the
    /// efficiency source without counters) is worth on this machine (`agent::progress_rate_line`).
    pub progress_rate: String,
    /// The thread-name patterns that made threads runtime helpers (`--runtime-threads`).
    pub runtime_threads: String,
    pub locks: String,
    /// The guardian process, which restores what the agent changed if the agent is killed.
    pub guardian: String,
    /// Decisions that changed something.
    pub decisions: u64,
    pub migrations: u64,
    pub unmanaged_threads: Vec<String>,
    pub decisions_not_applied: u64,
    pub not_applied: Vec<NotAppliedEntry>,
    /// Fast-core share rounds: their length, and the affinity changes they made.
    pub fast_share_rounds: FastShare,
    pub agent: AgentCost,
    pub threads: Vec<ThreadReport>,
}

#[derive(Debug, Serialize)]
pub struct MachineReport {
    pub name: String,
    pub core_types: Vec<CoreTypeReport>,
}

#[derive(Debug, Serialize)]
pub struct CoreTypeReport {
    pub name: String,
    pub cpus: String,
    pub capacity: u32,
}

#[derive(Debug, Serialize)]
pub struct Target {
    pub wall_s: f64,
    pub status: Option<ExitStatus>,
    /// Some target process still runs as the agent ends.
    pub left_running: bool,
    /// Which, with their affinities (and nice values, slices) restored.
    pub processes_left_running: Vec<ProcessLeft>,
}

#[derive(Debug, Serialize)]
pub struct ProcessLeft {
    pub pid: u32,
    /// Its name (comm) as the agent ends.
    pub command: String,
}

#[derive(Debug, Serialize)]
pub struct FastShare {
    pub round_ms: f64,
    pub round_switches: u64,
}

#[derive(Debug, Default, Serialize)]
pub struct AgentCost {
    pub cpu_s: f64,
    pub cpu_share: f64,
    pub samples: u64,
    pub late_samples: u64,
    pub mean_sample_ms: f64,
    pub max_sample_ms: f64,
    pub policy_calls: u64,
    pub affinities_restored: usize,
    pub threads_vanished_before_restore: usize,
    pub emulation_threads_stopped: usize,
    pub nice_values_restored: usize,
    pub slices_restored: usize,
    pub cpufreq_files_restored: usize,
}

#[derive(Debug, Serialize)]
pub struct ThreadReport {
    pub tid: u32,
    pub pid: u32,
    pub comm: String,
    pub app: u32,
    pub kind: String,
    /// Core type name → seconds on it.
    pub time_s: Map<String, Value>,
    pub run_queue_wait_s: f64,
    pub migrations: u32,
    pub decisions: u32,
    /// The Linux CPUs the thread was last allowed (its affinity as the policy left it, or as
    /// the agent found it if no decision named it), as ranges ("0", "0-3,6"); what a test of a
    /// placement reads. Its original comes back when the agent ends.
    pub affinity: String,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
    pub lock_wait_s: f64,
    pub lock_wait_caused_s: f64,
    pub contended_locks: u64,
    /// Time spun on busy pthread spinlocks (preload library).
    pub spin_s: f64,
    pub exited: bool,
    /// Core type name → counts, where hardware counters were read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counters: Option<Map<String, Value>>,
}

/// A thread's hardware counts on one core type.
#[derive(Debug, Serialize)]
pub struct Counts {
    pub instructions: f64,
    pub cycles: f64,
    pub llc_misses: f64,
}

impl MachineReport {
    pub fn of(m: &Machine) -> MachineReport {
        let core_types = m
            .core_types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let cpus: Vec<usize> = m.cores.iter().filter(|c| c.core_type == i).map(|c| c.cpu).collect();
                CoreTypeReport { name: t.name.clone(), cpus: format_ranges(&cpus), capacity: t.capacity }
            })
            .collect();
        MachineReport { name: m.name.clone(), core_types }
    }
}

/// Every thread the monitor has seen, in `ThreadId` order.
pub fn threads(m: &Monitor) -> Vec<ThreadReport> {
    let types: Vec<&str> = m.machine.core_types.iter().map(|t| t.name.as_str()).collect();
    let counted = m.counting.as_ref().is_some_and(|c| c.threads_counted > 0);
    m.book
        .threads
        .iter()
        .zip(&m.extra)
        .map(|(t, e)| {
            let per_type = |f: &dyn Fn(usize) -> Value| -> Map<String, Value> { types.iter().enumerate().map(|(i, name)| (name.to_string(), f(i))).collect() };
            let counters = counted.then(|| {
                per_type(&|i| {
                    let c = &t.per_type[i];
                    let counts = Counts { instructions: c.instructions, cycles: c.cycles, llc_misses: c.llc_misses };
                    serde_json::to_value(counts).expect("plain numbers serialize")
                })
            });
            ThreadReport {
                tid: e.tid,
                pid: e.pid,
                comm: e.comm.clone(),
                app: t.app,
                kind: format!("{:?}", t.kind).to_lowercase(),
                time_s: per_type(&|i| Value::from(t.per_type[i].time_ns as f64 / 1e9)),
                run_queue_wait_s: e.wait_ns as f64 / 1e9,
                migrations: t.migrations,
                decisions: e.decisions,
                affinity: format_ranges(&m.mask_of(&t.allowed).cpus()),
                voluntary_switches: e.voluntary_switches,
                involuntary_switches: e.involuntary_switches,
                lock_wait_s: t.lock_wait_ns as f64 / 1e9,
                lock_wait_caused_s: t.lock_wait_caused_ns as f64 / 1e9,
                contended_locks: e.contended_locks,
                spin_s: t.spin_ns as f64 / 1e9,
                exited: t.state == ThreadState::Exited,
                counters,
            }
        })
        .collect()
}
