//! ampsched's discrete-event simulator: the engine (events, local scheduler, synchronisation,
//! counters), and what is derived from a run (metrics, trace).

pub mod engine;
pub mod events;
pub mod metrics;
pub mod result;
pub mod runqueue;
pub mod sync;
pub mod trace;

pub use engine::{simulator_signals, Engine, SimConfig, SimError, DEFAULT_SLICE_NS};
pub use metrics::{metrics, AppMetrics, Metrics};
pub use result::RunResult;
