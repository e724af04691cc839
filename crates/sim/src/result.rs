//! What a run produces, before metrics are derived from it.

use ampsched_model::machine::MAX_CORE_TYPES;
use ampsched_model::ThreadView;

#[derive(Debug, Clone)]
pub struct AppResult {
    pub name: String,
    pub threads: u32,
    pub runs: u32,
    /// Turnaround of each measured run, ns.
    pub turnarounds_ns: Vec<u64>,
    /// Every thread any run of this app created.
    pub thread_ids: Vec<u32>,
    /// Per pipeline queue (`App::queues`): the most items it held at once in any run.
    pub queue_peak: Vec<u32>,
}

impl AppResult {
    /// Mean turnaround over the measured runs, seconds.
    pub fn turnaround_s(&self) -> f64 {
        self.turnarounds_ns.iter().map(|&t| t as f64).sum::<f64>() / self.turnarounds_ns.len().max(1) as f64 / 1e9
    }
}

#[derive(Debug, Clone)]
pub struct CoreResult {
    pub id: u32,
    pub core_type: u32,
    pub busy_ns: u64,
    /// `busy_ns` split by the frequency level the core ran at (index = its type's `freq_levels_ghz`).
    pub busy_ns_by_level: Vec<u64>,
}

/// A thread's stay on a core, for traces and timelines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub core: u32,
    pub thread: u32,
    pub start_ns: u64,
    pub end_ns: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceMark {
    Decision { time_ns: u64, changed: u32 },
    Migration { time_ns: u64, thread: u32, from: u32, to: u32 },
}

#[derive(Debug, Clone)]
pub struct RunResult {
    pub makespan_ns: u64,
    pub events: u64,
    pub policy_calls: u64,
    /// Decisions of the policy that changed something (an affinity, share, slice, weight or frequency).
    pub decisions: u64,
    pub migrations: u64,
    /// Core-ns during which a core sat idle while some runnable thread waited for a core, on
    /// any core and whatever its affinity; at any moment at most as many cores as threads wait
    /// (`Engine::idle_while_waiting` says why).
    pub idle_while_waiting_ns: u64,
    pub apps: Vec<AppResult>,
    pub threads: Vec<ThreadView>,
    pub cores: Vec<CoreResult>,
    /// Which core types count as fast (the highest capacity).
    pub fast_types: [bool; MAX_CORE_TYPES],
    pub segments: Vec<Segment>,
    pub segments_dropped: u64,
    pub marks: Vec<TraceMark>,
    /// Per thread (by id): the sum of |SF estimate − true SF| over its samples and their
    /// number, where the policy gave estimates (`Diagnostics::sf_estimate`); empty otherwise.
    pub sf_error: Vec<(f64, u64)>,
    /// The rails' power by time window, if the run was asked for it (`SimConfig::power_sample_ns`).
    pub power_trace: Option<crate::power::PowerTrace>,
    /// What the task runtime measured, summed over the task apps' runs (all zero without one).
    pub task_runtime: crate::runtime::TaskRuntimeStats,
    /// The on-chip network and its queue spinlocks, for a machine with an `[interconnect]`
    /// (`nocsim`, docs/queue-spinlock.md); None for every other machine.
    pub noc: Option<crate::nocsim::NocResult>,
}

impl RunResult {
    pub fn fast_ns(&self, t: &ThreadView) -> u64 {
        t.per_type.iter().zip(self.fast_types).filter(|(_, f)| *f).map(|(c, _)| c.time_ns).sum()
    }

    /// Thread `t`'s mean absolute SF error, if it was sampled.
    pub fn sf_error_of(&self, t: u32) -> Option<f64> {
        self.sf_error.get(t as usize).filter(|e| e.1 > 0).map(|e| e.0 / e.1 as f64)
    }

    /// The mean absolute SF error over every sample of the run, if there was one.
    pub fn sf_error_mean(&self) -> Option<f64> {
        let (sum, n) = self.sf_error.iter().fold((0.0, 0), |(s, n), e| (s + e.0, n + e.1));
        (n > 0).then(|| sum / n as f64)
    }

    pub fn instructions(&self) -> f64 {
        self.threads.iter().flat_map(|t| t.per_type.iter()).map(|c| c.instructions).sum()
    }
}
