//! `pfs`: PFS, proportional core-sensitive fair scheduling as WASH ("Portable Performance on
//! Asymmetric Multicore Processors", §3 and §8.5) built it from WASH to stand for Van Craeynest
//! et al. (PACT 2013) and Sáez et al. (TOCS 2012): WASH without its a-priori preference of
//! application threads over the runtime's helper threads, and without prioritising the holders
//! of contended locks. So every thread of an app, helper or not, is ranked alike by its
//! speed-adjusted progress and predicted speedup, and the big cores go to the execution set
//! alone. The same code as `wash` (`super::wash::Wash`), with those two switches off.

use ampsched_model::Signals;

use super::wash::{Switches, Wash, OPTIONS};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pfs",
    description: "PFS: WASH without the application-over-runtime preference and without lock prioritisation",
    source: "WASH (Jibaja et al., CGO 2016), §3 and §8.5 (PFS, after Van Craeynest et al. PACT 2013 and Sáez et al. TOCS 2012)",
    options: &OPTIONS,
    needs: Signals::LOCKS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| Box::new(Wash::new(o, m, Switches { app_over_runtime: false, lock_set: false }))),
};
