//! Kim & Huh's fairness policies ("Exploring the Design Space of Fair Scheduling Supports for
//! Asymmetric Multicore Systems", IEEE TC 2018) and the prior schedulers of its Table 2, on the
//! paper's emulated AMP (kimhuh-2f4s: 2 fast cores at 2.8 GHz, 4 slow at 0.8 GHz, CPI scale 1).
//!
//! The mixes are single-threaded apps of one compute phase at CPI 1 with m LLC misses per
//! kilo-instruction at the machine's 75 ns: an instruction takes 1/2.8 + 0.075 m ns fast and
//! 1/0.8 + 0.075 m ns slow, so e = (1.25 + 0.075 m)/(0.357… + 0.075 m) exactly (the runner's
//! solo profiles agree to 1e-10: `efficiency_error` is 0 offline).

use ampsched_model::{Machine, SimpleModel, Watched, Workload};
use ampsched_policy::fairness::daemon::explore;
use ampsched_policy::fairness::model::{self, Base, Mix};
use ampsched_policy::PolicySpec;
use ampsched_runner::{catalog, Experiment, Settings};
use ampsched_sim::{Engine, SimConfig};

use crate::common::ScratchDir;

const MACHINE: &str = "kimhuh-2f4s";

/// An instruction's time on the fast and on the slow cores, ns (the module's doc).
fn ns_per_instruction(mpki: f64) -> (f64, f64) {
    (1.0 / 2.8 + 0.075 * mpki, 1.0 / 0.8 + 0.075 * mpki)
}

fn efficiency(mpki: f64) -> f64 {
    let (fast, slow) = ns_per_instruction(mpki);
    slow / fast
}

/// A single-threaded app of `instructions` at CPI 1 and `mpki`.
fn app(name: &str, instructions: f64, mpki: f64) -> String {
    format!("[[app]]\nname = \"{name}\"\n[[app.phase]]\nkind = \"compute\"\ninstructions = {instructions}\ncpi = 1.0\nllc_mpki = {mpki}\n")
}

/// Six apps of falling efficiency: 3.5, 2.76, 2.22, 1.81, 1.60, 1.48.
const MPKI: [f64; 6] = [0.0, 2.0, 5.0, 10.0, 15.0, 20.0];

fn mix_of(mpki: &[f64], instructions: f64) -> String {
    mpki.iter().enumerate().map(|(i, &m)| app(&format!("a{i}"), instructions, m)).collect()
}

/// What a watched run saw: the share each thread was last given up to `at_ns`, the policy's
/// estimates then, and each thread's (fast ns, CPU ns, instructions) at the first quantum call
/// at or after `from_ns` and at or after `at_ns`.
struct Watch {
    shares: Vec<Option<f64>>,
    estimates: Vec<Option<f64>>,
    from: Vec<(u64, u64, f64)>,
    to: Vec<(u64, u64, f64)>,
    from_ns: u64,
    to_ns: u64,
    /// When the first thread exited, if one did by `at_ns`.
    first_exit_ns: Option<u64>,
}

/// The machine and the workload (with its solo profiles, for `efficiency=offline`).
fn setup(dir: &ScratchDir, workload: &str) -> (Machine, Workload) {
    let path = dir.write("w.toml", workload);
    let mut e = Experiment::new(MACHINE, &path, Settings::default()).unwrap();
    let profiles = e.solo_profiles().unwrap();
    let mut w = catalog::workload(&path).unwrap();
    for (a, ips) in w.apps.iter_mut().zip(profiles) {
        for (g, rate) in a.groups.iter_mut().zip(ips) {
            g.solo_ips = Some(rate);
        }
    }
    (catalog::machine(MACHINE).unwrap(), w)
}

fn watch(spec: &str, workload: &str, from_s: f64, at_s: f64, noise: f64) -> Watch {
    let dir = ScratchDir::new("fairness");
    let (m, w) = setup(&dir, workload);
    let n = w.apps.len();
    let (from_ns, at_ns) = ((from_s * 1e9) as u64, (at_s * 1e9) as u64);
    let mut seen = Watch { shares: vec![None; n], estimates: vec![None; n], from: Vec::new(), to: Vec::new(), from_ns: 0, to_ns: 0, first_exit_ns: None };
    let policy = ampsched_policy::build(&PolicySpec::parse(spec).unwrap(), &m).unwrap();
    let mut p = Watched::new(policy, |p, view, out| {
        let snapshot =
            || view.threads.iter().map(|t| (t.fast_time_ns(view.machine), t.total_time_ns(), t.per_type.iter().map(|c| c.instructions).sum())).collect();
        if view.now_ns <= at_ns {
            if let ampsched_model::Trigger::Exit(_) = view.trigger {
                seen.first_exit_ns.get_or_insert(view.now_ns);
            }
            for &(t, s) in &out.fast_share {
                seen.shares[t as usize] = s;
            }
            let d = p.diagnostics().unwrap();
            seen.estimates = (0..n as u32).map(|t| d.sf_estimate(t)).collect();
        }
        if view.trigger == ampsched_model::Trigger::Quantum {
            if view.now_ns >= from_ns && seen.from.is_empty() {
                seen.from = snapshot();
                seen.from_ns = view.now_ns;
            }
            if view.now_ns >= at_ns && seen.to.is_empty() {
                seen.to = snapshot();
                seen.to_ns = view.now_ns;
            }
        }
    });
    let cfg = SimConfig { counter_noise: noise, policy_reads_counters: true, ..SimConfig::default() };
    Engine::new(&m, &w, &SimpleModel, &mut p, cfg).run().unwrap();
    seen
}

fn shares(w: &Watch) -> Vec<f64> {
    w.shares.iter().map(|s| s.expect("every thread was given a share")).collect()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "app {i}: got {g}, want {w} (all: {got:?} against {want:?})");
    }
}

const LONG: f64 = 2e10;

#[test]
fn max_perf_puts_the_two_most_efficient_apps_on_the_fast_cores() {
    let mix = mix_of(&MPKI, LONG);
    // Offline: known at the start, no exploration.
    assert_close(&shares(&watch("max-perf:efficiency=offline", &mix, 0.0, 5.0, 0.0)), &[1.0, 1.0, 0.0, 0.0, 0.0, 0.0], 1e-12);
    // Online: before the first measurement every app gets the fair split F/N = 1/3; after it,
    // the four slow-side apps get the exploration minimum 0.05 of fast time, which the two
    // fast-side apps give up: 1 − 4 × 0.05 / 2 = 0.9 each.
    assert_close(&shares(&watch("max-perf", &mix, 0.0, 1.0, 0.02)), &[1.0 / 3.0; 6], 1e-12);
    assert_close(&shares(&watch("max-perf", &mix, 0.0, 5.0, 0.02)), &[0.9, 0.9, 0.05, 0.05, 0.05, 0.05], 1e-9);
}

#[test]
fn max_fair_gives_every_app_the_same_speedup_from_its_base() {
    let mix = mix_of(&MPKI, LONG);
    let e: Vec<f64> = MPKI.iter().map(|&m| efficiency(m)).collect();
    let fast = 2.0;
    // Fair share: F/N each.
    assert_close(&shares(&watch("max-fair:efficiency=offline", &mix, 0.0, 5.0, 0.0)), &[1.0 / 3.0; 6], 1e-12);
    // Slow only (§2.3, c = 1): f ∝ 1/(e − 1); none is clamped here (the largest is 0.61).
    let inv: Vec<f64> = e.iter().map(|e| 1.0 / (e - 1.0)).collect();
    let slow: Vec<f64> = inv.iter().map(|x| x / inv.iter().sum::<f64>() * fast).collect();
    assert_close(&shares(&watch("max-fair:base=slow:efficiency=offline", &mix, 0.0, 5.0, 0.0)), &slow, 1e-9);
    // Fast only: A = e/(e − 1), f = A/ΣA · (F + Σ 1/(e − 1)) − 1/(e − 1), all inside [0, 1].
    let a: Vec<f64> = e.iter().map(|e| e / (e - 1.0)).collect();
    let sum_a: f64 = a.iter().sum();
    let fast_only: Vec<f64> = a.iter().zip(&inv).map(|(a, i)| a / sum_a * (fast + inv.iter().sum::<f64>()) - i).collect();
    assert!(fast_only.iter().all(|f| (0.0..=1.0).contains(f)), "{fast_only:?}");
    assert_close(&shares(&watch("max-fair:base=fast:efficiency=offline", &mix, 0.0, 5.0, 0.0)), &fast_only, 1e-9);
}

#[test]
fn min_fair_gives_every_app_at_least_its_required_share_from_its_estimate() {
    // Online, with the estimates the policy holds at 5 s (after two measured intervals): each
    // app's share is at least Algorithm 1's required share for minF 0.85 under the fair-share
    // base, computed from those estimates; the richest app pays for the exploration.
    let w = watch("min-fair:target=0.85", &mix_of(&MPKI, LONG), 0.0, 5.0, 0.02);
    let e: Vec<f64> = w.estimates.iter().map(|e| e.unwrap()).collect();
    let c = [1.0; 6];
    let mix = Mix { e: &e, c: &c, fast_cores: 2.0 };
    let pb = model::base_perf(&mix, Base::FairShare);
    let f = shares(&w);
    for i in 0..6 {
        let required = model::required_fast_share(e[i], 1.0, pb[i], 0.85);
        assert!(f[i] >= required - 1e-9, "app {i}: share {} below its required {required} (estimates {e:?})", f[i]);
    }
    assert!(model::metrics(&model::throughputs(&mix, &f, &pb)).min_fairness >= 0.85 - 1e-9);
    // Hand-computed for the true efficiencies (pb = (e + 2)/3): required shares 0.223, 0.198,
    // 0.161, 0.097, 0.033, 0; a0 takes the rest up to 1 and a1 what is left; the exploration
    // lifts a4 and a5 to 0.05 and caps a0, which pays for it.
    let e_true: Vec<f64> = MPKI.iter().map(|&m| efficiency(m)).collect();
    let want = model::min_fair(&Mix { e: &e_true, c: &c, fast_cores: 2.0 }, Base::FairShare, 0.85);
    assert!((want[0] - 1.0).abs() < 1e-12 && want[5] == 0.0, "{want:?}");
    let mut explored = want.clone();
    explore(&mut explored, &c, 0.05, 2.0);
    assert_close(&explored[1..4], &want[1..4], 1e-12);
    // a0 is capped at 0.95 and gives up what lifting a4 and a5 costs beyond that: 1 − 0.05 − (0.05 − f4).
    assert!((explored[0] - (0.9 + want[4])).abs() < 1e-9, "{explored:?}");
    // The estimates are within 3% of the truth (2% counter noise): the shares are close too.
    assert_close(&f, &explored, 0.05);
}

#[test]
fn uni_fair_and_combined_fair_meet_their_targets_in_the_model() {
    let mix_text = mix_of(&MPKI, LONG);
    let c = [1.0; 6];
    for (spec, check) in [("uni-fair:target=0.9:efficiency=offline", 0), ("combined-fair:efficiency=offline", 1)] {
        let f = shares(&watch(spec, &mix_text, 0.0, 5.0, 0.0));
        let e: Vec<f64> = MPKI.iter().map(|&m| efficiency(m)).collect();
        let mix = Mix { e: &e, c: &c, fast_cores: 2.0 };
        let m = model::metrics(&model::throughputs(&mix, &f, &model::base_perf(&mix, Base::FairShare)));
        assert!((f.iter().sum::<f64>() - 2.0).abs() < 1e-9, "{spec}: the fast cores are fully shared: {f:?}");
        if check == 0 {
            assert!(m.uniformity >= 0.9 - 1e-9, "{spec}: {m:?}");
        } else {
            // Table 5's starred fair-share defaults: minF 0.85, and our uniformity 0.8.
            assert!(m.min_fairness >= 0.85 - 1e-9 && m.uniformity >= 0.8 - 1e-9, "{spec}: {m:?}");
        }
        // Both give up throughput against max-perf, and keep more than max-fair's.
        let perf = model::metrics(&model::throughputs(&mix, &model::max_perf(&mix), &model::base_perf(&mix, Base::FairShare)));
        assert!(m.throughput < perf.throughput && m.throughput > 1.0, "{spec}: {m:?} against max-perf {perf:?}");
    }
}

#[test]
fn sim_fair_shares_fast_cores_equally_between_apps_of_similar_efficiency() {
    // a1 (m = 2, e 2.761) and a2 (m = 2.3, e 2.686) differ by 0.075 < 0.2: max-perf's second fast
    // core is split between them; a0 (3.5) is alone in its group.
    let mix = mix_of(&[0.0, 2.0, 2.3, 10.0, 15.0, 20.0], LONG);
    assert!((efficiency(2.0) - efficiency(2.3)).abs() < 0.2 && efficiency(0.0) - efficiency(2.0) > 0.2);
    assert_close(&shares(&watch("sim-fair:efficiency=offline", &mix, 0.0, 5.0, 0.0)), &[1.0, 0.5, 0.5, 0.0, 0.0, 0.0], 1e-12);
    // With a similarity below their difference it is max-perf.
    assert_close(&shares(&watch("sim-fair:similarity=0.05:efficiency=offline", &mix, 0.0, 5.0, 0.0)), &[1.0, 1.0, 0.0, 0.0, 0.0, 0.0], 1e-12);
}

#[test]
fn r_fair_is_max_fair_r_of_the_time_and_max_perf_the_rest() {
    // r = 0.5, fair-share base: 0.5 × 1/3 + 0.5 × max-perf's 1 or 0.
    let f = shares(&watch("r-fair:efficiency=offline", &mix_of(&MPKI, LONG), 0.0, 5.0, 0.0));
    assert_close(&f, &[2.0 / 3.0, 2.0 / 3.0, 1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0], 1e-12);
    let f = shares(&watch("r-fair:r=1:efficiency=offline", &mix_of(&MPKI, LONG), 0.0, 5.0, 0.0));
    assert_close(&f, &[1.0 / 3.0; 6], 1e-12);
}

#[test]
fn guaranteed_fairness_runs_max_perf_until_progress_is_too_uneven() {
    let mix = mix_of(&MPKI, LONG);
    // Threshold 0: never below it, always max-perf (a0, alone on a fast core, ends at 7.1 s).
    assert_close(&shares(&watch("guaranteed-fairness:threshold=0:efficiency=offline", &mix, 0.0, 5.0, 0.0)), &[1.0, 1.0, 0.0, 0.0, 0.0, 0.0], 1e-12);
    // Threshold 0.95: after max-perf's first interval the progress against fast-only alone is 1
    // for a0 and a1 and 1/e for the others (0.45, 0.55, 0.62, 0.68: uniformity 0.73), so equal
    // progress gives the fast cores to the two least progressed apps, a2 and a3 (the most
    // efficient of the slow-side ones, which lose most there).
    let f = shares(&watch("guaranteed-fairness:threshold=0.95:efficiency=offline", &mix, 0.0, 2.5, 0.0));
    assert_close(&f, &[0.0, 0.0, 1.0, 1.0, 0.0, 0.0], 1e-12);
}

#[test]
fn scaled_lb_keeps_per_core_load_over_computing_power_even_blind_to_efficiency() {
    // Ten identical compute-bound apps: one per core first (fast cores first), then the next
    // four to the fast cores while (n + 1)/3.5 stays below a slow core's 2/1: 3 threads per fast
    // core, 1 per slow core. With ratio 1, the 7th and 8th go fast (ties to power), the 9th and
    // 10th slow: 2 per fast core.
    let on_fast = |mpki: &[f64], spec: &str| {
        let dir = ScratchDir::new("scaled-lb");
        let (m, w) = setup(&dir, &mix_of(mpki, 5e9));
        let fast = m.fast_cores();
        // Where each thread was first bound.
        let mut first: Vec<Option<bool>> = vec![None; mpki.len()];
        let policy = ampsched_policy::build(&PolicySpec::parse(spec).unwrap(), &m).unwrap();
        let mut p = Watched::new(policy, |_, _, out| {
            for (t, cores) in &out.affinity {
                let slot = &mut first[*t as usize];
                if slot.is_none() {
                    *slot = Some(cores.is_subset(&fast));
                }
            }
        });
        Engine::new(&m, &w, &SimpleModel, &mut p, SimConfig::default()).run().unwrap();
        drop(p);
        first.into_iter().map(|f| f.expect("every thread is bound")).collect::<Vec<bool>>()
    };
    let count = |v: &[bool]| v.iter().filter(|&&f| f).count();
    assert_eq!(count(&on_fast(&[0.0; 10], "scaled-lb")), 6);
    assert_eq!(count(&on_fast(&[0.0; 10], "scaled-lb:ratio=1")), 4);
    // Six apps on six cores: the first two started get the fast cores whatever their efficiency
    // (Table 2: unaware of application characteristics), here the least efficient two.
    assert_eq!(on_fast(&[20.0, 15.0, 10.0, 5.0, 2.0, 0.0], "scaled-lb"), [true, true, false, false, false, false]);
}

/// Long enough that every app of `MPKI` runs past the 40 s the two tests below watch: a0, the
/// fastest (e 3.5 at max-fair's slow-only share 0.118: 1.04 instructions per ns), retires 4.2e10
/// by then. With `LONG` (2e10) a0 exits at 19.3 s and a1 to a3 before 31 s, and the daemon gives
/// the rest new shares at each exit: a window of 4 s to 40 s then mixes several shares per app
/// and counts the time after an app's exit as time it did not progress.
const PAST_40_S: f64 = 6e10;

/// A run of `MPKI` under max-fair (slow-only base, offline), watched from 4 s to 40 s while
/// every app still runs (`PAST_40_S`; checked, since the shares and the rates below hold only
/// while all six share the machine).
fn watch_all_running() -> Watch {
    let w = watch("max-fair:base=slow:efficiency=offline", &mix_of(&MPKI, PAST_40_S), 4.0, 40.0, 0.0);
    assert_eq!(w.first_exit_ns, None, "an app exited before {} ns", w.to_ns);
    w
}

#[test]
fn share_model_and_engine_agree_on_long_runs() {
    // max-fair under the slow-only base (shares 0.12 to 0.61), offline, exact counters: from 4 s
    // to 40 s, each app's fraction of CPU time on fast cores is its share, and its instruction
    // rate per CPU second is the model's e f + 1 − f slow-core rate.
    let w = watch_all_running();
    let f = shares(&w);
    for (i, &m) in MPKI.iter().enumerate() {
        let ((f0, c0, i0), (f1, c1, i1)) = (w.from[i], w.to[i]);
        let (cpu, fast) = ((c1 - c0) as f64, (f1 - f0) as f64);
        assert!((fast / cpu - f[i]).abs() < 0.02, "app {i}: fast fraction {} against share {}", fast / cpu, f[i]);
        let (_, slow_ns) = ns_per_instruction(m);
        let model_rate = (efficiency(m) * f[i] + 1.0 - f[i]) / slow_ns;
        let rate = (i1 - i0) / cpu;
        assert!((rate / model_rate - 1.0).abs() < 0.02, "app {i}: {rate} instructions per CPU ns against the model's {model_rate}");
    }
}

#[test]
fn share_model_and_engine_agree_on_progress_per_wall_second() {
    // As above, per second of the run: each app holds a whole core (N = C), so its normalised
    // progress is the model's T = (e f + 1 − f)/perf_base.
    let w = watch_all_running();
    let f = shares(&w);
    let wall = (w.to_ns - w.from_ns) as f64;
    for (i, &m) in MPKI.iter().enumerate() {
        let (_, slow_ns) = ns_per_instruction(m);
        let model_rate = (efficiency(m) * f[i] + 1.0 - f[i]) / slow_ns;
        let rate = (w.to[i].2 - w.from[i].2) / wall;
        assert!((rate / model_rate - 1.0).abs() < 0.02, "app {i}: {rate} instructions per ns against the model's {model_rate}");
    }
}

/// An app alternating a compute phase (e 3.5) and a memory-bound one (m = 20, e 1.48) of
/// `phase` instructions each, `repeat` times.
fn phased(name: &str, phase: f64, repeat: u32) -> String {
    format!(
        "[[app]]\nname = \"{name}\"\n[[app.group]]\nname = \"g\"\nrepeat = {repeat}\n\
         [[app.group.phase]]\nkind = \"compute\"\ninstructions = {phase}\ncpi = 1.0\nllc_mpki = 0.0\n\
         [[app.group.phase]]\nkind = \"compute\"\ninstructions = {phase}\ncpi = 1.0\nllc_mpki = 20.0\n"
    )
}

#[test]
fn efficiency_error_is_reported_and_shrinks_with_longer_intervals() {
    let dir = ScratchDir::new("fair-error");
    let w = dir.write("w.toml", &(0..6).map(|i| phased(&format!("p{i}"), 3e8 * (1.0 + 0.1 * i as f64), 60)).collect::<String>());
    let mut e = Experiment::new(MACHINE, &w, Settings::default()).unwrap();
    let error = |e: &mut Experiment, spec: &str| {
        let v = e.run(spec).unwrap();
        for a in v["apps"].as_array().unwrap() {
            assert!(a["efficiency_true"].as_f64().unwrap() > 1.0, "{a}");
        }
        let x = |k: &str| v[k].as_f64().unwrap();
        (x("efficiency_error"), x("efficiency_error_max"), x("efficiency_interval_error"))
    };
    let short = error(&mut e, "max-fair:interval_ms=200");
    let paper = error(&mut e, "max-fair");
    let long = error(&mut e, "max-fair:interval_ms=8000");
    println!("efficiency error (mean, max, per interval): 200 ms {short:?}, 2 s {paper:?}, 8 s {long:?}");
    // One interval's estimate fluctuates with the phases it caught when intervals are short
    // (Fig. 13), and stops fluctuating once an interval spans many phase cycles (here ~1 s).
    assert!(short.2 > paper.2 + 0.05, "{short:?} {paper:?}");
    // What is left is a bias, not noise: under a shared schedule both core types see the phases
    // in the same proportion of wall time, while the pinned runs weigh the memory-bound phase
    // more on the fast core (it is a larger part of that run). Longer intervals do not remove it.
    assert!((long.2 - paper.2).abs() < 0.01 && paper.2 > 0.2, "{paper:?} {long:?}");
    // Offline the estimate is the profile itself; a policy without estimates reports none.
    assert!(error(&mut e, "max-fair:efficiency=offline").1 < 1e-9);
    assert!(e.run("rr").unwrap().get("efficiency_error").is_none());
}

/// Work conservation under every policy of the family (the test list; Kim & Huh §6:
/// "no core is idle while ready threads exist"): no core idles while a thread waits for one,
/// on a Table 4 mix (N = C) and on eight apps over the six cores (threads wait there, and the
/// shares' swaps and conservation moves must keep every core busy).
#[test]
fn no_core_idles_while_a_thread_waits_under_every_fairness_policy() {
    let dir = ScratchDir::new("fair-conserving");
    let eight = dir.write("eight.toml", &mix_of(&[0.0, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0], 4e9));
    for workload in ["kimhuh-emu-hml-a".to_string(), eight] {
        let mut e = Experiment::new(MACHINE, &workload, Settings::default()).unwrap();
        for info in ampsched_policy::fairness::FAMILY {
            let v = e.run(info.name).unwrap();
            assert_eq!(v["idle_while_waiting_s"].as_f64().unwrap(), 0.0, "{} on {workload}", info.name);
        }
    }
}
