//! SMT and the reported capacity in the machine format: `smt`, `smt_sibling_speed`, `capacity`
//! read and checked, the physical cores numbered, and both kept coherent by `with_online` and
//! `all_of_type`.

use ampsched_model::{CoreSet, Machine};

/// A hybrid: `p` P-cores (hardware threads) at 3 GHz with `p_extra`, and 2 E-cores at 2 GHz.
fn machine(p: usize, p_extra: &str, e_extra: &str) -> Result<Machine, String> {
    let text = format!(
        "memory_latency_ns = 100\n[[core_type]]\nname = \"p\"\ncount = {p}\nfreq_ghz = 3.0\n{p_extra}\n\
         [[core_type]]\nname = \"e\"\ncount = 2\nfreq_ghz = 2.0\n{e_extra}\n"
    );
    Machine::from_toml("m.toml", &text).map_err(|e| e.to_string())
}

fn set(cores: &[usize]) -> CoreSet {
    CoreSet::from_cores(cores.iter().copied())
}

#[test]
fn siblings_are_consecutive_cores_of_the_type() {
    let m = machine(4, "smt = 2\nsmt_sibling_speed = 0.6", "").unwrap();
    assert!(m.has_smt());
    assert_eq!((m.core_types[0].smt, m.core_types[0].smt_sibling_speed), (2, 0.6));
    assert_eq!((m.core_types[1].smt, m.core_types[1].smt_sibling_speed), (1, 1.0));
    assert_eq!(m.cores.iter().map(|c| c.smt_core).collect::<Vec<_>>(), vec![0, 0, 1, 1, 2, 3]);
    assert_eq!(m.smt_siblings(1), set(&[0, 1]));
    assert_eq!(m.smt_siblings(2), set(&[2, 3]));
    assert_eq!(m.smt_siblings(4), set(&[4]));
    assert_eq!(m.num_smt_cores(), 4);
}

#[test]
fn a_machine_without_smt_has_one_core_per_hardware_thread() {
    let m = machine(2, "", "").unwrap();
    assert!(!m.has_smt());
    assert_eq!(m.cores.iter().map(|c| c.smt_core).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!(m.smt_siblings(1), set(&[1]));
}

#[test]
fn bad_smt_keys_name_the_key() {
    assert_eq!(
        machine(3, "smt = 2\nsmt_sibling_speed = 0.6", "").unwrap_err(),
        "m.toml: core_type[0].smt: count = 3 is not a multiple of smt = 2 (count gives hardware threads: 2 per physical core)"
    );
    assert_eq!(
        machine(2, "smt = 2", "").unwrap_err(),
        "m.toml: core_type[0].smt_sibling_speed: missing required key (smt = 2: each busy sibling's speed, relative to alone)"
    );
    assert_eq!(
        machine(2, "", "smt_sibling_speed = 0.6").unwrap_err(),
        "m.toml: core_type[1].smt_sibling_speed: only meaningful with smt = 2 (the type has one hardware thread per core)"
    );
    assert_eq!(machine(2, "smt = 4\nsmt_sibling_speed = 0.6", "").unwrap_err(), "m.toml: core_type[0].smt: must be a whole number from 1 to 2, got 4");
    assert_eq!(machine(2, "smt = 0", "").unwrap_err(), "m.toml: core_type[0].smt: must be a whole number from 1 to 2, got 0");
    assert_eq!(machine(2, "smt = 2\nsmt_sibling_speed = 1.5", "").unwrap_err(), "m.toml: core_type[0].smt_sibling_speed: must be from 0.1 to 1, got 1.5");
}

#[test]
fn siblings_in_different_llc_domains_are_refused() {
    let text = "memory_latency_ns = 100\n[[core_type]]\nname = \"p\"\ncount = 2\nfreq_ghz = 3.0\nsmt = 2\nsmt_sibling_speed = 0.6\n\
                [[llc]]\ncores = [0]\n[[llc]]\ncores = [1]\n";
    assert_eq!(
        Machine::from_toml("m.toml", text).unwrap_err().to_string(),
        "m.toml: llc: cores 0 and 1 are SMT siblings (one physical core) but in different [[llc]] domains"
    );
}

#[test]
fn a_reported_capacity_is_what_policies_read_and_the_truth_stays() {
    // The E-cores claim more capacity than the P-cores: a mis-sorted table.
    let m = machine(2, "capacity = 600", "capacity = 1024").unwrap();
    let (p, e) = (&m.core_types[0], &m.core_types[1]);
    assert_eq!((p.capacity, p.capacity_given, p.true_capacity), (600, true, 1024));
    // 2 GHz / 3 GHz of 1024 = 682.67, rounded.
    assert_eq!((e.capacity, e.capacity_given, e.true_capacity), (1024, true, 683));
    assert_eq!((m.fastest_type(), m.true_fastest_type()), (1, 0));
    assert!(m.is_fast_type(1) && !m.is_fast_type(0));
    assert!(m.is_truly_fast_type(0) && !m.is_truly_fast_type(1));
    assert_eq!(m.all_fast().core_types[0].name, "p");
    assert_eq!(machine(2, "capacity = 0", "").unwrap_err(), "m.toml: core_type[0].capacity: must be a whole number from 1 to 1024, got 0");
    assert_eq!(machine(2, "capacity = 1025", "").unwrap_err(), "m.toml: core_type[0].capacity: must be a whole number from 1 to 1024, got 1025");
}

#[test]
fn without_a_capacity_key_the_reported_capacity_is_the_true_one() {
    let m = machine(2, "", "").unwrap();
    for t in &m.core_types {
        assert_eq!((t.capacity, t.capacity_given), (t.true_capacity, false));
    }
    assert_eq!(m.fast_type_mask(), m.true_fast_type_mask());
}

#[test]
fn online_counts_keep_the_pairs_and_a_lone_sibling() {
    let m = machine(4, "smt = 2\nsmt_sibling_speed = 0.6", "capacity = 100").unwrap();
    // Three P hardware threads: the first pair whole, the third thread alone on its core.
    let o = m.with_online(&[3, 1], "o".into());
    assert_eq!(o.cores.iter().map(|c| c.smt_core).collect::<Vec<_>>(), vec![0, 0, 1, 2]);
    assert_eq!(o.smt_siblings(2), set(&[2]));
    assert!(o.has_smt());
    // A given capacity is kept, as Linux's, normalised once at boot.
    assert_eq!(o.core_types[1].capacity, 100);
    let o = m.with_online(&[0, 2], "o".into());
    assert!(!o.has_smt());
    assert_eq!((o.core_types[0].capacity, o.core_types[0].true_capacity), (100, 1024));
}

#[test]
fn all_of_type_keeps_the_chips_pairs_when_the_type_has_smt() {
    let m = machine(4, "smt = 2\nsmt_sibling_speed = 0.6", "").unwrap();
    let p = m.all_of_type(0);
    assert_eq!(p.cores.iter().map(|c| c.smt_core).collect::<Vec<_>>(), vec![0, 0, 1, 1, 2, 3]);
    let e = m.all_of_type(1);
    assert!(!e.has_smt());
    assert_eq!(e.num_smt_cores(), 6);
}
