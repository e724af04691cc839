//! Schedulers of the Sáez thesis ("Operating system support for asymmetric multicore
//! processors"): HAFS (rr), BusyFCs and IPC-Driven (ipc-driven, and static-ipc-driven with offline
//! ratios) so far; HASS-S and HASS-D; CAMP, SFD and PA rebuilt on the
//! Utility Factor (camp, sfd, pa-uf); PA and MinTLP to come.

pub mod busyfcs;
pub mod camp;
pub mod hass_d;
pub mod hass_s;
pub mod ipc_driven;
pub mod pa_uf;
pub mod rr;
pub mod sfd;
pub mod static_ipc_driven;
