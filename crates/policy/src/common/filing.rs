//! Threads filed in one of several ordered sets under a key, remembering where each is filed:
//! moving a thread between sets or keys is O(log n), and each set is ordered by (key, id), so
//! its first and last threads are lookups. Partitions file their runnable threads by claim;
//! `rr` files its expired threads by expiry time, one set per side.

use std::collections::BTreeSet;

use ampsched_model::ThreadId;

use super::per_thread::PerThread;

#[derive(Debug, Clone)]
pub struct Filing<K> {
    sets: Vec<BTreeSet<(K, ThreadId)>>,
    /// Where each thread is filed: its set and key.
    filed: PerThread<Option<(usize, K)>>,
}

impl<K: Ord + Copy + Default> Filing<K> {
    pub fn new(sets: usize) -> Self {
        Filing { sets: vec![BTreeSet::new(); sets], filed: PerThread::new() }
    }

    /// File thread `t` in set `want.0` under key `want.1`, or nowhere.
    pub fn file(&mut self, t: ThreadId, want: Option<(usize, K)>) {
        let old = self.filed.value(t);
        if old != want {
            if let Some((set, key)) = old {
                self.sets[set].remove(&(key, t));
            }
            if let Some((set, key)) = want {
                self.sets[set].insert((key, t));
            }
            self.filed.set(t, want);
        }
    }

    /// Where thread `t` is filed.
    pub fn filed(&self, t: ThreadId) -> Option<(usize, K)> {
        self.filed.value(t)
    }

    /// Set `i`, ordered by (key, id).
    pub fn set(&self, i: usize) -> &BTreeSet<(K, ThreadId)> {
        &self.sets[i]
    }

    /// Every thread out of every set.
    pub fn clear(&mut self) {
        self.sets.iter_mut().for_each(BTreeSet::clear);
        self.filed = PerThread::new();
    }
}
