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
