//! Run metrics. Slowdown is relative to the app alone on an all-fast machine with as many
//! cores, a reference that does not depend on the policy. Then, over the apps:
//! ANTT = mean slowdown; STP = Σ 1/slowdown; min-fairness = min 1/slowdown;
//! uniformity = 1 − σ/μ of 1/slowdown; unfairness = max slowdown / min slowdown.

use ampsched_model::Machine;
use serde::Serialize;

use crate::result::RunResult;

/// Serialized as a row of `run --json`'s apps, in this order.
#[derive(Debug, Clone, Serialize)]
pub struct AppMetrics {
    pub name: String,
    pub threads: u32,
    pub runs: u32,
    pub turnaround_s: f64,
    pub solo_s: f64,
    pub slowdown: f64,
    /// Share of the app's CPU time that was on fast cores.
    pub fast_share: f64,
    /// Its queue spinlocks, for a run with an on-chip network (docs/queue-spinlock.md); absent
    /// (no keys at all) otherwise.
    #[serde(flatten)]
    pub queue_spinlock: Option<QspinMetrics>,
}

/// What an app's queue spinlocks measured (`qspin::QspinAppStats`), in ns, summed over the app's
/// runs; `roi_ns` is its measured runs' time (the paper's region of interest: the whole
/// multi-threaded run). Serialized into the app's row, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct QspinMetrics {
    /// The competition overhead: the sum of the hand-off gaps (a release reaching the lock's home
    /// while threads wait, to the next acquisition there; Eq. 1's COH).
    pub coh_ns: f64,
    pub handoffs: u64,
    /// Acquisitions won in the spinning phase, and after leaving it (a sleep).
    pub spin_acquisitions: u64,
    pub sleep_acquisitions: u64,
    /// spin / (spin + sleep); null without acquisitions.
    pub spin_share: Option<f64>,
    /// Time the app's queue spinlocks were held (grant at the home to the release reaching it).
    pub cs_ns: f64,
    pub roi_ns: f64,
}

impl QspinMetrics {
    fn of(s: &crate::qspin::QspinAppStats, clock_ghz: f64, roi_ns: u64) -> QspinMetrics {
        let acquisitions = s.spin_acquisitions + s.sleep_acquisitions;
        QspinMetrics {
            coh_ns: s.coh_cycles as f64 / clock_ghz,
            handoffs: s.handoffs,
            spin_acquisitions: s.spin_acquisitions,
            sleep_acquisitions: s.sleep_acquisitions,
            spin_share: (acquisitions > 0).then(|| s.spin_acquisitions as f64 / acquisitions as f64),
            cs_ns: s.cs_cycles as f64 / clock_ghz,
            roi_ns: roi_ns as f64,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Metrics {
    pub makespan_s: f64,
    pub antt: f64,
    pub stp: f64,
    pub min_fairness: f64,
    pub uniformity: f64,
    pub unfairness: f64,
    /// Energy, J, and energy-delay product; None where the machine has no power model
    /// (`Machine::models_energy`): "not modelled", never a 0 that looks measured.
    pub energy_j: Option<f64>,
    pub edp: Option<f64>,
    /// Energy per instruction retired, nJ (None as `energy_j`), and instructions retired per
    /// second: unlike makespan, energy and EDP, these do not depend on how long the catalog
    /// made each program under constant load (an app that finishes restarts, so the makespan
    /// is the longest app's length, an invented number).
    pub nj_per_instruction: Option<f64>,
    pub instructions_per_s: f64,
    pub apps: Vec<AppMetrics>,
    /// Per core: energy, J (None as `energy_j`).
    pub core_energy_j: Option<Vec<f64>>,
    /// Per power rail (`Machine::rails`, in order): energy, J; they sum to `energy_j` (None as it).
    pub rail_energy_j: Option<Vec<f64>>,
    /// `energy_j / makespan_s`, W: the mean power over the run (the paper's Fig. 4 and 8).
    pub avg_power_w: Option<f64>,
}

/// `solo_s[i]`: app i's turnaround alone on the all-fast reference machine.
pub fn metrics(m: &Machine, r: &RunResult, solo_s: &[f64]) -> Metrics {
    let makespan_s = r.makespan_ns as f64 / 1e9;
    let apps: Vec<AppMetrics> = r
        .apps
        .iter()
        .zip(solo_s)
        .enumerate()
        .map(|(i, (a, &solo))| {
            let turnaround_s = a.turnaround_s();
            let (mut fast, mut total) = (0u64, 0u64);
            for &t in &a.thread_ids {
                let v = &r.threads[t as usize];
                fast += r.fast_ns(v);
                total += v.total_time_ns();
            }
            AppMetrics {
                name: a.name.clone(),
                threads: a.threads,
                runs: a.runs,
                turnaround_s,
                solo_s: solo,
                slowdown: turnaround_s / solo,
                fast_share: if total > 0 { fast as f64 / total as f64 } else { 0.0 },
                queue_spinlock: r.noc.as_ref().map(|n| QspinMetrics::of(&n.apps[i], n.clock_ghz, a.turnarounds_ns.iter().sum())),
            }
        })
        .collect();
    let n = apps.len() as f64;
    let progress: Vec<f64> = apps.iter().map(|a| 1.0 / a.slowdown).collect();
    let mean_p = progress.iter().sum::<f64>() / n;
    let sd_p = (progress.iter().map(|p| (p - mean_p).powi(2)).sum::<f64>() / n).sqrt();
    let max_sd = apps.iter().map(|a| a.slowdown).fold(f64::MIN, f64::max);
    let min_sd = apps.iter().map(|a| a.slowdown).fold(f64::MAX, f64::min);
    let core_energy_j: Option<Vec<f64>> = m.models_energy().then(|| {
        r.cores
            .iter()
            .map(|c| {
                let t = &m.core_types[c.core_type as usize];
                let busy = c.busy_ns as f64 / 1e9;
                // Each level's power for the time the core was busy at it; without DVFS that is
                // the one nominal level, `power_active_w`.
                let active: f64 = t.power_levels_w.iter().zip(&c.busy_ns_by_level).map(|(p, &ns)| p * (ns as f64 / 1e9)).sum();
                active + t.power_idle_w * (makespan_s - busy)
            })
            .collect()
    });
    // The rails' static power and the memory's traffic come on top of the cores' energy; 0.0
    // without `[[rail]]`, where energy_j stays the cores' sum.
    let rails = core_energy_j.as_ref().map(|e| crate::power::rail_energy(m, r, e, makespan_s));
    let energy_j: Option<f64> = core_energy_j.as_ref().zip(rails.as_ref()).map(|(e, (_, added))| e.iter().sum::<f64>() + added);
    let instructions = r.instructions();
    Metrics {
        makespan_s,
        antt: apps.iter().map(|a| a.slowdown).sum::<f64>() / n,
        stp: progress.iter().sum(),
        min_fairness: progress.iter().copied().fold(f64::MAX, f64::min),
        uniformity: 1.0 - sd_p / mean_p,
        unfairness: max_sd / min_sd,
        energy_j,
        edp: energy_j.map(|e| e * makespan_s),
        nj_per_instruction: energy_j.map(|e| if instructions > 0.0 { e / instructions * 1e9 } else { 0.0 }),
        instructions_per_s: if makespan_s > 0.0 { instructions / makespan_s } else { 0.0 },
        apps,
        core_energy_j,
        rail_energy_j: rails.map(|(r, _)| r),
        avg_power_w: energy_j.map(|e| if makespan_s > 0.0 { e / makespan_s } else { 0.0 }),
    }
}
