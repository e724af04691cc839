//! A router's arbitration: which of several packets wins an output (switch allocation) or, at
//! the first stage, which virtual channel of an input port goes forward.
//!
//! Round-robin (the paper's "Original"): gem5 Garnet 1.0's separable allocators
//! (src/mem/ruby/network/garnet/fixed-pipeline/SWallocator_d.cc, VCallocator_d.cc): each
//! arbiter keeps a pointer and grants the first requester at or after it, then moves the pointer
//! past the winner, so every requester is served within one round.
//!
//! OCOR ("Opportunistic Competition Overhead Reduction for Expediting Critical Section in NoC
//! based CMPs", Yao & Lu, Table 1 and §4.2): among requesters carrying the priority check bit
//! (lock and wake-up packets), the one with the lowest key wins, the key being
//!   1. progress: how far the thread's progress (critical sections completed) is above the
//!      lowest progress among the competing lock/wake-up packets, saturating at
//!      `progress_levels - 1` ("Slow Progress First");
//!   2. the one-hot priority level: a lock attempt's RTR segment, 1 (RTR in the last
//!      max_spin/levels retries) to `levels` (the first ones), then `levels + 1` for wake-ups
//!      ("Least RTR First", "Wakeup Request Last").
//!
//! Any such packet beats every normal one ("Locking Request Packet First"). Ties between
//! equal keys are broken at random with the network's seeded generator (the paper's LPA
//! "random selection"); normal packets among themselves keep round-robin. Within a virtual
//! channel packets leave in order (FIFO): only a channel's head packet competes.

use ampsched_model::rng::Rng;
use ampsched_model::Arbitration;

use super::PacketClass;

/// What a packet shows the arbiter: its one-hot level (None for a normal packet: priority check
/// bit 0) and its thread's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priority {
    pub level: Option<u32>,
    pub progress: u32,
}

/// The network interface's stamping of a packet's header (§4.2, Fig. 8): a lock attempt with
/// RTR remaining retries gets segment ceil(RTR × levels / max_spin) (RTR clamped to 1..max_spin:
/// the paper's 16 retries per level at 128 and 8), a wake-up the level below all of them.
pub fn stamp(class: PacketClass, progress: u32, levels: u32, max_spin: u32) -> Priority {
    let level = match class {
        PacketClass::Normal => None,
        PacketClass::Lock { rtr } => {
            let max_spin = max_spin.max(1) as u64;
            let rtr = (rtr as u64).clamp(1, max_spin);
            Some((rtr * levels as u64).div_ceil(max_spin) as u32)
        }
        PacketClass::WakeUp => Some(levels + 1),
    };
    Priority { level, progress }
}

/// One requester: its slot in the arbiter's round (a VC index, or an input port) and priority.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub slot: usize,
    pub priority: Priority,
}

/// The arbiter of one resource: `slots` requesters in its round, the round-robin pointer `rr`.
/// Returns the index in `requests` (non-empty) of the winner.
pub fn arbitrate(policy: Arbitration, requests: &[Request], rr: &mut usize, slots: usize, progress_levels: u32, rng: &mut Rng) -> usize {
    debug_assert!(!requests.is_empty());
    if let [only] = requests {
        // Alone, it wins; the pointer moves as the full arbitration would move it.
        if policy == Arbitration::RoundRobin || only.priority.level.is_none() {
            *rr = (only.slot + 1) % slots;
        }
        return 0;
    }
    if policy == Arbitration::Ocor {
        if let Some(i) = highest_priority(requests, progress_levels, rng) {
            return i;
        }
    }
    round_robin(requests, rr, slots)
}

/// The first requester at or after the pointer; the pointer then moves past it.
fn round_robin(requests: &[Request], rr: &mut usize, slots: usize) -> usize {
    let distance = |r: &Request| (r.slot + slots - *rr % slots) % slots;
    let (i, winner) = requests.iter().enumerate().min_by_key(|(_, r)| distance(r)).expect("a request");
    *rr = (winner.slot + 1) % slots;
    i
}

/// Table 1's winner among the lock and wake-up packets, None when there are none.
fn highest_priority(requests: &[Request], progress_levels: u32, rng: &mut Rng) -> Option<usize> {
    let min_progress = requests.iter().filter(|r| r.priority.level.is_some()).map(|r| r.priority.progress).min()?;
    let key = |r: &Request| r.priority.level.map(|level| ((r.priority.progress - min_progress).min(progress_levels - 1), level));
    let best = requests.iter().filter_map(key).min()?;
    let ties = requests.iter().filter(|r| key(r) == Some(best)).count();
    let pick = if ties == 1 { 0 } else { rng.below(ties) };
    requests.iter().enumerate().filter(|(_, r)| key(r) == Some(best)).nth(pick).map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(rtr: u32, progress: u32) -> Priority {
        stamp(PacketClass::Lock { rtr }, progress, 8, 128)
    }

    #[test]
    fn stamping_splits_the_spin_count_evenly() {
        // 128 retries over 8 levels: 16 each, RTR 1..16 is level 1 (the most urgent).
        assert_eq!(lock(1, 0).level, Some(1));
        assert_eq!(lock(16, 0).level, Some(1));
        assert_eq!(lock(17, 0).level, Some(2));
        assert_eq!(lock(128, 0).level, Some(8));
        assert_eq!(stamp(PacketClass::WakeUp, 0, 8, 128).level, Some(9));
        assert_eq!(stamp(PacketClass::Normal, 5, 8, 128).level, None);
        // Out-of-range RTRs clamp to the spin count's ends.
        assert_eq!(lock(0, 0).level, Some(1));
        assert_eq!(lock(1000, 0).level, Some(8));
    }
}
