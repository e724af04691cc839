//! Schedulers of the Sáez thesis ("Operating system support for asymmetric multicore
//! processors"): HAFS (rr), BusyFCs, IPC-Driven (ipc-driven, and static-ipc-driven with offline
//! ratios), HASS, and the parallelism-aware PA, MinTLP and PA-RTX so far; CAMP and SFD to come.

pub mod busyfcs;
pub mod hass_d;
pub mod hass_s;
pub mod ipc_driven;
pub mod mintlp;
pub mod pa;
pub mod pa_rtx;
pub mod rr;
pub mod static_ipc_driven;
