//! `min-fair`: Kim & Huh's minimum-fairness guarantee ("Exploring the Design Space of Fair
//! Scheduling Supports for Asymmetric Multicore Systems", IEEE Trans. Computers 2018, §5.1,
//! Algorithm 1): the most throughput such that every app keeps at least `target` times its base
//! performance (minF ≥ target).
//!
//! Each interval: if max-fair cannot reach the target, max-fair's shares; else every app gets
//! its required share f = (target·perf_base − c)/(e − 1) (clamped to [0, c]) and the rest of the
//! fast cores goes to the apps in descending order of efficiency (`model::min_fair`).

use ampsched_model::Signals;

use super::daemon::{base, Daemon, Rule, Unit, When, BASE_OPTION, COMMON_OPTIONS};
use super::model::{self, Base, Mix};
use crate::options::{joined, OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

/// Table 5's starred minimum-fairness target of each base (the one combined-fair uses; the
/// paper's min-fair runs use 85/90/95% fair share, 40/50/60% fast only, 120/140/160% slow only).
pub fn starred_min_target(base: Base) -> f64 {
    match base {
        Base::FairShare => 0.85,
        Base::FastOnly => 0.40,
        Base::SlowOnly => 1.40,
    }
}

/// A target option whose 0 means "Table 5's starred value for the base".
pub const fn min_target_option(name: &'static str, doc: &'static str) -> OptionInfo {
    // Up to 10 times the base: beyond any speedup a fast core gives (the slow-only base's
    // targets are 1.2-1.6).
    OptionInfo { name, kind: OptionKind::Range { default: 0.0, min: 0.0, max: 10.0 }, doc }
}

/// The value of a target option made by `min_target_option`.
pub fn min_target(o: &Options, name: &str, base: Base) -> f64 {
    let t = o.number(name);
    if t == 0.0 {
        starred_min_target(base)
    } else {
        t
    }
}

pub const TARGET_OPTION: OptionInfo = min_target_option(
    "target",
    "minimum fairness to guarantee, a fraction of the base performance (0: Table 5's starred value for the base: fair 0.85, fast 0.40, slow 1.40)",
);

pub const OPTIONS: [OptionInfo; 5] = joined(&[&[BASE_OPTION, TARGET_OPTION], &COMMON_OPTIONS]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "min-fair",
    description: "Kim & Huh's min-fair: every app keeps at least target x its base performance; the rest of the fast cores by efficiency",
    source: "Kim & Huh, IEEE TC 2018, §5.1, Algorithm 1 (min-fair)",
    options: &OPTIONS,
    needs: Signals::PROGRESS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| Box::new(Daemon::new(o, m, Box::new(MinFair::new(o))))),
};

pub struct MinFair {
    base: Base,
    target: f64,
}

impl MinFair {
    pub fn new(o: &Options) -> Self {
        let base = base(o);
        MinFair { base, target: min_target(o, TARGET_OPTION.name, base) }
    }
}

impl Rule for MinFair {
    fn shares(&mut self, mix: &Mix, _units: &[Unit], _when: When) -> Vec<f64> {
        model::min_fair(mix, self.base, self.target)
    }
}
