//! Fast-core shares, enforced as Kim & Huh's modified CFS does (Kim & Huh, "Exploring the Design
//! Space of Fair Scheduling Supports for Asymmetric Multicore Systems", IEEE Trans. Computers
//! 2018, §6.2 "Periodic Core Share Adjustment"; docs/fast-core-shares.md):
//!
//! - each thread with a share counts its fast and slow rounds (`ampsched_model::share_rounds`):
//!   a round is `SimConfig::share_round_ns` (30 ms) of CPU time split by the share;
//! - a thread runs on one side (its "next core type"); sides change only in pairs: "when a thread
//!   gets a timer tick on a fast core, the scheduler compares its fast_round with slow_round. If
//!   fast_round is greater than slow_round, the scheduler searches another thread on a slow core
//!   whose fast_round is less than slow_round. If such a thread is found, two threads swap their
//!   next core types to run": both move at once, each to the other's core;
//! - work conservation (§6: "no fast core must become idle, when some tasks are running on slow
//!   cores, except for a very short transition period"): a fast core with nothing to run takes a
//!   thread with a share from the slow side, waiting or running; a slow core with nothing to run
//!   takes one waiting for a fast core; a thread with a share that becomes runnable goes to an idle
//!   core of the other side rather than wait on its own. Such a move changes the thread's side and
//!   its time there is charged to its rounds as any other: what it got beyond its share it hands
//!   back at later swaps, so the long-run share stays exact; what no swap can hand back (nobody is
//!   behind to take it) is forgiven past `share_rounds::MAX_LEAD_ROUNDS`.
//!
//! The tick is the end of the running thread's slice (`SimConfig::slice_ns`, 4 ms): the engine's
//! own per-core event, which a busy core gets every slice whether or not it switches threads, and
//! the period of Linux's scheduler tick at its default HZ = 250 (Linux kernel/Kconfig.hz, also
//! in the 3.10 kernel Kim & Huh modified; they do not give theirs). A periodic tick of its own would cost an event per core per tick and
//! would only move the swap inside a slice.
//!
//! Kim & Huh describe the rule on fast-core ticks only. The mirror rule on slow-core ticks (a
//! thread behind on a slow core looks for one ahead on a fast core) is an option
//! (`SimConfig::share_swap_from_slow`, off by default): it finds the same pairs, at most a slice
//! earlier, since every fast core is busy (work conservation) and so ticks every slice.
//!
//! A share whose thread's affinity lacks either side cannot be honoured: the thread keeps its
//! whole affinity and takes no part in swaps or the moves above.

use ampsched_model::share_rounds::Rounds;
use ampsched_model::{CoreSet, ThreadState};

use crate::engine::Engine;
use crate::local::{LocalScheduler, SchedView};

/// Kim & Huh's round (`defaults::SHARE_ROUND_NS`).
pub const DEFAULT_ROUND_NS: u64 = ampsched_model::defaults::SHARE_ROUND_NS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Fast,
    Slow,
}

/// One thread's share: its rounds and the side it runs on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShareThread {
    pub rounds: Rounds,
    /// None until it is first queued after the share was set: the local scheduler then chooses
    /// among its whole affinity, and the side is where it went.
    pub side: Option<Side>,
    /// Its affinity has cores on both sides, so the share is honoured.
    pub honoured: bool,
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

/// The shares' part of the engine: a thread's side (`Engine::shares`) narrows the cores it may
/// run on now (`Engine::allowed`); swaps and work conservation change sides.
impl<'a, S: LocalScheduler> Engine<'a, S> {
    fn side_of_core(&self, c: usize) -> Side {
        if self.fast_cores.contains(c) {
            Side::Fast
        } else {
            Side::Slow
        }
    }

    /// Thread `t`'s share, if it has one that is honoured.
    fn honoured(&self, t: u32) -> Option<&ShareThread> {
        self.shares[t as usize].as_deref().filter(|s| s.honoured)
    }

    /// Recompute the cores `t` may run on now from its affinity and its side; true if they changed.
    pub(crate) fn narrow_allowed(&mut self, t: u32) -> bool {
        let affinity = &self.book.threads[t as usize].allowed;
        let allowed = match self.shares[t as usize].as_ref().and_then(|s| s.side) {
            Some(side) => cores_on_side(affinity, &self.fast_cores, side),
            None => affinity.clone(),
        };
        let changed = allowed != self.allowed[t as usize];
        self.allowed[t as usize] = allowed;
        changed
    }

    /// Thread `t`'s share ends (`None` from the policy, or it exited): it leaves the swaps'
    /// candidates, which a run of restarting threads would otherwise grow without end.
    pub(crate) fn end_share(&mut self, t: u32) {
        self.shares[t as usize] = None;
        self.sharing.retain(|&x| x != t);
    }

    fn set_side(&mut self, t: u32, side: Side) {
        if let Some(s) = self.shares[t as usize].as_mut() {
            s.side = Some(side);
        }
        self.narrow_allowed(t);
    }

    /// Thread `t`'s rounds as of now: a running thread's time since it was last accounted is
    /// counted on a copy (the engine accounts a core at its own events), so that a partner's
    /// rounds are judged at the tick's time, not at its last slice end.
    fn rounds_now(&self, t: u32, s: &ShareThread, on: usize) -> Rounds {
        let mut rounds = s.rounds;
        if self.running[on] == Some(t) {
            rounds.charge(self.fast_cores.contains(on), self.now - self.cores[on].seg_start);
        }
        rounds
    }

    /// A core of `side` in `t`'s affinity with nothing running or queued: the core it last ran
    /// on if it is one (its cache may still be there), else the lowest.
    fn idle_core_on(&self, t: u32, side: Side) -> Option<usize> {
        let affinity = &self.book.threads[t as usize].allowed;
        let cores = match side {
            Side::Fast => affinity.intersection(&self.fast_cores),
            Side::Slow => affinity.difference(&self.fast_cores),
        };
        let idle = |c: usize| self.running[c].is_none() && self.sched.queue_len(c) == 0;
        match self.last_ran[t as usize].map(|c| c as usize) {
            Some(last) if cores.contains(last) && idle(last) => Some(last),
            _ => cores.iter().find(|&c| idle(c)),
        }
    }

    /// The side a thread with a share is queued on when it becomes runnable: the first time an
    /// idle fast core, else where the local scheduler puts it; later its side, unless a core of
    /// the other side is idle while none of its own is (work conservation). Returns the core to
    /// queue it on, if chosen.
    pub(crate) fn place_share(&mut self, t: u32) -> Option<usize> {
        let s = *self.honoured(t)?;
        let Some(side) = s.side else {
            let c = match self.idle_core_on(t, Side::Fast) {
                Some(c) => c,
                None => self.sched.select_core(&SchedView::new(&self.allowed, &self.last_ran, &self.running), t),
            };
            self.set_side(t, self.side_of_core(c));
            return Some(c);
        };
        let other = if side == Side::Fast { Side::Slow } else { Side::Fast };
        if self.idle_core_on(t, side).is_none() {
            if let Some(c) = self.idle_core_on(t, other) {
                self.set_side(t, other);
                return Some(c);
            }
        }
        None
    }

    /// A tick (slice end) of `t`, which has a share, on core `c`: the swap of §6.2. True if `t`
    /// left `c`.
    pub(crate) fn share_tick(&mut self, t: u32, c: usize) -> bool {
        let Some(s) = self.honoured(t) else { return false };
        let on_fast = self.fast_cores.contains(c);
        let partner = if on_fast && s.rounds.ahead() {
            self.partner(Side::Slow)
        } else if !on_fast && self.cfg.share_swap_from_slow && s.rounds.behind() {
            self.partner(Side::Fast)
        } else {
            None
        };
        let Some((b, cb)) = partner else { return false };
        self.swap(t, c, b, cb);
        true
    }

    /// A thread to swap with, runnable on a core of `side`: on the slow side one behind on fast
    /// (the furthest behind), on the fast side one ahead (the furthest ahead); among equals the
    /// lowest id. With the thread and its core.
    fn partner(&self, side: Side) -> Option<(u32, usize)> {
        let mut best: Option<(i64, u32, usize)> = None;
        for &b in &self.sharing {
            let Some(s) = self.honoured(b) else { continue };
            let Some(cb) = self.runnable_on(b) else { continue };
            if self.side_of_core(cb) != side {
                continue;
            }
            let rounds = self.rounds_now(b, s, cb);
            // Ordered so that the smaller key is the better partner.
            let key = match side {
                Side::Slow if rounds.behind() => rounds.lead(),
                Side::Fast if rounds.ahead() => rounds.lead().saturating_neg(),
                _ => continue,
            };
            if best.is_none_or(|(k, id, _)| (key, b) < (k, id)) {
                best = Some((key, b, cb));
            }
        }
        best.map(|(_, b, cb)| (b, cb))
    }

    /// Thread `a`, running on `ca`, and thread `b`, runnable on `cb` (the other side), swap their
    /// sides, and each goes to the other's core where its affinity allows (else where the local
    /// scheduler puts it on its new side).
    fn swap(&mut self, a: u32, ca: usize, b: u32, cb: usize) {
        let (side_a, side_b) = (self.side_of_core(cb), self.side_of_core(ca));
        let b_ran = self.take_runnable(b, cb);
        self.stop_running(ca);
        self.book.threads[a as usize].state = ThreadState::Ready;
        self.set_side(a, side_a);
        self.set_side(b, side_b);
        self.stats.share_swaps += 1;
        if self.allowed[b as usize].contains(ca) {
            self.enqueue_on(b, ca);
        } else {
            self.place(b);
        }
        if b_ran && self.allowed[a as usize].contains(cb) {
            self.enqueue_on(a, cb);
        } else {
            self.place(a);
        }
    }

    /// Take runnable `t` off core `c` (running: accounted first; queued: out of the queue); true
    /// if it was running.
    fn take_runnable(&mut self, t: u32, c: usize) -> bool {
        let running = self.running[c] == Some(t);
        if running {
            self.account(c);
            self.stop_running(c);
            self.mark_dirty(c as u32);
        } else {
            self.sched.dequeue(t);
        }
        self.book.threads[t as usize].state = ThreadState::Ready;
        running
    }

    /// Core `c` has nothing of its own to run: work conservation. A fast core takes a thread with
    /// a share from the slow side, one waiting before one running (the furthest behind on fast
    /// first); a slow core takes one waiting for a fast core (the furthest ahead first). The
    /// thread is no longer runnable anywhere: the caller dispatches it on `c`.
    pub(crate) fn share_take(&mut self, c: usize) -> Option<u32> {
        if self.sharing.is_empty() {
            return None;
        }
        let here = self.side_of_core(c);
        let mut best: Option<(bool, i64, u32, usize)> = None;
        for &t in &self.sharing {
            let Some(s) = self.honoured(t) else { continue };
            let Some(ct) = self.runnable_on(t) else { continue };
            if self.side_of_core(ct) == here || !self.book.threads[t as usize].allowed.contains(c) {
                continue;
            }
            let running = self.running[ct] == Some(t);
            // A running thread is taken only by a fast core: a fast-side thread that runs is
            // where it should be.
            if running && here == Side::Slow {
                continue;
            }
            let lead = self.rounds_now(t, s, ct).lead();
            let lead = if here == Side::Fast { lead } else { lead.saturating_neg() };
            let key = (running, lead, t, ct);
            if best.is_none_or(|b| (key.0, key.1, key.2) < (b.0, b.1, b.2)) {
                best = Some(key);
            }
        }
        let (_, _, t, ct) = best?;
        self.take_runnable(t, ct);
        self.set_side(t, here);
        self.stats.share_takes += 1;
        Some(t)
    }
}
