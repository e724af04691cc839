//! `static`: each thread is pinned, when it starts, to one core and never moved: the core with
//! the fewest live pinned threads, lowest number first, so threads fill cores 0, 1, 2, ... in
//! arrival order. This is the binding behind the Sáez thesis's "default metric" (§4.3.3: a
//! benchmark bound to one core for its whole run, with no migration).

use ampsched_model::{CoreSet, Placement, Policy, Signals, SystemView, ThreadState, Trigger, Triggers};

use crate::common::PerThread;
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "static",
    description: "each thread pinned to one core in arrival order, never moved",
    source: "Sáez thesis, §4.3.3 (the binding behind the default metric)",
    options: &[],
    needs: Signals::NONE,
    build: Build::Policy(|_, m| Box::new(StaticPin::new(m.num_cores()))),
};

#[derive(Debug, Default)]
pub struct StaticPin {
    core_of: PerThread<Option<usize>>,
    /// Live threads pinned to each core.
    pinned: Vec<usize>,
}

impl StaticPin {
    pub fn new(cores: usize) -> Self {
        StaticPin { core_of: PerThread::new(), pinned: vec![0; cores] }
    }
}

impl Policy for StaticPin {
    fn name(&self) -> &str {
        INFO.name
    }
    fn quantum_ns(&self) -> Option<u64> {
        None
    }
    fn triggers(&self) -> Triggers {
        Triggers { start: true, ..Triggers::NONE }
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) {
        // Exits since the last call free their cores' places.
        for &u in view.changed {
            if view.thread(u).state == ThreadState::Exited {
                if let Some(c) = self.core_of.get_mut(u).take() {
                    self.pinned[c] -= 1;
                }
            }
        }
        let Trigger::Start(t) = view.trigger else { return };
        let core = (0..self.pinned.len()).min_by_key(|&c| (self.pinned[c], c)).unwrap_or(0);
        // (The live agent may report a thread's start and exit in one sample.)
        if view.thread(t).state != ThreadState::Exited {
            self.pinned[core] += 1;
            self.core_of.set(t, Some(core));
        }
        out.set(t, CoreSet::single(core));
    }
}
