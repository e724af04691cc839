//! Which registered policies the agent runs, by the one check it makes before building one
//! (`check_policy`, the same `Signals::check` as the simulator's): `ipc-driven` needs hardware
//! counters and runs wherever the agent reads them per thread, and is refused in one line
//! naming them and the machine's reason where it does not; `static-ipc-driven` needs offline
//! solo profiles, which only the simulator's runner measures, and is refused live everywhere.
//! This VM has no PMU, so the accepting side is checked here rather than by a live run
//! (tests/python/test_agent_live.py runs it where counters exist).

use ampsched_agent::agent::{agent_signals, check_policy};
use ampsched_agent::AgentError;

fn check(name: &str, counters: bool) -> Result<(), AgentError> {
    let info = ampsched_policy::info(name).unwrap();
    let why = (!counters).then_some("perf_event_open: no PMU here");
    check_policy(name, info.needs, agent_signals(counters, false), why)
}

#[test]
fn ipc_driven_runs_live_where_there_are_counters_and_is_refused_in_one_line_where_not() {
    assert!(check("ipc-driven", true).is_ok());
    let Err(AgentError::Input(e)) = check("ipc-driven", false) else { panic!("refused as bad input (exit status 2)") };
    let line = e.to_string();
    assert!(!line.contains('\n'), "{line}");
    assert!(line.starts_with("--policy: ipc-driven: ipc-driven cannot run live"), "{line}");
    assert!(line.contains("per-thread hardware counters") && line.contains("no PMU here"), "{line}");
}

#[test]
fn static_ipc_driven_is_refused_live_even_with_counters() {
    for counters in [true, false] {
        let Err(AgentError::Input(e)) = check("static-ipc-driven", counters) else { panic!("refused") };
        let line = e.to_string();
        assert!(!line.contains('\n') && line.contains("offline solo profiles"), "{line}");
    }
}

#[test]
fn pa_rtx_runs_live_only_with_the_preload_library_and_is_refused_in_one_line_saying_why() {
    let needs = ampsched_policy::info("pa-rtx").unwrap().needs;
    for counters in [true, false] {
        assert!(check_policy("pa-rtx", needs, agent_signals(counters, true), None).is_ok(), "the library gives spin waits");
        let Err(AgentError::Input(e)) = check_policy("pa-rtx", needs, agent_signals(counters, false), None) else { panic!("refused") };
        let line = e.to_string();
        assert!(!line.contains('\n') && line.contains("spin") && line.contains("preload library"), "{line}");
    }
}
