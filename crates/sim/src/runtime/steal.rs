//! `steal`: per-thread double-ended queues with random work stealing (beyond the big.LITTLE
//! paper, which evaluated a shared FIFO "without the need of work stealing"): a thread pushes
//! the tasks it makes ready on its own deque and pops its own tail (LIFO: the task whose data
//! is hottest); a thread whose deque is empty steals the head (FIFO: the oldest, likely the
//! largest remaining work) of a victim drawn at random from the run's seed among the deques that
//! hold tasks (Blumofe & Leiserson, "Scheduling Multithreaded Computations by Work Stealing",
//! JACM 1999; Cilk's THE protocol; Nanos6 and Nanos++ have no stealing scheduler of this kind,
//! anchors: bsc-pm/nanos6 src/scheduling/schedulers). Each deque has its own lock.

use std::collections::VecDeque;

use ampsched_model::rng::Rng;

#[derive(Debug, Clone)]
pub(crate) struct Steal {
    deques: Vec<VecDeque<u32>>,
    unclaimed: u64,
    rng: Rng,
}

impl Steal {
    pub fn new(threads: usize, seed: u64) -> Steal {
        Steal { deques: vec![VecDeque::new(); threads], unclaimed: 0, rng: Rng::new(seed) }
    }

    pub fn push(&mut self, owner: usize, task: u32) {
        self.deques[owner].push_back(task);
        self.unclaimed += 1;
    }

    pub fn claim(&mut self) -> bool {
        if self.unclaimed == 0 {
            return false;
        }
        self.unclaimed -= 1;
        true
    }

    pub fn unclaimed(&self) -> u64 {
        self.unclaimed
    }

    /// The deque thread `me` will pop from: its own if it holds tasks, else a random victim
    /// among those that do (whose lock it then takes).
    pub fn target(&mut self, me: usize) -> usize {
        if !self.deques[me].is_empty() {
            return me;
        }
        let victims: Vec<usize> = (0..self.deques.len()).filter(|&v| !self.deques[v].is_empty()).collect();
        if victims.is_empty() {
            me
        } else {
            victims[self.rng.below(victims.len())]
        }
    }

    /// Pop for `me` from `target`: the tail of its own deque, the head of a victim's. If the
    /// target was emptied meanwhile (another thief), the next try is free: a claim guarantees a
    /// task somewhere.
    pub fn pop(&mut self, me: usize, target: usize) -> Option<u32> {
        let got = if target == me { self.deques[me].pop_back() } else { self.deques[target].pop_front() };
        got.or_else(|| {
            let other = self.target(me);
            if other == me {
                self.deques[me].pop_back()
            } else {
                self.deques[other].pop_front()
            }
        })
    }
}
