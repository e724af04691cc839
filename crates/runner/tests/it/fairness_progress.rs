//! The fairness policies' online estimator in the simulator from both of its sources: the
//! counters (instructions per second on each core type, Kim & Huh §6.1) and, where a policy is
//! shown none, the CPU-time progress rates (`Signals::PROGRESS`, the live agent's source without a
//! PMU). On simulated cores, slow by running slowly as real ones are, the counters see the
//! efficiency and the progress rates do not: the limit the agent's report states for real
//! asymmetric cores (crates/policy/src/common/progress_rate.rs).

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Policy, SimpleModel, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_sim::{Engine, SimConfig};

/// One 2 GHz core and one 1 GHz core: a compute-bound thread (no misses) is twice as fast on
/// the first, e = 2.
fn machine() -> Machine {
    Machine::from_toml(
        "t.toml",
        "name = \"t\"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n\
         [[core_type]]\nname = \"small\"\ncount = 1\nfreq_ghz = 1.0\n",
    )
    .unwrap()
}

/// Two single-threaded compute-bound apps, long enough for several 2 s intervals.
fn workload() -> Workload {
    let app = |i| format!("[[app]]\nname = \"a{i}\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e10\ncpi = 1\nllc_mpki = 0\n");
    Workload::from_toml("w.toml", &format!("{}{}", app(0), app(1)), &Programs::new()).unwrap()
}

/// max-fair's estimates (thread, e of each interval) at the end of a run, and where they came from.
fn estimates(counters: bool) -> (Vec<(u32, Vec<f64>)>, String) {
    let (m, w) = (machine(), workload());
    let mut p: Box<dyn Policy> = build(&PolicySpec::parse("max-fair").unwrap(), &m).unwrap();
    let cfg = SimConfig { policy_reads_counters: counters, counter_noise: 0.0, ..SimConfig::default() };
    Engine::new(&m, &w, &SimpleModel, p.as_mut(), cfg).run().unwrap();
    let d = p.diagnostics().expect("the fairness daemon reports its estimates");
    (d.efficiency_estimates(), d.speedup_source().unwrap())
}

#[test]
fn the_counters_see_the_simulated_efficiency_and_the_progress_rates_do_not() {
    let (e, source) = estimates(true);
    assert!(source.contains("hardware counters"), "{source}");
    assert_eq!(e.len(), 2, "{e:?}");
    for (t, e) in e {
        assert!(!e.is_empty() && e.iter().all(|e| (e - 2.0).abs() < 0.05), "thread {t}: {e:?} by the counters, 2 by the clocks");
    }
    let (e, source) = estimates(false);
    assert!(source.contains("progress rate"), "{source}");
    assert_eq!(e.len(), 2, "{e:?}");
    for (t, e) in e {
        // Each core runs one thread or the other all the time either wants it: rate 1 on each
        // side with the threads' own contention taken out, whatever the cores' speeds.
        assert!(!e.is_empty() && e.iter().all(|e| (e - 1.0).abs() < 1e-9), "thread {t}: {e:?} by the progress rates");
    }
}
