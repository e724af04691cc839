//! The future-event list, ordered by (time, insertion number), so events at the same time run
//! in the order they were scheduled, which keeps runs deterministic.
//!
//! Core events are most of a run's events, and a core has at most one live event (the moment
//! its running thread finishes its work or its slice), which every re-plan replaces. So each
//! core has one timer (`CoreTimers`): re-planning resets it and cancelling clears it, where a
//! plain heap would keep every superseded event until it surfaced and was thrown away. The
//! other events (arrivals, wake-ups, the policy's quantum, balancing) are few and never
//! cancelled: they go in a binary heap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// The running thread on `core` reaches its slice end or finishes its current work.
    Core { core: u32 },
    /// An app's first run starts.
    Arrival { app: u32 },
    /// A sleeping thread's I/O completes, or a blocked lock waiter handed the lock has woken
    /// (`Machine::lock_wake_ns`).
    Wake { thread: u32 },
    /// The policy's periodic call.
    Quantum,
    /// The local scheduler's periodic load balancing.
    Balance,
    /// The on-chip network's next occurrence (`nocsim`): never in the list, made by
    /// `Engine::next_event` in lock step with it.
    Network,
}

/// When an event fires (high 64 bits) and its insertion number (low 64): the order of the
/// event list, compared in one go.
type Key = u128;

fn key(time: u64, seq: u64) -> Key {
    (time as u128) << 64 | seq as u128
}

fn time_of(key: Key) -> u64 {
    (key >> 64) as u64
}

#[derive(Default)]
pub struct EventQueue {
    others: BinaryHeap<Reverse<(Key, Event)>>,
    cores: CoreTimers,
    seq: u64,
}

impl EventQueue {
    /// An event list for a machine of `cores` cores.
    pub fn new(cores: usize) -> Self {
        EventQueue { others: BinaryHeap::new(), cores: CoreTimers::new(cores), seq: 0 }
    }

    /// Schedule an event; a core event replaces that core's pending one.
    pub fn push(&mut self, time: u64, ev: Event) {
        self.seq += 1;
        let key = key(time, self.seq);
        match ev {
            Event::Core { core } => self.cores.set(core as usize, key),
            _ => self.others.push(Reverse((key, ev))),
        }
    }

    /// Drop core `c`'s pending event, if it has one.
    pub fn cancel_core(&mut self, c: usize) {
        self.cores.cancel(c);
    }

    /// The time of the next event that is not a periodic tick (the quantum, balancing): what
    /// an idle machine waits for. A scan of the few non-core events, for idle stretches only.
    pub fn next_busy_time(&self) -> Option<u64> {
        let others = self.others.iter().filter(|Reverse((_, ev))| !matches!(ev, Event::Quantum | Event::Balance)).map(|Reverse((k, _))| *k);
        others.chain(self.cores.first().map(|(k, _)| k)).min().map(time_of)
    }

    /// The time of the next event, if any (`nocsim` runs the network up to it).
    pub fn peek_time(&mut self) -> Option<u64> {
        self.cores.drop_fired();
        let other = self.others.peek().map(|Reverse((k, _))| *k);
        let core = self.cores.first().map(|(k, _)| k);
        [other, core].into_iter().flatten().min().map(time_of)
    }

    pub fn pop(&mut self) -> Option<(u64, Event)> {
        self.cores.drop_fired();
        let other = self.others.peek().map(|Reverse((k, _))| *k);
        match self.cores.first() {
            Some((key, c)) if other.is_none_or(|o| key < o) => {
                self.cores.fire();
                Some((time_of(key), Event::Core { core: c }))
            }
            _ => self.others.pop().map(|Reverse((key, ev))| (time_of(key), ev)),
        }
    }
}

/// One timer per core, in a tournament (winner) tree: the leaves are the cores' timers, each
/// inner node holds the earlier of its two children's, so the root is the next to fire.
/// Setting or cancelling a timer replays the matches on the way up, one comparison a level:
/// cheaper than a heap's sift, and no index of where each core is.
///
/// A fired timer is kept until the next operation: the handler of a core event nearly always
/// re-plans that core, which then costs one replay, not two.
#[derive(Default)]
struct CoreTimers {
    /// `tree[i]` is the earliest (timer, core) under node i: the leaves are at `cores..2·cores`
    /// (leaf `cores + c` is core c's timer, `NOT_SET` if none), the root at 1 (a bottom-up
    /// segment tree). Keys are in the tree, so a match reads two adjacent entries.
    tree: Vec<(Key, u32)>,
    /// The core whose timer fired and has not been set again.
    fired: Option<u32>,
}

const NOT_SET: Key = Key::MAX;

impl CoreTimers {
    fn new(cores: usize) -> Self {
        let mut tree = vec![(NOT_SET, 0); 2 * cores];
        for c in 0..cores {
            tree[cores + c].1 = c as u32;
        }
        // Every inner node must name a core under it, or a replay that does not pass it would
        // leave it naming another core's timer.
        for node in (1..cores).rev() {
            tree[node] = tree[2 * node];
        }
        CoreTimers { tree, fired: None }
    }

    fn first(&self) -> Option<(Key, u32)> {
        self.tree.get(1).copied().filter(|&(key, _)| key != NOT_SET)
    }

    fn fire(&mut self) {
        self.fired = self.first().map(|(_, c)| c);
    }

    /// Take out a fired timer nobody re-set.
    fn drop_fired(&mut self) {
        if let Some(c) = self.fired.take() {
            self.replay(c as usize, NOT_SET);
        }
    }

    fn set(&mut self, c: usize, key: Key) {
        if self.fired.is_some_and(|f| f as usize != c) {
            self.drop_fired();
        }
        self.fired = None;
        self.replay(c, key);
    }

    fn cancel(&mut self, c: usize) {
        if self.fired == Some(c as u32) {
            // Dropped at the next pop, unless the core is re-planned first.
            return;
        }
        self.replay(c, NOT_SET);
    }

    /// Give core `c` timer `key`, and replay the matches from its leaf to the root.
    fn replay(&mut self, c: usize, key: Key) {
        let cores = self.tree.len() / 2;
        let mut node = cores + c;
        self.tree[node] = (key, c as u32);
        while node > 1 {
            let (left, right) = (self.tree[node & !1], self.tree[node | 1]);
            node /= 2;
            self.tree[node] = if left.0 <= right.0 { left } else { right };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ampsched_model::rng::Rng;

    /// The queue against the obvious model: a sorted list of live events, where a core event
    /// replaces the core's earlier one and a cancel removes it.
    #[test]
    fn matches_a_sorted_list_with_one_event_per_core() {
        // Many short runs as well as a long one: a fresh queue is where untouched branches are.
        for cores in [1, 2, 3, 6, 7, 16, 33] {
            for seed in 0..300 {
                agrees_with_model(cores, seed, 60);
            }
            agrees_with_model(cores, 1, 20_000);
        }
    }

    /// A timer must not be hidden by an inner node that names a core outside its subtree.
    #[test]
    fn a_timer_is_found_after_an_earlier_one_on_another_branch_fires() {
        let mut q = EventQueue::new(6);
        q.push(10, Event::Core { core: 2 });
        q.push(5, Event::Core { core: 0 });
        q.push(20, Event::Core { core: 3 });
        assert_eq!(q.pop(), Some((5, Event::Core { core: 0 })));
        assert_eq!(q.pop(), Some((10, Event::Core { core: 2 })));
        assert_eq!(q.pop(), Some((20, Event::Core { core: 3 })));
        assert_eq!(q.pop(), None);
    }

    fn agrees_with_model(cores: usize, seed: u64, steps: usize) {
        let mut rng = Rng::new(seed);
        let mut q = EventQueue::new(cores);
        let mut model: Vec<((u64, u64), Event)> = Vec::new();
        let mut seq = 0;
        for _ in 0..steps {
            match rng.below(5) {
                0 | 1 => {
                    let c = rng.below(cores) as u32;
                    let time = rng.below(50) as u64;
                    seq += 1;
                    model.retain(|(_, e)| *e != Event::Core { core: c });
                    model.push(((time, seq), Event::Core { core: c }));
                    q.push(time, Event::Core { core: c });
                }
                2 => {
                    let time = rng.below(50) as u64;
                    seq += 1;
                    model.push(((time, seq), Event::Wake { thread: seq as u32 }));
                    q.push(time, Event::Wake { thread: seq as u32 });
                }
                3 => {
                    let c = rng.below(cores);
                    model.retain(|(_, e)| *e != Event::Core { core: c as u32 });
                    q.cancel_core(c);
                }
                _ => {
                    model.sort();
                    let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                    assert_eq!(q.pop(), want.map(|((t, _), e)| (t, e)));
                }
            }
        }
    }
}
