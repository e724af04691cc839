//! Schedulers of the Sáez thesis ("Operating system support for asymmetric multicore
//! processors"): HAFS (rr) and BusyFCs so far; HASS, IPC-Driven, PA, MinTLP, CAMP and SFD to come.

pub mod busyfcs;
pub mod ipc_driven;
pub mod rr;
pub mod static_ipc_driven;
