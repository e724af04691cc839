//! The whole agent (`run_with`) on a real process, with a policy of the test's own: no
//! registered policy makes weight decisions or needs counters yet. The agent's SIGINT handler
//! is process-wide, so this file's tests take a lock and run one at a time.
//!
//! Its own test binary, not a module of tests/it: the agent's signal handlers and the signals
//! these tests raise are process-wide, and beside the other modules' tests (children started and
//! reaped, threads pinned) `a_thread_started_after_the_last_sample...` saw a third thread in 2
//! of 11 runs, never in its own binary.

use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ampsched_agent::{run_with, AgentConfig, AgentError};
use ampsched_model::{CoreSet, Placement, Policy, PolicyFailure, Signals, SystemView, Triggers};

#[path = "it/common/mod.rs"]
mod common;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Gives every live thread weight `weight` at each quantum.
struct Reweigh {
    weight: u32,
}

impl Policy for Reweigh {
    fn quantum_ns(&self) -> Option<u64> {
        Some(10_000_000)
    }
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        for t in view.live_threads() {
            out.set_weight(t.id, Some(self.weight));
        }
        Ok(())
    }
}

fn nice_of(pid: u32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest: Vec<&str> = s[s.rfind(')')? + 1..].split_whitespace().collect();
    rest.get(19 - 3)?.parse().ok()
}

fn config(pid: u32) -> AgentConfig {
    AgentConfig { policy: "reweigh".into(), interval_ms: 10.0, pids: vec![pid], status: false, ..AgentConfig::default() }
}

#[test]
#[cfg_attr(not(ampsched_test_root), ignore = "needs root: putting a lowered nice value back needs CAP_SYS_NICE")]
fn a_policys_weights_renice_the_target_while_the_agent_runs_and_are_restored_when_it_stops() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    // SAFETY: geteuid takes no arguments.
    common::prerequisite(unsafe { libc::geteuid() } == 0, "root");
    // A test run as a background job of a non-interactive shell (`make test &`) inherits SIGINT
    // ignored, and the agent rightly leaves an ignored signal ignored: the SIGINT below would
    // then stop nothing, and the agent would run until its target's end (30 s).
    // SAFETY: sets this test process's SIGINT disposition to the default, before the agent runs.
    unsafe { libc::signal(libc::SIGINT, libc::SIG_DFL) };
    let mut sleeper = Command::new("sleep").arg("30").spawn().unwrap();
    let pid = sleeper.id();
    let nice_before = nice_of(pid).unwrap();
    // Stop the agent (SIGINT, as Ctrl-C would) once the target's nice value has changed.
    let watcher = std::thread::spawn(move || {
        let end = Instant::now() + Duration::from_secs(10);
        let mut seen = None;
        while Instant::now() < end {
            if let Some(n) = nice_of(pid).filter(|&n| n != nice_before) {
                seen = Some(n);
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: a signal to this process, which the agent handles while it runs.
        unsafe { libc::kill(libc::getpid(), libc::SIGINT) };
        seen
    });
    let report = run_with(&config(pid), "reweigh", Signals::NONE, |_| Ok(Box::new(Reweigh { weight: 2048 }) as Box<dyn Policy>));
    let seen = watcher.join().unwrap();
    let after = nice_of(pid);
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    let report = report.unwrap();
    // Weight 2048 is nearest nice -3's 1991 (nice -4 is 2501).
    assert_eq!(seen, Some(-3), "the target was reniced while the agent ran");
    assert_eq!(after, Some(nice_before), "and got its nice value back when the agent stopped");
    assert_eq!(report["stopped_by"], "SIGINT");
    assert_eq!(report["agent"]["nice_values_restored"], 1);
    assert_eq!(report["decisions_not_applied"], 0);
    assert!(report["decisions"].as_u64().unwrap() >= 1);
}

#[test]
#[cfg_attr(ampsched_test_pmu, ignore = "this machine has hardware counters, so the policy is not refused")]
fn a_policy_that_needs_counters_is_refused_where_there_are_none() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    common::prerequisite(ampsched_agent::perf::PerfCounters::new().is_err(), "no hardware counters");
    let why = ampsched_agent::perf::probe().unwrap_err();
    let err = run_with(&config(std::process::id()), "ipc-driven", Signals::COUNTERS, |_| unreachable!("refused before it is built")).unwrap_err();
    let AgentError::Input(e) = err else { panic!("a refusal is an input error (exit status 2)") };
    let line = e.to_string();
    assert!(!line.contains('\n'));
    assert!(line.starts_with("--policy: ipc-driven: ipc-driven cannot run live"), "{line}");
    assert!(line.contains("per-thread hardware counters"), "{line}");
    assert!(line.contains(&why), "the reason the machine gives none: {line}");
}

#[test]
fn the_interval_is_refused_outside_1_ms_to_1_hour_in_one_line() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    for ms in [1e14, 3_600_001.0, 0.5, -1.0, f64::NAN, f64::INFINITY] {
        let cfg = AgentConfig { interval_ms: ms, ..config(std::process::id()) };
        let err = run_with(&cfg, "idle", Signals::NONE, |_| unreachable!("refused before it is built")).unwrap_err();
        let AgentError::Input(e) = err else { panic!("an input error (exit status 2)") };
        let line = e.to_string();
        assert!(line.starts_with("--interval: ") && line.contains("between 1 and 3600000 ms") && !line.contains('\n'), "{line}");
    }
    for ms in [1.0, 3_600_000.0] {
        let cfg = AgentConfig { interval_ms: ms, ..config(std::process::id()) };
        let refused = run_with(&cfg, "idle", Signals::NONE, |_| Err(AgentError::Internal("built".into()))).unwrap_err();
        assert!(matches!(refused, AgentError::Internal(_)), "{ms} ms is in range: {refused}");
    }
}

#[test]
fn bad_runtime_thread_patterns_are_refused_before_anything_starts() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    for spec in ["", "GC*,,VM*", "[GC", "C2 CompilerThread*"] {
        let cfg = AgentConfig { runtime_threads: Some(spec.into()), ..config(std::process::id()) };
        let err = run_with(&cfg, "idle", Signals::NONE, |_| unreachable!("refused before it is built")).unwrap_err();
        let AgentError::Input(e) = err else { panic!("an input error (exit status 2)") };
        let line = e.to_string();
        assert!(line.starts_with("--runtime-threads: ") && !line.contains('\n'), "{line}");
    }
}

/// Does nothing: for runs that must end before any decision matters.
struct Idle;

impl Policy for Idle {
    fn quantum_ns(&self) -> Option<u64> {
        None
    }
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, _view: &SystemView, _out: &mut Placement) -> Result<(), PolicyFailure> {
        Ok(())
    }
}

#[test]
fn a_stop_signal_while_the_agent_starts_ends_it_with_a_report_and_nothing_launched() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let marker = std::env::temp_dir().join(format!("ampsched-early-stop-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let cfg = AgentConfig { policy: "idle".into(), command: vec!["touch".into(), marker.display().to_string()], status: false, ..AgentConfig::default() };
    // The policy is built after the handlers are installed and before anything is launched: a
    // SIGTERM from there is the earliest the agent can see one. Without handlers it would end
    // this test process.
    let report = run_with(&cfg, "idle", Signals::NONE, |_| {
        // To this thread, the agent's: its handler has run when raise returns.
        // SAFETY: a signal the agent handles while it runs.
        unsafe { libc::raise(libc::SIGTERM) };
        Ok(Box::new(Idle) as Box<dyn Policy>)
    })
    .unwrap();
    assert_eq!(report["stopped_by"], "SIGTERM");
    assert_eq!(report["target"]["status"], serde_json::Value::Null, "never launched");
    assert_eq!(report["target"]["left_running"], false);
    assert!(!marker.exists(), "the command was not run");
}

/// Pins every thread to core 0 at each quantum. At its second call (the first pin is in force)
/// it has the target start a thread, which inherits the pin, and sends the agent SIGTERM before
/// the agent can sample again: the new thread is found only by the agent's last look at exit.
struct PinThenStop {
    target: u32,
    stdin: Option<std::process::ChildStdin>,
    calls: u32,
}

impl Policy for PinThenStop {
    fn quantum_ns(&self) -> Option<u64> {
        Some(10_000_000)
    }
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        for t in view.live_threads() {
            out.set(t.id, CoreSet::from_cores([0]));
        }
        self.calls += 1;
        if self.calls == 2 {
            let before = task_count(self.target);
            drop(self.stdin.take()); // end of input: the target starts its thread
            let end = Instant::now() + Duration::from_secs(20);
            while task_count(self.target) <= before && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(1));
            }
            // To this thread, the agent's: its handler has run when raise returns, so the agent
            // stops right after this sample, as it would had the signal come just then.
            // SAFETY: a signal the agent handles while it runs.
            unsafe { libc::raise(libc::SIGTERM) };
        }
        Ok(())
    }
}

fn task_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count())
}

fn thread_affinities(pid: u32) -> Vec<(u32, Vec<usize>)> {
    let tids = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok());
    tids.filter_map(|tid: u32| Some((tid, ampsched_agent::procfs::get_affinity(tid).ok()?.cpus()))).collect()
}

#[test]
#[cfg_attr(
    not(all(ampsched_test_cpu01, ampsched_test_python3)),
    ignore = "needs CPUs 0 and 1 (pins threads to CPU 0 away from the others) and python3 (a target that starts a thread on demand)"
)]
fn a_thread_started_after_the_last_sample_from_a_pinned_thread_gets_its_affinity_back() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let original = ampsched_agent::procfs::get_affinity(0).unwrap().cpus();
    common::prerequisite(original.contains(&0) && original.contains(&1), "CPUs 0 and 1");
    let script = "import sys, threading, time\nsys.stdin.read()\nthreading.Thread(target=time.sleep, args=(60,)).start()\ntime.sleep(60)";
    let spawned = Command::new("python3").args(["-c", script]).stdin(std::process::Stdio::piped()).spawn();
    common::prerequisite(spawned.is_ok(), "python3");
    let mut target = spawned.unwrap();
    let pid = target.id();
    let policy = PinThenStop { target: pid, stdin: target.stdin.take(), calls: 0 };
    let report = run_with(&config(pid), "pin-then-stop", Signals::NONE, |_| Ok(Box::new(policy) as Box<dyn Policy>));
    let after = thread_affinities(pid);
    let _ = target.kill();
    let _ = target.wait();
    let report = report.unwrap();
    assert_eq!(report["stopped_by"], "SIGTERM");
    assert_eq!(after.len(), 2, "the main thread and the one it started: {after:?}");
    assert!(after.iter().all(|(_, cpus)| *cpus == original), "every thread has its original affinity: {after:?}");
    assert_eq!(report["threads"].as_array().unwrap().len(), 2, "and the report has both");
}
