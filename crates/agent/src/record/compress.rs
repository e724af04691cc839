//! A recorded thread's phase list made short: lossless merges first, then repetitions replaced
//! by their mean within a tolerance, and only when the file is still above its size bound,
//! coarser tolerances and merged waits, each step's cost measured and reported.
//!
//! What is kept exactly, whatever the tolerance: every thread's total instructions (and so its
//! CPU time on the recorded machine: a mean times its count is the sum it replaces), its total
//! modelled sleep, and its synchronisation (each acquisition, post, wait, barrier, spawn and
//! join stays, in order; a repeated body repeats them as often as they were). What a tolerance
//! costs is where work falls between them: each merged value is within the tolerance of every
//! value it replaced (`Error::value`).

use serde::Serialize;

/// A phase of a recorded thread, before it is written as TOML.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// `instructions` with their CPI on the reference core and LLC misses per kilo-instruction.
    Compute {
        instructions: f64,
        cpi: f64,
        mpki: f64,
    },
    /// `count` acquisitions of lock `lock` (index), each after `between` instructions, holding
    /// it for `cs` instructions.
    Critical {
        lock: usize,
        cs: f64,
        between: f64,
        count: u32,
        cpi: f64,
        mpki: f64,
    },
    Sleep {
        ns: u64,
    },
    Spawn {
        group: usize,
    },
    Join {
        group: usize,
    },
    /// `ids`: the hand-offs (matched condition waits) the post stands for, `count` of them.
    SemPost {
        sem: usize,
        count: u32,
        ids: Vec<usize>,
    },
    /// `id`: the hand-off, so that it and its post can be dropped together (`drop_hand_offs`).
    SemWait {
        sem: usize,
        id: usize,
    },
    Barrier {
        barrier: usize,
        parties: usize,
    },
}

/// Two values are alike within `tol` if each is within `tol` of their mean, relatively, or
/// within `ABS_FLOOR_INSTRUCTIONS` (ns for sleeps) absolutely: a relative test alone would keep
/// apart 0 and 3 instructions of a critical section with nothing between acquisitions. 1,000
/// instructions are under a microsecond on any core the catalog has, below the samples'
/// resolution (a 1 ms interval at the fastest) by three orders of magnitude.
const ABS_FLOOR_INSTRUCTIONS: f64 = 1_000.0;
/// The same floor for sleeps, ns (1 µs: the order of a wake-up's latency).
const ABS_FLOOR_NS: f64 = 1_000.0;

/// The tolerances the compression tries, in order: the first (`BASE_TOLERANCE`) always; the
/// others only while the file is above its size bound. 10% is the project's validation target
/// (wall time within 10%); beyond it each step doubles, up to merging any values (infinity).
pub const BASE_TOLERANCE: f64 = 0.10;
const COARSER_TOLERANCES: [f64; 5] = [0.25, 0.5, 1.0, 2.0, f64::INFINITY];

/// What the compression cost, as the file and the summary report it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Error {
    /// The tolerance reached: each merged value is within it of the values it replaced
    /// (relatively; 0: nothing merged but equal values; infinity, `null` in the summary's JSON:
    /// any values merged, the coarsest pass).
    pub tolerance: f64,
    /// The largest relative difference between a merged value and a value it replaced.
    pub value: f64,
    /// The largest relative change of a thread's total instructions (rounding only, unless
    /// phases were dropped).
    pub compute: f64,
    /// The largest relative change of a thread's total modelled sleep.
    pub wait: f64,
    /// Sleeps merged into their neighbours by the coarsening (their time kept, moved).
    pub sleeps_moved: usize,
    /// Threads whose loop runs as a helper group of its own (`Split`).
    pub loops_split: usize,
    /// Condition-variable hand-offs (a post and its wait) dropped to meet the bound, and the
    /// time their waits took in the recording, ns (`drop_hand_offs`).
    pub hand_offs_dropped: usize,
    pub hand_off_wait_dropped_ns: u64,
    /// Phases before compression (after the lossless merges) and after.
    pub phases_before: usize,
    pub phases_after: usize,
}

/// One thread's list and its group's repeat (1 for a list that spawns or joins: a spawned group
/// is named once), and the loop split out of it, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct List {
    pub steps: Vec<Step>,
    pub repeat: u32,
    pub split: Option<Split>,
}

/// A loop of a thread that spawns or joins, which therefore cannot repeat as a whole (the format
/// repeats groups, not stretches of their lists, and a spawning group may not repeat): the loop
/// runs as a helper group of its own, `body` repeated `repeat` times, which the thread spawns
/// where the loop began (`at`, an index in its `steps`) and joins at once. The work and its
/// order are the thread's; what changes is that a second simulated thread does the loop while
/// the first waits, so a replay reports the recorded thread's CPU time over the two groups.
/// Used only when the file is otherwise above its size bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub at: usize,
    pub body: Vec<Step>,
    pub repeat: u32,
}

impl List {
    pub fn phases(&self) -> usize {
        self.steps.len() + self.split.as_ref().map_or(0, |s| 2 + s.body.len())
    }

    fn plain(steps: Vec<Step>) -> List {
        List { steps, repeat: 1, split: None }
    }
}

fn alike(values: &[f64], tol: f64, floor: f64) -> Option<(f64, f64)> {
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let mut worst: f64 = 0.0;
    for &v in values {
        let d = (v - mean).abs();
        if d > floor && d > tol * mean.abs() {
            return None;
        }
        if mean.abs() > 0.0 && d > floor {
            worst = worst.max(d / mean.abs());
        }
    }
    Some((mean, worst))
}

/// Instruction-weighted mean of a profile value (time on any core is linear in instructions ×
/// CPI and instructions × MPKI, so the weighted means keep the merged phases' time exact).
fn weighted(parts: &[(f64, f64)]) -> f64 {
    let total: f64 = parts.iter().map(|(n, _)| n).sum();
    if total <= 0.0 {
        return parts.first().map_or(1.0, |p| p.1);
    }
    parts.iter().map(|(n, v)| n * v).sum::<f64>() / total
}

/// The lossless merges: adjacent computes into one, adjacent sleeps into one, a compute before
/// a critical phase of count 1 into its `between`.
pub fn merge_lossless(steps: Vec<Step>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    for s in steps {
        match (out.last_mut(), s) {
            (Some(Step::Compute { instructions: a, cpi: ca, mpki: ma }), Step::Compute { instructions: b, cpi: cb, mpki: mb }) => {
                let parts = [(*a, *ca), (b, cb)];
                let mparts = [(*a, *ma), (b, mb)];
                *ca = weighted(&parts);
                *ma = weighted(&mparts);
                *a += b;
            }
            (Some(Step::Sleep { ns: a }), Step::Sleep { ns: b }) => *a += b,
            (Some(Step::Compute { instructions, cpi: ca, mpki: ma }), Step::Critical { lock, cs, between, count: 1, cpi, mpki }) => {
                let (n, c, m) = (*instructions, *ca, *ma);
                let total = n + between + cs;
                let merged = Step::Critical {
                    lock,
                    cs,
                    between: between + n,
                    count: 1,
                    cpi: if total > 0.0 { (n * c + (between + cs) * cpi) / total } else { cpi },
                    mpki: if total > 0.0 { (n * m + (between + cs) * mpki) / total } else { mpki },
                };
                *out.last_mut().expect("matched") = merged;
            }
            (_, s) => out.push(s),
        }
    }
    out
}

/// Runs of consecutive critical phases on one lock whose `between` and `cs` are alike within
/// `tol` become one phase with their count and means. Returns the list and the largest value
/// change.
fn merge_critical_runs(steps: &[Step], tol: f64) -> (Vec<Step>, f64) {
    let mut out = Vec::with_capacity(steps.len());
    let mut worst: f64 = 0.0;
    let mut i = 0;
    while i < steps.len() {
        let Step::Critical { lock, .. } = steps[i] else {
            out.push(steps[i].clone());
            i += 1;
            continue;
        };
        // Extend while the run stays alike.
        let mut j = i + 1;
        let mut best = (i + 1, merged_critical(&steps[i..i + 1], tol).expect("one phase is alike with itself"));
        while j < steps.len() && matches!(steps[j], Step::Critical { lock: l, .. } if l == lock) {
            match merged_critical(&steps[i..=j], tol) {
                Some(m) => best = (j + 1, m),
                None => break,
            }
            j += 1;
        }
        let (end, (step, w)) = best;
        worst = worst.max(w);
        out.push(step);
        i = end;
    }
    (out, worst)
}

fn merged_critical(run: &[Step], tol: f64) -> Option<(Step, f64)> {
    let mut cs = Vec::new();
    let mut between = Vec::new();
    let mut count = 0u64;
    let mut cpis = Vec::new();
    let mut mpkis = Vec::new();
    let mut lock = 0;
    for s in run {
        let Step::Critical { lock: l, cs: c, between: b, count: n, cpi, mpki } = *s else { return None };
        lock = l;
        // A phase of count n stands for n acquisitions of its means.
        for _ in 0..n.min(2) {
            cs.push(c);
            between.push(b);
        }
        count += n as u64;
        cpis.push(((c + b) * n as f64, cpi));
        mpkis.push(((c + b) * n as f64, mpki));
    }
    if count > ampsched_model::limits::MAX_CRITICAL_COUNT {
        return None;
    }
    // Means over acquisitions: weight each phase by its count.
    let total: f64 = run.iter().map(|s| if let Step::Critical { count, .. } = s { *count as f64 } else { 0.0 }).sum();
    let mean_of =
        |f: &dyn Fn(&Step) -> f64| run.iter().map(|s| if let Step::Critical { count, .. } = s { f(s) * *count as f64 } else { 0.0 }).sum::<f64>() / total;
    let (_, wc) = alike(&cs, tol, ABS_FLOOR_INSTRUCTIONS)?;
    let (_, wb) = alike(&between, tol, ABS_FLOOR_INSTRUCTIONS)?;
    let cs_mean = mean_of(&|s| if let Step::Critical { cs, .. } = s { *cs } else { 0.0 });
    let between_mean = mean_of(&|s| if let Step::Critical { between, .. } = s { *between } else { 0.0 });
    Some((Step::Critical { lock, cs: cs_mean, between: between_mean, count: count as u32, cpi: weighted(&cpis), mpki: weighted(&mpkis) }, wc.max(wb)))
}

/// Whether two phases are the same operation (kind and synchronisation object), so that one
/// may stand for the other in a repeated body.
fn same_kind(a: &Step, b: &Step) -> bool {
    use Step::*;
    match (a, b) {
        (Compute { .. }, Compute { .. }) | (Sleep { .. }, Sleep { .. }) => true,
        (Critical { lock: l1, count: c1, .. }, Critical { lock: l2, count: c2, .. }) => l1 == l2 && c1 == c2,
        (SemPost { sem: s1, count: c1, .. }, SemPost { sem: s2, count: c2, .. }) => s1 == s2 && c1 == c2,
        (SemWait { sem: s1, .. }, SemWait { sem: s2, .. }) => s1 == s2,
        (Barrier { barrier: b1, .. }, Barrier { barrier: b2, .. }) => b1 == b2,
        // A spawn or a join names one group: never the same twice.
        _ => false,
    }
}

/// The mean of `k` phases of one kind, and the largest relative change it makes to any of them;
/// None if their values are not alike within `tol`.
fn mean_step(items: &[&Step], tol: f64) -> Option<(Step, f64)> {
    let vals = |f: &dyn Fn(&Step) -> f64| items.iter().map(|s| f(s)).collect::<Vec<f64>>();
    match items[0] {
        Step::Compute { .. } => {
            let n = vals(&|s| if let Step::Compute { instructions, .. } = s { *instructions } else { 0.0 });
            let (mean, w) = alike(&n, tol, ABS_FLOOR_INSTRUCTIONS)?;
            let c = vals(&|s| if let Step::Compute { cpi, .. } = s { *cpi } else { 0.0 });
            let m = vals(&|s| if let Step::Compute { mpki, .. } = s { *mpki } else { 0.0 });
            let cpi = weighted(&n.iter().copied().zip(c).collect::<Vec<_>>());
            let mpki = weighted(&n.iter().copied().zip(m).collect::<Vec<_>>());
            Some((Step::Compute { instructions: mean, cpi, mpki }, w))
        }
        Step::Sleep { .. } => {
            let ns = vals(&|s| if let Step::Sleep { ns } = s { *ns as f64 } else { 0.0 });
            let (mean, w) = alike(&ns, tol, ABS_FLOOR_NS)?;
            Some((Step::Sleep { ns: mean.round().max(1.0) as u64 }, w))
        }
        Step::Critical { .. } => {
            let owned: Vec<Step> = items.iter().map(|s| (*s).clone()).collect();
            let (m, w) = merged_critical(&owned, tol)?;
            // Keep the count of one repetition, not the sum.
            let Step::Critical { lock, cs, between, cpi, mpki, .. } = m else { unreachable!() };
            let Step::Critical { count, .. } = items[0] else { unreachable!() };
            Some((Step::Critical { lock, cs, between, count: *count, cpi, mpki }, w))
        }
        other => Some((other.clone(), 0.0)),
    }
}

/// A list that is one body repeated (`k` ≥ 2 times), within `tol`: the body of means and the
/// largest change. A compute before the first repetition or after the last (a prologue, an
/// epilogue: set-up and tear-down around a loop) is spread over the body's computes, which keeps
/// the total and costs where that work falls (its change is counted in the value error).
fn find_repeat(steps: &[Step], tol: f64) -> Option<(Vec<Step>, u32, f64)> {
    if steps.iter().any(|s| matches!(s, Step::Spawn { .. } | Step::Join { .. })) {
        return None;
    }
    let n = steps.len();
    let is_compute = |s: &Step| matches!(s, Step::Compute { .. });
    let mut candidates = vec![(0, n)];
    if n > 0 && is_compute(&steps[0]) {
        candidates.push((1, n));
    }
    if n > 0 && is_compute(&steps[n - 1]) {
        candidates.push((0, n - 1));
        if is_compute(&steps[0]) && n > 1 {
            candidates.push((1, n - 1));
        }
    }
    let mut best: Option<(Vec<Step>, u32, f64)> = None;
    for (lo, hi) in candidates {
        let core = &steps[lo..hi];
        let m = core.len();
        for p in 1..=m / 2 {
            if !m.is_multiple_of(p) || best.as_ref().is_some_and(|(b, _, _)| b.len() <= p) {
                continue;
            }
            if !(0..m).all(|i| same_kind(&core[i], &core[i % p])) {
                continue;
            }
            let k = m / p;
            // The prologue and epilogue, spread over every repetition's computes.
            let extra: Vec<&Step> = steps[..lo].iter().chain(&steps[hi..]).collect();
            let computes_in_body = core[..p].iter().filter(|s| is_compute(s)).count();
            if !extra.is_empty() && computes_in_body == 0 {
                continue;
            }
            let mut body = Vec::with_capacity(p);
            let mut worst: f64 = 0.0;
            let mut ok = true;
            for i in 0..p {
                let mut items: Vec<Step> = (0..k).map(|r| core[r * p + i].clone()).collect();
                if is_compute(&core[i]) && !extra.is_empty() {
                    // Each repetition's computes take an equal share of the prologue and epilogue.
                    for e in &extra {
                        let Step::Compute { instructions: x, cpi: xc, mpki: xm } = e else { continue };
                        for it in items.iter_mut() {
                            if let Step::Compute { instructions, cpi, mpki } = it {
                                let add = x / (k * computes_in_body) as f64;
                                *cpi = weighted(&[(*instructions, *cpi), (add, *xc)]);
                                *mpki = weighted(&[(*instructions, *mpki), (add, *xm)]);
                                *instructions += add;
                            }
                        }
                    }
                }
                let refs: Vec<&Step> = items.iter().collect();
                match mean_step(&refs, tol) {
                    Some((s, mut w)) => {
                        if let (Step::Compute { instructions: mean, .. }, false) = (&s, extra.is_empty()) {
                            // The change that counts is from what each repetition did, before
                            // the prologue and epilogue were spread over them.
                            for r in 0..k {
                                let Step::Compute { instructions: was, .. } = core[r * p + i] else { continue };
                                if (mean - was).abs() > ABS_FLOOR_INSTRUCTIONS {
                                    w = w.max((mean - was).abs() / mean);
                                }
                            }
                        }
                        body.push(s);
                        worst = worst.max(w);
                    }
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok && k <= u32::MAX as usize {
                best = Some((body, k as u32, worst));
            }
        }
    }
    best
}

/// One compression pass at tolerance `tol`: critical runs merged, then a repeated body found;
/// with `split`, failing that, the loop that saves the most phases split out (`Split`).
fn compress_list(steps: &[Step], tol: f64, split: bool) -> (List, f64) {
    let (merged, w1) = merge_critical_runs(steps, tol);
    let merged = merge_lossless(merged);
    if let Some((body, repeat, w2)) = find_repeat(&merged, tol) {
        return (List { steps: body, repeat, split: None }, w1.max(w2));
    }
    if !split {
        return (List::plain(merged), w1);
    }
    // The stretches between spawns and joins, each tried as a loop.
    let spawn_or_join = |s: &Step| matches!(s, Step::Spawn { .. } | Step::Join { .. });
    let mut best: Option<(usize, usize, Vec<Step>, u32, f64)> = None;
    let mut lo = 0;
    while lo < merged.len() {
        if spawn_or_join(&merged[lo]) {
            lo += 1;
            continue;
        }
        let hi = (lo..merged.len()).find(|&i| spawn_or_join(&merged[i])).unwrap_or(merged.len());
        if let Some((body, repeat, w)) = find_repeat(&merged[lo..hi], tol) {
            let saved = (hi - lo) as i64 - 2 - body.len() as i64;
            if saved > 0 && best.as_ref().is_none_or(|b| saved > (b.1 - b.0) as i64 - 2 - b.2.len() as i64) {
                best = Some((lo, hi, body, repeat, w));
            }
        }
        lo = hi;
    }
    match best {
        Some((lo, hi, body, repeat, w2)) => {
            let steps = merged[..lo].iter().chain(&merged[hi..]).cloned().collect();
            (List { steps, repeat: 1, split: Some(Split { at: lo, body, repeat }) }, w1.max(w2))
        }
        None => (List::plain(merged), w1),
    }
}

/// The lists without the hand-offs `drop` names: their waits gone, their posts' counts lowered
/// (a post left with none gone), the computes around them merged. The last resort of the size
/// bound, after every compression: a dropped hand-off no longer holds its waiter back in a
/// replay. Posts and waits still balance on every semaphore.
pub fn drop_hand_offs(lists: &[Vec<Step>], drop: &std::collections::BTreeSet<usize>) -> Vec<Vec<Step>> {
    lists
        .iter()
        .map(|steps| {
            let kept = steps.iter().filter_map(|s| match s {
                Step::SemWait { id, .. } if drop.contains(id) => None,
                Step::SemPost { sem, ids, .. } => {
                    let ids: Vec<usize> = ids.iter().copied().filter(|i| !drop.contains(i)).collect();
                    (!ids.is_empty()).then_some(Step::SemPost { sem: *sem, count: ids.len() as u32, ids })
                }
                other => Some(other.clone()),
            });
            merge_lossless(kept.collect())
        })
        .collect()
}

/// Sleeps merged: each run of phases between two synchronisation points (a critical phase, a
/// spawn, join, post, wait or barrier) keeps one compute and one sleep, the sum of its computes
/// and of its sleeps (in that order: the work, then the wait). Returns how many sleeps moved.
fn coarsen_sleeps(steps: &[Step]) -> (Vec<Step>, usize) {
    let mut out = Vec::new();
    let mut moved = 0;
    let mut i = 0;
    while i < steps.len() {
        if !matches!(steps[i], Step::Compute { .. } | Step::Sleep { .. }) {
            out.push(steps[i].clone());
            i += 1;
            continue;
        }
        let mut j = i;
        let mut computes = Vec::new();
        let mut sleep = 0u64;
        let mut sleeps = 0;
        while j < steps.len() {
            match steps[j] {
                Step::Compute { .. } => computes.push(steps[j].clone()),
                Step::Sleep { ns } => {
                    sleep += ns;
                    sleeps += 1;
                }
                _ => break,
            }
            j += 1;
        }
        out.extend(merge_lossless(computes));
        if sleeps > 0 {
            out.push(Step::Sleep { ns: sleep });
            moved += sleeps - 1;
        }
        i = j;
    }
    (out, moved)
}

fn totals(list: &List) -> (f64, f64) {
    let (mut instr, mut sleep) = step_totals(&list.steps);
    if let Some(sp) = &list.split {
        let (i, s) = step_totals(&sp.body);
        instr += i * sp.repeat as f64;
        sleep += s * sp.repeat as f64;
    }
    (instr * list.repeat as f64, sleep * list.repeat as f64)
}

fn step_totals(steps: &[Step]) -> (f64, f64) {
    let mut instr = 0.0;
    let mut sleep = 0.0;
    for s in steps {
        match s {
            Step::Compute { instructions, .. } => instr += instructions.round().max(1.0),
            Step::Critical { cs, between, count, .. } => instr += *count as f64 * (cs.round().max(1.0) + between.round()),
            Step::Sleep { ns } => sleep += *ns as f64,
            _ => {}
        }
    }
    (instr, sleep)
}

fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else if a.abs() > 0.0 {
        (a - b).abs() / a.abs()
    } else {
        1.0
    }
}

/// Compress every thread's list (already losslessly merged) so that the phases over all threads
/// are at most `max_phases` if that can be done; the lists and what it cost. Err with the phase
/// count reached when even the coarsest pass leaves more.
pub fn compress(lists: &[Vec<Step>], max_phases: usize) -> Result<(Vec<List>, Error), usize> {
    let before: Vec<List> = lists.iter().map(|s| List::plain(s.clone())).collect();
    let phases_before: usize = lists.iter().map(Vec::len).sum();
    // The passes, from the least lossy: each tolerance; then each with loops split out of the
    // threads that spawn or join; the first within the bound is kept.
    let tols: Vec<f64> = std::iter::once(BASE_TOLERANCE).chain(COARSER_TOLERANCES).collect();
    let passes: Vec<(f64, bool)> = tols.iter().map(|&t| (t, false)).chain(tols.iter().map(|&t| (t, true))).collect();
    let mut result = None;
    for (k, &(tol, split)) in passes.iter().enumerate() {
        let mut value: f64 = 0.0;
        let out: Vec<List> = lists
            .iter()
            .map(|s| {
                let (l, w) = compress_list(s, tol, split);
                value = value.max(w);
                l
            })
            .collect();
        let phases: usize = out.iter().map(List::phases).sum();
        let reported_tol = if value == 0.0 { 0.0 } else { tol };
        result = Some((out, value, reported_tol, 0));
        if phases <= max_phases || k + 1 == passes.len() {
            break;
        }
    }
    let (mut out, mut value, mut tol, mut moved) = result.expect("at least one pass");
    if out.iter().map(List::phases).sum::<usize>() > max_phases {
        // Sleeps merged between synchronisation points, then compressed again at any tolerance.
        let mut coarse = Vec::new();
        for s in lists {
            let (c, m) = coarsen_sleeps(s);
            moved += m;
            let (l, w) = compress_list(&c, f64::INFINITY, true);
            value = value.max(w);
            coarse.push(l);
        }
        out = coarse;
        tol = f64::INFINITY;
    }
    let phases_after: usize = out.iter().map(List::phases).sum();
    if phases_after > max_phases {
        return Err(phases_after);
    }
    let loops_split = out.iter().filter(|l| l.split.is_some()).count();
    let mut error = Error { tolerance: tol, value, sleeps_moved: moved, loops_split, phases_before, phases_after, ..Error::default() };
    for (b, a) in before.iter().zip(&out) {
        let (bi, bs) = totals(b);
        let (ai, as_) = totals(a);
        error.compute = error.compute.max(rel(bi, ai));
        error.wait = error.wait.max(rel(bs, as_));
    }
    Ok((out, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(n: f64) -> Step {
        Step::Compute { instructions: n, cpi: 1.0, mpki: 0.0 }
    }

    #[test]
    fn lossless_merges_keep_totals() {
        let s = merge_lossless(vec![c(10.0), c(20.0), Step::Sleep { ns: 5 }, Step::Sleep { ns: 7 }, c(3.0)]);
        assert_eq!(s, vec![c(30.0), Step::Sleep { ns: 12 }, c(3.0)]);
    }

    #[test]
    fn a_loop_with_prologue_and_epilogue_is_one_body_repeated() {
        let mut steps = vec![c(5_000.0)];
        for i in 0..100 {
            steps.push(Step::Barrier { barrier: 0, parties: 3 });
            steps.push(c(1e6 + (i % 2) as f64 * 1e4));
        }
        let (l, w) = compress_list(&steps, BASE_TOLERANCE, false);
        assert_eq!(l.repeat, 100);
        assert_eq!(l.steps.len(), 2);
        // Mean 1.005e6 plus the prologue's 50 per repetition; the largest change: 5,050 / 1,005,050.
        assert!(matches!(l.steps[1], Step::Compute { instructions, .. } if (instructions - 1_005_050.0).abs() < 1e-6));
        assert!((w - 5_050.0 / 1_005_050.0).abs() < 1e-9, "{w}");
    }

    #[test]
    fn unlike_values_do_not_merge_at_the_base_tolerance() {
        let steps = vec![Step::Barrier { barrier: 0, parties: 2 }, c(1e6), Step::Barrier { barrier: 0, parties: 2 }, c(2e6)];
        let (l, _) = compress_list(&steps, BASE_TOLERANCE, false);
        assert_eq!(l.repeat, 1);
        let (l, w) = compress_list(&steps, 0.5, false);
        assert_eq!(l.repeat, 2);
        assert!((w - 1.0 / 3.0).abs() < 1e-12, "{w}");
    }
}
