//! A bounded FIFO queue between two pipeline stages (docs/pipelines.md), with its rules: who
//! gets an item, who waits for one, who waits for room. The interpreter (`interp`) decides what
//! a thread does when the queue makes it wait or lets it go.
//!
//! An item is its sequence number: the order the pipeline's first stage made it in, which an
//! ordered consumer (dedup's output stage) follows. Takers waiting for an item are served in the
//! order they began to wait, as are putters waiting for room (a pthreads queue's condition
//! variables wake one waiter each, FIFO in practice for a futex); an item put while a taker waits
//! goes to that taker at once, never through the queue.

use std::collections::{BTreeSet, VecDeque};

#[derive(Debug, Clone)]
pub struct Queue {
    capacity: u32,
    items: VecDeque<u64>,
    /// Threads waiting for an item, longest waiter first.
    takers: VecDeque<u32>,
    /// Threads waiting for room, each with the item it would put, longest waiter first.
    putters: VecDeque<(u32, u64)>,
    /// For an ordered consumer: the items it took out of the queue ahead of their turn.
    reorder: Option<Reorder>,
    /// The most items the queue held at once (the capacity bound's witness).
    peak: u32,
}

#[derive(Debug, Clone, Default)]
struct Reorder {
    early: BTreeSet<u64>,
    next: u64,
}

/// What a put did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Put {
    /// The item is in the queue (or an ordered consumer's reorder buffer); the putter goes on.
    Stored,
    /// A waiting taker gets it: the putter goes on, and the taker with the item.
    Handed { taker: u32, item: u64 },
    /// The queue is full: the putter waits for room.
    Full,
}

/// What a take did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Take {
    /// The taker has the item; the putters whose items entered the queue (or the reorder
    /// buffer) by the room it made go on.
    Got { item: u64, freed: Vec<u32> },
    /// Nothing to take (for an ordered consumer: not the next item in order); the putters it
    /// freed go on and the taker waits.
    Wait { freed: Vec<u32> },
}

impl Queue {
    pub fn new(capacity: u32, ordered: bool) -> Queue {
        debug_assert!(capacity >= 1, "the workload reader refuses capacity 0");
        Queue { capacity, items: VecDeque::new(), takers: VecDeque::new(), putters: VecDeque::new(), reorder: ordered.then(Reorder::default), peak: 0 }
    }

    /// Thread `t` puts `item`.
    pub fn put(&mut self, t: u32, item: u64) -> Put {
        if let Some(r) = &mut self.reorder {
            // An ordered consumer that waits has taken everything out of the queue and waits for
            // the next item in order: an early one joins its buffer, the next one wakes it.
            if let Some(&taker) = self.takers.front() {
                debug_assert!(self.items.is_empty());
                if item == r.next {
                    r.next += 1;
                    self.takers.pop_front();
                    return Put::Handed { taker, item };
                }
                r.early.insert(item);
                return Put::Stored;
            }
        } else if let Some(taker) = self.takers.pop_front() {
            debug_assert!(self.items.is_empty());
            return Put::Handed { taker, item };
        }
        if self.items.len() < self.capacity as usize {
            self.push(item);
            return Put::Stored;
        }
        self.putters.push_back((t, item));
        Put::Full
    }

    /// Thread `t` takes the oldest item (an ordered consumer: the next in order).
    pub fn take(&mut self, t: u32) -> Take {
        let mut freed = Vec::new();
        let got = match &mut self.reorder {
            None => {
                let got = self.items.pop_front();
                if got.is_some() {
                    // The room it made goes to the longest waiting putter.
                    if let Some((p, item)) = self.putters.pop_front() {
                        self.items.push_back(item);
                        freed.push(p);
                    }
                }
                got
            }
            Some(r) => {
                // Everything queued, and every waiting putter's item, into the reorder buffer.
                r.early.extend(self.items.drain(..));
                for (p, item) in self.putters.drain(..) {
                    r.early.insert(item);
                    freed.push(p);
                }
                let next = r.next;
                r.early.remove(&next).then(|| {
                    r.next += 1;
                    next
                })
            }
        };
        match got {
            Some(item) => Take::Got { item, freed },
            None => {
                self.takers.push_back(t);
                Take::Wait { freed }
            }
        }
    }

    fn push(&mut self, item: u64) {
        self.items.push_back(item);
        self.peak = self.peak.max(self.items.len() as u32);
    }

    /// The most items the queue held at once.
    pub fn peak(&self) -> u32 {
        self.peak
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Whether thread `t` waits for room (else, if it waits here, for an item).
    pub fn waits_for_room(&self, t: u32) -> bool {
        self.putters.iter().any(|&(p, _)| p == t)
    }
}

/// The items of one stage phase of a group in the current run: which repetition of the phase
/// its threads are handing out, how many of that repetition's items they have claimed, and how
/// many the stage has made (a first stage: the next item's sequence number).
///
/// A thread of the group that finds the repetition's items all claimed goes on to its next phase
/// while others still process theirs, and may come back to the phase in the next repetition
/// before they leave it: the counter moves to the later repetition, and a thread still in the
/// earlier one finds it moved on, which means its own repetition's items are all claimed.
#[derive(Debug, Clone, Copy, Default)]
pub struct StageItems {
    rep: u32,
    claimed: u64,
    made: u64,
}

impl StageItems {
    /// A thread in repetition `rep` claims one of its `items`: None when they are all claimed.
    pub fn claim(&mut self, rep: u32, items: u64) -> Option<()> {
        if self.rep < rep {
            self.rep = rep;
            self.claimed = 0;
        }
        if self.rep > rep || self.claimed == items {
            return None;
        }
        self.claimed += 1;
        Some(())
    }

    /// A first stage makes its claimed item: its sequence number over the run.
    pub fn make(&mut self) -> u64 {
        self.made += 1;
        self.made - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_makes_the_putter_wait_and_a_take_lets_it_in() {
        let mut q = Queue::new(1, false);
        assert_eq!(q.put(1, 0), Put::Stored);
        assert_eq!(q.put(2, 1), Put::Full);
        assert_eq!(q.take(3), Take::Got { item: 0, freed: vec![2] });
        assert_eq!(q.take(3), Take::Got { item: 1, freed: vec![] });
        assert_eq!(q.take(3), Take::Wait { freed: vec![] });
        assert_eq!(q.put(1, 2), Put::Handed { taker: 3, item: 2 });
        assert_eq!(q.peak(), 1);
    }

    #[test]
    fn an_ordered_consumer_takes_items_in_the_order_they_were_made() {
        let mut q = Queue::new(2, true);
        assert_eq!(q.put(1, 1), Put::Stored);
        assert_eq!(q.put(1, 2), Put::Stored);
        assert_eq!(q.put(2, 3), Put::Full);
        // Item 0 is late: the consumer empties the queue into its buffer and waits for it.
        assert_eq!(q.take(9), Take::Wait { freed: vec![2] });
        assert_eq!(q.put(2, 4), Put::Stored);
        assert_eq!(q.put(1, 0), Put::Handed { taker: 9, item: 0 });
        for want in 1..=4 {
            assert_eq!(q.take(9), Take::Got { item: want, freed: vec![] });
        }
        assert_eq!(q.peak(), 2);
    }

    #[test]
    fn a_thread_in_a_finished_repetition_claims_nothing() {
        let mut c = StageItems::default();
        assert_eq!(c.claim(0, 2), Some(()));
        assert_eq!(c.claim(0, 2), Some(()));
        assert_eq!(c.claim(0, 2), None);
        // One thread goes on to repetition 1 while another still works in repetition 0.
        assert_eq!(c.claim(1, 2), Some(()));
        assert_eq!(c.claim(0, 2), None);
        assert_eq!((c.make(), c.make()), (0, 1));
    }
}
