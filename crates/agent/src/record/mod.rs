//! `ampsched record`: a live run's threads, their work and their synchronisation, written as a
//! workload file the simulator replays on any machine.
//!
//! - `recording`: what the agent and the preload library measure (the raw recording);
//! - `events`: the preload library's event log, as the agent drains it;
//! - `recorder`: the agent's recording mode, and `record`, a live run recorded;

pub mod events;
pub mod recorder;
pub mod recording;
