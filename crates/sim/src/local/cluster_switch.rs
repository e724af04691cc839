//! Cluster switching (CS), the first of the big.LITTLE paper's three OS modes ("Exploiting
//! Asymmetric Multi-Core Processors with Flexible System Software", §III.A): only one cluster runs
//! at a time, so the OS sees a symmetric machine of one cluster's cores; a utilisation-driven
//! cpufreq driver moves the whole workload to the big cluster when the load is high and back to
//! the little one when it is low (Linaro's arm-bl-cpufreq "models two clusters as two
//! performance points", Linaro LSK Documentation/cpu-freq/cpufreq-arm-bl.txt).
//!
//! The rule: at each governor sample the cluster's load is its busiest CPU's (a cluster is one
//! cpufreq policy, and Linux's governors take the highest load of a policy's CPUs:
//! drivers/cpufreq/cpufreq_governor.c, `dbs_check_cpu`); on little, a load above `up_util`
//! switches to big; on big, a load below `down_util` switches to little. The thresholds
//! (`SwitchParams::DEFAULT`) are where the ondemand governor's request crosses the virtual
//! frequencies of Linux's big.LITTLE cpufreq driver on the Exynos 5422; no switcher of this kind
//! published its own. The machinery (pairs, samples, moves) is `switching`.

use ampsched_model::{Machine, SwitchParams};

use super::switching::{Rule, Switcher};

/// Cluster switching over `m` (two core types with as many cores each).
pub fn new(m: &Machine, p: SwitchParams, slice_ns: u64, seed: u64) -> Result<Switcher, String> {
    Switcher::new(m, p, Rule::Cluster, slice_ns, seed, "cluster-switch")
}

/// Whether the cluster changes, from big (`on_big`) or little, at a sample whose busiest CPU
/// had `load`.
pub fn switches(p: &SwitchParams, on_big: bool, load: f64) -> bool {
    if on_big {
        load < p.down_util
    } else {
        load > p.up_util
    }
}
