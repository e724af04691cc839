//! The defaults a user meets everywhere (CLI, Python API, simulator, agent), defined once here.
//! The Python front reads them from the engine (`ampsched._core.defaults()`), never its own copy.

/// The local scheduler's time slice, ms. CFS's minimum granularity with a few threads per core is
/// of this order, and it is the Solaris tick scale of the Sáez thesis's experiments.
pub const SLICE_MS: f64 = 4.0;

/// The seed of a run (the simulator's only randomness: which idle core a waking thread takes).
pub const SEED: u64 = 1;

/// The live agent's sampling interval, ms. The policies' own quanta are 10-50 ms (HAFS: 10 ms);
/// 40 ms keeps the agent's cost low and is the interval its overhead benchmark is specified at.
pub const AGENT_INTERVAL_MS: f64 = 40.0;

/// Period of the agent's cycle-stealing emulation of slow cores, ms: short enough that a slowed
/// thread sees a steady speed at the policies' quanta, long enough that the stealer's own
/// switches cost little.
pub const EMULATE_PERIOD_MS: f64 = 2.0;

/// Milliseconds as nanoseconds, rounded, at least 1 ns.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round().max(1.0) as u64
}
