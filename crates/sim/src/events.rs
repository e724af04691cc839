//! The future-event list: a binary heap ordered by (time, insertion number), so events at the
//! same time run in the order they were scheduled, which keeps runs deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// The running thread on `core` reaches its slice end or finishes its current work.
    /// `gen` lets a re-planned core ignore its stale events.
    Core { core: u32, gen: u32 },
    /// An app's first run starts.
    Arrival { app: u32 },
    /// A sleeping thread's I/O completes.
    Wake { thread: u32 },
    /// The policy's periodic call.
    Quantum,
    /// The local scheduler's periodic load balancing.
    Balance,
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(u64, u64, Event)>>,
    seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: u64, ev: Event) {
        self.seq += 1;
        self.heap.push(Reverse((time, self.seq, ev)));
    }

    pub fn pop(&mut self) -> Option<(u64, Event)> {
        self.heap.pop().map(|Reverse((t, _, e))| (t, e))
    }
}
