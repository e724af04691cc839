//! The `best-static` oracle against exhaustive search: every one of the 2^n assignments of
//! threads to the fast or slow partition is simulated with the oracle's own policy
//! (`BestStatic`), and what `Experiment::run("best-static")` reports is compared with the lowest
//! geometric mean of slowdowns found that way (the thesis's score, §4.3.3; not ANTT, their
//! arithmetic mean).
//!
//! The oracle prunes in three ways (crates/policy/src/baseline/best_static.rs): interchangeable threads
//! (identical apps) form classes, so only fast counts per class are tried; with as many threads
//! as cores an assignment gives each thread a core of its own (the papers' static assignments);
//! otherwise it must keep every fast core busy and the two partitions' per-core loads within one thread (the
//! thesis's §2.3 balance rule); and beyond `max_runs` candidates, only the model's best are
//! simulated. What these tests establish:
//! - with fast cores at most 2x faster (the thesis's regime, ⌊P⌋ = 1) and `max_runs` large
//!   enough, the oracle finds the exhaustive optimum, class merging included;
//! - in every case it finds the best assignment the balance rule admits; where fast cores are
//!   more than 3x faster, a fast core counts for ⌊P⌋ threads in the rule, so two threads sharing
//!   the fast core (which beats one of them alone on a slow core) is tried: shown on the
//!   catalog's `wash-1b5s` (a rule with ⌊P⌋ = 1 excluded it: the bug these tests found), where
//!   it is admissible but, by the geometric mean, not best;
//! - with as many threads as cores, only one-per-core assignments are candidates, even where
//!   two threads sharing the fast core would score better (1F+1S at 4x);
//! - a small `max_runs` simulates exactly the first candidates of one fixed ranking: the result
//!   only improves as `max_runs` grows, is always a real admissible assignment, and reaches the
//!   optimum once every candidate is simulated; on a case where the model's ranking is clear by
//!   hand, `max_runs=1` picks it; and the ranking can miss (shown below).

use ampsched_model::{App, Machine, Phase, Workload};
use ampsched_policy::baseline::best_static::{self, Assignment, BestStatic, SLOW};
use ampsched_policy::common::FAST;
use ampsched_runner::{geomean_slowdown, Experiment, Settings};
use ampsched_sim::metrics;
use serde_json::Value;

use crate::common::ScratchDir;

type Key = (u32, u16, u32);

/// Every thread's oracle key, in workload order.
fn keys(w: &Workload) -> Vec<Key> {
    let mut out = Vec::new();
    for (a, app) in w.apps.iter().enumerate() {
        for (g, group) in app.groups.iter().enumerate() {
            for i in 0..group.count {
                out.push((a as u32, g as u16, i));
            }
        }
    }
    out
}

/// The oracle's rule as its documentation states it: with as many threads as cores, one thread
/// per core; otherwise the thesis's balance rule (§2.3): every fast core busy (at least
/// min(threads, fast cores) fast threads), and the partitions' scaled loads within one of each
/// other, a fast core counting for ⌊P⌋ threads.
fn admissible(fast: usize, n: usize, m: &Machine, slots: usize) -> bool {
    let (nfc, nsc) = (m.fast_cores().len(), m.slow_cores().len());
    if n == nfc + nsc {
        return fast == nfc;
    }
    let (lf, ls) = (fast.div_ceil(slots * nfc), (n - fast).div_ceil(nsc));
    fast >= n.min(nfc) && lf <= ls + 1 && ls <= lf + 1
}

/// ⌊P⌋, P the geometric mean over threads of the time of its work on a slow core over a fast
/// one, from the performance model (the thesis measures P as a geomean speedup of the programs).
fn slots(m: &Machine, w: &Workload) -> usize {
    use ampsched_model::{PerfModel, SimpleModel};
    let (fast, slow) = (m.fastest_type(), m.cores[m.slow_cores().first().unwrap()].core_type);
    let (mut logs, mut n) = (0.0, 0.0);
    for app in &w.apps {
        for g in &app.groups {
            let time = |ty: usize| -> f64 {
                g.phases
                    .iter()
                    .map(|p| match p {
                        Phase::Compute { instructions, profile } | Phase::Serial { instructions, profile, .. } => {
                            instructions * SimpleModel.ns_per_instruction(m, ty, profile)
                        }
                        Phase::Critical { cs_instructions, between_instructions, count, profile, .. } => {
                            (cs_instructions + between_instructions) * *count as f64 * SimpleModel.ns_per_instruction(m, ty, profile)
                        }
                        _ => 0.0,
                    })
                    .sum()
            };
            let (tf, ts) = (time(fast), time(slow));
            if tf > 0.0 {
                // A serial leader does more work; its speedup is the same (one profile per group here).
                logs += (ts / tf).ln() * g.count as f64;
                n += g.count as f64;
            }
        }
    }
    if n == 0.0 {
        1
    } else {
        ((logs / n).exp().floor() as usize).max(1)
    }
}

/// Threads that are interchangeable: same app definition but for the name, same group, and not a
/// serial section's leader (thread 0 of a group with a serial phase does more work).
fn classes(w: &Workload, ks: &[Key]) -> Vec<Vec<usize>> {
    let anon = |a: &App| App { name: String::new(), ..a.clone() };
    let leader = |k: &Key| {
        let g = &w.apps[k.0 as usize].groups[k.1 as usize];
        k.2 == 0 && g.phases.iter().any(|p| matches!(p, Phase::Serial { .. }))
    };
    let mut out: Vec<Vec<usize>> = Vec::new();
    'thread: for (i, k) in ks.iter().enumerate() {
        if !leader(k) {
            for c in out.iter_mut() {
                let r = &ks[c[0]];
                if !leader(r) && r.1 == k.1 && anon(&w.apps[r.0 as usize]) == anon(&w.apps[k.0 as usize]) {
                    c.push(i);
                    continue 'thread;
                }
            }
        }
        out.push(vec![i]);
    }
    out
}

/// How many (fast count per class) vectors the balance rule admits: the oracle's candidates
/// before the `max_runs` cut.
fn class_candidates(cls: &[Vec<usize>], n: usize, m: &Machine, slots: usize) -> usize {
    // Number of ways to reach each total fast count, class by class.
    let mut ways = vec![1usize];
    for c in cls {
        let mut next = vec![0usize; ways.len() + c.len()];
        for (f, w) in ways.iter().enumerate() {
            for k in 0..=c.len() {
                next[f + k] += w;
            }
        }
        ways = next;
    }
    ways.iter().enumerate().filter(|(f, _)| admissible(*f, n, m, slots)).map(|(_, w)| w).sum()
}

/// One experiment, every assignment simulated: `score[mask]` is its geometric-mean slowdown
/// (the oracle's score), bit i set = thread i on fast.
struct Exhaustive {
    exp: Experiment,
    keys: Vec<Key>,
    score: Vec<f64>,
    _dir: ScratchDir,
}

impl Exhaustive {
    /// `machine`: a catalog name, or machine TOML text; `workload`: workload TOML text.
    fn new(machine: &str, workload: &str) -> Exhaustive {
        let dir = ScratchDir::new("best-static");
        let m = if machine.contains('\n') { dir.write("machine.toml", machine) } else { machine.to_string() };
        let mut exp = Experiment::new(&m, &dir.write("workload.toml", workload), Settings::default()).unwrap();
        let solo = exp.solo_references().unwrap();
        let ks = keys(&exp.workload);
        assert!(ks.len() <= 8, "keep the exhaustive search small");
        let score = (0u32..1 << ks.len())
            .map(|mask| {
                let a: Assignment = ks.iter().enumerate().map(|(i, k)| (*k, if mask >> i & 1 == 1 { FAST } else { SLOW })).collect();
                let r = exp
                    .simulate_on(
                        &exp.machine,
                        &exp.workload,
                        &mut BestStatic::new(&exp.machine, a),
                        ampsched_runner::reads(&best_static::INFO),
                        0,
                        "a candidate",
                    )
                    .unwrap();
                geomean_slowdown(&metrics(&exp.machine, &r, &solo))
            })
            .collect();
        Exhaustive { exp, keys: ks, score, _dir: dir }
    }

    fn n(&self) -> usize {
        self.keys.len()
    }

    fn is_admissible(&self, mask: usize) -> bool {
        admissible(mask.count_ones() as usize, self.n(), &self.exp.machine, slots(&self.exp.machine, &self.exp.workload))
    }

    fn min(&self) -> (usize, f64) {
        self.min_where(|_| true)
    }

    fn admissible_min(&self) -> (usize, f64) {
        self.min_where(|mask| self.is_admissible(mask))
    }

    fn min_where(&self, keep: impl Fn(usize) -> bool) -> (usize, f64) {
        (0..self.score.len()).filter(|&m| keep(m)).map(|m| (m, self.score[m])).min_by(|a, b| a.1.total_cmp(&b.1)).unwrap()
    }

    fn class_candidates(&self) -> usize {
        class_candidates(&classes(&self.exp.workload, &self.keys), self.n(), &self.exp.machine, slots(&self.exp.machine, &self.exp.workload))
    }

    /// Run the oracle; check that the assignment it names is the one whose score it reports.
    fn oracle(&mut self, spec: &str) -> (f64, usize, usize) {
        let v = self.exp.run(spec).unwrap();
        let score = v["oracle"]["geomean_slowdown"].as_f64().unwrap();
        let mask = self.mask_of(&v["oracle"]["fast_threads"]);
        assert_eq!(score, self.score[mask], "{spec}: the reported score is not that of the reported assignment {mask:b}");
        (score, mask, v["oracle"]["candidates"].as_u64().unwrap() as usize)
    }

    /// The mask of an oracle's "app/group/index" list of fast threads.
    fn mask_of(&self, fast: &Value) -> usize {
        let w = &self.exp.workload;
        let mut mask = 0;
        for name in fast.as_array().unwrap() {
            let i = self
                .keys
                .iter()
                .position(|&(a, g, t)| {
                    let app = &w.apps[a as usize];
                    format!("{}/{}/{}", app.name, app.groups[g as usize].name, t) == name.as_str().unwrap()
                })
                .unwrap_or_else(|| panic!("unknown thread {name}"));
            mask |= 1 << i;
        }
        mask
    }

    /// For failure messages: every assignment with its score.
    fn table(&self) -> String {
        (0..self.score.len())
            .map(|m| format!("{m:0w$b}{} {:.5}", if self.is_admissible(m) { "" } else { "*" }, self.score[m], w = self.n()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Fast cores at 2 GHz; slow cores at `slow_ghz` with `slow_cpi_scale`.
fn machine(fast: u32, slow: u32, slow_ghz: f64, slow_cpi_scale: f64) -> String {
    format!(
        "name = \"m\"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = \"fast\"\ncount = {fast}\nfreq_ghz = 2.0\n\
         [[core_type]]\nname = \"slow\"\ncount = {slow}\nfreq_ghz = {slow_ghz}\ncpi_scale = {slow_cpi_scale}\n"
    )
}

/// An app of `threads` threads, each computing `instructions`, then `extra` phases.
fn app(name: &str, threads: u32, instructions: f64, cpi: f64, llc_mpki: f64, extra: &str) -> String {
    format!(
        "[[app]]\nname = \"{name}\"\nthreads = {threads}\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions:e}\ncpi = {cpi}\nllc_mpki = {llc_mpki}\n{extra}"
    )
}

/// Compute-bound: speedup factor = the cores' peak-rate ratio.
fn cpu(name: &str) -> String {
    app(name, 1, 1e8, 1.0, 0.0, "")
}

/// Memory-bound: 20 misses per 1000 instructions of 100 ns dwarf the 0.5 ns of compute.
fn mem(name: &str) -> String {
    app(name, 1, 1e8, 1.0, 20.0, "")
}

const BARRIER: &str = "[[app.phase]]\nkind = \"barrier\"\n";
const SERIAL: &str = "[[app.phase]]\nkind = \"serial\"\ninstructions = 5e7\n";

/// Small cases with fast cores at most 2x faster; together they cover more threads than cores
/// and fewer, identical apps (class merging), multi-threaded apps with barriers, and a serial
/// section's leader.
fn thesis_regime_cases() -> Vec<(&'static str, String, String)> {
    vec![
        ("1F+1S, 3 apps, two identical", machine(1, 1, 1.0, 1.0), [cpu("a"), cpu("b"), mem("c")].concat()),
        ("1F+2S, 4 apps", machine(1, 2, 1.0, 1.0), [cpu("a"), cpu("b"), mem("c"), app("d", 1, 5e7, 0.8, 3.0, "")].concat()),
        (
            "2F+2S, a 2-thread app with a barrier, two identical memory-bound apps",
            machine(2, 2, 1.0, 1.0),
            [app("a", 2, 1e8, 1.0, 0.0, BARRIER), mem("c"), mem("d"), app("e", 1, 5e7, 0.8, 3.0, "")].concat(),
        ),
        (
            "2F+2S, a fork-join app with a serial section",
            machine(2, 2, 1.0, 1.0),
            [app("fj", 3, 5e7, 1.0, 0.0, SERIAL), mem("m"), app("x", 1, 2e8, 0.7, 1.0, "")].concat(),
        ),
        (
            "1F+2S, 6 threads",
            machine(1, 2, 1.0, 1.0),
            [app("a", 2, 1e8, 1.0, 0.0, BARRIER), cpu("b"), cpu("c"), mem("d"), app("e", 1, 3e8, 1.2, 6.0, "")].concat(),
        ),
        ("2F+1S (slower by CPI), 4 apps, two identical", machine(2, 1, 2.0, 1.8), [mem("a"), cpu("b"), cpu("c"), app("d", 1, 2e8, 1.5, 2.0, "")].concat()),
        ("2F+3S, fewer threads than cores", machine(2, 3, 1.5, 1.3), [cpu("a"), mem("b")].concat()),
    ]
}

#[test]
fn the_oracle_finds_the_exhaustive_optimum_when_fast_cores_are_at_most_2x_faster() {
    for (name, m, w) in thesis_regime_cases() {
        let mut ex = Exhaustive::new(&m, &w);
        let (score, _, candidates) = ex.oracle("best-static");
        let (best_mask, best) = ex.min();
        assert_eq!(candidates, ex.class_candidates(), "{name}: every admissible class candidate is simulated");
        assert_eq!(score, best, "{name}: oracle {score}, exhaustive best {best_mask:b} {best}; all (* = inadmissible): {}", ex.table());
    }
}

#[test]

fn the_oracle_finds_the_exhaustive_optimum_when_fast_cores_are_over_3x_faster() {
    // wash-1b5s (catalog): one big core at 2.8 GHz, five small at 0.8 GHz, so compute-bound code
    // is 3.5x slower on a small core. Two compute-bound apps of 1e8 instructions (35.7 ms on
    // big), fewer threads than cores: ⌊P⌋ = 3, so both sharing the big core is admissible (a
    // rule with ⌊P⌋ = 1 excluded it). Sharing, each takes about twice its solo time (a little
    // less for the one that finishes a slice early): geometric mean about 2. One on big and
    // one on a small core: slowdowns 1 and 3.5, geometric mean √3.5 ≈ 1.871, the best.
    let mut ex = Exhaustive::new("wash-1b5s", &[cpu("a"), cpu("b")].concat());
    let (score, mask, candidates) = ex.oracle("best-static");
    assert!(ex.is_admissible(0b11) && ex.score[0b11] > 1.9 && ex.score[0b11] <= 2.0, "{}", ex.table());
    assert_eq!(candidates, 2);
    assert_eq!(score, ex.min().1, "oracle {score}; all (* = inadmissible): {}", ex.table());
    assert_eq!(mask.count_ones(), 1);
    assert!((score - 3.5f64.sqrt()).abs() < 1e-3, "{score}");
}

#[test]
fn as_many_threads_as_cores_means_one_thread_per_core() {
    // 1F+1S, slow core 4x slower, two compute-bound apps (50 ms on fast): as many threads as
    // cores. Both sharing the fast core would score better (each about 2x its solo time, one a
    // slice less: geometric mean just under 2) than one on each core (slowdowns 1 and 4,
    // geometric mean exactly 2), but the papers' static assignments give each benchmark a core
    // of its own: the only candidate is one thread on each core.
    let mut ex = Exhaustive::new(&machine(1, 1, 0.5, 1.0), &[cpu("a"), cpu("b")].concat());
    assert!(ex.score[0b11] < ex.score[0b01], "{}", ex.table());
    let (score, mask, candidates) = ex.oracle("best-static");
    assert_eq!((candidates, mask), (1, 0b01));
    assert!((score - 2.0).abs() < 1e-6, "{score}");
    // 2F+2S at 2x, two compute-bound and two memory-bound apps: of the 16 assignments the
    // oracle tries only the 6 with two threads on fast (as many classes allow: the two
    // compute-bound apps are identical, as are the two memory-bound ones, so 3 candidates:
    // 0, 1 or 2 compute-bound apps on fast), picks both compute-bound ones on fast (they gain 2x,
    // the memory-bound ones almost nothing), and never leaves a slow core idle.
    let mut ex = Exhaustive::new(&machine(2, 2, 1.0, 1.0), &[cpu("c1"), cpu("c2"), mem("m1"), mem("m2")].concat());
    let (score, mask, candidates) = ex.oracle("best-static");
    assert_eq!((candidates, mask), (3, 0b0011), "{}", ex.table());
    assert_eq!(score, ex.admissible_min().1);
    for m in 0..16usize {
        assert_eq!(ex.is_admissible(m), m.count_ones() == 2);
    }
}

#[test]
fn every_case_gets_the_best_admissible_assignment() {
    let mut cases = thesis_regime_cases();
    // Beyond the thesis's regime (⌊P⌋ > 1).
    cases.push(("wash-1b5s, 2 apps", "wash-1b5s".to_string(), [cpu("a"), cpu("b")].concat()));
    cases.push(("1F+1S at 4x, 3 apps", machine(1, 1, 0.5, 1.0), [cpu("a"), cpu("b"), cpu("c")].concat()));
    cases.push(("1F+1S at 4x, 2 apps (one per core)", machine(1, 1, 0.5, 1.0), [cpu("a"), cpu("b")].concat()));
    cases.push(("2F+2S, 4 apps (one per core)", machine(2, 2, 1.0, 1.0), [cpu("a"), mem("b"), app("c", 1, 2e8, 1.2, 2.0, ""), mem("d")].concat()));
    cases.push(("1F+1S at 8x, 3 apps", machine(1, 1, 0.25, 1.0), [cpu("a"), cpu("b"), mem("c")].concat()));
    for (name, m, w) in cases {
        let mut ex = Exhaustive::new(&m, &w);
        let (score, mask, _) = ex.oracle("best-static");
        assert!(ex.is_admissible(mask), "{name}: chose {mask:b}");
        assert_eq!(score, ex.admissible_min().1, "{name}: {}", ex.table());
    }
}

#[test]
fn max_runs_simulates_the_first_candidates_of_one_ranking() {
    let mut cases = thesis_regime_cases();
    // The model stretches a partition's threads by its load for their whole run. Here (L: 200 ms
    // on fast, s1 and s2: 50 ms each) it scores {s1, s2} and {L, s1} on fast alike, geometric
    // mean slowdown 2, and max_runs=1 simulates only {s1, s2}: about 2. But with {L, s1} on fast,
    // s1 ends at 100 ms and L has fast to itself after (250/200, 100/50, 100/50): about 1.71.
    cases.push(("1F+1S, a long app and two short ones", machine(1, 1, 1.0, 1.0), [app("L", 1, 4e8, 1.0, 0.0, ""), cpu("s1"), cpu("s2")].concat()));
    for (name, m, w) in cases {
        let mut ex = Exhaustive::new(&m, &w);
        let all = ex.class_candidates();
        let (best_admissible, mut previous) = (ex.admissible_min().1, f64::INFINITY);
        for k in 1..=all + 1 {
            let (score, mask, candidates) = ex.oracle(&format!("best-static:max_runs={k}"));
            assert_eq!(candidates, k.min(all), "{name}, max_runs={k}");
            assert!(ex.is_admissible(mask), "{name}, max_runs={k}: chose {mask:b}");
            // The first k of a fixed order are among the first k+1: more runs never do worse.
            assert!(score <= previous, "{name}: max_runs={k} gives {score}, max_runs={} gave {previous}", k - 1);
            if k >= all {
                assert_eq!(score, best_admissible, "{name}, max_runs={k}");
            }
            previous = score;
        }
    }
}

#[test]
fn max_runs_1_takes_the_models_clear_favourite() {
    // 1F+1S at 2x, a compute-bound and a memory-bound app: the rule admits one thread on fast.
    // The model's geometric-mean slowdown, by hand (work W per app on fast, the memory-bound
    // one's time barely changes with the core): compute-bound on fast -> √(1 × ~1.005); memory-
    // bound on fast -> √(2 × 1). So the compute-bound one goes fast, which is also the optimum.
    let mut ex = Exhaustive::new(&machine(1, 1, 1.0, 1.0), &[cpu("c"), mem("m")].concat());
    let (score, mask, candidates) = ex.oracle("best-static:max_runs=1");
    assert_eq!((candidates, mask), (1, 0b01));
    assert_eq!(score, ex.min().1, "{}", ex.table());
}
