//! Fast-core shares, after Kim & Huh, "Exploring the Design Space of Fair Scheduling Supports
//! for Asymmetric Multicore Systems" §6.2: their modified CFS keeps per-thread `fast_round` and
//! `slow_round` counters over 30 ms rounds of CPU time, split by the thread's share, and swaps
//! threads between core types to keep the two progressing together.
//!
//! Linux has no such knob, so the agent alternates the thread's affinity, round by round,
//! between the fast cores and the other cores of its allowed set. It can only move a thread at
//! a sample, so a round is a whole number of intervals: the fewest that last at least 30 ms
//! (30 ms at a 10 ms interval, 40 ms at the default 40 ms). At each round's end the thread goes
//! to the side it is behind on, judged by its measured CPU time per core type since the share
//! was set: fast cores while its fast time is at most `share` × its CPU time. This carries each
//! round's excess into the next, as the paper's round counters do, so over many rounds the
//! fast fraction of its CPU time converges to `share`, within one round's CPU time.
//!
//! The view's `allowed` stays the policy's set; the affinity in force is the round's side of it.
//!
//! Under `--emulate` a slow CPU's cycle stealer takes `1 − speed` of its time from whichever
//! thread holds it, so a thread's CPU time there is `speed` × the time it held the CPU. The
//! paper's shares are of the time a thread holds cores (its emulated slow cores ran slower, not
//! less), so there each slow core type's CPU time counts as CPU time / speed (`emulated`):
//! counted as bare CPU time, a share of 0.2 at speed 0.5 would hold the fast CPU a ninth of the
//! time, not a fifth.

use std::collections::BTreeMap;

use ampsched_model::{CoreSet, PerType, ThreadState};

use super::affinity::{put_on, Moved};
use super::NotApplied;
use crate::monitor::Monitor;

/// Kim & Huh's round (`defaults::SHARE_ROUND_NS`), of CPU time split between fast and slow cores by the share.
pub const ROUND_NS: u64 = ampsched_model::defaults::SHARE_ROUND_NS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Fast,
    Other,
}

/// The side a thread with fast-core share `share` runs on next round, given its CPU time on
/// fast cores and in all since the share was set.
pub fn next_side(share: f64, fast_ns: u64, total_ns: u64) -> Side {
    if share > 0.0 && fast_ns as f64 <= share * total_ns as f64 {
        Side::Fast
    } else {
        Side::Other
    }
}

/// Samples per round: the fewest intervals that last at least `ROUND_NS`.
pub fn round_samples(interval_ns: u64) -> u64 {
    ROUND_NS.div_ceil(interval_ns.max(1)).max(1)
}

#[derive(Debug, Clone, Copy)]
struct Sharing {
    share: f64,
    fast_base_ns: u64,
    total_base_ns: u64,
    side: Side,
}

#[derive(Debug)]
pub struct Shares {
    /// Per core type, the time a CPU-ns there stands for: 1 / the emulated speed, else 1.
    held_per_cpu_ns: Vec<f64>,
    round_samples: u64,
    samples: u64,
    threads: BTreeMap<u32, Sharing>,
    /// Affinity changes made by rounds (not by the policy).
    pub switches: u64,
}

/// (fast time, total time) of thread `id`, ns: time held, on slow emulated cores
/// (`held_per_cpu_ns`), else CPU time.
fn times(m: &Monitor, held_per_cpu_ns: &[f64], id: u32) -> (u64, u64) {
    let t = &m.book.threads[id as usize];
    if held_per_cpu_ns.is_empty() {
        return (t.fast_time_ns(&m.machine), t.total_time_ns());
    }
    (t.fast_time_ns(&m.machine), held_ns(&t.per_type, held_per_cpu_ns))
}

/// The time a thread with counters `per_type` held cores, ns, when a CPU-ns on core type `ty`
/// stands for `held_per_cpu_ns[ty]` ns held (1 / its emulated speed).
pub fn held_ns(per_type: &PerType, held_per_cpu_ns: &[f64]) -> u64 {
    let held: f64 = held_per_cpu_ns.iter().enumerate().map(|(ty, &k)| per_type[ty].time_ns as f64 * k).sum();
    held.round() as u64
}

/// The cores of `allowed` on `side`.
fn side_of(m: &Monitor, allowed: &CoreSet, side: Side) -> CoreSet {
    let fast = m.machine.fast_cores();
    match side {
        Side::Fast => allowed.intersection(&fast),
        Side::Other => allowed.difference(&fast),
    }
}

impl Shares {
    pub fn new(interval_ns: u64) -> Shares {
        Shares { held_per_cpu_ns: Vec::new(), round_samples: round_samples(interval_ns), samples: 0, threads: BTreeMap::new(), switches: 0 }
    }

    /// The machine's core types run at `speeds` (per core type) by cycle stealing: a CPU-ns on
    /// one stands for 1 / speed ns held.
    pub fn emulated(&mut self, speeds: &[f64]) {
        self.held_per_cpu_ns = speeds.iter().map(|&s| 1.0 / s).collect();
    }

    /// The round length, ns, for an interval of `interval_ns`.
    pub fn round_ns(&self, interval_ns: u64) -> u64 {
        self.round_samples * interval_ns
    }

    /// Where thread `id` runs when its view's affinity is `allowed`: the side of it its share
    /// picks for this round, or all of it. A share whose side is missing from `allowed` ends.
    pub fn run_on(&mut self, m: &Monitor, id: u32, allowed: &CoreSet, not_applied: &mut NotApplied) -> CoreSet {
        let Some(s) = self.threads.get(&id) else { return allowed.clone() };
        let cores = side_of(m, allowed, s.side);
        if cores.is_empty() || side_of(m, allowed, opposite(s.side)).is_empty() {
            let share = s.share;
            self.threads.remove(&id);
            let tid = m.extra[id as usize].tid;
            not_applied.add("fast_share", "ended: the thread's new affinity is all fast or all slow cores".into(), || {
                format!("thread {tid}: share {share} under affinity {allowed}")
            });
            return allowed.clone();
        }
        cores
    }

    /// The policy's decision for thread `id`: a share, or `None` to end it. Ok(true) when it
    /// changed something; Err(why) when it cannot be applied.
    pub fn set(&mut self, m: &mut Monitor, id: u32, share: Option<f64>) -> Result<bool, String> {
        let allowed = m.book.threads[id as usize].allowed.clone();
        let Some(share) = share else {
            if self.threads.remove(&id).is_none() {
                return Ok(false);
            }
            return moved(put_on(m, id, &allowed, &allowed));
        };
        if self.threads.get(&id).is_some_and(|s| s.share == share) {
            return Ok(false);
        }
        for side in [Side::Fast, Side::Other] {
            if side_of(m, &allowed, side).is_empty() {
                self.threads.remove(&id);
                let kind = if side == Side::Fast { "slow" } else { "fast" };
                return Err(format!("the thread's allowed cores are all {kind}: there is nothing to alternate"));
            }
        }
        let (fast, total) = times(m, &self.held_per_cpu_ns, id);
        let side = next_side(share, 0, 0);
        self.threads.insert(id, Sharing { share, fast_base_ns: fast, total_base_ns: total, side });
        moved(put_on(m, id, &allowed, &side_of(m, &allowed, side)))
    }

    /// After each sample: at a round's end, move each sharing thread to the side it is behind on.
    pub fn step(&mut self, m: &mut Monitor, not_applied: &mut NotApplied) {
        self.samples += 1;
        if !self.samples.is_multiple_of(self.round_samples) || self.threads.is_empty() {
            return;
        }
        let ids: Vec<u32> = self.threads.keys().copied().collect();
        for id in ids {
            if m.book.threads[id as usize].state == ThreadState::Exited || m.extra[id as usize].unmanaged.is_some() {
                self.threads.remove(&id);
                continue;
            }
            let s = self.threads[&id];
            let (fast, total) = times(m, &self.held_per_cpu_ns, id);
            let side = next_side(s.share, fast - s.fast_base_ns, total - s.total_base_ns);
            if side == s.side {
                continue;
            }
            let allowed = m.book.threads[id as usize].allowed.clone();
            self.threads.get_mut(&id).expect("listed").side = side;
            match put_on(m, id, &allowed, &side_of(m, &allowed, side)) {
                Moved::Changed => self.switches += 1,
                Moved::Unchanged | Moved::Gone => {}
                Moved::Refused(why) => {
                    self.threads.remove(&id);
                    let tid = m.extra[id as usize].tid;
                    not_applied.add("fast_share", why, || format!("thread {tid}: a round's move"));
                }
            }
        }
    }

    /// Threads with a share now.
    pub fn count(&self) -> usize {
        self.threads.len()
    }
}

fn opposite(side: Side) -> Side {
    match side {
        Side::Fast => Side::Other,
        Side::Other => Side::Fast,
    }
}

fn moved(m: Moved) -> Result<bool, String> {
    match m {
        Moved::Changed => Ok(true),
        Moved::Unchanged | Moved::Gone => Ok(false),
        Moved::Refused(why) => Err(why),
    }
}
