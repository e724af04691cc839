//! `smt-aware`'s idle selection on a machine with SMT: two physical big cores of two hardware
//! threads each (cores 0-1 and 2-3, capacity 1024) and two little cores without SMT (4, 5: 1.0 GHz
//! against 2.0, capacity 512). A waking thread takes a thread of a fully idle core, of the highest
//! capacity, before an idle sibling of a busy core.

use ampsched_model::{AppView, CoreSet, Machine, Placement, Policy, Signals, ThreadKind, ThreadState, ThreadView, Trigger, ViewBook};
use ampsched_policy::{build, PolicySpec};

const MACHINE: &str = "memory_latency_ns = 100\n\
    [[core_type]]\nname = \"big\"\ncount = 4\nfreq_ghz = 2.0\nsmt = 2\nsmt_sibling_speed = 0.6\n\
    [[core_type]]\nname = \"little\"\ncount = 2\nfreq_ghz = 1.0\n";

/// Where thread 0, waking, goes when the cores `busy` each run a thread of their own.
fn wake_with_busy(m: &Machine, busy: &[usize]) -> Option<CoreSet> {
    let mut b = ViewBook::new(m.num_cores(), Signals::WAKEUP, false);
    b.apps.push(AppView::new(0, "a".into(), 0));
    for i in 0..=busy.len() as u32 {
        b.add_thread(ThreadView::started(i, 0, 0, i, ThreadKind::App, m.all_cores(), 0));
    }
    for (i, &c) in busy.iter().enumerate() {
        let t = i as u32 + 1;
        b.threads[t as usize].core = Some(c);
        b.set_state(t, ThreadState::Running);
        b.cores[c].nr_running = 1;
        b.cores[c].running = Some(t);
    }
    let mut p = build(&PolicySpec::parse("smt-aware").unwrap(), m).unwrap();
    let mut out = Placement::default();
    b.begin_call(Trigger::Wake(0), 0);
    p.decide(&b.view(m, Trigger::Wake(0), 0), &mut out).unwrap();
    out.affinity.iter().find(|(t, _)| *t == 0).map(|(_, c)| c.clone())
}

#[test]
fn a_fully_idle_core_of_the_highest_capacity_comes_first_then_a_busy_cores_sibling() {
    let m = Machine::from_toml("m", MACHINE).unwrap();
    assert_eq!(m.smt_siblings(0), CoreSet::from_cores([0, 1]));
    assert_eq!((m.core_types[0].capacity, m.core_types[1].capacity), (1024, 512));
    // Everything idle: the highest capacity, lowest number.
    assert_eq!(wake_with_busy(&m, &[]), Some(CoreSet::single(0)));
    // Core 0 busy: its sibling 1 is idle, but physical core 2-3 is fully idle: 2.
    assert_eq!(wake_with_busy(&m, &[0]), Some(CoreSet::single(2)));
    // Both big cores half busy: no fully idle big core; the little cores are whole idle cores,
    // and a whole core comes first (`select_idle_core` before `select_idle_smt`): 4.
    assert_eq!(wake_with_busy(&m, &[0, 2]), Some(CoreSet::single(4)));
    // Both little cores busy too: the idle sibling of a busy big core, 1 (lowest number).
    assert_eq!(wake_with_busy(&m, &[0, 2, 4, 5]), Some(CoreSet::single(1)));
    // All big hardware threads busy: the little core 4.
    assert_eq!(wake_with_busy(&m, &[0, 1, 2, 3]), Some(CoreSet::single(4)));
    // Nothing idle: no decision.
    assert_eq!(wake_with_busy(&m, &[0, 1, 2, 3, 4, 5]), None);
}

/// Without SMT every idle core is a whole idle core: the rule is capacity-ordered idle selection
/// (two big cores 0-1, two little 2-3).
#[test]
fn without_smt_it_picks_the_idle_core_of_the_highest_capacity() {
    let m = Machine::from_toml(
        "m",
        "memory_latency_ns = 100\n[[core_type]]\nname = \"big\"\ncount = 2\nfreq_ghz = 2.0\n[[core_type]]\nname = \"little\"\ncount = 2\nfreq_ghz = 1.0\n",
    )
    .unwrap();
    assert!(!m.has_smt());
    assert_eq!(wake_with_busy(&m, &[]), Some(CoreSet::single(0)));
    assert_eq!(wake_with_busy(&m, &[0]), Some(CoreSet::single(1)));
    assert_eq!(wake_with_busy(&m, &[0, 1]), Some(CoreSet::single(2)));
    assert_eq!(wake_with_busy(&m, &[0, 1, 2, 3]), None);
}
