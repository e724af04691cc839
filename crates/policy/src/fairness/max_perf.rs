//! `max-perf`: the throughput-maximising baseline of Kim & Huh, "Exploring the Design Space of
//! Fair Scheduling Supports for Asymmetric Multicore Systems" (IEEE Trans. Computers 2018), §3
//! and §4: "selects the F applications with the highest fast core efficiency, and schedules them
//! on the fast cores. The rest of applications are scheduled to the slow cores."
//!
//! Each interval the daemon (`daemon.rs`) ranks the apps by estimated efficiency and gives the
//! F most efficient their whole core share on fast cores (ties to the lower app id); online, the
//! exploration minimum makes every app run a little on the other type.

use ampsched_model::Signals;

use super::daemon::{Daemon, Rule, Unit, When, COMMON_OPTIONS};
use super::model::{self, Mix};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "max-perf",
    description: "Kim & Huh's max-perf: the F apps of highest estimated fast-core efficiency get the fast cores",
    source: "Kim & Huh, IEEE TC 2018, §3-§4 (max-perf)",
    options: &COMMON_OPTIONS,
    needs: Signals::PROGRESS,
    optional: Signals::COUNTERS,
    build: Build::Policy(|o, m| Box::new(Daemon::new(o, m, Box::new(MaxPerf)))),
};

pub struct MaxPerf;

impl Rule for MaxPerf {
    fn shares(&mut self, mix: &Mix, _units: &[Unit], _when: When) -> Vec<f64> {
        model::max_perf(mix)
    }
}
