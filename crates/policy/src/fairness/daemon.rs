//! The share daemon every fairness policy runs (Kim & Huh, "Exploring the Design Space of Fair
//! Scheduling Supports for Asymmetric Multicore Systems", IEEE Trans. Computers 2018, §6.2):
//! every interval (2 s) it reads each thread's efficiency estimate (`common::efficiency`), forms
//! the core shares c_i from the threads' weights, asks the policy's rule (`Rule`) for the fast
//! shares f_i, applies the exploration minimum, and gives each thread its fast-core share
//! f_i / c_i (`Placement::set_fast_share`, which the local layer enforces in 30 ms rounds, §6.2's
//! fast_round/slow_round).
//!
//! Choices of ours, where the paper (one thread per app, N = C, a fixed set of apps) is silent:
//! - **Core shares.** c_i = w_i / Σw · C over the live threads (the SMP fair share, §2), w_i the
//!   CFS weight of the app's nice value; a thread cannot use more than one core, so shares above
//!   1 are capped and the excess shared among the others in proportion to weight (as SMP fair
//!   schedulers do with infeasible weights). With N ≤ C every thread gets c_i = 1.
//! - **Multithreaded apps** (§7.6's prototype): the unit of the rule is the app, whose c is the
//!   sum of its threads' and whose e is the mean of its threads' estimates; inside the app every
//!   thread gets the same fraction f_app / c_app of its time on fast cores (max-fair under the
//!   fair-share base among its threads: the "illusion of symmetric multi-cores"). With one
//!   thread per app this is the paper's per-thread scheduling exactly.
//! - **Recomputation.** At every interval, and when a thread starts or exits (the set of threads
//!   and so the c_i changed; the estimates are the last interval's). Rules with a state in time
//!   (r-fair, guaranteed-fairness) advance it only at interval ends.
//! - **Unknown efficiencies.** A unit without any estimate takes the mean of the others'; before
//!   any estimate exists every unit gets the fair-share split F · c / Σc (max-fair for equal
//!   efficiencies under every base, and the split that explores both core types the most).
//! - **Exploration** (online source only): each unit's f is kept within [x·c, (1 − x)·c], x =
//!   `explore`, with the fast cores still fully shared (Σf = F): the fast time the slow-side
//!   units must get is given up by the units of most fast share (`explore`; the option's doc
//!   has the cost).

use std::collections::BTreeMap;

use ampsched_model::nice::weight_of_nice;
use ampsched_model::view::AppId;
use ampsched_model::{Diagnostics, Machine, Placement, Policy, PolicyFailure, SystemView, ThreadId, Trigger, Triggers};

use super::model::{Base, Mix, SHARE_EPSILON};
use crate::common::efficiency::{self, EfficiencySource, EFFICIENCY_OPTION, EXPLORE_OPTION};
use crate::common::PerThread;
use crate::options::{OptionInfo, OptionKind, Options};

pub const INTERVAL_OPTION: OptionInfo = OptionInfo {
    name: "interval_ms",
    // §6.2 and Fig. 13: 2 s, long enough that per-interval efficiencies do not fluctuate, short
    // enough to follow phases. 10 ms (a few slices, three 30 ms rounds' worth) to 10 min.
    kind: OptionKind::Range { default: 2000.0, min: 10.0, max: 600_000.0 },
    doc: "how often shares are recomputed and efficiencies measured, ms (Kim & Huh §6.2: 2000)",
};

pub const BASE_OPTION: OptionInfo = OptionInfo {
    name: "base",
    kind: OptionKind::Choice { default: "fair", choices: &["fair", "slow", "fast"] },
    doc: "base performance a thread's slowdown is measured from (Kim & Huh §2.2): fair share (fair), slow cores only (slow), fast cores only (fast)",
};

/// The options every share policy takes: the interval, the efficiency source and its
/// exploration minimum.
pub const COMMON_OPTIONS: [OptionInfo; 3] = [INTERVAL_OPTION, EFFICIENCY_OPTION, EXPLORE_OPTION];

/// The base `base=` names.
pub fn base(o: &Options) -> Base {
    Base::parse(o.choice(BASE_OPTION.name)).expect("checked by the option's choices")
}

/// One unit of the rule: an app's live threads.
#[derive(Debug, Clone)]
pub struct Unit {
    pub app: AppId,
    pub threads: Vec<ThreadId>,
    /// Cores' worth of CPU (Σ of its threads' c_i).
    pub c: f64,
    /// Its efficiency as the rule sees it (estimated, or filled in: see the module's doc).
    pub e: f64,
    /// Its threads' CPU time on fast and on other cores over the last interval, ns.
    pub fast_ns: u64,
    pub slow_ns: u64,
}

/// Why the rule is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// An interval ended: a rule with a state in time advances it.
    Interval,
    /// The set of threads changed between intervals.
    Between,
}

/// A fairness policy's decision: the fast shares f (one per unit, Σ ≤ F, each in [0, c]).
pub trait Rule: Send {
    fn shares(&mut self, mix: &Mix, units: &[Unit], when: When) -> Vec<f64>;
}

/// The daemon with a rule: the policy every fairness file builds.
pub struct Daemon {
    interval_ns: u64,
    explore: f64,
    source: Box<dyn EfficiencySource>,
    rule: Box<dyn Rule>,
    fast_cores: f64,
    cores: f64,
    /// The share each thread was last given (so that an unchanged share is not re-sent).
    given: PerThread<Option<f64>>,
    /// §7.5's comparison: per thread, its estimate at each interval end, until the first app
    /// finished a run.
    history: PerThread<Vec<f64>>,
    frozen: bool,
}

impl Daemon {
    pub fn new(o: &Options, m: &Machine, rule: Box<dyn Rule>) -> Self {
        Daemon {
            interval_ns: o.ms(INTERVAL_OPTION.name),
            explore: o.number(EXPLORE_OPTION.name),
            source: efficiency::source(o, m),
            rule,
            fast_cores: m.fast_cores().len() as f64,
            cores: m.num_cores() as f64,
            given: PerThread::new(),
            history: PerThread::new(),
            frozen: false,
        }
    }

    /// The units of the live, policy-managed threads, with their c and their efficiency filled
    /// in; None as the efficiency of every unit while none is known.
    fn units(&self, view: &SystemView) -> (Vec<Unit>, bool) {
        let managed: Vec<ThreadId> = view.live.iter().copied().filter(|&t| view.apps[view.thread(t).app as usize].policy_managed).collect();
        let weights: Vec<f64> = managed.iter().map(|&t| weight_of_nice(view.apps[view.thread(t).app as usize].priority) as f64).collect();
        let c = capped_shares(&weights, self.cores);
        let mut by_app: BTreeMap<AppId, Unit> = BTreeMap::new();
        let mut known: BTreeMap<AppId, (f64, u32)> = BTreeMap::new();
        for (&t, &ci) in managed.iter().zip(&c) {
            let v = view.thread(t);
            let u = by_app.entry(v.app).or_insert_with(|| Unit { app: v.app, threads: Vec::new(), c: 0.0, e: f64::NAN, fast_ns: 0, slow_ns: 0 });
            u.threads.push(t);
            u.c += ci;
            for (ty, k) in view.interval_of(t).iter().enumerate().take(view.machine.core_types.len()) {
                if view.machine.is_fast_type(ty) {
                    u.fast_ns += k.time_ns;
                } else {
                    u.slow_ns += k.time_ns;
                }
            }
            if let Some(e) = self.source.estimate(t) {
                let k = known.entry(v.app).or_insert((0.0, 0));
                k.0 += e;
                k.1 += 1;
            }
        }
        let mut units: Vec<Unit> = by_app.into_values().collect();
        for u in &mut units {
            if let Some(&(sum, n)) = known.get(&u.app) {
                u.e = sum / n as f64;
            }
        }
        let estimated: Vec<f64> = units.iter().map(|u| u.e).filter(|e| e.is_finite()).collect();
        let any = !estimated.is_empty();
        if any {
            let mean = estimated.iter().sum::<f64>() / estimated.len() as f64;
            for u in units.iter_mut().filter(|u| !u.e.is_finite()) {
                u.e = mean;
            }
        }
        (units, any)
    }

    /// Recompute every unit's share and give it to its threads.
    fn recompute(&mut self, view: &SystemView, when: When, out: &mut Placement) {
        let (units, known) = self.units(view);
        if units.is_empty() {
            return;
        }
        let c: Vec<f64> = units.iter().map(|u| u.c).collect();
        let total: f64 = c.iter().sum();
        let fast = self.fast_cores.min(total);
        let mut f = if known {
            let e: Vec<f64> = units.iter().map(|u| u.e).collect();
            let mix = Mix { e: &e, c: &c, fast_cores: fast };
            self.rule.shares(&mix, &units, when)
        } else {
            c.iter().map(|ci| ci * fast / total).collect()
        };
        if self.source.explores() {
            explore(&mut f, &c, self.explore, fast);
        }
        for (u, (fi, ci)) in units.iter().zip(f.iter().zip(&c)) {
            let share = (fi / ci).clamp(0.0, 1.0);
            for &t in &u.threads {
                if self.given.value(t) != Some(share) {
                    self.given.set(t, Some(share));
                    out.set_fast_share(t, Some(share));
                }
            }
        }
    }

    /// Each live thread's estimate goes into §7.5's average, until the first app finishes.
    fn record(&mut self, view: &SystemView) {
        if self.frozen {
            return;
        }
        for &t in view.live {
            if let Some(e) = self.source.estimate(t) {
                self.history.get_mut(t).push(e);
            }
        }
    }
}

/// c_i = w_i / Σw · C, each capped at one core and the excess shared among the others by weight.
pub fn capped_shares(weights: &[f64], cores: f64) -> Vec<f64> {
    let mut c = vec![0.0; weights.len()];
    let mut free: Vec<usize> = (0..weights.len()).collect();
    let mut left = cores;
    while !free.is_empty() {
        let w: f64 = free.iter().map(|&i| weights[i]).sum();
        let (capped, rest): (Vec<usize>, Vec<usize>) = free.iter().partition(|&&i| weights[i] / w * left >= 1.0);
        if capped.is_empty() {
            for &i in &rest {
                c[i] = weights[i] / w * left;
            }
            break;
        }
        for &i in &capped {
            c[i] = 1.0;
            left -= 1.0;
        }
        free = rest;
    }
    c
}

/// Keep each f_i within [x c_i, (1 − x) c_i] with Σf unchanged (= `fast`). The clamping adds
/// fast share (the floors of apps on slow cores) or removes it (the ceilings of apps on fast
/// cores); the difference is taken from, or given to, the apps furthest from it: a level L caps
/// every f_i/c_i above it (or lifts every one below it), found by bisection (the sum is monotone
/// in L). So the richest apps pay for the poorest's exploration and everyone else keeps the
/// rule's share: a min-fair app at its required share keeps it unless it is the richest. Where
/// the bounds cannot hold the sum (x above the fast cores' fraction of the shares), each f_i is
/// only clamped.
pub fn explore(f: &mut [f64], c: &[f64], x: f64, fast: f64) {
    let lo: Vec<f64> = c.iter().map(|ci| x * ci).collect();
    let hi: Vec<f64> = c.iter().map(|ci| (1.0 - x) * ci).collect();
    for (i, fi) in f.iter_mut().enumerate() {
        *fi = fi.clamp(lo[i], hi[i]);
    }
    let (min_sum, max_sum): (f64, f64) = (lo.iter().sum(), hi.iter().sum());
    let sum: f64 = f.iter().sum();
    if !(min_sum..=max_sum).contains(&fast) || (sum - fast).abs() <= SHARE_EPSILON {
        return;
    }
    let over = sum > fast;
    // The shares at level L: capped from above (too much fast share) or lifted from below.
    let at = |level: f64, i: usize, fi: f64| if over { fi.min(level * c[i]).max(lo[i]) } else { fi.max(level * c[i]).min(hi[i]) };
    let total = |level: f64| f.iter().enumerate().map(|(i, &fi)| at(level, i, fi)).sum::<f64>();
    let (mut a, mut b) = (0.0, 1.0);
    // 60 halvings: 2⁻⁶⁰ of a core, far below any share that matters.
    for _ in 0..60 {
        let mid = 0.5 * (a + b);
        if total(mid) < fast {
            a = mid;
        } else {
            b = mid;
        }
    }
    let level = 0.5 * (a + b);
    for (i, fi) in f.iter_mut().enumerate() {
        *fi = at(level, i, *fi);
    }
}

impl Policy for Daemon {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.interval_ns)
    }

    fn triggers(&self) -> Triggers {
        Triggers { start: true, exit: true, block: false, wake: false }
    }

    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        match view.trigger {
            Trigger::Start(t) => {
                self.source.start(view, t)?;
                self.recompute(view, When::Between, out);
            }
            Trigger::Exit(t) => {
                if view.apps[view.thread(t).app as usize].live_threads == 0 {
                    self.frozen = true;
                }
                self.recompute(view, When::Between, out);
            }
            Trigger::Quantum => {
                self.source.interval(view);
                self.record(view);
                self.recompute(view, When::Interval, out);
            }
            Trigger::Block(_) | Trigger::Wake(_) => {}
        }
        Ok(())
    }

    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        Some(self)
    }
}

impl Diagnostics for Daemon {
    fn sf_estimate(&self, t: ThreadId) -> Option<f64> {
        self.source.estimate(t)
    }

    fn speedup_source(&self) -> Option<String> {
        Some(self.source.describe())
    }

    fn efficiency_estimates(&self) -> Vec<(ThreadId, Vec<f64>)> {
        let mut out = Vec::new();
        let mut t = 0;
        while let Some(h) = self.history.get(t) {
            if !h.is_empty() {
                out.push((t, h.clone()));
            }
            t += 1;
        }
        out
    }
}
