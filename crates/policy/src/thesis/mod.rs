//! Schedulers of the Sáez thesis ("Operating system support for asymmetric multicore
//! processors"): HAFS (rr), BusyFCs, IPC-Driven (ipc-driven, and static-ipc-driven with offline
//! ratios), HASS, the parallelism-aware PA, MinTLP and PA-RTX, and CAMP with the schedulers
//! chapter 6 compares it with (camp, sfd, and pa-uf: PA rebuilt on the Utility Factor).

pub mod busyfcs;
pub mod camp;
pub mod hass_d;
pub mod hass_s;
pub mod ipc_driven;
pub mod mintlp;
pub mod pa;
pub mod pa_rtx;
pub mod pa_uf;
pub mod rr;
pub mod sfd;
pub mod static_ipc_driven;
