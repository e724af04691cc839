//! Core types the user names, the machine file, and /proc parsing.

use ampsched_agent::cores::{format_ranges, parse_type_specs, TypeSpec};
use ampsched_agent::procfs::{parse_schedstat, parse_stat, parse_switches};
use ampsched_agent::topology::{CoreTypeInfo, Cpu, Topology};
use ampsched_model::Machine;

fn symmetric(n: usize) -> Topology {
    Topology {
        cpus: (0..n).map(|id| Cpu { id, perf: 1.0, max_freq_khz: Some(3_000_000), llc: Some(0), siblings: vec![id] }).collect(),
        core_types: vec![CoreTypeInfo { name: "cpu".into(), cpus: (0..n).collect(), capacity: 1024, max_freq_khz: Some(3_000_000) }],
        llcs: vec![(Some(8192), (0..n).collect())],
        source: "none",
        notes: vec!["symmetric".into()],
    }
}

#[test]
fn type_specs_parse_with_commas_inside_cpu_lists() {
    let s = parse_type_specs("--cores", "big=0-3,8,small=4-7:0.5").unwrap();
    assert_eq!(
        s,
        vec![
            TypeSpec { name: "big".into(), cpus: vec![0, 1, 2, 3, 8], speed: None },
            TypeSpec { name: "small".into(), cpus: vec![4, 5, 6, 7], speed: Some(0.5) },
        ]
    );
    for bad in ["big", "big=0,big=1", "big=0,small=0", "big=0:2", "big=0:x", "b ig=0", "big=3-1"] {
        let e = parse_type_specs("--cores", bad).unwrap_err().to_string();
        assert!(e.starts_with("--cores: "), "{bad}: {e}");
    }
    assert_eq!(format_ranges(&[8, 0, 1, 2, 3, 5]), "0-3,5,8");
}

#[test]
fn emulation_makes_named_cpus_slow_and_the_rest_big() {
    let t = symmetric(4).with_emulation("small=2-3:0.5", 0.1).unwrap();
    assert_eq!(t.source, "--emulate");
    assert_eq!(t.core_types.len(), 2);
    assert_eq!((t.core_types[0].name.as_str(), t.core_types[0].cpus.clone(), t.core_types[0].capacity), ("big", vec![0, 1], 1024));
    assert_eq!((t.core_types[1].name.as_str(), t.core_types[1].cpus.clone(), t.core_types[1].capacity), ("small", vec![2, 3], 512));
    assert!(t.notes.is_empty());
    assert!(symmetric(2).with_emulation("small=0-1:0.5", 0.1).unwrap_err().to_string().contains("at least one CPU"));
    assert!(symmetric(2).with_emulation("small=1:0.05", 0.1).unwrap_err().to_string().contains("below"));
    let mut asym = symmetric(2);
    asym.source = "cpu_capacity";
    assert!(asym.with_emulation("small=1:0.5", 0.1).unwrap_err().to_string().contains("already asymmetric"));
}

#[test]
fn machine_file_maps_cores_to_cpus_and_keeps_capacities() {
    // Little cores first in Linux's numbering, as on an Exynos 5422.
    let t = symmetric(4).with_cores("big=2-3,little=0-1:0.25").unwrap();
    let m: Machine = t.to_machine("x").unwrap();
    assert_eq!(m.core_types.iter().map(|c| (c.name.as_str(), c.capacity)).collect::<Vec<_>>(), vec![("big", 1024), ("little", 256)]);
    assert_eq!(m.cores.iter().map(|c| c.cpu).collect::<Vec<_>>(), vec![2, 3, 0, 1]);
    assert_eq!(m.core_of_cpu(0), Some(2));
    assert_eq!(m.llcs.len(), 1);
    assert_eq!(m.llcs[0].cores.len(), 4);
    // Reading the text back gives the same machine.
    assert_eq!(Machine::from_toml("again", &t.to_machine_toml("x")).unwrap(), m);
}

#[test]
fn machine_file_cpus_are_checked() {
    let base = "memory_latency_ns = 100.0\n[[core_type]]\nname = \"a\"\ncount = 2\nfreq_ghz = 1.0\n";
    let e = Machine::from_toml("m.toml", &format!("{base}cpus = [0]\n")).unwrap_err().to_string();
    assert_eq!(e, "m.toml: core_type[0].cpus: lists 1 CPUs but count = 2");
    let e = Machine::from_toml("m.toml", &format!("{base}cpus = \"3,3\"\n")).unwrap_err().to_string();
    assert!(e.contains("CPU 3 is given to two cores"), "{e}");
    let m = Machine::from_toml("m.toml", base).unwrap();
    assert_eq!(m.cores.iter().map(|c| c.cpu).collect::<Vec<_>>(), vec![0, 1]);
}

#[test]
fn proc_files_parse_including_awkward_thread_names() {
    let mut fields = vec!["0"; 40];
    fields[3] = "S";
    fields[4] = "77";
    fields[19] = "-5";
    fields[22] = "123456";
    fields[39] = "3";
    let line = format!("4242 (a) b (c)) {}\n", fields[3..].join(" "));
    let st = parse_stat(line.as_bytes()).unwrap();
    assert_eq!((st.comm.as_str(), st.state, st.ppid, st.nice, st.starttime, st.processor), ("a) b (c)", 'S', 77, -5, 123456, 3));
    assert!(parse_stat(b"4242 (trunc").is_none());
    let ss = parse_schedstat(b"1500 250 7\n").unwrap();
    assert_eq!((ss.run_ns, ss.wait_ns, ss.timeslices), (1500, 250, 7));
    assert_eq!(parse_switches(b"Name:\tx\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n"), Some((12, 3)));
}
