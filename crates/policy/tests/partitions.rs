//! The shared partitions on a machine of three capacities: moves cascade up to the fastest
//! partition with room and overflow down to the nearest with room; a thread's partition is its
//! affinity in the view, so a decision the source did not apply is seen as not applied.

use ampsched_model::{AppView, CoreSet, Machine, Placement, Signals, ThreadKind, ThreadState, ThreadView, Trigger, ViewBook};
use ampsched_policy::common::{Move, Partitions};

const MACHINE: &str = r#"
memory_latency_ns = 100
[[core_type]]
name = "big"
count = 1
freq_ghz = 3.0
[[core_type]]
name = "mid"
count = 1
freq_ghz = 2.0
[[core_type]]
name = "little"
count = 2
freq_ghz = 1.0
"#;

fn book(m: &Machine, allowed: &[&CoreSet]) -> ViewBook {
    let mut b = ViewBook::new(m.num_cores(), Signals::NONE, false);
    b.apps.push(AppView::new(0, "a".into(), 0));
    for (i, &cores) in allowed.iter().enumerate() {
        b.add_thread(ThreadView::started(i as u32, 0, 0, i as u32, ThreadKind::App, cores.clone(), 0));
    }
    b
}

fn lowest_id(ts: &[&ThreadView], _: Move) -> u32 {
    ts.iter().map(|t| t.id).min().unwrap()
}

#[test]
fn levels_are_capacities_fastest_first() {
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let p = Partitions::new(&m);
    assert_eq!(p.levels(), 3);
    assert_eq!((p.cores(0), p.cores(1), p.cores(2)), (&CoreSet::single(0), &CoreSet::single(1), &CoreSet::from_cores([2, 3])));
    assert_eq!(p.level_of_cores(&CoreSet::single(3)), Some(2));
    assert_eq!(p.level_of_cores(&m.all_cores()), None, "an affinity over several partitions is in none");
}

#[test]
fn idle_faster_cores_pull_up_in_a_cascade() {
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let little = CoreSet::from_cores([2, 3]);
    let mut b = book(&m, &[&little, &little, &little]);
    let mut p = Partitions::new(&m);
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    p.keep_fast_busy(&b.view(&m, Trigger::Quantum, 0), &mut out, lowest_id);
    // big is idle and mid empty: the lowest id of little goes to big; then mid pulls the next.
    assert_eq!(out.affinity, vec![(0, CoreSet::single(0)), (1, CoreSet::single(1))]);
    assert_eq!((p.load(0), p.load(1), p.load(2)), (1, 1, 1));
}

#[test]
fn overflow_goes_down_to_the_nearest_partition_with_room() {
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let big = CoreSet::single(0);
    let mid = CoreSet::single(1);
    // Three on big, one on mid: big overflows by two; mid is full, so both go to little.
    let mut b = book(&m, &[&big, &big, &big, &mid]);
    let mut p = Partitions::new(&m);
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    p.keep_fast_busy(&b.view(&m, Trigger::Quantum, 0), &mut out, lowest_id);
    let little = CoreSet::from_cores([2, 3]);
    assert_eq!(out.affinity, vec![(0, little.clone()), (1, little)]);
    assert_eq!((p.load(0), p.load(1), p.load(2)), (1, 1, 2));
}

#[test]
fn a_refused_affinity_is_seen_at_the_next_call() {
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let little = CoreSet::from_cores([2, 3]);
    let mut b = book(&m, &[&little]);
    let mut p = Partitions::new(&m);
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    p.keep_fast_busy(&b.view(&m, Trigger::Quantum, 0), &mut out, lowest_id);
    assert_eq!(p.level(0), Some(0), "decided: up to big");
    b.end_call();
    // The source could not apply it (the live agent was refused): the thread's affinity stays,
    // and the source names it as changed, as it does every thread a placement names.
    b.mark_changed(0);
    b.begin_call(Trigger::Quantum, 1);
    p.sync(&b.view(&m, Trigger::Quantum, 1));
    assert_eq!(p.level(0), Some(2), "the view's affinity wins over the policy's own record");
    // A thread that blocks leaves its partition's load.
    b.end_call();
    b.set_state(0, ThreadState::Blocked);
    b.begin_call(Trigger::Block(0), 2);
    p.sync(&b.view(&m, Trigger::Block(0), 2));
    assert_eq!(p.load(2), 0);
}
