//! ampsched's bottom layer: machines, workloads, the performance model, and the policy
//! interface (`view`) that the simulator and the live agent both speak.

pub mod app_sync;
pub mod bandwidth;
pub mod book;
pub mod cache;
pub mod coreset;
pub mod defaults;
pub mod error;
pub mod events;
pub mod interconnect;
pub mod limits;
pub mod machine;
pub mod nice;
pub mod os_scheduler;
pub mod perf;
pub mod queue_spinlock;
pub mod rng;
pub mod share_rounds;
pub mod task_program;
pub mod toml_read;
pub mod view;
pub mod workload;

pub use book::ViewBook;
pub use coreset::CoreSet;
pub use error::{InputError, Result};
pub use interconnect::{Arbitration, Interconnect};
pub use machine::{Core, CoreType, Machine, MemoryBandwidth, MAX_CORES, MAX_CORE_TYPES};
pub use os_scheduler::{GtsParams, OsScheduler, SwitchParams};
pub use perf::{PerfModel, SimpleModel};
pub use view::{
    AppView, CoreView, Counters, Diagnostics, LockEdge, PerType, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, ThreadState, ThreadView,
    Trigger, Triggers, Watched,
};
pub use workload::{App, Baseline, Group, Phase, Profile, Scope, Signature, SoloIps, ThreadKind, Uclamp, Wait, Workload};
