//! What several policies share, so that none of them re-derives it: core partitions and the
//! moves between them, per-thread state.

pub mod filing;
pub mod partition;
pub mod per_thread;

pub use partition::{Claim, Level, Partitions, FAST};
pub use filing::Filing;
pub use per_thread::PerThread;
