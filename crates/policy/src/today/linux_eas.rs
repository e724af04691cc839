//! `linux-eas`: Linux's Energy Aware Scheduling (Documentation/scheduler/sched-energy.rst;
//! kernel/sched/fair.c `find_energy_efficient_cpu`, `compute_energy`, `cpu_overutilized`;
//! include/linux/energy_model.h `em_cpu_energy`, `em_pd_get_efficient_state`;
//! kernel/sched/cpufreq_schedutil.c `get_next_freq`).
//!
//! - **Energy model**: one performance domain per core type (its cores share a clock); its
//!   capacity states are the type's `freq_levels_ghz` with `power_levels_w`, state i having
//!   capacity cap_i = capacity × f_i / f_max. A machine without power has no energy model, and
//!   the policy refuses it (as the kernel does not enable EAS without one).
//! - **Energy of a domain** (`em_cpu_energy`): the state is the lowest whose capacity covers the
//!   domain's highest CPU utilisation × 1.25 (schedutil's margin, `map_util_perf`), and the
//!   energy is power_i × (sum of the domain's CPU utilisations) / cap_i: each CPU busy
//!   util/cap_i of the time at power_i.
//! - **Placement** (`find_energy_efficient_cpu`), when a thread starts or wakes and the system is
//!   not over-utilised: in each domain, among the allowed CPUs where the thread's estimated
//!   utilisation (`task_util_est`) added to the CPU's fits (`util_fits_cpu`: 80%, the thread's
//!   uclamp range applied), the one of most spare capacity; of these candidates and the
//!   thread's previous CPU, the one whose domain's energy grows least with the thread on it. The thread is pinned there: while EAS
//!   is on, the kernel does no load balancing, and the thread stays until it wakes again.
//! - **Over-utilisation** (`cpu_overutilized`): any CPU whose utilisation does not fit its
//!   capacity (above 80%) turns EAS off: the pinned threads are released and `linux-capacity`'s
//!   capacity-aware load balancing (misfit migration, idle pull) runs until no CPU is
//!   over-utilised. That policy runs alongside throughout (its state stays current), its
//!   decisions applied only while the system is over-utilised.
//! - **Frequency** (schedutil, `get_next_freq`): each quantum, each domain with more than one
//!   level runs at the lowest level ≥ 1.25 × f_max × (its highest CPU utilisation) / capacity
//!   (cpufreq's RELATION_L); a machine whose types declare one level each keeps it.
//!
//! What it simplifies: the kernel updates utilisation at every tick, enqueue and dequeue;
//! here the shared estimator (`common::utilization`) is updated at each call, and over-
//! utilisation and frequencies are checked at each quantum. `feec`'s cases for a task that fits
//! nowhere (the kernel falls back to the previous CPU or the idle-sibling search): here the
//! domain of highest capacity's most-spare CPU. uclamp's influence on the OPP and the thermal
//! pressure are not modelled; `EM_MAX_COMPLEXITY` is not checked (machines here are small); a
//! machine of one capacity (no SD_ASYM_CPUCAPACITY) or with SMT runs `linux-capacity` alone, as
//! the kernel does not enable EAS there (sched-energy.rst §6: asymmetric CPU capacity; kernel/
//! sched/topology.c `build_perf_domains` refuses SMT). The frequency chosen is given to this
//! policy's estimator, not to `linux-capacity`'s (which reads each type at its start frequency).
//!
//! Live: no. EAS decides at each wake-up, before the thread runs (`Signals::WAKEUP`), which the
//! agent's sampled affinities cannot do.

use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use crate::common::utilization::{fits_capacity, util_fits_cpu, Utilization, SCHED_CAPACITY_SCALE};
use crate::options::{OptionInfo, Options, PolicySpec};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "linux-eas",
    description: "Linux Energy Aware Scheduling: at wake-up the CPU that fits and adds least energy (per-domain energy model), linux-capacity above 80% utilisation, schedutil frequencies",
    source: "Linux Documentation/scheduler/sched-energy.rst; kernel/sched/fair.c (find_energy_efficient_cpu, compute_energy)",
    options: &OPTIONS,
    needs: Signals::WAKEUP,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(LinuxEas::new(o, m))),
};

const OPTIONS: [OptionInfo; 0] = [];

/// The policy that balances load while the system is over-utilised.
pub const OVERUTILIZED_POLICY: &str = "linux-capacity";

/// schedutil's frequency margin: util × 1.25 (`map_util_perf`, `map_util_freq`: `util + util/4`).
pub fn with_margin(util: f64) -> f64 {
    util + util / 4.0
}

/// Why machine `m` cannot run EAS, if it cannot: without every core type's power there is no
/// energy model.
pub fn check_machine(m: &Machine) -> Result<(), String> {
    match m.core_types.iter().find(|t| !t.power_given) {
        None => Ok(()),
        Some(t) => Err(format!(
            "linux-eas needs an energy model: core type '{}' of machine '{}' gives no power (power_active_w, or freq_levels_ghz with power_levels_w)",
            t.name, m.name
        )),
    }
}

/// A performance domain: a core type's cores and capacity states.
#[derive(Debug, Clone)]
pub struct Domain {
    pub core_type: usize,
    pub cores: CoreSet,
    /// The type's capacity at its highest level (1024 scale).
    pub capacity: u32,
    /// (frequency GHz, capacity at it, power W), ascending.
    pub states: Vec<(f64, f64, f64)>,
}

impl Domain {
    /// The lowest state whose capacity covers `util` with schedutil's margin
    /// (`em_pd_get_efficient_state`; the highest if none does).
    pub fn state_for(&self, max_util: f64) -> usize {
        let want = with_margin(max_util).min(self.capacity as f64);
        self.states.iter().position(|&(_, cap, _)| cap >= want).unwrap_or(self.states.len() - 1)
    }

    /// `em_cpu_energy`: the domain's power over the next period, in W × (utilisation/capacity),
    /// for CPU utilisations whose highest is `max_util` and sum `sum_util`.
    pub fn energy(&self, max_util: f64, sum_util: f64) -> f64 {
        let (_, cap, power) = self.states[self.state_for(max_util)];
        power * sum_util / cap
    }
}

/// The machine's energy model: a domain per core type.
pub fn domains(m: &Machine) -> Vec<Domain> {
    m.core_types
        .iter()
        .enumerate()
        .map(|(ty, ct)| Domain {
            core_type: ty,
            cores: m.cores_of_type(ty),
            capacity: ct.capacity,
            states: ct.freq_levels_ghz.iter().zip(&ct.power_levels_w).map(|(&f, &p)| (f, ct.capacity as f64 * f / ct.freq_ghz, p)).collect(),
        })
        .collect()
}

/// The thread being placed: its estimated utilisation, uclamp range and previous CPU.
#[derive(Debug, Clone, Copy)]
pub struct Wakee {
    pub util: u32,
    pub uclamp_min: u32,
    pub uclamp_max: u32,
    pub prev: Option<usize>,
}

impl Wakee {
    /// A thread without uclamp hints.
    pub fn plain(util: u32, prev: Option<usize>) -> Wakee {
        Wakee { util, uclamp_min: 0, uclamp_max: SCHED_CAPACITY_SCALE, prev }
    }
}

/// `find_energy_efficient_cpu` for thread `p` allowed on `allowed`, given every CPU's
/// utilisation without it (`util`, by core): among each domain's CPUs where the CPU's
/// utilisation with the thread fits (`util_fits_cpu`, its uclamp range applied), the one of most
/// spare capacity, and the previous CPU if it fits; of these, the CPU whose domain's energy grows
/// least. Where none fits, the allowed CPU of highest capacity and most spare.
pub fn find_energy_efficient_cpu(m: &Machine, domains: &[Domain], util: &[u32], p: Wakee, allowed: &CoreSet) -> Option<usize> {
    let cap = |c: usize| m.core_type_of(c).capacity;
    let task = p.util;
    // (added energy, cpu), lowest first; the previous CPU wins a tie (the kernel moves only for
    // a strictly lower delta).
    let mut best: Option<(f64, usize)> = None;
    for d in domains {
        let members = d.cores.intersection(allowed);
        let pd_energy = |dst: Option<usize>| {
            let with = |c: usize| util[c] as f64 + if Some(c) == dst { task as f64 } else { 0.0 };
            let max = members.iter().map(with).fold(0.0, f64::max);
            let sum: f64 = d.cores.iter().map(with).sum();
            d.energy(max, sum)
        };
        let fits = |c: usize| util_fits_cpu(util[c] + task, p.uclamp_min, p.uclamp_max, cap(c)).fits();
        let spare = |c: usize| cap(c) as i64 - (util[c] + task) as i64;
        let mut candidates: Vec<usize> = Vec::new();
        if let Some(prev) = p.prev.filter(|&c| members.contains(c) && fits(c)) {
            candidates.push(prev);
        }
        if let Some(most) = members.iter().filter(|&c| fits(c) && Some(c) != p.prev).max_by_key(|&c| (spare(c), std::cmp::Reverse(c))) {
            candidates.push(most);
        }
        if candidates.is_empty() {
            continue;
        }
        let base = pd_energy(None);
        for c in candidates {
            let delta = pd_energy(Some(c)) - base;
            if best.is_none_or(|(e, _)| delta < e) {
                best = Some((delta, c));
            }
        }
    }
    best.map(|(_, c)| c).or_else(|| {
        // Fits nowhere: the most spare capacity on the biggest CPUs allowed.
        allowed.iter().max_by_key(|&c| (cap(c), cap(c) as i64 - util[c] as i64, std::cmp::Reverse(c)))
    })
}

/// `cpu_overutilized` on any CPU: a utilisation that does not fit its capacity.
pub fn overutilized(m: &Machine, util: &[u32]) -> bool {
    util.iter().enumerate().any(|(c, &u)| !fits_capacity(u, m.core_type_of(c).capacity))
}

/// schedutil's level for a domain whose busiest CPU has utilisation `max_util`: the lowest
/// level at or above 1.25 × f_max × util / capacity.
pub fn schedutil_level(d: &Domain, freq_max: f64, max_util: u32) -> f64 {
    let want = with_margin(freq_max * max_util as f64 / d.capacity as f64);
    d.states.iter().map(|&(f, _, _)| f).find(|&f| f >= want).unwrap_or(freq_max)
}

pub struct LinuxEas {
    util: Utilization,
    domains: Vec<Domain>,
    /// `linux-capacity`, run alongside, applied while over-utilised.
    balance: Box<dyn Policy>,
    /// EAS can run: the machine's capacities differ (SD_ASYM_CPUCAPACITY) and it has no SMT.
    asymmetric: bool,
    overutilized: bool,
    /// Each domain's level as last set.
    level: Vec<f64>,
    /// This call's decisions of `balance`.
    scratch: Placement,
}

impl LinuxEas {
    pub fn new(_o: &Options, m: &Machine) -> Self {
        let spec = PolicySpec { name: OVERUTILIZED_POLICY.into(), options: Default::default() };
        let balance = crate::build(&spec, m).expect("linux-capacity builds on any machine with its defaults");
        let domains = domains(m);
        LinuxEas {
            util: Utilization::new(),
            level: m.core_types.iter().map(|t| t.start_freq_ghz).collect(),
            domains,
            balance,
            asymmetric: !m.is_symmetric() && !m.has_smt(),
            overutilized: false,
            scratch: Placement::default(),
        }
    }

    /// Every CPU's utilisation without thread `t` (`cpu_util_without`).
    fn util_without(&self, view: &SystemView, t: ThreadId) -> Vec<u32> {
        let mut util = self.util.cpu_utils(view);
        let th = view.thread(t);
        if let (true, Some(c)) = (th.state.is_runnable(), th.core) {
            util[c] = util[c].saturating_sub(self.util.task_util_est(t));
        }
        util
    }

    fn place(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        let util = self.util_without(view, t);
        let th = view.thread(t);
        let p = Wakee { util: self.util.task_util_est(t), uclamp_min: th.uclamp_min, uclamp_max: th.uclamp_max, prev: th.core };
        if let Some(cpu) = find_energy_efficient_cpu(view.machine, &self.domains, &util, p, &view.machine.all_cores()) {
            out.set(t, CoreSet::single(cpu));
        }
    }

    /// schedutil: each domain's level from its busiest CPU.
    fn frequencies(&mut self, view: &SystemView, util: &[u32], out: &mut Placement) {
        let m = view.machine;
        for (i, d) in self.domains.iter().enumerate() {
            if d.states.len() < 2 {
                continue;
            }
            let max = d.cores.iter().map(|c| util[c]).max().unwrap_or(0);
            let ghz = schedutil_level(d, m.core_types[d.core_type].freq_ghz, max);
            if ghz != self.level[i] {
                self.level[i] = ghz;
                out.set_frequency(d.core_type, ghz);
                self.util.set_frequency(m, d.core_type, ghz);
            }
        }
    }
}

impl LinuxEas {
    /// Whether EAS is off at the last quantum: some CPU above 80% of its capacity.
    pub fn is_overutilized(&self) -> bool {
        self.overutilized
    }
}

impl Policy for LinuxEas {
    /// `linux-capacity`'s period, at which over-utilisation and frequencies are checked too.
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.balance.quantum_ns().unwrap_or(ampsched_model::defaults::ms_to_ns(super::linux_capacity::BALANCE_MS)))
    }
    fn triggers(&self) -> Triggers {
        let b = self.balance.triggers();
        // Block too: the estimator samples util_est at each sleep it sees.
        Triggers { start: true, wake: true, block: true, ..b }
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        self.util.update(view);
        self.scratch.clear();
        self.balance.decide(view, &mut self.scratch)?;
        if !self.asymmetric {
            std::mem::swap(out, &mut self.scratch);
            return Ok(());
        }
        if view.trigger == Trigger::Quantum {
            let util = self.util.cpu_utils(view);
            let over = overutilized(view.machine, &util);
            if over && !self.overutilized {
                // EAS off: the load balancer may move every thread it pinned again.
                let all = view.machine.all_cores();
                for th in view.live_threads().filter(|th| th.allowed.len() == 1) {
                    out.set(th.id, all.clone());
                }
            }
            self.overutilized = over;
            self.frequencies(view, &util, out);
        }
        if self.overutilized {
            out.affinity.append(&mut self.scratch.affinity);
            return Ok(());
        }
        match view.trigger {
            Trigger::Start(t) | Trigger::Wake(t) => self.place(view, t, out),
            _ => {}
        }
        Ok(())
    }
}
