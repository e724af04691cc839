//! What several policies share, so that none of them re-derives it: core partitions and the
//! moves between them, per-thread state, speedup-factor estimation and the utility factor,
//! ranking threads by a fast/slow ratio, sharing fast cores equally (HAFS), an app's
//! thread-level parallelism (class and serial-phase boost).

pub mod changes;
pub mod core_class;
pub mod efficiency;
pub mod fair_share;
pub mod filing;
pub mod key;
pub mod partition;
pub mod per_thread;
pub mod progress_rate;
pub mod ratio_rank;
pub mod sf;
pub mod sf_model;
pub mod speedup;
pub mod speedup_model;
pub mod tlp;
pub mod uf;
pub mod utilization;

pub use changes::Changes;
pub use fair_share::FairShare;
pub use filing::Filing;
pub use key::F64Key;
pub use partition::{Claim, Level, Partitions, FAST, PREFER_LOCAL_OPTION};
pub use per_thread::PerThread;
pub use ratio_rank::RatioRank;
pub use speedup::{CoreTypeRatio, SpeedupPredictor};
pub use tlp::{AppClass, AppThreads, AppTlp, Tlp};
pub use utilization::Utilization;
