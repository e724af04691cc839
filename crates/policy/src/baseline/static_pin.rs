//! `static`: each thread is pinned, when it starts, to one core and never moved. This is the
//! binding the Sáez thesis's default metric models (§4.3.3: a benchmark bound to one core at the
//! start of its execution and kept there until completion, the core chosen at random).
//!
//! Which core: the one with the fewest live pinned threads, ties broken by a seeded random order
//! of the cores (a shuffle drawn from the run's seed, `SystemView::seed`, at the first call). So
//! threads that start together fill the cores in that shuffled order, and a thread that starts
//! when one exits (an app restarting under constant load) takes the freed core. The order must
//! not be the workload's listing order: the catalog lists each thesis workload's CPU-intensive
//! apps first, and filling cores 0, 1, ... (the fast ones) in that order would make this
//! baseline the best static assignment in disguise. One seed gives one binding (deterministic);
//! other seeds give other bindings. For the average over bindings, see `bound` and
//! `compare --baseline default`.

use ampsched_model::rng::Rng;
use ampsched_model::{CoreSet, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadState, Trigger, Triggers};

use crate::common::PerThread;
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "static",
    description: "each thread pinned at start to the least-loaded core, ties in a seeded random core order; never moved",
    source: "Sáez thesis, §4.3.3 (the random binding behind the default metric)",
    options: &[],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|_, m| Box::new(StaticPin::new(m.num_cores()))),
};

#[derive(Debug, Default)]
pub struct StaticPin {
    core_of: PerThread<Option<usize>>,
    /// Live threads pinned to each core.
    pinned: Vec<usize>,
    /// Each core's place in the seeded order (drawn at the first call, when the seed is known).
    rank: Vec<usize>,
}

impl StaticPin {
    pub fn new(cores: usize) -> Self {
        StaticPin { core_of: PerThread::new(), pinned: vec![0; cores], rank: Vec::new() }
    }
}

/// The cores in a random order drawn from `seed` (Fisher-Yates): `order[i]` is the i-th core.
pub fn shuffled_cores(cores: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let mut order: Vec<usize> = (0..cores).collect();
    for i in (1..cores).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

impl Policy for StaticPin {
    fn triggers(&self) -> Triggers {
        Triggers::START
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        if self.rank.is_empty() {
            let order = shuffled_cores(self.pinned.len(), view.seed);
            self.rank = vec![0; order.len()];
            for (i, &c) in order.iter().enumerate() {
                self.rank[c] = i;
            }
        }
        // Exits since the last call free their cores' places.
        for &u in view.changed {
            if view.thread(u).state == ThreadState::Exited {
                if let Some(c) = self.core_of.get_mut(u).take() {
                    self.pinned[c] -= 1;
                }
            }
        }
        let Trigger::Start(t) = view.trigger else { return Ok(()) };
        let core = (0..self.pinned.len()).min_by_key(|&c| (self.pinned[c], self.rank[c])).unwrap_or(0);
        // (The live agent may report a thread's start and exit in one sample.)
        if view.thread(t).state != ThreadState::Exited {
            self.pinned[core] += 1;
            self.core_of.set(t, Some(core));
        }
        out.set(t, CoreSet::single(core));
        Ok(())
    }
}
