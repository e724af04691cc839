//! Issue 23: a constant-load app whose run lasts 1 µs (one sleep), beside an app of 1e11
//! instructions, restarts without end. The bound on the threads a run creates
//! (`limits::MAX_THREADS_SPAWNED`) was checked after a thread was made, once the run's tables
//! had doubled past it (a run under a 4 GB limit aborted in an allocation of 640 MB); it is now
//! checked before a run's threads are made, and the run ends with a one-line error.
//!
//! The memory is measured in a child process (this test binary run again), from its own
//! /proc/self/status: what other processes of a shared machine do does not move it.

use std::process::Command;

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Placement, Policy, PolicyFailure, SimpleModel, SystemView, Triggers, Workload};
use ampsched_sim::{Engine, SimConfig, SimError};

const CHILD: &str = "AMPSCHED_RESTARTS_CHILD";
/// The bound the test gives the run: 2^16 threads, small enough for a test of a second.
const BOUND: u64 = 1 << 16;
/// What a thread created costs the run's tables at most, KB: ~1.4 KB for a policy without a
/// quantum, as here (`limits::MAX_THREADS` says ~2 KB with a quantum's per-thread intervals).
/// Every restart still costs this (an exited thread keeps its row: see `limits`), so memory is
/// bounded by the bound on threads, 2^20 × ~2 KB by default.
const KB_PER_THREAD: u64 = 2;

struct Oblivious;

impl Policy for Oblivious {
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, _: &SystemView, _: &mut Placement) -> Result<(), PolicyFailure> {
        Ok(())
    }
}

/// A field of /proc/self/status, in kB.
fn status_kb(key: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = text.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("no {key} in /proc/self/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn child() {
    let m = Machine::from_toml("m", "memory_latency_ns = 100\n[[core_type]]\nname = \"fast\"\ncount = 2\nfreq_ghz = 2.0\n").unwrap();
    let text = "constant_load = true\n\
                [[app]]\nname = \"short\"\n[[app.phase]]\nkind = \"sleep\"\nseconds = 1e-6\n\
                [[app]]\nname = \"long\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e11\n";
    let w = Workload::from_toml("w", text, &Programs::new()).unwrap();
    let before = status_kb("VmHWM:");
    let cfg = SimConfig { max_threads_spawned: BOUND, ..SimConfig::default() };
    let e = Engine::new(&m, &w, &SimpleModel, &mut Oblivious, cfg).run().unwrap_err();
    let grown = status_kb("VmHWM:") - before;
    let SimError::OverBudget(msg) = e else { panic!("{e:?}") };
    // The long app's thread and 65535 runs of the short app's one; the next is not made.
    let head = format!("the run passed its budget: {BOUND} threads were created, runs and restarts counted, and the next run of 'short' would create 1 more, past the most a run may create ({BOUND}), stopped at t=");
    assert!(msg.starts_with(&head) && !msg.contains('\n'), "{msg}");
    assert!(msg.ends_with("this bound is fixed: an app that restarts this often under constant load must be made longer"), "{msg}");
    println!("peak resident memory grown by {grown} kB for {BOUND} threads");
    assert!(grown < BOUND * KB_PER_THREAD, "the run's peak resident memory grew by {grown} kB for {BOUND} threads");
}

#[test]
fn an_app_that_restarts_without_end_stops_at_the_thread_bound_before_its_tables_pass_it() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    // The test's name as libtest knows it: its module path in this binary, without the crate.
    let name = format!("{}::an_app_that_restarts_without_end_stops_at_the_thread_bound_before_its_tables_pass_it", module_path!().split_once("::").unwrap().1);
    let out = Command::new(std::env::current_exe().unwrap()).args(["--exact", &name, "--nocapture", "--test-threads=1"]).env(CHILD, "1").output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the child failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("peak resident memory grown by"), "the child did not run the case:\n{stdout}");
    println!("{}", stdout.lines().find(|l| l.contains("peak resident memory grown by")).unwrap());
}
