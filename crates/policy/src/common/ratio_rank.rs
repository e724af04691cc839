//! Ranking threads by a fast/slow performance ratio and swapping the pairs that break the
//! ranking: the thread-swapping mechanism of IPC-Driven (Sáez thesis, §4.2.3, Algorithm 4.3),
//! which has the shape of HASS-D's event-driven migration (Algorithm 4.2).
//!
//! The ranked threads are the *pinned* ones (Algorithm 4.3's Fp and Sp): runnable, with a ratio,
//! and eligible for swapping; which threads those are is the policy's to say. The invariant the
//! algorithm keeps: every pinned thread on the fast side has a ratio at least that of every
//! pinned thread on the slow side. When a thread enters the pinned sets (its ratio was just
//! measured, or it became eligible again), at most one swap restores it:
//!
//! ```text
//! if t is on the fast side: tsc <- the slow pinned thread of highest ratio; swap if ratio(t) < ratio(tsc)
//! else:                     tfc <- the fast pinned thread of lowest ratio;  swap if ratio(t) > ratio(tfc)
//! ```
//!
//! Two sides: the fast side is the fastest partition, the slow side every other one (on the
//! thesis's machines, one slow partition).

use ampsched_model::ThreadId;

use super::filing::Filing;
use super::key::F64Key;
use super::partition::{Level, FAST};

/// Which side of Algorithm 4.3 a partition is on: 0 fast, 1 slow.
pub fn side(level: Level) -> usize {
    usize::from(level != FAST)
}

#[derive(Debug, Clone)]
pub struct RatioRank {
    /// The pinned threads of each side (0 fast, 1 slow), by ratio, ties by id.
    pinned: Filing<F64Key>,
}

impl Default for RatioRank {
    fn default() -> Self {
        Self::new()
    }
}

impl RatioRank {
    pub fn new() -> Self {
        RatioRank { pinned: Filing::new(2) }
    }

    /// Thread `t` is pinned on the side of partition `level` with ratio `ratio`; or (None) not pinned.
    pub fn pin(&mut self, t: ThreadId, at: Option<(Level, f64)>) {
        self.pinned.file(t, at.map(|(level, ratio)| (side(level), F64Key(ratio))));
    }

    pub fn is_pinned(&self, t: ThreadId) -> bool {
        self.pinned.filed(t).is_some()
    }

    /// Algorithm 4.3 for a thread `t` entering the pinned sets on the side of partition `level`
    /// with ratio `ratio`: the pinned thread of the other side to swap it with, if the ranking
    /// needs a swap. Ties go to the lowest id; equal ratios never swap.
    pub fn partner(&self, t: ThreadId, level: Level, ratio: f64) -> Option<ThreadId> {
        if side(level) == 0 {
            let slow = self.pinned.set(1);
            let &(top, _) = slow.iter().rev().find(|&&(_, u)| u != t)?;
            // The highest ratio, lowest id among equals.
            let &(_, tsc) = slow.range((top, 0)..).find(|&&(_, u)| u != t)?;
            (ratio < top.0).then_some(tsc)
        } else {
            let &(low, tfc) = self.pinned.set(0).iter().find(|&&(_, u)| u != t)?;
            (ratio > low.0).then_some(tfc)
        }
    }
}
