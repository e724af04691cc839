//! `rr`: HAFS, the heterogeneity-aware fair-share round robin of the Sáez thesis (§4.2.4,
//! Algorithm 4.4; called RR in ch. 5–6).
//!
//! Goal: every thread's time on each core type is proportional to that type's core count, so
//! fast cores are shared equally. Each thread keeps a balance counter (BC) of how far it is
//! behind its fair fast share: BC += α·Δslow − (1−α)·Δfast, α = fast cores / all cores.
//! A thread whose BC passes +threshold on the slow side, or −threshold on the fast side, has
//! expired; expired threads are swapped pairwise, the most behind slow thread with the most
//! ahead fast one (FIFO: oldest expiry first). Without a partner a thread stays where it is.
//! One-way moves happen only to keep fast cores busy, or to relieve an overloaded fast
//! partition while a slow core idles.

use ampsched_model::{Placement, Policy, SystemView, ThreadId, ThreadView, Trigger, Triggers};

use crate::options::{OptionInfo, Options, PolicySpec};
use crate::partition::{fast_time_ns, Partitions, Side};

pub const OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        name: "quantum_ms",
        default: 10.0,
        doc: "how often balance counters are brought up to date and expired threads swapped",
    },
    OptionInfo {
        name: "threshold_ms",
        default: 50.0,
        doc: "BC threshold, ms of CPU time away from the fair fast share (the thesis leaves it open; \
              50 ms makes a thread's stint on a type ~100 ms on 2FC-2SC, so a migration of tens to hundreds \
              of µs costs well under 1%)",
    },
];

/// A thread that got fast time nobody else wanted is not made to pay it back beyond this many
/// thresholds, or it would be kept off fast cores long after others arrive.
const BC_CLAMP_THRESHOLDS: f64 = 2.0;

pub struct RoundRobin {
    parts: Partitions,
    alpha: f64,
    threshold_ns: f64,
    quantum_ns: u64,
    bc: Vec<f64>,
    /// (fast ns, total ns) at the last update.
    seen: Vec<(u64, u64)>,
    /// When the thread expired on its current side: candidates are matched oldest first (FIFO).
    expired_at: Vec<Option<u64>>,
}

impl RoundRobin {
    pub fn new(spec: &PolicySpec, m: &ampsched_model::Machine) -> Result<Self, ampsched_model::InputError> {
        let o = Options::new(spec, OPTIONS)?;
        let parts = Partitions::new(m);
        let alpha = parts.fast.len() as f64 / m.num_cores() as f64;
        Ok(RoundRobin { parts, alpha, threshold_ns: o.ms("threshold_ms")? as f64, quantum_ns: o.ms("quantum_ms")?, bc: Vec::new(), seen: Vec::new(), expired_at: Vec::new() })
    }

    fn update_counters(&mut self, view: &SystemView) {
        if self.bc.len() < view.threads.len() {
            self.bc.resize(view.threads.len(), 0.0);
            self.seen.resize(view.threads.len(), (0, 0));
            self.expired_at.resize(view.threads.len(), None);
        }
        let clamp = BC_CLAMP_THRESHOLDS * self.threshold_ns;
        for t in view.live_threads() {
            let (fast, total) = (fast_time_ns(view, t), t.total_time_ns());
            let (f0, t0) = self.seen[t.id as usize];
            let d_fast = (fast - f0) as f64;
            let d_slow = ((total - t0) - (fast - f0)) as f64;
            let bc = &mut self.bc[t.id as usize];
            *bc = (*bc + self.alpha * d_slow - (1.0 - self.alpha) * d_fast).clamp(-clamp, clamp);
            self.seen[t.id as usize] = (fast, total);
            let expired = match self.parts.side(t.id) {
                Some(Side::Fast) => *bc < -self.threshold_ns,
                Some(Side::Slow) => *bc > self.threshold_ns,
                None => false,
            };
            let at = &mut self.expired_at[t.id as usize];
            *at = if expired { Some(at.unwrap_or(view.now_ns)) } else { None };
        }
    }

    /// Algorithm 4.4: pair expired fast threads with expired slow threads, oldest expiry first
    /// on each side, and swap each pair.
    fn swap_expired(&mut self, view: &SystemView, out: &mut Placement) {
        let expired = |side: Side| -> Vec<ThreadId> {
            let mut ts: Vec<(u64, ThreadId)> = self
                .parts
                .runnable(view, side)
                .iter()
                .filter_map(|t| self.expired_at[t.id as usize].map(|at| (at, t.id)))
                .collect();
            ts.sort_unstable();
            ts.into_iter().map(|(_, t)| t).collect()
        };
        let (fast_x, slow_x) = (expired(Side::Fast), expired(Side::Slow));
        for (f, s) in fast_x.into_iter().zip(slow_x) {
            self.parts.swap(f, s, out);
            self.expired_at[f as usize] = None;
            self.expired_at[s as usize] = None;
        }
    }

    /// For one-way moves: the slow thread most behind goes to fast; the fast thread most ahead goes to slow.
    fn keep_fast_busy(&mut self, view: &SystemView, out: &mut Placement) {
        let bc = &self.bc;
        let by_bc = |ts: &[&ThreadView], from: Side| -> ThreadId {
            let key = |t: &&&ThreadView| (bc.get(t.id as usize).copied().unwrap_or(0.0), std::cmp::Reverse(t.id));
            match from {
                Side::Slow => ts.iter().max_by(|a, b| key(a).0.total_cmp(&key(b).0).then(key(a).1.cmp(&key(b).1))),
                Side::Fast => ts.iter().min_by(|a, b| key(a).0.total_cmp(&key(b).0).then(key(b).1.cmp(&key(a).1))),
            }
            .expect("keep_fast_busy offers at least one thread")
            .id
        };
        self.parts.keep_fast_busy(view, out, by_bc);
    }
}

impl Policy for RoundRobin {
    fn name(&self) -> &str {
        "rr"
    }
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) {
        if !self.parts.asymmetric() {
            return;
        }
        match view.trigger {
            Trigger::Start(t) => self.parts.place_new(view, t, out),
            Trigger::Quantum => {
                self.update_counters(view);
                self.swap_expired(view, out);
            }
            Trigger::Exit(_) | Trigger::Block(_) | Trigger::Wake(_) => {}
        }
        self.keep_fast_busy(view, out);
    }
}
