//! Machine configurations by online core counts (`exynos5422:big=2:little=2`): a real
//! sub-machine (cores renumbered, types, LLC domains and Linux CPUs kept), `count = "cores"`
//! resolving to the online count, and one-line errors for bad specs.

use ampsched_runner::{catalog, Experiment, Settings};

#[test]
fn two_big_two_little_is_a_four_core_machine_with_both_clusters() {
    let m = catalog::machine("exynos5422:big=2:little=2").unwrap();
    assert_eq!(m.name, "exynos5422:big=2:little=2");
    assert_eq!(m.num_cores(), 4);
    let types: Vec<(&str, usize)> = m.core_types.iter().map(|t| (t.name.as_str(), t.count)).collect();
    assert_eq!(types, [("big", 2), ("little", 2)]);
    let per_core: Vec<(usize, usize, usize)> = m.cores.iter().map(|c| (c.id, c.core_type, c.llc)).collect();
    assert_eq!(per_core, [(0, 0, 0), (1, 0, 0), (2, 1, 1), (3, 1, 1)]);
    // The lowest-numbered cores of each type: the little cluster's first two (cores 4 and 5 of
    // the whole machine), on their LLC of 512 KB.
    assert_eq!(m.cores.iter().map(|c| c.cpu).collect::<Vec<_>>(), [0, 1, 4, 5]);
    assert_eq!(m.llcs.iter().map(|l| (l.size_kb, l.cores.len())).collect::<Vec<_>>(), [(Some(2048.0), 2), (Some(512.0), 2)]);
    assert_eq!(m.memory_bandwidth, catalog::machine("exynos5422").unwrap().memory_bandwidth);
    assert_eq!((m.core_types[0].capacity, m.core_types[1].capacity), (1024, 341));
}

#[test]
fn a_type_not_named_keeps_its_cores_and_a_zero_removes_the_cluster() {
    let m = catalog::machine("exynos5422:little=1").unwrap();
    assert_eq!(m.core_types.iter().map(|t| t.count).collect::<Vec<_>>(), [4, 1]);
    let little = catalog::machine("exynos5422:big=0").unwrap();
    assert_eq!(little.num_cores(), 4);
    assert_eq!(little.core_types.len(), 1);
    assert_eq!(little.core_types[0].name, "little");
    // Alone online, the little type is the fastest there is.
    assert_eq!(little.core_types[0].capacity, 1024);
    assert_eq!(little.llcs.len(), 1);
    assert_eq!(little.cores.iter().map(|c| (c.llc, c.cpu)).collect::<Vec<_>>(), [(0, 4), (0, 5), (0, 6), (0, 7)]);
}

#[test]
fn count_cores_resolves_to_the_online_cores() {
    // dacapo-xalan's GC group has count = "cores".
    let full = Experiment::new("exynos5422", "dacapo-xalan", Settings::default()).unwrap();
    let part = Experiment::new("exynos5422:big=2:little=2", "dacapo-xalan", Settings::default()).unwrap();
    let gc = |e: &Experiment| e.workload.apps[0].groups.iter().find(|g| g.count_per_core).unwrap().count;
    assert_eq!((gc(&full), gc(&part)), (8, 4));
}

#[test]
fn bad_configurations_are_one_line_errors() {
    let err = |arg: &str| catalog::machine(arg).unwrap_err().to_string();
    assert_eq!(err("exynos5422:huge=2"), "--machine: exynos5422:huge=2: no core type 'huge' in this machine (its core types: big, little)");
    assert_eq!(err("exynos5422:big=5"), "--machine: exynos5422:big=5: big=5: the machine has 4 big cores");
    assert_eq!(err("exynos5422:big=0:little=0"), "--machine: exynos5422:big=0:little=0: no core online: at least one core type needs a count of 1 or more");
    assert_eq!(err("exynos5422:big"), "--machine: exynos5422:big: 'big' is not TYPE=COUNT (e.g. big=2:little=2; this machine's core types: big, little)");
    assert_eq!(err("exynos5422:big=-1"), "--machine: exynos5422:big=-1: big=-1: the count is not a whole number");
    assert_eq!(err("exynos5422:big=1:big=2"), "--machine: exynos5422:big=1:big=2: big is given twice");
    assert!(err("nosuch:big=1").starts_with("--machine: nosuch: no such machine in the catalog"), "{}", err("nosuch:big=1"));
    for e in ["exynos5422:huge=2", "exynos5422:", "exynos5422:big=1.5"] {
        assert!(!err(e).contains('\n'), "{}", err(e));
    }
}
