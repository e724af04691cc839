//! The performance model: how long a chunk of instructions takes on a core type.
//!
//! The simple model is the one the Sáez thesis uses to estimate speedup factors (§4.1.3,
//! "Performance model"): execution time at the core's clock plus a stall of one memory latency
//! per last-level-cache miss, which does not scale with the clock:
//!
//!   time(instructions, core) = instructions × (cpi × cpi_scale / freq + llc_mpki / 1000 × memory_latency)
//!
//! So a compute-bound thread (llc_mpki ≈ 0) has a speedup factor (SF = time on slow / time on
//! fast) equal to the ratio of the cores' peak rates, and a memory-bound one an SF near 1.
//! The engine asks the model only for nanoseconds per instruction, so a richer model can replace it.

use crate::machine::{CoreType, Machine, MAX_CORE_TYPES};
use crate::workload::Profile;

pub trait PerfModel: Send + Sync {
    /// Nanoseconds per instruction of a chunk with `profile` on a core of type `core_type`.
    fn ns_per_instruction(&self, machine: &Machine, core_type: &CoreType, profile: &Profile) -> f64;

    /// The same for every core type of the machine, in type order.
    fn ns_per_instruction_by_type(&self, machine: &Machine, profile: &Profile) -> [f64; MAX_CORE_TYPES] {
        let mut out = [0.0; MAX_CORE_TYPES];
        for (i, t) in machine.core_types.iter().enumerate() {
            out[i] = self.ns_per_instruction(machine, t, profile);
        }
        out
    }
}

/// The thesis's model (see the module comment).
#[derive(Debug, Clone, Copy, Default)]
pub struct SimpleModel;

impl PerfModel for SimpleModel {
    fn ns_per_instruction(&self, machine: &Machine, t: &CoreType, p: &Profile) -> f64 {
        p.cpi * t.cpi_scale / t.freq_ghz + p.llc_mpki / 1000.0 * machine.memory_latency_ns
    }
}

/// The speedup factor of `profile` between core types `fast` and `slow` under `model`.
pub fn speedup_factor(model: &dyn PerfModel, m: &Machine, profile: &Profile, fast: usize, slow: usize) -> f64 {
    model.ns_per_instruction(m, &m.core_types[slow], profile) / model.ns_per_instruction(m, &m.core_types[fast], profile)
}
