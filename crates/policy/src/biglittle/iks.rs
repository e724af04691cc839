//! `iks`: the in-kernel switcher, the second OS mode of the big.LITTLE paper ("Exploiting
//! Asymmetric Multi-Core Processors with Flexible System Software", §III.B; not evaluated there):
//! each big/little pair of cores is one CPU to the OS, running on one of its cores at a time
//! (so at most half the cores run), switched by its own load. The simulator's switcher
//! (`ampsched_sim::local::iks`) does it; the thresholds' derivation is there and in
//! docs/policies/biglittle-os.md. Needs as many big as little cores. No live form.

use ampsched_model::{OsScheduler, Signals};

use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "iks",
    description: "the in-kernel switcher: each big/little pair one CPU, on its big or little core by its own load (at most half the cores run)",
    source: "big.LITTLE paper, §III.B; Linux bL_switcher and arm_big_little cpufreq driver, ondemand governor (thresholds)",
    options: &super::SWITCH_OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, _| super::os_only(OsScheduler::Iks(super::switch_params(o)))),
};
