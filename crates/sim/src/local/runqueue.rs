//! The local scheduler's per-core run queue: CFS-like, ordered by virtual runtime.
//!
//! Every runnable thread that is not running sits in exactly one core's queue. A thread's
//! virtual runtime advances by its run time scaled by 1024 / weight, so threads of equal weight
//! get equal time on the core; the core runs the queued thread with the smallest one.
//!
//! The queue is a binary min-heap: a slice-end switch (queue the old thread, take the first)
//! is a push that rarely climbs and one sift down, where an ordered tree pays for node
//! splits and merges. Taking a thread out of the middle (a policy moved it, a balance or a
//! pull took it) leaves a tombstone, cleared when its entry reaches the top; the first entry is
//! always live.

use std::collections::BTreeSet;

pub use ampsched_model::nice::weight_of_nice;

use crate::heap;

/// (vruntime, insertion number): equal vruntimes are served in arrival order, so a waiting
/// thread is never overtaken forever by newcomers placed at the same vruntime. Unique per queue.
pub type QueueKey = (u64, u64);

#[derive(Debug, Clone, Copy)]
struct Entry {
    key: QueueKey,
    thread: u32,
}

/// Tombstones beyond this many, and beyond the live entries, make the heap rebuild without them.
const TOMBSTONE_SLACK: usize = 32;

#[derive(Default, Debug, Clone)]
pub struct RunQueue {
    heap: Vec<Entry>,
    /// Keys of entries taken out of the middle, still in `heap`.
    removed: BTreeSet<QueueKey>,
    seq: u64,
    /// Monotonic floor of the vruntimes on this core; a thread arriving from elsewhere is placed
    /// relative to it, so it neither starves the others nor is starved.
    pub min_vruntime: u64,
}

impl RunQueue {
    /// Queue a thread; returns the key to remove it by.
    pub fn insert(&mut self, vruntime: u64, thread: u32) -> QueueKey {
        self.seq += 1;
        let key = (vruntime, self.seq);
        self.heap.push(Entry { key, thread });
        let last = self.heap.len() - 1;
        heap::sift_up(&mut self.heap, last, |e| e.key);
        key
    }

    /// Take out the entry of `thread` queued with `key`, which must be in this queue (the
    /// caller knows where each thread is queued; a heap cannot find an entry cheaply).
    pub fn remove(&mut self, key: QueueKey, thread: u32) {
        match self.heap.first() {
            Some(top) if top.key == key && top.thread == thread => {
                self.pop_top();
            }
            _ => {
                debug_assert!(self.heap.iter().any(|e| e.key == key && e.thread == thread), "removing an entry not queued here");
                self.removed.insert(key);
                if self.removed.len() > self.len() + TOMBSTONE_SLACK {
                    self.rebuild();
                }
            }
        }
    }

    pub fn pop_first(&mut self) -> Option<(u64, u32)> {
        let first = self.pop_top()?;
        self.advance_floor(first.key.0);
        Some((first.key.0, first.thread))
    }

    /// Remove the top entry, and the tombstones that come to the top after it.
    fn pop_top(&mut self) -> Option<Entry> {
        let top = self.take_top()?;
        while let Some(next) = self.heap.first() {
            if self.removed.is_empty() || !self.removed.remove(&next.key) {
                break;
            }
            self.take_top();
        }
        Some(top)
    }

    fn take_top(&mut self) -> Option<Entry> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.heap[0], last);
        heap::sift_down_to_bottom(&mut self.heap, 0, |e| e.key);
        Some(top)
    }

    fn rebuild(&mut self) {
        let removed = std::mem::take(&mut self.removed);
        self.heap.retain(|e| !removed.contains(&e.key));
        for i in (0..self.heap.len() / 2).rev() {
            heap::sift_down(&mut self.heap, i, |e| e.key);
        }
    }

    /// The thread with the smallest vruntime.
    pub fn first_thread(&self) -> Option<u32> {
        self.heap.first().map(|e| e.thread)
    }

    /// The smallest queued vruntime.
    pub fn first_vruntime(&self) -> Option<u64> {
        self.heap.first().map(|e| e.key.0)
    }

    pub fn advance_floor(&mut self, v: u64) {
        if v > self.min_vruntime {
            self.min_vruntime = v;
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.removed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Queued threads in vruntime order (lazily: the first k cost O(k log k)).
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        heap::in_order(&self.heap, |e| e.key).map(|i| self.heap[i]).filter(|e| !self.removed.contains(&e.key)).map(|e| (e.key.0, e.thread))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ampsched_model::rng::Rng;

    /// The heap against an ordered set of the same entries, through random inserts, pops and
    /// removals from the middle (enough of them to force rebuilds).
    #[test]
    fn agrees_with_an_ordered_set() {
        let mut rng = Rng::new(7);
        let mut q = RunQueue::default();
        let mut model: BTreeSet<(u64, u64, u32)> = BTreeSet::new();
        let mut next_thread = 0u32;
        for step in 0..50_000 {
            match rng.below(6) {
                0..=2 => {
                    let v = rng.below(1000) as u64;
                    let key = q.insert(v, next_thread);
                    model.insert((key.0, key.1, next_thread));
                    next_thread += 1;
                }
                3 => {
                    let got = q.pop_first();
                    let want = model.pop_first().map(|(v, _, t)| (v, t));
                    assert_eq!(got, want, "pop at step {step}");
                }
                _ => {
                    if model.is_empty() {
                        continue;
                    }
                    let k = rng.below(model.len());
                    let &(v, s, t) = model.iter().nth(k).unwrap();
                    q.remove((v, s), t);
                    model.remove(&(v, s, t));
                }
            }
            assert_eq!(q.len(), model.len());
            assert_eq!(q.is_empty(), model.is_empty());
            assert_eq!(q.first_vruntime(), model.first().map(|&(v, _, _)| v));
            if step % 997 == 0 {
                let got: Vec<(u64, u32)> = q.iter().collect();
                let want: Vec<(u64, u32)> = model.iter().map(|&(v, _, t)| (v, t)).collect();
                assert_eq!(got, want);
            }
        }
    }
}
