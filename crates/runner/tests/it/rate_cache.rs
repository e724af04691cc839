//! The rate cache (`memory::RateKey`) only saves asking the model: a run with it is the run
//! without it, to the last event. Catalog runs outside the quick golden grid where it was not
//! (commit 0705fdc): 16 threads with miss curves on machines whose cores share an LLC.

use ampsched_model::SimpleModel;
use ampsched_policy::{build, PolicySpec};
use ampsched_runner::catalog;
use ampsched_sim::{Engine, SimConfig};

fn run(machine: &str, workload: &str, policy: &str, rate_cache: bool) -> String {
    let (m, w) = (catalog::machine(machine).unwrap(), catalog::workload(workload).unwrap());
    let mut p = build(&PolicySpec::parse(policy).unwrap(), &m).unwrap();
    let cfg = SimConfig { rate_cache, ..SimConfig::default() };
    format!("{:?}", Engine::new(&m, &w, &SimpleModel, p.as_mut(), cfg).run().unwrap())
}

#[test]
fn the_rate_cache_leaves_runs_unchanged() {
    for (machine, workload, policy) in [("wash-1b5s", "w1", "rr"), ("exynos5422", "hh1-x4", "rr"), ("kimhuh-2f4s", "mh1-x4", "busyfcs")] {
        let (cached, asked) = (run(machine, workload, policy, true), run(machine, workload, policy, false));
        assert!(cached == asked, "{machine} {workload} {policy}: the rate cache changed the run");
    }
}
