//! `Settings::interrupt` reaches every simulation of an experiment: a hook that asks to stop
//! ends a run and a whole comparison (solo references included) with `SimError::Interrupted`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ampsched_runner::{compare, Error, Experiment, Interrupt, Settings};
use ampsched_sim::SimError;

/// An experiment whose hook asks to stop once `stop` is set.
fn experiment(stop: &Arc<AtomicBool>) -> Experiment {
    let stop = stop.clone();
    let interrupt = Interrupt::new(move || stop.load(Ordering::Relaxed));
    Experiment::new("dvfs-2x", "demo", Settings { interrupt: Some(interrupt), ..Settings::default() }).unwrap()
}

fn interrupted<T: std::fmt::Debug>(r: Result<T, Error>) -> bool {
    matches!(r, Err(Error::Sim { error: SimError::Interrupted, .. }))
}

#[test]
fn the_hook_stops_runs_and_comparisons() {
    let stop = Arc::new(AtomicBool::new(false));
    let mut exp = experiment(&stop);
    assert!(exp.run("rr").is_ok(), "a hook that does not ask changes nothing");
    stop.store(true, Ordering::Relaxed);
    assert!(interrupted(exp.run("oblivious")));
    // A fresh experiment: its solo references are simulated (and stopped) first.
    let mut started = Vec::new();
    let policies = ["rr".to_string(), "busyfcs".to_string()];
    let r = compare(&mut experiment(&stop), &policies, None, &mut |done, _, label| {
        started.push((done, label.to_string()));
        true
    });
    assert!(interrupted(r));
    assert_eq!(started, [(0, "rr".to_string())], "no run after the one that was stopped");
}
