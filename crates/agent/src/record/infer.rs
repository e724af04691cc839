//! What a recording's samples say between its events: where a thread was in its own work at a
//! wall-clock instant, how much work (instructions) a stretch of its CPU time did, the off-CPU
//! stretches no logged event explains, and which of those are barriers (those the preload
//! library cannot see: OpenMP's libgomp, futex-only programs; pthread barriers are logged).
//!
//! Everything here is an estimate from sampled, cumulative counts: between two samples a value
//! is interpolated linearly (the one assumption a sample interval allows: the thread ran evenly
//! through it). The converter says so in the file it writes.

use super::recording::{RecordedThread, Recording, SyncEvent};

/// Below this CPU time (ns) an interval counts as one the thread spent wholly off the CPU, so
/// an off-CPU stretch in it continues into its neighbours: 1 µs, well under any block worth a
/// phase and above the rounding of the clocks (schedstat is in ns, the samples' instants too).
const OFF_WHOLE_INTERVAL_CPU_NS: u64 = 1_000;

/// How far back a surplus of run-queue wait may pay for off-CPU time, ns: 100 ms. schedstat adds a
/// run-queue wait to `run_delay` when it ends, as the thread gets the CPU (Linux
/// kernel/sched/stats.h, `sched_info_arrive`), so a wait that spans a sample shows as off-CPU
/// time in the interval it began in and as more run-queue wait than off-CPU time in the one it
/// ended in; a logged wait's end, stamped once the woken thread runs again, counts its wake-up
/// delay twice in the same way. A waiting CFS thread gets the CPU within a few scheduling
/// periods (6 ms × (1 + log2 CPUs) stretched by the runnable threads, Linux kernel/sched/fair.c,
/// `sysctl_sched_latency`): 100 ms covers a loaded machine's; a deficit further from any
/// surplus is a double count and is dropped. Recorded on this project's loaded 2-CPU machine,
/// pigz's busiest thread showed 0.46 s of off-CPU surpluses that such deficits all but cancel
/// (0.009 s net).
pub const RUNQ_LAG_NS: u64 = 100_000_000;

/// One thread's work as a function of its own CPU clock: the knots (cumulative CPU time, its
/// split per core type, instructions and LLC misses where counted), the first at 0 (a thread
/// starts with nothing), then one per sample.
pub struct WorkCurve {
    knots: Vec<Knot>,
    /// Per core type, the work a CPU-second there does relative to the fastest type.
    work_per_cpu_s: Vec<f64>,
    /// The fastest type's instructions per ns at CPI 1 (`freq_ghz / cpi_scale`).
    fast_rate: f64,
    /// Instructions and misses were counted at every sample of this thread.
    pub counted: bool,
    /// The thread's samples gave no split per core type: its CPU time is taken as the fastest
    /// type's (said in the file's notes).
    pub no_split: bool,
}

#[derive(Clone)]
struct Knot {
    cpu: f64,
    per_type: Vec<f64>,
    instructions: f64,
    misses: f64,
}

/// The work of a stretch of a thread's CPU time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Work {
    /// Instructions: measured (counters) or the fastest type's rate at CPI 1 times the CPU time
    /// as fastest-type time (`fast_ns`).
    pub instructions: f64,
    /// The stretch's CPU time as the fastest type's: each type's CPU time times its
    /// `work_per_cpu_s`. What the replay on the recorded machine's fastest type takes.
    pub fast_ns: f64,
    /// LLC misses (counters only, else 0).
    pub misses: f64,
}

impl WorkCurve {
    pub fn new(t: &RecordedThread, work_per_cpu_s: &[f64], fast_rate: f64, counters: bool) -> WorkCurve {
        let types = work_per_cpu_s.len();
        let counted = counters && !t.samples.is_empty() && t.samples.iter().all(|s| s.instructions.is_some());
        let mut knots = vec![Knot { cpu: 0.0, per_type: vec![0.0; types], instructions: 0.0, misses: 0.0 }];
        let mut no_split = true;
        for s in &t.samples {
            let last = knots.last().expect("the first knot");
            // Cumulative values never go back: a sample that reads less than the one before
            // (a thread's counters re-read after a tid was reused) is held at the level before.
            let cpu = (s.cpu_ns as f64).max(last.cpu);
            let mut per_type: Vec<f64> = (0..types).map(|i| s.cpu_ns_per_type.get(i).copied().unwrap_or(0) as f64).collect();
            for (v, prev) in per_type.iter_mut().zip(&last.per_type) {
                *v = v.max(*prev);
            }
            if per_type.iter().sum::<f64>() > 0.0 {
                no_split = false;
            }
            let instructions = s.instructions.map_or(last.instructions, |i| (i as f64).max(last.instructions));
            let misses = s.llc_misses.map_or(last.misses, |m| (m as f64).max(last.misses));
            knots.push(Knot { cpu, per_type, instructions, misses });
        }
        // A thread only the library saw (no samples) has no split either: its CPU time is its
        // events' alone.
        let no_split = no_split && (t.samples.is_empty() || t.samples.iter().any(|s| s.cpu_ns > 0));
        WorkCurve { knots, work_per_cpu_s: work_per_cpu_s.to_vec(), fast_rate, counted, no_split }
    }

    /// The work between CPU places `from` and `to` (ns of the thread's CPU clock, `from <= to`).
    pub fn work(&self, from: u64, to: u64) -> Work {
        let (from, to) = (from as f64, to.max(from) as f64);
        let mut fast_ns = 0.0;
        let mut instructions = 0.0;
        let mut misses = 0.0;
        // Each knot segment's share of [from, to]; past the last knot, the thread's whole split
        // (events may come after the last sample: its last stretch of work, up to its exit).
        let n = self.knots.len();
        for j in 0..n {
            let a = &self.knots[j];
            let (lo, hi, b) = if j + 1 < n {
                let b = &self.knots[j + 1];
                (a.cpu, b.cpu, Some(b))
            } else {
                (a.cpu, f64::INFINITY, None)
            };
            let (x0, x1) = (from.max(lo), to.min(hi));
            if x1 <= x0 {
                continue;
            }
            let len = x1 - x0;
            // The segment's rates per CPU ns: its own deltas, or the cumulative ones where it has
            // none (a segment past the last sample, or one whose split did not move).
            let whole = &self.knots[n - 1];
            let (d_cpu, d_types, d_instr, d_miss) = match b {
                Some(b) if b.cpu > a.cpu => (
                    b.cpu - a.cpu,
                    b.per_type.iter().zip(&a.per_type).map(|(x, y)| x - y).collect::<Vec<_>>(),
                    b.instructions - a.instructions,
                    b.misses - a.misses,
                ),
                _ => (whole.cpu, whole.per_type.clone(), whole.instructions, whole.misses),
            };
            let split: f64 = d_types.iter().sum();
            let speed = if split > 0.0 {
                d_types.iter().zip(&self.work_per_cpu_s).map(|(c, w)| c * w).sum::<f64>() / split
            } else {
                // No split known: the fastest type's speed (`no_split`).
                1.0
            };
            fast_ns += len * speed;
            if self.counted && d_cpu > 0.0 {
                instructions += len * d_instr / d_cpu;
                misses += len * d_miss / d_cpu;
            }
        }
        if !self.counted {
            instructions = fast_ns * self.fast_rate;
        }
        Work { instructions, fast_ns, misses }
    }

    /// The CPU clock at the last sample.
    pub fn last_cpu(&self) -> u64 {
        self.knots.last().map_or(0, |k| k.cpu as u64)
    }
}

/// A thread's CPU clock at wall-clock instant `t` (ns from the recording's start), interpolated
/// between its samples; its start (`start_ns`, CPU 0) before the first, the last sample's after.
pub fn cpu_at(t: &RecordedThread, start_ns: u64, at: u64) -> u64 {
    let mut prev = (start_ns, 0u64);
    for s in &t.samples {
        if at <= s.t_ns {
            if s.t_ns <= prev.0 {
                return s.cpu_ns.max(prev.1);
            }
            let f = (at.saturating_sub(prev.0)) as f64 / (s.t_ns - prev.0) as f64;
            return prev.1 + ((s.cpu_ns.saturating_sub(prev.1)) as f64 * f).round() as u64;
        }
        prev = (s.t_ns, s.cpu_ns.max(prev.1));
    }
    prev.1
}

/// An off-CPU stretch no event explains: its place in the thread's work and its estimated wall
/// span.
#[derive(Debug, Clone, PartialEq)]
pub struct Stretch {
    pub thread: usize,
    /// The thread's CPU clock where it blocked (ns).
    pub place: u64,
    /// Off-CPU time, ns (wall time minus CPU time, run-queue wait and logged waits).
    pub ns: u64,
    /// Its estimated wall span.
    pub start_ns: u64,
    pub end_ns: u64,
}

/// The logged waits of thread `tid` (mutex, condition variable, join, pthread barrier), as wall
/// spans: the off-CPU time they explain is not counted again as a stretch (so not inferred as a
/// barrier or a sleep as well).
pub fn logged_waits(events: &[SyncEvent], tid: u32) -> Vec<(u64, u64)> {
    let mut spans: Vec<(u64, u64)> = events
        .iter()
        .filter_map(|e| match *e {
            SyncEvent::MutexWait { tid: w, start_ns, end_ns, .. }
            | SyncEvent::CondWait { tid: w, start_ns, end_ns, .. }
            | SyncEvent::Join { tid: w, start_ns, end_ns, .. }
            | SyncEvent::BarrierWait { tid: w, start_ns, end_ns, .. }
                if w == tid =>
            {
                Some((start_ns, end_ns.max(start_ns)))
            }
            _ => None,
        })
        .collect();
    spans.sort_unstable();
    spans
}

fn overlap(spans: &[(u64, u64)], a: u64, b: u64) -> u64 {
    spans.iter().map(|&(s, e)| e.min(b).saturating_sub(s.max(a))).sum()
}

/// The unexplained off-CPU stretches of thread `i` (started at wall `start_ns`) at least
/// `min_block_ns` long. Between two samples the thread was off the CPU for its wall delta less
/// its CPU delta, its run-queue wait delta and the time its logged waits cover, once the waits
/// accounted late have paid back the off-CPU time they explain (`RUNQ_LAG_NS`). Consecutive
/// intervals' stretches are one when either interval was wholly off the CPU (the block went on
/// through it); two partly busy intervals give two stretches, since the samples cannot tell
/// one block across their boundary from two.
///
/// Placement: a stretch within one interval is placed at the middle of that interval's work
/// (the interval's CPU clock at its start plus half its CPU delta) and its wall span centred on
/// the interval: the samples do not say where in the interval the thread blocked, and the
/// middle halves the worst error of either end. A stretch over several intervals began at the
/// end of the first (it went on past it) and ended at the start of the last.
pub fn stretches(rec: &Recording, i: usize, start_ns: u64, min_block_ns: u64) -> (Vec<Stretch>, u64) {
    let t = &rec.threads[i];
    let waits = logged_waits(&rec.events, t.tid);
    // (t, cpu, runq) from the thread's start.
    let mut points = vec![(start_ns.min(t.samples.first().map_or(start_ns, |s| s.t_ns)), 0u64, 0u64)];
    points.extend(t.samples.iter().map(|s| (s.t_ns, s.cpu_ns, s.runq_ns)));
    struct Piece {
        k: usize,
        off: u64,
        cpu_delta: u64,
    }
    // Each interval's residual: wall time less CPU time, run-queue wait and logged waits. A
    // deficit (more wait than off-CPU time) pays back the surpluses of the intervals just before
    // it, within `RUNQ_LAG_NS` (see there); what no deficit pays back is off-CPU time.
    let mut surplus: Vec<(usize, u64)> = Vec::new();
    for k in 1..points.len() {
        let (t0, c0, r0) = points[k - 1];
        let (t1, c1, r1) = points[k];
        let explained = c1.saturating_sub(c0) + r1.saturating_sub(r0) + overlap(&waits, t0, t1);
        let wall = t1.saturating_sub(t0);
        if wall >= explained {
            surplus.push((k, wall - explained));
            continue;
        }
        let mut deficit = explained - wall;
        for (j, left) in surplus.iter_mut().rev() {
            if deficit == 0 || points[*j].0 + RUNQ_LAG_NS < t0 {
                break;
            }
            let paid = deficit.min(*left);
            *left -= paid;
            deficit -= paid;
        }
    }
    let mut pieces: Vec<Piece> = Vec::new();
    let mut below = 0u64;
    for (k, off) in surplus {
        if off >= min_block_ns {
            pieces.push(Piece { k, off, cpu_delta: points[k].1.saturating_sub(points[k - 1].1) });
        } else {
            below += off;
        }
    }
    let mut out = Vec::new();
    let mut j = 0;
    while j < pieces.len() {
        let mut last = j;
        while last + 1 < pieces.len()
            && pieces[last + 1].k == pieces[last].k + 1
            && (pieces[last].cpu_delta < OFF_WHOLE_INTERVAL_CPU_NS || pieces[last + 1].cpu_delta < OFF_WHOLE_INTERVAL_CPU_NS)
        {
            last += 1;
        }
        let (a, b) = (&pieces[j], &pieces[last]);
        let ns: u64 = pieces[j..=last].iter().map(|p| p.off).sum();
        let stretch = if j == last {
            let (t0, c0, _) = points[a.k - 1];
            let (t1, _, _) = points[a.k];
            let mid = t0 + (t1 - t0) / 2;
            Stretch { thread: i, place: c0 + a.cpu_delta / 2, ns, start_ns: mid.saturating_sub(a.off / 2), end_ns: mid + a.off.div_ceil(2) }
        } else {
            let (ta, ca, _) = points[a.k];
            let (tb, _, _) = points[b.k - 1];
            Stretch { thread: i, place: ca, ns, start_ns: ta.saturating_sub(a.off), end_ns: tb + b.off }
        };
        out.push(stretch);
        j = last + 1;
    }
    (out, below)
}

/// A barrier instance: the stretches (indices into the list given) of distinct threads that
/// ended within the window of the first to end and all began before it ended.
pub type Instance = Vec<usize>;

/// Group stretches into barrier instances. Sorted by end, each instance starts at the earliest
/// unassigned end and takes, from each other thread, the first unassigned stretch ending within
/// `window_ns` of it that began before it ended (so all overlap that instant: they were all
/// waiting at once, and were released within the window). Instances of one thread are not
/// instances: a lone thread's block is a sleep.
pub fn barrier_instances(all: &[Stretch], window_ns: u64) -> Vec<Instance> {
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&s| (all[s].end_ns, all[s].thread, all[s].start_ns));
    let mut used = vec![false; all.len()];
    let mut out = Vec::new();
    for (pos, &first) in order.iter().enumerate() {
        if used[first] {
            continue;
        }
        let first_end = all[first].end_ns;
        let mut members = vec![first];
        for &s in &order[pos + 1..] {
            if all[s].end_ns > first_end.saturating_add(window_ns) {
                break;
            }
            if used[s] || members.iter().any(|&m| all[m].thread == all[s].thread) || all[s].start_ns > first_end {
                continue;
            }
            members.push(s);
        }
        if members.len() >= 2 {
            for &m in &members {
                used[m] = true;
            }
            members.sort_by_key(|&m| all[m].thread);
            out.push(members);
        }
    }
    out
}
