//! `record::convert` on hand-made recordings whose structure is known: each test writes the
//! samples and events a program of that structure would give, and checks the workload file's
//! phases (read back with the model's workload reader) against numbers derived by hand.
//!
//! The machine: a fast type at 2 GHz and a slow one at 1 GHz, both CPI scale 1. Every thread here
//! runs on the fast type, so each ms of CPU time is 2,000,000 instructions at CPI 1.

use ampsched_agent::record::convert::{convert, ConvertOptions};
use ampsched_agent::record::recording::{RecordedThread, Recording, Sample, SyncEvent, RECORDING_VERSION};
use ampsched_model::workload::{Phase, Programs, Workload};

const MACHINE: &str = r#"name = "rec-test"
memory_latency_ns = 100.0
[[core_type]]
name = "fast"
count = 2
freq_ghz = 2.0
[[core_type]]
name = "slow"
count = 2
freq_ghz = 1.0
"#;

/// Instructions per ms of fast-type CPU time at CPI 1 (2 GHz).
const PER_MS: f64 = 2e6;
const INTERVAL_MS: f64 = 10.0;

fn ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

/// A thread sampled every `INTERVAL_MS` from `from_ms` (exclusive) to `to_ms`, with the CPU time
/// `cpu(t)` (ms at t ms), all on the fast type; exited at `to_ms`.
fn thread(tid: u32, comm: &str, from_ms: f64, to_ms: f64, cpu: impl Fn(f64) -> f64) -> RecordedThread {
    let mut samples = Vec::new();
    let mut t = from_ms + INTERVAL_MS;
    while t <= to_ms + 1e-9 {
        let c = ns(cpu(t));
        samples.push(Sample {
            t_ns: ns(t),
            cpu_ns: c,
            runq_ns: 0,
            cpu_ns_per_type: vec![c, 0],
            instructions: None,
            cycles: None,
            llc_misses: None,
            state: 'S',
        });
        t += INTERVAL_MS;
    }
    RecordedThread { tid, pid: 100, comm: comm.into(), parent: None, first_seen_ns: ns(from_ms), exit_ns: Some(ns(to_ms)), samples }
}

fn recording(threads: Vec<RecordedThread>, mut events: Vec<SyncEvent>, wall_ms: f64) -> Recording {
    events.sort_by_key(|e| match *e {
        SyncEvent::Create { t_ns, .. } | SyncEvent::Exit { t_ns, .. } | SyncEvent::MutexRelease { t_ns, .. } | SyncEvent::CondSignal { t_ns, .. } => t_ns,
        SyncEvent::MutexWait { start_ns, .. }
        | SyncEvent::CondWait { start_ns, .. }
        | SyncEvent::Join { start_ns, .. }
        | SyncEvent::BarrierWait { start_ns, .. } => start_ns,
    });
    Recording {
        version: RECORDING_VERSION,
        command: None,
        machine_toml: MACHINE.into(),
        policy: "static".into(),
        interval_ns: ns(INTERVAL_MS),
        wall_ns: ns(wall_ms),
        exit_status: 0,
        counters: false,
        events_logged: true,
        notes: Vec::new(),
        events_lost: 0,
        incomplete: None,
        work_per_cpu_s: vec![1.0, 0.5],
        threads,
        events,
    }
}

fn read(toml: &str) -> Workload {
    Workload::from_toml("recorded.toml", toml, &Programs::new()).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

fn compute(p: &Phase) -> f64 {
    match p {
        Phase::Compute { instructions, .. } => *instructions,
        other => panic!("expected a compute phase, got {other:?}"),
    }
}

/// Instructions equal to within the file's rounding (whole instructions) and the ns rounding of
/// the hand-made clocks (a few ns of a 2 GHz core).
fn close(got: f64, want: f64) {
    assert!((got - want).abs() <= 8.0, "got {got} instructions, expected {want}");
}

/// Main (tid 100) creates three workers at CPU 0.25, 0.5 and 0.75 ms, runs to 1 ms and joins
/// them. Worker w computes c_w ms of each 50 ms period and waits at a barrier to the period's
/// end; c = 20, 30 and 50 ms, so the third never blocks (it is the last to arrive), over
/// `periods` periods.
fn barrier_program(periods: usize) -> Recording {
    let end = 50.0 * periods as f64;
    let mut threads = vec![thread(100, "main", 0.0, end, |t| t.min(1.0))];
    let mut events = Vec::new();
    for (k, c) in [20.0, 30.0, 50.0].into_iter().enumerate() {
        let tid = 101 + k as u32;
        threads.push(thread(tid, "worker", 0.0, end, move |t| {
            let p = (t / 50.0).floor();
            p * c + (t - p * 50.0).min(c)
        }));
        let at = 0.25 * (k + 1) as f64;
        events.push(SyncEvent::Create { t_ns: ns(at), parent: 100, parent_cpu_ns: ns(at), child: tid });
        events.push(SyncEvent::Exit { t_ns: ns(end), tid, cpu_ns: ns(c * periods as f64) });
        let start = if k == 0 { 1.0 } else { end };
        events.push(SyncEvent::Join { tid: 100, target: tid, start_ns: ns(start), end_ns: ns(end), cpu_ns: ns(1.0) });
    }
    recording(threads, events, end)
}

#[test]
fn a_barrier_every_50_ms_is_one_named_barrier_of_all_workers_repeated() {
    let out = convert(&barrier_program(10), &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let app = &w.apps[0];
    assert_eq!(app.groups.len(), 4);
    // Main: its 1 ms of work around the three spawns, then the joins.
    let main = &app.groups[0];
    assert_eq!(main.repeat, 1);
    let kinds: Vec<String> = main.phases.iter().map(|p| format!("{p:?}").split([' ', '{']).next().unwrap().to_string()).collect();
    assert_eq!(kinds, ["Compute", "Spawn", "Compute", "Spawn", "Compute", "Spawn", "Compute", "Join", "Join", "Join"], "{}", out.toml);
    for p in main.phases.iter().filter(|p| matches!(p, Phase::Compute { .. })) {
        close(compute(p), 0.25 * PER_MS);
    }
    assert!(matches!(main.phases[1], Phase::Spawn { group: 1 }) && matches!(main.phases[9], Phase::Join { group: 3, .. }));
    // Each worker: its c ms, then the barrier of the three, ten times.
    for (g, c) in [(1, 20.0), (2, 30.0), (3, 50.0)] {
        let grp = &app.groups[g];
        assert_eq!(grp.repeat, 10, "{}", out.toml);
        assert_eq!(grp.phases.len(), 2);
        close(compute(&grp.phases[0]), c * PER_MS);
        assert!(matches!(grp.phases[1], Phase::NamedBarrier { barrier: 0, parties: 3, .. }), "{:?}", grp.phases[1]);
    }
    let s = &out.summary;
    assert_eq!((s.inferred.barriers, s.inferred.barrier_instances, s.inferred.last_arrivals), (1, 10, 10));
    assert_eq!((s.measured.creations, s.measured.joins, s.inferred.spawns, s.inferred.sleeps), (3, 3, 0, 0));
    assert_eq!(s.phases, 10 + 3 * 2);
    assert!(out.toml.contains("# Inferred") && out.toml.contains("1 other barriers (10 meetings)"), "{}", out.toml);
}

/// `barrier_program` with its barrier logged (pthread_barrier_wait): worker w's call of period p
/// from its c_w ms of that period to the period's end, at CPU place (p + 1) c_w; the third
/// (c = 50 ms) arrives last, at the end, and returns PTHREAD_BARRIER_SERIAL_THREAD.
fn logged_barrier_program(periods: usize) -> Recording {
    let mut rec = barrier_program(periods);
    for (k, c) in [20.0, 30.0, 50.0].into_iter().enumerate() {
        for p in 0..periods {
            let (from, to) = (50.0 * p as f64, 50.0 * (p + 1) as f64);
            rec.events.push(SyncEvent::BarrierWait {
                barrier: 0xBA,
                tid: 101 + k as u32,
                start_ns: ns(from + c),
                end_ns: ns(to),
                cpu_ns: ns((p + 1) as f64 * c),
                serial: k == 2,
            });
        }
    }
    recording(rec.threads, rec.events, 50.0 * periods as f64)
}

#[test]
fn a_logged_barrier_is_one_measured_barrier_of_its_parties_met_each_round() {
    let out = convert(&logged_barrier_program(10), &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let app = &w.apps[0];
    assert_eq!(app.groups.len(), 4);
    // Each worker: its c ms, then the barrier of the three at its place after them, ten times
    // (the loop compressed as a repeat); the waits are the barrier's, not sleeps nor inferred.
    for (g, c) in [(1, 20.0), (2, 30.0), (3, 50.0)] {
        let grp = &app.groups[g];
        assert_eq!(grp.repeat, 10, "{}", out.toml);
        assert_eq!(grp.phases.len(), 2, "{}", out.toml);
        close(compute(&grp.phases[0]), c * PER_MS);
        assert!(matches!(grp.phases[1], Phase::NamedBarrier { barrier: 0, parties: 3, .. }), "{:?}", grp.phases[1]);
    }
    let (m, i) = (&out.summary.measured, &out.summary.inferred);
    assert_eq!((m.barriers, m.barrier_meetings, m.barrier_waits, m.barrier_waits_as_sleeps), (1, 10, 30, 0));
    assert_eq!((i.barriers, i.barrier_instances, i.last_arrivals, i.sleeps), (0, 0, 0, 0));
    assert!(out.toml.contains("30 pthread barrier waits at 1 barriers (10 meetings), 0 in no meeting"), "{}", out.toml);
    assert!(out.toml.contains("0 other barriers (0 meetings)"), "{}", out.toml);
}

#[test]
fn a_barrier_call_of_a_round_cut_off_is_a_sleep_and_the_parties_are_counted_per_meeting() {
    // Two rounds of the three, then a third where only the first two arrived before the
    // recording ended (no serial call): their calls are sleeps of their wait. The same address
    // initialised again for two parties (the first two workers alone, the first serial) is a
    // barrier of its own.
    let mut rec = logged_barrier_program(2);
    for k in 0..2u32 {
        rec.events.push(SyncEvent::BarrierWait {
            barrier: 0xBA,
            tid: 101 + k,
            start_ns: ns(100.0),
            end_ns: ns(100.0),
            cpu_ns: ns(2.0 * [20.0, 30.0][k as usize]),
            serial: false,
        });
    }
    let out = convert(&recording(rec.threads, rec.events, 100.0), &ConvertOptions::default()).unwrap();
    let m = &out.summary.measured;
    assert_eq!((m.barriers, m.barrier_meetings, m.barrier_waits, m.barrier_waits_as_sleeps), (1, 2, 6, 2), "{}", out.toml);
    let mut rec = logged_barrier_program(2);
    for k in 0..2u32 {
        let (start, end) = (ns(110.0 + 5.0 * k as f64), ns(120.0));
        rec.events.push(SyncEvent::BarrierWait {
            barrier: 0xBA,
            tid: 101 + k,
            start_ns: start,
            end_ns: end,
            cpu_ns: ns(2.0 * [20.0, 30.0][k as usize]),
            serial: k == 1,
        });
    }
    let out = convert(&recording(rec.threads, rec.events, 100.0), &ConvertOptions::default()).unwrap();
    let m = &out.summary.measured;
    assert_eq!((m.barriers, m.barrier_meetings, m.barrier_waits, m.barrier_waits_as_sleeps), (2, 3, 8, 0), "{}", out.toml);
    let w = read(&out.toml);
    let parties: Vec<(usize, usize)> = w.apps[0].groups[1..]
        .iter()
        .flat_map(|g| g.phases.iter())
        .filter_map(|p| if let Phase::NamedBarrier { barrier, parties, .. } = p { Some((*barrier, *parties as usize)) } else { None })
        .collect();
    assert!(parties.contains(&(0, 3)) && parties.contains(&(1, 2)) && parties.iter().all(|&p| p == (0, 3) || p == (1, 2)), "{parties:?}");
}

/// Thread a (tid 1) computes 100 ms, holding lock L from 40 to 50 ms; thread b (tid 2, created
/// by a at 0) computes, waits for L from 45 to 50 ms (a holds it), holds it to its CPU 47 ms and
/// computes to 95 ms of CPU time.
#[test]
fn a_contended_lock_is_critical_phases_on_one_lock_in_waiter_and_holder() {
    const L: u64 = 0x7f00_1000;
    let a = thread(1, "a", 0.0, 100.0, |t| t);
    let b = thread(2, "b", 0.0, 100.0, |t| {
        if t < 45.0 {
            t
        } else if t < 50.0 {
            45.0
        } else {
            t - 5.0
        }
    });
    let events = vec![
        SyncEvent::Create { t_ns: 0, parent: 1, parent_cpu_ns: 0, child: 2 },
        SyncEvent::MutexWait { lock: L, tid: 2, holder: 1, start_ns: ns(45.0), end_ns: ns(50.0), cpu_ns: ns(45.0) },
        SyncEvent::MutexRelease { lock: L, tid: 1, t_ns: ns(50.0), cpu_ns: ns(50.0) },
        SyncEvent::MutexRelease { lock: L, tid: 2, t_ns: ns(52.0), cpu_ns: ns(47.0) },
    ];
    let out = convert(&recording(vec![a, b], events, 100.0), &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let app = &w.apps[0];
    assert_eq!(app.locks.len(), 1);
    let critical = |p: &Phase| match p {
        Phase::Critical { lock, cs_instructions, between_instructions, count, .. } => (*lock, *between_instructions, *cs_instructions, *count),
        other => panic!("expected a critical phase, got {other:?}"),
    };
    // The holder: its section inferred from its place when b began waiting (45 ms) to its
    // release (50 ms): 5 ms, a lower bound of the 10 ms it held the lock; the 45 ms before as
    // the section's `between`, then its last 50 ms.
    let ga = &app.groups[0];
    assert!(matches!(ga.phases[0], Phase::Spawn { group: 1 }));
    assert_eq!(critical(&ga.phases[1]), (0, 45.0 * PER_MS, 5.0 * PER_MS, 1));
    close(compute(&ga.phases[2]), 50.0 * PER_MS);
    // The waiter: 45 ms before, its own section of 2 ms to its release, then 48 ms.
    let gb = &app.groups[1];
    assert_eq!(gb.phases.len(), 2, "{}", out.toml);
    assert_eq!(critical(&gb.phases[0]), (0, 45.0 * PER_MS, 2.0 * PER_MS, 1));
    close(compute(&gb.phases[1]), 48.0 * PER_MS);
    assert_eq!((out.summary.measured.mutex_waits, out.summary.inferred.holder_sections), (1, 1));
}

/// The producer (tid 1) makes an item every 10 ms and signals condition variable X; the consumer
/// (tid 2, created at 0) waits on X, then consumes for 2 ms; five items.
fn producer_consumer(items: usize, produce_ms: f64, consume_ms: impl Fn(usize) -> f64) -> Recording {
    const X: u64 = 0x7f00_2000;
    let end = produce_ms * items as f64;
    let d: Vec<f64> = (0..items).map(consume_ms).collect();
    let done: Vec<f64> = d
        .iter()
        .scan(0.0, |s, x| {
            *s += x;
            Some(*s)
        })
        .collect();
    let cons_cpu = {
        let (d, done) = (d.clone(), done.clone());
        move |t: f64| {
            // Item i is consumed from (i + 1) × produce_ms for d[i].
            let i = ((t / produce_ms).floor() as usize).min(items);
            if i == 0 {
                return 0.0;
            }
            let before = if i >= 2 { done[i - 2] } else { 0.0 };
            before + (t - i as f64 * produce_ms).min(d[i - 1])
        }
    };
    let last = end + d[items - 1];
    let producer = thread(1, "producer", 0.0, end, |t| t);
    // The consumer's last sample is the producer's last (both alive then); it exits after its
    // last item, which its Exit event says.
    let mut consumer = thread(2, "consumer", 0.0, end, cons_cpu);
    consumer.exit_ns = Some(ns(last));
    let mut events = vec![
        SyncEvent::Create { t_ns: 0, parent: 1, parent_cpu_ns: 0, child: 2 },
        SyncEvent::Exit { t_ns: ns(end), tid: 1, cpu_ns: ns(end) },
        SyncEvent::Exit { t_ns: ns(last), tid: 2, cpu_ns: ns(done[items - 1]) },
    ];
    for i in 0..items {
        let at = produce_ms * (i + 1) as f64;
        events.push(SyncEvent::CondSignal { cond: X, tid: 1, t_ns: ns(at), cpu_ns: ns(at), broadcast: false });
        let start = if i == 0 { 0.0 } else { produce_ms * i as f64 + d[i - 1] };
        let cpu = if i == 0 { 0.0 } else { done[i - 1] };
        events.push(SyncEvent::CondWait { cond: X, tid: 2, start_ns: ns(start), end_ns: ns(at), cpu_ns: ns(cpu), timed_out: false });
    }
    recording(vec![producer, consumer], events, last)
}

#[test]
fn a_producer_consumer_is_sem_post_and_sem_wait_pairs() {
    let out = convert(&producer_consumer(5, 10.0, |_| 2.0), &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let app = &w.apps[0];
    // The producer spawns, so it does not repeat: five times its 10 ms and a post.
    let p = &app.groups[0];
    assert_eq!((p.repeat, p.phases.len()), (1, 11), "{}", out.toml);
    for i in 0..5 {
        close(compute(&p.phases[1 + 2 * i]), 10.0 * PER_MS);
        assert!(matches!(p.phases[2 + 2 * i], Phase::SemPost { semaphore: 0, count: 1 }));
    }
    // The consumer: wait, 2 ms, five times.
    let c = &app.groups[1];
    assert_eq!((c.repeat, c.phases.len()), (5, 2), "{}", out.toml);
    assert!(matches!(c.phases[0], Phase::SemWait { semaphore: 0, .. }));
    close(compute(&c.phases[1]), 2.0 * PER_MS);
    let m = &out.summary.measured;
    assert_eq!((m.cond_waits_matched, m.cond_signals_matched, m.cond_waits_as_sleeps), (5, 5, 0));
}

#[test]
fn a_timed_out_condition_wait_is_a_sleep_of_its_duration() {
    let mut rec = producer_consumer(2, 10.0, |_| 2.0);
    // The first wait timed out instead (its signal was never sent).
    rec.events.retain(|e| !matches!(e, SyncEvent::CondSignal { t_ns, .. } if *t_ns == ns(10.0)));
    for e in &mut rec.events {
        if let SyncEvent::CondWait { start_ns: 0, timed_out, .. } = e {
            *timed_out = true;
        }
    }
    let out = convert(&rec, &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let c = &w.apps[0].groups[1];
    assert!(matches!(c.phases[0], Phase::Sleep { ns } if ns == 10_000_000), "{}", out.toml);
    assert_eq!(out.summary.measured.cond_waits_as_sleeps, 1);
}

/// Without the event log (`--pid`): a second thread first seen at 20 ms is spawned by the first
/// at its place then (an inference), and its 30 ms off the CPU is a sleep.
#[test]
fn a_thread_without_a_creation_event_is_spawned_by_the_first_where_it_was_first_seen() {
    let a = thread(1, "main", 0.0, 100.0, |t| t);
    let b = thread(2, "late", 20.0, 100.0, |t| {
        if t < 50.0 {
            t - 20.0
        } else if t < 80.0 {
            30.0
        } else {
            t - 50.0
        }
    });
    let mut rec = recording(vec![a, b], Vec::new(), 100.0);
    rec.events_logged = false;
    let out = convert(&rec, &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let app = &w.apps[0];
    // Main: 20 ms, the spawn, 80 ms.
    assert!(matches!(app.groups[0].phases[1], Phase::Spawn { group: 1 }), "{}", out.toml);
    close(compute(&app.groups[0].phases[0]), 20.0 * PER_MS);
    close(compute(&app.groups[0].phases[2]), 80.0 * PER_MS);
    // The late thread: 30 ms, a sleep of 30 ms (three wholly idle intervals), 20 ms.
    let late = &app.groups[1];
    assert_eq!(late.phases.len(), 3, "{}", out.toml);
    close(compute(&late.phases[0]), 30.0 * PER_MS);
    assert!(matches!(late.phases[1], Phase::Sleep { ns: 30_000_000 }));
    close(compute(&late.phases[2]), 20.0 * PER_MS);
    assert_eq!(out.summary.inferred.spawns, 1);
    assert!(out.toml.contains("no synchronisation events were logged"));
}

/// A shell (`sh -c CMD`) runs 1 ms, forks the command's process (a fork, not a pthread_create:
/// no Create event) and waits for it, off the CPU, until the end at 300 ms; the agent first sees
/// the command at 30 ms and it computes 270 ms. The shell's off-CPU stretch covers the sighting,
/// so the creation came before it: the replay spawns the command at 1 ms and takes 271 ms, not
/// 30 ms more (the spawn inside the sleep would delay the whole command).
#[test]
fn a_process_first_seen_while_its_creator_waits_was_spawned_before_the_wait() {
    let sh = thread(1, "sh", 0.0, 300.0, |t| t.min(1.0));
    let cmd = thread(2, "cmd", 30.0, 300.0, |t| t - 30.0);
    let mut rec = recording(vec![sh, cmd], Vec::new(), 300.0);
    rec.events_logged = false;
    let out = convert(&rec, &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let shell = &w.apps[0].groups[0].phases;
    // 1 ms, the spawn, then the wait.
    close(compute(&shell[0]), 1.0 * PER_MS);
    assert!(matches!(shell[1], Phase::Spawn { group: 1 }), "{}", out.toml);
    assert!(shell[2..].iter().all(|p| matches!(p, Phase::Sleep { .. })), "{}", out.toml);
    let (cpu, makespan, toml) = replay(rec);
    assert_eq!(cpu, [ns(1.0), ns(270.0)], "{toml}");
    // The command ends at 1 + 270 ms; the shell's sleeps, measured from its 1 ms, end at 300 ms.
    assert_eq!(makespan, ns(300.0), "{toml}");
}

/// Main creates a producer and a consumer and joins them; 10,000 items of 1 ms; the consumer
/// takes 0.20 or 0.22 ms in turn: its list is one body of a wait and 0.21 ms repeated 10,000
/// times, each value within 0.01 / 0.21 of the mean.
fn three_thread_loop(items: usize, consume_ms: impl Fn(usize) -> f64) -> Recording {
    let mut rec = producer_consumer(items, 1.0, consume_ms);
    // Ids shifted so that a main thread (tid 9) creates both and joins them.
    let end = rec.wall_ns as f64 / 1e6;
    rec.events.retain(|e| !matches!(e, SyncEvent::Create { .. }));
    rec.events.push(SyncEvent::Create { t_ns: 0, parent: 9, parent_cpu_ns: 0, child: 1 });
    rec.events.push(SyncEvent::Create { t_ns: 0, parent: 9, parent_cpu_ns: 0, child: 2 });
    rec.events.push(SyncEvent::Join { tid: 9, target: 1, start_ns: 0, end_ns: ns(items as f64), cpu_ns: 0 });
    rec.events.push(SyncEvent::Join { tid: 9, target: 2, start_ns: ns(items as f64), end_ns: ns(end), cpu_ns: 0 });
    rec.threads.insert(0, thread(9, "main", 0.0, items as f64, |_| 0.0));
    rec
}

#[test]
fn a_10000_iteration_loop_is_a_repeat_with_its_error() {
    let out = convert(&three_thread_loop(10_000, |i| if i % 2 == 0 { 0.20 } else { 0.22 }), &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let app = &w.apps[0];
    let (p, c) = (&app.groups[1], &app.groups[2]);
    assert_eq!((p.repeat, p.phases.len()), (10_000, 2), "{}", &out.toml[..3000]);
    close(compute(&p.phases[0]), 1.0 * PER_MS);
    assert_eq!((c.repeat, c.phases.len()), (10_000, 2));
    close(compute(&c.phases[1]), 0.21 * PER_MS);
    let e = &out.summary.error;
    assert_eq!(e.tolerance, 0.10);
    assert!((e.value - 0.01 / 0.21).abs() < 1e-6, "{e:?}");
    assert!(e.compute < 1e-5 && e.wait == 0.0, "{e:?}");
    assert_eq!((e.phases_before, e.phases_after), (4 + 20_000 + 20_000, 4 + 2 + 2));
    assert!(out.toml.contains("merged values within 4.76%"), "{}", &out.toml[..3000]);
}

#[test]
fn the_size_bound_is_honoured_with_the_error_it_cost() {
    // Consumptions spread evenly over 0.20 to 0.32 ms, in no periodic order (an irrational
    // rotation): up to 23% from their mean of 0.26 ms, over the base tolerance, within the next
    // (25%).
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    let rec = three_thread_loop(2_000, |i| 0.20 + 0.12 * (i as f64 * golden).fract());
    let loose = convert(&rec, &ConvertOptions::default()).unwrap();
    assert_eq!(loose.summary.phases, 4 + 2 + 4_000);
    assert_eq!(loose.summary.error.tolerance, 0.0);
    let opts = ConvertOptions { max_phases: 8, ..ConvertOptions::default() };
    let tight = convert(&rec, &opts).unwrap();
    assert_eq!(tight.summary.phases, 8);
    let e = &tight.summary.error;
    assert_eq!(e.tolerance, 0.25);
    assert!(e.value > 0.2 && e.value <= 0.06 / 0.26 + 1e-6, "{e:?}");
    assert!(e.compute < 1e-5, "{e:?}");
    let w = read(&tight.toml);
    assert!((compute(&w.apps[0].groups[2].phases[1]) / (0.26 * PER_MS) - 1.0).abs() < 1e-3);
    // Below what the synchronisation needs (8 phases): the hand-offs that waited least are
    // dropped until the file fits, here all of them (the consumer's list is periodic only
    // with all its waits or none), and the file says so.
    let dropped = convert(&rec, &ConvertOptions { max_phases: 7, ..ConvertOptions::default() }).unwrap();
    assert_eq!((dropped.summary.phases, dropped.summary.error.hand_offs_dropped, dropped.summary.error.phases_before), (6, 2_000, 4 + 4_000 + 4_000));
    assert!(dropped.toml.contains("# Note: 2000 of 2000 condition-variable hand-offs dropped to meet the size bound"), "{}", dropped.toml);
    // Below what even that leaves (the main thread's spawns and joins, and one compute each):
    // one line naming the bound.
    let e = convert(&rec, &ConvertOptions { max_phases: 5, ..ConvertOptions::default() }).unwrap_err().to_string();
    assert_eq!(
        e,
        "--max-phases: 5: the recording needs 6 phases even at the coarsest compression (its synchronisation cannot merge further): give a larger bound"
    );
}

#[test]
fn conversion_is_deterministic_and_survives_the_raw_json() {
    let rec = barrier_program(6);
    let a = convert(&rec, &ConvertOptions::default()).unwrap();
    let json = serde_json::to_string(&rec).unwrap();
    let back: Recording = serde_json::from_str(&json).unwrap();
    let b = convert(&back, &ConvertOptions::default()).unwrap();
    assert_eq!(a.toml, b.toml);
    assert_eq!(a.summary, b.summary);
    assert!(!a.toml.contains("Command:"));
}

#[test]
fn the_command_is_written_only_when_kept() {
    let mut rec = barrier_program(2);
    rec.command = Some(vec!["./prog".into(), "--secret\nx".into()]);
    let out = convert(&rec, &ConvertOptions::default()).unwrap();
    assert!(out.toml.contains("# Command: \"./prog\" \"--secret\\nx\"\n"), "{}", out.toml);
    read(&out.toml);
}

#[test]
fn bad_recordings_are_one_line_errors() {
    let opts = ConvertOptions::default();
    let one_line = |rec: &Recording| {
        let e = convert(rec, &opts).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };
    let good = barrier_program(2);
    let mut r = good.clone();
    r.version = 7;
    assert_eq!(one_line(&r), "recording: version: 7 is not the version this ampsched reads (1): record again with this version");
    let mut r = good.clone();
    r.threads.clear();
    assert_eq!(one_line(&r), "recording: threads: no threads were recorded: nothing to replay");
    let mut r = good.clone();
    r.threads.iter_mut().for_each(|t| t.samples.clear());
    assert!(one_line(&r).starts_with("recording: threads: no thread has a sample"));
    let mut r = good.clone();
    r.events_lost = 3;
    assert_eq!(
        one_line(&r),
        "recording: events_lost: a partial recording (3 events lost): convert it only knowingly (accept lost events), and the file will say it is partial"
    );
    let mut r = good.clone();
    r.incomplete = Some("the agent stopped early".into());
    assert!(one_line(&r).starts_with("recording: incomplete: a partial recording (incomplete: the agent stopped early)"));
    // Accepted, the file says it is partial.
    let out = convert(&r, &ConvertOptions { accept_lost_events: true, ..opts.clone() }).unwrap();
    assert!(out.toml.contains("# PARTIAL RECORDING (incomplete: the agent stopped early)"), "{}", out.toml);
    assert_eq!(out.summary.partial.as_deref(), Some("incomplete: the agent stopped early"));
    let mut r = good.clone();
    r.work_per_cpu_s = vec![1.0];
    assert_eq!(one_line(&r), "recording: work_per_cpu_s: gives 1 speeds but the recorded machine has 2 core types");
    let mut r = good;
    r.machine_toml = "name = 3".into();
    assert!(one_line(&r).starts_with("recording: machine_toml"), "{}", one_line(&r));
}

// ---- replay: the converted file run by the simulator on the recorded machine

/// Four 2 GHz cores, migrations free: every thread of these programs has a core of its own, so
/// a replay's per-thread CPU time is its instructions at 2 GHz and its timing is the waits'.
const FOUR_FAST: &str =
    "name = \"four-fast\"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = \"fast\"\ncount = 4\nfreq_ghz = 2.0\n[migration]\ncost_us = 0.0\n";

/// A policy that places nothing: the OS model alone, as `oblivious`.
struct Nothing;

impl ampsched_model::Policy for Nothing {
    fn triggers(&self) -> ampsched_model::Triggers {
        ampsched_model::Triggers::NONE
    }
    fn decide(&mut self, _: &ampsched_model::SystemView, _: &mut ampsched_model::Placement) -> Result<(), ampsched_model::PolicyFailure> {
        Ok(())
    }
}

/// The recording on `FOUR_FAST`, converted and replayed: each group's CPU time (ns) and the
/// run's makespan.
fn replay(rec: Recording) -> (Vec<u64>, u64, String) {
    replay_with(rec, &ConvertOptions::default())
}

fn replay_with(mut rec: Recording, opts: &ConvertOptions) -> (Vec<u64>, u64, String) {
    rec.machine_toml = FOUR_FAST.into();
    rec.work_per_cpu_s = vec![1.0];
    let out = convert(&rec, opts).unwrap();
    let m = ampsched_model::Machine::from_toml("four-fast.toml", FOUR_FAST).unwrap();
    let w = read(&out.toml);
    let r = ampsched_sim::Engine::new(&m, &w, &ampsched_model::SimpleModel, &mut Nothing, ampsched_sim::SimConfig::default()).run().unwrap();
    let mut cpu = vec![0u64; w.apps[0].groups.len()];
    for t in &r.threads {
        cpu[t.group as usize] += t.per_type.iter().map(|c| c.time_ns).sum::<u64>();
    }
    (cpu, r.makespan_ns, out.toml)
}

/// The recorded CPU time of each thread: its last sample's, or its exit's if later.
fn recorded_cpu(rec: &Recording) -> Vec<u64> {
    rec.threads
        .iter()
        .map(|t| {
            let exit =
                rec.events.iter().filter_map(|e| if let SyncEvent::Exit { tid, cpu_ns, .. } = e { (*tid == t.tid).then_some(*cpu_ns) } else { None }).max();
            t.samples.last().map_or(0, |s| s.cpu_ns).max(exit.unwrap_or(0))
        })
        .collect()
}

#[test]
fn a_replayed_barrier_program_gives_back_each_threads_cpu_time() {
    let rec = barrier_program(4);
    let want = recorded_cpu(&rec);
    // 1, 80, 120 and 200 ms.
    assert_eq!(want, [ns(1.0), ns(80.0), ns(120.0), ns(200.0)]);
    let (cpu, makespan, toml) = replay(rec.clone());
    assert_eq!(cpu, want, "{toml}");
    // The last worker is spawned at 0.75 ms and is the last at each barrier: its 4 × 50 ms set
    // the run, which ends when main's joins do, 200.75 ms (the recording's 200 ms plus the
    // spawn's place, which the live run's first sample hid).
    assert_eq!(makespan, ns(200.75));
    // Deterministic: the same file, the same run.
    assert_eq!(replay(rec), (cpu, makespan, toml));
}

#[test]
fn a_replayed_logged_barrier_program_is_the_inferred_ones_run() {
    // The same program with its barrier logged replays alike: the same CPU times and makespan
    // (the logged barrier is where the inference put it, after each worker's c ms).
    let (cpu, makespan, toml) = replay(logged_barrier_program(4));
    assert_eq!(cpu, [ns(1.0), ns(80.0), ns(120.0), ns(200.0)], "{toml}");
    assert_eq!(makespan, ns(200.75));
}

#[test]
fn a_replayed_producer_consumer_gives_back_each_threads_cpu_time_and_the_hand_offs() {
    let rec = producer_consumer(5, 10.0, |_| 2.0);
    let want = recorded_cpu(&rec);
    assert_eq!(want, [ns(50.0), ns(10.0)]);
    let (cpu, makespan, toml) = replay(rec);
    assert_eq!(cpu, want, "{toml}");
    // The consumer takes each item as it is posted (every 10 ms) and consumes it for 2 ms: the
    // last from 50 to 52 ms, as recorded.
    assert_eq!(makespan, ns(52.0));
}

/// The producer spawns the consumer, so its list cannot repeat as a whole: under a bound of 10
/// phases its loop of 2,000 items runs as a helper group it spawns and joins at once, and the
/// replay gives back the producer's CPU time over the two groups, the consumer's, and the run's
/// time (2,000 items of 1 ms, the last consumed for 0.2 ms).
#[test]
fn a_spawning_threads_loop_is_split_out_under_the_size_bound_and_replays_the_same() {
    let rec = producer_consumer(2_000, 1.0, |_| 0.2);
    let out = convert(&rec, &ConvertOptions { max_phases: 10, ..ConvertOptions::default() }).unwrap();
    let w = read(&out.toml);
    let groups = &w.apps[0].groups;
    assert_eq!(groups.len(), 3, "{}", out.toml);
    assert_eq!(groups[2].name, "t0-producer.loop");
    assert!(matches!(groups[0].phases[..], [Phase::Spawn { group: 1 }, Phase::Spawn { group: 2 }, Phase::Join { group: 2, .. }]), "{}", out.toml);
    assert_eq!((groups[2].repeat, groups[2].phases.len()), (2_000, 2));
    close(compute(&groups[2].phases[0]), 1.0 * PER_MS);
    assert_eq!((groups[1].repeat, groups[1].phases.len()), (2_000, 2));
    assert_eq!((out.summary.phases, out.summary.error.loops_split), (3 + 2 + 2, 1));
    assert!(out.toml.contains("1 loops split into groups of their own"), "{}", out.toml);
    let want = recorded_cpu(&rec);
    let (cpu, makespan, _) = replay_with(rec, &ConvertOptions { max_phases: 10, ..ConvertOptions::default() });
    assert_eq!((cpu[0] + cpu[2], cpu[1]), (want[0], want[1]));
    assert_eq!(makespan, ns(2_000.2));
}

/// With counters: 10 ms of CPU time on the fast type retiring 1e7 instructions with 1e4 LLC
/// misses: 1 MPKI, and the CPI that gives back 1 ns per instruction under the model at 2 GHz
/// with 100 ns misses: (1 − 1/1000 × 100) × 2 = 1.8. Replayed, the 10 ms come back.
#[test]
fn counted_instructions_and_misses_give_a_cpi_that_replays_the_cpu_time() {
    let mut t = thread(1, "counted", 0.0, 20.0, |t| t * 0.5);
    for s in &mut t.samples {
        s.instructions = Some(s.cpu_ns);
        s.llc_misses = Some(s.cpu_ns / 1000);
        s.cycles = Some(2 * s.cpu_ns);
    }
    let mut rec = recording(vec![t], Vec::new(), 20.0);
    rec.counters = true;
    rec.events_logged = false;
    // Off the CPU half of each interval: 5 ms sleeps left out here (a bound above them).
    let opts = ConvertOptions { min_block_ns: ns(6.0), ..ConvertOptions::default() };
    let out = convert(&rec, &opts).unwrap();
    let w = read(&out.toml);
    let phases = &w.apps[0].groups[0].phases;
    assert_eq!(phases.len(), 1, "{}", out.toml);
    let Phase::Compute { instructions, profile } = &phases[0] else { panic!("{:?}", phases[0]) };
    assert_eq!(*instructions, 1e7);
    assert!((profile.cpi - 1.8).abs() < 1e-9 && profile.misses.mpki_at(1e9) == 1.0, "{profile:?}");
    assert!(out.summary.counters && out.toml.contains("instructions and LLC misses measured"));
    assert_eq!(out.summary.inferred.off_cpu_dropped_ns, ns(10.0));
    let m = ampsched_model::Machine::from_toml("m.toml", MACHINE).unwrap();
    let r = ampsched_sim::Engine::new(&m, &w, &ampsched_model::SimpleModel, &mut Nothing, ampsched_sim::SimConfig::default()).run().unwrap();
    assert_eq!(r.threads[0].per_type[0].time_ns, ns(10.0));
}

/// Without counters, CPU time on the slow type counts at its `work_per_cpu_s` (0.5 here): 5 ms on
/// the fast type and 10 ms on the slow one are 10 ms of the fast type's work, 2e7 instructions.
#[test]
fn cpu_time_on_a_slow_type_counts_at_its_speed() {
    let mut t = thread(1, "mixed", 0.0, 20.0, |t| t * 0.75);
    // Each sample's CPU time a third on the fast type, two thirds on the slow (5 and 10 ms of the
    // 15 at the end).
    for s in &mut t.samples {
        s.cpu_ns_per_type = vec![s.cpu_ns / 3, s.cpu_ns - s.cpu_ns / 3];
    }
    let mut rec = recording(vec![t], Vec::new(), 20.0);
    rec.events_logged = false;
    let opts = ConvertOptions { min_block_ns: ns(6.0), ..ConvertOptions::default() };
    let out = convert(&rec, &opts).unwrap();
    let w = read(&out.toml);
    close(compute(&w.apps[0].groups[0].phases[0]), 10.0 * PER_MS);
}

/// A run-queue wait from 15 to 25 ms is added to run_delay when it ends (at the sample of 30 ms):
/// the interval before shows 5 ms off the CPU, the one after 5 ms more wait than off-CPU time.
/// The deficit pays the surplus back: no sleep, the thread's 30 ms of CPU time in one phase.
#[test]
fn a_run_queue_wait_across_a_sample_is_not_a_sleep() {
    let mut t = thread(1, "runnable", 0.0, 40.0, |t| {
        if t <= 15.0 {
            t
        } else if t <= 25.0 {
            15.0
        } else {
            t - 10.0
        }
    });
    for s in &mut t.samples {
        s.runq_ns = if s.t_ns >= ns(30.0) { ns(10.0) } else { 0 };
    }
    let mut rec = recording(vec![t], Vec::new(), 40.0);
    rec.events_logged = false;
    let out = convert(&rec, &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    assert_eq!(w.apps[0].groups[0].phases.len(), 1, "{}", out.toml);
    close(compute(&w.apps[0].groups[0].phases[0]), 30.0 * PER_MS);
    assert_eq!((out.summary.inferred.sleeps, out.summary.inferred.off_cpu_dropped_ns), (0, 0));
}

/// Two threads wait on one condition variable, each woken by its own signal (at 10 and 20 ms):
/// each gets a semaphore of its own, so the replay hands each wake-up to the thread it woke, not
/// to whichever waits first.
#[test]
fn waiters_on_one_condition_variable_get_their_own_wake_ups() {
    const X: u64 = 0x7f00_3000;
    let s = thread(1, "signaller", 0.0, 30.0, |t| t);
    let a = thread(2, "a", 0.0, 30.0, |t| (t - 10.0).max(0.0));
    let b = thread(3, "b", 0.0, 30.0, |t| (t - 20.0).max(0.0));
    let events = vec![
        SyncEvent::Create { t_ns: 0, parent: 1, parent_cpu_ns: 0, child: 2 },
        SyncEvent::Create { t_ns: 0, parent: 1, parent_cpu_ns: 0, child: 3 },
        SyncEvent::CondWait { cond: X, tid: 2, start_ns: 0, end_ns: ns(10.0), cpu_ns: 0, timed_out: false },
        SyncEvent::CondWait { cond: X, tid: 3, start_ns: 0, end_ns: ns(20.0), cpu_ns: 0, timed_out: false },
        SyncEvent::CondSignal { cond: X, tid: 1, t_ns: ns(10.0), cpu_ns: ns(10.0), broadcast: false },
        SyncEvent::CondSignal { cond: X, tid: 1, t_ns: ns(20.0), cpu_ns: ns(20.0), broadcast: false },
    ];
    let out = convert(&recording(vec![s, a, b], events, 30.0), &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let g = &w.apps[0].groups;
    assert!(matches!(g[1].phases[0], Phase::SemWait { semaphore: 0, .. }) && matches!(g[2].phases[0], Phase::SemWait { semaphore: 1, .. }), "{}", out.toml);
    let posts: Vec<usize> = g[0].phases.iter().filter_map(|p| if let Phase::SemPost { semaphore, .. } = p { Some(*semaphore) } else { None }).collect();
    assert_eq!(posts, [0, 1]);
    assert_eq!(out.summary.measured.cond_signals_matched, 2);
}

/// Thread a takes lock L after waiting for b (10 to 12 ms), then waits on condition variable X
/// under it (13 to 20 ms, signalled by b) and releases L at 21 ms. pthread_cond_wait releases
/// the mutex, so a's section ends at its condition wait: 1 ms of CPU time (10 to 11 ms), not
/// the 2 ms to its release, and the wait stays where it was, before the last 10 ms.
#[test]
fn a_section_ends_at_a_condition_wait_inside_it() {
    const L: u64 = 0x7f00_4000;
    const X: u64 = 0x7f00_5000;
    let a = thread(1, "a", 0.0, 30.0, |t| {
        if t <= 10.0 {
            t
        } else if t <= 12.0 {
            10.0
        } else if t <= 13.0 {
            t - 2.0
        } else if t <= 20.0 {
            11.0
        } else {
            t - 9.0
        }
    });
    let b = thread(2, "b", 0.0, 30.0, |t| t);
    let events = vec![
        SyncEvent::Create { t_ns: 0, parent: 1, parent_cpu_ns: 0, child: 2 },
        SyncEvent::MutexWait { lock: L, tid: 1, holder: 2, start_ns: ns(10.0), end_ns: ns(12.0), cpu_ns: ns(10.0) },
        SyncEvent::MutexRelease { lock: L, tid: 2, t_ns: ns(12.0), cpu_ns: ns(12.0) },
        SyncEvent::CondWait { cond: X, tid: 1, start_ns: ns(13.0), end_ns: ns(20.0), cpu_ns: ns(11.0), timed_out: false },
        SyncEvent::CondSignal { cond: X, tid: 2, t_ns: ns(20.0), cpu_ns: ns(20.0), broadcast: false },
        SyncEvent::MutexRelease { lock: L, tid: 1, t_ns: ns(21.0), cpu_ns: ns(12.0) },
    ];
    let out = convert(&recording(vec![a, b], events, 30.0), &ConvertOptions::default()).unwrap();
    let w = read(&out.toml);
    let ga = &w.apps[0].groups[0].phases;
    assert_eq!(ga.len(), 4, "{}", out.toml);
    assert!(
        matches!(ga[1], Phase::Critical { cs_instructions, between_instructions, .. } if cs_instructions == 1.0 * PER_MS && between_instructions == 10.0 * PER_MS),
        "{:?}",
        ga[1]
    );
    assert!(matches!(ga[2], Phase::SemWait { semaphore: 0, .. }));
    close(compute(&ga[3]), 10.0 * PER_MS);
    // b: its section inferred from a's wait (10 to 12 ms), its post at 20 ms.
    let gb = &w.apps[0].groups[1].phases;
    assert!(matches!(gb[0], Phase::Critical { cs_instructions, .. } if cs_instructions == 2.0 * PER_MS), "{:?}", gb[0]);
    close(compute(&gb[1]), 8.0 * PER_MS);
    assert!(matches!(gb[2], Phase::SemPost { semaphore: 0, count: 1 }));
}
