//! Topology-aware partition targets (Sáez thesis §2.2.3, §5.2.4 footnote 7, §6.2.3): a thread
//! moved to another partition keeps to its memory node and LLC domain where that partition has
//! a core there not held by another thread kept there; else it gets the whole partition. On a
//! machine of two chips, each one fast core and two slow cores sharing an LLC and a node.

use ampsched_model::{AppView, CoreSet, Machine, Placement, Signals, ThreadKind, ThreadState, ThreadView, Trigger, ViewBook};
use ampsched_policy::common::Partitions;

const TWO_CHIPS: &str = r#"
memory_latency_ns = 100
remote_memory_latency_ns = 115
[[core_type]]
name = "fast"
count = 2
freq_ghz = 2.0
[[core_type]]
name = "slow"
count = 4
freq_ghz = 1.0
[[llc]]
size_kb = 2048
cores = "0,2-3"
[[llc]]
size_kb = 2048
cores = "1,4-5"
[[numa]]
cores = "0,2-3"
[[numa]]
cores = "1,4-5"
"#;

/// Threads running on the given cores with the given affinities, their pages on `home`.
fn book(m: &Machine, threads: &[(usize, &CoreSet, Option<usize>)]) -> ViewBook {
    let mut b = ViewBook::new(m.num_cores(), Signals::NONE, false);
    b.apps.push(AppView::new(0, "a".into(), 0));
    for (i, &(core, allowed, home)) in threads.iter().enumerate() {
        let mut v = ThreadView::started(i as u32, 0, 0, i as u32, ThreadKind::App, allowed.clone(), 0);
        v.state = ThreadState::Running;
        v.core = Some(core);
        v.home_node = home;
        b.add_thread(v);
    }
    b
}

fn no_claims(_: &ThreadView) {}

fn keep_fast_busy(m: &Machine, b: &mut ViewBook, prefer_local: bool) -> Vec<(u32, CoreSet)> {
    let mut p: Partitions = Partitions::with_topology(m, prefer_local);
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    p.keep_fast_busy(&b.view(m, Trigger::Quantum, 0), &mut out, no_claims);
    out.affinity
}

#[test]
fn a_thread_moved_up_keeps_to_its_chip_when_its_fast_core_is_free() {
    let m = Machine::from_toml("m", TWO_CHIPS).unwrap();
    let slow = CoreSet::from_cores([2, 3, 4, 5]);
    // One thread on slow core 4 (chip 1, its pages there): both fast cores idle, it goes up.
    let mut b = book(&m, &[(4, &slow, Some(1))]);
    assert_eq!(keep_fast_busy(&m, &mut b, true), vec![(0, CoreSet::single(1))], "chip 1's fast core only");
    let mut b = book(&m, &[(4, &slow, Some(1))]);
    assert_eq!(keep_fast_busy(&m, &mut b, false), vec![(0, CoreSet::from_cores([0, 1]))], "off: the whole fast partition");
}

#[test]
fn a_second_thread_from_the_same_chip_gets_the_whole_partition() {
    let m = Machine::from_toml("m", TWO_CHIPS).unwrap();
    let slow = CoreSet::from_cores([2, 3, 4, 5]);
    // Two threads on chip 1: the first takes chip 1's one fast core; chip 0's is neither's node
    // nor LLC, so the second is not kept anywhere (the local scheduler puts it on core 0).
    let mut b = book(&m, &[(4, &slow, Some(1)), (5, &slow, Some(1))]);
    assert_eq!(keep_fast_busy(&m, &mut b, true), vec![(0, CoreSet::single(1)), (1, CoreSet::from_cores([0, 1]))]);
}

#[test]
fn the_home_node_comes_before_the_last_llc() {
    let m = Machine::from_toml("m", TWO_CHIPS).unwrap();
    let slow = CoreSet::from_cores([2, 3, 4, 5]);
    // Running on chip 1 with its pages on node 0 (it was moved away after its first touch):
    // it goes back to node 0's fast core, where its misses are local again.
    let mut b = book(&m, &[(4, &slow, Some(0))]);
    assert_eq!(keep_fast_busy(&m, &mut b, true), vec![(0, CoreSet::single(0))]);
    // Pages unknown (the live agent): its last core's node stands for them.
    let mut b = book(&m, &[(4, &slow, None)]);
    assert_eq!(keep_fast_busy(&m, &mut b, true), vec![(0, CoreSet::single(1))]);
}

#[test]
fn a_swap_within_a_chip_stays_on_the_chip() {
    let m = Machine::from_toml("m", TWO_CHIPS).unwrap();
    let fast = CoreSet::from_cores([0, 1]);
    let slow = CoreSet::from_cores([2, 3, 4, 5]);
    // Thread 0 on chip 1's fast core, thread 1 on chip 1's slow core 4: they swap partitions,
    // thread 1 takes chip 1's fast core, which thread 0 leaves; a move down is not kept (the
    // whole slow partition: the local scheduler prefers thread 0's last LLC among equals).
    let mut b = book(&m, &[(1, &fast, Some(1)), (4, &slow, Some(1))]);
    let mut p: Partitions = Partitions::with_topology(&m, true);
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    let view = b.view(&m, Trigger::Quantum, 0);
    p.begin(&view);
    p.swap(&view, 0, 1, &mut out);
    assert_eq!(out.affinity, vec![(0, slow.clone()), (1, CoreSet::single(1))]);
    assert_eq!((p.level(0), p.level(1)), (Some(1), Some(0)));
}

#[test]
fn a_thread_woken_into_a_full_domain_gets_its_whole_partition() {
    let m = Machine::from_toml("m", TWO_CHIPS).unwrap();
    let chip1_fast = CoreSet::single(1);
    // Two threads kept to chip 1's one fast core (one was kept there while the other slept):
    // when the view shows them both changed, the domain holds 2 for 1 core, and the first of
    // them in the view's changed list (thread 0) is widened to both fast cores; thread 1 stays.
    let mut b = book(&m, &[(1, &chip1_fast, Some(1)), (1, &chip1_fast, Some(1))]);
    b.threads[1].state = ThreadState::Ready;
    let mut p: Partitions = Partitions::with_topology(&m, true);
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    p.keep_fast_busy(&b.view(&m, Trigger::Quantum, 0), &mut out, no_claims);
    assert_eq!(out.affinity, vec![(0, CoreSet::from_cores([0, 1]))]);
}

/// A claim the test sets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Set(u8);
impl ampsched_policy::common::Claim for Set {}

#[test]
fn a_swap_takes_the_tied_partner_on_the_same_chip() {
    let m = Machine::from_toml("m", TWO_CHIPS).unwrap();
    let fast = CoreSet::from_cores([0, 1]);
    let slow = CoreSet::from_cores([2, 3, 4, 5]);
    // Threads 0 and 1 on the fast cores of chips 0 and 1 claim alike (1); thread 2, on chip 1's
    // slow core 4, claims more (5) and swaps up. Either fast thread may go down: with the
    // preference, the one on chip 1 (thread 1), so thread 2 takes chip 1's fast core; without,
    // the lowest id (thread 0), and thread 2 gets the whole fast partition.
    for (prefer_local, partner, up_to) in [(true, 1, CoreSet::single(1)), (false, 0, fast.clone())] {
        let mut b = book(&m, &[(0, &fast, Some(0)), (1, &fast, Some(1)), (4, &slow, Some(1))]);
        let mut p: Partitions<Set> = Partitions::with_topology(&m, prefer_local);
        for (t, c) in [(0, 1), (1, 1), (2, 5)] {
            p.set_claim(t, Set(c));
        }
        let mut out = Placement::default();
        b.begin_call(Trigger::Quantum, 0);
        let view = b.view(&m, Trigger::Quantum, 0);
        let swaps = p.swap_up_while(&view, &mut out, |_, _| true, |t, _| Set([1, 1, 5][t as usize]));
        assert_eq!(swaps, 1);
        assert_eq!(out.affinity, vec![(2, up_to), (partner, slow.clone())], "prefer_local = {prefer_local}");
    }
}

#[test]
fn an_idle_fast_core_takes_a_tied_thread_of_its_own_chip() {
    let m = Machine::from_toml("m", TWO_CHIPS).unwrap();
    let fast = CoreSet::from_cores([0, 1]);
    let slow = CoreSet::from_cores([2, 3, 4, 5]);
    // Thread 0 runs on chip 0's fast core; chip 1's fast core is idle. Threads 1 (chip 0, slow
    // core 2) and 2 (chip 1, slow core 4) claim alike: with the preference, chip 1's thread goes
    // up, to chip 1's fast core; without, the lowest id, to the whole fast partition (the local
    // scheduler then puts it on idle core 1, across chips).
    for (prefer_local, moved) in [(true, (2, CoreSet::single(1))), (false, (1, fast.clone()))] {
        let mut b = book(&m, &[(0, &fast, Some(0)), (2, &slow, Some(0)), (4, &slow, Some(1))]);
        b.cores[0].nr_running = 1;
        b.cores[0].running = Some(0);
        assert_eq!(keep_fast_busy(&m, &mut b, prefer_local), vec![moved], "prefer_local = {prefer_local}");
    }
}
