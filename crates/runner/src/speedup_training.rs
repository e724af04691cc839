//! Training WASH's speedup model ("Portable Performance on Asymmetric Multicore Processors",
//! §5): every program of the training set runs alone, under `oblivious`, on the machine with
//! every core big and again with every core small; each thread that took more than 1% of its
//! run's execution time (§5: "threads that account for more than 1% of total execution time")
//! gives a sample: its events per cycle on each side, and its measured speedup (instructions
//! per second of CPU time on the big machine over the small). Then, per side:
//!
//! 1. PCA over the standardised candidate events (every event but cycles, per cycle);
//! 2. elimination down to `MODEL_EVENTS` = 4 (the Phenom II's counters, §5): while more remain,
//!    drop one of a redundant pair (|correlation| ≥ `REDUNDANT_CORRELATION`; the one of lower
//!    weight), else the event of lowest weight, where an event's weight is its coefficient in
//!    the regression of the speedup on the leading components (those explaining
//!    `VARIANCE_KEPT` of the variance) mapped back to the events;
//! 3. linear regression of the speedup on the leading components of the 4 kept events, stored
//!    as weights on the standardised events (`LinearModel`).
//!
//! The second-best model ("the next best 4 different counters", §8.4) runs the same on the
//! events the default did not keep. Leave-one-out (§5: each benchmark is predicted by a model
//! trained on the others): a model per program trained on the rest, with its error on that
//! program's threads, and one trained on all.

use ampsched_model::events::EVENTS;
use ampsched_model::{Counters, Machine, SimpleModel, Workload};
use ampsched_policy::baseline::oblivious::Oblivious;
use ampsched_policy::common::speedup_model::{candidate_events, rate_per_cycle, Entry, LinearModel, ModelFile, Side, MODEL_EVENTS};
use ampsched_sim::{Engine, SimConfig};

use crate::catalog;
use crate::Error;

/// Share of a run's execution time a thread must exceed to be a training sample (WASH §5).
pub const MIN_TIME_SHARE: f64 = 0.01;
/// Two events whose rates correlate at least this much carry the same information (WASH §5
/// eliminates events "with the same weights"): one of them goes.
pub const REDUNDANT_CORRELATION: f64 = 0.995;
/// The leading components kept: those that explain 99.9% of the standardised events'
/// variance. The rest are near-collinear directions whose regression coefficients only fit
/// noise (and the count of samples, one per thread of ~60 programs, is small).
pub const VARIANCE_KEPT: f64 = 0.999;
/// The catalog machine the training runs on by default: WASH's Phenom II 1B5S (2.8/0.8 GHz).
pub const DEFAULT_MACHINE: &str = "wash-1b5s";

/// The catalog program files trained on by default: WASH's Java benchmarks (§5: "all threads
/// of all benchmarks"), whose application, GC and JIT threads differ in memory intensity.
pub const DEFAULT_PROGRAM_FILES: [&str; 1] = ["dacapo"];

/// One thread's training sample.
#[derive(Debug, Clone)]
pub struct Sample {
    pub program: String,
    /// Every candidate event per cycle (`candidate_events` order), on the big and small machine.
    pub big: Vec<f64>,
    pub small: Vec<f64>,
    /// Instructions per second of CPU time on the big machine over the small.
    pub speedup: f64,
}

/// The workload of `program` alone (one run).
fn alone(program: &str, programs: &ampsched_model::workload::Programs) -> Result<Workload, Error> {
    let text = format!("name = \"train-{program}\"\n[[app]]\nname = \"{program}\"\nprogram = \"{program}\"\n");
    Ok(Workload::from_toml(&format!("(training run of {program})"), &text, programs)?)
}

/// Per thread slot of a run on a one-type machine, (group, index in group) in ascending order:
/// (instructions, time ns, rates per cycle). A slot sums the threads that held it, so that
/// the short-lived threads a per-phase group creates anew (eclipse's, hsqldb's) line up
/// between the big and the small run whatever order they started in.
fn thread_rates(m: &Machine, w: &Workload) -> Result<Vec<(f64, u64, Vec<f64>)>, Error> {
    let w = w.clone().for_machine(m.num_cores() as u32).map_err(|why| ampsched_model::InputError::new(&w.name, "count", why))?;
    ampsched_model::perf::check_uarch_cpi(m, &w)?;
    let cfg = SimConfig::default();
    let r = Engine::new(m, &w, &SimpleModel, &mut Oblivious, cfg).run().map_err(|error| Error::Sim { workload: w.name.clone(), error })?;
    let mut slots: std::collections::BTreeMap<(u32, u16, u32), Counters> = std::collections::BTreeMap::new();
    for t in &r.threads {
        let c = &t.per_type[0];
        let sum = slots.entry((t.app, t.group, t.index_in_group)).or_default();
        *sum = sum.plus(c);
    }
    let events = candidate_events();
    Ok(slots
        .values()
        .map(|c| {
            let rates = events.iter().map(|&e| rate_per_cycle(c, e).unwrap_or(0.0)).collect();
            (c.instructions, c.time_ns, rates)
        })
        .collect())
}

/// The samples of every program in `names` on `machine`'s all-big and all-small versions.
pub fn collect(machine: &Machine, names: &[String]) -> Result<Vec<Sample>, Error> {
    let programs = catalog::programs()?;
    // Profiling measures the hardware: its truly biggest and smallest types (peak rates), whatever
    // capacities the OS reports.
    let (fastest, slowest) = ampsched_model::perf::true_sf_types(machine);
    let big = machine.all_of_type(fastest);
    let small = machine.all_of_type(slowest);
    let mut out = Vec::new();
    for name in names {
        let w = alone(name, &programs)?;
        let (on_big, on_small) = (thread_rates(&big, &w)?, thread_rates(&small, &w)?);
        let total = |run: &[(f64, u64, Vec<f64>)]| run.iter().map(|t| t.1).sum::<u64>() as f64;
        let (total_big, total_small) = (total(&on_big), total(&on_small));
        for (b, s) in on_big.iter().zip(&on_small) {
            let significant = b.1 as f64 > MIN_TIME_SHARE * total_big && s.1 as f64 > MIN_TIME_SHARE * total_small;
            if !significant || b.0 <= 0.0 || s.0 <= 0.0 {
                continue;
            }
            let speedup = (b.0 / b.1 as f64) / (s.0 / s.1 as f64);
            out.push(Sample { program: name.clone(), big: b.2.clone(), small: s.2.clone(), speedup });
        }
    }
    Ok(out)
}

/// Eigenvalues (descending) and unit eigenvectors (columns) of a symmetric matrix, by cyclic
/// Jacobi rotations: exact to rounding for the ≤ 8×8 correlation matrices here, and
/// deterministic. Each eigenvector's sign is fixed (largest |entry| positive).
pub fn symmetric_eigen(a: &[Vec<f64>]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = a.len();
    let mut a: Vec<Vec<f64>> = a.to_vec();
    let mut v: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    for _sweep in 0..100 {
        let off: f64 = (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j))).map(|(i, j)| a[i][j] * a[i][j]).sum();
        if off < 1e-30 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[p][q].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k][p], a[k][q]);
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p][k], a[q][k]);
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for row in v.iter_mut() {
                    let (vkp, vkq) = (row[p], row[q]);
                    row[p] = c * vkp - s * vkq;
                    row[q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[j][j].total_cmp(&a[i][i]).then(i.cmp(&j)));
    let values = order.iter().map(|&i| a[i][i].max(0.0)).collect();
    let vectors = order
        .iter()
        .map(|&k| {
            let col: Vec<f64> = (0..n).map(|i| v[i][k]).collect();
            let big = col.iter().copied().fold(0.0f64, |m, x| if x.abs() > m.abs() { x } else { m });
            col.iter().map(|x| if big < 0.0 { -x } else { *x }).collect()
        })
        .collect();
    (values, vectors)
}

/// Standardised features: per column mean and population standard deviation (1 where the
/// column is constant, which then carries nothing).
fn standardise(x: &[Vec<f64>]) -> (Vec<f64>, Vec<f64>) {
    let (n, p) = (x.len() as f64, x[0].len());
    let mean: Vec<f64> = (0..p).map(|j| x.iter().map(|r| r[j]).sum::<f64>() / n).collect();
    let scale = (0..p)
        .map(|j| {
            let sd = (x.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n).sqrt();
            if sd > 0.0 {
                sd
            } else {
                1.0
            }
        })
        .collect();
    (mean, scale)
}

/// Principal-component regression of `y` on the columns `cols` of `x`: the standardised
/// weights (one per column), and the correlation matrix.
fn pcr(x: &[Vec<f64>], y: &[f64], cols: &[usize]) -> (LinearModel, Vec<Vec<f64>>) {
    let sub: Vec<Vec<f64>> = x.iter().map(|r| cols.iter().map(|&j| r[j]).collect()).collect();
    let (mean, scale) = standardise(&sub);
    let n = sub.len() as f64;
    let z: Vec<Vec<f64>> = sub.iter().map(|r| r.iter().enumerate().map(|(j, v)| (v - mean[j]) / scale[j]).collect()).collect();
    let p = cols.len();
    let corr: Vec<Vec<f64>> = (0..p).map(|i| (0..p).map(|j| z.iter().map(|r| r[i] * r[j]).sum::<f64>() / n).collect()).collect();
    let y_mean = y.iter().sum::<f64>() / n;
    let (values, vectors) = symmetric_eigen(&corr);
    let total: f64 = values.iter().sum();
    let mut weight = vec![0.0; p];
    let mut explained = 0.0;
    for (k, (&lambda, v)) in values.iter().zip(&vectors).enumerate() {
        if lambda <= 1e-12 * total.max(1e-300) || (k > 0 && explained >= VARIANCE_KEPT * total) {
            break;
        }
        explained += lambda;
        // The component's score is z·v; its regression coefficient, the components being
        // uncorrelated, is cov(score, y) / var(score) = cov(score, y) / λ.
        let cov: f64 = z.iter().zip(y).map(|(r, yi)| r.iter().zip(v).map(|(a, b)| a * b).sum::<f64>() * (yi - y_mean)).sum::<f64>() / n;
        let beta = cov / lambda;
        for j in 0..p {
            weight[j] += beta * v[j];
        }
    }
    (LinearModel { events: cols.to_vec(), mean, scale, weight, intercept: y_mean }, corr)
}

/// The share of the speedup's variance `model` explains on `x` (columns of the model's events).
fn explained(model: &LinearModel, x: &[Vec<f64>], y: &[f64]) -> f64 {
    let n = y.len() as f64;
    let mean = y.iter().sum::<f64>() / n;
    let total: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let residual: f64 = x
        .iter()
        .zip(y)
        .map(|(r, v)| {
            let rates: Vec<f64> = model.events.iter().map(|&j| r[j]).collect();
            (model.eval_rates(&rates) - v).powi(2)
        })
        .sum();
    if total > 0.0 {
        1.0 - residual / total
    } else {
        1.0
    }
}

/// WASH §5's elimination from `from` (indices into the candidate features) down to
/// `MODEL_EVENTS`, then the regression on what is kept. An event's weight is what it adds to
/// the regression on the leading components: the share of the speedup's variance the fit
/// explains with it less the share without it. (The loadings of the components alone spread
/// the weight over near-collinear events, and would drop the most direct predictor of a group
/// as readily as the least.)
pub fn fit(x: &[Vec<f64>], y: &[f64], from: &[usize]) -> LinearModel {
    let mut kept = from.to_vec();
    while kept.len() > MODEL_EVENTS {
        let (model, corr) = pcr(x, y, &kept);
        let with = explained(&model, x, y);
        let weight: Vec<f64> = (0..kept.len())
            .map(|i| {
                let without: Vec<usize> = kept.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &e)| e).collect();
                with - explained(&pcr(x, y, &without).0, x, y)
            })
            .collect();
        let mut drop = None;
        'pairs: for i in 0..kept.len() {
            for j in i + 1..kept.len() {
                if corr[i][j].abs() >= REDUNDANT_CORRELATION {
                    drop = Some(if weight[i] < weight[j] { i } else { j });
                    break 'pairs;
                }
            }
        }
        let drop = drop.unwrap_or_else(|| (0..kept.len()).min_by(|&a, &b| weight[a].total_cmp(&weight[b])).unwrap_or(0));
        kept.remove(drop);
    }
    kept.sort_unstable();
    pcr(x, y, &kept).0
}

/// Candidate indices → event indices for a model trained on candidate features.
fn as_events(mut m: LinearModel) -> LinearModel {
    let events = candidate_events();
    m.events = m.events.iter().map(|&j| events[j]).collect();
    m
}

/// The default and second-best models of one side trained on `samples`.
pub fn fit_side(samples: &[&Sample], side: Side) -> (LinearModel, LinearModel) {
    let x: Vec<Vec<f64>> = samples.iter().map(|s| if side == Side::Big { s.big.clone() } else { s.small.clone() }).collect();
    let y: Vec<f64> = samples.iter().map(|s| s.speedup).collect();
    let all: Vec<usize> = (0..candidate_events().len()).collect();
    let default = fit(&x, &y, &all);
    let rest: Vec<usize> = all.iter().copied().filter(|j| !default.events.contains(j)).collect();
    let second = fit(&x, &y, &rest);
    (as_events(default), as_events(second))
}

/// Mean |predicted − measured| / measured of `model` over `samples` on `side`.
pub fn relative_error(model: &LinearModel, samples: &[&Sample], side: Side) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let candidates = candidate_events();
    let col: Vec<usize> = model.events.iter().map(|e| candidates.iter().position(|c| c == e).expect("a model reads candidate events")).collect();
    let total: f64 = samples
        .iter()
        .map(|s| {
            let x = if side == Side::Big { &s.big } else { &s.small };
            let rates: Vec<f64> = col.iter().map(|&j| x[j]).collect();
            (model.eval_rates(&rates) - s.speedup).abs() / s.speedup
        })
        .sum();
    Some(total / samples.len() as f64)
}

/// Every model: per choice and side, the one on all programs, then one per left-out program.
pub fn train(machine_name: &str, samples: &[Sample]) -> ModelFile {
    let mut programs: Vec<&str> = samples.iter().map(|s| s.program.as_str()).collect();
    programs.dedup();
    let mut entries = Vec::new();
    for side in [Side::Big, Side::Small] {
        let mut add = |left_out: Option<&str>| {
            let train: Vec<&Sample> = samples.iter().filter(|s| Some(s.program.as_str()) != left_out).collect();
            let test: Vec<&Sample> = samples.iter().filter(|s| Some(s.program.as_str()) == left_out).collect();
            let (default, second) = fit_side(&train, side);
            for (choice, model) in [("default", default), ("second", second)] {
                let left_out_error = left_out.and_then(|_| relative_error(&model, &test, side));
                entries.push(Entry { choice: choice.into(), side, left_out: left_out.map(str::to_string), threads: train.len() as u32, left_out_error, model });
            }
        };
        add(None);
        for p in &programs {
            add(Some(p));
        }
    }
    ModelFile { machine: machine_name.to_string(), entries }
}

/// The header of the model file: how it was made and the leave-one-out errors in summary.
pub fn header(file: &ModelFile, program_files: &[String], samples: &[Sample]) -> String {
    let mut h = String::new();
    h.push_str("WASH speedup models (WASH, \"Portable Performance on Asymmetric Multicore Processors\", §5, §8.4).\n");
    h.push_str("Generated by `cargo run --release -p ampsched-runner --bin ampsched-train-speedup-model` (`make speedup-model`);\n");
    h.push_str("do not edit: crates/policy/src/common/speedup_model.rs embeds it, and a test checks it is what the tool writes.\n\n");
    h.push_str(&format!(
        "Training: every program of catalog/programs/{{{}}}.toml alone under `oblivious` on {} with all cores big and again\n",
        program_files.join(","),
        file.machine
    ));
    h.push_str(&format!(
        "all small (default seed, exact counters); {} threads with > {}% of their run's execution time, of {} programs.\n",
        samples.len(),
        MIN_TIME_SHARE * 100.0,
        {
            let mut p: Vec<&str> = samples.iter().map(|s| s.program.as_str()).collect();
            p.dedup();
            p.len()
        }
    ));
    h.push_str("Features: each event per cycle (candidates: ");
    h.push_str(&candidate_events().iter().map(|&e| EVENTS[e].name).collect::<Vec<_>>().join(", "));
    h.push_str(&format!(
        ").\nSelection: PCA elimination to {MODEL_EVENTS} events (redundant at |r| >= {REDUNDANT_CORRELATION}, else lowest weight); regression on the\n"
    ));
    h.push_str(&format!("leading components ({}% of the variance). \"second\": the same over the events \"default\" did not keep.\n", VARIANCE_KEPT * 100.0));
    h.push_str("Model: speedup = intercept + sum(weight * (event/cycles - mean) / scale); side = the core type the counters come from.\n");
    h.push_str("left_out_error: mean |predicted - measured| / measured over the left-out program's threads.\n\n");
    h.push_str("Mean leave-one-out error (over programs):\n");
    for side in [Side::Big, Side::Small] {
        for choice in ["default", "second"] {
            let errs: Vec<f64> = file.entries.iter().filter(|e| e.side == side && e.choice == choice).filter_map(|e| e.left_out_error).collect();
            let mean = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
            let all = file.entries.iter().find(|e| e.side == side && e.choice == choice && e.left_out.is_none());
            let events = all.map(|e| e.model.events.iter().map(|&i| EVENTS[i].name).collect::<Vec<_>>().join(", ")).unwrap_or_default();
            h.push_str(&format!("  {} side, {choice}: {:.2}% ({events})\n", side.name(), mean * 100.0));
        }
    }
    h
}

/// The program names of catalog program files (`spec2000`, `parallel`, ...), in file order then name order.
pub fn programs_of(files: &[String]) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for f in files {
        let (_, text) = catalog::PROGRAMS.iter().find(|(n, _)| n == f).ok_or_else(|| {
            ampsched_model::InputError::new(
                "--programs",
                f,
                format!("no such program file in catalog/programs ({})", catalog::PROGRAMS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")),
            )
        })?;
        let mut p = ampsched_model::workload::Programs::new();
        ampsched_model::workload::programs_from_toml(&format!("catalog/programs/{f}.toml"), text, &mut p)?;
        out.extend(p.keys().cloned());
    }
    Ok(out)
}

/// The whole model file's text for `program_files` on `machine_name`.
pub fn model_file_text(machine_name: &str, program_files: &[String]) -> Result<String, Error> {
    let machine = catalog::machine(machine_name)?;
    let samples = collect(&machine, &programs_of(program_files)?)?;
    let file = train(machine_name, &samples);
    Ok(file.to_toml(&header(&file, program_files, &samples)))
}
