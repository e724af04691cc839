//! The big.LITTLE paper's OS side ("Exploiting Asymmetric Multi-Core Processors with Flexible
//! System Software", §III and §IV): the three OS schedulers it describes, each a policy that
//! leaves every placement to a local scheduler of the simulator (`gts`, `cluster_switch`, `iks`;
//! the schedulers are `ampsched_sim::local::{gts, cluster_switch, iks}`), and the paper's Static
//! threading baseline (`cluster_bound`). docs/policies/biglittle-os.md.
//!
//! Also here: `os=`, the option by which a policy that leaves placement to the OS runs over GTS
//! instead of CFS (`with_os`).

pub mod cluster_bound;
pub mod cluster_switch;
pub mod gts;
pub mod iks;

use ampsched_model::{Diagnostics, InputError, OsScheduler, Placement, Policy, PolicyFailure, SwitchParams, SystemView, Triggers};

use crate::options::{OptionInfo, OptionKind, Options};
use crate::PolicyInfo;

/// The whole family, as registered: the default comparison (`ampsched compare` given nothing, the
/// thesis's machine and workload) leaves it out; it is compared on the Exynos 5422.
pub const FAMILY: [&PolicyInfo; 4] = [&gts::INFO, &cluster_switch::INFO, &iks::INFO, &cluster_bound::INFO];

/// The policies that are an OS scheduler themselves.
pub const OS_SCHEDULERS: [&PolicyInfo; 3] = [&gts::INFO, &cluster_switch::INFO, &iks::INFO];

/// Where such a policy runs live, as `ampsched list policies` says it (the agent refuses it with
/// `NO_LIVE_WHY`).
pub const NO_LIVE: &str = "no (an OS scheduler of the simulator: on a big.LITTLE kernel the OS already is the GTS)";
pub const NO_LIVE_WHY: &str = "it is an OS scheduler of the simulator (on a real big.LITTLE kernel the OS already is the GTS)";

/// The option every policy that leaves placement to the OS takes: the local scheduler it runs
/// over. Only `gts` besides the default: under cluster switching or IKS the OS sees one CPU per
/// big/little pair, where a policy's choice of core type means nothing.
pub const OS_OPTION: OptionInfo = OptionInfo {
    name: "os",
    kind: OptionKind::Choice { default: "cfs", choices: &["cfs", "gts"] },
    doc: "the OS scheduler below the policy: cfs, or gts (Linux's big.LITTLE MP with its default tunables; simulator only)",
};

/// Whether `info` is one of the OS-scheduler policies.
pub fn is_os_scheduler(info: &PolicyInfo) -> bool {
    OS_SCHEDULERS.iter().any(|p| p.name == info.name)
}

/// Why policy `info` takes no `os=`, if it does not.
pub fn os_refusal(info: &PolicyInfo) -> Option<String> {
    if is_os_scheduler(info) {
        return Some(format!("{} is an OS scheduler itself and takes no os= (give its own options)", info.name));
    }
    if crate::fairness::SHARE_POLICIES.iter().any(|p| p.name == info.name) {
        return Some(format!(
            "{} enforces fast-core shares in its own local scheduler layer (over CFS) and cannot run over another OS scheduler: drop os=",
            info.name
        ));
    }
    if let crate::Build::Oracle = info.build {
        return Some(format!("{} is an oracle that pins every thread: an OS scheduler has nothing to decide; drop os=", info.name));
    }
    None
}

/// The local scheduler an `os=` value names (the default tunables).
pub fn os_of(value: &str) -> OsScheduler {
    match value {
        "gts" => OsScheduler::Gts(Default::default()),
        _ => OsScheduler::Cfs,
    }
}

/// What policies of this family check beyond each option's range: a switcher's down threshold
/// below its up threshold (else it would switch at every sample).
pub fn check(info: &PolicyInfo, o: &Options, spec: &str) -> Result<(), InputError> {
    if info.name == cluster_switch::INFO.name || info.name == iks::INFO.name {
        let p = switch_params(o);
        if p.down_util >= p.up_util {
            let why = format!("option 'down_util' ({}) must be below 'up_util' ({}), or every sample would switch", p.down_util, p.up_util);
            return Err(InputError::new("--policy", spec, why));
        }
    }
    Ok(())
}

/// The switchers' options (`SwitchParams::DEFAULT` derives the defaults).
pub const SWITCH_OPTIONS: [OptionInfo; 2] = [
    OptionInfo {
        name: "up_util",
        kind: OptionKind::Range { default: SwitchParams::DEFAULT.up_util, min: 0.0, max: 1.0 },
        doc: "a load (busy fraction of a governor sample) above this moves to big: where ondemand's request passes the A7's top virtual frequency (700 of 100..2000 MHz)",
    },
    OptionInfo {
        name: "down_util",
        kind: OptionKind::Range { default: SwitchParams::DEFAULT.down_util, min: 0.0, max: 1.0 },
        doc: "a load below this moves back to little: where ondemand's request falls below the A15's bottom frequency (200 MHz)",
    },
];

pub fn switch_params(o: &Options) -> SwitchParams {
    SwitchParams { up_util: o.number("up_util"), down_util: o.number("down_util") }
}

/// A policy run over another local scheduler than CFS: the OS-scheduler policies (over a policy
/// that decides nothing) and `os=`.
pub struct WithOs {
    pub inner: Box<dyn Policy>,
    pub os: OsScheduler,
}

impl Policy for WithOs {
    fn quantum_ns(&self) -> Option<u64> {
        self.inner.quantum_ns()
    }
    fn triggers(&self) -> Triggers {
        self.inner.triggers()
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        self.inner.decide(view, out)
    }
    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        self.inner.diagnostics()
    }
    fn os_scheduler(&self) -> OsScheduler {
        self.os
    }
}

/// A policy that decides nothing over local scheduler `os`.
pub fn os_only(os: OsScheduler) -> Box<dyn Policy> {
    Box::new(WithOs { inner: Box::new(crate::baseline::oblivious::Oblivious), os })
}
