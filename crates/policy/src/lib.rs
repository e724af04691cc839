//! ampsched's schedulers, one file each in the folder of its family (`baseline/`, `thesis/`,
//! `wash/`, `fairness/`; a big.LITTLE family to come), each opening with the paper it comes from
//! and its algorithm. What policies share (partitions, moves, per-thread state) is in `common/`.
//!
//! Adding a policy is one file and one line: the file defines `pub const INFO: PolicyInfo`
//! (name, description, source, options, needs, build function) and `POLICIES` below lists it.
//! `build` makes a policy from a spec such as `rr:threshold_ms=50`.

pub mod baseline;
pub mod common;
pub mod fairness;
pub mod options;
pub mod thesis;
pub mod wash;

use ampsched_model::{InputError, Machine, Policy, Signals};

pub use options::{OptionInfo, OptionKind, Options, PolicySpec};

/// How a registered policy is made.
#[derive(Clone, Copy)]
pub enum Build {
    /// From its checked options and the machine.
    Policy(fn(&Options, &Machine) -> Box<dyn Policy>),
    /// An oracle the runner builds by simulating candidates (never live).
    Oracle,
}

/// A registered policy: what `ampsched list policies` shows, what the simulator and the agent
/// check before running it, and how to build it.
#[derive(Clone, Copy)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
    pub options: &'static [OptionInfo],
    /// What it reads beyond thread states and CPU time: checked with `Signals::check` against
    /// what the simulator or the agent measures.
    pub needs: Signals,
    /// What it reads where the source has it, without needing it (it checks `SystemView::
    /// available` and does without): WASH's trained speedup model reads counters, and falls back
    /// to the core types' ratio where there are none. The simulator shows a policy counters only
    /// if they are in `needs` or here (`SimConfig::policy_reads_counters`).
    pub optional: Signals,
    pub build: Build,
}

/// Every policy, in the order listings show them. One line per policy.
pub const POLICIES: &[&PolicyInfo] = &[
    &baseline::oblivious::INFO,
    &baseline::static_pin::INFO,
    &baseline::bound::INFO,
    &thesis::rr::INFO,
    &thesis::busyfcs::INFO,
    &thesis::hass_s::INFO,
    &thesis::hass_d::INFO,
    &thesis::ipc_driven::INFO,
    &thesis::static_ipc_driven::INFO,
    &thesis::pa::INFO,
    &thesis::mintlp::INFO,
    &thesis::pa_rtx::INFO,
    &thesis::sfd::INFO,
    &thesis::camp::INFO,
    &thesis::pa_uf::INFO,
    &wash::wash::INFO,
    &wash::bindvm::INFO,
    &wash::pfs::INFO,
    &fairness::max_perf::INFO,
    &fairness::max_fair::INFO,
    &fairness::min_fair::INFO,
    &fairness::uni_fair::INFO,
    &fairness::sim_fair::INFO,
    &fairness::combined_fair::INFO,
    &fairness::scaled_lb::INFO,
    &fairness::r_fair::INFO,
    &fairness::guaranteed_fairness::INFO,
    &baseline::best_static::INFO,
];

pub fn info(name: &str) -> Result<&'static PolicyInfo, InputError> {
    POLICIES.iter().copied().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
        InputError::new("--policy", name, format!("unknown policy (known: {})", names.join(", ")))
    })
}

/// What the policy a spec names reads: its `needs`, and what its options add (`camp:sf=offline`
/// reads the offline solo profiles; a fairness policy's `efficiency=offline` too, and online the
/// counters).
pub fn needs(spec: &PolicySpec) -> Result<Signals, InputError> {
    let info = info(&spec.name)?;
    let options = Options::new(spec, info.options)?;
    if let Some(needs) = fairness::needs(info, &options) {
        return Ok(needs);
    }
    Ok(if info.name == thesis::camp::INFO.name { thesis::camp::needs(&options) } else { info.needs })
}

/// Make the policy a spec names, after checking its options. An oracle is built by the
/// runner's search (see `baseline::best_static::candidates`).
pub fn build(spec: &PolicySpec, m: &Machine) -> Result<Box<dyn Policy>, InputError> {
    let info = info(&spec.name)?;
    let options = Options::new(spec, info.options)?;
    match info.build {
        Build::Policy(make) => Ok(make(&options, m)),
        Build::Oracle => Err(InputError::new("--policy", &spec.name, "this policy is an oracle and is built by the runner's search")),
    }
}
