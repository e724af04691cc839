//! `compaction`: core compaction with big cores for performance-critical threads, after
//! sched-ext/scx's scx_lavd (scheds/rust/scx_lavd/src/bpf/power.bpf.c: `calc_nr_active_cpus`,
//! `do_core_compaction`, `update_thr_perf_cri`, `do_autopilot`, `init_autopilot_caps`; constants
//! in lavd.bpf.h).
//!
//! Every stats interval (10 ms, `LAVD_SYS_STAT_INTERVAL_NS`):
//! - **Required capacity**: the sum of the live threads' capacity- and frequency-invariant
//!   utilisation (PELT util_avg: what `calc_required_capacity` reads as nr_cpus × the scaled
//!   average CPU utilisation), plus 25% headroom for spikes (`LAVD_CC_REQ_CAPACITY_HEADROOM`).
//! - **Active CPUs**: walking the CPUs in the mode's order (powersave: smallest first; else
//!   biggest first), each counts for half its capacity (`LAVD_CC_PER_CPU_UTIL`: an active CPU is
//!   kept at most ~50% busy) until the sum reaches the required capacity. The rest are idle; in
//!   performance mode every CPU is active (no compaction).
//! - **Big or little**: a thread whose performance criticality passes `thr_perf_cri` goes to the
//!   active big CPUs, the others to the active little ones. The threshold splits the criticality
//!   range [min, avg, max] of the threads that ran by the little CPUs' share of the active
//!   capacity: below half, thr = min + (avg − min)·little/512; above, thr = avg + (max − avg)·
//!   (little − 512)/512 (1024-scale shares). All active CPUs big: everyone critical; all little:
//!   no one.
//! - **Autopilot** (the default mode): required capacity (without headroom) at most half a
//!   little CPU's capacity → powersave; at most 50% of the machine's total capacity (25% with
//!   SMT) → balanced; above → performance (`do_autopilot`, with `init_autopilot_caps`' values
//!   for a machine without an energy model).
//!
//! Criticality. lavd's `perf_cri` (lat_cri.bpf.c) is log(wait frequency × wake frequency) +
//! log(runtime): a task in the middle of a wake-up chain that runs long. The view gives neither
//! wake-up frequencies nor per-run runtimes, only CPU time per quantum; our criticality is the
//! runtime half alone, the thread's utilisation (util_avg, the shared estimator of
//! `common::utilization`; not util_est, which a policy called each interval only samples at the
//! sleeps it sees): a thread that keeps a CPU busy is critical, a wake-up chain of short runs
//! is not.
//!
//! What it simplifies: lavd places at each wake-up (prefer an idle CPU of the task's kind among
//! the active ones, then the other kind, then overflow CPUs); here a thread's affinity is the
//! active CPUs of its kind (all active CPUs when that kind has none active), set each interval,
//! and the local scheduler balances inside it. lavd's overflow set (a CPU outside the active set
//! that still has pinned or queued work, released at random about every 250 ms,
//! `LAVD_CC_CPU_PIN_INTERVAL`) becomes a hysteresis: the active set grows at once and shrinks
//! only once it has not grown for `pin_ms`. The CPU orders sort by capacity alone (lavd's also
//! group compute domains and SMT siblings); the energy-model path (PCO tables) is not modelled:
//! the machine is treated as lavd treats one without an energy model. No frequency control
//! (lavd's `update_cpuperf_target`), no latency criticality, deadlines or slices: the local
//! scheduler's time sharing stays.
//!
//! Live: yes. Everything is read from the per-interval CPU times and applied as affinities.

use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use super::set_if_changed;
use crate::common::core_class::CoreClasses;
use crate::common::utilization::{Utilization, SCHED_CAPACITY_SCALE};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "compaction",
    description:
        "scx_lavd-style core compaction: as few CPUs active as keep each ~50% busy (25% headroom), big ones for performance-critical threads; autopilot modes",
    source: "sched-ext/scx scheds/rust/scx_lavd/src/bpf/power.bpf.c (calc_nr_active_cpus, do_core_compaction, update_thr_perf_cri, do_autopilot)",
    options: &OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(Compaction::new(o, m))),
};

const OPTIONS: [OptionInfo; 3] = [
    OptionInfo {
        name: "mode",
        kind: OptionKind::Choice { default: "autopilot", choices: &["autopilot", "performance", "balanced", "powersave"] },
        doc: "lavd's power modes: autopilot (its default) picks one of the others from the required capacity; performance: no compaction; \
              balanced: compaction, big CPUs first; powersave: compaction, little CPUs first",
    },
    OptionInfo {
        name: "stats_ms",
        kind: OptionKind::quantum_ms(10.0),
        doc: "the interval at which utilisation, the active set and the threshold are recomputed (lavd's LAVD_SYS_STAT_INTERVAL_NS, 10 ms)",
    },
    OptionInfo {
        name: "pin_ms",
        kind: OptionKind::Range { default: 250.0, min: 0.0, max: 10_000.0 },
        doc: "an active set shrinks only after this long without growing (standing for lavd's overflow CPUs, released about every \
              LAVD_CC_CPU_PIN_INTERVAL = 250 ms)",
    },
];

/// `LAVD_CC_PER_CPU_UTIL`: an active CPU counts for half its capacity (lavd.bpf.h: p2s(50)).
pub const PER_CPU_UTIL: u64 = 512;
/// `LAVD_CC_REQ_CAPACITY_HEADROOM`: the required capacity is raised 25% (lavd.bpf.h: p2s(25)).
pub const HEADROOM: u64 = 256;
/// `LAVD_AP_HIGH_UTIL_DFL_NO_SMT_RT`: the autopilot goes to performance above 50% of the total
/// capacity (lavd.bpf.h: p2s(50), without SMT).
pub const AP_HIGH_UTIL: u64 = 512;
/// `LAVD_AP_HIGH_UTIL_DFL_SMT_RT`: 25% on a machine with SMT (lavd.bpf.h: p2s(25)), where half
/// the CPUs are second hardware threads.
pub const AP_HIGH_UTIL_SMT: u64 = 256;
/// lavd's fixed-point scale (`LAVD_SCALE`, 1 << `LAVD_SHIFT` = 1024).
const SCALE: u64 = SCHED_CAPACITY_SCALE as u64;

/// lavd's power modes (`LAVD_PM_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Performance,
    Balanced,
    Powersave,
}

pub struct Compaction {
    util: Utilization,
    classes: CoreClasses,
    /// None: autopilot.
    fixed: Option<Mode>,
    stats_ns: u64,
    pin_ns: u64,
    mode: Mode,
    active: CoreSet,
    /// When the active set last grew (or changed order).
    grown_ns: u64,
    /// The performance-criticality threshold of the last interval.
    thr: u32,
    /// The autopilot's marks (`init_autopilot_caps` without an energy model).
    low_cap: u64,
    high_cap: u64,
}

impl Compaction {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let classes = CoreClasses::of(m);
        let cap = |c: usize| m.core_type_of(c).capacity as u64;
        // "We move up to the balanced mode if one core is half utilized": half of one little
        // CPU's capacity (the smallest CPU's where there is no little one).
        let one_little = classes.little.iter().map(cap).max().unwrap_or_else(|| (0..m.num_cores()).map(cap).min().unwrap_or(SCALE));
        let total: u64 = (0..m.num_cores()).map(cap).sum();
        let fixed = match o.choice("mode") {
            "performance" => Some(Mode::Performance),
            "balanced" => Some(Mode::Balanced),
            "powersave" => Some(Mode::Powersave),
            _ => None,
        };
        Compaction {
            util: Utilization::new(),
            fixed,
            stats_ns: o.ms("stats_ms"),
            pin_ns: o.ms("pin_ms"),
            mode: fixed.unwrap_or(Mode::Balanced),
            active: m.all_cores(),
            grown_ns: 0,
            thr: 0,
            low_cap: one_little / 2,
            high_cap: total * if m.has_smt() { AP_HIGH_UTIL_SMT } else { AP_HIGH_UTIL } / SCALE,
            classes,
        }
    }

    /// The mode the autopilot picks for required capacity `req` (`do_autopilot`).
    pub fn autopilot(&self, req: u64) -> Mode {
        if req <= self.low_cap {
            Mode::Powersave
        } else if req <= self.high_cap {
            Mode::Balanced
        } else {
            Mode::Performance
        }
    }

    /// The active CPUs for required capacity `req` in `mode` (`calc_nr_active_cpus` without an
    /// energy model): the first CPUs of the mode's order whose halved capacities cover `req`
    /// plus the headroom; every CPU in performance mode.
    pub fn active_set(&self, m: &Machine, req: u64, mode: Mode) -> CoreSet {
        if mode == Mode::Performance {
            return m.all_cores();
        }
        let need = req + req * HEADROOM / SCALE;
        let order = if mode == Mode::Powersave { &self.classes.powersave_order } else { &self.classes.performance_order };
        let mut set = CoreSet::EMPTY;
        let mut sum = 0u64;
        for &c in order {
            set.insert(c);
            sum += m.core_type_of(c).capacity as u64 * PER_CPU_UTIL / SCALE;
            if sum >= need {
                break;
            }
        }
        set
    }

    /// The active set's share of big capacity (`cur_big_core_scale`, 0..=1024).
    fn big_scale(&self, m: &Machine) -> u64 {
        let cap = |c: usize| m.core_type_of(c).capacity as u64;
        let sum: u64 = self.active.iter().map(cap).sum();
        let big: u64 = self.active.intersection(&self.classes.big).iter().map(cap).sum();
        (big * SCALE).checked_div(sum).unwrap_or(SCALE)
    }

    /// Where thread `t` belongs now: the active CPUs of its kind, or every active CPU where its
    /// kind has none active.
    fn target(&self, t: ThreadId) -> CoreSet {
        let kind = if self.util.util_avg(t) > self.thr { &self.classes.big } else { &self.classes.little };
        let mine = self.active.intersection(kind);
        if mine.is_empty() {
            self.active.clone()
        } else {
            mine
        }
    }

    fn place(&self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        set_if_changed(view, t, &self.target(t), out);
    }
}

/// `update_thr_perf_cri`: the criticality above which a task goes big, from the criticality
/// range [min, avg, max] and the active big share (1024 scale).
pub fn threshold(min: u32, avg: u32, max: u32, big_scale: u64) -> u32 {
    match big_scale {
        0 => return max,
        SCALE => return 0,
        _ => {}
    }
    let little = SCALE - big_scale;
    let half = SCALE / 2;
    let thr = if little < half { min as u64 + (avg - min) as u64 * little / half } else { avg as u64 + (max - avg) as u64 * (little - half) / half };
    thr as u32
}

impl Policy for Compaction {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.stats_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers::START
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        self.util.update(view);
        let m = view.machine;
        if let Trigger::Start(t) = view.trigger {
            self.place(view, t, out);
            return Ok(());
        }
        let req: u64 = view.live.iter().map(|&t| self.util.util_avg(t) as u64).sum();
        self.mode = self.fixed.unwrap_or_else(|| self.autopilot(req));
        let next = self.active_set(m, req, self.mode);
        if !next.is_subset(&self.active) {
            self.grown_ns = view.now_ns;
            self.active = next;
        } else if next != self.active && view.now_ns >= self.grown_ns + self.pin_ns {
            self.active = next;
        }
        // The criticality range of the threads that ran this interval.
        let crit: Vec<u32> = view.ran.iter().map(|&t| self.util.util_avg(t)).collect();
        if let (Some(&min), Some(&max)) = (crit.iter().min(), crit.iter().max()) {
            let avg = (crit.iter().map(|&c| c as u64).sum::<u64>() / crit.len() as u64) as u32;
            self.thr = threshold(min, avg, max, self.big_scale(m));
        }
        for &t in view.live {
            self.place(view, t, out);
        }
        Ok(())
    }
}
