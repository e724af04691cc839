//! The in-kernel switcher (IKS, "CPU migration"), the second of the big.LITTLE paper's OS modes
//! ("Exploiting Asymmetric Multi-Core Processors with Flexible System Software", §III.B): each
//! little core is paired with a big one and the OS sees each pair as one CPU, which runs on one
//! of its two cores at a time (so at most half the cores run), switched by that CPU's load
//! through the cpufreq driver (Linaro's switcher, in Linux 3.11+ as arch/arm/common/bL_switcher.c
//! driven by drivers/cpufreq/arm_big_little.c: a little core's frequencies are shown halved,
//! `VIRT_FREQ`, and `bL_cpufreq_set_target` switches a CPU to big when the governor asks for more
//! than the little cores' top virtual frequency and back when it asks for less than the big
//! cores' bottom).
//!
//! The rule, per pair at each governor sample: on little, a load above `up_util` switches it to
//! its big core; on big, a load below `down_util` switches it back. The defaults
//! (`SwitchParams::DEFAULT`: 0.316 and 0.053) are where the ondemand governor's request
//! (min + load × (max − min) over the virtual table, 100 MHz to 2 GHz on the Exynos 5422) crosses
//! 700 MHz (the A7's 1.4 GHz halved) and 200 MHz (the A15's bottom); Linaro's IKS results used an
//! interactive governor whose tuning for the Exynos 5422 is not public. The machinery (pairs,
//! samples, moves) is `switching`.

use ampsched_model::{Machine, SwitchParams};

use super::switching::{Rule, Switcher};

/// IKS over `m` (two core types with as many cores each).
pub fn new(m: &Machine, p: SwitchParams, slice_ns: u64, seed: u64) -> Result<Switcher, String> {
    Switcher::new(m, p, Rule::Pairs, slice_ns, seed, "iks")
}

/// Whether a pair changes cores, from big (`on_big`) or little, at a sample where it had `load`.
pub fn switches(p: &SwitchParams, on_big: bool, load: f64) -> bool {
    super::cluster_switch::switches(p, on_big, load)
}
