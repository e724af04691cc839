//! The local scheduler's per-core run queue: CFS-like, ordered by virtual runtime.
//!
//! Every runnable thread that is not running sits in exactly one core's queue. A thread's
//! virtual runtime advances by its run time scaled by 1024 / weight, so threads of equal weight
//! get equal time on the core; the core runs the queued thread with the smallest one.

use std::collections::BTreeSet;

pub use ampsched_model::nice::weight_of_nice;

#[derive(Default, Debug, Clone)]
pub struct RunQueue {
    /// (vruntime, insertion number, thread): equal vruntimes are served in arrival order, so a
    /// waiting thread is never overtaken forever by newcomers placed at the same vruntime.
    queue: BTreeSet<(u64, u64, u32)>,
    seq: u64,
    /// Monotonic floor of the vruntimes on this core; a thread arriving from elsewhere is placed
    /// relative to it, so it neither starves the others nor is starved.
    pub min_vruntime: u64,
}

impl RunQueue {
    /// Queue a thread; returns the key to remove it by.
    pub fn insert(&mut self, vruntime: u64, thread: u32) -> (u64, u64) {
        self.seq += 1;
        self.queue.insert((vruntime, self.seq, thread));
        (vruntime, self.seq)
    }

    pub fn remove(&mut self, key: (u64, u64), thread: u32) -> bool {
        self.queue.remove(&(key.0, key.1, thread))
    }

    pub fn pop_first(&mut self) -> Option<(u64, u32)> {
        let first = self.queue.pop_first();
        if let Some((v, _, _)) = first {
            self.advance_floor(v);
        }
        first.map(|(v, _, t)| (v, t))
    }

    /// The smallest queued vruntime.
    pub fn first_vruntime(&self) -> Option<u64> {
        self.queue.first().map(|&(v, _, _)| v)
    }

    pub fn advance_floor(&mut self, v: u64) {
        if v > self.min_vruntime {
            self.min_vruntime = v;
        }
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Queued threads in vruntime order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.queue.iter().map(|&(v, _, t)| (v, t))
    }
}
