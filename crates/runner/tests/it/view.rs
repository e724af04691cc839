//! What the simulator hands a policy is what the policy interface promises, checked at every
//! call against a brute-force reading of the whole thread table: the live list, the change
//! list, per-app runnable counts, per-quantum intervals and who ran, per-core state and lock
//! edges. A recording wrapper makes the checks and must not change the run.

use ampsched_model::{CoreSet, PerType, Placement, Policy, PolicyFailure, SystemView, ThreadState, Trigger, Triggers, Watched};
use ampsched_policy::{build, PolicySpec};
use ampsched_runner::catalog;
use ampsched_sim::{Engine, SimConfig};

/// Checks each view a policy gets (`Watched` calls it after each call, so the policy gets the
/// calls it would get alone: "changed since the previous call" is per policy).
struct ViewChecker {
    /// Per thread at the previous call: (runnable, exited, affinity).
    seen: Vec<(bool, bool, CoreSet)>,
    /// Per thread at the previous quantum: its counters.
    at_quantum: Vec<PerType>,
    calls: u64,
    lock_edges_seen: usize,
}

impl ViewChecker {
    fn check(&mut self, v: &SystemView) {
        self.calls += 1;
        assert_eq!(v.call, self.calls, "calls are numbered 1, 2, ...");
        let all = v.threads;
        let live: Vec<u32> = all.iter().filter(|t| t.state != ThreadState::Exited).map(|t| t.id).collect();
        assert_eq!(v.live, &live[..], "live = the threads not exited, ascending");
        for app in v.apps {
            let runnable = all.iter().filter(|t| t.app == app.id && t.state.is_runnable()).count() as u32;
            assert_eq!(app.runnable_threads, runnable, "app {} runnable count at t={}", app.name, v.now_ns);
        }
        // Every thread that started, exited, became runnable or not, or whose affinity changed
        // since the last call is listed.
        for t in all {
            let now = (t.state.is_runnable(), t.state == ThreadState::Exited, t.allowed.clone());
            let before = self.seen.get(t.id as usize);
            if before != Some(&now) {
                assert!(v.changed.contains(&t.id), "thread {} changed ({before:?} -> {now:?}) but is not listed", t.id);
            }
        }
        let mut changed = v.changed.to_vec();
        changed.sort_unstable();
        changed.dedup();
        assert_eq!(changed.len(), v.changed.len(), "no thread is listed twice");
        self.seen = all.iter().map(|t| (t.state.is_runnable(), t.state == ThreadState::Exited, t.allowed.clone())).collect();
        if v.trigger == Trigger::Quantum {
            self.at_quantum.resize(all.len(), PerType::default());
            for t in v.live_threads() {
                let base = &self.at_quantum[t.id as usize];
                let interval = v.interval_of(t.id);
                for ty in 0..v.machine.core_types.len() {
                    assert_eq!(interval[ty], t.per_type[ty].since(&base[ty]), "thread {} type {ty} interval", t.id);
                }
                let ran = interval.iter().any(|c| c.time_ns > 0);
                assert_eq!(v.ran.binary_search(&t.id).is_ok(), ran, "thread {} ran = {ran}", t.id);
            }
            self.at_quantum = all.iter().map(|t| t.per_type).collect();
        }
        let runnable = live.iter().filter(|&&t| all[t as usize].state.is_runnable()).count();
        assert!(v.cores.iter().map(|c| c.nr_running as usize).sum::<usize>() <= runnable);
        for (c, core) in v.cores.iter().enumerate() {
            if let Some(t) = core.running {
                assert_eq!((all[t as usize].state, all[t as usize].core), (ThreadState::Running, Some(c)));
                assert!(core.nr_running >= 1);
            }
        }
        // Lock edges: what a holder caused is the sum of its edges; a thread not waiting now has
        // waited exactly the sum of its edges.
        for t in all {
            let caused: u64 = v.lock_edges.iter().filter(|e| e.holder == t.id).map(|e| e.wait_ns).sum();
            assert_eq!(caused, t.lock_wait_caused_ns, "thread {} caused", t.id);
            if t.waiting_for.is_none() {
                let waited: u64 = v.lock_edges.iter().filter(|e| e.waiter == t.id).map(|e| e.wait_ns).sum();
                assert_eq!(waited, t.lock_wait_ns, "thread {} waited", t.id);
            }
        }
        self.lock_edges_seen = self.lock_edges_seen.max(v.lock_edges.len());
    }
}

#[test]
fn every_view_keeps_the_interfaces_promises_and_checking_changes_nothing() {
    let mut edges = 0;
    for (machine, workload) in [("2fc-2sc-amd", "locks"), ("2fc-2sc-amd", "java-like"), ("dvfs-2x", "forkjoin"), ("4fc-12sc", "w1"), ("dvfs-2x", "demo")] {
        let m = catalog::machine(machine).unwrap();
        let w = catalog::workload(workload).unwrap();
        for spec in ["rr", "busyfcs", "static"] {
            let spec = PolicySpec::parse(spec).unwrap();
            let plain = Engine::new(&m, &w, &ampsched_model::SimpleModel, build(&spec, &m).unwrap().as_mut(), SimConfig::default()).run().unwrap();
            let mut checker = ViewChecker { seen: Vec::new(), at_quantum: Vec::new(), calls: 0, lock_edges_seen: 0 };
            let mut checked = Watched::new(build(&spec, &m).unwrap(), |_, view, _| checker.check(view));
            let r = Engine::new(&m, &w, &ampsched_model::SimpleModel, &mut checked, SimConfig::default()).run().unwrap();
            drop(checked);
            assert!(checker.calls > 0);
            edges += checker.lock_edges_seen;
            assert_eq!(
                (r.makespan_ns, r.migrations, r.decisions),
                (plain.makespan_ns, plain.migrations, plain.decisions),
                "{machine}/{workload}/{}",
                spec.name
            );
        }
    }
    assert!(edges > 0, "the lock workloads exercised the lock edges");
}

#[test]
fn program_signatures_reach_the_view_and_hints_are_offered_only_when_every_group_has_one() {
    use ampsched_model::cache::MissCurve;
    use ampsched_model::workload::Programs;
    use ampsched_model::{Signals, Signature, Workload};
    use ampsched_sim::simulator_signals;
    // App b gives no signature: it gets its phases' whole-run signature (instruction-weighted:
    // CPI (1e6 × 1 + 3e6 × 2) / 4e6 = 1.75, MPKI (1e6 × 0 + 3e6 × 8) / 4e6 = 6). App c only
    // sleeps: nothing to profile, no signature.
    let with = |sig: &str, c: bool| {
        let text = format!(
            "[[app]]\nname = \"a\"\n[app.signature]\n{sig}\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\n\
             [[app]]\nname = \"b\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\n\
             [[app.phase]]\nkind = \"compute\"\ninstructions = 3e6\ncpi = 2\nllc_mpki = 8\n{}",
            if c { "[[app]]\nname = \"c\"\n[[app.phase]]\nkind = \"sleep\"\nseconds = 0.001\n" } else { "" }
        );
        Workload::from_toml("w.toml", &text, &Programs::new())
    };
    let w = with("cpi = 1.5\nllc_mpki = 4.0", true).unwrap();
    assert_eq!(w.apps[0].groups[0].signature, Some(Signature::flat(1.5, 4.0)));
    assert_eq!(w.apps[1].groups[0].signature, Some(Signature::flat(1.75, 6.0)));
    assert_eq!(w.apps[2].groups[0].signature, None);
    assert!(!simulator_signals(&w).contains(Signals::HINTS), "app c has none");
    let both = with("cpi = 1.5\nllc_mpki = 4.0", false).unwrap();
    assert!(simulator_signals(&both).contains(Signals::HINTS));
    assert_eq!(
        Signals::HINTS.check(simulator_signals(&w), "the simulator"),
        Err("it needs static program hints (signatures) for every app, which the simulator does not give".to_string())
    );
    // A signature may give a miss curve, read like a phase's.
    let curve = with("cpi = 1.5\nmiss_curve = { size_kb = [256, 2048], mpki = [20, 4] }", false).unwrap();
    let sig = curve.apps[0].groups[0].signature.clone().unwrap();
    assert_eq!((sig.cpi, sig.misses.mpki_at(256.0), sig.misses.mpki_at(2048.0)), (1.5, 20.0, 4.0));
    let _: &MissCurve = &sig.misses;
    // A policy sees them per app and group.
    struct Reads(Vec<Option<Signature>>);
    impl Policy for Reads {
        fn quantum_ns(&self) -> Option<u64> {
            None
        }
        fn triggers(&self) -> Triggers {
            Triggers { start: true, ..Triggers::NONE }
        }
        fn decide(&mut self, v: &SystemView, _: &mut Placement) -> Result<(), PolicyFailure> {
            self.0 = v.apps.iter().map(|a| a.signatures[0].clone()).collect();
            Ok(())
        }
    }
    let m = catalog::machine("dvfs-2x").unwrap();
    let mut p = Reads(Vec::new());
    Engine::new(&m, &both, &ampsched_model::SimpleModel, &mut p, SimConfig::default()).run().unwrap();
    assert_eq!(p.0, vec![Some(Signature::flat(1.5, 4.0)), Some(Signature::flat(1.75, 6.0))]);
    // Bad signatures are input errors naming the key.
    assert_eq!(with("cpi = 1.5", false).unwrap_err().to_string(), "w.toml: app[0].signature.llc_mpki: missing required key (or give a miss_curve)");
    assert!(with("cpi = 1.5\nllc_mpki = 1\nsf = 2", false).unwrap_err().to_string().starts_with("w.toml: app[0].signature.sf: unknown key"));
    assert!(with("cpi = 1.5\nllc_mpki = 1\nmiss_curve = { size_kb = [1], mpki = [1] }", false).unwrap_err().to_string().contains("not both"));
}

#[test]
fn a_watched_policy_keeps_its_calls_and_its_diagnostics() {
    // HASS-D estimates SFs (its diagnostics): watched, the run and its estimator's error are the
    // same as alone, and the watcher sees every call.
    let m = catalog::machine("dvfs-2x").unwrap();
    let w = catalog::workload("demo").unwrap();
    let spec = PolicySpec::parse("hass-d").unwrap();
    let plain = Engine::new(&m, &w, &ampsched_model::SimpleModel, build(&spec, &m).unwrap().as_mut(), SimConfig::default()).run().unwrap();
    let mut calls = 0;
    let mut watched = Watched::new(build(&spec, &m).unwrap(), |_, _, _| calls += 1);
    let r = Engine::new(&m, &w, &ampsched_model::SimpleModel, &mut watched, SimConfig::default()).run().unwrap();
    drop(watched);
    assert!(plain.sf_error_mean().is_some(), "hass-d reports its estimates");
    assert_eq!((r.makespan_ns, r.decisions, r.sf_error.clone()), (plain.makespan_ns, plain.decisions, plain.sf_error.clone()));
    assert_eq!(calls, r.policy_calls);
}
