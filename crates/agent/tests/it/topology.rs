//! Topology detection on sysfs trees built for the test, and on this machine.

use std::fs;
use std::path::{Path, PathBuf};

use ampsched_agent::topology::detect;

struct Tree(PathBuf);

impl Tree {
    fn new(name: &str) -> Tree {
        let root = std::env::temp_dir().join(format!("ampsched-sysfs-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        Tree(root)
    }
    fn put(&self, rel: &str, text: &str) -> &Self {
        let p = self.0.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, format!("{text}\n")).unwrap();
        self
    }
    fn cpu(&self, c: usize, rel: &str, text: &str) -> &Self {
        self.put(&format!("sys/devices/system/cpu/cpu{c}/{rel}"), text)
    }
    fn llc(&self, c: usize, members: &str, size: &str) -> &Self {
        self.cpu(c, "cache/index3/level", "3").cpu(c, "cache/index3/shared_cpu_list", members).cpu(c, "cache/index3/size", size);
        self.cpu(c, "cache/index2/level", "2").cpu(c, "cache/index2/shared_cpu_list", &c.to_string())
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn big_little_from_cpu_capacity() {
    // An Exynos-like 4+4: capacities 1024 and 446 (what arm64 kernels export for A15/A7-class pairs).
    let t = Tree::new("biglittle");
    t.put("sys/devices/system/cpu/online", "0-7");
    for c in 0..8 {
        t.cpu(c, "cpu_capacity", if c < 4 { "1024" } else { "446" });
        t.cpu(c, "cpufreq/cpuinfo_max_freq", if c < 4 { "1600000" } else { "800000" });
        t.llc(c, if c < 4 { "0-3" } else { "4-7" }, if c < 4 { "2048K" } else { "512K" });
    }
    let topo = detect(&t.0).unwrap();
    assert_eq!(topo.source, "cpu_capacity");
    assert_eq!(topo.core_types.len(), 2);
    assert_eq!((topo.core_types[0].cpus.clone(), topo.core_types[0].capacity), (vec![0, 1, 2, 3], 1024));
    assert_eq!((topo.core_types[1].cpus.clone(), topo.core_types[1].capacity), (vec![4, 5, 6, 7], 446));
    assert_eq!(topo.llcs, vec![(Some(2048), vec![0, 1, 2, 3]), (Some(512), vec![4, 5, 6, 7])]);
}

#[test]
fn intel_hybrid_from_pmu_lists() {
    // 2 P-cores with SMT (cpus 0-3) and 4 E-cores (4-7), no cpu_capacity; capacity from max frequency.
    let t = Tree::new("hybrid");
    t.put("sys/devices/system/cpu/online", "0-7").put("sys/devices/cpu_core/cpus", "0-3").put("sys/devices/cpu_atom/cpus", "4-7");
    for c in 0..8 {
        t.cpu(c, "cpufreq/cpuinfo_max_freq", if c < 4 { "4800000" } else { "3600000" });
        t.llc(c, "0-7", "30720K");
    }
    let topo = detect(&t.0).unwrap();
    assert_eq!(topo.source, "intel hybrid pmu");
    assert_eq!(topo.core_types[0].cpus, vec![0, 1, 2, 3]);
    assert_eq!(topo.core_types[1].cpus, vec![4, 5, 6, 7]);
    assert_eq!(topo.core_types[1].capacity, 768, "3.6 / 4.8 GHz × 1024");
    assert_eq!(topo.llcs, vec![(Some(30720), (0..8).collect())]);
}

#[test]
fn symmetric_machine_is_reported_as_such() {
    let t = Tree::new("sym");
    t.put("sys/devices/system/cpu/online", "0-1");
    for c in 0..2 {
        t.cpu(c, "cpu_capacity", "1024");
    }
    let topo = detect(&t.0).unwrap();
    assert_eq!(topo.source, "none");
    assert_eq!(topo.core_types.len(), 1);
    assert_eq!(topo.core_types[0].capacity, 1024);
    assert!(topo.notes[0].contains("symmetric"));
}

#[test]
fn missing_sysfs_is_a_clear_error() {
    let e = detect(Path::new("/nonexistent-root")).unwrap_err();
    assert!(e.contains("cannot read the list of online CPUs"), "{e}");
}

#[test]
fn this_machine_is_detected() {
    let topo = detect(Path::new("/")).unwrap();
    let n: usize = topo.core_types.iter().map(|t| t.cpus.len()).sum();
    assert_eq!(n, topo.cpus.len());
    assert!(n >= 1);
}

/// A hybrid's sysfs: `p` P-core CPUs at 4.8 GHz whose siblings are `sibling(c)`, then four
/// E-core CPUs at 3.6 GHz without SMT, one LLC.
fn hybrid_with_smt(name: &str, p: usize, sibling: impl Fn(usize) -> String) -> Tree {
    let t = Tree::new(name);
    let n = p + 4;
    t.put("sys/devices/system/cpu/online", &format!("0-{}", n - 1))
        .put("sys/devices/cpu_core/cpus", &format!("0-{}", p - 1))
        .put("sys/devices/cpu_atom/cpus", &format!("{p}-{}", n - 1));
    for c in 0..n {
        t.cpu(c, "cpufreq/cpuinfo_max_freq", if c < p { "4800000" } else { "3600000" });
        t.cpu(c, "topology/thread_siblings_list", &if c < p { sibling(c) } else { c.to_string() });
        t.llc(c, &format!("0-{}", n - 1), "30720K");
    }
    t
}

#[test]
fn smt_siblings_of_a_hybrid_are_read_from_sysfs() {
    // Alder Lake's numbering: a P-core's two threads are consecutive CPUs (0-1, 2-3).
    let t = hybrid_with_smt("smt", 4, |c| format!("{}-{}", c & !1, c | 1));
    let topo = detect(&t.0).unwrap();
    assert_eq!(topo.cpus[1].siblings, vec![0, 1]);
    assert_eq!(topo.cpus[5].siblings, vec![5]);
    let (p, e) = (topo.type_smt(&topo.core_types[0].cpus), topo.type_smt(&topo.core_types[1].cpus));
    assert_eq!((p.smt, p.cpus.clone(), p.note.clone()), (2, vec![0, 1, 2, 3], None));
    assert_eq!((e.smt, e.cpus.clone(), e.note.clone()), (1, vec![4, 5, 6, 7], None));
    let m = topo.to_machine("detected").unwrap();
    assert!(m.has_smt());
    assert_eq!((m.core_types[0].smt, m.core_types[0].smt_sibling_speed), (2, ampsched_agent::topology::ASSUMED_SMT_SIBLING_SPEED));
    assert_eq!(m.core_types[1].smt, 1);
    assert_eq!(m.smt_siblings(0), ampsched_model::CoreSet::from_cores([0, 1]));
    assert_eq!(m.smt_siblings(4), ampsched_model::CoreSet::single(4));
    assert!(topo.to_machine_toml("detected").contains("smt_sibling_speed is ASSUMED"));
}

#[test]
fn siblings_apart_in_linux_numbering_become_consecutive_cores() {
    // The other numbering (AMD, older Intel): CPU c's sibling is c + 2 of four P-core CPUs.
    let t = hybrid_with_smt("smt-apart", 4, |c| format!("{},{}", c % 2, c % 2 + 2));
    let topo = detect(&t.0).unwrap();
    let p = topo.type_smt(&topo.core_types[0].cpus);
    assert_eq!((p.smt, p.cpus.clone()), (2, vec![0, 2, 1, 3]));
    let m = topo.to_machine("detected").unwrap();
    // Cores 0-1 (CPUs 0 and 2) are one physical core, 2-3 (CPUs 1 and 3) the other.
    assert_eq!(m.cores.iter().take(4).map(|c| (c.cpu, c.smt_core)).collect::<Vec<_>>(), vec![(0, 0), (2, 0), (1, 1), (3, 1)]);
}

#[test]
fn a_type_with_an_offline_sibling_is_not_smt_and_says_why() {
    // Three P-core CPUs online: CPU 2's sibling, CPU 3, is offline (`thread_siblings_list` still
    // names it). The format pairs a type's consecutive cores, so the type is left without SMT.
    let t = Tree::new("smt-offline");
    t.put("sys/devices/system/cpu/online", "0-2,4-7").put("sys/devices/cpu_core/cpus", "0-3").put("sys/devices/cpu_atom/cpus", "4-7");
    for c in [0, 1, 2, 4, 5, 6, 7] {
        t.cpu(c, "cpufreq/cpuinfo_max_freq", if c < 4 { "4800000" } else { "3600000" });
        t.cpu(c, "topology/thread_siblings_list", &if c < 4 { format!("{}-{}", c & !1, c | 1) } else { c.to_string() });
    }
    let topo = detect(&t.0).unwrap();
    let p = topo.type_smt(&topo.core_types[0].cpus);
    assert_eq!(p.smt, 1);
    assert!(topo.notes.iter().any(|n| n.contains("CPUs 0-2 have SMT siblings")), "{:?}", topo.notes);
    assert!(!topo.to_machine("detected").unwrap().has_smt());
}

#[test]
fn this_machines_smt_is_read() {
    // Whatever this machine is: every detected pair is of one type and the machine parses. The
    // VM these tests were written on has no SMT (each thread_siblings_list is the CPU alone), so
    // there it checks the single-thread path only.
    let topo = detect(Path::new("/")).unwrap();
    let m = topo.to_machine("here").unwrap();
    for t in &topo.core_types {
        let smt = topo.type_smt(&t.cpus);
        assert_eq!(smt.cpus.len(), t.cpus.len());
        assert!(smt.smt == 1 || smt.cpus.len().is_multiple_of(2));
    }
    assert_eq!(m.num_cores(), topo.cpus.len());
}

#[test]
#[ignore = "needs SMT hardware; the VM this was written on has none (run with --ignored on a machine with SMT)"]
fn this_machines_smt_is_detected() {
    let topo = detect(Path::new("/")).unwrap();
    assert!(topo.cpus.iter().any(|c| c.siblings.len() == 2), "no CPU has an online SMT sibling here");
    assert!(topo.to_machine("here").unwrap().has_smt(), "{:?}", topo.notes);
}
