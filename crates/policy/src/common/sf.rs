//! Speedup-factor (SF) estimation, for every scheduler that needs an SF (HASS-S, HASS-D, SFD
//! and CAMP): a static and a dynamic estimator, and CAMP's SF categories.
//!
//! **Model** (Sáez thesis, §4.1.3 "Performance model"; `sf_model`, the estimators' own, never
//! the engine's `PerfModel`): a chunk of N instructions takes T = N × CPI / f + N × (LLC misses
//! per instruction) × memory latency on a core, the CPI scaled by the core type's `cpi_scale`;
//! SF = T_slow / T_fast, between the fastest and the slowest core type. The latency is the
//! machine's `memory_latency_ns` (the thesis assumes one constant latency "discoverable by the
//! OS", ignoring NUMA, as we do).
//!
//! **Static** (HASS-S, thesis §4.2.1 "static signatures"): one signature per program, as an
//! offline profiling run of the whole program alone measures it (`Signature`, given by the
//! workload or derived from its phases): its LLC misses per instruction at each LLC size, read
//! at each core type's LLC size. The CPI is not the program's: the thesis's fixed base CPI
//! (`sf_model::THESIS_BASE_CPI`, 1.5, an option of the policy), so a program whose true CPI is
//! not 1.5 (or whose misses overlap) gets an SF off its true one, as in the thesis's Fig. 4.1.
//! It knows no phases and no co-runners.
//!
//! **Dynamic** (HASS-D, thesis §4.2.2 "dynamic signatures"): from each thread's counters over
//! each sampling period (`SystemView::interval`: instructions, cycles, LLC misses):
//! - a sample is taken every `period` (the thesis: 20 timer ticks, about 200 ms; the policy's
//!   quantum), for each thread that ran in it;
//! - the samples of a period in which the thread started or migrated are discarded (the
//!   cold-start miss spike a migration's refill causes; `discard` periods, the thesis leaves
//!   the number open);
//! - a sample differing by more than `threshold` (12%) from the running average of the current
//!   phase marks a phase change: the average restarts from that sample;
//! - the SF is set from the running average only once the phase has lasted `stable` (2) more
//!   periods without a change, and from then on at every period while it lasts;
//! - a new thread's SF is the lowest attainable, 1.0 (`LOWEST_SF`), so that it does not take a
//!   fast core from a thread legitimately placed there.
//!
//! From a sample's counters per core type the estimator recovers the thread's CPI on the
//! reference core and its miss rate by inverting its own model (`sf_model`): on type k, cycles =
//! instructions × CPI × cpi_scale_k + misses × latency × f_k, so CPI = Σ_k (cycles_k − misses_k ×
//! latency × f_k) / cpi_scale_k / Σ_k instructions (the thesis assumed CPI 1.5 for every
//! program; with cycles counted we need not). Both are then put in the model for both core
//! types, with the miss rate measured where the thread runs (the thesis's dynamic signatures
//! assume equal LLC sizes on both types). Where the engine's truth is richer than the model
//! (misses that overlap, a CPI per microarchitecture), the inversion reads the stall time the
//! model cannot see as CPI, and the estimate errs as the thesis's would.

use std::cmp::Ordering;

use ampsched_model::perf::sf_types;
use ampsched_model::{Machine, Signature, SystemView, ThreadId};

use super::partition::Claim;
use super::per_thread::PerThread;
use super::sf_model::{self, THESIS_BASE_CPI};
use crate::options::{OptionInfo, OptionKind, Options};

/// The SF a thread has before anything is known of it: the lowest the model attains (every
/// instruction a miss, so the clock does not matter), thesis §4.2.2.
pub const LOWEST_SF: f64 = 1.0;

/// The highest SF the model attains on machine `m`: a thread that never misses, whose SF is the
/// ratio of the cores' peak rates (clock over `cpi_scale`). The Sáez thesis's "theoretical
/// maximum for the instruction-per-second ratios between fast and slow cores" (§6.2.2): 2.0 on
/// its AMD machines, 1.5 on its Intel ones.
pub fn highest_sf(m: &Machine) -> f64 {
    // Without misses the CPI cancels: any gives the ratio of clock over cpi_scale.
    sf_model::sf(m, THESIS_BASE_CPI, 0.0, 0.0, m.memory_latency_ns)
}

/// CAMP's SF categories (Sáez thesis, §6.2.1 "Computing the speedup factor" and §6.3.1): an
/// estimate is replaced by the representative SF of its category (low, medium or high), so that
/// estimates that differ a little are treated alike. The boundaries are "1/2 and 4/5 of the
/// maximum SF attainable"; we read them as fractions of the maximum *gain* SF − 1 (1.5 and 1.8
/// on the AMD machines, 1.25 and 1.4 on the Intel ones): read literally (0.5 × 2.0 = 1.0 on
/// AMD) the lower boundary is below every SF and there would be two categories, not three.
pub const SF_CATEGORY_BOUNDS: [f64; 2] = [0.5, 0.8];
/// The representative SF of each category as a fraction of the maximum gain. The thesis set
/// them "empirically" and gives none; ours is the middle of each category's range of gains,
/// the value that is off by least for an estimate anywhere in it (1.25, 1.65 and 1.9 on AMD).
pub const SF_CATEGORY_LABELS: [f64; 3] = [0.25, 0.65, 0.9];

/// The representative SF of `sf`'s category, on a machine whose highest SF is `highest`.
pub fn categorized_sf(sf: f64, highest: f64) -> f64 {
    let gain = highest - 1.0;
    let category = SF_CATEGORY_BOUNDS.iter().filter(|&&b| sf >= 1.0 + b * gain).count();
    1.0 + SF_CATEGORY_LABELS[category] * gain
}

/// A phase-change test on miss rates compares against at least this many misses per thousand
/// instructions: at 0.1 MPKI a 12% change moves T by under 0.5% on every catalog machine
/// (0.012 MPKI × 100 ns = 1.2 ps per instruction against ≥ 0.3 ns), so rates below it (a
/// compute-bound phase's zero) are one phase, not noise to divide by.
const MPKI_FLOOR: f64 = 0.1;

/// An SF as a claim on the fast cores: the higher the SF, the higher the claim. Ordered by
/// `total_cmp`, so that the index `Partitions` keeps and comparisons of SFs never disagree.
#[derive(Debug, Clone, Copy)]
pub struct Sf(pub f64);

impl Default for Sf {
    fn default() -> Self {
        Sf(LOWEST_SF)
    }
}
impl Ord for Sf {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}
impl PartialOrd for Sf {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Sf {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Sf {}
impl Claim for Sf {}

/// The option of the static estimator's base CPI (HASS-S's `base_cpi`).
pub const BASE_CPI_OPTION: OptionInfo = OptionInfo {
    name: "base_cpi",
    // 0.1 to 100 cycles per instruction: from a 10-wide core to one stalled on every instruction.
    kind: OptionKind::Range { default: THESIS_BASE_CPI, min: 0.1, max: 100.0 },
    doc: "the static estimator's fixed CPI at the core's clock, the same for every program (Sáez thesis §4.1.3: 1.5)",
};

/// The static SF of a program with signature `sig` on machine `m`, its CPI taken to be
/// `base_cpi` (the thesis's 1.5): its miss curve read at the LLC size of the fastest and of the
/// slowest core type (thesis §4.2.1: "look up the cell for each core type's LLC size").
pub fn static_sf(m: &Machine, sig: &Signature, base_cpi: f64) -> f64 {
    let (fast, _) = sf_types(m);
    static_speeds(m, sig, &[fast], base_cpi)[0]
}

/// The static speed of a program with signature `sig` on each core type of `types` relative
/// to the slowest core type (T_slowest / T_type, each read at its type's LLC size, at CPI
/// `base_cpi`): its SF on the fastest type, 1 on the slowest. The signature's own CPI is not
/// read: the thesis's signature holds misses only.
pub fn static_speeds(m: &Machine, sig: &Signature, types: &[usize], base_cpi: f64) -> Vec<f64> {
    let (_, slow) = sf_types(m);
    let at = |ty: usize| (ty, sig.misses.mpki_at(m.llc_size_kb_of_type(ty)));
    types.iter().map(|&ty| sf_model::speed(m, base_cpi, at(ty), at(slow), m.memory_latency_ns)).collect()
}

/// The dynamic estimator's options, shared by every policy that uses it.
pub const DYNAMIC_OPTIONS: [OptionInfo; 4] = [
    OptionInfo {
        name: "sample_ms",
        // 1 ms (a few slices: shorter samples would be dominated by one slice) to 1000 s.
        kind: OptionKind::Range { default: 200.0, min: 1.0, max: 1e6 },
        doc: "SF sampling period, ms (the thesis: every 20 timer ticks, about 200 ms)",
    },
    OptionInfo {
        name: "phase_threshold",
        kind: OptionKind::Range { default: 0.12, min: 0.0, max: 10.0 },
        doc: "relative change of the miss rate or CPI from the phase's running average that marks a phase change (the thesis: 12%)",
    },
    OptionInfo {
        name: "stable_periods",
        kind: OptionKind::Integer { default: 2, min: 0, max: 1000 },
        doc: "periods a new phase must last without a change before its SF is used (the thesis: 2)",
    },
    OptionInfo {
        name: "discard_periods",
        // The thesis leaves it open. One: a migration's refill (at most a few ms of misses on
        // the catalog machines) falls in the period of the migration, and the next is clean.
        kind: OptionKind::Integer { default: 1, min: 0, max: 1000 },
        doc: "sampling periods discarded after a thread starts or migrates (the thesis leaves it open; 1: a refill falls in the period of its migration)",
    },
];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicOptions {
    pub period_ns: u64,
    pub threshold: f64,
    pub stable_periods: u32,
    pub discard_periods: u32,
}

impl DynamicOptions {
    pub fn from(o: &Options) -> Self {
        DynamicOptions {
            period_ns: o.ms("sample_ms"),
            threshold: o.number("phase_threshold"),
            stable_periods: o.integer("stable_periods") as u32,
            discard_periods: o.integer("discard_periods") as u32,
        }
    }
}

/// What one sample (or a phase's running sum of samples) says: instructions, LLC misses, and
/// cycles on the reference core at the machine's latency (CPI × instructions).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Sample {
    instructions: f64,
    misses: f64,
    ref_cycles: f64,
}

impl Sample {
    fn mpki(&self) -> f64 {
        self.misses * 1000.0 / self.instructions
    }
    fn cpi(&self) -> f64 {
        self.ref_cycles / self.instructions
    }
    fn add(&mut self, s: &Sample) {
        self.instructions += s.instructions;
        self.misses += s.misses;
        self.ref_cycles += s.ref_cycles;
    }
}

#[derive(Debug, Clone, Default)]
struct Track {
    /// The estimate in use (None: none yet, `LOWEST_SF`).
    sf: Option<f64>,
    /// The thread's migration count at its last sample, and whether it was ever sampled.
    migrations: u32,
    seen: bool,
    /// Periods still to discard.
    discard_left: u32,
    /// The current phase's running sum, and how many periods it has lasted since its first.
    phase: Option<Sample>,
    stable: u32,
}

/// The dynamic estimator: per thread, the running average of its current phase and the SF in use.
#[derive(Debug, Clone)]
pub struct DynamicSf {
    opts: DynamicOptions,
    tracks: PerThread<Track>,
}

impl DynamicSf {
    pub fn new(opts: DynamicOptions) -> Self {
        DynamicSf { opts, tracks: PerThread::new() }
    }

    pub fn period_ns(&self) -> u64 {
        self.opts.period_ns
    }

    /// Thread `t`'s SF in use: the latest stable estimate, or `LOWEST_SF`.
    pub fn sf(&self, t: ThreadId) -> f64 {
        self.tracks.get(t).and_then(|k| k.sf).unwrap_or(LOWEST_SF)
    }

    /// Thread `t`'s latest stable estimate; None before its first (a thread still warming up).
    pub fn estimated(&self, t: ThreadId) -> Option<f64> {
        self.tracks.get(t).and_then(|k| k.sf)
    }

    /// Take thread `t`'s sample from the view's last period (call at a quantum, for the threads
    /// in `view.ran`). Whether its SF in use changed.
    pub fn sample(&mut self, view: &SystemView, t: ThreadId) -> bool {
        let v = view.thread(t);
        let opts = self.opts;
        let k = self.tracks.get_mut(t);
        if !k.seen || v.migrations != k.migrations {
            // Started or migrated in this period: its counters hold the cold start.
            k.seen = true;
            k.migrations = v.migrations;
            k.discard_left = opts.discard_periods;
        }
        if k.discard_left > 0 {
            k.discard_left -= 1;
            return false;
        }
        let Some(s) = read_sample(view, t) else { return false };
        let same_phase = k.phase.is_some_and(|p| !changed(&p, &s, opts.threshold));
        if same_phase {
            k.phase.as_mut().expect("a phase to add to").add(&s);
            k.stable += 1;
        } else {
            k.phase = Some(s);
            k.stable = 0;
        }
        if k.stable < opts.stable_periods {
            return false;
        }
        let p = k.phase.expect("a stable phase");
        let sf = sf_model::sf(view.machine, p.cpi(), p.mpki(), p.mpki(), view.machine.memory_latency_ns);
        k.sf.replace(sf) != Some(sf)
    }
}

/// Thread `t`'s counters over the last period as a sample, if it retired instructions: the
/// cycles put back on the reference core by inverting `sf_model::ns_per_instruction`.
fn read_sample(view: &SystemView, t: ThreadId) -> Option<Sample> {
    let m = view.machine;
    let lat = m.memory_latency_ns;
    let mut s = Sample::default();
    for (ty, c) in view.interval_of(t).iter().enumerate().take(m.core_types.len()) {
        if c.instructions <= 0.0 {
            continue;
        }
        let ct = &m.core_types[ty];
        let stall_cycles = c.llc_misses * lat * ct.freq_ghz;
        s.instructions += c.instructions;
        s.misses += c.llc_misses;
        s.ref_cycles += (c.cycles - stall_cycles).max(0.0) / ct.cpi_scale;
    }
    (s.instructions > 0.0).then_some(s)
}

/// Whether sample `s` differs from the phase's running sum `p` by more than `threshold`
/// (relative), in miss rate (against at least `MPKI_FLOOR`) or in CPI. The thesis compares miss
/// rates only, its CPI being a constant; ours is measured, and a phase may change it alone.
fn changed(p: &Sample, s: &Sample, threshold: f64) -> bool {
    let rel = |a: f64, b: f64, floor: f64| (a - b).abs() / b.max(floor);
    rel(s.mpki(), p.mpki(), MPKI_FLOOR) > threshold || rel(s.cpi(), p.cpi(), f64::MIN_POSITIVE) > threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_split_the_gain_at_a_half_and_four_fifths() {
        let close = |got: &[f64], want: &[f64]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12);
        // Highest SF 2.0 (the thesis's AMD machines): boundaries 1.5 and 1.8, labels 1.25, 1.65, 1.9.
        let got: Vec<f64> = [1.0, 1.49, 1.5, 1.79, 1.8, 2.0].iter().map(|&sf| categorized_sf(sf, 2.0)).collect();
        assert!(close(&got, &[1.25, 1.25, 1.65, 1.65, 1.9, 1.9]), "{got:?}");
        // Highest 1.5 (Intel): boundaries 1.25 and 1.4, labels 1.125, 1.325, 1.45.
        let got: Vec<f64> = [1.24, 1.25, 1.41].iter().map(|&sf| categorized_sf(sf, 1.5)).collect();
        assert!(close(&got, &[1.125, 1.325, 1.45]), "{got:?}");
    }

    #[test]
    fn a_phase_change_is_a_relative_change_of_miss_rate_or_cpi() {
        let p = Sample { instructions: 1e9, misses: 5e6, ref_cycles: 1e9 }; // 5 MPKI, CPI 1
        let near = Sample { instructions: 1e8, misses: 5.5e5, ref_cycles: 1.1e8 }; // 5.5 MPKI (+10%), CPI 1.1 (+10%)
        assert!(!changed(&p, &near, 0.12));
        let more_misses = Sample { misses: 5.7e5, ..near }; // 5.7 MPKI: +14%
        assert!(changed(&p, &more_misses, 0.12));
        let slower = Sample { ref_cycles: 1.13e8, ..near }; // CPI 1.13: +13%
        assert!(changed(&p, &slower, 0.12));
        // Below the floor a change of rate is measured against 0.1 MPKI: 0 to 0.01 is no change,
        // 0 to 0.02 is (20% of the floor).
        let none = Sample { instructions: 1e9, misses: 0.0, ref_cycles: 1e9 };
        assert!(!changed(&none, &Sample { misses: 1e4, ..none }, 0.12));
        assert!(changed(&none, &Sample { misses: 2e4, ..none }, 0.12));
    }
}
