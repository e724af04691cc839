//! The whole agent (`run_with`) on a real process, with a policy of the test's own: no
//! registered policy makes weight decisions or needs counters yet. The agent's SIGINT handler
//! is process-wide, so this file's tests take a lock and run one at a time.

use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ampsched_agent::{run_with, AgentConfig, AgentError};
use ampsched_model::{Placement, Policy, Signals, SystemView, Triggers};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Gives every live thread weight `weight` at each quantum.
struct Reweigh {
    weight: u32,
}

impl Policy for Reweigh {
    fn name(&self) -> &str {
        "reweigh"
    }
    fn quantum_ns(&self) -> Option<u64> {
        Some(10_000_000)
    }
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) {
        for t in view.live_threads() {
            out.set_weight(t.id, Some(self.weight));
        }
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
fn a_policys_weights_renice_the_target_while_the_agent_runs_and_are_restored_when_it_stops() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    // SAFETY: geteuid takes no arguments.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: putting a lowered nice value back needs CAP_SYS_NICE (run as root)");
        return;
    }
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
fn a_policy_that_needs_counters_is_refused_where_there_are_none() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    if ampsched_agent::perf::PerfCounters::new().is_ok() {
        eprintln!("skipped: this machine has hardware counters, so the policy is not refused");
        return;
    }
    let why = ampsched_agent::perf::probe().unwrap_err();
    let err = run_with(&config(std::process::id()), "ipc-driven", Signals::COUNTERS, |_| unreachable!("refused before it is built"))
        .unwrap_err();
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

/// Does nothing: for runs that must end before any decision matters.
struct Idle;

impl Policy for Idle {
    fn name(&self) -> &str {
        "idle"
    }
    fn quantum_ns(&self) -> Option<u64> {
        None
    }
    fn triggers(&self) -> Triggers {
        Triggers::NONE
    }
    fn decide(&mut self, _view: &SystemView, _out: &mut Placement) {}
}

#[test]
fn a_stop_signal_while_the_agent_starts_ends_it_with_a_report_and_nothing_launched() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let marker = std::env::temp_dir().join(format!("ampsched-early-stop-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let cfg = AgentConfig {
        policy: "idle".into(),
        command: vec!["touch".into(), marker.display().to_string()],
        status: false,
        ..AgentConfig::default()
    };
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
