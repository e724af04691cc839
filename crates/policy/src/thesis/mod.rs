//! Schedulers of the Sáez thesis ("Operating system support for asymmetric multicore
//! processors"): HAFS (rr) and BusyFCs so far; HASS, IPC-Driven, PA, MinTLP, CAMP and SFD to come.

pub mod busyfcs;
pub mod hass_d;
pub mod hass_s;
pub mod rr;
