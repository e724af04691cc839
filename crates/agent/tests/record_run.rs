//! `ampsched record`'s live side (`record::recorder::record`) on real programs: the raw
//! recording of tests/agent/handoff.c, whose synchronisation is known event by event, checked
//! against what the program measured of itself; tests/agent/barrier.c's pthread barrier waits;
//! and recordings without the event log (a static binary, `--pid`).
//!
//! Its own test binary, as agent_run.rs: the agent follows every child of its process (the
//! launched command's, and any other test's in the same binary) and installs process-wide signal
//! handlers, so these tests run one at a time, away from the other modules' children.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use ampsched_agent::record::convert::{convert, ConvertOptions};
use ampsched_agent::record::recorder::{machine_of, record, Recorded, NO_EVENTS_PID, NO_EVENTS_STATIC};
use ampsched_agent::record::recording::{Recording, SyncEvent};
use ampsched_agent::AgentConfig;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The tests' turn; a test that failed holding it does not fail the others (its poison ignored).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Rounds of handoff.c: each a contended wait, an unlock with waiters, a condition-variable wait
/// and its signal.
const ROUNDS: usize = 5;
/// The giver's work per round, loop iterations (a few ms of CPU).
const WORK_ITERS: u64 = 3_000_000;
/// The sampling interval, ms: short, so that the program's linger (200 ms) spans many samples.
const INTERVAL_MS: f64 = 5.0;
/// CPU time a thread spends between reading its own clock and the sample that follows (the
/// usleep call of its linger, its return): generous, for a loaded machine.
const AFTER_MEASURE_NS: u64 = 2_000_000;

/// tests/agent/handoff.c built with the system compiler (`static_link`: with -static).
fn build(static_link: bool) -> PathBuf {
    build_program("handoff", static_link)
}

/// tests/agent/NAME.c built with the system compiler (`static_link`: with -static).
fn build_program(name: &str, static_link: bool) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/agent/{name}.c"));
    let out = std::env::temp_dir().join(format!("ampsched-{name}-{}-{}", std::process::id(), if static_link { "static" } else { "dyn" }));
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args(["-O2", "-pthread", "-o"]).arg(&out).arg(&src);
    if static_link {
        cc.arg("-static");
    }
    let status = cc.status().expect("a C compiler (cc) builds the test program");
    assert!(status.success(), "cc failed on {}", src.display());
    out
}

fn config(command: Vec<String>, pids: Vec<u32>) -> AgentConfig {
    AgentConfig { policy: "oblivious".into(), interval_ms: INTERVAL_MS, command, pids, status: false, ..AgentConfig::default() }
}

fn run(cfg: &AgentConfig) -> Recorded {
    let opts = machine_of(cfg, None, "recorded").expect("this machine's topology");
    record(cfg, &opts).unwrap_or_else(|e| panic!("record: {e}"))
}

/// What handoff.c printed: per role, (tid, CPU time); the mutex's and condition variable's addresses.
struct Measured {
    threads: HashMap<String, (u32, u64)>,
    lock: u64,
    cond: u64,
}

fn measured(stdout: &str) -> Measured {
    let mut m = Measured { threads: HashMap::new(), lock: 0, cond: 0 };
    for line in stdout.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["thread", role, tid, cpu] => {
                m.threads.insert(role.to_string(), (tid.parse().unwrap(), cpu.parse().unwrap()));
            }
            ["lock", a] => m.lock = a.parse().unwrap(),
            ["cond", a] => m.cond = a.parse().unwrap(),
            _ => panic!("unexpected line from handoff: {line}"),
        }
    }
    m
}

#[test]
fn a_recorded_handoff_has_its_threads_parents_waits_signals_joins_and_cpu_times() {
    let _one = one_at_a_time();
    let exe = build(false);
    let out = std::env::temp_dir().join(format!("ampsched-handoff-{}.out", std::process::id()));
    // The program's stdout to a file: the agent launches it with the test's own stdout.
    let script = format!("exec {} {ROUNDS} {WORK_ITERS} > {}", exe.display(), out.display());
    let cfg = config(vec!["sh".into(), "-c".into(), script], vec![]);
    let Recorded { recording: r, report, failure } = run(&cfg);
    assert!(failure.is_none(), "{failure:?}");
    assert!(report.is_some());
    let m = measured(&std::fs::read_to_string(&out).expect("handoff's output"));
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&exe);

    assert_eq!(r.incomplete, None);
    assert!(r.events_logged, "{:?}", r.notes);
    assert_eq!(r.events_lost, 0);
    assert_eq!(r.exit_status, 0);
    assert_eq!(r.command, None, "no command line without keep_command");
    let (main, giver, taker) = (m.threads["main"].0, m.threads["giver"].0, m.threads["taker"].0);

    // Threads: the three, with their parents (the main thread's unknown: sh exec'd it).
    let thread = |tid: u32| r.threads.iter().find(|t| t.tid == tid).unwrap_or_else(|| panic!("thread {tid} not recorded"));
    assert_eq!(thread(main).parent, None);
    assert_eq!(thread(giver).parent, Some(main));
    assert_eq!(thread(taker).parent, Some(main));
    assert_eq!((thread(giver).comm.as_str(), thread(taker).comm.as_str()), ("giver", "taker"));
    let created: Vec<(u32, u32)> =
        r.events.iter().filter_map(|e| if let SyncEvent::Create { parent, child, .. } = e { Some((*parent, *child)) } else { None }).collect();
    assert_eq!(created, [(main, taker), (main, giver)], "taker is created first");

    // Contended waits: one per round, the taker's on `lock`, held by the giver.
    let waits: Vec<_> = r.events.iter().filter(|e| matches!(e, SyncEvent::MutexWait { lock, .. } if *lock == m.lock)).collect();
    assert_eq!(waits.len(), ROUNDS, "{waits:?}");
    for w in &waits {
        let SyncEvent::MutexWait { tid, holder, start_ns, end_ns, .. } = w else { unreachable!() };
        assert_eq!((*tid, *holder), (taker, giver));
        assert!(start_ns < end_ns);
        // The giver unlocked `lock` with the taker waiting, within the wait.
        assert!(
            r.events.iter().any(
                |e| matches!(e, SyncEvent::MutexRelease { lock, tid, t_ns, .. } if *lock == m.lock && *tid == giver && t_ns >= start_ns && t_ns <= end_ns)
            ),
            "no release by the giver within the wait {w:?}"
        );
    }

    // Condition variable: each of the taker's waits on `ready` ended by one signal of the giver
    // within it.
    let cond_waits: Vec<_> = r.events.iter().filter(|e| matches!(e, SyncEvent::CondWait { cond, .. } if *cond == m.cond)).collect();
    let signals: Vec<_> = r.events.iter().filter(|e| matches!(e, SyncEvent::CondSignal { cond, .. } if *cond == m.cond)).collect();
    assert_eq!((cond_waits.len(), signals.len()), (ROUNDS, ROUNDS), "{cond_waits:?} {signals:?}");
    for (w, s) in cond_waits.iter().zip(&signals) {
        let (SyncEvent::CondWait { tid, start_ns, end_ns, timed_out, .. }, SyncEvent::CondSignal { tid: by, t_ns, broadcast, .. }) = (w, s) else {
            unreachable!()
        };
        assert_eq!((*tid, *by, *timed_out, *broadcast), (taker, giver, false, false));
        assert!(start_ns <= t_ns && t_ns <= end_ns, "signal {s:?} outside the wait {w:?}");
    }

    // Joins: the main thread joined the giver, then the taker.
    let joins: Vec<(u32, u32)> =
        r.events.iter().filter_map(|e| if let SyncEvent::Join { tid, target, .. } = e { Some((*tid, *target)) } else { None }).collect();
    assert_eq!(joins, [(main, giver), (main, taker)]);

    // CPU time: each thread's samples (schedstat) reach what it measured of itself (its own CPU
    // clock, the same kernel account) before its linger, and its Exit event's clock (read by the
    // library as the thread ends) is past both.
    for (role, &(tid, cpu)) in &m.threads {
        let t = thread(tid);
        let last = t.samples.last().unwrap_or_else(|| panic!("{role}: no samples"));
        // A sample during the linger saw the final CPU time; the last may be later still: the
        // main thread's return runs the process's exit (its memory torn down, in the kernel, on
        // its clock), 3.4 ms once on a loaded machine.
        assert!(
            last.cpu_ns >= cpu && t.samples.iter().any(|s| s.cpu_ns >= cpu && s.cpu_ns <= cpu + AFTER_MEASURE_NS),
            "{role}: no sample within {AFTER_MEASURE_NS} ns of its measured {cpu} ns (last {} ns)",
            last.cpu_ns
        );
        assert_eq!(last.cpu_ns_per_type.iter().sum::<u64>(), last.cpu_ns, "{role}: CPU time per core type adds up");
        assert!(t.samples.windows(2).all(|w| w[0].t_ns < w[1].t_ns && w[0].cpu_ns <= w[1].cpu_ns), "{role}: samples in time order, CPU time growing");
        // The giver returns from its routine, the taker calls pthread_exit: both are logged.
        if role != "main" {
            let exit = r.events.iter().find_map(|e| if let SyncEvent::Exit { tid: x, cpu_ns, .. } = e { (*x == tid).then_some(*cpu_ns) } else { None });
            let exit = exit.unwrap_or_else(|| panic!("{role}: no Exit event"));
            assert!(exit >= last.cpu_ns.max(cpu), "{role}: exit clock {exit} ns before the samples' {} ns", last.cpu_ns);
        }
    }
    // Events in time order.
    let time = |e: &SyncEvent| match e {
        SyncEvent::Create { t_ns, .. } | SyncEvent::Exit { t_ns, .. } | SyncEvent::MutexRelease { t_ns, .. } | SyncEvent::CondSignal { t_ns, .. } => *t_ns,
        SyncEvent::MutexWait { start_ns, .. }
        | SyncEvent::CondWait { start_ns, .. }
        | SyncEvent::Join { start_ns, .. }
        | SyncEvent::BarrierWait { start_ns, .. } => *start_ns,
    };
    assert!(r.events.windows(2).all(|w| time(&w[0]) <= time(&w[1])));
    assert!(r.wall_ns > 0 && r.events.iter().all(|e| time(e) <= r.wall_ns));
    // The raw recording round-trips through its JSON.
    let back: Recording = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

/// barrier.c's run: workers, rounds, loop iterations of work a round and under the lock (a
/// fraction of a ms each: the test is about the events, not the timing).
const BARRIER_RUN: (usize, usize, u64, u64) = (3, 4, 200_000, 20_000);

#[test]
fn a_recorded_barrier_program_logs_every_barrier_call_and_converts_to_one_measured_barrier() {
    let _one = one_at_a_time();
    let exe = build_program("barrier", false);
    let out = std::env::temp_dir().join(format!("ampsched-barrier-{}.json", std::process::id()));
    let (threads, rounds, iters, lock_iters) = BARRIER_RUN;
    let args = [threads.to_string(), rounds.to_string(), iters.to_string(), lock_iters.to_string(), out.display().to_string()];
    let cfg = config(std::iter::once(exe.display().to_string()).chain(args).collect(), vec![]);
    let Recorded { recording: r, failure, .. } = run(&cfg);
    assert!(failure.is_none(), "{failure:?}");
    let m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).expect("barrier's output")).unwrap();
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&exe);
    assert!(r.events_logged && r.events_lost == 0, "{:?}", r.notes);
    let workers: Vec<u32> = m["workers"].as_array().unwrap().iter().map(|w| w["tid"].as_u64().unwrap() as u32).collect();
    assert_eq!(workers.len(), threads);

    // Every call logged, the last arrival's too: `rounds` per worker, at one address, one serial
    // call a round, each call's span in time order.
    let calls: Vec<(u64, u32, u64, u64, bool)> = r
        .events
        .iter()
        .filter_map(|e| match *e {
            SyncEvent::BarrierWait { barrier, tid, start_ns, end_ns, serial, .. } => Some((barrier, tid, start_ns, end_ns, serial)),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), threads * rounds, "{calls:?}");
    assert!(calls.iter().all(|c| c.0 == calls[0].0 && c.2 <= c.3), "{calls:?}");
    for w in &workers {
        assert_eq!(calls.iter().filter(|c| c.1 == *w).count(), rounds, "worker {w}: {calls:?}");
    }
    assert_eq!(calls.iter().filter(|c| c.4).count(), rounds, "one serial call a round: {calls:?}");

    // Converted: one measured barrier of the workers, met once a round, no call left out.
    let out = convert(&r, &ConvertOptions::default()).unwrap_or_else(|e| panic!("convert: {e}"));
    let s = &out.summary.measured;
    assert_eq!((s.barriers, s.barrier_meetings, s.barrier_waits, s.barrier_waits_as_sleeps), (1, rounds, threads * rounds, 0), "{}", out.toml);
    assert!(out.toml.contains(&format!("barrier = \"b0\"\nparties = {threads}")), "{}", out.toml);
}

#[test]
#[cfg_attr(not(ampsched_test_static_libc), ignore = "needs a static C library (libc.a) to link the test program with -static")]
fn a_static_binary_is_recorded_without_events_and_says_why() {
    let _one = one_at_a_time();
    let exe = build(true);
    let cfg = config(vec![exe.display().to_string(), "2".into(), "100000".into()], vec![]);
    let r = run(&cfg).recording;
    let _ = std::fs::remove_file(&exe);
    assert!(!r.events_logged);
    assert!(r.events.is_empty());
    assert!(r.notes.iter().any(|n| n == NO_EVENTS_STATIC), "{:?}", r.notes);
    // Its three threads are still sampled.
    assert_eq!(r.threads.iter().filter(|t| !t.samples.is_empty()).count(), 3, "{:?}", r.threads);
    assert_eq!(r.incomplete, None);
}

#[test]
fn an_attached_process_is_recorded_without_events_and_says_why() {
    let _one = one_at_a_time();
    let mut sleeper = Command::new("sleep").arg("0.3").spawn().unwrap();
    let cfg = config(vec![], vec![sleeper.id()]);
    let r = run(&cfg).recording;
    let _ = sleeper.wait();
    assert!(!r.events_logged);
    assert!(r.notes.iter().any(|n| n == NO_EVENTS_PID), "{:?}", r.notes);
    assert_eq!(r.threads.len(), 1);
    assert_eq!(r.threads[0].tid, sleeper.id());
    assert!(!r.threads[0].samples.is_empty());
}

#[test]
fn a_command_that_ends_at_once_is_one_clear_error() {
    let _one = one_at_a_time();
    let cfg = config(vec!["/nonexistent/program".into()], vec![]);
    let opts = machine_of(&cfg, None, "recorded").unwrap();
    let e = record(&cfg, &opts).err().expect("an error").to_string();
    assert!(e.starts_with("--: /nonexistent/program: cannot run the command"), "{e}");
    assert_eq!(e.lines().count(), 1);
}

#[test]
fn a_recording_the_agent_was_stopped_in_says_it_is_incomplete() {
    let _one = one_at_a_time();
    // A test run as a background job inherits SIGINT ignored, which the agent keeps ignored
    // (agent_run.rs says more): the default action back, for the agent's handler to replace.
    // SAFETY: sets this test process's SIGINT disposition, before the agent runs.
    unsafe { libc::signal(libc::SIGINT, libc::SIG_DFL) };
    let cfg = config(vec!["sleep".into(), "30".into()], vec![]);
    let stopper = std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_millis(300));
        // SAFETY: a signal to this process, which the agent handles while it runs (and forwards
        // to the command it launched, which ends).
        unsafe { libc::kill(libc::getpid(), libc::SIGINT) };
    });
    let Recorded { recording: r, report, .. } = run(&cfg);
    stopper.join().unwrap();
    assert_eq!(r.incomplete.as_deref(), Some("the agent was stopped by SIGINT before the command ended"));
    assert_eq!(report.expect("a report")["stopped_by"], "SIGINT");
    assert_eq!(r.exit_status, 128 + libc::SIGINT, "sleep ended by the forwarded SIGINT");
}
