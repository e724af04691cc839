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

use ampsched_model::{Machine, Placement, MAX_CORE_TYPES, Policy, Signals, SystemView, ThreadId, Trigger, Triggers};

// A balance counter (Algorithm 4.4's BC) as a claim on the fast cores: one-way moves take the
// slow thread most behind up and the fast thread most ahead down.
use crate::common::F64Key as Bc;
use crate::common::{Changes, Filing, Partitions, PerThread, FAST};
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
            kind: OptionKind::Range { default: 10.0, min: 0.1, max: 1e6 },
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
    ],
    needs: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(RoundRobin::new(o, m))),
};

/// Not in Algorithm 4.4 (a departure of ours, the thesis leaving BC's range open): a thread that
/// got fast time nobody else wanted is not made to pay it back beyond this many thresholds, or
/// it would be kept off fast cores long after others arrive.
const BC_CLAMP_THRESHOLDS: f64 = 2.0;

pub struct RoundRobin {
    parts: Partitions<Bc>,
    alpha: f64,
    /// Which core types count as fast (`Machine::fast_type_mask`), read once: the machine is fixed.
    fast_types: [bool; MAX_CORE_TYPES],
    threshold_ns: f64,
    quantum_ns: u64,
    bc: PerThread<f64>,
    /// When the thread expired on its current side: candidates are matched oldest first (FIFO).
    expired_at: PerThread<Option<u64>>,
    /// Threads whose side, runnability or life changed since the last quantum: with those that
    /// ran, the only ones whose expiry can have changed, so a quantum costs O(those).
    touched: Vec<ThreadId>,
    is_touched: PerThread<bool>,
    /// Runnable expired threads of each side (0 fast, 1 slow), oldest expiry first: the FIFO
    /// lists Algorithm 4.4 pairs, and where each thread is filed in them.
    candidates: Filing<u64>,
    /// Which threads to look at again in a call (every live one after a missed call).
    changes: Changes,
}

impl RoundRobin {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let parts = Partitions::new(m);
        let alpha = parts.ncores(FAST) as f64 / m.num_cores() as f64;
        RoundRobin {
            parts,
            alpha,
            fast_types: m.fast_type_mask(),
            threshold_ns: o.ms("threshold_ms") as f64,
            quantum_ns: o.ms("quantum_ms"),
            bc: PerThread::new(),
            expired_at: PerThread::new(),
            touched: Vec::new(),
            is_touched: PerThread::new(),
            candidates: Filing::new(2),
            changes: Changes::default(),
        }
    }

    fn touch(&mut self, t: ThreadId) {
        if !std::mem::replace(self.is_touched.get_mut(t), true) {
            self.touched.push(t);
        }
    }

    /// File thread `t` in the candidate list of its side if it is runnable and expired.
    fn refile(&mut self, view: &SystemView, t: ThreadId) {
        let runnable = view.thread(t).state.is_runnable();
        let want = match (runnable, self.parts.level(t), self.expired_at.value(t)) {
            (true, Some(level), Some(at)) => Some((usize::from(level != FAST), at)),
            _ => None,
        };
        self.candidates.file(t, want);
    }

    /// Bring the balance counters up to date with the last quantum's CPU time: a thread that
    /// did not run and did not change keeps its counter and its expiry.
    fn update_counters(&mut self, view: &SystemView) {
        let clamp = BC_CLAMP_THRESHOLDS * self.threshold_ns;
        for &t in view.ran {
            self.touch(t);
        }
        let touched = std::mem::take(&mut self.touched);
        for &t in &touched {
            *self.is_touched.get_mut(t) = false;
            if view.thread(t).state == ampsched_model::ThreadState::Exited {
                continue;
            }
            let interval = view.interval_of(t);
            let d_fast: u64 = interval.iter().zip(self.fast_types).filter(|&(_, fast)| fast).map(|(c, _)| c.time_ns).sum();
            let d_total: u64 = interval.iter().map(|c| c.time_ns).sum();
            let bc = self.bc.get_mut(t);
            *bc = (*bc + self.alpha * (d_total - d_fast) as f64 - (1.0 - self.alpha) * d_fast as f64).clamp(-clamp, clamp);
            let bc = *bc;
            self.parts.set_claim(t, Bc(bc));
            let expired = match self.parts.level(t) {
                Some(FAST) => bc < -self.threshold_ns,
                Some(_) => bc > self.threshold_ns,
                None => false,
            };
            let at = self.expired_at.get_mut(t);
            *at = if expired { Some(at.unwrap_or(view.now_ns)) } else { None };
            self.refile(view, t);
        }
    }

    /// Algorithm 4.4: pair expired fast threads with expired slow threads, oldest expiry first
    /// on each side, and swap each pair.
    fn swap_expired(&mut self, view: &SystemView, out: &mut Placement) {
        let pairs: Vec<(ThreadId, ThreadId)> =
            self.candidates.set(0).iter().zip(self.candidates.set(1).iter()).map(|(&(_, f), &(_, s))| (f, s)).collect();
        for (f, s) in pairs {
            self.parts.swap(view, f, s, out);
            self.expired_at.set(f, None);
            self.expired_at.set(s, None);
            self.refile(view, f);
            self.refile(view, s);
        }
    }

    /// For one-way moves: the slow thread most behind goes up; the fast thread most ahead goes
    /// down (the claims, set as the counters change).
    fn keep_fast_busy(&mut self, view: &SystemView, out: &mut Placement) {
        let bc = &self.bc;
        self.parts.keep_fast_busy(view, out, |v| Bc(bc.value(v.id)));
    }
}

impl Policy for RoundRobin {
    fn name(&self) -> &str {
        INFO.name
    }
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) {
        self.parts.sync(view);
        if !self.parts.asymmetric() {
            return;
        }
        let changed = self.changes.since_last(view);
        for &t in changed {
            self.touch(t);
            self.refile(view, t);
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
