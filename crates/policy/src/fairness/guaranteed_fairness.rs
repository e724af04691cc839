//! `guaranteed-fairness`: Van Craeynest, Akram, Heirman, Jaleel and Eeckhout, "Fairness-aware
//! Scheduling on Single-ISA Heterogeneous Multi-cores" (PACT 2013), as Kim & Huh compare it (IEEE
//! Trans. Computers 2018, Table 2): throughput-maximising scheduling until fairness falls below
//! a threshold, then equal-progress scheduling until it is back; uniformity is the fairness
//! measure and the base is fast-only (each app's progress against running alone on a fast core).
//!
//! Each app's progress is accumulated from what it ran: per interval its fast-core time plus its
//! slow-core time divided by its estimated efficiency, over its CPU time (its throughput against
//! the fast-only base; `base=` chooses another base). At each interval end, if the uniformity
//! (1 − σ/μ) of the accumulated progress is at least `threshold`, the shares are max-perf's;
//! else equal progress: the fast cores go to the apps that have progressed least, each up to its
//! whole share (Van Craeynest et al. use PIE's predictions and switch every 1 ms time slice; Kim &
//! Huh's daemon decides per interval, and so does this).

use std::collections::BTreeMap;

use ampsched_model::view::AppId;
use ampsched_model::{Signals, ThreadId};

use super::daemon::{Daemon, Rule, Unit, When, COMMON_OPTIONS};
use super::model::{self, Base, Mix};
use crate::options::{joined, OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const THRESHOLD_OPTION: OptionInfo = OptionInfo {
    name: "threshold",
    // Neither paper's value is given in Kim & Huh; 0.8 (ours) is the middle of their Table 5's
    // uniformity targets.
    kind: OptionKind::Range { default: 0.8, min: 0.0, max: 1.0 },
    doc: "uniformity of the apps' accumulated progress below which equal progress replaces max-perf (ours: 0.8)",
};

pub const BASE_OPTION: OptionInfo = OptionInfo {
    name: "base",
    kind: OptionKind::Choice { default: "fast", choices: &["fair", "slow", "fast"] },
    doc: "base performance progress is measured against (Van Craeynest et al.'s: fast only)",
};

pub const OPTIONS: [OptionInfo; 5] = joined(&[&[BASE_OPTION, THRESHOLD_OPTION], &COMMON_OPTIONS]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "guaranteed-fairness",
    description: "Van Craeynest et al.'s guaranteed fairness: max-perf until the progress uniformity falls below a threshold, then equal progress",
    source: "Van Craeynest et al., Fairness-aware Scheduling on Single-ISA Heterogeneous Multi-cores, PACT 2013; Kim & Huh, IEEE TC 2018, Table 2",
    options: &OPTIONS,
    needs: Signals::PROGRESS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| Box::new(Daemon::new(o, m, Box::new(GuaranteedFairness::new(o))))),
};

/// One app run's accumulated progress: base-normalised work and CPU time, ns.
#[derive(Debug, Clone, Copy, Default)]
struct Progress {
    /// The run's first thread: a new run of the app starts afresh.
    first: ThreadId,
    work_ns: f64,
    cpu_ns: f64,
}

pub struct GuaranteedFairness {
    base: Base,
    threshold: f64,
    progress: BTreeMap<AppId, Progress>,
    /// The mode of the last interval end: true while equal progress runs.
    equalising: bool,
}

impl GuaranteedFairness {
    pub fn new(o: &Options) -> Self {
        let base = Base::parse(o.choice(BASE_OPTION.name)).expect("checked by the option's choices");
        GuaranteedFairness { base, threshold: o.number(THRESHOLD_OPTION.name), progress: BTreeMap::new(), equalising: false }
    }

    /// Whether equal progress is running (for tests).
    pub fn equalising(&self) -> bool {
        self.equalising
    }

    /// Each unit's accumulated throughput against its base, NaN before it ran.
    fn throughputs(&mut self, mix: &Mix, units: &[Unit], advance: bool) -> Vec<f64> {
        let pb = model::base_perf(mix, self.base);
        units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let first = u.threads.first().copied().unwrap_or(0);
                let p = self.progress.entry(u.app).or_default();
                if p.first != first {
                    *p = Progress { first, ..Progress::default() };
                }
                if advance {
                    // Slow-core units of work over the base's rate per unit of core share.
                    let work = mix.e[i] * u.fast_ns as f64 + u.slow_ns as f64;
                    p.work_ns += work / (pb[i] / mix.c[i]);
                    p.cpu_ns += (u.fast_ns + u.slow_ns) as f64;
                }
                if p.cpu_ns > 0.0 {
                    p.work_ns / p.cpu_ns
                } else {
                    f64::NAN
                }
            })
            .collect()
    }
}

impl Rule for GuaranteedFairness {
    fn shares(&mut self, mix: &Mix, units: &[Unit], when: When) -> Vec<f64> {
        let t = self.throughputs(mix, units, when == When::Interval);
        if when == When::Interval {
            let ran: Vec<f64> = t.iter().copied().filter(|x| x.is_finite()).collect();
            self.equalising = ran.len() > 1 && model::metrics(&ran).uniformity < self.threshold;
        }
        if !self.equalising {
            return model::max_perf(mix);
        }
        // Equal progress: least progressed first (an app that has not run yet first of all).
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by(|&a, &b| t[a].is_finite().cmp(&t[b].is_finite()).then(t[a].total_cmp(&t[b])).then(a.cmp(&b)));
        let mut f = vec![0.0; units.len()];
        let mut left = mix.fast_cores;
        for i in order {
            f[i] = mix.c[i].min(left);
            left -= f[i];
        }
        f
    }
}
