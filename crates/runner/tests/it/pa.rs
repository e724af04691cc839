//! PA, MinTLP and PA-RTX (Sáez thesis, §5.1): checked on hand-built workloads whose timing
//! follows from the performance model (no memory stalls: an instruction at CPI 1 takes 1/f ns),
//! on the recorded schedule (segments) and at each policy call.
//!
//! The machine: one fast core at 2 GHz (core 0) and three slow ones at 1 GHz, so PA's
//! hp_threshold is 2 (fast cores + 1). Threads are numbered as they start (in workload order when
//! they start together).

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Placement, Policy, SimpleModel, SystemView, ThreadState, Watched, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_sim::{Engine, RunResult, SimConfig};

const MS: u64 = 1_000_000;
const QUANTUM: u64 = 10 * MS;

fn machine_1f3s() -> Machine {
    Machine::from_toml(
        "1f3s.toml",
        "name = \"1f3s\"\nmemory_latency_ns = 100.0\n\
         [[core_type]]\nname = \"fast\"\ncount = 1\nfreq_ghz = 2.0\npower_active_w = 1.0\npower_idle_w = 0.1\n\
         [[core_type]]\nname = \"slow\"\ncount = 3\nfreq_ghz = 1.0\npower_active_w = 1.0\npower_idle_w = 0.1\n",
    )
    .unwrap()
}

fn workload(text: &str) -> Workload {
    Workload::from_toml("w.toml", text, &Programs::new()).unwrap()
}

fn simulate_with(m: &Machine, w: &Workload, p: &mut dyn Policy) -> RunResult {
    let cfg = SimConfig { max_segments: usize::MAX, ..SimConfig::default() };
    let r = Engine::new(m, w, &SimpleModel, p, cfg).run().unwrap();
    assert_eq!(r.segments_dropped, 0);
    r
}

fn simulate(m: &Machine, w: &Workload, spec: &str) -> RunResult {
    let mut p = build(&PolicySpec::parse(spec).unwrap(), m).unwrap();
    simulate_with(m, w, p.as_mut())
}

/// A fork-join app of 4 threads (a short parallel phase of 1e8 instructions each, then a serial
/// phase of `serial` instructions run by thread 0 while the others wait as `wait` says), and a
/// single-threaded CPU-bound app (thread 4) arriving at `st_arrival_s`.
fn forkjoin_and_st(serial: f64, wait: &str, st_arrival_s: f64) -> Workload {
    workload(&format!(
        "[[app]]\nname = \"fj\"\nthreads = 4\n\
         [[app.phase]]\nkind = \"compute\"\ninstructions = 1e8\n\
         [[app.phase]]\nkind = \"serial\"\ninstructions = {serial}\n{wait}\nscope = \"group\"\n\
         [[app.phase]]\nkind = \"compute\"\ninstructions = 1e7\n\
         [[app]]\nname = \"st\"\narrival_s = {st_arrival_s}\n\
         [[app.phase]]\nkind = \"compute\"\ninstructions = 2e10\n"
    ))
}

/// Thread `t`'s segments, in time order.
fn segments_of(r: &RunResult, t: u32) -> Vec<(u32, u64, u64)> {
    let mut s: Vec<(u32, u64, u64)> = r.segments.iter().filter(|s| s.thread == t).map(|s| (s.core, s.start_ns, s.end_ns)).collect();
    s.sort_by_key(|&(_, start, _)| start);
    s
}

/// When a blocking serial phase began: the others wait (off the CPU) from then until it ends,
/// so it is the latest start of the longest gap in the segments of a thread other than the leader.
fn serial_start(r: &RunResult) -> u64 {
    (1..4)
        .map(|t| {
            let s = segments_of(r, t);
            s.windows(2).max_by_key(|w| w[1].1 - w[0].2).map(|w| w[0].2).unwrap()
        })
        .max()
        .unwrap()
}

/// When thread `t` last ran.
fn last_end(r: &RunResult, t: u32) -> u64 {
    segments_of(r, t).last().unwrap().2
}

#[test]
fn pa_moves_a_serial_phase_to_the_fast_core_within_a_quantum_and_releases_it_after_the_boost() {
    // The ST app starts with the others (t = 0): it holds the fast core while fj's 4 threads
    // are HP (4 ≥ 2). fj's parallel phase: 4 threads × 1e8 instructions on 3 slow cores, about
    // 0.13 s. Then its serial phase of 4e9 instructions (2 s on the fast core) is SP: the
    // leader must be on the fast core within one quantum (a swap with the ST thread), stay there
    // for the boost (100 ticks of 10 ms = 1 s of fast-core time), and then, an MP thread
    // whose 20 ms stint on the fast core expires, be swapped back with the expired ST thread.
    let m = machine_1f3s();
    let w = forkjoin_and_st(4e9, "wait = \"block\"", 0.0);
    let r = simulate(&m, &w, "pa:expire_fast_ms=20");
    let start = serial_start(&r);
    let leader = segments_of(&r, 0);
    let first_fast = leader.iter().find(|&&(core, s, _)| core == 0 && s >= start).expect("the leader reaches the fast core");
    assert!(first_fast.1 <= start + QUANTUM + MS, "serial phase from {start} ns, on the fast core only at {} ns", first_fast.1);
    // The boosted stint: from first_fast to the leader's next segment on a slow core.
    let leaves = leader.iter().find(|&&(core, s, _)| core != 0 && s > first_fast.1).expect("the leader leaves the fast core").1;
    let stint = leaves - first_fast.1;
    // It alone runs on the fast core meanwhile, so its fast time is the stint: at least the
    // boost, at most the boost + its 20 ms MP stint + a quantum to see each + a migration.
    assert!(stint >= 1000 * MS - QUANTUM, "boosted for only {stint} ns");
    assert!(stint <= 1000 * MS + 20 * MS + 2 * QUANTUM + MS, "boosted for {stint} ns");
    // And the ST thread takes the fast core back.
    assert!(segments_of(&r, 4).iter().any(|&(core, s, _)| core == 0 && s >= leaves && s <= leaves + MS));
}

#[test]
fn pa_swaps_an_hp_thread_on_the_fast_core_with_an_st_thread_on_a_slow_core() {
    // An HP app of 5 threads from t = 0: two start on the fast partition, three on the slow
    // (§2.3 placement: lowest scaled load, ties to fast). The ST app arriving at 55 ms sees
    // scaled loads 2 (fast) and 1 (slow) and starts on a slow core; it outranks HP (Table 5.1),
    // so within one quantum it is swapped with an HP thread of the fast partition, and as an
    // ST thread facing only HP threads it never goes back to a slow core.
    let m = machine_1f3s();
    let w = workload(
        "[[app]]\nname = \"hp\"\nthreads = 5\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e9\n\
         [[app]]\nname = \"st\"\narrival_s = 0.055\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e9\n",
    );
    let r = simulate(&m, &w, "pa");
    let st = segments_of(&r, 5);
    assert_ne!(st[0].0, 0, "the ST thread starts on a slow core");
    let up = st.iter().position(|&(core, _, _)| core == 0).expect("the ST thread reaches the fast core");
    assert!(st[up].1 <= 55 * MS + QUANTUM + MS, "on the fast core only at {} ns", st[up].1);
    assert!(st[up..].iter().all(|&(core, _, _)| core == 0), "the ST thread went back to a slow core");
    // The swap's other half: an HP thread that ran on the fast core runs on a slow core after.
    let swapped_down = (0..5).any(|t| {
        let s = segments_of(&r, t);
        s.iter().any(|&(c, st0, _)| c == 0 && st0 < st[up].1) && s.iter().any(|&(c, st0, _)| c != 0 && st0 >= st[up].1 - MS)
    });
    assert!(swapped_down);
}

#[test]
fn with_spinning_waits_pa_cannot_see_the_serial_phase_and_pa_rtx_can() {
    // The same fork-join app, but its threads spin while the leader runs the serial phase
    // (4e9 instructions: 2 s fast, 4 s slow). Spinning threads are runnable: under PA the app
    // stays HP (4 runnable ≥ 2), the ST thread keeps the fast core and fj never gets it. PA-RTX
    // hears the spinners after 1 ms of spinning: the app is SP, and its leader runs on the fast
    // core for the boost (1 s of fast-core time), which takes fj ≥ 1 s off its run.
    let m = machine_1f3s();
    let w = forkjoin_and_st(4e9, "wait = \"spin\"", 0.0);
    let pa = simulate(&m, &w, "pa");
    let rtx = simulate(&m, &w, "pa-rtx");
    let fast = |r: &RunResult, t: usize| r.threads[t].per_type[0].time_ns;
    assert!(fast(&pa, 0) < QUANTUM, "PA gave the leader {} ns on the fast core", fast(&pa, 0));
    assert!(fast(&rtx, 0) >= 1000 * MS - QUANTUM, "PA-RTX gave the leader only {} ns on the fast core", fast(&rtx, 0));
    let fj_end = |r: &RunResult| (0..4).map(|t| last_end(r, t)).max().unwrap();
    assert!(fj_end(&rtx) + 900 * MS < fj_end(&pa), "fj ends at {} ns under PA-RTX, {} ns under PA", fj_end(&rtx), fj_end(&pa));
    // With blocking waits PA sees the same serial phase PA-RTX sees with spinning ones.
    let blocking = simulate(&m, &forkjoin_and_st(4e9, "wait = \"block\"", 0.0), "pa");
    assert!(fast(&blocking, 0) >= 1000 * MS - QUANTUM);
}

/// MinTLP's promise, checked after each of its decisions: no runnable thread of an app sits in
/// the slow partition while a runnable thread of an app with more runnable threads is in the
/// fast one. The violations found, each a line.
fn mintlp_violations(view: &SystemView, out: &Placement, violations: &mut Vec<String>) {
    let fast = view.machine.fast_cores();
    let on_fast = |t: u32| {
        let allowed = out.affinity.iter().rev().find(|(x, _)| *x == t).map(|(_, c)| c.clone()).unwrap_or_else(|| view.thread(t).allowed.clone());
        allowed.is_subset(&fast)
    };
    let runnable: Vec<(u32, u32, bool)> = view
        .live_threads()
        .filter(|v| v.state.is_runnable() && v.state != ThreadState::Exited)
        .map(|v| (v.id, view.apps[v.app as usize].runnable_threads, on_fast(v.id)))
        .collect();
    for &(a, na, fa) in &runnable {
        for &(b, nb, fb) in &runnable {
            if fa && !fb && nb < na {
                violations.push(format!("at {} ns: thread {a} (app of {na} runnable) fast, thread {b} (app of {nb}) slow", view.now_ns));
            }
        }
    }
}

#[test]
fn mintlp_never_gives_the_fast_core_to_an_app_with_more_runnable_threads_while_one_with_fewer_waits() {
    // Three apps of 1, 2 and 3 threads, the parallel ones with serial phases (blocking waits)
    // and sleeps, so runnable counts rise and fall all the time.
    let m = machine_1f3s();
    let w = workload(
        "[[app]]\nname = \"one\"\narrival_s = 0.02\n[[app.phase]]\nkind = \"compute\"\ninstructions = 3e8\n\
         [[app.phase]]\nkind = \"sleep\"\nseconds = 0.05\n[[app.phase]]\nkind = \"compute\"\ninstructions = 3e8\n\
         [[app]]\nname = \"two\"\nthreads = 2\nrepeat = 4\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1e8\n\
         [[app.phase]]\nkind = \"serial\"\ninstructions = 5e7\nwait = \"block\"\nscope = \"group\"\n\
         [[app]]\nname = \"three\"\nthreads = 3\nrepeat = 3\n[[app.phase]]\nkind = \"compute\"\ninstructions = 1.5e8\n\
         [[app.phase]]\nkind = \"serial\"\ninstructions = 1e8\nwait = \"block\"\nscope = \"group\"\n",
    );
    let (mut calls, mut violations) = (0, Vec::new());
    let mut p = Watched::new(build(&PolicySpec::parse("mintlp").unwrap(), &m).unwrap(), |_, view, out| {
        calls += 1;
        mintlp_violations(view, out, &mut violations);
    });
    let r = simulate_with(&m, &w, &mut p);
    drop(p);
    assert!(calls > 50, "only {calls} calls");
    assert!(violations.is_empty(), "{} violations, first: {}", violations.len(), violations[0]);
    // And it matters: the single-threaded app runs on the fast core whenever it runs.
    let one = r.threads.iter().find(|t| t.app == 0).unwrap();
    assert_eq!(one.per_type[1].time_ns, 0, "the 1-thread app ran {} ns on slow cores", one.per_type[1].time_ns);
}

#[test]
fn pa_and_mintlp_are_deterministic() {
    let m = machine_1f3s();
    let w = forkjoin_and_st(1e9, "wait = \"spin_then_block\"\nspin_limit_us = 500", 0.03);
    for spec in ["pa", "mintlp", "pa-rtx"] {
        let (a, b) = (simulate(&m, &w, spec), simulate(&m, &w, spec));
        assert_eq!(a.segments, b.segments, "{spec}");
    }
}

#[test]
fn pa_shares_the_fast_core_among_st_threads_and_mintlp_does_not() {
    // Three single-threaded apps on one fast and three slow cores (scenario 1 of §5.1.1: more
    // ST threads than fast cores). PA swaps an ST thread whose 50 ms stint on the fast core
    // expired with one expired on a slow core, so while all three run each gets about a third
    // of the fast core; MinTLP ranks them alike (one runnable thread each) and never swaps,
    // so the first keeps the fast core.
    let m = machine_1f3s();
    let app = |i: usize| format!("[[app]]\nname = \"st{i}\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = 2e9\n");
    let w = workload(&(0..3).map(app).collect::<String>());
    let fast_shares = |r: &RunResult| {
        let window = (0..3).map(|t| last_end(r, t)).min().unwrap();
        let fast: Vec<u64> =
            (0..3).map(|t| segments_of(r, t).iter().filter(|&&(c, s, _)| c == 0 && s < window).map(|&(_, s, e)| e.min(window) - s).sum()).collect();
        fast.iter().map(|&f| f as f64 / window as f64).collect::<Vec<f64>>()
    };
    let pa = fast_shares(&simulate(&m, &w, "pa:expire_fast_ms=50:expire_slow_ms=50"));
    assert!(pa.iter().all(|&s| (0.28..=0.40).contains(&s)), "PA's fast-core shares {pa:?}");
    let mintlp = fast_shares(&simulate(&m, &w, "mintlp"));
    assert!(mintlp.iter().filter(|&&s| s > 0.99).count() == 1 && mintlp.iter().filter(|&&s| s == 0.0).count() == 2, "MinTLP's fast-core shares {mintlp:?}");
}
