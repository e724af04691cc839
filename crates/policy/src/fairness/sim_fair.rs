//! `sim-fair`: Kim & Huh's similarity-based sharing ("Exploring the Design Space of Fair
//! Scheduling Supports for Asymmetric Multicore Systems", IEEE Trans. Computers 2018, §5.3,
//! Algorithm 3): starting from max-perf, every app holding at least its max-fair share pools its
//! fast share with the apps whose efficiency is within `similarity` of its own, and the group
//! shares it equally. No guarantee (the paper's); `safe=true` keeps every member at least at the
//! share it needs for max-perf's minimum fairness (`model::sim_fair`'s keep_min).

use ampsched_model::Signals;

use super::daemon::{base, Daemon, Rule, Unit, When, BASE_OPTION, COMMON_OPTIONS};
use super::model::{self, Base, Mix, SlowOnlyForm};
use crate::options::{joined, OptionInfo, OptionKind};
use crate::{Build, PolicyInfo};

/// Table 5's similarities are 0.2 (starred, combined-fair's) and 0.5; absolute efficiency units.
pub const SIMILARITY_OPTION: OptionInfo = OptionInfo {
    name: "similarity",
    kind: OptionKind::Range { default: 0.2, min: 0.0, max: 100.0 },
    doc: "apps whose efficiencies differ by at most this much share fast cores equally (Table 5: 0.2*, 0.5)",
};

pub const SAFE_OPTION: OptionInfo = OptionInfo {
    name: "safe",
    kind: OptionKind::Flag(false),
    doc: "keep every app at least at the minimum fairness of the allocation averaged (max-perf here; min-fair's target in \
          combined-fair); false: Algorithm 3 as printed",
};

pub const OPTIONS: [OptionInfo; 6] = joined(&[&[BASE_OPTION, SIMILARITY_OPTION, SAFE_OPTION], &COMMON_OPTIONS]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "sim-fair",
    description: "Kim & Huh's sim-fair: max-perf, with apps of similar efficiency sharing their fast-core share equally",
    source: "Kim & Huh, IEEE TC 2018, §5.3, Algorithm 3 (sim-fair)",
    options: &OPTIONS,
    needs: Signals::PROGRESS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| {
        Box::new(Daemon::new(o, m, Box::new(SimFair { base: base(o), similarity: o.number(SIMILARITY_OPTION.name), safe: o.flag(SAFE_OPTION.name) })))
    }),
};

pub struct SimFair {
    base: Base,
    similarity: f64,
    safe: bool,
}

impl Rule for SimFair {
    fn shares(&mut self, mix: &Mix, _units: &[Unit], _when: When) -> Vec<f64> {
        let perf = model::max_perf(mix);
        let fair = model::max_fair(mix, self.base, SlowOnlyForm::Normalised);
        let keep = self.safe.then(|| {
            let pb = model::base_perf(mix, self.base);
            (self.base, model::metrics(&model::throughputs(mix, &perf, &pb)).min_fairness)
        });
        model::sim_fair(mix, self.similarity, &perf, &fair, keep)
    }
}
