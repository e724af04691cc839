//! The integration tests of ampsched-runner, one module per former test file, in one binary: each
//! file of tests/ was its own binary, each paying its own optimised link.
//! A test's name is its module path (`cargo test -p ampsched-runner --test it MODULE::` runs one
//! module's tests).
//!
//! proptest keeps a module's failing cases in tests/proptest-regressions/MODULE.txt: for a source
//! file under a directory with a main.rs (this one) its default `SourceParallel` persistence
//! puts them beside that directory, not beside the file.

mod common;

mod bandwidth;
mod baselines;
mod best_static;
mod camp;
mod errors;
mod fairness;
mod fairness_progress;
mod hass;
mod idle_skip;
mod interconnect;
mod interrupt;
mod ipc_driven;
mod linux_capacity;
mod machine_config;
mod mix;
mod model;
mod pa;
mod per_phase_workers;
mod policy_invariants;
mod power;
mod properties;
mod rate_cache;
mod speedup_model;
mod today_scx;
mod uarch;
mod view;
mod wash;
