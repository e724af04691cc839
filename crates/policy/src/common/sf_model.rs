//! The estimators' own performance model: what a scheduler believes a thread's time per
//! instruction is, as the Sáez thesis's SF estimator does (§4.1.3 "Performance model"):
//!
//!   T / N = base CPI × cpi_scale / f + LLC misses per instruction × memory latency
//!
//! a fixed base CPI at the core's clock (the thesis: "we assume a cost of 1.5 cycles per
//! instruction and factor in the clock speed"), plus one constant memory latency per miss,
//! "discoverable by the OS" (the machine's stated `memory_latency_ns`). It ignores what the
//! thesis lists it as ignoring: memory-level parallelism, prefetching, out-of-order overlap of
//! misses, bus contention and NUMA. The core type's clock and `cpi_scale` are the machine
//! file's statement of its cores' nominal rates, which an OS knows as it knows its clocks.
//!
//! **Why it is apart from the engine's model** (`ampsched_model::perf::PerfModel`): the
//! engine's model is the simulated machine's truth; it may be richer (a CPI per
//! microarchitecture, memory-level parallelism, a bandwidth queue) and a program's true CPI is
//! not 1.5. An estimator that called it would read the answer it is meant to estimate: its
//! estimate would be exact for a thread alone, and no misprediction could happen. So the
//! estimators (HASS-S's static SF, HASS-D's, SFD's and CAMP's dynamic one, CAMP's categories)
//! compute with this function only, and what they get wrong is what the thesis's model gets
//! wrong.

use ampsched_model::perf::sf_types;
use ampsched_model::{CoreType, Machine};

/// The thesis's fixed base CPI (§4.1.3: "we assume a cost of 1.5 cycles per instruction";
/// "these two parameters [CPI and clock] are machine dependent", but only 1.5 is given).
pub const THESIS_BASE_CPI: f64 = 1.5;

/// Nanoseconds per instruction the estimator believes a thread takes on a core of type `ct`,
/// at CPI `cpi` on the reference core, missing `mpki` times per thousand instructions, each miss
/// costing `latency_ns`.
pub fn ns_per_instruction(ct: &CoreType, cpi: f64, mpki: f64, latency_ns: f64) -> f64 {
    cpi * ct.cpi_scale / ct.freq_ghz + mpki / 1000.0 * latency_ns
}

/// How much faster the estimator believes instructions run on core type `ty.0` (missing `ty.1`
/// MPKI there) than on `base.0` (missing `base.1`): T_base / T_ty.
pub fn speed(m: &Machine, cpi: f64, ty: (usize, f64), base: (usize, f64), latency_ns: f64) -> f64 {
    ns_per_instruction(&m.core_types[base.0], cpi, base.1, latency_ns) / ns_per_instruction(&m.core_types[ty.0], cpi, ty.1, latency_ns)
}

/// The estimated speedup factor (thesis §4.1.3: SF = T_slow / T_fast) between the fastest and
/// the slowest core type, missing `mpki_fast` and `mpki_slow` times per thousand instructions on
/// each.
pub fn sf(m: &Machine, cpi: f64, mpki_fast: f64, mpki_slow: f64, latency_ns: f64) -> f64 {
    let (fast, slow) = sf_types(m);
    speed(m, cpi, (fast, mpki_fast), (slow, mpki_slow), latency_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine() -> Machine {
        // The thesis's AMD machine: 2.3 and 1.15 GHz, one 100 ns latency.
        let text = "name = \"t\"\nmemory_latency_ns = 100.0\n\
            [[core_type]]\nname = \"fast\"\ncount = 1\nfreq_ghz = 2.3\n\
            [[core_type]]\nname = \"slow\"\ncount = 1\nfreq_ghz = 1.15\n";
        Machine::from_toml("t.toml", text).expect("a valid machine")
    }

    #[test]
    fn the_thesis_table_of_sf_by_misses() {
        // Thesis §4.1.3 (the SF table for the AMD machine at L = 100 ns, CPI 1.5): m misses per
        // 4096 instructions. By hand for m = 21: T_fast = 1.5/2.3 + 21/4096 × 100 = 0.65217 +
        // 0.51270 = 1.16487 ns; T_slow = 1.5/1.15 + 0.51270 = 1.81705 ns; SF = 1.5599.
        let m = machine();
        for (per_4096, want) in [(0.0, 2.000), (1.0, 1.964), (5.0, 1.842), (21.0, 1.560), (42.0, 1.389), (427.0, 1.059)] {
            let mpki = per_4096 * 1000.0 / 4096.0;
            let got = sf(&m, THESIS_BASE_CPI, mpki, mpki, 100.0);
            assert!((got - want).abs() < 5e-4, "m = {per_4096}: {got} vs the thesis's {want}");
        }
    }
}
