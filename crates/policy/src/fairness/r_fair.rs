//! `r-fair`: R%-fair of Kwon, Kim, Jeong and Huh, "Virtualizing Performance Asymmetric
//! Multi-core Systems" (ISCA 2011), as Kim & Huh compare it (IEEE Trans. Computers 2018, §8 and
//! Table 2): the fair-share max-fair state R% of the time and max-perf the rest, with no
//! guarantee. Kwon et al. split time in a hypervisor; at the share level R% of the time under
//! max-fair and the rest under max-perf gives each app, over any window of many rounds, the
//! blend r·f_max-fair + (1 − r)·f_max-perf, which is what each interval sets (the 30 ms rounds do
//! the alternation). `base=` chooses max-fair's base (Kwon et al.'s is the fair share).

use ampsched_model::Signals;

use super::daemon::{base, Daemon, Rule, Unit, When, BASE_OPTION, COMMON_OPTIONS};
use super::model::{self, Base, Mix, SlowOnlyForm};
use crate::options::{joined, OptionInfo, OptionKind};
use crate::{Build, PolicyInfo};

pub const R_OPTION: OptionInfo = OptionInfo {
    name: "r",
    // Kwon et al. sweep R; Kim & Huh give none. 0.5 (ours): half fair, half throughput.
    kind: OptionKind::Range { default: 0.5, min: 0.0, max: 1.0 },
    doc: "fraction of the time under max-fair, the rest under max-perf (Kwon et al.'s R%; ours: 0.5)",
};

pub const OPTIONS: [OptionInfo; 5] = joined(&[&[BASE_OPTION, R_OPTION], &COMMON_OPTIONS]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "r-fair",
    description: "Kwon et al.'s R%-fair: max-fair R% of the time, max-perf the rest (no guarantee)",
    source: "Kwon et al., Virtualizing Performance Asymmetric Multi-core Systems, ISCA 2011 (R%-fair); Kim & Huh, IEEE TC 2018, Table 2",
    options: &OPTIONS,
    needs: Signals::PROGRESS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| Box::new(Daemon::new(o, m, Box::new(RFair { base: base(o), r: o.number(R_OPTION.name) })))),
};

pub struct RFair {
    base: Base,
    r: f64,
}

impl Rule for RFair {
    fn shares(&mut self, mix: &Mix, _units: &[Unit], _when: When) -> Vec<f64> {
        let perf = model::max_perf(mix);
        let fair = model::max_fair(mix, self.base, SlowOnlyForm::Normalised);
        fair.iter().zip(&perf).map(|(q, p)| self.r * q + (1.0 - self.r) * p).collect()
    }
}
