//! DVFS levels of a core type: read, checked, and their powers (given, or by the cube law).

use ampsched_model::Machine;

fn machine(extra: &str) -> Result<Machine, String> {
    let text = format!("memory_latency_ns = 100\n[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\npower_active_w = 10.0\npower_idle_w = 2.0\n{extra}");
    Machine::from_toml("m.toml", &text).map_err(|e| e.to_string())
}

#[test]
fn a_type_without_levels_has_its_nominal_one() {
    let m = machine("").unwrap();
    assert_eq!((m.core_types[0].freq_levels_ghz.clone(), m.core_types[0].power_levels_w.clone()), (vec![2.0], vec![10.0]));
}

#[test]
fn levels_without_powers_follow_the_cube_law_above_idle() {
    let m = machine("freq_levels_ghz = [1.0, 2.0]\n").unwrap();
    // idle 2 W + (10 - 2) W × (1/2)³ = 3 W at 1 GHz; the nominal level is power_active_w exactly.
    assert_eq!(m.core_types[0].power_levels_w, vec![3.0, 10.0]);
    let m = machine("freq_levels_ghz = [1.0, 2.0]\npower_levels_w = [4.5, 10.0]\n").unwrap();
    assert_eq!(m.core_types[0].power_levels_w, vec![4.5, 10.0]);
}

#[test]
fn bad_levels_name_the_key() {
    assert_eq!(machine("freq_levels_ghz = [2.0, 1.0]\n").unwrap_err(), "m.toml: core_type[0].freq_levels_ghz: levels must be strictly ascending");
    assert_eq!(machine("freq_levels_ghz = [1.0, 1.5]\n").unwrap_err(), "m.toml: core_type[0].freq_levels_ghz: the highest level must be freq_ghz (2)");
    assert_eq!(
        machine("freq_levels_ghz = [1.0, 2.0]\npower_levels_w = [10.0]\n").unwrap_err(),
        "m.toml: core_type[0].power_levels_w: gives 1 powers for 2 levels"
    );
    assert_eq!(machine("power_levels_w = [10.0]\n").unwrap_err(), "m.toml: core_type[0].power_levels_w: give freq_levels_ghz with it");
    assert_eq!(machine("freq_levels_ghz = [0, 2.0]\n").unwrap_err(), "m.toml: core_type[0].freq_levels_ghz[0]: must be from 0.01 to 100 GHz, got 0");
    assert!(machine("freq_levels_ghz = []\n").unwrap_err().starts_with("m.toml: core_type[0].freq_levels_ghz: expected a non-empty list"));
}

#[test]
fn a_type_may_start_below_its_nominal_level_and_keeps_its_capacity() {
    let m = machine("freq_levels_ghz = [1.0, 2.0]\nstart_freq_ghz = 1.0\n").unwrap();
    assert_eq!(m.core_types[0].start_freq_ghz, 1.0);
    assert_eq!(m.core_types[0].capacity, 1024);
    assert_eq!(machine("").unwrap().core_types[0].start_freq_ghz, 2.0);
    assert_eq!(
        machine("freq_levels_ghz = [1.0, 2.0]\nstart_freq_ghz = 1.5\n").unwrap_err(),
        "m.toml: core_type[0].start_freq_ghz: must be one of the type's levels [1.0, 2.0]"
    );
}
