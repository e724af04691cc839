//! `cluster-bound`: the big.LITTLE paper's Static threading ("Exploiting Asymmetric Multi-Core
//! Processors with Flexible System Software", §IV: the pthreads codes run with "the OS not
//! allowed to migrate threads between the clusters"): each thread is bound at its start to one
//! cluster, all of that cluster's cores, and never leaves it; the local scheduler balances inside
//! the cluster. The paper does not say how the threads are spread; here each new thread joins
//! the cluster with the fewest live threads per online core (ties to the faster cluster), so
//! threads spread over the clusters by their core counts (4+4 cores and 8 threads: 4 and 4; 4+1
//! and 5 threads: 4 and 1). A cluster is a core type (Exynos 5422: one L2 each;
//! `Machine::capacity_levels` merges types of equal capacity).

use std::collections::HashMap;

use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "cluster-bound",
    description: "each thread bound at start to one cluster (spread by online core counts), never migrated across clusters; CFS inside",
    source: "big.LITTLE paper, §IV (Static threading: no migration between clusters)",
    options: &[],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|_, m| Box::new(ClusterBound::new(m))),
};

#[derive(Debug)]
pub struct ClusterBound {
    /// The clusters, fastest first.
    clusters: Vec<CoreSet>,
    /// Live threads bound to each cluster.
    live: Vec<usize>,
    cluster_of: HashMap<ThreadId, usize>,
}

impl ClusterBound {
    pub fn new(m: &Machine) -> Self {
        let clusters: Vec<CoreSet> = m.capacity_levels().into_iter().map(|(_, cores)| cores).collect();
        ClusterBound { live: vec![0; clusters.len()], clusters, cluster_of: HashMap::new() }
    }

    /// The cluster with the fewest live threads per core (n_a / k_a < n_b / k_b compared as
    /// n_a·k_b < n_b·k_a); the first (fastest) among equals.
    fn choose(&self) -> usize {
        let mut best = 0;
        for k in 1..self.clusters.len() {
            if self.live[k] * self.clusters[best].len() < self.live[best] * self.clusters[k].len() {
                best = k;
            }
        }
        best
    }
}

impl Policy for ClusterBound {
    fn triggers(&self) -> Triggers {
        Triggers { start: true, exit: true, ..Triggers::NONE }
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        match view.trigger {
            Trigger::Start(t) => {
                let k = self.choose();
                self.live[k] += 1;
                self.cluster_of.insert(t, k);
                out.set(t, self.clusters[k].clone());
            }
            Trigger::Exit(t) => {
                if let Some(k) = self.cluster_of.remove(&t) {
                    self.live[k] -= 1;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
