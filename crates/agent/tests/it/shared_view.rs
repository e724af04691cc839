//! One fixture, two view builders: the simulator's engine and the agent's /proc monitor must give a
//! policy the same `SystemView` for the same facts, and so the same decision.
//!
//! The fixture is a fork-join app of two threads on a machine with one fast core (Linux CPU 0) and one
//! slow core (CPU 1): both compute the same work, then meet at a blocking barrier. Under `busyfcs` the
//! threads start on the fast and the slow partition; the fast one reaches the barrier first and
//! blocks, and busyfcs must move the other to the fast core. The simulator runs it and records the
//! view at that Block. The agent's monitor then reads a /proc tree written from the same facts (thread
//! states, CPUs, CPU times) in two samples, as it would on a real machine, and calls a fresh busyfcs
//! through the agent's own `call_policy`. Views and decisions must agree.

use crate::common;

use std::path::Path;

use crate::common::ProcTree;
use ampsched_agent::call_policy;
use ampsched_agent::enforce::Enforcer;
use ampsched_agent::monitor::Monitor;
use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Placement, SimpleModel, SystemView, ThreadState, Trigger, Watched, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_sim::{Engine, SimConfig};

const MACHINE: &str = common::ONE_FAST_ONE_SLOW;

const WORKLOAD: &str = r#"
name = "fixture"
[[app]]
name = "forkjoin"
threads = 2
[[app.phase]]
kind = "compute"
instructions = 2.0e8
cpi = 1.0
llc_mpki = 0.0
[[app.phase]]
kind = "barrier"
wait = "block"
[[app.phase]]
kind = "compute"
instructions = 1.0e6
cpi = 1.0
llc_mpki = 0.0
"#;

/// What a view says of a thread, in the terms both builders share.
#[derive(Debug, Clone, PartialEq)]
struct Facts {
    runnable: bool,
    state: ThreadState,
    core: Option<usize>,
    fast_ns: u64,
    slow_ns: u64,
}

fn facts(view: &SystemView) -> Vec<Facts> {
    view.threads
        .iter()
        .map(|t| Facts {
            runnable: t.state.is_runnable(),
            state: if t.state.is_runnable() { ThreadState::Ready } else { t.state },
            core: t.core,
            fast_ns: t.per_type[0].time_ns,
            slow_ns: t.per_type[1].time_ns,
        })
        .collect()
}

#[test]
fn simulator_and_agent_build_the_same_view_and_get_the_same_decision() {
    let machine = Machine::from_toml("fixture machine", MACHINE).unwrap();
    let workload = Workload::from_toml("fixture workload", WORKLOAD, &Programs::new()).unwrap();
    let spec = PolicySpec::parse("busyfcs").unwrap();

    // The simulator's view at the first Block.
    let mut at_block: Option<(Trigger, Vec<Facts>, Placement)> = None;
    let mut rec = Watched::new(build(&spec, &machine).unwrap(), |_, view, out| {
        if at_block.is_none() && matches!(view.trigger, Trigger::Block(_)) {
            at_block = Some((view.trigger, facts(view), Placement { affinity: out.affinity.clone(), ..Placement::default() }));
        }
    });
    Engine::new(&machine, &workload, &SimpleModel, &mut rec, SimConfig::default()).run().unwrap();
    drop(rec);
    let (trigger, sim_facts, sim_decision) = at_block.expect("the fast thread blocks at the barrier");
    let Trigger::Block(blocked) = trigger else { unreachable!() };
    assert_eq!(sim_facts.len(), 2);
    assert!(!sim_facts[blocked as usize].runnable);
    // The derivation the fixture is built on: thread 0 fast, thread 1 slow, the fast one blocks first
    // after 2e8 instructions at 2 GHz = 100 ms; then busyfcs moves thread 1 to the fast core.
    assert_eq!(blocked, 0);
    assert_eq!(sim_decision.affinity, vec![(1, machine.fast_cores())]);

    // The agent's monitor on a /proc tree of the same facts, in two samples: at start both threads
    // are runnable with no CPU time; at the Block they are as the simulator says.
    let proc = ProcTree::new("shared-view");
    let (pid, tids) = (4242u32, [4242u32, 4243]);
    let cpu_of = |core: Option<usize>| machine.cores[core.unwrap_or(0)].cpu;
    for (i, &tid) in tids.iter().enumerate() {
        proc.thread(pid, tid, 'R', cpu_of(Some(i)), 0);
    }
    let mut monitor = Monitor::with_proc_root(machine.clone(), &proc.path());
    assert!(monitor.add_process(pid));
    let mut policy = build(&spec, &machine).unwrap();
    let mut events = Vec::new();
    let mut last_quantum = None;
    let mut out = Placement::default();
    let mut enforcer = Enforcer::new(Path::new("/nonexistent"), 40_000_000);

    monitor.sample(0, &mut events);
    assert_eq!(events, vec![Trigger::Start(0), Trigger::Start(1)]);
    // On a built /proc tree the agent applies placements without the system call (these threads are not real).
    call_policy("busyfcs", policy.as_mut(), &mut monitor, &mut enforcer, 0, &events, &mut last_quantum, &mut out).unwrap();
    assert!(monitor.book.threads.iter().all(|t| t.allowed != machine.all_cores()), "both threads were placed");

    for (i, f) in sim_facts.iter().enumerate() {
        let state = if f.runnable { 'R' } else { 'S' };
        proc.thread(pid, tids[i], state, cpu_of(f.core), f.fast_ns + f.slow_ns);
    }
    events.clear();
    let now = 100_000_000;
    monitor.sample(now, &mut events);
    assert_eq!(events, vec![Trigger::Block(blocked)]);
    assert_eq!(facts(&monitor.book.view(&monitor.machine, trigger, now)), sim_facts);

    call_policy("busyfcs", policy.as_mut(), &mut monitor, &mut enforcer, now, &events, &mut last_quantum, &mut out).unwrap();
    assert_eq!(out, sim_decision);
}
