//! `cluster-switch`: cluster switching, the first OS mode of the big.LITTLE paper ("Exploiting
//! Asymmetric Multi-Core Processors with Flexible System Software", §III.A; not evaluated there):
//! one cluster runs at a time, the OS sees its cores only, and the whole workload moves to the
//! other cluster when the busiest CPU's load crosses a threshold. The simulator's switcher
//! (`ampsched_sim::local::cluster_switch`) does it; the thresholds' derivation is there and in
//! docs/policies/biglittle-os.md. Needs two core types with as many cores each. No live form.

use ampsched_model::{OsScheduler, Signals};

use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "cluster-switch",
    description: "cluster switching: one cluster active at a time, the whole workload moved by the busiest CPU's load (the OS sees one cluster)",
    source: "big.LITTLE paper, §III.A; Linux arm_big_little cpufreq driver and ondemand governor (thresholds)",
    options: &super::SWITCH_OPTIONS,
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, _| super::os_only(OsScheduler::ClusterSwitch(super::switch_params(o)))),
};
