//! The defaults a user meets everywhere (CLI, Python API, simulator, agent), defined once here.
//! The Python front reads them from the engine (`ampsched._core.defaults()`), never its own copy.

/// The local scheduler's time slice, ms. CFS's minimum granularity with a few threads per core is
/// of this order, and it is the Solaris tick scale of the Sáez thesis's experiments.
pub const SLICE_MS: f64 = 4.0;

/// The seed of a run (the simulator's only randomness: which idle core a waking thread takes).
pub const SEED: u64 = 1;

/// The relative standard deviation of the simulator's measurement noise on the counters a
/// policy reads (the run setting `counter_noise`; 0: exact; the noise model is in the
/// simulator's `counters` module and docs/model.md, "Counter noise"). Real per-thread
/// counts are off by overcount at interrupts and context switches, skid at the read, and, when
/// events are multiplexed onto fewer counters, by scaling a sample (Weaver and McKee, "Can
/// Hardware Performance Counters Be Trusted?", IISWC 2008; Weaver, Terpstra and Moore,
/// "Non-Determinism and Overcount on Modern Hardware Performance Counter Implementations",
/// ISPASS 2013): small in whole-program totals, a few percent in the per-quantum reads of one
/// thread a scheduler makes. WASH reads its 4 events on the Phenom II's 4 counters (no
/// multiplexing), so 2% per read is taken: errors that move a thread's measured IPC or miss
/// rate by a few percent from quantum to quantum, as on real hardware, without swamping the
/// differences between programs the estimators must see. Sweep it with `counter_noise`.
pub const COUNTER_NOISE: f64 = 0.02;

/// The live agent's sampling interval, ms. The policies' own quanta are 10-50 ms (HAFS: 10 ms);
/// 40 ms keeps the agent's cost low and is the interval its overhead benchmark is specified at.
pub const AGENT_INTERVAL_MS: f64 = 40.0;

/// The range of the agent's interval, ms. Below 1 ms the /proc reads alone would take most of
/// it; an hour is far past any policy's quantum (tens of ms) and keeps the interval's arithmetic
/// in nanoseconds far from overflow (1e14 ms once wrapped it into a busy loop).
pub const AGENT_INTERVAL_MIN_MS: f64 = 1.0;
pub const AGENT_INTERVAL_MAX_MS: f64 = 3_600_000.0;

/// How long the live agent lets a Python policy's `decide` run before it stops the policy
/// (`--decide-limit`), ms. A Python call costs tens of microseconds (docs/policy-interface.md, "Cost
/// written in Python" table); one that takes a second has missed 25 samples at the default
/// interval, while the program ran with whatever placement it had: a live scheduler whose
/// decisions take that long is broken, or stuck (`while True: pass`), and the command should
/// not wait on it. The range is the interval's: 1 ms to an hour.
pub const DECIDE_LIMIT_MS: f64 = 1000.0;
pub const DECIDE_LIMIT_MIN_MS: f64 = AGENT_INTERVAL_MIN_MS;
pub const DECIDE_LIMIT_MAX_MS: f64 = AGENT_INTERVAL_MAX_MS;

/// Period of the agent's cycle-stealing emulation of slow cores, ms: short enough that a slowed
/// thread sees a steady speed at the policies' quanta, long enough that the stealer's own
/// switches cost little.
pub const EMULATE_PERIOD_MS: f64 = 2.0;

/// A fast-core share's round (Kim & Huh, "Fair scheduling for AMPs", §6.2: each thread's time is
/// split "fast_or_slow_core_share × 30 ms" per round), in the simulator and the agent alike.
pub const SHARE_ROUND_NS: u64 = 30_000_000;

/// The range of a time slice a policy may ask for: Linux's clamp on a slice request
/// (kernel/sched/syscalls.c, `__setscheduler_params`, 0.1 to 100 ms). The simulator takes the
/// same range, so a placement means the same in both.
pub const MIN_SLICE_NS: u64 = 100_000;
pub const MAX_SLICE_NS: u64 = 100_000_000;

/// Milliseconds as nanoseconds, rounded, at least 1 ns.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round().max(1.0) as u64
}
