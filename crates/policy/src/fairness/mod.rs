//! Fair scheduling on asymmetric multicores after Kim & Huh, "Exploring the Design Space of Fair
//! Scheduling Supports for Asymmetric Multicore Systems" (IEEE Trans. Computers 2018): every
//! thread's fast-core share is chosen so that threads see the same slowdown or speedup from a
//! base performance (max-fair), or trade some of that fairness for throughput under a guarantee
//! (min-fair: a minimum; uni-fair: a uniformity; sim-fair, combined-fair). `model` is the
//! share-level model of the paper (pure functions, no engine) that the policies and
//! `ampsched.fairness` compute with.

pub mod model;
