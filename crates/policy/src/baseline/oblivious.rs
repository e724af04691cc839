//! `oblivious`: asymmetry-unaware scheduling, like Linux CFS without capacity awareness or the
//! Sáez thesis's "Default" (§4.3.3): every thread may run on every core, and the local
//! scheduler's load balancing (equal queue lengths, idle pull) decides where. It never
//! makes a decision of its own.

use ampsched_model::{Placement, Policy, PolicyFailure, Signals, SystemView, Triggers};

use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "oblivious",
    description: "asymmetry-unaware load balancing over all cores (Linux CFS, the thesis's Default)",
    source: "Sáez thesis, §4.3.3 (Default)",
    options: &[],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|_, _| Box::new(Oblivious)),
};

#[derive(Debug, Default)]
pub struct Oblivious;

impl Policy for Oblivious {
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, _view: &SystemView, _out: &mut Placement) -> Result<(), PolicyFailure> {
        Ok(())
    }
}
