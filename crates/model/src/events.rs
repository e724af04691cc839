//! The performance-monitoring events a thread's `Counters` hold: what each counts and how the
//! simulator derives it from the phase and the core.
//!
//! WASH trains its speedup model on "the full set of performance-monitoring events" and keeps
//! the N = 4 a Phenom II counts at once (WASH, "Portable Performance on Asymmetric Multicore
//! Processors", §5); its sensitivity study needs a second model from "the next best 4 different
//! counters" (§8.4). So the simulator counts more kinds than any one policy reads: several carry
//! a thread's memory-boundedness in different, imperfect ways (LLC references, memory stall
//! cycles, DRAM accesses with prefetches and writebacks, dispatch stalls), others little (branch
//! and L1 misses).
//!
//! Per instruction, on core type `ty` (clock `f` GHz), where the phase with profile `p` takes
//! `CPI_ty` cycles per instruction misses apart (`p.cpi × cpi_scale`, or its CPI on the type's
//! microarchitecture) and overlaps its misses `O` at a time (min(`p.mlp`, the type's `max_mlp`):
//! `perf`), with the LLC share the thread gets (`mpki` misses per thousand instructions there)
//! and the memory latency it pays (`L` ns, remote NUMA included), it counts (`EVENTS` says the
//! same in words; `per_instruction` computes it):
//!
//! | event | per instruction |
//! |---|---|
//! | instructions | 1 |
//! | cycles | `elapsed × f` (time on the core, stalls and migrations included) |
//! | llc_misses | `mpki / 1000` (+ a migration's refill misses) |
//! | llc_references | `p.misses.accesses_pki() / 1000` (the curve at its smallest size: L2 misses) |
//! | mem_stall_cycles | `mpki / 1000 × L / O × f + (references − mpki / 1000) × LLC_HIT_CYCLES` (+ the refill's time) |
//! | dram_accesses | `mpki / 1000 × (1 + WRITEBACKS_PER_MISS) + streaming / 1000 × PREFETCHES_PER_STREAMING_MISS` |
//! | dispatch_stalls | `mpki / 1000 × L / O × f + max(0, CPI_ty − IDEAL_CPI)` |
//! | branch_misses | `p.branch_mpki / 1000` |
//! | l1d_misses | `p.l1d_mpki / 1000`, default `llc_references + DEFAULT_L1D_L2_HITS_PKI / 1000` |
//!
//! (`streaming` = the curve's miss rate at its largest size: the misses no cache removes, which a
//! stride prefetcher fetches ahead.)

use crate::cache::MissCurve;
use crate::perf::CoreCpi;

/// One kind of counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventKind {
    /// Its name in the view, JSON, the agent and model files.
    pub name: &'static str,
    /// What it counts.
    pub counts: &'static str,
    /// How the simulator derives it.
    pub derived: &'static str,
}

/// Every event, in `Counters::event` order. The first three are `Counters`' named fields; the
/// rest are `Counters::more[i - FIRST_MORE]`.
pub const EVENTS: [EventKind; 9] = [
    EventKind { name: "instructions", counts: "instructions retired", derived: "the instructions the thread's phase retires" },
    EventKind { name: "cycles", counts: "core clock cycles on the core (stalls included)", derived: "time on the core x its clock" },
    EventKind {
        name: "llc_misses",
        counts: "last-level-cache misses",
        derived: "the phase's miss curve at the LLC share the thread gets, plus a migration's refill misses",
    },
    EventKind {
        name: "llc_references",
        counts: "LLC accesses (= L2 misses)",
        derived: "the miss curve at its smallest size (the FOA model's access rate): misses and LLC hits alike",
    },
    EventKind {
        name: "mem_stall_cycles",
        counts: "cycles stalled on memory",
        derived: "misses x the memory latency the thread pays / their overlap (MLP) x the clock, + 40 cycles per LLC hit, plus a refill's time",
    },
    EventKind {
        name: "dram_accesses",
        counts: "DRAM accesses, prefetches and writebacks included",
        derived: "misses x (1 + 0.3 writebacks) + the curve's floor (the streaming misses) x 1 prefetch",
    },
    EventKind {
        name: "dispatch_stalls",
        counts: "cycles the dispatcher stalls (memory and core resources)",
        derived: "the misses' stall cycles + the cycles per instruction above the 3-wide ideal (CPI on the core - 1/3)",
    },
    EventKind { name: "branch_misses", counts: "mispredicted branches", derived: "the phase's branch_mpki (default 5)" },
    EventKind {
        name: "l1d_misses",
        counts: "L1 data-cache misses",
        derived: "the phase's l1d_mpki (default: LLC references + 20 per 1000 instructions that hit in L2)",
    },
];

pub const INSTRUCTIONS: usize = 0;
pub const CYCLES: usize = 1;
pub const LLC_MISSES: usize = 2;
pub const LLC_REFERENCES: usize = 3;
pub const MEM_STALL_CYCLES: usize = 4;
pub const DRAM_ACCESSES: usize = 5;
pub const DISPATCH_STALLS: usize = 6;
pub const BRANCH_MISSES: usize = 7;
pub const L1D_MISSES: usize = 8;

/// The first event kept in `Counters::more`.
pub const FIRST_MORE: usize = 3;
/// How many: `Counters::more`'s length.
pub const MORE_EVENTS: usize = EVENTS.len() - FIRST_MORE;

/// The event index of `name`; the error lists the known names.
pub fn event_named(name: &str) -> Result<usize, String> {
    EVENTS.iter().position(|e| e.name == name).ok_or_else(|| {
        let known: Vec<&str> = EVENTS.iter().map(|e| e.name).collect();
        format!("unknown event '{name}' (known: {})", known.join(", "))
    })
}

/// Cycles a load that misses L2 and hits the LLC stalls: the Phenom II's L3 load-to-use latency
/// is about 40-50 cycles. The performance model folds these stalls into the phase's CPI (they
/// scale with the clock), but a stall counter sees them beside the misses', so it reads a
/// cache-heavy program as more memory-bound than it is: imperfect, as real stall counters are.
pub const LLC_HIT_CYCLES: f64 = 40.0;
/// Dirty lines written back per LLC miss: about a third of the lines SPEC CPU2006's memory-bound
/// programs evict are dirty (the write share of their memory traffic); 0.3 is taken for every
/// program, so the writebacks scale with the misses while the prefetches below do not.
pub const WRITEBACKS_PER_MISS: f64 = 0.3;
/// Lines a stride prefetcher fetches per miss of the streaming part of a miss curve (its floor,
/// the misses no cache size removes): one line ahead per stream miss, the Phenom II's
/// next-line DRAM prefetcher's degree. Cache-sensitive misses (above the floor) are not
/// prefetched, so DRAM accesses weight streaming programs more than LLC misses do.
pub const PREFETCHES_PER_STREAMING_MISS: f64 = 1.0;
/// The cycles per instruction of a core that never stalls: 1/3 for the 3-wide dispatch of the
/// Phenom II WASH ran on (§7). Above it, a phase's CPI on the core is dispatch stalls.
pub const IDEAL_CPI: f64 = 1.0 / 3.0;
/// Branch mispredictions per thousand instructions of a phase that gives no `branch_mpki`:
/// SPEC CPU2006's integer programs average about 5 (2-10), its floating-point ones fewer.
pub const DEFAULT_BRANCH_MPKI: f64 = 5.0;
/// L1 data misses per thousand instructions that hit in L2, added to the LLC references when a
/// phase gives no `l1d_mpki`: SPEC CPU2006 programs miss a 64 KB L1 20-40 times per thousand
/// instructions, most of which L2 serves; 20 is the low end.
pub const DEFAULT_L1D_L2_HITS_PKI: f64 = 20.0;

/// The per-phase rates of the events no miss curve gives (workload keys `branch_mpki` and
/// `l1d_mpki` of a compute chunk).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EventRates {
    /// Branch mispredictions per thousand instructions (None: `DEFAULT_BRANCH_MPKI`).
    pub branch_mpki: Option<f64>,
    /// L1 data misses per thousand instructions (None: the LLC references + `DEFAULT_L1D_L2_HITS_PKI`).
    pub l1d_mpki: Option<f64>,
}

/// The events of `Counters::more` one instruction adds, at `mpki` misses per thousand (the
/// thread's LLC share), a memory latency of `latency_ns`, on a core at `freq_ghz` where the
/// chunk costs `cost` (its cycles per instruction there and its misses' overlap:
/// `Profile::on_core`), for a chunk with miss `curve` and `rates`. The stall cycles are the
/// time model's (`perf`): each miss stalls latency / overlap, so cycles stay the time × clock.
pub fn per_instruction(cost: CoreCpi, curve: &MissCurve, rates: &EventRates, mpki: f64, latency_ns: f64, freq_ghz: f64) -> [f64; MORE_EVENTS] {
    let misses = mpki / 1000.0;
    let references = curve.accesses_pki().max(mpki) / 1000.0;
    // `misses * latency_ns * freq_ghz` when the misses do not overlap (division by 1 is exact).
    let miss_stalls = misses * latency_ns / cost.overlap * freq_ghz;
    let stall_cycles = miss_stalls + (references - misses) * LLC_HIT_CYCLES;
    let streaming = curve.mpki_at(f64::INFINITY).min(mpki) / 1000.0;
    let dram = misses * (1.0 + WRITEBACKS_PER_MISS) + streaming * PREFETCHES_PER_STREAMING_MISS;
    let dispatch = miss_stalls + (cost.cycles - IDEAL_CPI).max(0.0);
    let branch = rates.branch_mpki.unwrap_or(DEFAULT_BRANCH_MPKI) / 1000.0;
    let l1d = rates.l1d_mpki.map_or(references + DEFAULT_L1D_L2_HITS_PKI / 1000.0, |x| x / 1000.0);
    [references, stall_cycles, dram, dispatch, branch, l1d]
}

/// What a migration's LLC refill adds to `Counters::more`: `misses` misses taking `refill_ns`
/// on a core at `freq_ghz`, all of it memory stall.
pub fn of_refill(misses: f64, refill_ns: f64, freq_ghz: f64) -> [f64; MORE_EVENTS] {
    let stall = refill_ns * freq_ghz;
    [misses, stall, misses * (1.0 + WRITEBACKS_PER_MISS), stall, 0.0, misses]
}
