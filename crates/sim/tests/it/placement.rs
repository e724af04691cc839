//! The simulator applies every decision of a `Placement`: numbers derived by hand from the
//! performance model and the local scheduler. A tiny policy in this file makes the decisions.

use ampsched_model::{Machine, Placement, Trigger, Workload};
use ampsched_sim::{metrics, RunResult};

use ampsched_model::share_rounds::MAX_LEAD_ROUNDS;

use crate::common::{apps, machine, simulate, simulate_seeded};

const SLICE_NS: u64 = ampsched_sim::DEFAULT_SLICE_NS;
const ROUND_NS: u64 = 30_000_000;

/// 1 fast core (2 GHz) + 1 slow core (1 GHz), migrations free so only the shares shape time.
const FAST_SLOW: &str =
    "[[core_type]]\nname = \"fast\"\ncount = 1\nfreq_ghz = 2.0\n[[core_type]]\nname = \"slow\"\ncount = 1\nfreq_ghz = 1.0\n[migration]\ncost_us = 0.0\n";

fn fast_fraction(r: &RunResult, t: usize) -> f64 {
    let v = &r.threads[t];
    r.fast_ns(v) as f64 / v.total_time_ns() as f64
}

#[test]
fn fast_share_splits_cpu_time_between_core_types() {
    // Two identical CPU-bound threads (4e9 instructions: 2 s on the fast core, 4 s on the slow
    // one) with shares 0.75 and 0.25: rounds of 22.5 ms / 7.5 ms on the fast core for thread 0,
    // the reverse for thread 1; they swap (`local::share`) when one is a round ahead on fast and
    // the other behind. While both run, a thread's fast time is off its share by at most the
    // rounds it may lead or trail by (`share_rounds::MAX_LEAD_ROUNDS`, of its larger quota) plus
    // a slice. Once thread 0 is done, thread 1 has the fast core to itself (work conservation).
    let m = machine(FAST_SLOW);
    let w = apps(&[(4e9, 1.0, 0.0), (4e9, 1.0, 0.0)]);
    let r = simulate(&m, &w, None, |v, out| {
        if let Trigger::Start(t) = v.trigger {
            out.set_fast_share(t, Some(if t == 0 { 0.75 } else { 0.25 }));
        }
    });
    let first_done = r.apps.iter().map(|a| a.turnarounds_ns[0]).min().unwrap();
    for (t, share) in [(0u32, 0.75), (1, 0.25)] {
        let (mut fast, mut all) = (0u64, 0u64);
        for s in r.segments.iter().filter(|s| s.thread == t && s.end_ns <= first_done) {
            all += s.end_ns - s.start_ns;
            fast += if s.core == 0 { s.end_ns - s.start_ns } else { 0 };
        }
        let bound = (MAX_LEAD_ROUNDS as f64 * 0.75 * ROUND_NS as f64 + SLICE_NS as f64) / all as f64;
        let got = fast as f64 / all as f64;
        assert!((got - share).abs() <= bound, "thread {t}: fast fraction {got}, share {share}, bound {bound}");
    }
    let last = r.segments.iter().rfind(|s| s.thread == 1).unwrap();
    assert_eq!((last.core, last.start_ns), (0, first_done), "thread 1 alone takes the fast core at once");
}

#[test]
fn fast_share_without_both_core_types_keeps_the_affinity_and_an_idle_fast_core_takes_a_share_thread() {
    // Thread 0 may only use the fast core: its share 0.5 cannot be honoured, and it keeps its
    // affinity: its 1e9 instructions run on the fast core alone, 0.5 s at 2 GHz. Threads 1 and 2
    // (2e9 instructions each) get share 0: they share the slow core while the fast core is busy.
    // When thread 0 exits at 0.5 s the fast core would idle while they run: it takes one at
    // once, the one waiting (work conservation), which runs there to its end (a share of 0
    // never asks for a fast core, but no thread behind on fast is there to swap with); when it
    // exits, the fast core takes the other from the slow core, running.
    let m = machine(FAST_SLOW);
    let w = apps(&[(1e9, 1.0, 0.0), (2e9, 1.0, 0.0), (2e9, 1.0, 0.0)]);
    let fast = m.fast_cores();
    let r = simulate(&m, &w, None, |v, out| match v.trigger {
        Trigger::Start(0) => {
            out.set(0, fast.clone());
            out.set_fast_share(0, Some(0.5));
        }
        Trigger::Start(t) => out.set_fast_share(t, Some(0.0)),
        _ => {}
    });
    assert_eq!(fast_fraction(&r, 0), 1.0);
    assert_eq!(r.threads[0].total_time_ns(), 500_000_000);
    let on_fast: Vec<_> = r.segments.iter().filter(|s| s.core == 0 && s.thread != 0).collect();
    assert_eq!(on_fast.len(), 2, "{on_fast:?}");
    let (first, second) = (on_fast[0], on_fast[1]);
    assert_eq!(first.start_ns, 500_000_000);
    // It had half the slow core for 0.5 s, within a slice: 0.25e9 instructions; the 1.75e9
    // left take 0.875 s at 2 GHz.
    assert!((first.end_ns as i64 - 1_375_000_000).abs() <= SLICE_NS as i64 / 2, "{first:?}");
    // The other had 0.25e9 + (first.end − 0.5 s) × 1 GHz done; the rest at 2 GHz.
    assert_eq!(second.start_ns, first.end_ns);
    let left = 2e9 - 0.25e9 - (first.end_ns - 500_000_000) as f64;
    assert!((second.end_ns as f64 - first.end_ns as f64 - left / 2.0).abs() <= SLICE_NS as f64, "{second:?}");
}

/// One 1 GHz core, two threads of 1e9 instructions (1 s each); `decide` runs when thread 0 starts.
fn two_threads_on_one_core(decide: impl Fn(&mut Placement) + Send) -> RunResult {
    let m = machine("[[core_type]]\nname = \"c\"\ncount = 1\nfreq_ghz = 1.0\n");
    let w = apps(&[(1e9, 1.0, 0.0), (1e9, 1.0, 0.0)]);
    simulate(&m, &w, None, move |v, out| {
        if v.trigger == Trigger::Start(0) {
            decide(out);
        }
    })
}

#[test]
fn weight_two_to_one_gets_two_thirds_of_a_core() {
    // One 1 GHz core, two threads of 1e9 instructions (1 s each). With weights 2048 and 1024,
    // thread 0 gets 2/3 of the core until it finishes at 1.5 s (its 1 s of work / (2/3)),
    // within one slice; then thread 1, which has had 0.5 s, runs alone to 2 s.
    let r = two_threads_on_one_core(|out| out.set_weight(0, Some(2048)));
    assert_eq!(r.makespan_ns, 2_000_000_000);
    let t0 = r.apps[0].turnarounds_ns[0] as i64;
    assert!((t0 - 1_500_000_000).abs() <= SLICE_NS as i64, "thread 0 done at {t0}");
    // While both ran, thread 0 had 2/3 of the core: check it on the segments before 1.5 s.
    let (mut a, mut b) = (0u64, 0u64);
    for s in r.segments.iter().filter(|s| s.end_ns <= 1_200_000_000) {
        *if s.thread == 0 { &mut a } else { &mut b } += s.end_ns - s.start_ns;
    }
    let share = a as f64 / (a + b) as f64;
    assert!((share - 2.0 / 3.0).abs() < 2.0 * SLICE_NS as f64 / 1.2e9, "thread 0 had {share} of the core");
}

#[test]
fn slice_sets_how_long_a_thread_runs_before_it_yields() {
    // One core, two equal threads; thread 0's slice is 12 ms, thread 1 keeps the default 4 ms.
    // While both run, every stay of thread 0 lasts 12 ms and every stay of thread 1 4 ms; CFS
    // still shares the core equally, so both finish within a 12 ms slice of 2 s.
    let r = two_threads_on_one_core(|out| out.set_slice(0, Some(12_000_000)));
    let first_done = r.apps.iter().map(|a| a.turnarounds_ns[0]).min().unwrap();
    assert!(first_done >= 2_000_000_000 - 12_000_000, "first thread done at {first_done}");
    let both = r.segments.iter().filter(|s| s.end_ns < first_done);
    let mut seen = [0, 0];
    for s in both {
        let want = if s.thread == 0 { 12_000_000 } else { SLICE_NS };
        assert_eq!(s.end_ns - s.start_ns, want, "{s:?}");
        seen[s.thread as usize] += 1;
    }
    assert!(seen[0] > 50 && seen[1] > 150, "{seen:?}");
}

/// 2 cores at 2 GHz with a 1 GHz level: 10 W at 2 GHz, 4 W at 1 GHz, 1 W idle.
const DVFS: &str = "[[core_type]]\nname = \"c\"\ncount = 2\nfreq_ghz = 2.0\nfreq_levels_ghz = [1.0, 2.0]\npower_active_w = 10.0\npower_levels_w = [4.0, 10.0]\npower_idle_w = 1.0\n";

/// Halve the frequency at the first quantum, 0.5 s in.
fn halve_at_half_second(w: &Workload, m: &Machine) -> RunResult {
    simulate(m, w, Some(500_000_000), |v, out| {
        if v.trigger == Trigger::Quantum {
            out.set_frequency(0, 1.0);
        }
    })
}

#[test]
fn halving_the_frequency_doubles_the_remaining_time_of_a_compute_bound_thread() {
    // 2e9 instructions at CPI 1: 0.5 ns each at 2 GHz, 1 s. At 0.5 s, 1e9 remain; at 1 GHz
    // they take 1 ns each: 1 s more, done at 1.5 s. Cycles: 0.5 s × 2 GHz + 1 s × 1 GHz.
    let m = machine(DVFS);
    let r = halve_at_half_second(&apps(&[(2e9, 1.0, 0.0)]), &m);
    assert_eq!(r.makespan_ns, 1_500_000_000);
    let c = r.threads[0].per_type[0];
    assert!((c.cycles - 2e9).abs() < 1.0, "cycles {}", c.cycles);
    assert!((c.instructions - 2e9).abs() < 1.0);
    // Energy: the busy core 0.5 s × 10 W + 1 s × 4 W; the idle core 1.5 s × 1 W.
    let busy: Vec<&Vec<u64>> = r.cores.iter().map(|c| &c.busy_ns_by_level).collect();
    assert!(busy.contains(&&vec![1_000_000_000, 500_000_000]) && busy.contains(&&vec![0, 0]), "{busy:?}");
    let met = metrics(&m, &r, &[1.0]);
    assert!((met.energy_j.unwrap() - (5.0 + 4.0 + 1.5)).abs() < 1e-9, "energy {}", met.energy_j.unwrap());
}

#[test]
fn halving_the_frequency_slows_a_memory_bound_thread_less() {
    // CPI 1 and 5 LLC misses per 1000 instructions at 100 ns: 0.5 + 0.5 = 1 ns per instruction
    // at 2 GHz, 1 + 0.5 = 1.5 ns at 1 GHz (the memory part does not scale). 1e9 instructions:
    // 5e8 done at 0.5 s, the other 5e8 take 0.75 s: done at 1.25 s.
    let m = machine(DVFS);
    let r = halve_at_half_second(&apps(&[(1e9, 1.0, 5.0)]), &m);
    assert_eq!(r.makespan_ns, 1_250_000_000);
    let met = metrics(&m, &r, &[1.0]);
    // 0.5 s × 10 W + 0.75 s × 4 W busy, 1.25 s × 1 W idle.
    assert!((met.energy_j.unwrap() - (5.0 + 3.0 + 1.25)).abs() < 1e-9, "energy {}", met.energy_j.unwrap());
}

#[test]
fn without_frequency_changes_energy_is_nominal_power_times_busy_time() {
    // The same machine, no decision: 1 s at 10 W, and the other core idle 1 s at 1 W.
    let m = machine(DVFS);
    let r = simulate(&m, &apps(&[(2e9, 1.0, 0.0)]), None, |_, _| {});
    assert_eq!(r.makespan_ns, 1_000_000_000);
    let met = metrics(&m, &r, &[1.0]);
    assert_eq!(met.energy_j.unwrap(), 10.0 + 1.0);
}

#[test]
fn a_type_that_starts_at_a_lower_level_runs_there_until_a_policy_raises_it() {
    // start_freq_ghz = 1.0: 2e9 instructions at CPI 1 take 1 ns each, 2 s at 4 W; the capacity
    // stays the nominal one (the Sáez thesis's migration-overhead measurement, §5.2.4).
    let m = machine(&format!("{DVFS}start_freq_ghz = 1.0\n"));
    assert_eq!(m.core_types[0].capacity, 1024);
    let r = simulate(&m, &apps(&[(2e9, 1.0, 0.0)]), None, |_, _| {});
    assert_eq!(r.makespan_ns, 2_000_000_000);
    let met = metrics(&m, &r, &[1.0]);
    assert!((met.energy_j.unwrap() - (2.0 * 4.0 + 2.0 * 1.0)).abs() < 1e-9, "energy {}", met.energy_j.unwrap());
    // Raised to 2 GHz at 0.5 s: 5e8 done, the other 1.5e9 take 0.75 s; done at 1.25 s.
    let r = simulate(&m, &apps(&[(2e9, 1.0, 0.0)]), Some(500_000_000), |v, out| {
        if v.trigger == Trigger::Quantum {
            out.set_frequency(0, 2.0);
        }
    });
    assert_eq!(r.makespan_ns, 1_250_000_000);
}

/// 2 fast cores (0, 1) and 4 slow ones (2-5) in two LLC domains of one fast and two slow cores
/// each: {0, 2, 3} and {1, 4, 5}.
const TWO_LLCS: &str = "[[core_type]]\nname = \"fast\"\ncount = 2\nfreq_ghz = 2.0\n[[core_type]]\nname = \"slow\"\ncount = 4\nfreq_ghz = 1.0\n[[llc]]\nsize_kb = 2048\ncores = \"0,2-3\"\n[[llc]]\nsize_kb = 2048\ncores = \"1,4-5\"\n";

/// The slow core thread 0 runs on first after being held on fast core `from` until 100 ms and
/// then allowed only on the slow cores; `busy` slow cores are each held by a thread of its own.
fn slow_core_after_moving_from(from: usize, busy: &[usize], seed: u64) -> usize {
    let m = machine(TWO_LLCS);
    let mut threads = vec![(1e9, 1.0, 0.0)];
    threads.extend(busy.iter().map(|_| (1e9, 1.0, 0.0)));
    let w = apps(&threads);
    let busy = busy.to_vec();
    let r = simulate_seeded(&m, &w, Some(100_000_000), seed, move |v, out| match v.trigger {
        Trigger::Start(0) => out.set(0, ampsched_model::CoreSet::single(from)),
        Trigger::Start(t) => out.set(t, ampsched_model::CoreSet::single(busy[t as usize - 1])),
        Trigger::Quantum if v.now_ns < 150_000_000 => out.set(0, ampsched_model::CoreSet::from_cores(2..6)),
        _ => {}
    });
    r.segments.iter().find(|s| s.thread == 0 && s.core >= 2).expect("thread 0 ran on a slow core").core as usize
}

#[test]
fn a_thread_moved_to_another_core_type_stays_in_its_llc_when_cores_there_are_as_free() {
    // Each slow core is idle: the two in the source core's LLC are as good as the two outside,
    // and the local scheduler takes one that keeps the cache. Without the preference, 16 seeds
    // x 2 source cores landing inside by chance would have probability 2^-32.
    for seed in 0..16 {
        assert!([2, 3].contains(&slow_core_after_moving_from(0, &[], seed)), "seed {seed}");
        assert!([4, 5].contains(&slow_core_after_moving_from(1, &[], seed)), "seed {seed}");
    }
}

#[test]
fn the_llc_preference_never_beats_load() {
    // Both slow cores of core 0's LLC are busy: an idle core of the other LLC wins.
    for seed in 0..8 {
        assert!([4, 5].contains(&slow_core_after_moving_from(0, &[2, 3], seed)), "seed {seed}");
    }
    // One of them is busy: the other one, idle and near.
    for seed in 0..8 {
        assert_eq!(slow_core_after_moving_from(0, &[2], seed), 3, "seed {seed}");
    }
}
