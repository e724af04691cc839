//! `ampsched record`: a live run's threads, their work and their synchronisation, written as a
//! workload file the simulator replays on any machine.
//!
//! - `recording`: what the agent and the preload library measure (the raw recording);

pub mod recording;
