//! SMT siblings against the model's formula (docs/smt.md): a thread's speed on a hardware
//! thread whose sibling is busy is `smt_sibling_speed` times its speed alone; its CPU time is
//! its wall time there. Every number derived by hand from the machine below: 2 GHz and CPI 1,
//! no misses, so 0.5 ns per instruction alone and 0.5 / 0.6 ns with the sibling busy.

use ampsched_model::{CoreSet, Machine, Placement, SystemView, Workload};
use ampsched_sim::RunResult;

use crate::common::{apps, machine, simulate};

/// Each busy sibling's speed relative to alone.
const SIBLING_SPEED: f64 = 0.6;

/// `physical` cores of two hardware threads each (siblings 0-1, 2-3, ...).
fn smt_machine(physical: usize) -> Machine {
    machine(&format!("[[core_type]]\nname = \"p\"\ncount = {}\nfreq_ghz = 2.0\nsmt = 2\nsmt_sibling_speed = {SIBLING_SPEED}\n", 2 * physical))
}

/// Thread i (app i's one thread) pinned to hardware thread `pins[i]`.
fn pinned(m: &Machine, w: &Workload, pins: &'static [usize]) -> RunResult {
    simulate(m, w, None, move |v: &SystemView, out: &mut Placement| {
        for &t in v.live {
            out.set(t, CoreSet::single(pins[t as usize]));
        }
    })
}

fn turnaround_ns(r: &RunResult, app: usize) -> u64 {
    r.apps[app].turnarounds_ns[0]
}

/// |a − b| ≤ 1 ns: the engine rounds each planned interval to the ns.
fn near(a: u64, b: f64) -> bool {
    (a as f64 - b).abs() <= 1.0
}

#[test]
fn one_thread_alone_on_a_physical_core_runs_at_its_speed() {
    // 1e9 instructions × 0.5 ns.
    let r = pinned(&smt_machine(1), &apps(&[(1e9, 1.0, 0.0)]), &[0]);
    assert_eq!(turnaround_ns(&r, 0), 500_000_000);
}

#[test]
fn two_busy_siblings_each_run_at_the_sibling_speed() {
    // work / (speed × smt_sibling_speed): 1e9 × 0.5 / 0.6 = 833,333,333.3 ns each.
    let r = pinned(&smt_machine(1), &apps(&[(1e9, 1.0, 0.0), (1e9, 1.0, 0.0)]), &[0, 1]);
    let expected = 1e9 * 0.5 / SIBLING_SPEED;
    for app in 0..2 {
        assert!(near(turnaround_ns(&r, app), expected), "app {app}: {} vs {expected}", turnaround_ns(&r, app));
        // CPU time is the wall time on the hardware thread (as Linux counts it), all its
        // instructions retired in it.
        let t = &r.threads[app];
        let (time, instructions) = t.per_type.iter().fold((0, 0.0), |(ns, i), c| (ns + c.time_ns, i + c.instructions));
        assert!(near(time, expected), "{time}");
        assert!((instructions - 1e9).abs() < 1e-3, "{instructions}");
    }
}

#[test]
fn a_thread_whose_sibling_stops_halfway_gets_the_mixed_time() {
    // The sibling's 3e8 instructions end at 3e8 × 0.5 / 0.6 = 2.5e8 ns; by then the long
    // thread has retired 2.5e8 / (0.5 / 0.6) = 3e8 of its 1e9, and the other 7e8 run alone at
    // 0.5 ns: 3.5e8 ns more, 6e8 ns in all (against 5e8 alone and 8.33e8 beside a sibling
    // throughout).
    let r = pinned(&smt_machine(1), &apps(&[(1e9, 1.0, 0.0), (3e8, 1.0, 0.0)]), &[0, 1]);
    assert!(near(turnaround_ns(&r, 1), 2.5e8), "{}", turnaround_ns(&r, 1));
    assert!(near(turnaround_ns(&r, 0), 6e8), "{}", turnaround_ns(&r, 0));
}

#[test]
fn a_sibling_that_starts_later_slows_a_running_thread_from_then_on() {
    // The second app arrives at 0.1 s: the first has retired 2e8 instructions alone; the two
    // then share the core. The first's remaining 8e8 at 0.5 / 0.6 ns take 6.67e8 ns, while the
    // second's 1e9 would take 8.33e8: the first ends at 0.1 + 0.6667 = 0.7667 s, having given
    // the second 6.667e8 ns × 0.6 / 0.5 = 8e8 instructions; its last 2e8 run alone at 0.5 ns,
    // 1e8 ns: it ends at 0.8667 s, a turnaround of 0.7667 s.
    let w = Workload::from_toml(
        "w",
        "[[app]]\nname = \"a\"\nthreads = 1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\ncpi = 1.0\n\
         [[app]]\nname = \"b\"\nthreads = 1\narrival_s = 0.1\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\ncpi = 1.0\n",
        &ampsched_model::workload::Programs::new(),
    )
    .unwrap();
    let r = pinned(&smt_machine(1), &w, &[0, 1]);
    let first = 1e8 + 8e8 * 0.5 / SIBLING_SPEED;
    assert!(near(turnaround_ns(&r, 0), first), "{} vs {first}", turnaround_ns(&r, 0));
    let second = (first - 1e8) + 2e8 * 0.5;
    assert!(near(turnaround_ns(&r, 1), second), "{} vs {second}", turnaround_ns(&r, 1));
}

#[test]
fn threads_on_different_physical_cores_do_not_slow_each_other() {
    // Hardware threads 0 and 2 are on two physical cores; their siblings 1 and 3 stay idle.
    let r = pinned(&smt_machine(2), &apps(&[(1e9, 1.0, 0.0), (1e9, 1.0, 0.0)]), &[0, 2]);
    assert_eq!((turnaround_ns(&r, 0), turnaround_ns(&r, 1)), (500_000_000, 500_000_000));
}

#[test]
fn without_smt_the_same_two_cores_run_at_full_speed() {
    let m = machine("[[core_type]]\nname = \"p\"\ncount = 2\nfreq_ghz = 2.0\n");
    let r = pinned(&m, &apps(&[(1e9, 1.0, 0.0), (1e9, 1.0, 0.0)]), &[0, 1]);
    assert_eq!((turnaround_ns(&r, 0), turnaround_ns(&r, 1)), (500_000_000, 500_000_000));
}

#[test]
fn a_time_sliced_smt_run_is_deterministic_and_conserves_work() {
    // Six threads over two physical cores' four hardware threads under CFS's slices and
    // balancing: siblings start and stop all the time. The same seed gives the same run; and
    // however the siblings met, each thread retired all its instructions.
    let w = apps(&[(4e8, 1.0, 0.0), (3e8, 1.0, 0.0), (5e8, 1.0, 0.0), (2e8, 1.0, 0.0), (6e8, 1.0, 0.0), (1e8, 1.0, 0.0)]);
    let m = smt_machine(2);
    let run = || simulate(&m, &w, None, |_, _| {});
    let (a, b) = (run(), run());
    assert_eq!(a.segments, b.segments);
    assert_eq!(a.apps.iter().map(|x| x.turnarounds_ns.clone()).collect::<Vec<_>>(), b.apps.iter().map(|x| x.turnarounds_ns.clone()).collect::<Vec<_>>());
    let total = 4e8 + 3e8 + 5e8 + 2e8 + 6e8 + 1e8;
    let retired: f64 = a.threads.iter().flat_map(|t| t.per_type.iter()).map(|c| c.instructions).sum();
    assert!((retired - total).abs() < 1.0, "{retired}");
    // The hardware threads' busy time is at least the work alone (0.5 ns per instruction) and at
    // most all of it beside a busy sibling (0.5 / 0.6 ns).
    let busy: u64 = a.cores.iter().map(|c| c.busy_ns).sum();
    assert!(busy as f64 >= total * 0.5 - 10.0 && busy as f64 <= total * 0.5 / SIBLING_SPEED + 10.0, "{busy}");
    // And the siblings did meet: with more threads than hardware threads at the start, all four
    // are busy then, so the busy time is well above the work alone (measured 1.62e9 ns of 1.05e9
    // to 1.75e9).
    assert!(busy as f64 > total * 0.5 * 1.2, "{busy}");
}

#[test]
fn a_reported_capacity_changes_what_policies_see_not_the_speeds_or_the_fast_time() {
    // The little cores report the higher capacity (a mis-sorted table). A policy reads the
    // reported one; the engine runs each core at its clock, and the run counts the truly fast
    // core's time as fast time.
    let text = |caps: &str| {
        let (big, little) = caps.split_once(',').unwrap();
        format!("[[core_type]]\nname = \"big\"\ncount = 1\nfreq_ghz = 2.0\n{big}\n[[core_type]]\nname = \"little\"\ncount = 1\nfreq_ghz = 1.0\n{little}\n")
    };
    let missorted = machine(&text("capacity = 400,capacity = 1024"));
    let plain = machine(&text(","));
    let w = apps(&[(1e9, 1.0, 0.0), (1e9, 1.0, 0.0)]);
    let mut seen = Vec::new();
    let mut run = |m: &Machine| {
        let mut fastest = None;
        let r = simulate(m, &w, None, |v: &SystemView, out: &mut Placement| {
            fastest = Some(v.machine.fastest_type());
            for &t in v.live {
                out.set(t, CoreSet::single(t as usize));
            }
        });
        seen.push(fastest.unwrap());
        r
    };
    let (a, b) = (run(&missorted), run(&plain));
    // What the policy saw: the little type (1) is the fastest by its reported capacity.
    assert_eq!(seen, vec![1, 0]);
    // The speeds: 1e9 × 0.5 ns on the 2 GHz big core, 1e9 × 1 ns on the little one, either way.
    for r in [&a, &b] {
        assert_eq!((turnaround_ns(r, 0), turnaround_ns(r, 1)), (500_000_000, 1_000_000_000));
        // Fast time is the big core's: thread 0's whole run, none of thread 1's.
        assert_eq!((r.fast_ns(&r.threads[0]), r.fast_ns(&r.threads[1])), (500_000_000, 0));
    }
}

#[test]
fn a_spinning_sibling_is_busy_and_a_blocked_one_is_not() {
    // Two threads of one app meet at a serial phase of 1e9 instructions: one computes it while
    // the other waits on the sibling hardware thread. Spinning, the waiter keeps the core's
    // pipeline busy: 1e9 × 0.5 / 0.6 ns. Blocked, its hardware thread is idle: 1e9 × 0.5 ns.
    let serial = |wait: &str| {
        let text = format!("[[app]]\nname = \"s\"\nthreads = 2\n[[app.phase]]\nkind = \"serial\"\ninstructions = 1e9\ncpi = 1.0\nwait = \"{wait}\"\n");
        Workload::from_toml("w", &text, &ampsched_model::workload::Programs::new()).unwrap()
    };
    let spin = pinned(&smt_machine(1), &serial("spin"), &[0, 1]);
    assert!(near(turnaround_ns(&spin, 0), 1e9 * 0.5 / SIBLING_SPEED), "{}", turnaround_ns(&spin, 0));
    let block = pinned(&smt_machine(1), &serial("block"), &[0, 1]);
    assert_eq!(turnaround_ns(&block, 0), 500_000_000);
}
