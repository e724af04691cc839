//! The live agent's layer: the simulator's policies on real threads, through their affinities.
//!
//! - `topology`: core types, capacities and LLC domains from sysfs;
//! - `cores`: core types the user names (`--cores`, `--emulate`) and the machine file;
//! - `procfs`: what the agent reads of threads, and sched_{get,set}affinity;
//! - `monitor`: the `SystemView` of the target threads, kept up to date cheaply;
//! - `counters`: per-thread hardware counter arithmetic, behind a source `perf` implements;
//! - `enforce`: applying a `Placement` (affinity, fast-core share, weight, slice, frequency)
//!   and undoing it;
//! - `locks`: the shared table of the lock preload library (preload/ampsched_locks.c);
//! - `emulate`: slow cores by cycle stealing, for symmetric machines;
//! - `perf`: per-thread counter groups from perf_event_open;
//! - `report`: the `--json` report;
//! - `trace`: `--trace`, what ran where, sampled, in the simulator's trace format;
//! - `runtime_threads`: application or runtime helper thread, by name (`--runtime-threads`);
//! - `uclamp`: a thread's utilisation clamps (sched_getattr(2));
//! - `record`: `ampsched record`, a live run written as a workload file;
//! - `guardian`: a process outside the agent's fate that restores what it changed if it dies;
//! - `agent`: the loop, and the guarantees on exit.

pub mod agent;
pub mod cores;
pub mod counters;
pub mod emulate;
pub mod enforce;
pub mod guardian;
pub mod locks;
pub mod monitor;
pub mod perf;
pub mod procfs;
pub mod record;
pub mod report;
pub mod runtime_threads;
pub mod sched_attr;
pub mod topology;
pub mod trace;
pub mod uclamp;

pub use agent::{abandon, call_policy, check_policy, resolve_topology, run, run_with, run_with_policy, stop_requested, AgentConfig, AgentError};
