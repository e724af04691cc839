//! A recorded program's synchronisation (docs/workloads.md, "Recorded programs'
//! synchronisation"): spawned groups, joins, semaphores and named barriers, run by the engine.
//! Times derived by hand: on these 1 GHz cores at CPI 1 without misses, 1e8 instructions take
//! 100 ms, and every thread has a core of its own (migrations free), so only the waits set when
//! each thread runs.

use ampsched_model::workload::Programs;
use ampsched_model::{Placement, Policy, PolicyFailure, SimpleModel, SystemView, Trigger, Triggers, Workload};
use ampsched_sim::{Engine, RunResult, SimConfig};

use crate::common::{machine, try_simulate};

const MS: u64 = 1_000_000;

/// Four 1 GHz cores, migrations free.
const FOUR: &str = "[[core_type]]\nname = \"c\"\ncount = 4\nfreq_ghz = 1.0\n[migration]\ncost_us = 0.0\n";

/// Every thread's start and exit, as the policy is told of them: (time, trigger).
#[derive(Default)]
struct Recorder {
    calls: Vec<(u64, Trigger)>,
}

impl Policy for Recorder {
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, v: &SystemView, _out: &mut Placement) -> Result<(), PolicyFailure> {
        if matches!(v.trigger, Trigger::Start(_) | Trigger::Exit(_)) {
            self.calls.push((v.now_ns, v.trigger));
        }
        Ok(())
    }
}

fn workload(text: &str) -> Workload {
    Workload::from_toml("w.toml", text, &Programs::new()).unwrap()
}

fn run_on(machine_text: &str, text: &str, seed: u64) -> (RunResult, Recorder) {
    let (m, w) = (machine(machine_text), workload(text));
    let mut p = Recorder::default();
    let r = Engine::new(&m, &w, &SimpleModel, &mut p, SimConfig { seed, max_segments: 1_000_000, ..SimConfig::default() }).run().unwrap();
    (r, p)
}

fn run(text: &str) -> (RunResult, Recorder) {
    run_on(FOUR, text, SimConfig::default().seed)
}

/// When the policy was told thread `t` started, and exited.
fn life(p: &Recorder, t: u32) -> (u64, u64) {
    let at = |want: Trigger| p.calls.iter().find(|(_, tr)| *tr == want).map(|(time, _)| *time).unwrap_or_else(|| panic!("no {want:?}"));
    (at(Trigger::Start(t)), at(Trigger::Exit(t)))
}

/// A `[[app.group]]` with its keys and phases (each given as its `key = value` lines).
fn group(name: &str, keys: &str, phases: &[&str]) -> String {
    let mut s = format!("[[app.group]]\nname = \"{name}\"\n{keys}\n");
    for p in phases {
        s.push_str(&format!("[[app.group.phase]]\n{p}\n"));
    }
    s
}

fn compute(instructions: f64) -> String {
    format!("kind = \"compute\"\ninstructions = {instructions:e}")
}

/// main computes 1 s, spawns w, computes 0.5 s, joins w (with `wait`), computes 0.25 s; w
/// computes `w_s` seconds.
fn spawn_join(w_s: f64, wait: &str) -> String {
    format!(
        "[[app]]\nname = \"rec\"\n{}{}",
        group(
            "main",
            "",
            &[&compute(1e9), "kind = \"spawn\"\ngroup = \"w\"", &compute(5e8), &format!("kind = \"join\"\ngroup = \"w\"\nwait = \"{wait}\""), &compute(2.5e8)]
        ),
        group("w", "start = \"spawned\"", &[&compute(w_s * 1e9)])
    )
}

#[test]
fn a_spawned_thread_starts_at_its_spawn_and_a_join_waits_for_its_exit() {
    // w starts when main has computed 1 s and ends 2 s later, at 3 s. main reaches the join at
    // 1.5 s, waits until 3 s, then computes 0.25 s: 3.25 s.
    let (r, p) = run(&spawn_join(2.0, "block"));
    assert_eq!(life(&p, 1), (1000 * MS, 3000 * MS));
    assert_eq!(life(&p, 0), (0, 3250 * MS));
    assert_eq!(r.makespan_ns, 3250 * MS);
    assert_eq!(r.apps[0].turnarounds_ns, vec![3250 * MS]);
    assert_eq!(r.threads[1].started_ns, 1000 * MS);
    // Spinning, main burns its core through the wait: 1.5 s, counted as a barrier's spin is.
    let (r, _) = run(&spawn_join(2.0, "spin"));
    assert_eq!(r.makespan_ns, 3250 * MS);
    assert_eq!(r.threads[0].spin_ns, 1500 * MS);
    assert_eq!(r.threads[1].spin_ns, 0);
}

#[test]
fn a_join_of_a_group_already_exited_goes_on_at_once() {
    // w ends at 1.25 s, before main reaches the join at 1.5 s: main ends at 1.75 s.
    let (r, p) = run(&spawn_join(0.25, "spin"));
    assert_eq!(life(&p, 1), (1000 * MS, 1250 * MS));
    assert_eq!(r.makespan_ns, 1750 * MS);
    assert_eq!(r.threads[0].spin_ns, 0);
}

#[test]
fn a_blocked_joiner_wakes_after_the_machines_wake_up_latency() {
    // As a lock's hand-off (`lock_wake_us`): the join's futex wake-up costs main 50 µs.
    let (r, _) = run_on(&format!("lock_wake_us = 50\n{FOUR}"), &spawn_join(2.0, "block"), SimConfig::default().seed);
    assert_eq!(r.makespan_ns, 3250 * MS + 50_000);
}

/// A producer making 5 items of 100 ms, posting each; a consumer taking each (with `wait`)
/// and spending `consume` instructions on it.
fn producer_consumer(consume: f64, wait: &str) -> String {
    format!(
        "[[app]]\nname = \"pc\"\n{}{}",
        group("producer", "repeat = 5", &[&compute(1e8), "kind = \"sem_post\"\nsemaphore = \"items\""]),
        group("consumer", "repeat = 5", &[&format!("kind = \"sem_wait\"\nsemaphore = \"items\"\nwait = \"{wait}\""), &compute(consume)])
    )
}

#[test]
fn a_consumer_waits_for_each_item_the_producer_posts() {
    // Items are posted at 100, 200, ..., 500 ms. A consumer of 200 ms an item is the
    // bottleneck: it waits only for the first and ends at 100 + 5 × 200 = 1100 ms.
    let (r, _) = run(&producer_consumer(2e8, "spin"));
    assert_eq!(r.makespan_ns, 1100 * MS);
    assert_eq!(r.threads[1].spin_ns, 100 * MS);
    // One of 50 ms waits for every item: 100 ms, then 50 ms four times; it ends at 550 ms.
    let (r, _) = run(&producer_consumer(5e7, "spin"));
    assert_eq!(r.makespan_ns, 550 * MS);
    assert_eq!(r.threads[1].spin_ns, 300 * MS);
    let (r, _) = run(&producer_consumer(5e7, "block"));
    assert_eq!(r.makespan_ns, 550 * MS);
    assert_eq!(r.threads[1].spin_ns, 0);
}

#[test]
fn a_post_wakes_the_longest_waiters_one_unit_each() {
    // c1 waits from 10 ms, c2 from 20 ms. The producer posts 1 at 50 ms: c1, the longest
    // waiter, goes and reaches its second wait at 150 ms. Then the producer posts 2 at 150 ms:
    // one for c2, one for c1's second wait (whichever of the post and that wait comes first):
    // both end at 250 ms. Woken out of order, c2 would end at 150 ms and c1 at 350.
    let text = format!(
        "[[app]]\nname = \"fifo\"\n{}{}{}",
        group("producer", "", &[&compute(5e7), "kind = \"sem_post\"\nsemaphore = \"s\"", &compute(1e8), "kind = \"sem_post\"\nsemaphore = \"s\"\ncount = 2"]),
        group("c1", "", &[&compute(1e7), "kind = \"sem_wait\"\nsemaphore = \"s\"", &compute(1e8), "kind = \"sem_wait\"\nsemaphore = \"s\"", &compute(1e8)]),
        group("c2", "", &[&compute(2e7), "kind = \"sem_wait\"\nsemaphore = \"s\"", &compute(1e8)])
    );
    let (r, p) = run(&text);
    assert_eq!(life(&p, 2).1, 250 * MS);
    assert_eq!(life(&p, 1).1, 250 * MS);
    assert_eq!(r.makespan_ns, 250 * MS);
}

#[test]
fn a_semaphores_initial_count_lets_that_many_waiters_through() {
    // Initial 2, three takers of one unit each (a group of three): two go at once, the third
    // waits for the post at 300 ms; each then computes 100 ms.
    let text = format!(
        "[[app]]\nname = \"init\"\n[[app.semaphore]]\nname = \"s\"\ninitial = 2\n{}{}",
        group("poster", "", &[&compute(3e8), "kind = \"sem_post\"\nsemaphore = \"s\""]),
        group("takers", "count = 3", &["kind = \"sem_wait\"\nsemaphore = \"s\"", &compute(1e8)])
    );
    let (r, p) = run(&text);
    let mut ends: Vec<u64> = (1..4).map(|t| life(&p, t).1).collect();
    ends.sort();
    assert_eq!(ends, vec![100 * MS, 100 * MS, 400 * MS]);
    assert_eq!(r.makespan_ns, 400 * MS);
}

#[test]
fn a_named_barrier_of_three_among_four_threads_is_reusable() {
    // a, b, c meet twice at barrier "b3" (parties = 3); d takes no part. Round one: arrivals at
    // 100, 200, 300 ms, release at 300. Round two: a at 600, b at 500, c at 400: release at
    // 600. Each then computes 100 ms: 700 ms. d computes 400 ms alone. Spinning, a waits
    // 200 ms (round one) and 0 (it is last in round two); b 100 + 100; c 0 + 200.
    let bar = "kind = \"barrier\"\nbarrier = \"b3\"\nparties = 3\nwait = \"spin\"";
    let text = format!(
        "[[app]]\nname = \"bar\"\n{}{}{}{}",
        group("a", "", &[&compute(1e8), bar, &compute(3e8), bar, &compute(1e8)]),
        group("b", "", &[&compute(2e8), bar, &compute(2e8), bar, &compute(1e8)]),
        group("c", "", &[&compute(3e8), bar, &compute(1e8), bar, &compute(1e8)]),
        group("d", "", &[&compute(4e8)])
    );
    let (r, p) = run(&text);
    assert_eq!(r.makespan_ns, 700 * MS);
    assert_eq!([life(&p, 0).1, life(&p, 1).1, life(&p, 2).1, life(&p, 3).1], [700 * MS, 700 * MS, 700 * MS, 400 * MS]);
    let spins: Vec<u64> = r.threads.iter().map(|t| t.spin_ns).collect();
    assert_eq!(spins, vec![200 * MS, 200 * MS, 200 * MS, 0]);
}

#[test]
fn restarts_spawn_again_and_reset_semaphores() {
    // Per run: the producer computes 200 ms and posts 2; the consumer waits for one and
    // computes 100 ms: 300 ms. A unit left over from run one would let run two's consumer go at
    // once; reset, both runs take 300 ms. The spawned consumer starts anew in each run.
    let text = format!(
        "[[app]]\nname = \"again\"\nruns = 2\n{}{}",
        group("producer", "", &["kind = \"spawn\"\ngroup = \"consumer\"", &compute(2e8), "kind = \"sem_post\"\nsemaphore = \"s\"\ncount = 2"]),
        group("consumer", "start = \"spawned\"", &["kind = \"sem_wait\"\nsemaphore = \"s\"", &compute(1e8)])
    );
    let (r, p) = run(&text);
    assert_eq!(r.apps[0].turnarounds_ns, vec![300 * MS, 300 * MS]);
    assert_eq!(r.threads.len(), 4);
    assert_eq!(life(&p, 1), (0, 300 * MS));
    assert_eq!(life(&p, 3), (300 * MS, 600 * MS));
}

#[test]
fn same_seed_same_run() {
    // More threads than cores, so the local scheduler's draws matter: eight consumers of one
    // spawned group, a named barrier among them and the producer, on two cores.
    let text = format!(
        "[[app]]\nname = \"det\"\n{}{}",
        group(
            "main",
            "",
            &[
                &compute(1e7),
                "kind = \"spawn\"\ngroup = \"pool\"",
                "kind = \"sem_post\"\nsemaphore = \"s\"\ncount = 8",
                &compute(3e7),
                "kind = \"sem_post\"\nsemaphore = \"s\"\ncount = 8",
                "kind = \"barrier\"\nbarrier = \"all\"\nparties = 9",
                "kind = \"join\"\ngroup = \"pool\"",
            ]
        ),
        group(
            "pool",
            "count = 8\nstart = \"spawned\"",
            &[
                "kind = \"sem_wait\"\nsemaphore = \"s\"\nwait = \"spin_then_block\"\nspin_limit_us = 100",
                &compute(1e7),
                "kind = \"sem_wait\"\nsemaphore = \"s\"",
                &compute(2e7),
                "kind = \"barrier\"\nbarrier = \"all\"\nparties = 9",
                &compute(1e6),
            ]
        )
    );
    let two_cores = "[[core_type]]\nname = \"c\"\ncount = 2\nfreq_ghz = 1.0\n";
    let (one, _) = run_on(two_cores, &text, 7);
    let (two, _) = run_on(two_cores, &text, 7);
    assert_eq!(one.makespan_ns, two.makespan_ns);
    assert_eq!(one.segments, two.segments);
    // 1e7 + 3e7 for main, 8 × (1e7 + 2e7 + 1e6) for the pool: every instruction retired once.
    assert_eq!(one.instructions(), 4e7 + 8.0 * 3.1e7);
    // Two cores, all of that work and nothing idle once the pool runs: at least its CPU time.
    assert!(one.makespan_ns >= (2.88e8 / 2.0) as u64, "{}", one.makespan_ns);
}

fn deadlock_of(text: &str) -> String {
    let err = try_simulate(&machine(FOUR), &workload(text)).unwrap_err().to_string();
    assert!(!err.contains('\n'), "{err}");
    err
}

#[test]
fn deadlocks_end_in_one_error_naming_the_app_group_and_phase() {
    // A semaphore posted once and waited for twice: the consumer waits at 200 ms for good.
    let err = deadlock_of(&format!(
        "[[app]]\nname = \"rec\"\n{}{}",
        group("p", "", &[&compute(1e8), "kind = \"sem_post\"\nsemaphore = \"s\""]),
        group("c", "", &["kind = \"sem_wait\"\nsemaphore = \"s\"", &compute(1e8), "kind = \"sem_wait\"\nsemaphore = \"s\""])
    ));
    assert!(err.starts_with("the workload can never finish: at t=0.200000 s no thread can make progress"), "{err}");
    assert!(err.contains("app 'rec' group 'c' thread 0 waits for semaphore 's' (at 0, no thread left to post it) (phase 2)"), "{err}");
    assert!(err.contains("a semaphore posted fewer times than it is waited for"), "{err}");
    // A join before the spawn it waits for.
    let err = deadlock_of(&format!(
        "[[app]]\nname = \"rec\"\n{}{}",
        group("main", "", &[&compute(1e8), "kind = \"join\"\ngroup = \"w\"", "kind = \"spawn\"\ngroup = \"w\""]),
        group("w", "start = \"spawned\"", &[&compute(1e8)])
    ));
    assert!(err.contains("at t=0.100000 s"), "{err}");
    assert!(err.contains("group 'main' thread 0 waits for group 'w' to exit (joins it), which was never spawned (phase 1)"), "{err}");
    // A barrier of three that only two threads reach.
    let bar = "kind = \"barrier\"\nbarrier = \"b\"\nparties = 3";
    let err = deadlock_of(&format!(
        "[[app]]\nname = \"rec\"\n{}{}{}",
        group("x", "", &[&compute(1e8), bar]),
        group("y", "", &[&compute(2e8), bar]),
        group("z", "", &[&compute(3e8)])
    ));
    assert!(err.contains("at t=0.300000 s"), "{err}");
    assert!(err.contains("group 'y' thread 0 waits for barrier 'b' (2 of 3 parties arrived) (phase 1)"), "{err}");
    // Spinning waiters stay on their cores, but wait all the same: the same error, not a run
    // that spins to its budget.
    let err = deadlock_of(&format!(
        "[[app]]\nname = \"rec\"\n{}{}{}",
        group("x", "", &[&compute(1e8), &format!("{bar}\nwait = \"spin\"")]),
        group("y", "", &[&compute(2e8), &format!("{bar}\nwait = \"spin\"")]),
        group("z", "", &[&compute(3e8)])
    ));
    assert!(err.contains("at t=0.300000 s") && err.contains("waits for barrier 'b' (2 of 3 parties arrived)"), "{err}");
}

#[test]
fn an_apps_deadlock_is_found_while_other_apps_run_on() {
    // Under constant load the long app restarts until every app has completed its runs, which
    // the stuck one never will: without a check of the app alone this would run to the budget.
    // The stuck app's consumer waits at 0 for good, the moment its producer exits (100 ms).
    let text = format!(
        "constant_load = true\n[[app]]\nname = \"long\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e10\n\
         [[app]]\nname = \"stuck\"\n{}{}",
        group("p", "", &[&compute(1e8), "kind = \"sem_post\"\nsemaphore = \"s\""]),
        group("c", "", &["kind = \"sem_wait\"\nsemaphore = \"s\"", "kind = \"sem_wait\"\nsemaphore = \"s\"", &compute(1e8)])
    );
    let err = deadlock_of(&text);
    assert!(err.starts_with("the workload can never finish: at t=0.100000 s no thread of app 'stuck' can make progress"), "{err}");
    assert!(err.contains("group 'c' thread 0 waits for semaphore 's'") && err.contains("(phase 1)"), "{err}");
    assert!(!err.contains("'long'"), "{err}");
}
