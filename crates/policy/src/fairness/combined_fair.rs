//! `combined-fair`: Kim & Huh's combination ("Exploring the Design Space of Fair Scheduling
//! Supports for Asymmetric Multicore Systems", IEEE Trans. Computers 2018, §5.4, Algorithm 4):
//! min-fair for `min_target`, then sim-fair from min-fair's shares (against max-fair), then
//! uni-fair blending that with max-fair for `uni_target` (`model::combined_fair`). Guarantees
//! minF and uniformity, and shares fast cores among apps of similar efficiency.
//!
//! `safe=true` (our default) keeps every app at least at its min-fair share through the
//! sim-fair step: the paper asserts the averaging keeps minF, but an average can take a member
//! below its required share (our notes' §2.4); `safe=false` is Algorithm 4 as printed.

use ampsched_model::Signals;

use super::daemon::{base, Daemon, Rule, Unit, When, BASE_OPTION, COMMON_OPTIONS};
use super::min_fair::{min_target, min_target_option};
use super::model::{self, Base, Mix};
use super::sim_fair::SIMILARITY_OPTION;
use super::uni_fair::uni_target_option;
use crate::options::{joined, OptionInfo, OptionKind};
use crate::{Build, PolicyInfo};

pub const MIN_TARGET_OPTION: OptionInfo =
    min_target_option("min_target", "minimum fairness to guarantee (0: Table 5's starred value for the base: fair 0.85, fast 0.40, slow 1.40)");
pub const UNI_TARGET_OPTION: OptionInfo = uni_target_option("uni_target");
pub const SAFE_OPTION: OptionInfo = OptionInfo {
    name: "safe",
    kind: OptionKind::Flag(true),
    doc: "keep every app at least at its min-fair share through the sim-fair step (ours; false: Algorithm 4 as printed)",
};

pub const OPTIONS: [OptionInfo; 8] = joined(&[&[BASE_OPTION, SIMILARITY_OPTION, MIN_TARGET_OPTION, UNI_TARGET_OPTION, SAFE_OPTION], &COMMON_OPTIONS]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "combined-fair",
    description: "Kim & Huh's combined-fair: min-fair, then sim-fair, then uni-fair (minF and uniformity guaranteed)",
    source: "Kim & Huh, IEEE TC 2018, §5.4, Algorithm 4 (combined-fair)",
    options: &OPTIONS,
    needs: Signals::PROGRESS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| {
        let base = base(o);
        let rule = CombinedFair {
            base,
            similarity: o.number(SIMILARITY_OPTION.name),
            min_target: min_target(o, MIN_TARGET_OPTION.name, base),
            uni_target: o.number(UNI_TARGET_OPTION.name),
            safe: o.flag(SAFE_OPTION.name),
        };
        Box::new(Daemon::new(o, m, Box::new(rule)))
    }),
};

pub struct CombinedFair {
    base: Base,
    similarity: f64,
    min_target: f64,
    uni_target: f64,
    safe: bool,
}

impl Rule for CombinedFair {
    fn shares(&mut self, mix: &Mix, _units: &[Unit], _when: When) -> Vec<f64> {
        model::combined_fair(mix, self.base, self.similarity, self.min_target, self.uni_target, self.safe).0
    }
}
