//! The interruption hook (Ctrl-C): asked every `CHECK_EVERY_EVENTS` events, it stops a run with
//! `SimError::Interrupted`, and a hook that never asks leaves the run as it was.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::common::{apps, machine};
use ampsched_model::{Machine, Placement, Policy, PolicyFailure, SimpleModel, SystemView, Triggers, Workload};
use ampsched_sim::interrupt::CHECK_EVERY_EVENTS;
use ampsched_sim::{Engine, Interrupt, RunResult, SimConfig, SimError};

/// Leaves every thread to the local scheduler.
struct Idle;

impl Policy for Idle {
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, _: &SystemView, _: &mut Placement) -> Result<(), PolicyFailure> {
        Ok(())
    }
}

fn one_core() -> Machine {
    machine("[[core_type]]\nname = \"c\"\ncount = 1\nfreq_ghz = 1.0\n")
}

fn run(m: &Machine, w: &Workload, interrupt: Option<Interrupt>) -> Result<RunResult, SimError> {
    Engine::new(m, w, &SimpleModel, &mut Idle, SimConfig { interrupt, ..SimConfig::default() }).run()
}

/// A hook that counts its calls and asks to stop at call `stop_at`.
fn counting(stop_at: u64) -> (Interrupt, Arc<AtomicU64>) {
    let calls = Arc::new(AtomicU64::new(0));
    let seen = calls.clone();
    (Interrupt::new(move || seen.fetch_add(1, Ordering::Relaxed) + 1 >= stop_at), calls)
}

#[test]
fn the_hook_stops_a_run() {
    // Two threads time-sharing one core for 1000 simulated seconds: about 350k events (slices
    // and balancing), far more than the three checks it takes to stop.
    let w = apps(&[(1e12, 1.0, 0.0), (1e12, 1.0, 0.0)]);
    let (hook, calls) = counting(3);
    let e = run(&one_core(), &w, Some(hook)).expect_err("interrupted");
    assert_eq!(e, SimError::Interrupted);
    assert_eq!(e.to_string(), "interrupted");
    // Asked before the first event, then once every CHECK_EVERY_EVENTS: it stopped at the third.
    assert_eq!(calls.load(Ordering::Relaxed), 3);
    assert!(CHECK_EVERY_EVENTS.is_power_of_two());
}

#[test]
fn a_hook_that_never_asks_changes_nothing() {
    let w = apps(&[(2e11, 1.0, 0.0), (1e11, 1.0, 5.0), (1e11, 2.0, 0.0)]);
    let (hook, calls) = counting(u64::MAX);
    let with = run(&one_core(), &w, Some(hook)).unwrap();
    let without = run(&one_core(), &w, None).unwrap();
    assert!(with.events > 2 * CHECK_EVERY_EVENTS, "the run is long enough to be asked several times");
    assert_eq!(calls.load(Ordering::Relaxed), with.events.div_ceil(CHECK_EVERY_EVENTS));
    assert_eq!((with.makespan_ns, with.events, with.migrations), (without.makespan_ns, without.events, without.migrations));
    assert_eq!(format!("{:?}", with.threads), format!("{:?}", without.threads));
}
