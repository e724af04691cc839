//! `max-fair`: Kim & Huh's fair state ("Exploring the Design Space of Fair Scheduling Supports
//! for Asymmetric Multicore Systems", IEEE Trans. Computers 2018, §2.1-§2.3): "a scheduling on
//! AMP system is fair, if the amount of CPU share of all threads are proportional to their
//! weights and all threads experience same slowdown or speedup from the base performance".
//!
//! Each interval the fast shares are §2.3's closed form for the base (`base=`): fair share
//! (f_i = c_i/Σc · F), slow only (f_i ∝ c_i/(e_i − 1); `slow_form=printed` uses the paper's
//! printed formula, which equalises absolute rather than normalised performance) or fast only,
//! with infeasible shares clamped to [0, c_i] and the rest re-solved (`model::max_fair`).

use ampsched_model::Signals;

use super::daemon::{base, Daemon, Rule, Unit, When, BASE_OPTION, COMMON_OPTIONS};
use super::model::{self, Base, Mix, SlowOnlyForm};
use crate::options::{joined, OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const SLOW_FORM_OPTION: OptionInfo = OptionInfo {
    name: "slow_form",
    kind: OptionKind::Choice { default: "normalised", choices: &["normalised", "printed"] },
    doc: "slow-only base's closed form: normalised (f ∝ c/(e−1), equal (e f + s)/c as §2.3 states) or printed (the \
          paper's formula, equal e f + s; the same when all weights are equal)",
};

pub const OPTIONS: [OptionInfo; 5] = joined(&[&[BASE_OPTION, SLOW_FORM_OPTION], &COMMON_OPTIONS]);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "max-fair",
    description: "Kim & Huh's max-fair: fast shares that give every app the same speedup or slowdown from its base performance",
    source: "Kim & Huh, IEEE TC 2018, §2.1-§2.3 (max-fair)",
    options: &OPTIONS,
    needs: Signals::PROGRESS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| Box::new(Daemon::new(o, m, Box::new(MaxFair::new(o))))),
};

pub struct MaxFair {
    base: Base,
    form: SlowOnlyForm,
}

impl MaxFair {
    pub fn new(o: &Options) -> Self {
        MaxFair { base: base(o), form: SlowOnlyForm::parse(o.choice(SLOW_FORM_OPTION.name)).expect("checked by the option's choices") }
    }
}

impl Rule for MaxFair {
    fn shares(&mut self, mix: &Mix, _units: &[Unit], _when: When) -> Vec<f64> {
        model::max_fair(mix, self.base, self.form)
    }
}
