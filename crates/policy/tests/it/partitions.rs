//! The shared partitions on a machine of three capacities: moves cascade up to the fastest
//! partition with room and overflow down to the nearest with room; a thread's partition is its
//! affinity in the view, so a decision the source did not apply is seen as not applied. The
//! partitions' index, kept from the changes and the claims set, makes the moves a scan of the
//! view would, after random changes, with claims set by the policy or falling unseen.

use std::cmp::Reverse;

use ampsched_model::rng::Rng;
use ampsched_model::{AppView, CoreSet, Machine, Placement, Signals, SystemView, ThreadId, ThreadKind, ThreadState, ThreadView, Trigger, ViewBook};
use ampsched_policy::common::{Claim, Partitions};

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

/// No claims: moves take the lowest id.
fn lowest_id(_: &ThreadView) {}

#[test]
fn levels_are_capacities_fastest_first() {
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let p: Partitions = Partitions::new(&m);
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
    let mut p: Partitions = Partitions::new(&m);
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
    let mut p: Partitions = Partitions::new(&m);
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
    let mut p: Partitions = Partitions::new(&m);
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    p.keep_fast_busy(&b.view(&m, Trigger::Quantum, 0), &mut out, lowest_id);
    assert_eq!(p.level(0), Some(0), "decided: up to big");
    b.end_call();
    // The source could not apply it (the live agent was refused): the thread's affinity stays,
    // and the source names it as changed, as it does every thread a placement names.
    b.mark_changed(0);
    b.begin_call(Trigger::Quantum, 1);
    p.begin(&b.view(&m, Trigger::Quantum, 1));
    assert_eq!(p.level(0), Some(2), "the view's affinity wins over the policy's own record");
    // A thread that blocks leaves its partition's load.
    b.end_call();
    b.set_state(0, ThreadState::Blocked);
    b.begin_call(Trigger::Block(0), 2);
    p.begin(&b.view(&m, Trigger::Block(0), 2));
    assert_eq!(p.load(2), 0);
}

/// A claim the test sets, from few values so that ties are common.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Set(u8);
impl Claim for Set {}

/// A claim that falls unseen: little time on core 0's type, as busyfcs ranks fast time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Unseen(Reverse<u64>);
impl Claim for Unseen {
    const FALLS_UNSEEN: bool = true;
}

/// `keep_fast_busy` by a scan of the view: each thread's partition from its affinity, each
/// move taking the highest claim up or the lowest down, ties to the lowest id.
fn moves_by_scan<C: Ord + Copy>(view: &SystemView, levels: &[CoreSet], claim: impl Fn(&ThreadView) -> C) -> Vec<(ThreadId, CoreSet)> {
    let level_of = |cores: &CoreSet| levels.iter().position(|l| !cores.is_empty() && cores.is_subset(l));
    let mut level: Vec<(ThreadId, usize)> =
        view.live_threads().filter(|v| v.state.is_runnable()).filter_map(|v| level_of(&v.allowed).map(|l| (v.id, l))).collect();
    let load = |level: &[(ThreadId, usize)], l: usize| level.iter().filter(|&&(_, x)| x == l).count();
    let mut out = Vec::new();
    let n = levels.len();
    let mut go = |level: &mut Vec<(ThreadId, usize)>, from: usize, to: usize, up: bool| {
        let ts = level.iter_mut().filter(|(_, l)| *l == from);
        let claim_of = |x: &&mut (ThreadId, usize)| claim(view.thread(x.0));
        let pick = if up { ts.max_by_key(|x| (claim_of(x), Reverse(x.0))) } else { ts.min_by_key(|x| (claim_of(x), x.0)) }.unwrap();
        pick.1 = to;
        out.push((pick.0, levels[to].clone()));
    };
    for to in 0..n - 1 {
        while load(&level, to) < levels[to].len() {
            let Some(from) = (to + 1..n).find(|&l| load(&level, l) > 0) else { break };
            go(&mut level, from, to, true);
        }
    }
    for from in 0..n - 1 {
        while load(&level, from) > levels[from].len() {
            let Some(to) = (from + 1..n).find(|&l| load(&level, l) < levels[l].len()) else { break };
            go(&mut level, from, to, false);
        }
    }
    out
}

/// Random runs of a source and a policy using the partitions: threads start, block, wake and
/// exit, get affinities in one partition or across them, and have their claims changed; the
/// source applies most placements and refuses some, and now and then the policy misses a call.
/// `change_claim` changes a thread's claim as the policy (or the source, unseen) would.
fn random_runs<C: Claim>(seed: u64, mut change_claim: impl FnMut(&mut Rng, &mut ViewBook, &mut Partitions<C>, ThreadId), now: impl Fn(&ThreadView) -> C) {
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let levels: Vec<CoreSet> = m.capacity_levels().into_iter().map(|(_, c)| c).collect();
    let affinities = [levels[0].clone(), levels[1].clone(), levels[2].clone(), m.all_cores(), levels[0].union(&levels[2])];
    let states = [ThreadState::Running, ThreadState::Ready, ThreadState::Ready, ThreadState::Blocked, ThreadState::Sleeping, ThreadState::Exited];
    let mut rng = Rng::new(seed);
    let mut b = ViewBook::new(m.num_cores(), Signals::NONE, false);
    b.apps.push(AppView::new(0, "a".into(), 0));
    let mut p: Partitions<C> = Partitions::new(&m);
    let mut live: Vec<ThreadId> = Vec::new();
    for call in 1..=300u64 {
        for _ in 0..rng.below(3) {
            let id = b.threads.len() as u32;
            let cores = affinities[rng.below(affinities.len())].clone();
            b.add_thread(ThreadView::started(id, 0, 0, id, ThreadKind::App, cores, 0));
            live.push(id);
        }
        for _ in 0..rng.below(6) {
            if live.is_empty() {
                break;
            }
            let t = live[rng.below(live.len())];
            match rng.below(3) {
                0 => b.set_state(t, states[rng.below(states.len())]),
                1 => {
                    b.threads[t as usize].allowed = affinities[rng.below(affinities.len())].clone();
                    b.mark_changed(t);
                }
                _ => change_claim(&mut rng, &mut b, &mut p, t),
            }
        }
        b.begin_call(Trigger::Quantum, call);
        if rng.below(10) > 0 {
            let view = b.view(&m, Trigger::Quantum, call);
            let want = moves_by_scan(&view, &levels, &now);
            let mut out = Placement::default();
            p.keep_fast_busy(&view, &mut out, &now);
            assert_eq!(out.affinity, want, "seed {seed}, call {call}");
            for l in 0..levels.len() {
                let mut held: Vec<ThreadId> = p.runnable_in(l).collect();
                held.sort_unstable();
                let runnable = |t: &&ThreadId| view.thread(**t).state.is_runnable();
                let mut counted: Vec<ThreadId> = view.live.iter().filter(runnable).copied().filter(|&t| p.level(t) == Some(l)).collect();
                counted.sort_unstable();
                assert_eq!(held, counted, "seed {seed}, call {call}, partition {l}");
            }
            b.end_call();
            for (t, cores) in out.affinity {
                if rng.below(8) > 0 {
                    b.threads[t as usize].allowed = cores;
                }
                b.mark_changed(t);
            }
        } else {
            b.end_call();
        }
        live = b.threads.iter().filter(|v| v.state != ThreadState::Exited).map(|v| v.id).collect();
    }
}

#[test]
fn moves_follow_the_claims_set_as_a_scan_would() {
    // The claim the policy last set is kept in the view's `spin_ns`, for the scan to read.
    for seed in 0..40 {
        random_runs::<Set>(
            seed,
            |rng, b, p, t| {
                let c = rng.below(4) as u8;
                b.threads[t as usize].spin_ns = c as u64;
                p.set_claim(t, Set(c));
            },
            |v| Set(v.spin_ns as u8),
        );
    }
}

#[test]
fn moves_follow_claims_that_fall_unseen_as_a_scan_would() {
    // Time on core 0's type grows, never told to the partitions; often not at all, for ties.
    for seed in 0..40 {
        random_runs::<Unseen>(
            seed,
            |rng, b, _, t| b.threads[t as usize].per_type[0].time_ns += 10 * rng.below(3) as u64,
            |v| Unseen(Reverse(v.per_type[0].time_ns)),
        );
    }
}

#[test]
fn exchange_swaps_with_the_neighbour_partition_by_claim_and_balance_rules_hold() {
    use ampsched_policy::common::sf::Sf;
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let (big, mid, little) = (CoreSet::single(0), CoreSet::single(1), CoreSet::from_cores([2, 3]));
    // 0 on big (SF 1.2), 1 on mid (1.5), 2 and 3 on little (1.1 and 1.9).
    let mut b = book(&m, &[&big, &mid, &little, &little]);
    let mut p: Partitions<Sf> = Partitions::new(&m);
    for (t, sf) in [(0, 1.2), (1, 1.5), (2, 1.1), (3, 1.9)] {
        p.set_claim(t, Sf(sf));
    }
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    let v = b.view(&m, Trigger::Quantum, 0);
    // Thread 2 claims less than everyone above it: no swap.
    assert_eq!(p.exchange(&v, 2, &mut out), 0);
    // Thread 3 beats mid's 1.5, then big's 1.2: two swaps, and it ends on big.
    assert_eq!(p.exchange(&v, 3, &mut out), 2);
    assert_eq!((p.level(3), p.level(1), p.level(0)), (Some(0), Some(2), Some(1)));
    assert_eq!((p.load(0), p.load(1), p.load(2)), (1, 1, 2), "swaps keep every load");
    // Balance (§2.3, ⌊P⌋ = 1): moving 2 from little to mid gives loads 1/2/1, scaled 1/2/0:
    // mid's 2 exceeds big's 1 (the fastest must be the most loaded) and 2 − 0 > 1.
    assert!(!p.move_keeps_balance(2, 1));
    // Moving 0 (now on mid) down to little leaves mid idle while little has threads.
    assert!(!p.move_keeps_balance(0, 2));
    // Staying put is balanced.
    assert!(p.move_keeps_balance(2, 2));
}

#[test]
fn swap_up_while_pairs_the_strongest_slower_thread_with_the_weakest_faster_one() {
    use ampsched_policy::common::F64Key as K;
    let m = Machine::from_toml("m", MACHINE).unwrap();
    let (big, mid, little) = (CoreSet::single(0), CoreSet::single(1), CoreSet::from_cores([2, 3]));
    // 0 on big (claim 1), 1 on mid (2), 2 and 3 on little (3 and 0).
    let mut b = book(&m, &[&big, &mid, &little, &little]);
    let mut p: Partitions<K> = Partitions::new(&m);
    for (t, c) in [(0, 1.0), (1, 2.0), (2, 3.0), (3, 0.0)] {
        p.set_claim(t, K(c));
    }
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    let v = b.view(&m, Trigger::Quantum, 0);
    // First pass: big/mid: 1 (claim 2) over 0 (1): swap. mid/little: 2 (3) over 0 (1): swap.
    // Second pass: big/mid: 2 (3) over 1 (2): swap; mid/little: 0 (1) under 1 (2). Third: none.
    // Moved threads keep their claims.
    let claim = |t: ThreadId| K([1.0, 2.0, 3.0, 0.0][t as usize]);
    let mut moved = Vec::new();
    let refuse_all = p.clone().swap_up_while(&v, &mut Placement::default(), |_, _| false, |t, _| claim(t));
    assert_eq!(refuse_all, 0, "`wanted` refusing every pair swaps nothing");
    let swaps = p.swap_up_while(
        &v,
        &mut out,
        |_, _| true,
        |t, level| {
            moved.push((t, level));
            claim(t)
        },
    );
    assert_eq!(swaps, 3);
    assert_eq!(moved, vec![(1, 0), (0, 1), (2, 1), (0, 2), (2, 0), (1, 1)]);
    assert_eq!((p.level(0), p.level(1), p.level(2), p.level(3)), (Some(2), Some(1), Some(0), Some(2)));
    assert_eq!((p.load(0), p.load(1), p.load(2)), (1, 1, 2), "swaps keep every load");
    // Sorted by claim now: nothing left to swap.
    assert_eq!(p.swap_up_while(&v, &mut out, |_, _| true, |t, _| claim(t)), 0);
}

#[test]
fn shed_weaker_moves_a_weaker_thread_off_an_overloaded_partition_only_when_balance_allows() {
    use ampsched_policy::common::F64Key as K;
    // Two partitions: one fast core, three slow.
    let m = Machine::from_toml(
        "m",
        "memory_latency_ns = 100\n[[core_type]]\nname = \"f\"\ncount = 1\nfreq_ghz = 2.0\n[[core_type]]\nname = \"s\"\ncount = 3\nfreq_ghz = 1.0\n",
    )
    .unwrap();
    let (fast, slow) = (CoreSet::single(0), CoreSet::from_cores([1, 2, 3]));
    // Fast: 0 (claim 5) and 1 (claim 1); slow: 2, 3, 4. Moving 1 down gives loads 1 and 4
    // (scaled 1 and 1): balanced, so it goes.
    let mut b = book(&m, &[&fast, &fast, &slow, &slow, &slow]);
    let mut p: Partitions<K> = Partitions::new(&m);
    for (t, c) in [(0, 5.0), (1, 1.0), (2, 1.0), (3, 1.0), (4, 1.0)] {
        p.set_claim(t, K(c));
    }
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    assert_eq!(p.shed_weaker(&b.view(&m, Trigger::Quantum, 0), &mut out), 1);
    assert_eq!(out.affinity, vec![(1, slow.clone())]);
    // Equal claims on the fast core: no move (sharing among equals is the policy's business).
    let mut b = book(&m, &[&fast, &fast, &slow]);
    let mut p: Partitions<K> = Partitions::new(&m);
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    assert_eq!(p.shed_weaker(&b.view(&m, Trigger::Quantum, 0), &mut out), 0);
    // Unequal, but the slow partition is fuller than the fast one would be: 3 fast, 6 slow;
    // moving one down gives scaled loads 2 and 2 (balanced), a second would give 1 and 2 (not).
    let mut b = book(&m, &[&fast, &fast, &fast, &slow, &slow, &slow, &slow, &slow, &slow]);
    let mut p: Partitions<K> = Partitions::new(&m);
    p.set_claim(0, K(5.0));
    let mut out = Placement::default();
    b.begin_call(Trigger::Quantum, 0);
    assert_eq!(p.shed_weaker(&b.view(&m, Trigger::Quantum, 0), &mut out), 1);
    assert_eq!(out.affinity, vec![(1, slow)], "the weakest, lowest id first");
}
