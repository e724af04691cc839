//! Fair scheduling on asymmetric multicores after Kim & Huh, "Exploring the Design Space of Fair
//! Scheduling Supports for Asymmetric Multicore Systems" (IEEE Trans. Computers 2018): every
//! thread's fast-core share is chosen so that threads see the same slowdown or speedup from a
//! base performance (max-fair), or trade some of that fairness for throughput under a guarantee
//! (min-fair: a minimum; uni-fair: a uniformity; sim-fair, combined-fair). `model` is the
//! share-level model of the paper (pure functions, no engine) that the policies and
//! `ampsched.fairness` compute with.
//!
//! The policies, one file each: the paper's `max_perf`, `max_fair`, `min_fair`, `uni_fair`,
//! `sim_fair`, `combined_fair`, and the prior schedulers its Table 2 compares in words,
//! `scaled_lb` (Li et al., SC 2007), `r_fair` (Kwon et al., ISCA 2011) and
//! `guaranteed_fairness` (Van Craeynest et al., PACT 2013). All but `scaled_lb` are a rule run by
//! the shared `daemon` (Kim & Huh §6.2: every 2 s, efficiencies in, fast-core shares out), with
//! efficiencies from `common::efficiency`.

pub mod model;

pub mod combined_fair;
pub mod daemon;
pub mod guaranteed_fairness;
pub mod max_fair;
pub mod max_perf;
pub mod min_fair;
pub mod r_fair;
pub mod scaled_lb;
pub mod sim_fair;
pub mod uni_fair;

use ampsched_model::Signals;

use crate::options::Options;
use crate::PolicyInfo;

/// The whole family, as registered: the default comparison (`ampsched compare` given nothing,
/// the thesis's 2FC-2SC machine and workload) leaves it out; it is compared on Kim & Huh's
/// machines (`ampsched reproduce fairness`).
pub const FAMILY: [&PolicyInfo; 9] = [
    &max_perf::INFO,
    &max_fair::INFO,
    &min_fair::INFO,
    &uni_fair::INFO,
    &sim_fair::INFO,
    &combined_fair::INFO,
    &scaled_lb::INFO,
    &r_fair::INFO,
    &guaranteed_fairness::INFO,
];

/// The share policies (run by the daemon, reading efficiencies).
pub const SHARE_POLICIES: [&PolicyInfo; 8] =
    [&max_perf::INFO, &max_fair::INFO, &min_fair::INFO, &uni_fair::INFO, &sim_fair::INFO, &combined_fair::INFO, &r_fair::INFO, &guaranteed_fairness::INFO];

/// What share policy `info` reads with options `o`: the counters online, the solo profiles
/// offline (`efficiency=`); None for a policy that is not one of them.
pub fn needs(info: &PolicyInfo, o: &Options) -> Option<Signals> {
    SHARE_POLICIES.iter().any(|p| p.name == info.name).then(|| crate::common::efficiency::needs(o, Signals::NONE))
}
