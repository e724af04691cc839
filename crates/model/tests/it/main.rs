//! The integration tests of ampsched-model, one module per former test file, in one binary: each
//! file of tests/ was its own binary, each paying its own optimised link.
//! A test's name is its module path (`cargo test -p ampsched-model --test it MODULE::` runs one
//! module's tests).

mod app_sync;
mod book;
mod coreset;
mod levels;
mod queue_spinlock;
mod smt;
mod task_program;
