//! Pipelines (docs/pipelines.md): stages run by thread pools between bounded queues, as the
//! pthreads versions of PARSEC's bodytrack, dedup and ferret. Makespans derived by hand from the
//! model: at CPI 1 without misses on a 1 GHz core, 1e6 instructions take 1 ms.

use ampsched_model::workload::Programs;
use ampsched_model::{CoreSet, Trigger, Workload};
use ampsched_sim::RunResult;

use crate::common::{machine, simulate, simulate_seeded};

const MS: u64 = 1_000_000;

/// Four 1 GHz cores: one for each thread of the pipelines below, so no thread waits for a core.
const FOUR_CORES: &str = "[[core_type]]\nname = \"c\"\ncount = 4\nfreq_ghz = 1.0\n";

fn workload(text: &str) -> Workload {
    Workload::from_toml("w.toml", text, &Programs::new()).unwrap()
}

/// A source making `items` items of 1 ms, a middle stage of `pool` threads at 3 ms an item, a
/// last stage at 1 ms; queues of `capacity`.
fn three_stages(items: u32, pool: u32, capacity: u32) -> Workload {
    workload(&format!(
        "[[app]]\nname = \"p\"\n\
         [[app.queue]]\nname = \"q1\"\ncapacity = {capacity}\n[[app.queue]]\nname = \"q2\"\ncapacity = {capacity}\n\
         [[app.group]]\nname = \"a\"\ncount = 1\n[[app.group.phase]]\nkind = \"stage\"\noutput = \"q1\"\nitems = {items}\ninstructions = 1e6\n\
         [[app.group]]\nname = \"b\"\ncount = {pool}\n[[app.group.phase]]\nkind = \"stage\"\ninput = \"q1\"\noutput = \"q2\"\ninstructions = 3e6\n\
         [[app.group]]\nname = \"c\"\ncount = 1\n[[app.group.phase]]\nkind = \"stage\"\ninput = \"q2\"\ninstructions = 1e6\n"
    ))
}

fn run(w: &Workload) -> RunResult {
    simulate(&machine(FOUR_CORES), w, None, |_, _| {})
}

/// When thread `t` last left a core.
fn last_on_cpu(r: &RunResult, t: u32) -> u64 {
    r.segments.iter().filter(|s| s.thread == t).map(|s| s.end_ns).max().unwrap()
}

#[test]
fn a_three_stage_pipeline_takes_fill_plus_items_times_the_bottleneck_plus_drain() {
    // Item i leaves stage k at C[k][i] = max(C[k-1][i], C[k][i-1]) + t_k: the source makes item
    // i at i + 1 ms, the 3 ms stage finishes it at 4 + 3i, the last stage at 5 + 3i. Ten items:
    // 1 (fill) + 10 × 3 (bottleneck) + 1 (drain) = 32 ms.
    let r = run(&three_stages(10, 1, 100));
    assert_eq!(r.makespan_ns, 32 * MS);
    // Every item passed every stage once: 10 × (1 + 3 + 1) ms of work.
    assert_eq!(r.instructions(), 10.0 * 5e6);
}

#[test]
fn a_pool_of_two_threads_in_the_slow_stage_halves_its_part() {
    // The two threads of the 3 ms stage take the items as they come, one each in turn: item 2k
    // leaves it at 4 + 3k, item 2k+1 at 5 + 3k (its second thread starts 1 ms later). The last
    // stage (1 ms) follows each at once: item 9 (k = 4) arrives at 17 and leaves at 18 ms,
    // 1 + 10 × 3 / 2 + 1 + 1: the bottleneck's 30 ms halved, and the pair's 1 ms stagger.
    let r = run(&three_stages(10, 2, 100));
    assert_eq!(r.makespan_ns, 18 * MS);
    let pool: Vec<_> = r.threads.iter().filter(|t| t.group == 1).collect();
    assert_eq!(pool.len(), 2);
    for t in pool {
        // Five items each.
        assert_eq!(t.per_type[0].instructions, 5.0 * 3e6, "thread {}", t.id);
    }
}

#[test]
fn a_full_queue_holds_its_producer_back_and_never_holds_more_than_its_capacity() {
    // Source 1 ms an item, consumer 3 ms, queue of 1, no third stage. The consumer gets item 0 at
    // 1 ms from the producer's hand; item 1 waits in the queue; item 2 (made at 3) finds it full.
    // From then on each item the consumer takes (at 1 + 3k) lets one in, and the producer makes
    // one more: item m (m ≥ 3) is made at 3m − 4 ms, the last (m = 9) at 23 ms, where an
    // unbounded queue would let the producer finish at 10 ms. The consumer ends item 9 at
    // 4 + 27 = 31 ms.
    let two_stages = |capacity: u32| {
        workload(&format!(
            "[[app]]\nname = \"p\"\n[[app.queue]]\nname = \"q\"\ncapacity = {capacity}\n\
             [[app.group]]\nname = \"a\"\ncount = 1\n[[app.group.phase]]\nkind = \"stage\"\noutput = \"q\"\nitems = 10\ninstructions = 1e6\n\
             [[app.group]]\nname = \"b\"\ncount = 1\n[[app.group.phase]]\nkind = \"stage\"\ninput = \"q\"\ninstructions = 3e6\n"
        ))
    };
    let bounded = run(&two_stages(1));
    assert_eq!(last_on_cpu(&bounded, 0), 23 * MS);
    assert_eq!(bounded.makespan_ns, 31 * MS);
    assert_eq!(bounded.apps[0].queue_peak, [1]);
    let loose = run(&two_stages(100));
    assert_eq!(last_on_cpu(&loose, 0), 10 * MS);
    assert_eq!(loose.makespan_ns, 31 * MS);
    // Items 1..9 queue up while the consumer works through them: never more than nine.
    assert!(loose.apps[0].queue_peak[0] <= 9, "{:?}", loose.apps[0].queue_peak);
    for capacity in [2, 3, 5] {
        let r = run(&two_stages(capacity));
        assert_eq!(r.apps[0].queue_peak, [capacity], "capacity {capacity}");
        assert_eq!(r.makespan_ns, 31 * MS, "the consumer is the bottleneck whatever the capacity");
    }
}

#[test]
fn an_ordered_stage_processes_items_in_the_order_they_were_made() {
    // Two 1 GHz cores and one at 0.25 GHz. A source pool of two, one thread on a fast core (1 ms
    // an item) and one on the slow core (4 ms); a sink of 0.5 ms an item on the other fast core.
    // At 0 the fast thread claims item 0 and the slow one item 1; the fast one then makes items
    // 2, 3, 4 (at 2, 3, 4 ms), the slow one item 1 at 4 ms. Unordered, the sink processes each
    // as it comes (0 at 1, 2 at 2, 3 at 3, then 4 and 1 from 4 ms) and ends at 5 ms. Ordered,
    // it processes 0 at 1 ms, keeps 2 and 3 waiting for 1, and runs 1, 2, 3, 4 from 4 to 6 ms.
    let m = machine("[[core_type]]\nname = \"fast\"\ncount = 2\nfreq_ghz = 1.0\n[[core_type]]\nname = \"slow\"\ncount = 1\nfreq_ghz = 0.25\n");
    let w = |ordered: bool| {
        workload(&format!(
            "[[app]]\nname = \"p\"\n[[app.queue]]\nname = \"q\"\ncapacity = 4\n\
             [[app.group]]\nname = \"a\"\ncount = 2\n[[app.group.phase]]\nkind = \"stage\"\noutput = \"q\"\nitems = 5\ninstructions = 1e6\n\
             [[app.group]]\nname = \"w\"\ncount = 1\n[[app.group.phase]]\nkind = \"stage\"\ninput = \"q\"\nordered = {ordered}\ninstructions = 5e5\n"
        ))
    };
    // Source thread 0 on core 0, source thread 1 on the slow core 2, the sink on core 1.
    let place = |v: &ampsched_model::SystemView, out: &mut ampsched_model::Placement| {
        if let Trigger::Start(t) = v.trigger {
            out.set(t, CoreSet::single([0, 2, 1][t as usize]));
        }
    };
    assert_eq!(simulate(&m, &w(false), None, place).makespan_ns, 5 * MS);
    let ordered = simulate(&m, &w(true), None, place);
    assert_eq!(ordered.makespan_ns, 6 * MS);
    // The early items left the queue for the sink's reorder buffer as they came.
    assert_eq!(ordered.apps[0].queue_peak, [1]);
}

#[test]
fn per_item_io_is_time_off_the_cpu() {
    // A source reading 2 ms per item off the CPU before 1 ms of work, ten items, a sink of 1 ms:
    // the source makes item i at 3(i + 1) ms, the sink ends the last at 31 ms; the source was on
    // a CPU for only 10 ms of it.
    let w = workload(
        "[[app]]\nname = \"p\"\n[[app.queue]]\nname = \"q\"\ncapacity = 2\n\
         [[app.group]]\nname = \"a\"\ncount = 1\n[[app.group.phase]]\nkind = \"stage\"\noutput = \"q\"\nitems = 10\ninstructions = 1e6\nio_seconds = 0.002\n\
         [[app.group]]\nname = \"b\"\ncount = 1\n[[app.group.phase]]\nkind = \"stage\"\ninput = \"q\"\ninstructions = 1e6\n",
    );
    let r = run(&w);
    assert_eq!(r.makespan_ns, 31 * MS);
    assert_eq!(r.threads[0].per_type[0].time_ns, 10 * MS);
}

#[test]
fn a_main_thread_hands_out_each_frames_work_and_collects_it() {
    // bodytrack's shape (docs/pipelines.md): per frame, main computes 1 ms, hands out 4 pieces of
    // work (0.1 ms each to hand out), and collects the 4 results (0.1 ms each); three workers of
    // 3 ms a piece. Frame: 1 ms; pieces handed out at 1.1, 1.2, 1.3, 1.4; workers end pieces 0-2
    // at 4.1, 4.2, 4.3, the first free one takes piece 3 at 4.1 and ends it at 7.1; main collects
    // 4.1-4.2, 4.2-4.3, 4.3-4.4, 7.1-7.2: a frame of 7.2 ms, two frames 14.4 ms.
    let w = workload(
        "[[app]]\nname = \"b\"\n[[app.queue]]\nname = \"work\"\ncapacity = 8\n[[app.queue]]\nname = \"done\"\ncapacity = 8\n\
         [[app.group]]\nname = \"main\"\ncount = 1\nrepeat = 2\n\
         [[app.group.phase]]\nkind = \"compute\"\ninstructions = 1e6\n\
         [[app.group.phase]]\nkind = \"stage\"\noutput = \"work\"\nitems = 4\ninstructions = 1e5\n\
         [[app.group.phase]]\nkind = \"stage\"\ninput = \"done\"\ninstructions = 1e5\n\
         [[app.group]]\nname = \"workers\"\ncount = 3\nrepeat = 2\n\
         [[app.group.phase]]\nkind = \"stage\"\ninput = \"work\"\noutput = \"done\"\ninstructions = 3e6\n",
    );
    let r = run(&w);
    assert_eq!(r.makespan_ns, 14_400_000);
    // The workers' queue quota is per frame: four pieces each frame, eight in all.
    let pieces: f64 = r.threads.iter().filter(|t| t.group == 1).map(|t| t.per_type[0].instructions).sum();
    assert_eq!(pieces, 8.0 * 3e6);
}

/// On the paper's machine (4 Cortex-A15 at 1.6 GHz, 4 Cortex-A7 at 0.8 GHz, catalog) each of
/// eight threads bound to its own core: a pool taking items from a queue against the same work
/// split in eight equal parts.
#[test]
fn on_exynos5422_an_application_level_pool_uses_the_big_cores_more_than_equal_partitioning() {
    let m = ampsched_model::Machine::from_toml("exynos5422.toml", include_str!("../../../../catalog/machines/exynos5422.toml")).unwrap();
    // Per item 1.6e6 instructions: 1 ms on an A15 (CPI 1 at 1.6 GHz), 3 ms on an A7 (CPI 1.5 at
    // 0.8 GHz): the paper's average big/little ratio is 2.96 (Table I).
    const ITEMS: u32 = 160;
    let cpi = "cpi = { \"cortex-a15\" = 1.0, \"cortex-a7\" = 1.5 }";
    let pool = workload(&format!(
        "[[app]]\nname = \"pool\"\n[[app.queue]]\nname = \"q\"\ncapacity = 16\n\
         [[app.group]]\nname = \"workers\"\ncount = 8\n[[app.group.phase]]\nkind = \"stage\"\ninput = \"q\"\ninstructions = 1.6e6\n{cpi}\n\
         [[app.group]]\nname = \"source\"\ncount = 1\n[[app.group.phase]]\nkind = \"stage\"\noutput = \"q\"\nitems = {ITEMS}\ninstructions = 1.6e3\n{cpi}\n"
    ));
    let equal = workload(&format!(
        "[[app]]\nname = \"equal\"\n[[app.group]]\nname = \"workers\"\ncount = 8\nwork = \"shared\"\n\
         [[app.group.phase]]\nkind = \"compute\"\ninstructions = {}\n{cpi}\n",
        ITEMS as f64 * 1.6e6
    ));
    // Worker i on core i; the pool's source on any core (its items cost 1 µs on an A15).
    let pinned = |v: &ampsched_model::SystemView, out: &mut ampsched_model::Placement| {
        if let Trigger::Start(t) = v.trigger {
            if v.thread(t).group == 0 {
                out.set(t, CoreSet::single(v.thread(t).index_in_group as usize));
            }
        }
    };
    let on_big = |r: &RunResult| r.threads.iter().map(|t| t.per_type[0].instructions).sum::<f64>() / r.instructions();
    let e = simulate(&m, &equal, None, pinned);
    let p = simulate(&m, &pool, None, pinned);
    // Equal parts: 20 items a thread; the A7s take 60 ms, the A15s are done at 20 ms and wait.
    assert_eq!(on_big(&e), 0.5);
    assert_eq!(e.makespan_ns, 60 * MS);
    // The pool: the eight cores retire 4 × 1 + 4 × 1/3 items a ms, so the 160 items take 30 ms,
    // three quarters of them on the A15s. Each A15 item is 1 ms, so the A15s take 120 items and
    // the A7s 40 (10 each in 30 ms); the source's hand-off (1 µs a item) may shift an item.
    let share = on_big(&p);
    assert!((share - 0.75).abs() <= 2.0 / ITEMS as f64 + 0.01, "A15 share of the pool's work: {share}");
    assert!(p.makespan_ns <= 31 * MS, "pool makespan {} ns", p.makespan_ns);
    assert!(p.apps[0].queue_peak[0] <= 16);
}

#[test]
fn same_seed_same_run() {
    // Three pools of two on four cores: threads compete for cores, the local scheduler draws.
    let w = workload(
        "[[app]]\nname = \"p\"\n[[app.queue]]\nname = \"q1\"\ncapacity = 3\n[[app.queue]]\nname = \"q2\"\ncapacity = 2\n\
         [[app.group]]\nname = \"a\"\ncount = 2\n[[app.group.phase]]\nkind = \"stage\"\noutput = \"q1\"\nitems = 50\ninstructions = 1e6\n\
         [[app.group]]\nname = \"b\"\ncount = 2\n[[app.group.phase]]\nkind = \"stage\"\ninput = \"q1\"\noutput = \"q2\"\ninstructions = 2.5e6\nwait = \"spin_then_block\"\nspin_limit_us = 100\n\
         [[app.group]]\nname = \"c\"\ncount = 2\n[[app.group.phase]]\nkind = \"stage\"\ninput = \"q2\"\ninstructions = 1e6\n",
    );
    let m = machine(FOUR_CORES);
    let one = simulate_seeded(&m, &w, None, 7, |_, _| {});
    let two = simulate_seeded(&m, &w, None, 7, |_, _| {});
    assert_eq!(one.makespan_ns, two.makespan_ns);
    assert_eq!(one.segments, two.segments);
    assert_eq!(one.instructions(), 50.0 * 4.5e6);
    assert!(one.apps[0].queue_peak.iter().zip([3, 2]).all(|(p, c)| *p <= c), "{:?}", one.apps[0].queue_peak);
}

#[test]
fn a_pipeline_that_cannot_finish_ends_in_an_error_naming_the_queue() {
    // One thread fills a queue of one before it empties it: its second put waits for room that
    // only it could make.
    let w = workload(
        "[[app]]\nname = \"p\"\n[[app.queue]]\nname = \"q\"\ncapacity = 1\n\
         [[app.group]]\nname = \"main\"\ncount = 1\n\
         [[app.group.phase]]\nkind = \"stage\"\noutput = \"q\"\nitems = 3\ninstructions = 1e6\n\
         [[app.group.phase]]\nkind = \"stage\"\ninput = \"q\"\ninstructions = 1e6\n",
    );
    let err = crate::common::try_simulate(&machine(FOUR_CORES), &w).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("room in queue 'q' (full: 1 items)"), "{text}");
    assert!(!text.contains('\n'), "{text}");
}

#[test]
fn bad_pipelines_are_refused_with_one_line_naming_the_key() {
    let head = "[[app]]\nname = \"p\"\n";
    let q = |name: &str, capacity: &str| format!("[[app.queue]]\nname = \"{name}\"\ncapacity = {capacity}\n");
    let stage = |group: &str, count: &str, keys: &str| {
        format!("[[app.group]]\nname = \"{group}\"\ncount = {count}\n[[app.group.phase]]\nkind = \"stage\"\ninstructions = 1e6\n{keys}\n")
    };
    let source = stage("a", "1", "output = \"q\"\nitems = 4");
    let sink = stage("b", "1", "input = \"q\"");
    let cases = [
        (format!("{head}{}{source}", q("q", "2")), "app[0].queue", "queue 'q' has no consumer"),
        (format!("{head}{}{sink}", q("q", "2")), "app[0].queue", "queue 'q' has no producer"),
        (format!("{head}{}{source}{sink}", q("q", "0")), "capacity", "from 1 to 1048576, got 0"),
        (format!("{head}{}{source}{}", q("q", "2"), stage("b", "1", "input = \"r\"")), "input", "unknown queue 'r' (declared: q)"),
        (format!("{head}{source}{sink}"), "output", "unknown queue 'q': none is declared"),
        (format!("{head}{}{source}{sink}{}", q("q", "2"), stage("c", "1", "input = \"q\"")), "app[0].queue", "two consuming stages (groups 'b' and 'c')"),
        (format!("{head}{}{source}{}", q("q", "2"), stage("b", "1", "input = \"q\"\nitems = 3")), "items", "only a stage without input"),
        (format!("{head}{}{}{sink}", q("q", "2"), stage("a", "1", "output = \"q\"")), "items", "missing"),
        (
            format!("{head}{}{source}{}", q("q", "2"), stage("b", "2", "input = \"q\"\nordered = true")),
            "app[0].group",
            "ordered stage with more than one thread",
        ),
        (format!("{head}{}{}", q("q", "2"), stage("a", "1", "output = \"q\"\ninput = \"q\"")), "output", "back in the queue it takes them from"),
        (
            format!(
                "{head}{}{}{}{}",
                q("x", "1"),
                q("y", "1"),
                stage("a", "1", "input = \"x\"\noutput = \"y\""),
                stage("b", "1", "input = \"y\"\noutput = \"x\"")
            ),
            "app[0].queue",
            "queues x, y form a cycle",
        ),
        (
            format!("{head}{}{source}{}", q("q", "2"), stage("b", "1", "input = \"q\"").replace("count = 1\n", "count = 1\nrepeat = 3\n")),
            "app[0].queue",
            "receives 4 items over a run",
        ),
        (format!("{head}{}{source}{sink}", q("q", "2").repeat(2)), "name", "duplicate queue name 'q'"),
        (
            format!("{head}{}{source}{sink}", q("q", "2")).replace("kind = \"stage\"", "kind = \"stages\""),
            "kind",
            "expected compute, serial, barrier, critical, sleep or stage",
        ),
    ];
    for (text, key, what) in cases {
        let err = Workload::from_toml("w.toml", &text, &Programs::new()).unwrap_err().to_string();
        assert!(err.starts_with("w.toml") && err.contains(key) && err.contains(what), "want '{key}' and '{what}', got: {err}\n{text}");
        assert!(!err.contains('\n'), "{err}");
    }
}
