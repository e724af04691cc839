//! Schedulers of the Sáez thesis ("Operating system support for asymmetric multicore
//! processors"): HAFS (rr), BusyFCs and IPC-Driven (ipc-driven, and static-ipc-driven with offline
//! ratios) so far; HASS, PA, MinTLP, CAMP and SFD to come.

pub mod busyfcs;
pub mod hass_d;
pub mod hass_s;
pub mod ipc_driven;
pub mod rr;
pub mod static_ipc_driven;
