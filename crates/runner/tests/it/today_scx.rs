//! Today's energy and sched_ext policies in simulated runs on a small machine (2 big CPUs of
//! capacity 1024 at 1.0/2.0 GHz, 4 little ones of 512 at 0.5/1.0 GHz, with powers): each does
//! what its rule says it should, read from the run's trace.

use ampsched_model::workload::Programs;
use ampsched_model::{Machine, Workload};
use ampsched_policy::{build, PolicySpec};
use ampsched_sim::{Engine, RunResult, SimConfig};

const MACHINE: &str = "memory_latency_ns = 100\n\
    [[core_type]]\nname = \"big\"\ncount = 2\nfreq_ghz = 2.0\nfreq_levels_ghz = [1.0, 2.0]\npower_levels_w = [0.5, 2.0]\npower_active_w = 2.0\npower_idle_w = 0.0\n\
    [[core_type]]\nname = \"little\"\ncount = 4\nfreq_ghz = 1.0\nfreq_levels_ghz = [0.5, 1.0]\npower_levels_w = [0.05, 0.2]\npower_active_w = 0.2\npower_idle_w = 0.0\n";

const MS: u64 = 1_000_000;
const BIG: [u32; 2] = [0, 1];
/// A heavy thread's instructions: 600 ms on a big CPU at 2 GHz, 1.2 s at 1 GHz.
const HEAVY: f64 = 1.2e9;

/// `n` threads that each compute `instructions` (at CPI 1: 1 ms per 2e6 on a big CPU, 2 ms on a
/// little one) then sleep `sleep_s`, `repeat` times; and `heavy` threads computing `HEAVY`
/// throughout.
fn workload(n: usize, instructions: f64, sleep_s: f64, repeat: usize, heavy: usize) -> Workload {
    let mut text = String::new();
    if n > 0 {
        text += &format!(
            "[[app]]\nname = \"light\"\nthreads = {n}\nrepeat = {repeat}\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions}\n\
             [[app.phase]]\nkind = \"sleep\"\nseconds = {sleep_s}\n"
        );
    }
    if heavy > 0 {
        text += &format!("[[app]]\nname = \"heavy\"\nthreads = {heavy}\n[[app.phase]]\nkind = \"compute\"\ninstructions = {HEAVY}\n");
    }
    Workload::from_toml("w.toml", &text, &Programs::new()).unwrap()
}

fn run(policy: &str, w: &Workload) -> RunResult {
    let m = Machine::from_toml("m.toml", MACHINE).unwrap();
    let mut p = build(&PolicySpec::parse(policy).unwrap(), &m).unwrap();
    let cfg = SimConfig { max_segments: 1_000_000, ..SimConfig::default() };
    Engine::new(&m, w, &ampsched_model::SimpleModel, p.as_mut(), cfg).run().unwrap()
}

/// CPU time of thread `t` (all threads if None) on the big CPUs after `from_ns`, and in all.
fn time_after(r: &RunResult, t: Option<u32>, from_ns: u64) -> (u64, u64) {
    let mut big = 0;
    let mut all = 0;
    for s in r.segments.iter().filter(|s| s.end_ns > from_ns && t.is_none_or(|t| s.thread == t)) {
        let ns = s.end_ns - s.start_ns.max(from_ns);
        all += ns;
        if BIG.contains(&s.core) {
            big += ns;
        }
    }
    (big, all)
}

/// Two light threads (1 ms of big-CPU work, 2 ms on a little CPU, then 9 ms asleep): each keeps a
/// little CPU busy 2/11 of the time, invariant utilisation about 2/11 × 512 = 93, 186 for both.
/// That is under the autopilot's low mark (half a little CPU, 256): powersave, where the active
/// set is the first little CPUs whose halves cover 186 × 1.25 = 233: one (256). Once the
/// initial all-active set has been held for its 250 ms, the big CPUs stay idle and one little CPU
/// does the work.
#[test]
fn compaction_leaves_the_big_cpus_idle_at_light_load() {
    let r = run("compaction", &workload(2, 2e6, 0.009, 80, 0));
    assert!(r.segments_dropped == 0);
    let (big, all) = time_after(&r, None, 300 * MS);
    assert!(all > 0 && big == 0, "big CPUs ran {big} of {all} ns after 300 ms");
    let used = |r: &RunResult| r.segments.iter().filter(|s| s.start_ns >= 300 * MS).map(|s| s.core).collect::<std::collections::BTreeSet<u32>>();
    assert_eq!(used(&r).into_iter().collect::<Vec<_>>(), vec![2], "one little CPU active");
    // In performance mode nothing is compacted: every CPU is active, and the two threads (of
    // equal criticality, none above the average: not critical) spread over the little CPUs.
    let r = run("compaction:mode=performance", &workload(2, 2e6, 0.009, 80, 0));
    let cores = used(&r);
    assert!(cores.len() == 2 && cores.iter().all(|&c| c >= 2), "{cores:?}");
}

/// p2dq-eas: a heavy thread (util toward 1024 > 768) goes big; a light one (1 ms of big-CPU work
/// per 13 ms, invariant util about 2/14 × 512 = 73 < 128) goes little, once its util has decayed
/// from a new task's 512 (between the thresholds, where the score takes big): 512 → 128 is two
/// PELT half-lives, 67 ms, so from 200 ms on each is where its threshold puts it.
#[test]
fn p2dq_eas_sends_light_threads_little_and_heavy_ones_big() {
    let w = workload(1, 2e6, 0.012, 30, 1);
    let r = run("p2dq-eas", &w);
    let (light, heavy) = (0, 1);
    let (big, all) = time_after(&r, Some(light), 200 * MS);
    assert!(all > 0 && big == 0, "light thread: {big} of {all} ns on big");
    let (big, all) = time_after(&r, Some(heavy), 200 * MS);
    assert!(all > 0 && big == all, "heavy thread: {big} of {all} ns on big");
}

/// primary-domain:powersave: two CPU-bound threads fit the 4 little CPUs and never touch a big
/// one, at the little CPUs' lowest level (bpfland's minimum cpufreq level). Six saturate the
/// domain: the two beyond it overflow to the idle big CPUs, at their lowest level too (1.0 GHz),
/// and run there to the end, 1.2e9 instructions in 1.2 s each: 2.4 s of big-CPU time.
#[test]
fn primary_domain_keeps_threads_home_until_it_saturates() {
    let r = run("primary-domain:domain=powersave", &workload(0, 0.0, 0.0, 0, 2));
    assert_eq!(time_after(&r, None, 0).0, 0);
    for c in &r.cores[2..] {
        assert_eq!(c.busy_ns_by_level[1], 0, "little core {} ran above its lowest level", c.id);
    }
    let r = run("primary-domain:domain=powersave", &workload(0, 0.0, 0.0, 0, 6));
    let (big, _) = time_after(&r, None, 0);
    assert!((big as f64 / 2.4e9 - 1.0).abs() < 0.01, "the big CPUs took {big} ns");
}

/// linux-eas on one CPU-bound thread: it starts as a new task (util 512, which fits only the big
/// CPUs: 512 × 1280 ≥ 512 × 1024) on big CPU 0 at 2 GHz. The view's first interval is the one
/// ending at the first quantum call (4 ms), so the estimator sees the first 4 ms as idle: 512 ·
/// 2^(−4 / 33.554) = 471. From there util_avg climbs as 1024 − 553 · 2^(−(t − 4 ms) / 33.554 ms):
/// 818.8 at the 52 ms balance (fits: 818 × 1280 = 1,047,040 < 1024 × 1024), 835.0 at 56 ms (does
/// not): the system turns over-utilised at the 56 ms call and stays so, and the thread, released
/// to all CPUs, stays on the big ones under linux-capacity.
#[test]
fn eas_turns_over_utilised_when_a_cpu_passes_80_percent() {
    use ampsched_policy::today::linux_eas::LinuxEas;
    let m = Machine::from_toml("m.toml", MACHINE).unwrap();
    let spec = PolicySpec::parse("linux-eas").unwrap();
    let eas = LinuxEas::new(&ampsched_policy::Options::new(&spec, ampsched_policy::today::linux_eas::INFO.options).unwrap(), &m);
    let mut flips: Vec<(u64, bool)> = Vec::new();
    let mut p = ampsched_model::Watched::new(eas, |p: &LinuxEas, v, _| {
        if v.trigger == ampsched_model::Trigger::Quantum && flips.last().is_none_or(|&(_, o)| o != p.is_overutilized()) {
            flips.push((v.now_ns, p.is_overutilized()));
        }
    });
    let w = workload(0, 0.0, 0.0, 0, 1);
    let cfg = SimConfig { max_segments: 1_000_000, ..SimConfig::default() };
    let r = Engine::new(&m, &w, &ampsched_model::SimpleModel, &mut p, cfg).run().unwrap();
    assert_eq!(flips, vec![(4 * MS, false), (56 * MS, true)]);
    assert_eq!(time_after(&r, None, 0).0, time_after(&r, None, 0).1, "the thread ran on big CPUs only");
}

/// linux-eas on two light threads (1 ms of big-CPU work per 10 ms): once their util_avg has
/// decayed from a new task's 512 (two half-lives bring it under 128 by about 70 ms) each wake-up
/// finds the little domain cheapest, and schedutil keeps it at 0.5 GHz (1.25 × 1.0 GHz × util /
/// 512 stays under 0.5 GHz while util < 205): after 200 ms no big CPU runs, and the little CPUs
/// run mostly at their lowest level.
#[test]
fn eas_keeps_light_threads_on_slow_little_cpus() {
    let r = run("linux-eas", &workload(2, 2e6, 0.009, 60, 0));
    let (big, all) = time_after(&r, None, 200 * MS);
    assert!(all > 0 && big == 0, "{big} of {all} ns on big after 200 ms");
    let (low, high): (u64, u64) = r.cores[2..].iter().map(|c| (c.busy_ns_by_level[0], c.busy_ns_by_level[1])).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert!(low > 4 * high, "little CPUs: {low} ns at 0.5 GHz, {high} ns at 1.0 GHz");
}
