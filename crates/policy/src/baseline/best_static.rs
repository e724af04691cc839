//! `best-static`: the oracle of the Sáez thesis (§4.3.3, "best static assignment"): of all
//! fixed assignments of threads to core types, "decided at the beginning of execution and never
//! changed thereafter", the one with the best performance, found by trying them. Performance is
//! scored as the thesis reports it: the geometric mean over apps of their completion times,
//! normalised (here to each app's solo time, which ranks candidates exactly as normalising to the
//! default metric does, both being a fixed number per app), i.e. the geometric mean of slowdowns
//! (not ANTT, their arithmetic mean). The policy itself only applies a given assignment at thread
//! start; `search` finds it, with an evaluator (the simulator) supplied by the caller.
//!
//! The search space is cut in honest ways. Threads of identical apps and groups are
//! interchangeable, so a candidate is a count of fast threads per class of identical threads.
//! When there are as many threads as cores (the thesis's workloads: one benchmark per core), a
//! candidate gives every thread a core of its own, as the thesis's static assignments do: as
//! many threads on fast cores as there are fast cores, never two sharing a fast core while a
//! slow core idles. Otherwise a candidate must keep every fast core busy (at least
//! min(threads, fast cores) threads on fast) and the scaled loads of the two partitions within
//! one of each other, as the thesis's balance rule (§2.3) requires, a fast core counting
//! for ⌊P⌋ threads (`fast_core_slots`). If more than `max_runs` candidates remain, they are
//! ranked by the performance model (each thread's work at its type's speed, divided by its
//! share of that type's cores; the same geometric-mean score) and only the best `max_runs` are
//! simulated. The search is over two partitions (fast and slow): a machine of more than two
//! capacities is refused.

use std::collections::BTreeMap;

use ampsched_model::perf::PerfModel;
use ampsched_model::{InputError, Machine, Phase, Placement, Policy, PolicyFailure, Signals, SystemView, Trigger, Triggers, Workload};

use crate::common::{Level, Partitions, FAST};
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "best-static",
    description: "oracle: the fixed thread-to-core-type assignment with the lowest geometric-mean slowdown, found by simulation (<= 16 threads; one thread per core when they fit)",
    source: "Sáez thesis, §4.3.3 (best static assignment)",
    options: &[OptionInfo {
        name: "max_runs",
        kind: OptionKind::Integer { default: 64, min: 1, max: 1 << 20 },
        doc: "the most candidate assignments simulated; beyond it, the model's best ones are",
    }],
    needs: Signals::SIMULATOR,
    optional: Signals::NONE,
    build: Build::Oracle,
};

/// The slow partition of a two-capacity machine.
pub const SLOW: Level = 1;

/// The most threads the oracle searches over.
pub const MAX_THREADS: u32 = 16;

/// Which partition (`FAST` or `SLOW`) each thread goes to, keyed by (app, group, index in group).
pub type Assignment = BTreeMap<(u32, u16, u32), Level>;

pub struct BestStatic {
    parts: Partitions,
    assignment: Assignment,
}

impl BestStatic {
    pub fn new(m: &Machine, assignment: Assignment) -> Self {
        BestStatic { parts: Partitions::new(m), assignment }
    }
}

impl Policy for BestStatic {
    fn triggers(&self) -> Triggers {
        Triggers::START
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let Trigger::Start(t) = view.trigger else { return Ok(()) };
        let v = view.thread(t);
        let level = self.assignment.get(&(v.app, v.group, v.index_in_group)).copied().unwrap_or(FAST);
        self.parts.assign(view, t, level, out);
        Ok(())
    }
}

/// A class of interchangeable threads: their keys, and their work (ns) on fast and slow cores.
struct Class {
    members: Vec<(u32, u16, u32)>,
    fast_ns: f64,
    slow_ns: f64,
}

fn classes(m: &Machine, w: &Workload, model: &dyn PerfModel) -> Vec<Class> {
    let fast_t = m.fastest_type();
    let slow_t = m.cores[m.slow_cores().first().unwrap_or(0)].core_type;
    let mut out: Vec<Class> = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for (a, app) in w.apps.iter().enumerate() {
        for (g, group) in app.groups.iter().enumerate() {
            // Identical apps (say, copies of one benchmark) have identical definitions but for the name.
            let key = format!("{:?}|{}|{:?}|{}|{}|{}", app.groups, g, app.locks, app.arrival_ns, app.priority, app.runs);
            let work = |ty: usize| -> f64 {
                let per_rep: f64 = group
                    .phases
                    .iter()
                    .map(|p| match p {
                        Phase::Compute { instructions, profile } | Phase::Serial { instructions, profile, .. } => {
                            instructions * model.ns_per_instruction(m, ty, profile)
                        }
                        Phase::Critical { cs_instructions, between_instructions, count, profile, .. } => {
                            (cs_instructions + between_instructions) * *count as f64 * model.ns_per_instruction(m, ty, profile)
                        }
                        // A pool shares the stage's items: a thread's even part of them.
                        Phase::Stage(stage) => stage.items as f64 * stage.instructions / group.count as f64 * model.ns_per_instruction(m, ty, &stage.profile),
                        // Waits and synchronisation retire nothing.
                        _ => 0.0,
                    })
                    .sum();
                per_rep * group.repeat as f64
            };
            // A serial section's leader (thread 0) does more work than the others: a class of its own.
            let has_leader = group.phases.iter().any(|p| matches!(p, Phase::Serial { .. }));
            let mut add = |key: String, members: Vec<(u32, u16, u32)>| match seen.iter().position(|(k, _)| *k == key) {
                Some(i) => out[seen[i].1].members.extend(members),
                None => {
                    seen.push((key, out.len()));
                    out.push(Class { members, fast_ns: work(fast_t), slow_ns: work(slow_t) });
                }
            };
            let first = if has_leader { 1 } else { 0 };
            if has_leader {
                add(format!("{key}|leader"), vec![(a as u32, g as u16, 0)]);
            }
            if group.count > first {
                add(key, (first..group.count).map(|i| (a as u32, g as u16, i)).collect());
            }
        }
    }
    out
}

/// Whether the oracle can search this machine and workload: at most `MAX_THREADS` threads, two
/// core capacities. `compare` leaves it out, with this message, where it cannot.
pub fn searchable(m: &Machine, w: &Workload) -> Result<(), InputError> {
    let total = w.total_threads();
    if total > MAX_THREADS {
        return Err(InputError::new(
            "--policy",
            "best-static",
            format!("the oracle searches at most {MAX_THREADS} threads; workload '{}' has {total}", w.name),
        ));
    }
    if m.capacity_levels().len() > 2 {
        return Err(InputError::new(
            "--policy",
            "best-static",
            format!("the oracle searches two partitions; machine '{}' has more than two core capacities", m.name),
        ));
    }
    Ok(())
}

/// Candidate assignments, best first by the model when there are more than `max_runs`.
pub fn candidates(m: &Machine, w: &Workload, model: &dyn PerfModel, max_runs: usize) -> Result<Vec<Assignment>, InputError> {
    searchable(m, w)?;
    let total = w.total_threads();
    let cls = classes(m, w, model);
    let (nfc, nsc) = (m.fast_cores().len(), m.slow_cores().len());
    let slots = fast_core_slots(&cls);
    let admissible = |f: usize| -> bool {
        if nsc == 0 {
            return f == total as usize;
        }
        let s = total as usize - f;
        if total as usize == nfc + nsc {
            // As many threads as cores: one per core (the thesis's static assignments).
            return f == nfc;
        }
        let (lf, ls) = (f.div_ceil(slots * nfc), s.div_ceil(nsc));
        f >= (total as usize).min(nfc) && lf <= ls + 1 && ls <= lf + 1
    };
    // Enumerate fast counts per class (odometer).
    let mut counts = vec![0usize; cls.len()];
    let mut scored: Vec<(f64, Vec<usize>)> = Vec::new();
    loop {
        let f: usize = counts.iter().sum();
        if admissible(f) {
            scored.push((estimate(&cls, &counts, nfc, nsc, w.apps.len()), counts.clone()));
        }
        let mut i = 0;
        while i < cls.len() {
            counts[i] += 1;
            if counts[i] <= cls[i].members.len() {
                break;
            }
            counts[i] = 0;
            i += 1;
        }
        if i == cls.len() {
            break;
        }
    }
    if scored.len() > max_runs {
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        scored.truncate(max_runs);
    }
    Ok(scored
        .into_iter()
        .map(|(_, counts)| {
            let mut a = Assignment::new();
            for (c, &k) in cls.iter().zip(&counts) {
                for (i, key) in c.members.iter().enumerate() {
                    a.insert(*key, if i < k { FAST } else { SLOW });
                }
            }
            a
        })
        .collect())
}

/// ⌊P⌋ of the thesis's scaled load (§2.3, Eq. 2.1): how many threads a fast core counts for in
/// the balance rule, P being the fast cores' computing power relative to the slow ones,
/// measured as the thesis does: the geometric mean speedup of the programs run (here, of the
/// workload's threads under the performance model). The thesis's machines had P < 2, so ⌊P⌋ = 1
/// there; on a machine whose fast cores are over twice as fast for these programs, a fast core
/// may take ⌊P⌋ threads against one per slow core.
fn fast_core_slots(cls: &[Class]) -> usize {
    let (mut log_sum, mut n) = (0.0, 0usize);
    for c in cls.iter().filter(|c| c.fast_ns > 0.0) {
        log_sum += (c.slow_ns / c.fast_ns).ln() * c.members.len() as f64;
        n += c.members.len();
    }
    if n == 0 {
        return 1;
    }
    ((log_sum / n as f64).exp().floor() as usize).max(1)
}

/// The model's geometric-mean slowdown for a candidate: each thread's work at its side's speed,
/// stretched by the side's over-subscription; an app is as slow as its slowest thread.
fn estimate(cls: &[Class], counts: &[usize], nfc: usize, nsc: usize, napps: usize) -> f64 {
    let f: usize = counts.iter().sum();
    let s: usize = cls.iter().map(|c| c.members.len()).sum::<usize>() - f;
    let stretch_fast = (f as f64 / nfc.max(1) as f64).max(1.0);
    let stretch_slow = (s as f64 / nsc.max(1) as f64).max(1.0);
    let mut app_time = vec![0.0f64; napps];
    let mut app_solo = vec![0.0f64; napps];
    for (c, &k) in cls.iter().zip(counts) {
        // Class members may span several identical apps; the estimate charges the slowest case to each.
        let t = if k < c.members.len() { c.slow_ns * stretch_slow } else { c.fast_ns * stretch_fast };
        for &(a, _, _) in &c.members {
            app_time[a as usize] = app_time[a as usize].max(t);
            app_solo[a as usize] = app_solo[a as usize].max(c.fast_ns);
        }
    }
    let log_sum: f64 = app_time.iter().zip(&app_solo).map(|(t, s)| if *s > 0.0 && *t > 0.0 { (t / s).ln() } else { 0.0 }).sum();
    (log_sum / napps.max(1) as f64).exp()
}

pub fn max_runs(options: &Options) -> usize {
    options.integer("max_runs") as usize
}
