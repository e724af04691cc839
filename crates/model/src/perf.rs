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
//!
//! Two refinements for core types that differ in microarchitecture, not only in clock; a file
//! that uses neither gets the formula above exactly (`CoreCpi::scaled`):
//!
//! - CPI per microarchitecture: a phase may give its CPI on named microarchitectures (`cpi = {
//!   "cortex-a15" = 1.1, "cortex-a7" = 2.0 }`); on a core type whose `uarch` the table names,
//!   that value replaces `cpi × cpi_scale` (`workload::UarchCpi`).
//! - Memory-level parallelism: an out-of-order core overlaps misses, an in-order one does not.
//!   A phase's misses are outstanding `mlp` at a time where the core can hold that many
//!   (`max_mlp`), so each costs the latency over the overlap:
//!
//!   time = instructions × (CPI_on_core / freq + mpki / 1000 × memory_latency / min(mlp, max_mlp))
//!
//!   This is the MLP model of Chou, Fahs and Abraham ("Microarchitecture Optimizations for
//!   Exploiting Memory-Level Parallelism", ISCA 2004, §2: MLP is the average number of useful
//!   long-latency misses outstanding when at least one is, and the memory stall time is the
//!   miss count × latency / MLP) and the first-order superscalar model's overlapped long misses
//!   (Karkhanis and Smith, "A First-Order Superscalar Processor Model", ISCA 2004, §4.3: misses
//!   that issue within one reorder-buffer window share one penalty). The program's MLP is taken
//!   as a given of the phase, capped by the core's miss buffers, rather than derived from its
//!   reorder buffer; an in-order core (`max_mlp` 1) stalls for every miss alone.

use crate::machine::{CoreType, Machine};
use crate::workload::Profile;

/// What a chunk's instructions cost on one core type besides the misses' latency: its cycles
/// per instruction at that core's clock, and how many of its misses overlap there. Resolved once
/// per phase and core type (`Profile::on_core`), not at every accounting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoreCpi {
    /// Cycles per instruction at the core's clock, misses apart: `cpi × cpi_scale`, or the
    /// phase's CPI on the core's microarchitecture.
    pub cycles: f64,
    /// Misses outstanding at once: min(phase `mlp`, core `max_mlp`), ≥ 1.
    pub overlap: f64,
}

impl CoreCpi {
    /// The thesis's model: a reference `cpi` scaled by the type's `cpi_scale`, misses one at a
    /// time (what the estimators assume, and every phase without a table or an `mlp`).
    pub fn scaled(cpi: f64, t: &CoreType) -> CoreCpi {
        CoreCpi { cycles: cpi * t.cpi_scale, overlap: 1.0 }
    }
}

impl Profile {
    /// The phase's cost on a core of type `t` (see the module comment). A table that does not
    /// name `t`'s microarchitecture and has no `default` gives the reference CPI scaled, a case
    /// `check_uarch_cpi` refuses before any run.
    pub fn on_core(&self, t: &CoreType) -> CoreCpi {
        let named = match (&self.uarch_cpi, &t.uarch) {
            (Some(table), Some(u)) => table.of(u),
            _ => None,
        };
        CoreCpi { cycles: named.unwrap_or(self.cpi * t.cpi_scale), overlap: self.mlp.min(t.max_mlp) }
    }

    /// The error for a core type of `m` that the phase's CPI table does not cover, if any: it
    /// names no `default` and not the type's microarchitecture (or the type has none).
    pub fn uarch_cpi_error(&self, m: &Machine) -> Option<crate::InputError> {
        let table = self.uarch_cpi.as_ref()?;
        if table.default.is_some() {
            return None;
        }
        let t = m.core_types.iter().find(|t| t.uarch.as_deref().and_then(|u| table.of(u)).is_none())?;
        let names: Vec<&str> = table.entries.iter().map(|(u, _)| u.as_str()).collect();
        let what = match &t.uarch {
            Some(u) => format!("core type '{}' of machine '{}' is a {u}", t.name, m.name),
            None => format!("core type '{}' of machine '{}' names no uarch", t.name, m.name),
        };
        Some(crate::InputError::new(
            &table.source,
            table.key.clone(),
            format!("{what}, which the table does not name (it names {}); add it or a `default` entry", names.join(", ")),
        ))
    }
}

pub trait PerfModel: Send + Sync {
    /// Nanoseconds per instruction on a core of type `core_type`, for a chunk costing `cost`
    /// there that misses `mpki` times per thousand instructions, each miss taking
    /// `memory_latency_ns`.
    fn ns_per_instruction_on(&self, core_type: &CoreType, cost: CoreCpi, mpki: f64, memory_latency_ns: f64) -> f64;

    /// The same for a chunk with CPI `cpi` on the reference big core, scaled by the type's
    /// `cpi_scale`, misses one at a time (`CoreCpi::scaled`: the thesis's estimate).
    fn ns_per_instruction_at(&self, core_type: &CoreType, cpi: f64, mpki: f64, memory_latency_ns: f64) -> f64 {
        self.ns_per_instruction_on(core_type, CoreCpi::scaled(cpi, core_type), mpki, memory_latency_ns)
    }

    /// The same for a chunk with `profile` running alone on a core of type `ty`: the whole of
    /// that core's LLC, its memory local, its CPI and overlap on that type (`Profile::on_core`).
    fn ns_per_instruction(&self, machine: &Machine, ty: usize, profile: &Profile) -> f64 {
        let mpki = profile.misses.mpki_at(machine.llc_size_kb_of_type(ty));
        let t = &machine.core_types[ty];
        self.ns_per_instruction_on(t, profile.on_core(t), mpki, machine.memory_latency_ns)
    }
}

/// The thesis's model, with the two refinements of the module comment.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimpleModel;

impl PerfModel for SimpleModel {
    fn ns_per_instruction_on(&self, t: &CoreType, cost: CoreCpi, mpki: f64, memory_latency_ns: f64) -> f64 {
        // The same operations, in the same order, as cpi × cpi_scale / freq + mpki / 1000 ×
        // latency when `cost` is `CoreCpi::scaled` (a division by an overlap of 1 is exact): a
        // file without the new keys gives bit-identical times.
        cost.cycles / t.freq_ghz + mpki / 1000.0 * memory_latency_ns / cost.overlap
    }
}

/// Every phase of `w` whose CPI table does not cover a core type of `m`: the first such error
/// (the file and key of the table, the core type). Checked where a workload meets its machine,
/// before any run.
pub fn check_uarch_cpi(m: &Machine, w: &crate::Workload) -> Result<(), crate::InputError> {
    let phases = w.apps.iter().flat_map(|a| &a.groups).flat_map(|g| &g.phases);
    match phases.filter_map(|p| p.profile()?.uarch_cpi_error(m)).next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The solo speedup factor of `profile` between core types `fast` and `slow` under `model`.
pub fn speedup_factor(model: &dyn PerfModel, m: &Machine, profile: &Profile, fast: usize, slow: usize) -> f64 {
    model.ns_per_instruction(m, slow, profile) / model.ns_per_instruction(m, fast, profile)
}

/// The core types a speedup factor compares: the fastest (highest capacity) and the slowest
/// (lowest capacity; on a machine of one capacity, the fastest again, and every SF is 1). The
/// capacities the OS reports: what a policy compares (a mis-sorted machine misleads it).
pub fn sf_types(m: &Machine) -> (usize, usize) {
    (m.fastest_type(), lowest_type(m, |t| t.capacity))
}

/// `sf_types` as the hardware is (peak rates, `CoreType::true_capacity`): what a metric compares
/// (the true SF a policy's estimate is checked against). The same on a machine that gives no
/// `capacity`.
pub fn true_sf_types(m: &Machine) -> (usize, usize) {
    (m.true_fastest_type(), lowest_type(m, |t| t.true_capacity))
}

/// The first type whose `capacity` is lowest.
fn lowest_type(m: &Machine, capacity: impl Fn(&crate::CoreType) -> u32) -> usize {
    let mut slow = 0;
    for (i, t) in m.core_types.iter().enumerate() {
        if capacity(t) < capacity(&m.core_types[slow]) {
            slow = i;
        }
    }
    slow
}
