//! Skipping the periodic ticks of idle stretches (`Engine::next_tick`) saves events and the
//! policy calls made while nothing runs, and changes nothing else: every run is the run that
//! ticks through its idle stretches, but for those two counts. java-like's threads all sleep at
//! times; rr at a 20 ms quantum against 10 ms balancing has two periodic streams whose order
//! at a shared tick would change if the skip scheduled them at other moments.

use ampsched_model::SimpleModel;
use ampsched_policy::{build, PolicySpec};
use ampsched_runner::catalog;
use ampsched_sim::{Engine, RunResult, SimConfig};

fn run(machine: &str, workload: &str, policy: &str, skip_idle: bool) -> RunResult {
    let (m, w) = (catalog::machine(machine).unwrap(), catalog::workload(workload).unwrap());
    let mut p = build(&PolicySpec::parse(policy).unwrap(), &m).unwrap();
    let cfg = SimConfig { skip_idle, max_segments: 100_000, ..SimConfig::default() };
    Engine::new(&m, &w, &SimpleModel, p.as_mut(), cfg).run().unwrap()
}

#[test]
fn skipping_idle_ticks_changes_only_the_event_and_idle_call_counts() {
    let mut saved = 0;
    for (machine, policy) in [("wash-3b3s", "rr:quantum_ms=20"), ("wash-1b5s", "busyfcs"), ("wash-2b4s", "oblivious"), ("dvfs-2x", "rr:quantum_ms=30")] {
        let (mut skipped, ticked) = (run(machine, "java-like", policy, true), run(machine, "java-like", policy, false));
        assert!(skipped.events <= ticked.events && skipped.policy_calls <= ticked.policy_calls);
        saved += ticked.events - skipped.events;
        (skipped.events, skipped.policy_calls) = (ticked.events, ticked.policy_calls);
        assert!(format!("{skipped:?}") == format!("{ticked:?}"), "{machine} {policy}: skipping idle ticks changed the run");
    }
    assert!(saved > 100, "only {saved} events skipped: the test no longer has idle stretches to skip");
}
