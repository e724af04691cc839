//! ampsched's schedulers. Each module is one policy, opening with the paper it comes from and
//! its algorithm; shared machinery (partitions, swaps, keeping fast cores busy) is in
//! `partition`. `build` makes a policy from a spec such as `rr:threshold_ms=50`.

pub mod best_static;
pub mod busyfcs;
pub mod oblivious;
pub mod options;
pub mod partition;
pub mod rr;
pub mod static_pin;

use ampsched_model::{InputError, Machine, Policy};

pub use options::{OptionInfo, PolicySpec};

/// What a policy needs beyond thread states and CPU time per core type, which both the simulator
/// and the live agent always give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requires {
    Nothing,
    /// Per-thread hardware counters (instructions, cycles, LLC misses): the agent refuses such a
    /// policy where the machine has none.
    Counters,
    /// The simulator itself (an oracle that simulates alternatives): never live.
    Simulator,
}

/// What `ampsched list policies` shows of a policy.
#[derive(Debug, Clone)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
    pub options: &'static [OptionInfo],
    /// What it needs from the system, in words.
    pub needs: &'static str,
    /// The same, as the live agent checks it.
    pub requires: Requires,
}

pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "oblivious",
        description: "asymmetry-unaware load balancing over all cores (Linux CFS, the thesis's Default)",
        source: "Sáez thesis, §4.5 (Default)",
        options: oblivious::OPTIONS,
        needs: "nothing",
        requires: Requires::Nothing,
    },
    PolicyInfo {
        name: "static",
        description: "each thread pinned to one core in arrival order, never moved",
        source: "Sáez thesis, §4.5 (the binding behind the default metric)",
        options: static_pin::OPTIONS,
        needs: "nothing",
        requires: Requires::Nothing,
    },
    PolicyInfo {
        name: "rr",
        description: "HAFS: asymmetry-aware round robin giving every thread an equal share of fast-core time",
        source: "Sáez thesis, §4.2.4, Algorithm 4.4 (HAFS; RR in ch. 5-6)",
        options: rr::OPTIONS,
        needs: "per-thread CPU time per core type",
        requires: Requires::Nothing,
    },
    PolicyInfo {
        name: "busyfcs",
        description: "never leaves a fast core idle while a slow core runs a thread",
        source: "Sáez thesis, ch. 5 (BusyFCs, after Balakrishnan et al.)",
        options: busyfcs::OPTIONS,
        needs: "thread states (runnable or not)",
        requires: Requires::Nothing,
    },
    PolicyInfo {
        name: "best-static",
        description: "oracle: the fixed thread-to-core-type assignment with the lowest ANTT, found by simulation (<= 16 threads)",
        source: "Sáez thesis, §4.5 (best static assignment)",
        options: best_static::OPTIONS,
        needs: "the simulator (an oracle: not available to the live agent)",
        requires: Requires::Simulator,
    },
];

pub fn info(name: &str) -> Result<&'static PolicyInfo, InputError> {
    POLICIES.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
        InputError::new("--policy", name, format!("unknown policy (known: {})", names.join(", ")))
    })
}

/// Make the policy a spec names. `best-static` needs a search first: see `best_static::candidates`.
pub fn build(spec: &PolicySpec, m: &Machine) -> Result<Box<dyn Policy>, InputError> {
    info(&spec.name)?;
    Ok(match spec.name.as_str() {
        "oblivious" => {
            options::Options::new(spec, oblivious::OPTIONS)?;
            Box::new(oblivious::Oblivious)
        }
        "static" => {
            options::Options::new(spec, static_pin::OPTIONS)?;
            Box::new(static_pin::StaticPin::default())
        }
        "rr" => Box::new(rr::RoundRobin::new(spec, m)?),
        "busyfcs" => Box::new(busyfcs::BusyFcs::new(spec, m)?),
        other => {
            return Err(InputError::new("--policy", other, "this policy is an oracle and is built by the runner's search"))
        }
    })
}
