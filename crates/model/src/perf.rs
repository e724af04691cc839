//! The performance model: how long a chunk of instructions takes on a core.
//!
//! The simple model is the one the Sáez thesis uses to estimate speedup factors (§4.1.3,
//! "Performance model"): execution time at the core's clock plus a stall of one memory latency
//! per last-level-cache miss, which does not scale with the clock:
//!
//!   time(instructions, core) = instructions × (cpi × cpi_scale / freq + mpki / 1000 × memory_latency)
//!
//! So a compute-bound thread (mpki ≈ 0) has a speedup factor (SF = time on slow / time on
//! fast) equal to the ratio of the cores' peak rates, and a memory-bound one an SF near 1.
//! The miss rate and the latency are the engine's to give: the miss rate depends on the LLC
//! capacity the thread gets (`cache`), the latency on whether its memory is on the core's
//! node. The engine asks the model only for nanoseconds per instruction, so a richer model can
//! replace it.

use crate::machine::{CoreType, Machine};
use crate::workload::Profile;

pub trait PerfModel: Send + Sync {
    /// Nanoseconds per instruction on a core of type `core_type`, for a chunk with CPI `cpi`
    /// (on the reference big core) that misses `mpki` times per thousand instructions, each
    /// miss taking `memory_latency_ns`.
    fn ns_per_instruction_at(&self, core_type: &CoreType, cpi: f64, mpki: f64, memory_latency_ns: f64) -> f64;

    /// The same for a chunk with `profile` running alone on a core of type `ty`: the whole of
    /// that core's LLC, its memory local.
    fn ns_per_instruction(&self, machine: &Machine, ty: usize, profile: &Profile) -> f64 {
        let mpki = profile.misses.mpki_at(machine.llc_size_kb_of_type(ty));
        self.ns_per_instruction_at(&machine.core_types[ty], profile.cpi, mpki, machine.memory_latency_ns)
    }
}

/// The thesis's model (see the module comment).
#[derive(Debug, Clone, Copy, Default)]
pub struct SimpleModel;

impl PerfModel for SimpleModel {
    fn ns_per_instruction_at(&self, t: &CoreType, cpi: f64, mpki: f64, memory_latency_ns: f64) -> f64 {
        cpi * t.cpi_scale / t.freq_ghz + mpki / 1000.0 * memory_latency_ns
    }
}

/// The solo speedup factor of `profile` between core types `fast` and `slow` under `model`.
pub fn speedup_factor(model: &dyn PerfModel, m: &Machine, profile: &Profile, fast: usize, slow: usize) -> f64 {
    model.ns_per_instruction(m, slow, profile) / model.ns_per_instruction(m, fast, profile)
}

/// The core types a speedup factor compares: the fastest (highest capacity) and the slowest
/// (lowest capacity; on a machine of one capacity, the fastest again, and every SF is 1).
pub fn sf_types(m: &Machine) -> (usize, usize) {
    let mut slow = 0;
    for (i, t) in m.core_types.iter().enumerate() {
        if t.capacity < m.core_types[slow].capacity {
            slow = i;
        }
    }
    (m.fastest_type(), slow)
}

/// The speedup factor of instructions with CPI `cpi` (on the reference core) that miss
/// `mpki_fast` times per thousand on the fastest core type and `mpki_slow` on the slowest, each
/// miss taking `memory_latency_ns`: time per instruction on the slowest type over that on the
/// fastest (Sáez thesis, §4.1.3: T = N × CPI / f + N × misses per instruction × latency,
/// SF = T_slow / T_fast).
pub fn sf_at(model: &dyn PerfModel, m: &Machine, cpi: f64, mpki_fast: f64, mpki_slow: f64, memory_latency_ns: f64) -> f64 {
    let (fast, slow) = sf_types(m);
    speed_at(model, m, cpi, (fast, mpki_fast), (slow, mpki_slow), memory_latency_ns)
}

/// How much faster instructions run on core type `ty.0` (missing `ty.1` MPKI there) than on
/// `base.0` (missing `base.1`): T_base / T_ty, the same model as `sf_at`.
pub fn speed_at(model: &dyn PerfModel, m: &Machine, cpi: f64, ty: (usize, f64), base: (usize, f64), memory_latency_ns: f64) -> f64 {
    model.ns_per_instruction_at(&m.core_types[base.0], cpi, base.1, memory_latency_ns)
        / model.ns_per_instruction_at(&m.core_types[ty.0], cpi, ty.1, memory_latency_ns)
}
