//! Baselines: what the papers compare against.

pub mod best_static;
pub mod bound;
pub mod oblivious;
pub mod static_pin;
