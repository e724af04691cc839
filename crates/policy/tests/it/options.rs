//! Policy options are typed and checked before a policy is built, with one clear line.

use ampsched_model::Machine;
use ampsched_policy::{build, info, Options, PolicySpec};

fn err(spec: &str) -> String {
    let m = Machine::from_toml("m", "memory_latency_ns = 100\n[[core_type]]\nname = \"a\"\ncount = 2\nfreq_ghz = 1\n").unwrap();
    match build(&PolicySpec::parse(spec).unwrap(), &m) {
        Ok(_) => "built".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn values_of_the_wrong_kind_or_range_are_refused() {
    assert_eq!(err("rr:quantum_ms=20:threshold_ms=5"), "built");
    assert_eq!(err("rr:quantum_ms=0.01"), "--policy: rr:quantum_ms=0.01: option 'quantum_ms' must be a number from 0.1 to 1000000, got '0.01'");
    assert_eq!(err("rr:threshold_ms=-1"), "--policy: rr:threshold_ms=-1: option 'threshold_ms' must be a number from 0.001 to 1000000, got '-1'");
    assert_eq!(err("rr:threshold_ms=inf"), "--policy: rr:threshold_ms=inf: option 'threshold_ms' must be a number from 0.001 to 1000000, got 'inf'");
    assert_eq!(err("oblivious:x=1"), "--policy: oblivious:x=1: unknown option 'x' (oblivious takes no options)");
    assert_eq!(err("busyfcs:x=1"), "--policy: busyfcs:x=1: unknown option 'x' (busyfcs takes: prefer_local)");
    assert_eq!(err("busyfcs:prefer_local=false"), "built");
    assert_eq!(err("pa:prefer_local=1"), "--policy: pa:prefer_local=1: option 'prefer_local' must be true or false, got '1'");
    let known: Vec<&str> = ampsched_policy::POLICIES.iter().map(|p| p.name).collect();
    assert!(known.starts_with(&["oblivious", "static", "bound", "rr", "busyfcs"]) && known.contains(&"hass-d"), "{known:?}");
    assert_eq!(err("nope"), format!("--policy: nope: unknown policy (known: {})", known.join(", ")));
    assert_eq!(err("best-static"), "--policy: best-static: this policy is an oracle and is built by the runner's search");
}

#[test]
fn integers_are_whole_and_in_range() {
    let options = info("best-static").unwrap().options;
    let read =
        |spec: &str| Options::new(Box::leak(Box::new(PolicySpec::parse(spec).unwrap())), options).map(|o| o.integer("max_runs")).map_err(|e| e.to_string());
    assert_eq!(read("best-static"), Ok(64));
    assert_eq!(read("best-static:max_runs=3"), Ok(3));
    assert!(read("best-static:max_runs=1.5").unwrap_err().ends_with("option 'max_runs' must be a whole number from 1 to 1048576, got '1.5'"));
    assert!(read("best-static:max_runs=0").is_err());
}
