//! `hass-s`: HASS-S, the heterogeneity-aware signature-supported scheduler with static
//! signatures (Sáez thesis, §4.2.1 and Algorithm 4.1; first proposed by Shelepov, Sáez et al.,
//! "HASS: a scheduler for heterogeneous multicore systems", ACM SIGOPS OSR 43(2), 2009).
//!
//! Each thread's SF is fixed: its program's static signature (LLC misses per instruction at
//! each LLC size, as an offline profiling run measures them) read at each core type's LLC size,
//! put in the thesis's estimation model with its fixed base CPI (`base_cpi`, 1.5) and one
//! memory latency (`common::sf::static_sf`; `common::sf_model`, never the engine's model). A
//! thread's expected performance in a partition is its speed there (SF on the fast cores, 1 on
//! the slow ones; on more levels, T_slowest / T_level) times its share of a core, CPU time being
//! shared equally in a partition: min(1, cores / runnable threads, itself counted). At a thread's start (after the thesis's initial placement, §2.3:
//! the partition of lowest scaled load, ties to the faster) and at every refresh, Algorithm 4.1:
//! 1. a thread on the fast partition with no more runnable threads than cores is optimal: done;
//! 2. otherwise it moves to the partition of highest expected performance if that beats its
//!    own and the move keeps the machine balanced (§2.3; `Partitions::move_keeps_balance`);
//! 3. otherwise, optimistic rebinding: it swaps with a partner when the swap helps both it and
//!    the system, judged by their SFs (a slow thread of higher SF than a fast one). The thesis
//!    probes random partners; the runnable threads of each partition kept ordered by SF make
//!    the best partner a lookup (`Partitions::exchange`), so we take it, deterministically.
//!
//! A refresh comes each time a thread has run `refresh_ms` of CPU time since its last one (CPU
//! time, not wall time, "so that the number of refreshes does not grow with the load"), and is
//! skipped while no thread's partition or runnability changed since (the thesis: it "can be
//! skipped if the system load has not changed"; a static SF changes nothing else). Between
//! refreshes, the framework's one-way moves keep fast cores busy (`keep_fast_busy`), taking the
//! slow thread of highest SF up and the fast thread of lowest SF down. HASS-S knows no phases:
//! its upper bound is the best static assignment.

use ampsched_model::{Diagnostics, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use crate::common::sf::{static_sf, static_speeds, Sf, BASE_CPI_OPTION, LOWEST_SF};
use crate::common::{Level, Partitions, PerThread, FAST};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "hass-s",
    description: "HASS-S: threads of higher static speedup factor (program signature) on the fast cores",
    source: "Sáez thesis, §4.2.1, Algorithm 4.1 (HASS-S, after Shelepov, Sáez et al., OSR 2009)",
    options: &[
        OptionInfo {
            name: "quantum_ms",
            // As rr's: how often the threads' CPU time is looked at, not a decision period.
            kind: OptionKind::quantum_ms(10.0),
            doc: "how often the threads' CPU time is checked for refreshes",
        },
        OptionInfo {
            name: "refresh_ms",
            // The thesis leaves the amount open. 200 ms of CPU time: HASS-D's sampling period,
            // so both variants re-examine a thread at the same pace, and a few migrations a
            // second at most per thread, each costing well under 1% of that time.
            kind: OptionKind::Range { default: 200.0, min: 0.1, max: 1e6 },
            doc: "CPU time a thread runs between refreshes of its assignment (the thesis leaves it open; 200 ms, HASS-D's sampling period)",
        },
        BASE_CPI_OPTION,
    ],
    needs: Signals::HINTS,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(HassS::new(o, m))),
};

pub struct HassS {
    parts: Partitions<Sf>,
    quantum_ns: u64,
    refresh_ns: u64,
    /// The estimator's fixed CPI (`base_cpi`).
    base_cpi: f64,
    /// Each thread's static SF, and its speed per partition (T_slowest / T_level), once seen.
    sf: PerThread<Option<f64>>,
    speed: PerThread<Vec<f64>>,
    /// The first core type of each partition, whose time per instruction is the partition's.
    level_types: Vec<usize>,
    /// CPU time of each thread at its last refresh.
    refreshed_at_ns: PerThread<u64>,
    /// Counts the calls at which some thread's partition or runnability changed; a thread's
    /// refresh is skipped while it is the count of its last refresh.
    load_epoch: u64,
    refreshed_epoch: PerThread<u64>,
}

impl HassS {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let parts = Partitions::new(m);
        let level_types = (0..parts.levels()).map(|l| m.cores[parts.cores(l).iter().next().expect("a partition has cores")].core_type).collect();
        HassS {
            parts,
            quantum_ns: o.ms("quantum_ms"),
            refresh_ns: o.ms("refresh_ms"),
            base_cpi: o.number(BASE_CPI_OPTION.name),
            sf: PerThread::new(),
            speed: PerThread::new(),
            level_types,
            refreshed_at_ns: PerThread::new(),
            load_epoch: 1,
            refreshed_epoch: PerThread::new(),
        }
    }

    /// Read thread `t`'s signature once: its SF (its claim on the fast cores) and its speeds.
    fn learn(&mut self, view: &SystemView, t: ThreadId) {
        if self.sf.value(t).is_some() {
            return;
        }
        let v = view.thread(t);
        let m = view.machine;
        let sig = view.apps[v.app as usize].signatures.get(v.group as usize).and_then(|s| s.as_ref());
        let sf = sig.map_or(LOWEST_SF, |s| static_sf(m, s, self.base_cpi));
        let speed = sig.map_or_else(|| vec![1.0; self.level_types.len()], |s| static_speeds(m, s, &self.level_types, self.base_cpi));
        self.sf.set(t, Some(sf));
        self.speed.set(t, speed);
        self.parts.set_claim(t, Sf(sf));
    }

    /// Thread `t`'s expected performance in partition `l`: speed × its share of a core there.
    fn expected(&self, t: ThreadId, l: Level) -> f64 {
        let here = self.parts.level(t) == Some(l);
        let threads = self.parts.load(l) + usize::from(!here);
        let share = (self.parts.ncores(l) as f64 / threads.max(1) as f64).min(1.0);
        self.speed.get(t).and_then(|s| s.get(l)).copied().unwrap_or(1.0) * share
    }

    /// Algorithm 4.1's regular assignment, then optimistic rebinding, for runnable thread `t`.
    fn assign(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        // A thread off the CPU now is looked at again at the next quantum it runs in.
        let Some(cur) = self.parts.level(t).filter(|_| view.thread(t).state.is_runnable()) else { return };
        self.refreshed_epoch.set(t, self.load_epoch);
        self.refreshed_at_ns.set(t, view.thread(t).total_time_ns());
        if cur == FAST && self.parts.load(FAST) <= self.parts.ncores(FAST) {
            return;
        }
        let best = (0..self.parts.levels()).max_by(|&a, &b| self.expected(t, a).total_cmp(&self.expected(t, b)).then(b.cmp(&a)));
        if let Some(to) = best.filter(|&to| to != cur && self.expected(t, to) > self.expected(t, cur) && self.parts.move_keeps_balance(t, to)) {
            self.parts.assign(view, t, to, out);
        } else {
            self.parts.exchange(view, t, out);
        }
    }
}

impl Policy for HassS {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        if self.parts.begin(view).is_none() {
            return Ok(());
        }
        if !view.changed.is_empty() {
            self.load_epoch += 1;
        }
        match view.trigger {
            Trigger::Start(t) => {
                self.learn(view, t);
                self.parts.place_new(view, t, out);
                self.assign(view, t, out);
            }
            Trigger::Quantum => {
                for &t in view.ran {
                    let due = view.thread(t).total_time_ns() >= self.refreshed_at_ns.value(t) + self.refresh_ns;
                    if due && self.refreshed_epoch.value(t) != self.load_epoch {
                        self.learn(view, t);
                        self.assign(view, t, out);
                    }
                }
            }
            Trigger::Exit(_) | Trigger::Block(_) | Trigger::Wake(_) => {}
        }
        let sf = &self.sf;
        self.parts.keep_fast_busy(view, out, |v| Sf(sf.value(v.id).unwrap_or(LOWEST_SF)));
        Ok(())
    }
    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        Some(self)
    }
}

impl Diagnostics for HassS {
    fn sf_estimate(&self, t: ThreadId) -> Option<f64> {
        self.sf.value(t)
    }
}
