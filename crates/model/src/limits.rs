//! The range of every number a machine or workload file may give, defined once: wide enough for
//! any study of a real machine, narrow enough that no value can overflow the engine's integer
//! nanoseconds, allocate without bound, or make a run that cannot end. A value outside its
//! range is an input error naming the file, the key and the range (`toml_read::Node::number`);
//! docs/cli.md's "Input limits" table lists them.
//!
//! The time bounds leave room: the longest phase a file can describe (1e15 instructions at the
//! slowest core, CPI and memory stalls allowed) may pass u64 nanoseconds, but the engine never
//! adds it to the clock unchecked (the core's event is its slice end, at most 100 ms on), and a
//! run that outlives its simulated-time budget (`MAX_SIM_S`) stops with an error.

/// A group's `uclamp_min` / `uclamp_max`: a utilisation clamp on Linux's capacity scale, 0 to
/// `SCHED_CAPACITY_SCALE` = 1024, as sched_setattr(2) takes it (`sched_util_min`, `sched_util_max`).
pub const UCLAMP_MAX: u32 = 1024;

/// A closed range `[min, max]`, or `(min, max]` when `min_open`: the documented bounds of one key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: f64,
    pub min_open: bool,
    pub max: f64,
    /// Shown after the numbers in messages ("GHz", "s"); empty for a pure number.
    pub unit: &'static str,
}

impl Bounds {
    const fn closed(min: f64, max: f64, unit: &'static str) -> Bounds {
        Bounds { min, min_open: false, max, unit }
    }

    /// Greater than 0, at most `max`: a quantity that must exist (a latency, an instruction count).
    const fn positive(max: f64, unit: &'static str) -> Bounds {
        Bounds { min: 0.0, min_open: true, max, unit }
    }

    pub fn contains(&self, x: f64) -> bool {
        (if self.min_open { x > self.min } else { x >= self.min }) && x <= self.max
    }

    /// "from 0.01 to 100 GHz", "greater than 0 and at most 1e6 s".
    pub fn describe(&self) -> String {
        let unit = if self.unit.is_empty() { String::new() } else { format!(" {}", self.unit) };
        let (min, max) = (number_text(self.min), number_text(self.max));
        if self.min_open {
            format!("greater than {min} and at most {max}{unit}")
        } else {
            format!("from {min} to {max}{unit}")
        }
    }
}

/// A number as a message shows it: plain when short, in exponent form when it would run to
/// many digits (1e308 is "1e308", not 309 digits; 1e-11 is "1e-11").
pub fn number_text(x: f64) -> String {
    let magnitude = x.abs();
    if magnitude != 0.0 && !(1e-4..1e7).contains(&magnitude) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

// ---- machines

/// A core's clock: 10 MHz (a microcontroller) to 100 GHz (ten times any CPU's).
pub const FREQ_GHZ: Bounds = Bounds::closed(0.01, 100.0, "GHz");
/// A core type's CPI relative to the reference core: a hundredfold either way.
pub const CPI_SCALE: Bounds = Bounds::closed(0.01, 100.0, "");
/// A core type's capacity to overlap LLC misses (`mlp` or `max_mlp`): 1 for an in-order core,
/// which stalls on each miss; an out-of-order core keeps as many misses outstanding as it has
/// miss-status (fill) buffers: 6 on a Cortex-A15 (ARM Cortex-A15 MPCore TRM, §6.4), 10 to 16 on
/// Intel's big cores. 1024 is room for any core, GPUs' thousands of threads aside.
pub const CORE_MLP: Bounds = Bounds::closed(1.0, 1024.0, "");
/// A core's power, active or idle: a whole server socket is a few hundred watts.
pub const POWER_W: Bounds = Bounds::closed(0.0, 10_000.0, "W");
/// A power rail's static power (`[[rail]] static_w`: a cluster's L2, snoop control and clock
/// tree while any of its cores is online, or a memory's background power): as `POWER_W`.
pub const RAIL_STATIC_W: Bounds = POWER_W;
/// The energy one byte of DRAM traffic costs the memory rail (`[[rail]] pj_per_byte`): 0 to
/// 10 nJ, beyond DDR's tens of pJ per bit (a few hundred pJ per byte) with interface and I/O.
pub const PJ_PER_BYTE: Bounds = Bounds::closed(0.0, 10_000.0, "pJ/B");
/// Memory latency, local or remote: DRAM is ~100 ns, CXL or far memory a few µs; 1 ms is room.
pub const MEMORY_LATENCY_NS: Bounds = Bounds::positive(1e6, "ns");
/// A last-level cache's size: 10 GB, two orders above the largest L3 (or stacked cache) sold.
pub const LLC_SIZE_KB: Bounds = Bounds::positive(1e7, "KB");
/// A memory controller's peak bandwidth (`[memory] bandwidth_gbps`): 10 MB/s (below any DRAM
/// channel since SDRAM) to 100 TB/s (tens of HBM stacks); the lower end keeps a line's
/// service time (`line_bytes / bandwidth`) at most ~0.1 ms, so a saturated controller's
/// queueing delay stays far inside the engine's nanoseconds.
pub const MEMORY_BANDWIDTH_GBPS: Bounds = Bounds::closed(0.01, 1e5, "GB/s");
/// The bytes one LLC miss moves (`[memory] line_bytes`): 8 (a word) to 1024 (beyond the 128 B
/// lines of POWER and Apple cores and any sectored line fetched whole).
pub const LINE_BYTES: Bounds = Bounds::closed(8.0, 1024.0, "B");
/// The fixed cost of a migration: the thesis measures tens of µs; a second is room.
pub const MIGRATION_COST_US: Bounds = Bounds::closed(0.0, 1e6, "µs");
/// Hardware threads per physical core (`[[core_type]] smt`): 1 (no SMT) or 2, the two-way SMT of
/// Intel's Hyper-Threading P-cores and AMD's Zen cores. Four- and eight-way SMT (IBM POWER,
/// Oracle SPARC) would need a speed per number of busy siblings, which the model does not have.
pub const MAX_SMT: u64 = 2;
/// A busy hardware thread's speed while its sibling is busy too, relative to the thread alone on
/// the core (`smt_sibling_speed`, docs/smt.md): 1 is the most (two siblings then double the
/// core's throughput; a thread never runs faster for sharing its core); 0.5 is a core that SMT
/// gains nothing on, and below it SMT costs throughput, as it does for some cache- or
/// bandwidth-bound programs. 0.1 is the floor: a tenfold slowdown is past any measured pair, and
/// it keeps a phase's time within ten times its time alone.
pub const SMT_SIBLING_SPEED: Bounds = Bounds::closed(0.1, 1.0, "");
/// The capacity the OS reports for a core type (`[[core_type]] capacity`, Linux's sysfs
/// `cpu_capacity`): a whole number from 1 to Linux's SCHED_CAPACITY_SCALE, 1024, which the
/// kernel gives its biggest CPU (Documentation/scheduler/sched-capacity.rst, §1.2).
pub const MAX_REPORTED_CAPACITY: u64 = 1024;
/// A blocked lock waiter's wake-up latency (`Machine::lock_wake_ns`): 0 (not modelled) to
/// 10 ms, a scheduler tick and more on a loaded machine; measured values are a few to tens of µs.
pub const LOCK_WAKE_US: Bounds = Bounds::closed(0.0, 1e4, "µs");

// ---- workloads

/// Instructions of one phase (or one critical section, or the work between two): 1e15 is ten
/// days of one core at 1 GHz and IPC 1, a thousand times a SPEC reference run.
pub const INSTRUCTIONS: Bounds = Bounds::positive(1e15, "");
/// A mix's fast-forward (`mix:skip=N:...`, runner::mix): the instructions of each program skipped
/// before its window, as gem5's fast-forward (Kim & Huh, §4.1, skip 1e9); none to a whole phase
/// list's worth (at most `INSTRUCTIONS`).
pub const MIX_SKIP: Bounds = Bounds::closed(0.0, 1e15, "");
/// The most programs a mix (`mix:a,b,...`) names: a workload line, not a file; a study's mixes
/// have as many apps as its machine has cores.
pub const MAX_MIX_PROGRAMS: usize = 1024;
/// Work between two critical sections may be none.
pub const INSTRUCTIONS_BETWEEN: Bounds = Bounds::closed(0.0, 1e15, "");
/// Cycles per instruction: 0.01 (beyond any issue width) to 1000 (a thread that mostly stalls).
pub const CPI: Bounds = Bounds::closed(0.01, 1000.0, "");
/// A program's memory-level parallelism (`mlp`): its misses outstanding at once where the core
/// can overlap them (Chou, Fahs, Abraham, "Microarchitecture Optimizations for Exploiting
/// Memory-Level Parallelism", ISCA 2004, §2's definition), 1 (each miss waits for the one before:
/// pointer chasing) to the same 1024 as a core's capacity; the overlap is the smaller of the two.
pub const PROGRAM_MLP: Bounds = Bounds::closed(1.0, 1024.0, "");
/// Microarchitectures one `cpi` table may name: a handful per program is what any study has.
pub const MAX_UARCH_CPI_ENTRIES: usize = 64;
/// The length of a microarchitecture's name (`uarch`, a `cpi` table's key): a short identifier.
pub const MAX_UARCH_NAME: usize = 64;
/// LLC misses per thousand instructions: at most one miss per instruction.
pub const LLC_MPKI: Bounds = Bounds::closed(0.0, 1000.0, "");
/// Other events per thousand instructions (branch misses, L1 data misses): at most one per instruction.
pub const EVENT_PKI: Bounds = Bounds::closed(0.0, 1000.0, "");
/// A miss curve's cache sizes, and a phase's footprint: up to 1 TB of data.
pub const SIZE_KB: Bounds = Bounds::positive(1e9, "KB");
pub const FOOTPRINT_KB: Bounds = Bounds::closed(0.0, 1e9, "KB");
/// An app's arrival and a sleep (an I/O wait): up to 1e6 s, eleven days, well inside the
/// run's simulated-time budget so that what follows them can still run.
pub const ARRIVAL_S: Bounds = Bounds::closed(0.0, 1e6, "s");
pub const SLEEP_S: Bounds = Bounds::positive(1e6, "s");
/// How long a spin-then-block waiter spins: a second is far past any adaptive lock's limit.
pub const SPIN_LIMIT_US: Bounds = Bounds::positive(1e6, "µs");
/// The same in spin-loop iterations: 1e10 is 100 times the largest threshold the Sáez thesis
/// sweeps (100M, §5.2.2), ~100 s of spinning at 1 GHz.
pub const SPIN_LIMIT_ITERATIONS: Bounds = Bounds::positive(1e10, "iterations");

/// Threads in a workload, all apps and copies counted: 2^18 (262,144), a hundred times a big
/// server's. A live thread costs a run about 2 KB (its state, the policy's view of it, its
/// result: 2^20 threads measured 2.1 GB resident); checked as a product of `count` and
/// `copies` before any copy is made.
pub const MAX_THREADS: u64 = 1 << 18;
/// Threads created over a run, every run and constant-load restart counted: each keeps its row
/// in the run's tables (its result is reported), so this bounds a run's memory as
/// `MAX_THREADS` bounds a moment's (1.5 to 2.2 GB at the bound). Checked as
/// `threads × copies × runs` when a file is read, and as the run goes (restarts are not known
/// ahead) before each run's threads are made, so that no table grows past it.
pub const MAX_THREADS_SPAWNED: u64 = 1 << 20;
/// How often an app runs back to back (`runs`): a million repetitions of a measurement.
pub const MAX_RUNS: u64 = 1_000_000;
/// A group's phase list times its `repeat`: the engine counts its place in it in 32 bits.
pub const MAX_PHASE_STEPS: u64 = u32::MAX as u64;
/// Critical sections of one critical phase.
pub const MAX_CRITICAL_COUNT: u64 = 1_000_000_000;
/// Items a pipeline's first stage makes per repetition (`items`, docs/pipelines.md): as many as
/// the critical sections of one critical phase; each costs the engine a few events, so the event
/// budget, not this bound, is what keeps a run short.
pub const MAX_STAGE_ITEMS: u64 = 1_000_000_000;
/// A pipeline queue's capacity in items (`[[app.queue]] capacity`): 1 (a hand-off slot) to 2^20,
/// the queues of PARSEC dedup's pthreads version (`QUEUE_SIZE`, 1024 × 1024 entries, in its
/// src/dedupdef.h) being the largest we know of. The engine holds a queued item as one number.
pub const MAX_QUEUE_CAPACITY: u64 = 1 << 20;
/// Queues one app (or program) may declare: a pipeline has a handful of stages.
pub const MAX_QUEUES: usize = 1024;
/// Semaphores one app may declare (`[[app.semaphore]]`): as many as queues; a recorded
/// program's condition variables and semaphores are a handful to hundreds.
pub const MAX_SEMAPHORES: usize = 1024;
/// A semaphore's value (`initial`, a `sem_post`'s `count`): at most SEM_VALUE_MAX, glibc's
/// 2^31 - 1 (its bits/semaphore.h and POSIX <limits.h>), past which sem_post fails with EOVERFLOW.
pub const SEM_VALUE_MAX: u32 = i32::MAX as u32;
/// Tasks of one `tasks` step, or items of one pipeline (docs/task-runtime.md): a million, far
/// past any PARSECSs program's block (thousands of tasks per frame or chunk set).
pub const MAX_TASKS_PER_STEP: u64 = 1_000_000;
/// Stages of one pipeline: PARSEC's pipelines have 5 (dedup, bodytrack's frame loop) or 6
/// (ferret); 64 is room.
pub const MAX_PIPELINE_STAGES: usize = 64;
/// Tasks one run of a task program creates, every step and repetition counted: 2^22 (4.2
/// million). The engine keeps each task's state (~64 B) for the run, so this bounds a run's
/// task table to ~270 MB; each task costs about six events (creation, push, pop, run, their
/// lock hand-offs), so a run at the bound is ~2.5e7 events, inside the default event budget.
pub const MAX_TASKS_PER_RUN: u64 = 1 << 22;
/// The runtime's own costs (`create_instructions`, `queue_op_instructions`): 0 (free) to 1e9
/// instructions (a second of a core), far past any runtime's per-task overhead.
pub const RUNTIME_OP_INSTRUCTIONS: Bounds = Bounds::closed(0.0, 1e9, "");

// ---- runs

/// The event budget by default. It is what bounds wall time: a dense workload (a billion tiny
/// critical sections, a million back-to-back runs) can pass any simulated-time budget's worth of
/// work in little simulated time. It is one budget for a whole command (`run`, `compare`, one
/// run of a sweep): every simulation the command makes (solo references, profiling runs,
/// best-static's candidates, each policy of a comparison) draws what the earlier ones left
/// (`SimConfig::events_before`), so that the number of simulations, which the workload decides,
/// cannot multiply it. What an event costs, one core's CPU time: ~50 ns on the reference
/// benchmark (`make bench`); `oblivious` alone on 6 cores with 10^3, 10^4, 10^5 threads 71, 99,
/// 249 ns (level past the caches: 262 ns with 2.5·10^5); `rr`, a policy called at every thread
/// event, 610, 978, 1145 ns. Why 2e8: the default must bound a command's wall time to minutes
/// whatever the workload, so that a mistyped thread count ends in this budget's one-line error
/// rather than in a run nobody waits for: 2e8 events is ~10 s on the reference benchmark and
/// at most ~4 minutes in the worst case measured (rr on 10^5 threads; 1e9 allowed ~19). The
/// catalog's largest command (best-static's 64 candidates of a 16-app workload) uses ~4·10^7,
/// a fifth of it; a larger study raises it with --max-events.
pub const DEFAULT_MAX_EVENTS: u64 = 200_000_000;
/// The event budget's own range: 1e13 events is a day of the engine's time.
pub const MAX_EVENTS: Bounds = Bounds::closed(1.0, 1e13, "events");

/// The simulated-time budget of a run by default, s: 1e7 s (116 days) is ten times the longest
/// arrival or sleep a file can give; a run still going at that point is stopped with an error
/// rather than left to run (nearly) forever. It bounds the clock; the event budget bounds the
/// work of getting there.
pub const DEFAULT_MAX_SIM_S: f64 = 1e7;
/// A speedup model file's numbers (catalog/models): weights, means and intercepts of rates per
/// cycle are far inside ±1e12; scales are positive; a leave-one-out error is a relative error.
pub const MODEL_NUMBER: Bounds = Bounds::closed(-1e12, 1e12, "");
pub const MODEL_SCALE: Bounds = Bounds::positive(1e12, "");
pub const MODEL_ERROR: Bounds = Bounds::closed(0.0, 1e6, "");
/// The counter noise's range (`defaults::COUNTER_NOISE`): up to 25%, beyond which a counter
/// says little, and which keeps every noise factor (1 ± 3.46σ at most) positive, so counters
/// never decrease.
pub const COUNTER_NOISE: Bounds = Bounds::closed(0.0, 0.25, "");
/// The budget's own range: up to 1e9 s (32 years) keeps every time below u64 nanoseconds
/// (584 years) with room for the longest phase's first slice.
pub const MAX_SIM_S: Bounds = Bounds::positive(1e9, "s");
/// A power trace's sampling interval (`power_sample_s`; the big.LITTLE paper's daemon: 0.27 s):
/// 1 µs to a day. A trace keeps at most `ampsched_sim::power::MAX_POWER_SAMPLES` windows and
/// widens them past that, so a short interval on a long run cannot fill memory.
pub const POWER_SAMPLE_S: Bounds = Bounds::closed(1e-6, 86_400.0, "s");

/// A policy's quantum (`quantum_ms`), Rust or Python: at least Linux's shortest slice (EEVDF's
/// 0.1 ms, `defaults::MIN_SLICE_NS`), as a shorter period is no scheduling quantum and would only
/// make a run crawl; at most 1000 s, which no run's policy would reach.
pub const QUANTUM_MS: Bounds = Bounds::closed(0.1, 1e6, "ms");

// ---- interconnect (`[interconnect]`, docs/noc.md)

/// A mesh's columns or rows: 1 to 90 (90 × 90 = 8100 nodes, inside `MAX_CORES` = 8192, since
/// every node holds one core).
pub const MESH_DIM: Bounds = Bounds::closed(1.0, 90.0, "");
/// Router pipeline stages per hop: 1 (a single-cycle router) to 16, past the 5-stage canonical
/// VC router (Dally & Towles, ch. 16) with room.
pub const ROUTER_STAGES: Bounds = Bounds::closed(1.0, 16.0, "cycles");
/// Link traversal per hop: 1 to 16 cycles (long, pipelined global wires).
pub const LINK_CYCLES: Bounds = Bounds::closed(1.0, 16.0, "cycles");
/// Virtual channels per input port: 1 to 16 (BookSim2's default is 16; Table 2 uses 6).
pub const NOC_VCS: Bounds = Bounds::closed(1.0, 16.0, "");
/// Buffer depth of one virtual channel: 1 to 64 flits.
pub const VC_BUFFER_FLITS: Bounds = Bounds::closed(1.0, 64.0, "flits");
/// A flit's width: 1 to 256 bytes (a 2048-bit data path, beyond any chip's network).
pub const FLIT_BYTES: Bounds = Bounds::closed(1.0, 256.0, "B");
/// The line a data packet carries: 8 to 1024 bytes (as `LINE_BYTES`); with 1-byte flits a packet
/// is at most 1024 flits.
pub const NOC_LINE_BYTES: Bounds = Bounds::closed(8.0, 1024.0, "B");
/// The network's clock: 10 MHz to 100 GHz, as a core's (`FREQ_GHZ`).
pub const NOC_CLOCK_GHZ: Bounds = FREQ_GHZ;
/// OCOR's RTR priority levels: 1 (lock packets all alike) to 128 (one per retry at the paper's
/// spin count of 128: its full-resolution 129-bit encoding, §4.2).
pub const PRIORITY_LEVELS: Bounds = Bounds::closed(1.0, 128.0, "");
/// OCOR's progress classes: 1 (progress ignored) to 64.
pub const PROGRESS_LEVELS: Bounds = Bounds::closed(1.0, 64.0, "");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_include_their_ends_as_documented() {
        assert!(FREQ_GHZ.contains(0.01) && FREQ_GHZ.contains(100.0));
        assert!(!FREQ_GHZ.contains(1e-11) && !FREQ_GHZ.contains(100.000_001));
        assert!(!SLEEP_S.contains(0.0) && SLEEP_S.contains(1e6) && !SLEEP_S.contains(1e6 + 1.0));
        assert!(!CPI.contains(f64::NAN) && !CPI.contains(f64::INFINITY));
        assert_eq!(FREQ_GHZ.describe(), "from 0.01 to 100 GHz");
        assert_eq!(SLEEP_S.describe(), "greater than 0 and at most 1000000 s");
        assert_eq!(INSTRUCTIONS.describe(), "greater than 0 and at most 1e15");
        assert_eq!(number_text(1e308), "1e308");
        assert_eq!(number_text(-2.5e-11), "-2.5e-11");
        assert_eq!(number_text(0.0), "0");
    }

    #[test]
    fn the_budget_fits_u64_nanoseconds_with_room() {
        // The largest budget plus the longest sleep and a slice stays below u64::MAX ns.
        let worst_ns = (MAX_SIM_S.max + SLEEP_S.max) * 1e9 + 1e8;
        assert!(worst_ns < u64::MAX as f64 / 10.0);
    }
}
