//! Fast-core efficiency, the one property of a thread Kim & Huh's fair schedulers read (Kim &
//! Huh, "Exploring the Design Space of Fair Scheduling Supports for Asymmetric Multicore
//! Systems", IEEE Trans. Computers 2018, §2, §6.1): e = IPS_fast / IPS_slow, the thread's
//! instruction rate on a fast core over that on a slow one.
//!
//! Where it comes from is a source (`EfficiencySource`), so that a policy does not care:
//! - `Online` (§6.1, the paper's emulated-AMP runs): every thread runs on both core types in
//!   every interval (the forced exploration, `EXPLORE_OPTION`, applied by the fairness daemon),
//!   and its instructions and CPU time on each type over the interval give one measurement,
//!   which drives the next interval's shares (§7.5: "the previous interval");
//! - `Offline` (§7.1's big.LITTLE runs, and §4's study, which knew them): each program's rates
//!   measured before the run alone on each core type (the runner's solo profiling runs,
//!   `Signals::PROFILE`, read as `camp:sf=offline` reads them).
//!
//! Online without hardware counters (the live agent on a machine without a PMU), a thread's
//! interval gives its CPU-time progress rates on each core type instead (`Signals::PROGRESS`,
//! `progress_rate.rs`, which says what they are worth: the emulated efficiency under cycle
//! stealing, nothing on real asymmetric cores); the counters are used wherever they are read.
//!
//! Choices the paper leaves open (seed summary §9 items 8 and 9), made here:
//! - **Averaging.** One interval's measurement is its whole-interval rate on each side
//!   (instructions over CPU time, so a long stint weighs more than a short one), used as it is
//!   for the next interval: no smoothing across intervals, as the paper describes ("measured and
//!   averaged" within the interval; the previous interval drives the next). A phase change is
//!   followed within one interval.
//! - **A side with no time.** An interval in which a thread had less than
//!   `MIN_SIDE_NS` on either side (it blocked, or the interval was cut short by its start or
//!   exit) gives no measurement: the thread keeps its previous estimate.
//! - **The first interval's prior.** A thread without a measurement takes its program's last
//!   estimate (an earlier run of the same app and thread group: the paper re-runs each app of a
//!   mix until all have finished once), else none: the daemon then uses the mean estimate of
//!   the other threads, or before any measurement exists, the fair-share split for everybody
//!   (`fairness::Daemon`), which explores both core types the most.

use ampsched_model::perf::sf_types;
use ampsched_model::view::AppId;
use ampsched_model::{Machine, PolicyFailure, Signals, SystemView, ThreadId, MAX_CORE_TYPES};

use super::per_thread::PerThread;
use super::progress_rate;
use crate::options::{OptionInfo, OptionKind, Options};

/// The least CPU time on a core type within one interval that makes a measurement: 2 ms, half
/// of one of the simulator's default 4 ms slices (`defaults::SLICE_MS`). Below it the rate is one
/// stint's (cache refill and the migration's cost dominate), not the thread's.
pub const MIN_SIDE_NS: u64 = 2_000_000;

pub const EFFICIENCY_OPTION: OptionInfo = OptionInfo {
    name: "efficiency",
    kind: OptionKind::Choice { default: "online", choices: &["online", "offline"] },
    doc: "online: each thread's fast-core efficiency measured in every interval from its counters on each core type \
          (forced exploration, Kim & Huh §6.1); offline: its program's, from solo profiling runs on each core type \
          before the run (as the paper's big.LITTLE runs, §7.1)",
};

/// The exploration minimum, as a fraction of each thread's CPU time on each side.
///
/// 0.05 (ours; the paper says only that the forced period "is short", §6.1): 100 ms per side in
/// a 2 s interval, 25 of the simulator's 4 ms slices and 1.5 ms of every 30 ms round, so a
/// measurement spans many stints (a program's phases and the per-switch migration cost average
/// out) while a thread's time on its minority side stays a twentieth. What it costs: under
/// max-perf with N threads, F fast cores and N = C, each of the N − F slow-side threads takes x
/// of fast time and the F fast-side threads give it up, (N − F)/F · x each; the throughput
/// lost is x·((N−F)/F·Σ_fast (e−1) − Σ_slow (e−1)) over the mix's performance Σ(e f + c − f),
/// about 2% for the paper's kind of six-app mix at 0.05 (docs/policies/fairness.md works one
/// through). A max-fair thread already runs on both sides and pays nothing.
pub const EXPLORE_OPTION: OptionInfo = OptionInfo {
    name: "explore",
    kind: OptionKind::Range { default: 0.05, min: 0.001, max: 0.5 },
    doc: "online exploration minimum: the least fraction of each thread's CPU time on each core type in every \
          interval (ours: 0.05, 100 ms per 2 s interval; costs about 2% throughput under max-perf; unused offline)",
};

/// Where a policy's efficiency estimates come from.
pub trait EfficiencySource: Send {
    /// Thread `t` starts (an offline source reads its profile here).
    fn start(&mut self, view: &SystemView, t: ThreadId) -> Result<(), PolicyFailure>;
    /// An interval ended (`view.interval` holds it): take its measurements.
    fn interval(&mut self, view: &SystemView);
    /// Thread `t`'s current estimate, if there is one.
    fn estimate(&self, t: ThreadId) -> Option<f64>;
    /// Whether the source needs every thread to run on both core types (the daemon's
    /// exploration minimum).
    fn explores(&self) -> bool;
    /// What the source is, for a report.
    fn describe(&self) -> String;
}

/// Which core types count as the fast side (`Machine::is_fast_type`); every other type is the
/// slow side (on a machine of two types, the paper's two).
fn fast_mask(m: &Machine) -> [bool; MAX_CORE_TYPES] {
    m.fast_type_mask()
}

/// Kim & Huh's online estimator (§6.1): e = IPS_fast / IPS_slow over each interval.
pub struct Online {
    fast: [bool; MAX_CORE_TYPES],
    types: usize,
    /// The last interval had no counters: its measurements were progress rates.
    progress_rates: bool,
    estimate: PerThread<Option<f64>>,
    /// The last estimate of each (app, group), for a new thread of the same program.
    last_of_group: std::collections::BTreeMap<(AppId, u16), f64>,
}

impl Online {
    pub fn new(m: &Machine) -> Self {
        Online { fast: fast_mask(m), types: m.core_types.len(), progress_rates: false, estimate: PerThread::new(), last_of_group: Default::default() }
    }

    /// One interval's measurement from per-type (instructions, ns): None if a side had less
    /// than `MIN_SIDE_NS` or retired nothing.
    pub fn measure(&self, per_type: impl Iterator<Item = (usize, f64, u64)>) -> Option<f64> {
        let (mut fi, mut ft, mut si, mut st) = (0.0, 0u64, 0.0, 0u64);
        for (ty, instructions, ns) in per_type {
            if self.fast[ty] {
                fi += instructions;
                ft += ns;
            } else {
                si += instructions;
                st += ns;
            }
        }
        if ft < MIN_SIDE_NS || st < MIN_SIDE_NS || fi <= 0.0 || si <= 0.0 {
            return None;
        }
        Some((fi / ft as f64) / (si / st as f64))
    }
}

impl EfficiencySource for Online {
    fn start(&mut self, view: &SystemView, t: ThreadId) -> Result<(), PolicyFailure> {
        let v = view.thread(t);
        self.estimate.set(t, self.last_of_group.get(&(v.app, v.group)).copied());
        Ok(())
    }

    fn interval(&mut self, view: &SystemView) {
        self.progress_rates = !view.available.contains(Signals::COUNTERS);
        for &t in view.ran {
            let c = view.interval_of(t);
            let measured = if self.progress_rates {
                progress_rate::efficiency(view.machine, c)
            } else {
                self.measure((0..self.types).map(|ty| (ty, c[ty].instructions, c[ty].time_ns)))
            };
            let Some(e) = measured else { continue };
            self.estimate.set(t, Some(e));
            let v = view.thread(t);
            self.last_of_group.insert((v.app, v.group), e);
        }
    }

    fn estimate(&self, t: ThreadId) -> Option<f64> {
        self.estimate.value(t)
    }

    fn explores(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        if self.progress_rates {
            return format!("online: {}", progress_rate::SOURCE);
        }
        "online: instructions per second on each core type over each interval (hardware counters)".into()
    }
}

/// The solo profiling runs' efficiency of each thread's program (`Signals::PROFILE`): its rate
/// alone on the fastest core type over alone on the slowest (`perf::sf_types`).
pub struct Offline {
    estimate: PerThread<Option<f64>>,
}

impl Offline {
    pub fn new() -> Self {
        Offline { estimate: PerThread::new() }
    }
}

impl Default for Offline {
    fn default() -> Self {
        Self::new()
    }
}

/// Thread `t`'s program's efficiency from its group's solo profile, if it has one that retired
/// instructions on both types.
pub fn offline_efficiency(view: &SystemView, t: ThreadId) -> Option<f64> {
    let v = view.thread(t);
    let ips = view.apps[v.app as usize].solo_ips.get(v.group as usize).copied().flatten()?;
    let (fast, slow) = sf_types(view.machine);
    let e = ips[fast] / ips[slow];
    (e.is_finite() && e > 0.0).then_some(e)
}

impl EfficiencySource for Offline {
    fn start(&mut self, view: &SystemView, t: ThreadId) -> Result<(), PolicyFailure> {
        if view.apps[view.thread(t).app as usize].solo_ips.is_empty() {
            return Err(PolicyFailure("efficiency=offline: no offline solo profile for this thread's program (needs the profiling runs; never live)".into()));
        }
        // A group that retired nothing alone gives no evidence: the daemon treats it as unknown.
        self.estimate.set(t, offline_efficiency(view, t));
        Ok(())
    }

    fn interval(&mut self, _view: &SystemView) {}

    fn estimate(&self, t: ThreadId) -> Option<f64> {
        self.estimate.value(t)
    }

    fn explores(&self) -> bool {
        false
    }

    fn describe(&self) -> String {
        "offline: each program's solo profiling runs on each core type".into()
    }
}

/// The source `efficiency=` names.
pub fn source(o: &Options, m: &Machine) -> Box<dyn EfficiencySource> {
    if o.choice(EFFICIENCY_OPTION.name) == "offline" {
        Box::new(Offline::new())
    } else {
        Box::new(Online::new(m))
    }
}

/// What a policy reading efficiencies with options `o` needs beyond `base`: the solo profiles
/// offline; online, the progress rates, which every source gives (the counters are read where
/// there are some: the policies list them as optional).
pub fn needs(o: &Options, base: Signals) -> Signals {
    if o.choice(EFFICIENCY_OPTION.name) == "offline" {
        base.union(Signals::PROFILE)
    } else {
        base.union(Signals::PROGRESS)
    }
}
