//! Today's energy and sched_ext policies (`today::{linux_eas, compaction, p2dq_eas,
//! primary_domain}`), their rules derived by hand on one small machine: 2 big CPUs (capacity
//! 1024, levels 1.0/2.0 GHz at 0.5/2.0 W) and 4 little ones (capacity 512, levels 0.5/1.0 GHz
//! at 0.05/0.2 W), Linux CPUs 0-5 in that order.

use ampsched_model::{CoreSet, Machine};
use ampsched_policy::common::core_class::CoreClasses;
use ampsched_policy::today::compaction::{threshold, Compaction, Mode};
use ampsched_policy::today::linux_eas::{domains, find_energy_efficient_cpu, overutilized, schedutil_level, Wakee};
use ampsched_policy::today::p2dq_eas::{energy_cost, score, thresholds};
use ampsched_policy::today::primary_domain::resolve;
use ampsched_policy::{build, Options, PolicySpec};

pub const MACHINE: &str = "memory_latency_ns = 100\n\
    [[core_type]]\nname = \"big\"\ncount = 2\nfreq_ghz = 2.0\nfreq_levels_ghz = [1.0, 2.0]\npower_levels_w = [0.5, 2.0]\npower_active_w = 2.0\npower_idle_w = 0.0\n\
    [[core_type]]\nname = \"little\"\ncount = 4\nfreq_ghz = 1.0\nfreq_levels_ghz = [0.5, 1.0]\npower_levels_w = [0.05, 0.2]\npower_active_w = 0.2\npower_idle_w = 0.0\n";

fn machine() -> Machine {
    let m = Machine::from_toml("m.toml", MACHINE).unwrap();
    assert_eq!((m.core_types[0].capacity, m.core_types[1].capacity), (1024, 512));
    m
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Energy model: big states (1.0 GHz, cap 512, 0.5 W), (2.0 GHz, 1024, 2.0 W); little (0.5 GHz,
/// 256, 0.05 W), (1.0 GHz, 512, 0.2 W). A domain's energy is power × sum util / cap at the
/// lowest state whose capacity covers 1.25 × its highest utilisation.
///
/// All CPUs idle, a task of 200: on a little CPU, 1.25 × 200 = 250 ≤ 256: state 0, energy
/// 0.05 × 200 / 256 = 0.0390625; on a big CPU 250 ≤ 512: 0.5 × 200 / 512 = 0.1953125. Both fit
/// (200 × 1280 < 512 × 1024): the little domain is cheaper, and its first CPU (2) has the most
/// spare capacity (a tie, to the lowest).
#[test]
fn eas_picks_the_cheaper_domain_when_both_fit() {
    let m = machine();
    let d = domains(&m);
    assert!(close(d[1].energy(200.0, 200.0), 0.0390625) && close(d[0].energy(200.0, 200.0), 0.1953125));
    assert_eq!(find_energy_efficient_cpu(&m, &d, &[0; 6], Wakee::plain(200, None), &m.all_cores()), Some(2));
    // From a previous little CPU the same energy: it stays there (no strictly lower delta).
    assert_eq!(find_energy_efficient_cpu(&m, &d, &[0; 6], Wakee::plain(200, Some(4)), &m.all_cores()), Some(4));
}

/// A task of 450: 450 × 1280 = 576,000 ≥ 512 × 1024 = 524,288, so it fits no little CPU; on a
/// big one (576,000 < 1,048,576) 1.25 × 450 = 562.5 > 512 takes the 2.0 GHz state: energy
/// 2.0 × 450 / 1024 = 0.87890625, dearer than any little placement, yet the only one.
#[test]
fn eas_picks_the_big_domain_when_only_it_fits() {
    let m = machine();
    let d = domains(&m);
    assert!(close(d[0].energy(450.0, 450.0), 0.87890625));
    assert_eq!(find_energy_efficient_cpu(&m, &d, &[0; 6], Wakee::plain(450, None), &m.all_cores()), Some(0));
    // Restricted to the little CPUs it fits nowhere: the biggest allowed, most spare.
    let little = CoreSet::from_cores([2, 3, 4, 5]);
    assert_eq!(find_energy_efficient_cpu(&m, &d, &[0, 0, 100, 0, 0, 0], Wakee::plain(450, None), &little), Some(3));
    // A light task (100) with uclamp_min 600: on a little CPU util_fits_cpu answers −1 (600 above
    // both its utilisation and the capacity 512), which is not a fit; on a big one it fits.
    let boosted = Wakee { util: 100, uclamp_min: 600, uclamp_max: 1024, prev: None };
    assert_eq!(find_energy_efficient_cpu(&m, &d, &[0; 6], boosted, &m.all_cores()), Some(0));
}

/// The OPP matters: little CPUs 2-5 at 150 each, a task of 60. On CPU 2 (most spare: a tie, the
/// lowest) the little domain's highest utilisation becomes 210, 1.25 × 210 = 262.5 > 256: the
/// domain moves to 1.0 GHz. Before: 0.05 × 600 / 256 = 0.1171875; after: 0.2 × 660 / 512 =
/// 0.2578125; delta 0.140625. On an idle big CPU: 0.5 × 60 / 512 = 0.05859375. Big wins. A task
/// of 50 keeps the little domain at 0.5 GHz (1.25 × 200 = 250 ≤ 256): delta 0.05 × 50 / 256 =
/// 0.009765625 against 0.5 × 50 / 512 = 0.048828125 on big. Little wins.
#[test]
fn eas_avoids_raising_a_domains_frequency() {
    let m = machine();
    let d = domains(&m);
    let util = [0, 0, 150, 150, 150, 150];
    assert!(close(d[1].energy(210.0, 660.0) - d[1].energy(150.0, 600.0), 0.140625));
    assert_eq!(find_energy_efficient_cpu(&m, &d, &util, Wakee::plain(60, None), &m.all_cores()), Some(0));
    assert!(close(d[1].energy(200.0, 650.0) - d[1].energy(150.0, 600.0), 0.009765625));
    assert_eq!(find_energy_efficient_cpu(&m, &d, &util, Wakee::plain(50, None), &m.all_cores()), Some(2));
}

/// Over-utilisation is `fits_capacity` failing on any CPU: 80% of 1024 is 819 (819 × 1280 =
/// 1,048,320 < 1,048,576; 820 × 1280 = 1,049,600), of 512 it is 409.
#[test]
fn overutilisation_flips_at_80_percent() {
    let m = machine();
    assert!(!overutilized(&m, &[819, 819, 409, 409, 409, 409]));
    assert!(overutilized(&m, &[820, 0, 0, 0, 0, 0]));
    assert!(overutilized(&m, &[0, 0, 0, 0, 0, 410]));
}

/// schedutil: 1.25 × 2.0 GHz × 400 / 1024 = 0.977 GHz → the 1.0 GHz level; at 420, 1.025 GHz →
/// 2.0 GHz. Little: 1.25 × 1.0 × 200 / 512 = 0.488 → 0.5 GHz; 210 → 0.513 → 1.0 GHz.
#[test]
fn schedutil_takes_the_lowest_level_above_125_percent() {
    let m = machine();
    let d = domains(&m);
    assert_eq!(schedutil_level(&d[0], 2.0, 400), 1.0);
    assert_eq!(schedutil_level(&d[0], 2.0, 420), 2.0);
    assert_eq!(schedutil_level(&d[1], 1.0, 200), 0.5);
    assert_eq!(schedutil_level(&d[1], 1.0, 210), 1.0);
}

#[test]
fn eas_refuses_a_machine_without_power() {
    let m = Machine::from_toml(
        "nopower.toml",
        "memory_latency_ns = 100\n[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n[[core_type]]\nname = \"little\"\ncount = 1\nfreq_ghz = 1.0\n",
    )
    .unwrap();
    let e = build(&PolicySpec::parse("linux-eas").unwrap(), &m).err().expect("refused").to_string();
    assert!(e.contains("energy model") && e.contains("'big'") && e.contains("'nopower'"), "{e}");
}

/// scx_utils's classes: the average capacity over the 6 CPUs is (2 × 1024 + 4 × 512) / 6 = 682;
/// the 1024 CPUs are big (and turbo: the highest, above the average), the 512 ones little.
#[test]
fn core_classes_follow_scx_utils() {
    let c = CoreClasses::of(&machine());
    assert_eq!((c.big, c.little, c.turbo.clone()), (CoreSet::from_cores([0, 1]), CoreSet::from_cores([2, 3, 4, 5]), CoreSet::from_cores([0, 1])));
    assert_eq!(c.powersave_order, vec![2, 3, 4, 5, 0, 1]);
}

/// lavd's threshold: criticalities min 100, avg 300, max 900. Active big share 256/1024: little
/// share 768 ≥ 512, thr = 300 + 600 × (768 − 512) / 512 = 600. Big share 768: little 256 < 512,
/// thr = 100 + 200 × 256 / 512 = 200. All big: 0; all little: the max.
#[test]
fn compaction_threshold_splits_the_range_by_the_little_share() {
    assert_eq!(threshold(100, 300, 900, 256), 600);
    assert_eq!(threshold(100, 300, 900, 768), 200);
    assert_eq!(threshold(100, 300, 900, 1024), 0);
    assert_eq!(threshold(100, 300, 900, 0), 900);
}

/// Required 300: with 25% headroom 375. Powersave fills little CPUs first at half their
/// capacity, 256 each: two (512 ≥ 375). Balanced fills big first: one (512). Performance: all.
/// Autopilot marks: low = half a little CPU = 256, high = 50% of 4096 = 2048.
#[test]
fn compaction_active_set_and_autopilot_by_hand() {
    let m = machine();
    let spec = PolicySpec::parse("compaction").unwrap();
    let c = Compaction::new(&Options::new(&spec, ampsched_policy::today::compaction::INFO.options).unwrap(), &m);
    assert_eq!(c.active_set(&m, 300, Mode::Powersave), CoreSet::from_cores([2, 3]));
    assert_eq!(c.active_set(&m, 300, Mode::Balanced), CoreSet::from_cores([0]));
    assert_eq!(c.active_set(&m, 300, Mode::Performance), m.all_cores());
    assert_eq!(c.active_set(&m, 200, Mode::Powersave), CoreSet::from_cores([2]));
    assert_eq!(
        (c.autopilot(256), c.autopilot(257), c.autopilot(2048), c.autopilot(2049)),
        (Mode::Powersave, Mode::Balanced, Mode::Balanced, Mode::Performance)
    );
}

/// p2dq's thresholds: little 512, big 1024 → small max(512/4, 128) = 128, large min(768, 896) =
/// 768; a Pixel-6-like 160/1024 → small max(40, 128) = 128; capacities within 200 → 256/768.
/// Costs: big 2000 mW / 1024 × 1024 = 2000, little 200 / 512 × 1024 = 400; scores 10240 − 200 =
/// 10040 and 5120 − 40 = 5080: the score takes big, the cost little.
#[test]
fn p2dq_thresholds_costs_and_scores_by_hand() {
    assert_eq!(thresholds(512, 1024), (128, 768));
    assert_eq!(thresholds(160, 1024), (128, 768));
    assert_eq!(thresholds(900, 1024), (256, 768));
    assert_eq!((energy_cost(2.0, 1024), energy_cost(0.2, 512)), (2000, 400));
    assert_eq!((score(1024, 2000), score(512, 400)), (10040, 5080));
}

#[test]
fn primary_domains_resolve_on_the_machine() {
    let m = machine();
    assert_eq!(resolve("performance", &m).unwrap(), CoreSet::from_cores([0, 1]));
    assert_eq!(resolve("powersave", &m).unwrap(), CoreSet::from_cores([2, 3, 4, 5]));
    assert_eq!(resolve("turbo", &m).unwrap(), CoreSet::from_cores([0, 1]));
    assert_eq!(resolve("auto", &m).unwrap(), m.all_cores());
    assert_eq!(resolve("1,3-4", &m).unwrap(), CoreSet::from_cores([1, 3, 4]));
    assert!(resolve("7", &m).unwrap_err().contains("CPU 7"));
    let e = build(&PolicySpec::parse("primary-domain:domain=fast").unwrap(), &m).err().expect("refused").to_string();
    assert!(e.contains("'fast' is not auto, performance"), "{e}");
}
