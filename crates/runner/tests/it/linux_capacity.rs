//! `linux-capacity` (Linux's capacity-aware placement, misfit migration and uclamp) through the
//! simulator, on one big core (2 GHz, capacity 1024: core 0) and one little (1 GHz, 512: core 1).
//! The thresholds come from `common::utilization`: a utilisation fits a capacity while
//! util × 1280 < capacity × 1024, so the little core holds up to 409; PELT's half-life is
//! H = 32 × 1.048576 ms = 33.554 ms; the policy balances every 4 ms.
//!
//! Thread 0 ("a", the first app) is CPU-bound for 4e8 instructions: 200 ms on the big core. A new
//! thread's estimate is half of 1024, which fits only the big core, so "a" takes it; "b" starts
//! next, finds the big core busy and the little idle, and goes little (the biggest idle CPU).

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, SimpleModel, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_sim::{Engine, RunResult, SimConfig};

const MS: u64 = 1_000_000;
/// When "a" exits: 4e8 instructions at 2 GHz, CPI 1 (plus its placement at start, well under 1 ms).
const A_EXITS_NS: u64 = 200 * MS;
/// One balance interval and a migration's cost, at most.
const BALANCE_SLACK_NS: u64 = 5 * MS;

fn machine() -> Machine {
    Machine::from_toml(
        "1b1l.toml",
        "name = \"1b1l\"\nmemory_latency_ns = 100.0\n\
         [[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n\
         [[core_type]]\nname = \"little\"\ncount = 1\nfreq_ghz = 1.0\n",
    )
    .unwrap()
}

/// "a", then "b" with `b_keys` (uclamp) and `b_phases`.
fn run(b_keys: &str, b_phases: &str) -> RunResult {
    let text = format!(
        "[[app]]\nname = \"a\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 4e8\n\
         [[app]]\nname = \"b\"\n{b_keys}\n{b_phases}"
    );
    let m = machine();
    assert_eq!((m.core_types[0].capacity, m.core_types[1].capacity), (1024, 512));
    let w = Workload::from_toml("w.toml", &text, &Programs::new()).unwrap();
    let mut p = build(&PolicySpec::parse("linux-capacity").unwrap(), &m).unwrap();
    Engine::new(&m, &w, &SimpleModel, p.as_mut(), SimConfig { max_segments: 1_000_000, ..SimConfig::default() }).run().unwrap()
}

/// When thread `t` first ran on the big core (0), if it did.
fn first_on_big(r: &RunResult, t: u32) -> Option<u64> {
    r.segments.iter().filter(|s| s.thread == t && s.core == 0).map(|s| s.start_ns).min()
}

const CPU_BOUND: &str = "[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n";

/// A light phase of `n` × (1 ms of work on the little core, 9 ms asleep): util ≈ 0.1 × 512 ≈ 51,
/// which fits the little core.
fn light(n: usize) -> String {
    "[[app.phase]]\nkind = \"compute\"\ninstructions = 1e6\n[[app.phase]]\nkind = \"sleep\"\nseconds = 0.009\n".repeat(n)
}

/// "b" is CPU-bound on the little core: its estimate climbs to 512 (a little core's whole
/// capacity), a misfit (512 × 1280 > 512 × 1024), but the big core is neither idle nor has spare
/// capacity ("a" at ~1024: 1024 × 117 > 1024 × 100), so "b" waits; when "a" exits, the big core
/// is idle and pulls "b" at the next balance.
#[test]
fn a_misfit_moves_to_the_big_core_when_it_goes_idle() {
    let r = run("", CPU_BOUND);
    let t = first_on_big(&r, 1).expect("b reached the big core");
    assert!((A_EXITS_NS..A_EXITS_NS + BALANCE_SLACK_NS).contains(&t), "b first ran on the big core at {t} ns");
}

/// "b" runs light (util ≈ 51, fits the little) for 300 ms, then CPU-bound. When "a" exits at
/// 200 ms "b" fits where it is and stays (a waking task keeps its idle fitting CPU). From 300 ms
/// its estimate climbs on the little core as 512 − (512 − u0)·2^(−t/H); with u0 ≈ 51 it passes
/// 409 (no longer fits) after H·log2((512 − 51)/(512 − 410)) = 33.554 × 2.176 = 73.0 ms, and the
/// next balance (≤ 4 ms) moves it to the idle big core: at 373..378 ms. (u0 between 40 and 60
/// moves that by under 1 ms; the 1 ms compute stretches add a few ms to "300 ms".)
#[test]
fn a_task_whose_utilisation_grows_past_the_little_cores_fit_is_moved_up_within_a_balance() {
    let r = run("", &format!("{}{CPU_BOUND}", light(30)));
    let t = first_on_big(&r, 1).expect("b reached the big core");
    assert!((365 * MS..385 * MS).contains(&t), "b first ran on the big core at {} ms", t as f64 / 1e6);
}

/// uclamp_min = 700 lifts light "b" off the little core (700 > 512: `util_fits_cpu` −1, a
/// misfit): it moves up when "a" exits, although its utilisation (≈ 51) fits the little core.
#[test]
fn uclamp_min_forces_a_light_task_to_the_big_core() {
    let r = run("uclamp_min = 700", &light(40));
    let t = first_on_big(&r, 1).expect("b reached the big core");
    assert!((A_EXITS_NS..A_EXITS_NS + BALANCE_SLACK_NS + 10 * MS).contains(&t), "b first ran on the big core at {t} ns");
    // Without the clamp it fits the little core and stays there.
    assert_eq!(first_on_big(&run("", &light(40)), 1), None);
}

/// uclamp_max = 400 (≤ 512) lets CPU-bound "b" fit the little core: it is never a misfit and
/// stays there after "a" exits, where the unclamped one moved up (the first test).
#[test]
fn uclamp_max_keeps_a_heavy_task_on_the_little_core() {
    let r = run("uclamp_max = 400", CPU_BOUND);
    assert_eq!(first_on_big(&r, 1), None);
}
