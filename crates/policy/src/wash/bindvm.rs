//! `bindvm`: bindVM (Cao et al., "The Yin and Yang of Power and Performance for Asymmetric
//! Hardware and Managed Software", ISCA 2012), as WASH ("Portable Performance on Asymmetric
//! Multicore Processors", §3 and §7) runs it: the managed runtime's helper threads (GC, JIT;
//! `ThreadKind::Runtime`) are bound to the small cores and the application threads to the big
//! cores, once, when each thread starts. It reads nothing: all application threads share C_B
//! even when they outnumber it ("bindVM confines the application to one big core" on 1B5S,
//! WASH §7.3).

use ampsched_model::{Placement, Policy, Signals, SystemView, Trigger, Triggers};

use super::bind_vm_cores;
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "bindvm",
    description: "bindVM: application threads bound to the big cores, managed-runtime helper threads to the small ones",
    source: "Cao et al., ISCA 2012, as used in WASH (Jibaja et al., CGO 2016), §3 and §7",
    options: &[],
    needs: Signals::NONE,
    build: Build::Policy(|_, _| Box::new(BindVm)),
};

pub struct BindVm;

impl Policy for BindVm {
    fn name(&self) -> &str {
        INFO.name
    }
    fn triggers(&self) -> Triggers {
        Triggers::START
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) {
        let Trigger::Start(t) = view.trigger else { return };
        let m = view.machine;
        // On a machine of one kind of core there are no small cores to bind helpers to.
        if m.slow_cores().is_empty() {
            return;
        }
        out.set(t, bind_vm_cores(m, view.thread(t).kind));
    }
}
