//! `ampsched record`: a live run's threads, their work and their synchronisation, written as a
//! workload file the simulator replays on any machine.
//!
//! - `recording`: what the agent and the preload library measure (the raw recording);
//! - `events`: the preload library's event log, as the agent drains it;
//! - `recorder`: the agent's recording mode, and `record`, a live run recorded;
//! - `convert`: the raw recording as a workload file, with what was measured and inferred;
//! - `infer`: what the samples say between the events (work per CPU time, off-CPU stretches,
//!   barriers);
//! - `compress`: a thread's phase list made short within a stated error.

pub mod compress;
pub mod convert;
pub mod events;
pub mod infer;
pub mod recorder;
pub mod recording;
