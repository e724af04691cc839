//! `bindvm`: bindVM (Cao et al., "The Yin and Yang of Power and Performance for Asymmetric
//! Hardware and Managed Software", ISCA 2012), as WASH ("Portable Performance on Asymmetric
//! Multicore Processors", §3 and §7) runs it: the managed runtime's helper threads (GC, JIT;
//! `ThreadKind::Runtime`) are bound to the small cores and the application threads to the big
//! cores, once, when each thread starts. It reads nothing: all application threads share C_B
//! even when they outnumber it ("bindVM confines the application to one big core" on 1B5S,
//! WASH §7.3).
//!
//! Live, a thread's kind follows its name, and a runtime names its helpers just after they start:
//! the agent may report a helper's start under its creator's name, an application thread's. So
//! at every call (a start, and every WASH quantum, 40 ms) the threads that changed since the last
//! call are bound by their kind where their affinity differs. In the simulator kinds never
//! change, and this binds each thread once, at its start.

use ampsched_model::{Placement, Policy, PolicyFailure, Signals, SystemView, ThreadState, Triggers};

use super::bind_vm_cores;
use super::wash::QUANTUM_MS;
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "bindvm",
    description: "bindVM: application threads bound to the big cores, managed-runtime helper threads to the small ones",
    source: "Cao et al., ISCA 2012, as used in WASH (Jibaja et al., CGO 2016), §3 and §7",
    options: &[],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|_, _| Box::new(BindVm)),
};

pub struct BindVm;

impl Policy for BindVm {
    fn triggers(&self) -> Triggers {
        Triggers::START
    }
    fn quantum_ns(&self) -> Option<u64> {
        Some((QUANTUM_MS * 1e6) as u64)
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let m = view.machine;
        // On a machine of one kind of core there are no small cores to bind helpers to.
        if m.slow_cores().is_empty() {
            return Ok(());
        }
        // A starting thread is among the changed ones; so is one whose kind changed since its
        // start (live: renamed), whichever call comes first.
        for &t in view.changed {
            let v = view.thread(t);
            let cores = bind_vm_cores(m, v.kind);
            // An app left to the OS (`policy_managed` false) is another runtime's, not bound.
            if v.state != ThreadState::Exited && view.apps[v.app as usize].policy_managed && v.allowed != cores {
                out.set(t, cores);
            }
        }
        Ok(())
    }
}
