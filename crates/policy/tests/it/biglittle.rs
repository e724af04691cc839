//! The big.LITTLE family's policies: the OS scheduler each asks for, its options and their
//! errors, `os=` on other policies and where it is refused, and the live refusals.

use ampsched_model::{GtsParams, Machine, OsScheduler, SwitchParams};
use ampsched_policy::{build, live_refusal, PolicySpec};

fn exynos_like() -> Machine {
    Machine::from_toml(
        "m",
        "memory_latency_ns = 100\n[[core_type]]\nname = \"big\"\ncount = 4\nfreq_ghz = 1.6\n[[core_type]]\nname = \"little\"\ncount = 4\nfreq_ghz = 0.8\n",
    )
    .unwrap()
}

fn os(spec: &str) -> Result<OsScheduler, String> {
    build(&PolicySpec::parse(spec).unwrap(), &exynos_like()).map(|p| p.os_scheduler()).map_err(|e| e.to_string())
}

#[test]
fn each_os_policy_asks_for_its_scheduler_with_the_kernels_defaults() {
    assert_eq!(os("gts"), Ok(OsScheduler::Gts(GtsParams::DEFAULT)));
    let p = GtsParams { up_threshold: 600, down_threshold: 300, aggressive: true, fork_migrate_big: true, load_avg_period_ms: 64, ..GtsParams::DEFAULT };
    assert_eq!(os("gts:up_threshold=600:down_threshold=300:aggressive=true:fork_migrate_big=true:load_avg_period_ms=64"), Ok(OsScheduler::Gts(p)));
    assert_eq!(os("cluster-switch"), Ok(OsScheduler::ClusterSwitch(SwitchParams::DEFAULT)));
    assert_eq!(os("iks:up_util=0.5:down_util=0.1"), Ok(OsScheduler::Iks(SwitchParams { up_util: 0.5, down_util: 0.1 })));
    // (700 − 100)/1900 and (200 − 100)/1900.
    assert!((SwitchParams::DEFAULT.up_util - 0.315_789).abs() < 1e-6 && (SwitchParams::DEFAULT.down_util - 0.052_631).abs() < 1e-6);
    assert_eq!(os("cluster-bound"), Ok(OsScheduler::Cfs));
    assert_eq!(os("oblivious"), Ok(OsScheduler::Cfs));
}

#[test]
fn bad_values_are_one_line_errors() {
    assert_eq!(
        os("gts:up_threshold=1025").unwrap_err(),
        "--policy: gts:up_threshold=1025: option 'up_threshold' must be a whole number from 0 to 1024, got '1025'"
    );
    assert_eq!(
        os("gts:load_avg_period_ms=0").unwrap_err(),
        "--policy: gts:load_avg_period_ms=0: option 'load_avg_period_ms' must be a whole number from 1 to 1024, got '0'"
    );
    assert_eq!(os("gts:aggressive=yes").unwrap_err(), "--policy: gts:aggressive=yes: option 'aggressive' must be true or false, got 'yes'");
    assert_eq!(
        os("iks:up_util=0.2:down_util=0.3").unwrap_err(),
        "--policy: iks:down_util=0.3:up_util=0.2: option 'down_util' (0.3) must be below 'up_util' (0.2), or every sample would switch"
    );
    assert_eq!(os("cluster-switch:up_util=2").unwrap_err(), "--policy: cluster-switch:up_util=2: option 'up_util' must be a number from 0 to 1, got '2'");
}

#[test]
fn os_gts_runs_a_policy_that_leaves_placement_to_the_os_over_gts() {
    assert_eq!(os("oblivious:os=gts"), Ok(OsScheduler::Gts(GtsParams::DEFAULT)));
    assert_eq!(os("cluster-bound:os=gts"), Ok(OsScheduler::Gts(GtsParams::DEFAULT)));
    assert_eq!(os("rr:os=gts:threshold_ms=50"), Ok(OsScheduler::Gts(GtsParams::DEFAULT)));
    assert_eq!(os("oblivious:os=cfs"), Ok(OsScheduler::Cfs));
    assert_eq!(os("oblivious:os=iks").unwrap_err(), "--policy: oblivious:os=iks: option 'os' must be one of cfs, gts, got 'iks'");
    assert_eq!(os("gts:os=cfs").unwrap_err(), "--policy: gts:os=cfs: gts is an OS scheduler itself and takes no os= (give its own options)");
    assert!(os("max-fair:os=gts").unwrap_err().starts_with("--policy: max-fair:os=gts: max-fair enforces fast-core shares in its own local scheduler layer"));
    assert!(os("best-static:os=gts").unwrap_err().contains("best-static is an oracle"));
    // The inner policy's own options are still checked.
    assert!(os("rr:os=gts:nope=1").unwrap_err().contains("unknown option 'nope'"));
}

#[test]
fn the_os_schedulers_and_os_gts_have_no_live_form() {
    let refusal = |s: &str| live_refusal(&PolicySpec::parse(s).unwrap()).unwrap();
    for name in ["gts", "cluster-switch", "iks"] {
        let why = refusal(name).unwrap();
        assert_eq!(why, format!("{name} cannot run live: it is an OS scheduler of the simulator (on a real big.LITTLE kernel the OS already is the GTS)"));
    }
    assert!(refusal("oblivious:os=gts").unwrap().starts_with("os=gts cannot run live"));
    assert_eq!(refusal("cluster-bound"), None);
    assert_eq!(refusal("oblivious:os=cfs"), None);
}
