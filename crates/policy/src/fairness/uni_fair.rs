//! `uni-fair`: Kim & Huh's uniformity guarantee ("Exploring the Design Space of Fair Scheduling
//! Supports for Asymmetric Multicore Systems", IEEE Trans. Computers 2018, §5.2, Algorithm 2):
//! keep uniformity (1 − σ/μ of the apps' throughputs against their base) at least `target`,
//! with the most throughput.
//!
//! Each interval the shares are the blend α·max-perf + (1 − α)·max-fair, α first guessed as
//! (1 − target)/(1 − U_max-perf) and lowered in steps of 1% until the model's uniformity reaches
//! the target (`model::uni_fair`): a share blend per interval, not a switch between policies.

use ampsched_model::Signals;

use super::daemon::{base, Daemon, Rule, Unit, When, BASE_OPTION, COMMON_OPTIONS};
use super::model::{self, Base, Mix, SlowOnlyForm};
use crate::options::{joined, OptionInfo, OptionKind};
use crate::{Build, PolicyInfo};

/// A uniformity target option. 0.8 (ours): the middle of Table 5's uniformity targets
/// (70/80/90%), which the paper gives no star, combined-fair running all three.
pub const fn uni_target_option(name: &'static str) -> OptionInfo {
    OptionInfo {
        name,
        kind: OptionKind::Range { default: 0.8, min: 0.0, max: 1.0 },
        doc: "uniformity to guarantee, 1 − σ/μ of the apps' throughputs against their base (ours: 0.8, the middle of Table 5's 0.7/0.8/0.9)",
    }
}

pub const TARGET_OPTION: OptionInfo = uni_target_option("target");

pub const OPTIONS: [OptionInfo; 5] = joined(&[&[BASE_OPTION, TARGET_OPTION], &COMMON_OPTIONS]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "uni-fair",
    description: "Kim & Huh's uni-fair: a blend of max-perf and max-fair shares whose uniformity reaches the target",
    source: "Kim & Huh, IEEE TC 2018, §5.2, Algorithm 2 (uni-fair)",
    options: &OPTIONS,
    needs: Signals::PROGRESS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| Box::new(Daemon::new(o, m, Box::new(UniFair { base: base(o), target: o.number(TARGET_OPTION.name) })))),
};

pub struct UniFair {
    base: Base,
    target: f64,
}

impl Rule for UniFair {
    fn shares(&mut self, mix: &Mix, _units: &[Unit], _when: When) -> Vec<f64> {
        let perf = model::max_perf(mix);
        let fair = model::max_fair(mix, self.base, SlowOnlyForm::Normalised);
        model::uni_fair(mix, self.base, self.target, &perf, &fair).0
    }
}
