//! ampsched's discrete-event simulator: the engine (events, local scheduler, synchronisation,
//! counters), and what is derived from a run (metrics, trace).

mod cores;
mod counters;
mod driver;
pub mod dvfs;
pub mod engine;
pub mod events;
mod finish;
mod heap;
mod interp;
pub mod interrupt;
pub mod local;
mod memory;
pub mod metrics;
mod migrate;
pub mod noc;
mod nocsim;
pub mod observe;
pub mod power;
mod prefetch;
pub mod qspin;
pub mod queue;
pub mod result;
pub mod runtime;
mod sf_truth;
mod smt;
pub mod sync;
pub mod trace;

pub use engine::{simulate, simulator_signals, Engine, SimConfig, SimError, DEFAULT_SLICE_NS};
pub use interrupt::{Interrupt, Progress};
pub use local::{runqueue, Cfs, LocalScheduler};
pub use metrics::{metrics, AppMetrics, Metrics, QspinMetrics};
pub use nocsim::NocResult;
pub use result::RunResult;
pub use runtime::TaskRuntimeStats;
