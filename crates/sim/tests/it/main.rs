//! The integration tests of ampsched-sim, one module per former test file, in one binary: each
//! file of tests/ was its own binary, each paying its own optimised link.
//! A test's name is its module path (`cargo test -p ampsched-sim --test it MODULE::` runs one
//! module's tests).

mod common;

mod counters;
mod gts;
mod idle_while_waiting;
mod interrupt;
mod lock_wake;
mod many_cores;
mod memory;
mod noc;
mod pipelines;
mod placement;
mod program_groups;
mod progress;
mod qspin;
mod recorded_sync;
mod restarts;
mod share_cost;
mod shares;
mod smt;
mod task_runtime;
mod workers;
