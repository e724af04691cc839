//! Per-thread hardware counters: the group arithmetic by hand, the monitor's charging with a
//! scripted counter source on a built /proc tree, and the real perf_event path where this
//! machine has a PMU (this project's CI VM has none: there that test is ignored, with its reason).

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::common::ProcTree;
use ampsched_agent::counters::{parse_group, scaled_delta, CounterDelta, CounterSource, Counting, GroupReading, OpenError};
use ampsched_agent::monitor::Monitor;
use ampsched_agent::perf::PerfCounters;
use ampsched_model::{Machine, Signals};

const MACHINE: &str = common::ONE_FAST_ONE_SLOW;

fn reading(enabled: u64, running: u64, counts: [u64; 3]) -> GroupReading {
    GroupReading { time_enabled_ns: enabled, time_running_ns: running, counts }
}

#[test]
fn a_group_read_is_nr_then_the_two_times_then_the_values() {
    assert_eq!(parse_group(&[3, 1000, 500, 10, 20, 30]), Some(reading(1000, 500, [10, 20, 30])));
    assert_eq!(parse_group(&[2, 1000, 500, 10, 20]), None, "a group of two is not ours");
    assert_eq!(parse_group(&[3, 1000, 500, 10, 20]), None, "a short read");
    assert_eq!(parse_group(&[]), None);
}

#[test]
fn deltas_are_scaled_by_the_intervals_own_enabled_to_running_ratio() {
    // Interval: enabled 3000 - 1000 = 2000 ns, running 2000 - 1000 = 1000 ns: the group was on
    // the PMU half the time, so each count added is doubled.
    let before = reading(1000, 1000, [100, 200, 10]);
    let after = reading(3000, 2000, [1100, 2200, 60]);
    assert_eq!(scaled_delta(&before, &after), Some(CounterDelta { instructions: 2000.0, cycles: 4000.0, llc_misses: 100.0 }));
    // Scaling the cumulative readings instead would give 1100·1.5 − 100 = 1550 instructions.
    // Not running and not enabled: the thread did not run, which is zero, measured.
    assert_eq!(scaled_delta(&after, &after), Some(CounterDelta::default()));
    // Enabled but never on the PMU: unknown, not zero.
    assert_eq!(scaled_delta(&after, &reading(4000, 2000, [1100, 2200, 60])), None);
}

/// A scripted source: each thread's next reading, and a log of what the monitor asked.
#[derive(Default)]
struct Script {
    next: HashMap<u32, GroupReading>,
    refuse_tid: Option<u32>,
    opened: Vec<(u32, u32)>,
    reads: Vec<u32>,
    closed: Vec<u32>,
}

struct Scripted(Arc<Mutex<Script>>);

impl CounterSource for Scripted {
    fn open(&mut self, id: u32, tid: u32) -> Result<(), OpenError> {
        let mut s = self.0.lock().unwrap();
        if s.refuse_tid == Some(tid) {
            return Err(OpenError::Failed("out of file descriptors".into()));
        }
        s.opened.push((id, tid));
        Ok(())
    }
    fn read(&mut self, id: u32) -> Option<GroupReading> {
        let mut s = self.0.lock().unwrap();
        s.reads.push(id);
        s.next.get(&id).copied()
    }
    fn close(&mut self, id: u32) {
        self.0.lock().unwrap().closed.push(id);
    }
    fn describe(&self) -> String {
        "scripted".into()
    }
}

#[test]
fn the_monitor_charges_counters_to_the_core_type_of_the_cpu_time_and_reads_only_threads_that_ran() {
    let machine = Machine::from_toml("machine", MACHINE).unwrap();
    let proc = ProcTree::new("counters");
    let pid = 5000;
    // Thread 5000 runs on CPU 1 (the slow type); thread 5001 sleeps on CPU 0.
    proc.thread(pid, 5000, 'R', 1, 0);
    proc.thread(pid, 5001, 'S', 0, 0);
    let script = Arc::new(Mutex::new(Script::default()));
    let mut m = Monitor::with_proc_root(machine, &proc.path());
    m.counting = Some(Counting::new(Box::new(Scripted(script.clone()))));
    m.book.available = Signals::COUNTERS;
    assert!(m.add_process(pid));
    let mut events = Vec::new();
    m.sample(0, &mut events);
    assert_eq!(script.lock().unwrap().opened, vec![(0, 5000), (1, 5001)]);
    assert!(script.lock().unwrap().reads.is_empty(), "a group opened at this sample has nothing to read");

    // 10 ms later thread 5000 has run 10 ms, its group half of that on the PMU; 5001 has not run.
    proc.thread(pid, 5000, 'R', 1, 10_000_000);
    script.lock().unwrap().next.insert(0, reading(10_000_000, 5_000_000, [1_000_000, 2_000_000, 1_000]));
    m.sample(10_000_000, &mut events);
    assert_eq!(script.lock().unwrap().reads, vec![0], "only the thread that ran is read");
    let slow = m.book.threads[0].per_type[1];
    assert_eq!((slow.time_ns, slow.instructions, slow.cycles, slow.llc_misses), (10_000_000, 2e6, 4e6, 2e3));
    assert_eq!(m.book.threads[0].per_type[0].instructions, 0.0, "nothing on the fast type");
    assert_eq!(m.book.available, Signals::COUNTERS);

    // A new thread that cannot be counted: counting stops for all, and is no longer offered.
    script.lock().unwrap().refuse_tid = Some(5002);
    proc.thread(pid, 5002, 'R', 0, 0);
    m.sample(20_000_000, &mut events);
    let c = m.counting.as_ref().unwrap();
    assert!(c.stopped().unwrap().contains("thread 5002") && c.stopped().unwrap().contains("out of file descriptors"));
    assert_eq!(m.book.available, Signals::NONE);
    let mut closed = script.lock().unwrap().closed.clone();
    closed.sort();
    assert_eq!(closed, vec![0, 1]);
}

#[test]
fn an_exited_threads_group_is_closed() {
    let machine = Machine::from_toml("machine", MACHINE).unwrap();
    let proc = ProcTree::new("counters-exit");
    let pid = 6000;
    proc.thread(pid, 6000, 'R', 0, 0);
    proc.thread(pid, 6001, 'R', 0, 0);
    let script = Arc::new(Mutex::new(Script::default()));
    let mut m = Monitor::with_proc_root(machine, &proc.path());
    m.counting = Some(Counting::new(Box::new(Scripted(script.clone()))));
    assert!(m.add_process(pid));
    let mut events = Vec::new();
    m.sample(0, &mut events);
    std::fs::remove_dir_all(proc.0.join(format!("{pid}/task/6001"))).unwrap();
    m.sample(10_000_000, &mut events);
    assert_eq!(script.lock().unwrap().closed, vec![1]);
}

#[test]
#[cfg_attr(not(ampsched_test_pmu), ignore = "needs hardware counters (a PMU the kernel lists, perf_event_paranoid <= 2 or root)")]
fn real_counters_count_this_threads_instructions_where_the_machine_has_a_pmu() {
    let perf = PerfCounters::new();
    if let Err(why) = &perf {
        common::prerequisite(false, &format!("hardware counters ({why})"));
    }
    let mut perf = perf.unwrap();
    // SAFETY: gettid takes no arguments.
    let tid = unsafe { libc::gettid() } as u32;
    perf.open(0, tid).expect("the probe opened the same group on this thread");
    let before = perf.read(0).expect("readable");
    // A loop of at least 10 million iterations retires at least 10 million instructions.
    let mut x = 0u64;
    for i in 0..10_000_000u64 {
        x = std::hint::black_box(x.wrapping_add(i));
    }
    let after = perf.read(0).expect("readable");
    let d = scaled_delta(&before, &after).expect("the group was on the PMU");
    assert!(d.instructions >= 1e7, "{d:?}");
    assert!(d.cycles > 0.0, "{d:?}");
    perf.close(0);
}

#[test]
fn hass_d_runs_live_only_where_counters_are_offered() {
    use ampsched_agent::agent::{agent_signals, check_policy};
    let needs = ampsched_policy::info("hass-d").unwrap().needs;
    assert_eq!(needs, Signals::COUNTERS);
    assert!(check_policy("hass-d", needs, agent_signals(true, false), None).is_ok(), "a machine with a PMU");
    let why = "the CPU or hypervisor exposes no hardware counters";
    let refused = check_policy("hass-d", needs, agent_signals(false, true), Some(why)).unwrap_err().to_string();
    assert_eq!(
        refused,
        format!("--policy: hass-d: hass-d cannot run live: it needs per-thread hardware counters (instructions, cycles, LLC misses), which the live agent here does not give ({why})")
    );
    // hass-s reads program signatures, which no live source gives.
    let hints = ampsched_policy::info("hass-s").unwrap().needs;
    assert!(check_policy("hass-s", hints, agent_signals(true, true), None).is_err());
}

#[test]
fn hass_d_estimates_from_the_agents_counters_and_swaps_the_memory_bound_thread_off_the_fast_core() {
    estimates_from_the_agents_counters_and_swaps_the_memory_bound_thread_off_the_fast_core("hass-d");
}

/// CAMP and SFD (Sáez thesis, ch. 6) estimate SFs the way HASS-D does and run live alike. Here
/// the two threads are one process's: CAMP's UF counts its 2 runnable threads on 1 fast core
/// (2 iterations): 1 + (1.9 − 1)/4 = 1.225 for the compute-bound thread (MEDIUM, over 1.2) and
/// 1 + (1.25 − 1)/4 = 1.06 for the other (LOW); SFD's is the SF's category label alone, 1.9
/// (HIGH) and 1.25 (MEDIUM). Either way they swap when the estimates are made.
#[test]
fn camp_and_sfd_estimate_from_the_agents_counters_as_hass_d_does() {
    for name in ["camp", "sfd"] {
        use ampsched_agent::agent::{agent_signals, check_policy};
        let needs = ampsched_policy::info(name).unwrap().needs;
        assert_eq!(needs, Signals::COUNTERS);
        assert!(check_policy(name, needs, agent_signals(true, false), None).is_ok());
        assert!(check_policy(name, needs, agent_signals(false, true), Some("no PMU")).is_err());
        estimates_from_the_agents_counters_and_swaps_the_memory_bound_thread_off_the_fast_core(name);
    }
}

fn estimates_from_the_agents_counters_and_swaps_the_memory_bound_thread_off_the_fast_core(name: &str) {
    use ampsched_model::{Placement, Trigger};
    let machine = Machine::from_toml("machine", MACHINE).unwrap();
    let proc = ProcTree::new(&format!("counters-{name}"));
    let pid = 7000;
    // 7000 (id 0) starts first, so goes to the fast CPU 0 (new threads have the lowest SF, ties
    // go fast); 7001 (id 1) to the slow CPU 1.
    proc.thread(pid, 7000, 'R', 0, 0);
    proc.thread(pid, 7001, 'R', 1, 0);
    let script = Arc::new(Mutex::new(Script::default()));
    let mut m = Monitor::with_proc_root(machine.clone(), &proc.path());
    m.counting = Some(Counting::new(Box::new(Scripted(script.clone()))));
    m.book.available = Signals::COUNTERS;
    assert!(m.add_process(pid));
    let mut policy = ampsched_policy::build(&ampsched_policy::PolicySpec::parse(&format!("{name}:sample_ms=10")).unwrap(), &machine).unwrap();
    let mut out = Placement::default();
    // What the enforcer would do: the affinities decided become the view's.
    let mut decide = |m: &mut Monitor, trigger: Trigger, now: u64, out: &mut Placement| {
        out.clear();
        m.book.begin_call(trigger, now);
        policy.decide(&m.book.view(&m.machine, trigger, now), out).unwrap();
        m.book.end_call();
        for (t, cores) in out.affinity.clone() {
            m.book.threads[t as usize].allowed = cores;
            m.book.mark_changed(t);
        }
    };
    let mut events = Vec::new();
    m.sample(0, &mut events);
    for ev in events.drain(..) {
        decide(&mut m, ev, 0, &mut out);
    }
    let (fast, slow) = (ampsched_model::CoreSet::single(0), ampsched_model::CoreSet::single(1));
    assert_eq!((&m.book.threads[0].allowed, &m.book.threads[1].allowed), (&fast, &slow));
    // Every 10 ms: 7000 on the fast core (2 GHz) at 30 MPKI and CPI 1: 2 857 142 instructions,
    // 85 714 misses, 2e7 cycles (1 + 30 × 0.1 ns × 2 GHz = 7 cycles each); SF (1 + 3) / (0.5 + 3)
    // = 1.143. 7001 on the slow core (1 GHz), compute-bound: 1e7 instructions and cycles: SF 2.
    let mut swapped_at = None;
    for step in 1..=6u64 {
        let now = step * 10_000_000;
        proc.thread(pid, 7000, 'R', 0, now);
        proc.thread(pid, 7001, 'R', 1, now);
        let mut s = script.lock().unwrap();
        s.next.insert(0, reading(now, now, [2_857_142 * step, 20_000_000 * step, 85_714 * step]));
        s.next.insert(1, reading(now, now, [10_000_000 * step, 10_000_000 * step, 0]));
        drop(s);
        m.sample(now, &mut events);
        events.clear();
        decide(&mut m, Trigger::Quantum, now, &mut out);
        if swapped_at.is_none() && m.book.threads[0].allowed == slow {
            swapped_at = Some(step);
        }
    }
    // The first period (the start) discarded, the second starts the phase, the third and
    // fourth are stable: at 40 ms the estimates are 1.143 and 2, and the two swap.
    assert_eq!(swapped_at, Some(4), "{name}");
    assert_eq!(m.book.threads[1].allowed, fast);
    let estimates = policy.diagnostics().expect("the policy estimates SFs");
    assert!((estimates.sf_estimate(0).unwrap() - 8.0 / 7.0).abs() < 1e-4, "{:?}", estimates.sf_estimate(0));
    assert!((estimates.sf_estimate(1).unwrap() - 2.0).abs() < 1e-9);
}
