//! `cats`: the Criticality-Aware Task Scheduler (Chronaki et al., "Criticality-Aware Dynamic
//! Task Scheduling for Heterogeneous Architectures", ICS 2015), as Nanos++'s `botlev` plugin
//! implements it (src/plugins/sched/botlev_sched.cpp):
//! - each task's bottom level (the longest path from it to a leaf of the graph known so far) is
//!   raised as successors are created: `pred.blev = max(pred.blev, succ.blev + 1)`, propagated
//!   up the unfinished predecessors (`mod.rs`, at each dependence);
//! - when a task becomes ready it is critical if its bottom level is above the highest seen
//!   (`maxBL`, raised to it), or equal to it (not `strict`), or if it is a successor of the last
//!   critical task with a bottom level of at least `maxBL - 1`;
//! - critical tasks go to the high-priority queue (q1), the others to the low-priority one (q0),
//!   both ordered by bottom level (highest first; first come first among equals);
//! - big cores pop q1 first and, when it is empty, retry `numSpins` (300) times before taking
//!   from q0; little cores pop q0 only (`steal` = 0: they never take critical tasks).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `BotLevCfg::numSpins`: a big core's retries of the critical queue before it takes a
/// non-critical task (Nanos++ botlev default 300).
pub const NUM_SPINS: u64 = 300;
/// Instructions of one retry: an emptiness check of the queue, outside its lock (a load, a
/// compare, a branch and the loop), ~10 per iteration as a spin loop's
/// (`ampsched_model::workload::CYCLES_PER_SPIN_ITERATION`).
pub const SPIN_INSTRUCTIONS: f64 = NUM_SPINS as f64 * ampsched_model::workload::CYCLES_PER_SPIN_ITERATION as f64;
/// `BotLevCfg::maxBL`: the highest bottom level seen at the start.
pub const INITIAL_MAX_BL: u32 = 1;
/// `BotLevCfg::strict`: 0, so a task at the highest bottom level seen is critical too.
pub const STRICT: bool = false;

/// The two queues a claim names.
pub const LOW: usize = 0;
pub const HIGH: usize = 1;

#[derive(Debug, Clone)]
pub(crate) struct Cats {
    /// [q0, q1], keyed by (bottom level, first come).
    queues: [BinaryHeap<(u32, Reverse<u64>, u32)>; 2],
    unclaimed: [u64; 2],
    seq: u64,
    max_bl: u32,
    last_critical: Option<u32>,
}

impl Default for Cats {
    fn default() -> Self {
        Cats { queues: [BinaryHeap::new(), BinaryHeap::new()], unclaimed: [0; 2], seq: 0, max_bl: INITIAL_MAX_BL, last_critical: None }
    }
}

impl Cats {
    /// botlev's test at submission; `after_last` says whether the task is a successor of the
    /// last critical task (`is_successor_of` in `mod.rs`).
    pub fn is_critical(&mut self, task: u32, blev: u32, after_last: impl Fn(u32) -> bool) -> bool {
        let critical = if blev > self.max_bl {
            self.max_bl = blev;
            true
        } else if !STRICT && blev == self.max_bl {
            true
        } else {
            self.last_critical.is_some_and(&after_last) && blev + 1 >= self.max_bl
        };
        if critical {
            self.last_critical = Some(task);
        }
        critical
    }

    pub fn push(&mut self, task: u32, blev: u32, critical: bool) {
        let q = if critical { HIGH } else { LOW };
        self.seq += 1;
        self.queues[q].push((blev, Reverse(self.seq), task));
        self.unclaimed[q] += 1;
    }

    /// A big core claims from q1, else q0; a little core from q0 only.
    pub fn claim(&mut self, big: bool) -> Option<usize> {
        let order: &[usize] = if big { &[HIGH, LOW] } else { &[LOW] };
        let q = order.iter().copied().find(|&q| self.unclaimed[q] > 0)?;
        self.unclaimed[q] -= 1;
        Some(q)
    }

    /// Whether a thread on a big (or little) core could claim a task now.
    pub fn claimable(&self, big: bool) -> bool {
        self.unclaimed[LOW] > 0 || (big && self.unclaimed[HIGH] > 0)
    }

    pub fn pop(&mut self, q: usize) -> Option<u32> {
        self.queues[q].pop().map(|(_, _, t)| t)
    }
}
