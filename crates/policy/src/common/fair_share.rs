//! Sharing fast cores equally among a set of threads by balance counters and swaps of expired
//! threads: the mechanism of HAFS (Sáez thesis, §4.2.4, Algorithm 4.4), used by `rr` for every
//! thread and by CAMP for its HIGH-utility threads (§6.2.1: "the cores will be shared among
//! these threads equally, using a round-robin mechanism").
//!
//! Each sharing thread keeps a balance counter (BC) of how far it is behind its fair fast share:
//! BC += α·Δslow − (1−α)·Δfast, α the fair fraction of fast time. A thread whose BC passes
//! +threshold on the slow side, or −threshold on the fast side, has expired; expired threads are
//! swapped pairwise, oldest expiry first on each side (FIFO). Without a partner a thread stays.
//! The fast side is the fastest partition, the slow side every other one.

use ampsched_model::{Placement, SystemView, ThreadId, ThreadState, MAX_CORE_TYPES};

use super::filing::Filing;
use super::partition::{Claim, Level, Partitions, FAST};
use super::per_thread::PerThread;

/// Not in Algorithm 4.4 (a departure of ours, the thesis leaving BC's range open): a thread that
/// got fast time nobody else wanted is not made to pay it back beyond this many thresholds, or
/// it would be kept off fast cores long after others arrive.
const BC_CLAMP_THRESHOLDS: f64 = 2.0;

#[derive(Debug, Clone)]
pub struct FairShare {
    threshold_ns: f64,
    bc: PerThread<f64>,
    /// When the thread expired on its current side: candidates are matched oldest first (FIFO).
    expired_at: PerThread<Option<u64>>,
    /// Threads whose side, runnability or life changed since the last update: with those that
    /// ran, the only ones whose expiry can have changed, so an update costs O(those).
    touched: Vec<ThreadId>,
    is_touched: PerThread<bool>,
    /// Runnable expired threads of each side (0 fast, 1 slow), oldest expiry first: the FIFO
    /// lists Algorithm 4.4 pairs, and where each thread is filed in them.
    candidates: Filing<u64>,
    /// The threads the last update brought up to date.
    updated: Vec<ThreadId>,
}

impl FairShare {
    pub fn new(threshold_ns: f64) -> Self {
        FairShare {
            threshold_ns,
            bc: PerThread::new(),
            expired_at: PerThread::new(),
            touched: Vec::new(),
            is_touched: PerThread::new(),
            candidates: Filing::new(2),
            updated: Vec::new(),
        }
    }

    /// Thread `t`'s balance counter, ns of CPU time behind its fair fast share.
    pub fn bc(&self, t: ThreadId) -> f64 {
        self.bc.value(t)
    }

    /// Thread `t` starts sharing afresh: no debt, no credit, not expired.
    pub fn reset(&mut self, t: ThreadId) {
        self.bc.set(t, 0.0);
        self.expired_at.set(t, None);
        self.candidates.file(t, None);
    }

    /// Look at thread `t` again at the next update (its side, runnability or life changed).
    pub fn touch(&mut self, t: ThreadId) {
        if !std::mem::replace(self.is_touched.get_mut(t), true) {
            self.touched.push(t);
        }
    }

    /// File thread `t` in the candidate list of its side if it is runnable, expired and sharing
    /// (`level`: its partition while it shares, None while it does not).
    pub fn refile(&mut self, view: &SystemView, t: ThreadId, level: Option<Level>) {
        let runnable = view.thread(t).state.is_runnable();
        let want = match (runnable, level, self.expired_at.value(t)) {
            (true, Some(level), Some(at)) => Some((usize::from(level != FAST), at)),
            _ => None,
        };
        self.candidates.file(t, want);
    }

    /// Bring the balance counters up to date with the last quantum's CPU time, α being the fair
    /// fraction of fast time and `fast_types` the core types that count as fast. `level` gives a
    /// sharing thread's partition, None for a thread that does not share (its counter is left
    /// as it is). A thread that did not run and did not change keeps its counter and its expiry.
    /// `updated` lists the threads whose counter it brought up to date.
    pub fn update(&mut self, view: &SystemView, alpha: f64, fast_types: &[bool; MAX_CORE_TYPES], level: impl Fn(ThreadId) -> Option<Level>) {
        let clamp = BC_CLAMP_THRESHOLDS * self.threshold_ns;
        for &t in view.ran {
            self.touch(t);
        }
        self.updated.clear();
        let touched = std::mem::take(&mut self.touched);
        for &t in &touched {
            *self.is_touched.get_mut(t) = false;
            if view.thread(t).state == ThreadState::Exited {
                continue;
            }
            let Some(at_level) = level(t) else {
                self.expired_at.set(t, None);
                self.refile(view, t, None);
                continue;
            };
            let interval = view.interval_of(t);
            let d_fast: u64 = interval.iter().zip(fast_types).filter(|&(_, &fast)| fast).map(|(c, _)| c.time_ns).sum();
            let d_total: u64 = interval.iter().map(|c| c.time_ns).sum();
            let bc = self.bc.get_mut(t);
            *bc = (*bc + alpha * (d_total - d_fast) as f64 - (1.0 - alpha) * d_fast as f64).clamp(-clamp, clamp);
            let bc = *bc;
            let expired = if at_level == FAST { bc < -self.threshold_ns } else { bc > self.threshold_ns };
            let at = self.expired_at.get_mut(t);
            *at = if expired { Some(at.unwrap_or(view.now_ns)) } else { None };
            self.refile(view, t, Some(at_level));
            self.updated.push(t);
        }
        self.touched = touched;
        self.touched.clear();
    }

    /// The threads whose counter the last `update` brought up to date.
    pub fn updated(&self) -> &[ThreadId] {
        &self.updated
    }

    /// Algorithm 4.4: pair expired fast threads with expired slow threads, oldest expiry first
    /// on each side, and swap each pair.
    pub fn swap_expired<C: Claim>(&mut self, view: &SystemView, parts: &mut Partitions<C>, out: &mut Placement) {
        let pairs: Vec<(ThreadId, ThreadId)> = self.candidates.set(0).iter().zip(self.candidates.set(1).iter()).map(|(&(_, f), &(_, s))| (f, s)).collect();
        for (f, s) in pairs {
            parts.swap(view, f, s, out);
            for t in [f, s] {
                self.expired_at.set(t, None);
                self.refile(view, t, parts.level(t));
            }
        }
    }
}
