//! Fast-core shares, enforced as Kim & Huh do ("Exploring the Design Space of Fair Scheduling
//! Supports for Asymmetric Multicore Systems", IEEE Trans. Computers 2018, §6.2 "Periodic Core
//! Share Adjustment"): each thread counts the time it ran on fast and on slow cores; a fast
//! round is complete after share × round of fast-core time, a slow round after
//! (1 − share) × round of slow-core time, and the two rounds must proceed together, so a
//! thread ahead on one type is sent to the other.
//!
//! The engine asks for the side at the thread's slice boundaries (and when it wakes), so the
//! time on a side overshoots its quota by up to one slice; the overshoot is carried into the
//! next round, so the long-run share is exact and each round is off by at most one slice.

use ampsched_model::CoreSet;

use crate::engine::Engine;
use crate::local::LocalScheduler;

/// Kim & Huh's round (`defaults::SHARE_ROUND_NS`).
pub const DEFAULT_ROUND_NS: u64 = ampsched_model::defaults::SHARE_ROUND_NS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Fast,
    Slow,
}

/// One thread's share and round counters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShareRounds {
    share: f64,
    /// The fast-core time of a round, and the slow-core time, ns.
    fast_quota_ns: u64,
    slow_quota_ns: u64,
    /// Time on each side in the current round (with the previous round's overshoot).
    fast_ns: u64,
    slow_ns: u64,
    side: Side,
}

impl ShareRounds {
    /// A share in [0, 1] of each `round_ns`, starting on `side` (where the thread is now, so
    /// that setting a share does not move it before its quota there is used).
    pub fn new(share: f64, round_ns: u64, side: Side) -> ShareRounds {
        let fast_quota_ns = (share * round_ns as f64).round() as u64;
        ShareRounds { share, fast_quota_ns, slow_quota_ns: round_ns - fast_quota_ns, fast_ns: 0, slow_ns: 0, side }
    }

    /// The thread ran `ns` on a fast core (`on_fast`) or another core.
    #[inline]
    pub fn charge(&mut self, on_fast: bool, ns: u64) {
        if on_fast {
            self.fast_ns += ns;
        } else {
            self.slow_ns += ns;
        }
    }

    /// The side the thread runs on next: it stays until its quota there is used, then goes to
    /// the other; when both are used, a new round begins.
    pub fn next_side(&mut self) -> Side {
        loop {
            let fast_done = self.fast_ns >= self.fast_quota_ns;
            let slow_done = self.slow_ns >= self.slow_quota_ns;
            match (fast_done, slow_done) {
                (true, true) => {
                    self.fast_ns -= self.fast_quota_ns;
                    self.slow_ns -= self.slow_quota_ns;
                }
                (true, false) => self.side = Side::Slow,
                (false, true) => self.side = Side::Fast,
                (false, false) => {}
            }
            if !(fast_done && slow_done) {
                return self.side;
            }
        }
    }

    /// The fraction of the thread's CPU time it should have on fast cores.
    pub fn share(&self) -> f64 {
        self.share
    }

    pub fn side(&self) -> Side {
        self.side
    }
}

/// The cores a thread with `affinity` may use on `side`. When either side of its affinity is
/// empty the share cannot be honoured, and the thread keeps its whole affinity.
pub fn cores_on_side(affinity: &CoreSet, fast: &CoreSet, side: Side) -> CoreSet {
    let on_fast = affinity.intersection(fast);
    let on_slow = affinity.difference(fast);
    if on_fast.is_empty() || on_slow.is_empty() {
        return affinity.clone();
    }
    match side {
        Side::Fast => on_fast,
        Side::Slow => on_slow,
    }
}

/// The shares' part of the engine: a thread's rounds (`Engine::shares`) narrow the cores it may
/// run on now (`Engine::allowed`).
impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// Recompute the cores `t` may run on now from its affinity and its share's side; true if
    /// they changed.
    pub(crate) fn narrow_allowed(&mut self, t: u32) -> bool {
        let affinity = &self.book.threads[t as usize].allowed;
        let allowed = match &self.shares[t as usize] {
            Some(share) => cores_on_side(affinity, &self.fast_cores, share.side()),
            None => affinity.clone(),
        };
        let changed = allowed != self.allowed[t as usize];
        self.allowed[t as usize] = allowed;
        changed
    }

    /// A slice boundary of a thread with a share: its round may send it to the other side.
    pub(crate) fn turn_share_round(&mut self, t: u32) -> bool {
        if let Some(share) = &mut self.shares[t as usize] {
            share.next_side();
        }
        self.narrow_allowed(t)
    }
}
