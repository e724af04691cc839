//! ampsched's schedulers, one file each in the folder of its family (`baseline/`, `thesis/`,
//! `wash/`, `fairness/`, `biglittle/`, `today/`), each opening with the paper it comes from and its
//! algorithm. What policies share (partitions, moves, per-thread state) is in `common/`.
//!
//! Adding a policy is one file and one line: the file defines `pub const INFO: PolicyInfo`
//! (name, description, source, options, needs, build function) and `POLICIES` below lists it.
//! `build` makes a policy from a spec such as `rr:threshold_ms=50`.

pub mod baseline;
pub mod biglittle;
pub mod common;
pub mod fairness;
pub mod options;
pub mod thesis;
pub mod today;
pub mod wash;

use ampsched_model::{InputError, Machine, OsScheduler, Policy, Signals};

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
    &biglittle::gts::INFO,
    &biglittle::cluster_switch::INFO,
    &biglittle::iks::INFO,
    &biglittle::cluster_bound::INFO,
    &today::linux_capacity::INFO,
    &today::smt_aware::INFO,
    &today::linux_eas::INFO,
    &today::compaction::INFO,
    &today::p2dq_eas::INFO,
    &today::primary_domain::INFO,
    &baseline::best_static::INFO,
];

pub fn info(name: &str) -> Result<&'static PolicyInfo, InputError> {
    POLICIES.iter().copied().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
        InputError::new("--policy", name, format!("unknown policy (known: {})", names.join(", ")))
    })
}

/// A spec without its `os=` (`biglittle::OS_OPTION`, which every policy that leaves placement
/// to the OS takes besides its own options), and the local scheduler it names, if given.
fn split_os(spec: &PolicySpec) -> Result<(PolicySpec, Option<OsScheduler>), InputError> {
    let Some(value) = spec.options.get(biglittle::OS_OPTION.name) else { return Ok((spec.clone(), None)) };
    let info = info(&spec.name)?;
    if let Some(why) = biglittle::os_refusal(info) {
        return Err(InputError::new("--policy", spec.canonical(), why));
    }
    let mut inner = spec.clone();
    inner.options.remove(biglittle::OS_OPTION.name);
    // The option's kind checks the value, as any option's.
    let alone = PolicySpec { name: spec.name.clone(), options: [(biglittle::OS_OPTION.name.to_string(), value.clone())].into() };
    Options::new(&alone, std::slice::from_ref(&biglittle::OS_OPTION)).map_err(|e| InputError::new("--policy", spec.canonical(), e.message))?;
    Ok((inner, Some(biglittle::os_of(value))))
}

/// Check a spec as `build` would, without building: its name, its options (and `os=`), and what
/// its family checks beyond each option's range.
pub fn check(spec: &PolicySpec) -> Result<(), InputError> {
    let (inner, _) = split_os(spec)?;
    let info = info(&inner.name)?;
    let options = Options::new(&inner, info.options)?;
    biglittle::check(info, &options, &spec.canonical())
}

/// Why the policy a spec names cannot run live whatever the machine, if so: an OS scheduler of
/// the simulator (`gts`, `cluster-switch`, `iks`, or any policy with `os=gts`).
pub fn live_refusal(spec: &PolicySpec) -> Result<Option<String>, InputError> {
    let (inner, os) = split_os(spec)?;
    let info = info(&inner.name)?;
    if biglittle::is_os_scheduler(info) {
        return Ok(Some(format!("{} cannot run live: {}", info.name, biglittle::NO_LIVE_WHY)));
    }
    Ok(os.filter(|os| *os != OsScheduler::Cfs).map(|os| format!("os={} cannot run live: the agent runs under the machine's own OS scheduler", os.name())))
}

/// What the policy a spec names reads: its `needs`, and what its options add (`camp:sf=offline`
/// reads the offline solo profiles; a fairness policy's `efficiency=offline` too, and online the
/// counters).
pub fn needs(spec: &PolicySpec) -> Result<Signals, InputError> {
    let (spec, _) = split_os(spec)?;
    let spec = &spec;
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
    check(spec)?;
    let (inner, os) = split_os(spec)?;
    let info = info(&inner.name)?;
    let options = Options::new(&inner, info.options)?;
    today::check_machine(info, &options, m, &spec.canonical())?;
    let policy = match info.build {
        Build::Policy(make) => make(&options, m),
        Build::Oracle => return Err(InputError::new("--policy", &spec.name, "this policy is an oracle and is built by the runner's search")),
    };
    Ok(match os {
        Some(os) if os != OsScheduler::Cfs => Box::new(biglittle::WithOs { inner: policy, os }),
        _ => policy,
    })
}
