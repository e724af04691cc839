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
//! partition while a slow core idles. On a machine of more than two capacities, the fast side is
//! the fastest partition and the slow side all the others.

use ampsched_model::{Machine, Placement, Policy, PolicyFailure, Signals, SystemView, Trigger, Triggers, MAX_CORE_TYPES};

// A balance counter (Algorithm 4.4's BC) as a claim on the fast cores: one-way moves take the
// slow thread most behind up and the fast thread most ahead down.
use crate::common::F64Key as Bc;
use crate::common::{FairShare, Partitions, FAST, PREFER_LOCAL_OPTION};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "rr",
    description: "HAFS: asymmetry-aware round robin giving every thread an equal share of fast-core time",
    source: "Sáez thesis, §4.2.4, Algorithm 4.4 (HAFS; RR in ch. 5-6)",
    options: &[
        OptionInfo {
            name: "quantum_ms",
            // At least Linux's shortest slice: a shorter period is no scheduling quantum, and
            // would only make the simulation crawl.
            kind: OptionKind::quantum_ms(10.0),
            doc: "how often balance counters are brought up to date and expired threads swapped",
        },
        OptionInfo {
            name: "threshold_ms",
            // 1 µs (a threshold finer than any slice) to 1000 s (none a run would reach).
            kind: OptionKind::Range { default: 50.0, min: 0.001, max: 1e6 },
            doc: "BC threshold, ms of CPU time away from the fair fast share (the thesis leaves it open; \
                  50 ms makes a thread's stint on a type ~100 ms on 2FC-2SC, so a migration of tens to hundreds \
                  of µs costs well under 1%)",
        },
        PREFER_LOCAL_OPTION,
    ],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(RoundRobin::new(o, m))),
};

pub struct RoundRobin {
    parts: Partitions<Bc>,
    alpha: f64,
    /// Which core types count as fast (`Machine::fast_type_mask`), read once: the machine is fixed.
    fast_types: [bool; MAX_CORE_TYPES],
    quantum_ns: u64,
    /// Balance counters, expiries and the swaps of expired threads: every thread shares.
    share: FairShare,
}

impl RoundRobin {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let parts = Partitions::with_topology(m, o.flag(PREFER_LOCAL_OPTION.name));
        let alpha = parts.ncores(FAST) as f64 / m.num_cores() as f64;
        RoundRobin { parts, alpha, fast_types: m.fast_type_mask(), quantum_ns: o.ms("quantum_ms"), share: FairShare::new(o.ms("threshold_ms") as f64) }
    }

    /// Bring the balance counters up to date with the last quantum's CPU time, and the claims
    /// with them.
    fn update_counters(&mut self, view: &SystemView) {
        let parts = &self.parts;
        self.share.update(view, self.alpha, &self.fast_types, |t| parts.level(t));
        for &t in self.share.updated() {
            self.parts.set_claim(t, Bc(self.share.bc(t)));
        }
    }

    /// For one-way moves: the slow thread most behind goes up; the fast thread most ahead goes
    /// down (the claims, set as the counters change).
    fn keep_fast_busy(&mut self, view: &SystemView, out: &mut Placement) {
        let share = &self.share;
        self.parts.keep_fast_busy(view, out, |v| Bc(share.bc(v.id)));
    }
}

impl Policy for RoundRobin {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let Some(changed) = self.parts.begin(view) else { return Ok(()) };
        for &t in changed {
            self.share.touch(t);
            self.share.refile(view, t, self.parts.level(t));
        }
        match view.trigger {
            Trigger::Start(t) => self.parts.place_new(view, t, out),
            Trigger::Quantum => {
                self.update_counters(view);
                self.share.swap_expired(view, &mut self.parts, out);
            }
            Trigger::Exit(_) | Trigger::Block(_) | Trigger::Wake(_) => {}
        }
        self.keep_fast_busy(view, out);
        Ok(())
    }
}
