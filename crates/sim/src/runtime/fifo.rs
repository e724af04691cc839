//! `fifo`: one ready queue shared by every runtime thread, behind one lock. A task that becomes
//! ready is pushed at the tail; the first available thread pops the head. The big.LITTLE paper,
//! §III.D: "a single shared FIFO queue ... protected by locks", the policy it evaluated; it is
//! Nanos++'s default `bf` (breadth-first) policy, src/plugins/sched/bf_sched.cpp (one team
//! queue, `push_back`/`pop_front`), whose immediate-successor rule is the option
//! `immediate_successor` (applied in `mod.rs`, where a finished task's successors are released).

use std::collections::VecDeque;

#[derive(Debug, Default, Clone)]
pub(crate) struct Fifo {
    queue: VecDeque<u32>,
    /// Tasks in the queue no thread has claimed yet (`mod.rs`: a thread claims a task before
    /// it takes the lock to pop one, so that no two threads go for the same task).
    unclaimed: u64,
}

impl Fifo {
    pub fn push(&mut self, task: u32) {
        self.queue.push_back(task);
        self.unclaimed += 1;
    }

    /// Claim a task for a later pop: any thread may take any task.
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

    pub fn pop(&mut self) -> Option<u32> {
        self.queue.pop_front()
    }
}
