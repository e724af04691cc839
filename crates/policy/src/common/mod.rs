//! What several policies share, so that none of them re-derives it: core partitions and the
//! moves between them, per-thread state, speedup-factor estimation.

pub mod filing;
pub mod partition;
pub mod per_thread;
pub mod sf;

pub use partition::{Claim, Level, Partitions, FAST};
pub use filing::Filing;
pub use per_thread::PerThread;
