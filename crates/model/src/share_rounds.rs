//! A fast-core share's round counters, as Kim & Huh keep them (Kim & Huh, "Exploring the Design
//! Space of Fair Scheduling Supports for Asymmetric Multicore Systems", IEEE Trans. Computers
//! 2018, §6.2): per thread a `fast_round` and a `slow_round`; "the fast or slow round is
//! incremented whenever a thread completes to run on a fast or slow core for
//! fast_or_slow_core_share × 30 ms", and the scheduler keeps the two "proceed[ing] together".
//! A thread is *ahead on fast* when its fast round is greater than its slow round, *behind* when
//! it is smaller: the simulator's swaps (sim `local::share`) pair a thread ahead on a fast core with
//! one behind on a slow core.
//!
//! The counters are kept as the time charged on each side since the share was set, so a round's
//! overshoot (a side is left only at a tick) counts towards the next and the long-run share is
//! exact. Pure: no engine, so that the simulator and the agent count rounds the same way.

/// The most whole rounds a thread's fast round may lead or trail its slow round; beyond it the
/// excess time is forgiven (no longer counted). Kim & Huh do not bound the lead; without a bound,
/// time a thread gets on a side because no partner for a swap exists (shares that do not add up
/// to the fast cores, a fast core that took a slow-side thread rather than idle) would be owed
/// back for ever: once every thread is ahead on fast nobody is behind, and swaps stop. Swapping
/// threads trail by one round before a swap and lead by one after it (the counters are whole
/// rounds), and waiting for a partner adds about one; three leaves that room, so a run whose
/// shares are feasible forgives nothing (`forgiven_ns`, which the simulator's tests check).
pub const MAX_LEAD_ROUNDS: u64 = 3;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rounds {
    share: f64,
    /// A round's time on fast cores (share × round) and on the others, ns.
    fast_quota_ns: u64,
    slow_quota_ns: u64,
    /// Time charged on each side since the share was set, less what was forgiven.
    fast_ns: u64,
    slow_ns: u64,
    forgiven_ns: u64,
}

impl Rounds {
    /// A share in [0, 1] of each `round_ns` of CPU time on fast cores.
    pub fn new(share: f64, round_ns: u64) -> Rounds {
        let fast_quota_ns = ((share * round_ns as f64).round() as u64).min(round_ns);
        Rounds { share, fast_quota_ns, slow_quota_ns: round_ns - fast_quota_ns, fast_ns: 0, slow_ns: 0, forgiven_ns: 0 }
    }

    /// The thread ran `ns` on a fast core (`on_fast`) or another core.
    #[inline]
    pub fn charge(&mut self, on_fast: bool, ns: u64) {
        if on_fast {
            self.fast_ns += ns;
        } else {
            self.slow_ns += ns;
        }
        self.forgive();
    }

    /// Completed fast rounds; a share of 0 has no fast quota, and its fast round is always
    /// ahead (it never asks for a fast core).
    pub fn fast_round(&self) -> u64 {
        self.fast_ns.checked_div(self.fast_quota_ns).unwrap_or(u64::MAX)
    }

    /// Completed slow rounds; a share of 1 has no slow quota, and is always behind on fast.
    pub fn slow_round(&self) -> u64 {
        self.slow_ns.checked_div(self.slow_quota_ns).unwrap_or(u64::MAX)
    }

    /// fast_round − slow_round (saturated): how far ahead on fast cores the thread is, in rounds.
    pub fn lead(&self) -> i64 {
        (self.fast_round() as i128 - self.slow_round() as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    /// Ahead on fast: on a fast core it looks for a partner to swap with (§6.2).
    pub fn ahead(&self) -> bool {
        self.fast_round() > self.slow_round()
    }

    /// Behind on fast: a partner a thread ahead on a fast core may swap with.
    pub fn behind(&self) -> bool {
        self.fast_round() < self.slow_round()
    }

    /// Drop whole rounds of a lead (or trail) beyond `MAX_LEAD_ROUNDS`.
    #[inline]
    fn forgive(&mut self) {
        if self.fast_quota_ns == 0 || self.slow_quota_ns == 0 {
            return;
        }
        let (fast, slow) = (self.fast_round(), self.slow_round());
        if fast > slow + MAX_LEAD_ROUNDS {
            let ns = (fast - slow - MAX_LEAD_ROUNDS) * self.fast_quota_ns;
            self.fast_ns -= ns;
            self.forgiven_ns += ns;
        } else if slow > fast + MAX_LEAD_ROUNDS {
            let ns = (slow - fast - MAX_LEAD_ROUNDS) * self.slow_quota_ns;
            self.slow_ns -= ns;
            self.forgiven_ns += ns;
        }
    }

    /// Time no longer counted because the lead passed `MAX_LEAD_ROUNDS`, ns.
    pub fn forgiven_ns(&self) -> u64 {
        self.forgiven_ns
    }

    /// The fraction of the thread's CPU time it should have on fast cores.
    pub fn share(&self) -> f64 {
        self.share
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUND: u64 = 30_000_000;

    /// Share 1/3 of 30 ms: 10 ms fast and 20 ms slow a round (the example of §6.2's numbers).
    #[test]
    fn rounds_count_whole_quotas_and_carry_the_overshoot() {
        let mut r = Rounds::new(1.0 / 3.0, ROUND);
        assert_eq!((r.fast_round(), r.slow_round(), r.lead()), (0, 0, 0));
        r.charge(true, 12_000_000);
        assert_eq!((r.fast_round(), r.slow_round()), (1, 0));
        assert!(r.ahead() && !r.behind());
        r.charge(false, 20_000_000);
        assert_eq!((r.fast_round(), r.slow_round()), (1, 1));
        assert!(!r.ahead() && !r.behind());
        // The 2 ms over the first fast quota count: 8 ms more completes the second round.
        r.charge(true, 8_000_000);
        assert_eq!(r.fast_round(), 2);
        r.charge(false, 45_000_000);
        assert_eq!((r.fast_round(), r.slow_round(), r.lead()), (2, 3, -1));
        assert!(r.behind());
    }

    /// Share 0 and 1 have no quota on one side: always ahead, always behind.
    #[test]
    fn a_share_of_zero_is_always_ahead_and_one_always_behind() {
        let mut zero = Rounds::new(0.0, ROUND);
        let mut one = Rounds::new(1.0, ROUND);
        for _ in 0..3 {
            assert!(zero.ahead() && one.behind());
            zero.charge(false, ROUND);
            one.charge(true, ROUND);
        }
        assert_eq!((zero.lead(), one.lead()), (i64::MAX, i64::MIN));
        assert_eq!(zero.forgiven_ns() + one.forgiven_ns(), 0);
    }

    /// A lead past MAX_LEAD_ROUNDS is forgiven whole rounds at a time: share 0.5 (15 ms a side)
    /// after 100 ms on fast alone has 6 fast rounds, 0 slow: 3 rounds (45 ms) are forgiven.
    #[test]
    fn a_lead_past_the_bound_is_forgiven() {
        let mut r = Rounds::new(0.5, ROUND);
        r.charge(true, 100_000_000);
        assert_eq!((r.fast_round(), r.slow_round(), r.forgiven_ns()), (MAX_LEAD_ROUNDS, 0, 45_000_000));
        r.charge(false, 200_000_000);
        assert_eq!(r.lead(), -(MAX_LEAD_ROUNDS as i64));
    }
}
