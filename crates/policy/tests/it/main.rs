//! The integration tests of ampsched-policy, one module per former test file, in one binary: each
//! file of tests/ was its own binary, each paying its own optimised link.
//! A test's name is its module path (`cargo test -p ampsched-policy --test it MODULE::` runs one
//! module's tests).

mod biglittle;
mod fairness_model;
mod options;
mod partitions;
mod smt_aware;
mod today_scx;
mod topology;
