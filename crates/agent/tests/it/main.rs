//! The integration tests of ampsched-agent, one module per former test file, in one binary: each
//! file of tests/ was its own binary, each paying its own optimised link.
//! A test's name is its module path (`cargo test -p ampsched-agent --test it MODULE::` runs one
//! module's tests). agent_run.rs stays a binary of its own (it says why).

mod common;

mod cores;
mod counter_policies;
mod counters;
mod enforce;
mod guardian;
mod locks;
mod progress;
mod record_convert;
mod runtime_threads;
mod shared_view;
mod topology;
mod wash_live;
