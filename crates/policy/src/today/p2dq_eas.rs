//! `p2dq-eas`: utilisation thresholds between little and big CPUs, after sched-ext/scx's
//! scx_p2dq with `--enable-eas` (scheds/rust/scx_p2dq/src/energy.rs: `derive_thresholds`,
//! `energy_cost`; src/bpf/main.bpf.c: `prefer_little_core`, `prefer_big_core`,
//! `pick_idle_energy_aware`, `select_best_idle_cpu`).
//!
//! - A thread whose utilisation is below the small-task threshold prefers the little CPUs; above
//!   the large-task threshold, the big CPUs. The thresholds: 25% of the little capacity (at
//!   least 128) and 75% of the big capacity (at most 896); on a machine whose capacities differ
//!   by less than 200, 256 and 768.
//! - Between the two, p2dq scores an idle CPU of each kind, capacity × 10 − energy cost / 10,
//!   and takes the higher (`score`, the default): in practice the big CPU unless the kinds are
//!   close in capacity. `middle=cheaper` takes the kind of lower energy cost instead, the reading
//!   of the cost as a preference for the efficient core.
//! - The energy cost of a CPU is its power over its capacity × 1024 (`energy_cost`), power being
//!   the type's active power at its highest level (p2dq reads the highest performance state of
//!   the kernel's energy model); a machine without power gives every CPU p2dq's default cost of
//!   1024, and the score is then capacity alone.
//! - When the preferred kind has no idle CPU, p2dq falls back to an idle CPU of the other kind.
//!
//! Utilisation is the shared PELT estimate's util_avg (`common::utilization`); p2dq keeps its own
//! util_avg per task, the same quantity. Little and big are scx_utils's classes
//! (`common::core_class`): on a machine without little CPUs the rule is off and nothing is placed.
//!
//! What it simplifies: p2dq decides at each wake-up, among CPUs idle at that moment; here each
//! thread's affinity is set each quantum (4 ms) to the CPUs of its kind, and "idle" is counted
//! per quantum: a kind has a free CPU while fewer runnable threads were given it this quantum
//! than it has CPUs (threads taken in order of id). p2dq's LLC and deadline queues, pick-two
//! load balancing and the homogeneous machine's performance/efficiency modes are not modelled.
//!
//! Live: yes. Utilisation comes from the per-quantum CPU times, the decision is an affinity.

use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use super::{set_if_changed, DECISION_MS};
use crate::common::core_class::CoreClasses;
use crate::common::utilization::Utilization;
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "p2dq-eas",
    description:
        "scx_p2dq --enable-eas: utilisation under 25% of a little CPU's capacity to little CPUs, over 75% of a big CPU's to big ones, between by energy score",
    source: "sched-ext/scx scheds/rust/scx_p2dq/src/energy.rs (derive_thresholds, energy_cost) and src/bpf/main.bpf.c (pick_idle_energy_aware)",
    options: &OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(P2dqEas::new(o, m))),
};

const OPTIONS: [OptionInfo; 2] = [
    OptionInfo {
        name: "middle",
        kind: OptionKind::Choice { default: "score", choices: &["score", "cheaper"] },
        doc: "between the thresholds: score (p2dq's select_best_idle_cpu, capacity*10 - cost/10, the higher wins) or cheaper (the kind of \
              lower power/capacity*1024)",
    },
    OptionInfo {
        name: "quantum_ms",
        kind: OptionKind::quantum_ms(DECISION_MS),
        doc: "how often threads are re-placed (p2dq places at each wake-up; 4 ms is Linux's tick at HZ=250)",
    },
];

/// p2dq's thresholds on a machine whose capacities differ by less than this
/// (energy.rs `derive_thresholds`: "less than ~20% variation").
pub const HOMOGENEOUS_SPREAD: u32 = 200;
/// The homogeneous machine's small- and large-task thresholds, 25% and 75% of 1024.
pub const HOMOGENEOUS_THRESHOLDS: (u32, u32) = (256, 768);
/// Bounds of the big.LITTLE thresholds: small at least 128, large at most 896.
pub const SMALL_MIN: u32 = 128;
pub const LARGE_MAX: u32 = 896;
/// A CPU's energy cost where the machine gives no power (main.bpf.c `get_cpu_energy_cost`).
pub const DEFAULT_COST: u32 = 1024;

/// `derive_thresholds`: (small, large) from the lowest and highest capacity.
pub fn thresholds(min_cap: u32, max_cap: u32) -> (u32, u32) {
    if max_cap - min_cap < HOMOGENEOUS_SPREAD {
        return HOMOGENEOUS_THRESHOLDS;
    }
    ((min_cap / 4).max(SMALL_MIN), (max_cap * 3 / 4).min(LARGE_MAX))
}

/// `energy_cost`: power (mW) over capacity, × 1024.
pub fn energy_cost(power_w: f64, capacity: u32) -> u32 {
    (power_w * 1000.0 / capacity as f64 * 1024.0) as u32
}

/// `select_best_idle_cpu`'s score: capacity × 10 less a tenth of the cost (1 if the cost
/// exceeds it).
pub fn score(capacity: u32, cost: u32) -> u32 {
    let s = capacity * 10;
    if cost < s {
        s - cost / 10
    } else {
        1
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Little,
    Big,
}

pub struct P2dqEas {
    util: Utilization,
    quantum_ns: u64,
    /// Little and big CPUs; None on a machine without little CPUs (the rule is off).
    sets: Option<[CoreSet; 2]>,
    small: u32,
    large: u32,
    /// Which kind the middle band takes.
    middle: Kind,
}

impl P2dqEas {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let classes = CoreClasses::of(m);
        let caps: Vec<u32> = m.cores.iter().map(|c| m.core_types[c.core_type].capacity).collect();
        let (min_cap, max_cap) = (caps.iter().copied().min().unwrap_or(0), caps.iter().copied().max().unwrap_or(0));
        let (small, large) = thresholds(min_cap, max_cap);
        // Each kind's best CPU (its highest capacity, its cost there): every CPU of a type is
        // alike, so the best idle CPU of a kind is one of its biggest.
        let best = |set: &CoreSet| -> (u32, u32) {
            set.iter()
                .map(|c| {
                    let ct = m.core_type_of(c);
                    (ct.capacity, if m.models_energy() { energy_cost(ct.power_active_w, ct.capacity) } else { DEFAULT_COST })
                })
                .max_by_key(|&(cap, cost)| (score(cap, cost), std::cmp::Reverse(cost)))
                .unwrap_or((0, DEFAULT_COST))
        };
        let (little, big) = (best(&classes.little), best(&classes.big));
        let middle = match o.choice("middle") {
            "cheaper" if little.1 <= big.1 => Kind::Little,
            "cheaper" => Kind::Big,
            _ if score(little.0, little.1) >= score(big.0, big.1) => Kind::Little,
            _ => Kind::Big,
        };
        P2dqEas {
            util: Utilization::new(),
            quantum_ns: o.ms("quantum_ms"),
            sets: classes.has_little().then(|| [classes.little.clone(), classes.big.clone()]),
            small,
            large,
            middle,
        }
    }

    /// The kind thread `t` prefers by its utilisation.
    pub fn preferred(&self, util: u32) -> Kind {
        if util < self.small {
            Kind::Little
        } else if util > self.large {
            Kind::Big
        } else {
            self.middle
        }
    }

    /// Place `t` on its preferred kind if that has a free CPU left this call (`free`), else on
    /// the other kind if it has one, else on the preferred kind anyway.
    fn place(&self, view: &SystemView, t: ThreadId, sets: &[CoreSet; 2], free: &mut [usize; 2], out: &mut Placement) {
        let want = self.preferred(self.util.util_avg(t)) as usize;
        let other = 1 - want;
        let kind = if free[want] == 0 && free[other] > 0 { other } else { want };
        free[kind] = free[kind].saturating_sub(1);
        set_if_changed(view, t, &sets[kind], out);
    }
}

impl Policy for P2dqEas {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.quantum_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::START
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        self.util.update(view);
        let Some(sets) = &self.sets else { return Ok(()) };
        let mut free = [sets[0].len(), sets[1].len()];
        if let Trigger::Start(t) = view.trigger {
            // Free CPUs now: those no runnable thread is on.
            for (k, set) in sets.iter().enumerate() {
                free[k] = set.iter().filter(|&c| view.cores[c].nr_running == 0).count();
            }
            self.place(view, t, sets, &mut free, out);
            return Ok(());
        }
        for &t in view.live {
            if view.thread(t).state.is_runnable() {
                self.place(view, t, sets, &mut free, out);
            }
        }
        Ok(())
    }
}
