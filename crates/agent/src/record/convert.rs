//! A raw recording (`recording::Recording`) as a workload file the simulator replays: one app,
//! one group per recorded thread, each thread's work and synchronisation as its phase list.
//! Pure and deterministic: the same recording and options give the same bytes (no clock, no
//! randomness, every collection iterated in a fixed order).
//!
//! How a thread becomes phases (docs/record.md says the same for users):
//!
//! - Its timeline is its own CPU clock: each event it takes part in has a place there (the
//!   preload library stamps CLOCK_THREAD_CPUTIME_ID), and so has each off-CPU stretch the samples
//!   show that no event explains (`infer::stretches`). Between two places, a compute phase of the
//!   work the thread did over that CPU time (`infer::WorkCurve`): measured instructions, with a
//!   CPI and LLC misses per kilo-instruction that give back the CPU time under the simulator's
//!   performance model, where counters exist; otherwise the CPU time as the fastest core type's
//!   time (each type's CPU time times its `work_per_cpu_s`) at that type's rate at CPI 1. Either
//!   way a replay on the recorded machine's fastest type takes the recorded CPU time.
//! - Creation: a `spawn` phase in the creator's list at its CPU clock when it called
//!   pthread_create; the created thread's group has `start = "spawned"`. A thread without a
//!   Create event (a forked process) is spawned by its recorded parent, else by the first
//!   thread, at their place when it was first seen, or before the creator's off-CPU stretch that
//!   covers the sighting (a creator creates on the CPU): an inference, counted.
//! - A contended mutex: the waiter's `critical` phase on the lock, its section up to its own
//!   release if logged (else the least the format takes, one instruction); the holder's
//!   section from its place when the wait began (interpolated from its samples: an inference
//!   and a lower bound, since it took the lock earlier) to its logged release, or to its place
//!   when the wait ended. Sections of one thread may not overlap (the format has no nesting): a
//!   measured section wins over an inferred one, an earlier over a later; the others are
//!   dropped and counted; a section ends at a condition wait inside it (which releases the
//!   mutex); other phases that fall inside a section move to its end (a condition variable
//!   signalled under the mutex wakes its waiter only once the mutex is released).
//! - A condition wait ended by a signal (the latest on that variable from another thread within
//!   the wait): `sem_post` in the signaller's list, `sem_wait` in the waiter's, one semaphore per
//!   condition variable and waiting thread (why: where they are numbered), posts only for
//!   matched wake-ups (so posts and waits balance). A
//!   timed-out or unmatched wait is a `sleep` of its duration. A join is a `join` of the
//!   target's group.
//! - A pthread barrier (measured: the library logs every pthread_barrier_wait): each call a
//!   `barrier` phase at the caller's place, one named barrier per barrier address and number of
//!   parties, the parties counted per meeting (`barrier_meetings`).
//! - Off-CPU stretches no event explains (barriers the library cannot see, OpenMP's libgomp,
//!   futex-only programs, are among them): barriers where several threads' stretches were all
//!   waiting at one instant and ended within `barrier_window_ns` of each other, and the same set
//!   of threads met so repeatedly (`infer::barrier_instances`); every other is a `sleep` of its
//!   duration (I/O, timers, waits the library cannot see).
//! - Then `compress` merges what it can within its stated error.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ampsched_model::{InputError, Machine};
use serde::Serialize;

use super::compress::{self, merge_lossless, Step};
use super::infer::{self, Stretch, Work, WorkCurve};
use super::recording::{Recording, SyncEvent, RECORDING_VERSION};

/// What the file's errors name as their source.
const SOURCE: &str = "recording";

/// The size bound when none is given: phases over all threads. 10,000 phases make a file of
/// about 0.5 MB, which the reader takes in milliseconds; a long run's loops compress far below.
pub const DEFAULT_MAX_PHASES: usize = 10_000;

/// The shortest unexplained off-CPU stretch that becomes a phase, ns, when none is given: 1 ms.
/// Below it the samples' own noise dominates: the agent reads each thread's schedstat at a
/// slightly different instant of a sample round (tens of µs apart for a few hundred threads),
/// and a thread's wake-up latency is tens of µs on a standard kernel. What is below is not
/// lost silently: the summary reports its total (`Inferred::off_cpu_dropped_ns`).
pub const DEFAULT_MIN_BLOCK_NS: u64 = 1_000_000;

/// The barrier window when none is given (`barrier_window_ns` = 0): this many sample intervals.
/// A stretch's end is known to within one interval (the samples bracket it, `infer::stretches`),
/// so two threads released at one instant can have estimated ends up to one interval apart
/// each way: two intervals take them together, and no more, so that waits a whole period apart
/// (a loop's next barrier) stay apart.
pub const BARRIER_WINDOW_INTERVALS: u64 = 2;

#[derive(Debug, Clone, PartialEq)]
pub struct ConvertOptions {
    /// The file's size bound: phases over all threads.
    pub max_phases: usize,
    /// Off-CPU stretches ending within this of each other may be one barrier's; 0: two sample
    /// intervals (`BARRIER_WINDOW_INTERVALS`).
    pub barrier_window_ns: u64,
    /// The shortest unexplained off-CPU stretch that becomes a phase.
    pub min_block_ns: u64,
    /// Convert a partial recording (lost events, or `incomplete`) and say so in the file.
    pub accept_lost_events: bool,
    /// The workload's and the app's name.
    pub name: String,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            max_phases: DEFAULT_MAX_PHASES,
            barrier_window_ns: 0,
            min_block_ns: DEFAULT_MIN_BLOCK_NS,
            accept_lost_events: false,
            name: "recorded".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    pub toml: String,
    pub summary: Summary,
}

/// What the file holds and how much of it is measured, inferred, or compressed away.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    pub threads: usize,
    /// Phases over all threads (each group's list once, whatever its repeat).
    pub phases: usize,
    /// Why the recording is partial, when a partial one was accepted.
    pub partial: Option<String>,
    pub counters: bool,
    pub events_logged: bool,
    pub measured: Measured,
    pub inferred: Inferred,
    pub error: compress::Error,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Measured {
    /// CPU time over all threads, ns.
    pub cpu_ns: u64,
    pub creations: usize,
    pub joins: usize,
    pub mutex_waits: usize,
    /// Condition waits matched to a signal (sem_wait phases) and the signals that posted.
    pub cond_waits_matched: usize,
    pub cond_signals_matched: usize,
    /// Condition waits that timed out or no signal explains (sleep phases of their duration).
    pub cond_waits_as_sleeps: usize,
    /// pthread barriers (one per address and parties), their meetings (releases) and the calls
    /// of those meetings (`barrier` phases).
    pub barriers: usize,
    pub barrier_meetings: usize,
    pub barrier_waits: usize,
    /// Barrier calls in no meeting (a round the recording cut off): sleeps of their duration.
    pub barrier_waits_as_sleeps: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Inferred {
    /// Named barriers and the instances (meetings) of them.
    pub barriers: usize,
    pub barrier_instances: usize,
    /// Barrier arrivals of a thread that did not block (the last to arrive), inferred from its
    /// being the one thread running at the release.
    pub last_arrivals: usize,
    /// Holders' critical sections (from the waiter's start).
    pub holder_sections: usize,
    /// Critical sections dropped because they overlapped another of the same thread.
    pub sections_dropped: usize,
    /// Unexplained off-CPU stretches written as sleeps.
    pub sleeps: usize,
    /// Threads whose creator was not logged (spawned by their parent or the first thread).
    pub spawns: usize,
    /// Unexplained off-CPU time below `min_block_ns`, left out, ns.
    pub off_cpu_dropped_ns: u64,
}

fn err(key: &str, message: impl Into<String>) -> InputError {
    InputError::new(SOURCE, key, message)
}

/// A phase at a place in a thread's CPU time, before the work between places is known.
#[derive(Debug, Clone)]
struct Mark {
    place: u64,
    /// Wall time, to order marks at one place.
    t: u64,
    what: What,
}

#[derive(Debug, Clone)]
enum What {
    /// A step that retires nothing (spawn, join, sem, barrier, sleep).
    Point(Step),
    /// A critical section on `lock` up to CPU place `end`; `measured`: the waiter's own.
    Critical { lock: usize, end: u64, measured: bool },
}

/// The meetings of one pthread barrier: `calls`, indices of its `BarrierWait` events, grouped
/// into the releases (generations) of the barrier, and the calls in none.
///
/// Every party of a meeting called before its last arrival and returned after it, so each call's
/// span holds the release instant; the call that returned PTHREAD_BARRIER_SERIAL_THREAD (one a
/// meeting; glibc's last arrival, nptl/pthread_barrier_wait.c) holds it too. So a meeting is,
/// per serial call in time order, the earliest call not yet in a meeting of each thread whose
/// span overlaps the serial call's (a thread's call of the next meeting can overlap too, once
/// released, but its call of this one is earlier). Its parties are its calls, counted per
/// meeting and not as the threads that ever wait at the address: a barrier initialised again at
/// the same address with another count, or one used by more threads than its count (whoever
/// comes first each round), replays the count it had. A call no serial call's span meets (a
/// round the recording cut off) is in no meeting. Each meeting with its release (its serial
/// call's start).
fn barrier_meetings(events: &[SyncEvent], calls: &[usize]) -> (Vec<(u64, Vec<usize>)>, Vec<usize>) {
    let span = |j: usize| match events[j] {
        SyncEvent::BarrierWait { tid, start_ns, end_ns, serial, .. } => (start_ns, end_ns.max(start_ns), tid, serial),
        _ => unreachable!("a barrier call"),
    };
    let mut order: Vec<usize> = calls.to_vec();
    order.sort_by_key(|&j| span(j));
    let mut used = vec![false; order.len()];
    let mut meetings = Vec::new();
    // The first call that may still join a meeting: those before it are in one, or ended before
    // the latest serial call began (the serial calls come in time order: no later one meets them).
    let mut first = 0;
    for k in 0..order.len() {
        let (s0, e0, tid0, serial) = span(order[k]);
        // A serial call already taken by the meeting before (its thread's call there was not
        // logged) leads none of its own.
        if !serial || used[k] {
            continue;
        }
        while first < order.len() && (used[first] || span(order[first]).1 < s0) {
            first += 1;
        }
        used[k] = true;
        let mut meeting = vec![order[k]];
        let mut tids = vec![tid0];
        for c in first..order.len() {
            let (s, e, tid, _) = span(order[c]);
            if s > e0 {
                break;
            }
            if !used[c] && e >= s0 && !tids.contains(&tid) {
                used[c] = true;
                meeting.push(order[c]);
                tids.push(tid);
            }
        }
        meeting.sort_unstable();
        meetings.push((s0, meeting));
    }
    let alone = order.iter().zip(&used).filter(|(_, &u)| !u).map(|(&j, _)| j).collect();
    (meetings, alone)
}

/// Where a recorded thread started (wall), from its Create event or its first sighting.
fn start_of(rec: &Recording, i: usize) -> u64 {
    let t = &rec.threads[i];
    rec.events
        .iter()
        .find_map(|e| match *e {
            SyncEvent::Create { t_ns, child, .. } if child == t.tid && t_ns <= t.first_seen_ns => Some(t_ns),
            _ => None,
        })
        .unwrap_or(t.first_seen_ns)
}

/// The index of the thread `tid` names at wall time `at`: the last one of that tid first seen
/// by then (a tid is reused only after its thread exits), else the first of that tid. `by_tid`:
/// each tid's threads, in order.
fn thread_at(by_tid: &BTreeMap<u32, Vec<usize>>, starts: &[u64], tid: u32, at: u64) -> Option<usize> {
    let all = by_tid.get(&tid)?;
    all.iter().rev().find(|&&i| starts[i] <= at).or(all.first()).copied()
}

fn check(rec: &Recording, opts: &ConvertOptions) -> Result<Option<String>, InputError> {
    if rec.version != RECORDING_VERSION {
        return Err(err("version", format!("{} is not the version this ampsched reads ({RECORDING_VERSION}): record again with this version", rec.version)));
    }
    if rec.threads.is_empty() {
        return Err(err("threads", "no threads were recorded: nothing to replay"));
    }
    if rec.threads.iter().all(|t| t.samples.is_empty()) {
        return Err(err("threads", "no thread has a sample: the run ended before the agent's first sample, nothing to replay"));
    }
    if rec.work_per_cpu_s.is_empty() || rec.work_per_cpu_s.iter().any(|w| !w.is_finite() || *w <= 0.0) {
        return Err(err("work_per_cpu_s", format!("{:?}: needs one positive speed per core type", rec.work_per_cpu_s)));
    }
    if opts.max_phases == 0 {
        return Err(InputError::new("--max-phases", "", "must be at least 1"));
    }
    if opts.name.trim().is_empty() {
        return Err(InputError::new("--name", "", "must not be empty"));
    }
    let mut partial = Vec::new();
    if let Some(why) = &rec.incomplete {
        partial.push(format!("incomplete: {why}"));
    }
    if rec.events_lost > 0 {
        partial.push(format!("{} events lost", rec.events_lost));
    }
    if partial.is_empty() {
        return Ok(None);
    }
    let why = partial.join("; ");
    if !opts.accept_lost_events {
        let key = if rec.incomplete.is_some() { "incomplete" } else { "events_lost" };
        return Err(err(key, format!("a partial recording ({why}): convert it only knowingly (accept lost events), and the file will say it is partial")));
    }
    Ok(Some(why))
}

/// The work of a stretch as (instructions, CPI, MPKI): CPI chosen so that the simulator's model
/// on the fastest type gives back the stretch's time there (`perf::SimpleModel`: time =
/// instructions × (cpi × cpi_scale / freq + mpki / 1000 × memory latency)), clamped to the
/// format's range; CPI 1 and no misses without counters (the instructions are then the time at
/// CPI 1 already).
struct Profiler {
    counters: bool,
    /// The fastest type's ns per cycle of reference CPI (`cpi_scale / freq_ghz`).
    ns_per_cpi: f64,
    memory_latency_ns: f64,
}

impl Profiler {
    fn step(&self, w: Work) -> (f64, f64, f64) {
        if !self.counters || w.instructions <= 0.0 {
            return (w.instructions, 1.0, 0.0);
        }
        let mpki = (w.misses / w.instructions * 1000.0).clamp(0.0, ampsched_model::limits::LLC_MPKI.max);
        let per_instruction = w.fast_ns / w.instructions - mpki / 1000.0 * self.memory_latency_ns;
        let cpi = (per_instruction / self.ns_per_cpi).clamp(ampsched_model::limits::CPI.min, ampsched_model::limits::CPI.max);
        (w.instructions, cpi, mpki)
    }
}

/// Convert a recording to a workload file (see the module comment).
pub fn convert(rec: &Recording, opts: &ConvertOptions) -> Result<Converted, InputError> {
    let partial = check(rec, opts)?;
    let machine = Machine::from_toml("recording: machine_toml", &rec.machine_toml)?;
    if machine.core_types.len() != rec.work_per_cpu_s.len() {
        return Err(err(
            "work_per_cpu_s",
            format!("gives {} speeds but the recorded machine has {} core types", rec.work_per_cpu_s.len(), machine.core_types.len()),
        ));
    }
    let fast = &machine.core_types[machine.true_fastest_type()];
    let fast_rate = fast.freq_ghz / fast.cpi_scale;
    let n = rec.threads.len();
    let starts: Vec<u64> = (0..n).map(|i| start_of(rec, i)).collect();
    let curves: Vec<WorkCurve> = rec.threads.iter().map(|t| WorkCurve::new(t, &rec.work_per_cpu_s, fast_rate, rec.counters)).collect();
    let counters = rec.counters && curves.iter().all(|c| c.counted);
    let profiler = Profiler { counters, ns_per_cpi: fast.cpi_scale / fast.freq_ghz, memory_latency_ns: machine.memory_latency_ns };
    let mut summary = Summary { threads: n, partial: partial.clone(), counters, events_logged: rec.events_logged, ..Summary::default() };
    let mut marks: Vec<Vec<Mark>> = vec![Vec::new(); n];
    // The end of each thread's work: its last sample, its exit, its last event.
    let mut ends: Vec<u64> = curves.iter().map(WorkCurve::last_cpu).collect();
    let mut by_tid: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, t) in rec.threads.iter().enumerate() {
        by_tid.entry(t.tid).or_default().push(i);
    }
    let at = |tid: u32, t: u64| thread_at(&by_tid, &starts, tid, t);
    // The events each lookup below needs, indexed once (a long recording has millions): per
    // lock and thread its releases (time, CPU place) and its waits' starts; per condition
    // variable its signals (time, event, signaller); each in time order.
    let mut releases: BTreeMap<(u64, u32), Vec<(u64, u64)>> = BTreeMap::new();
    let mut lock_waits: BTreeMap<(u64, u32), Vec<u64>> = BTreeMap::new();
    let mut signals: BTreeMap<u64, Vec<(u64, usize, u32)>> = BTreeMap::new();
    for (j, e) in rec.events.iter().enumerate() {
        match *e {
            SyncEvent::MutexRelease { lock, tid, t_ns, cpu_ns } => releases.entry((lock, tid)).or_default().push((t_ns, cpu_ns)),
            SyncEvent::MutexWait { lock, tid, start_ns, .. } => lock_waits.entry((lock, tid)).or_default().push(start_ns),
            SyncEvent::CondSignal { cond, tid, t_ns, .. } => signals.entry(cond).or_default().push((t_ns, j, tid)),
            _ => {}
        }
    }
    releases.values_mut().for_each(|v| v.sort_unstable());
    lock_waits.values_mut().for_each(|v| v.sort_unstable());
    signals.values_mut().for_each(|v| v.sort_unstable());
    let no_releases = Vec::new();
    let place_at = |i: usize, t: u64| infer::cpu_at(&rec.threads[i], starts[i], t);

    // Locks, semaphores (condition variables) and barriers are numbered in the order they first
    // appear, which the events' order fixes.
    let mut locks: BTreeMap<u64, usize> = BTreeMap::new();
    let mut lock_order: Vec<u64> = Vec::new();
    let mut lock_index = |addr: u64| -> usize {
        *locks.entry(addr).or_insert_with(|| {
            lock_order.push(addr);
            lock_order.len() - 1
        })
    };

    // Unexplained off-CPU stretches, which the creations inferred below must not fall inside.
    let mut all: Vec<Stretch> = Vec::new();
    for i in 0..n {
        let (s, dropped) = infer::stretches(rec, i, starts[i], opts.min_block_ns);
        summary.inferred.off_cpu_dropped_ns += dropped;
        all.extend(s);
    }

    // Creation.
    let mut spawned_by: Vec<Option<usize>> = vec![None; n];
    for e in &rec.events {
        let SyncEvent::Create { t_ns, parent, parent_cpu_ns, child } = *e else { continue };
        let (Some(c), Some(p)) = (at(child, t_ns.max(1)), at(parent, t_ns)) else { continue };
        // Only a thread created before the child (the threads are in creation order) spawns it,
        // so the spawns form a tree rooted at the first thread.
        if c == 0 || p >= c || spawned_by[c].is_some() {
            continue;
        }
        spawned_by[c] = Some(p);
        summary.measured.creations += 1;
        marks[p].push(Mark { place: parent_cpu_ns, t: t_ns, what: What::Point(Step::Spawn { group: c }) });
    }
    for c in 1..n {
        if spawned_by[c].is_some() {
            continue;
        }
        let seen = rec.threads[c].first_seen_ns;
        let p = rec.threads[c].parent.and_then(|tid| at(tid, seen)).filter(|&p| p < c).unwrap_or(0);
        spawned_by[c] = Some(p);
        summary.inferred.spawns += 1;
        // A thread is created by its creator on the CPU: if the creator was off the CPU when the
        // child was first seen (a shell waiting for the command it forked), the creation came
        // before that stretch began, not inside it.
        let (place, t) = match all.iter().find(|st| st.thread == p && st.start_ns <= seen && seen <= st.end_ns) {
            Some(st) => (st.place.min(place_at(p, seen)), st.start_ns.saturating_sub(1)),
            None => (place_at(p, seen), seen),
        };
        marks[p].push(Mark { place, t, what: What::Point(Step::Spawn { group: c }) });
    }

    // Exits and joins.
    for e in &rec.events {
        match *e {
            SyncEvent::Exit { t_ns, tid, cpu_ns } => {
                if let Some(i) = at(tid, t_ns) {
                    ends[i] = ends[i].max(cpu_ns);
                }
            }
            SyncEvent::Join { tid, target, start_ns, end_ns, cpu_ns } => {
                let Some(w) = at(tid, start_ns) else { continue };
                summary.measured.joins += 1;
                let step = match at(target, start_ns) {
                    Some(g) if g != w => Step::Join { group: g },
                    _ => Step::Sleep { ns: end_ns.saturating_sub(start_ns).max(1) },
                };
                marks[w].push(Mark { place: cpu_ns, t: start_ns, what: What::Point(step) });
            }
            _ => {}
        }
    }

    // Contended mutexes: the waiter's section, and the holder's inferred one.
    let mut holder_sections = 0;
    for e in &rec.events {
        let SyncEvent::MutexWait { lock, tid, holder, start_ns, end_ns, cpu_ns } = *e else { continue };
        let Some(w) = at(tid, start_ns) else { continue };
        summary.measured.mutex_waits += 1;
        let l = lock_index(lock);
        // The waiter's own release of the lock after it got it, before its next wait on it.
        let next_wait = lock_waits.get(&(lock, tid)).and_then(|v| v.get(v.partition_point(|&s| s <= start_ns)).copied()).unwrap_or(u64::MAX);
        let own = releases.get(&(lock, tid)).unwrap_or(&no_releases);
        let release = own.get(own.partition_point(|&(t, _)| t < end_ns)).filter(|&&(t, _)| t < next_wait).map(|&(_, c)| c);
        let end = release.unwrap_or(cpu_ns).max(cpu_ns);
        marks[w].push(Mark { place: cpu_ns, t: start_ns, what: What::Critical { lock: l, end, measured: true } });
        if holder == 0 || holder == tid {
            continue;
        }
        let Some(h) = at(holder, start_ns) else { continue };
        let from = place_at(h, start_ns);
        let theirs = releases.get(&(lock, holder)).unwrap_or(&no_releases);
        let to =
            theirs.get(theirs.partition_point(|&(t, _)| t < start_ns)).filter(|&&(t, _)| t <= end_ns).map(|&(_, c)| c).unwrap_or_else(|| place_at(h, end_ns));
        if to >= from {
            holder_sections += 1;
            marks[h].push(Mark { place: from, t: start_ns, what: What::Critical { lock: l, end: to, measured: false } });
        }
    }

    // Condition variables: each wait ended by a signal from another thread is a semaphore's, one
    // per condition variable and waiting thread. One per condition variable alone (every waiter
    // on one semaphore) would let a wake-up meant for one thread go to another that waits on the
    // same variable for something else (a FIFO semaphore serves whoever waits first): pigz's
    // yarn locks have threads waiting on one condition variable for different values, and its
    // replay deadlocked so. Per waiter, a thread's wake-ups are exactly those it was sent.
    let mut sems: BTreeMap<(u64, usize), usize> = BTreeMap::new();
    let mut posts: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new(); // (signal event, sem) -> hand-offs
                                                                           // Per hand-off (matched wait): how long it waited in the recording, ns.
    let mut hand_offs: Vec<u64> = Vec::new();
    for e in &rec.events {
        let SyncEvent::CondWait { cond, tid, start_ns, end_ns, cpu_ns, timed_out } = *e else { continue };
        let Some(w) = at(tid, start_ns) else { continue };
        let signal = if timed_out {
            None
        } else {
            // The latest signal on the variable from another thread within the wait.
            let on = signals.get(&cond).map_or(&[][..], Vec::as_slice);
            on[..on.partition_point(|&(t, _, _)| t <= end_ns)]
                .iter()
                .rev()
                .take_while(|&&(t, _, _)| t >= start_ns)
                .find(|&&(_, _, st)| st != tid)
                .map(|&(_, j, _)| j)
        };
        let step = match signal {
            Some(j) => {
                let next = sems.len();
                let sem = *sems.entry((cond, w)).or_insert(next);
                let id = hand_offs.len();
                hand_offs.push(end_ns.saturating_sub(start_ns));
                posts.entry((j, sem)).or_default().push(id);
                summary.measured.cond_waits_matched += 1;
                Step::SemWait { sem, id }
            }
            None => {
                summary.measured.cond_waits_as_sleeps += 1;
                Step::Sleep { ns: end_ns.saturating_sub(start_ns).max(1) }
            }
        };
        marks[w].push(Mark { place: cpu_ns, t: start_ns, what: What::Point(step) });
    }
    let mut signals_seen = std::collections::BTreeSet::new();
    for (&(j, sem), ids) in &posts {
        let SyncEvent::CondSignal { tid, t_ns, cpu_ns, .. } = rec.events[j] else { unreachable!("a matched signal") };
        let Some(s) = at(tid, t_ns) else { continue };
        if signals_seen.insert(j) {
            summary.measured.cond_signals_matched += 1;
        }
        marks[s].push(Mark { place: cpu_ns, t: t_ns, what: What::Point(Step::SemPost { sem, count: ids.len() as u32, ids: ids.clone() }) });
    }

    // pthread barriers, measured: each meeting's calls are `barrier` phases of a barrier named per
    // address and parties, in the order of their first meeting; calls in no meeting are sleeps.
    let mut calls: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (j, e) in rec.events.iter().enumerate() {
        if let SyncEvent::BarrierWait { barrier, .. } = *e {
            calls.entry(barrier).or_default().push(j);
        }
    }
    let mut meetings: Vec<(u64, u64, Vec<usize>)> = Vec::new(); // (release, address, calls)
    for (&addr, js) in &calls {
        let (met, alone) = barrier_meetings(&rec.events, js);
        meetings.extend(met.into_iter().map(|(release, m)| (release, addr, m)));
        for j in alone {
            let SyncEvent::BarrierWait { tid, start_ns, end_ns, cpu_ns, .. } = rec.events[j] else { unreachable!("a barrier call") };
            let Some(w) = at(tid, start_ns) else { continue };
            summary.measured.barrier_waits_as_sleeps += 1;
            marks[w].push(Mark { place: cpu_ns, t: start_ns, what: What::Point(Step::Sleep { ns: end_ns.saturating_sub(start_ns).max(1) }) });
        }
    }
    meetings.sort_unstable();
    let mut measured_barriers: BTreeMap<(u64, usize), usize> = BTreeMap::new();
    for (_, addr, m) in &meetings {
        // The parties are the calls of recorded threads (each a phase), so that the replay's
        // meeting fills.
        let calls: Vec<(usize, u64, u64)> = m
            .iter()
            .filter_map(|&j| match rec.events[j] {
                SyncEvent::BarrierWait { tid, start_ns, cpu_ns, .. } => at(tid, start_ns).map(|w| (w, start_ns, cpu_ns)),
                _ => unreachable!("a barrier call"),
            })
            .collect();
        if calls.is_empty() {
            continue;
        }
        let next = measured_barriers.len();
        let barrier = *measured_barriers.entry((*addr, calls.len())).or_insert(next);
        summary.measured.barrier_meetings += 1;
        summary.measured.barrier_waits += calls.len();
        for (w, start_ns, cpu_ns) in calls.iter().copied() {
            marks[w].push(Mark { place: cpu_ns, t: start_ns, what: What::Point(Step::Barrier { barrier, parties: calls.len() }) });
        }
    }
    summary.measured.barriers = measured_barriers.len();

    // Unexplained off-CPU stretches (`all`, found above): barriers where several threads' meet
    // repeatedly, else sleeps.
    let window = if opts.barrier_window_ns == 0 { BARRIER_WINDOW_INTERVALS.saturating_mul(rec.interval_ns) } else { opts.barrier_window_ns };
    let instances = infer::barrier_instances(&all, window);
    // The last thread to reach a barrier does not block: it has no stretch. Where exactly one
    // other thread of the app was alive and neither blocked nor in a logged wait at the release
    // (the first end of the instance's stretches), it is taken as that last arrival, at its
    // place then. Two or more such threads leave the instance as its blocked threads alone.
    let waits: Vec<Vec<(u64, u64)>> = rec.threads.iter().map(|t| infer::logged_waits(&rec.events, t.tid)).collect();
    let alive_until: Vec<u64> = rec.threads.iter().map(|t| t.exit_ns.or(t.samples.last().map(|s| s.t_ns)).unwrap_or(rec.wall_ns)).collect();
    let busy_at = |i: usize, r: u64| {
        starts[i] <= r
            && r <= alive_until[i]
            && !waits[i].iter().any(|&(a, b)| a <= r && r <= b)
            && !all.iter().any(|st| st.thread == i && st.start_ns <= r && r <= st.end_ns)
    };
    let mut last_arrival: Vec<Option<(usize, u64)>> = vec![None; instances.len()];
    for (k, inst) in instances.iter().enumerate() {
        let release = inst.iter().map(|&s| all[s].end_ns).min().expect("an instance has stretches");
        let running: Vec<usize> = (0..n).filter(|&i| !inst.iter().any(|&s| all[s].thread == i) && busy_at(i, release)).collect();
        if let [u] = running[..] {
            last_arrival[k] = Some((u, release));
        }
    }
    let mut by_set: BTreeMap<Vec<usize>, Vec<usize>> = BTreeMap::new();
    for (k, inst) in instances.iter().enumerate() {
        let mut set: Vec<usize> = inst.iter().map(|&s| all[s].thread).chain(last_arrival[k].map(|(u, _)| u)).collect();
        set.sort_unstable();
        by_set.entry(set).or_default().push(k);
    }
    // Barriers named in the order of their first meeting.
    let mut named: Vec<(&Vec<usize>, &Vec<usize>)> = by_set.iter().filter(|(_, ks)| ks.len() >= 2).collect();
    named.sort_by_key(|(_, ks)| ks[0]);
    let mut in_barrier = vec![false; all.len()];
    for (b, (set, ks)) in named.iter().enumerate() {
        summary.inferred.barriers += 1;
        summary.inferred.barrier_instances += ks.len();
        // Numbered after the measured barriers.
        let step = Step::Barrier { barrier: summary.measured.barriers + b, parties: set.len() };
        for &k in ks.iter() {
            for &s in &instances[k] {
                in_barrier[s] = true;
                let st = &all[s];
                marks[st.thread].push(Mark { place: st.place, t: st.start_ns, what: What::Point(step.clone()) });
            }
            if let Some((u, release)) = last_arrival[k] {
                summary.inferred.last_arrivals += 1;
                marks[u].push(Mark { place: place_at(u, release), t: release, what: What::Point(step.clone()) });
            }
        }
    }
    for (s, st) in all.iter().enumerate() {
        if !in_barrier[s] {
            summary.inferred.sleeps += 1;
            marks[st.thread].push(Mark { place: st.place, t: st.start_ns, what: What::Point(Step::Sleep { ns: st.ns.max(1) }) });
        }
    }

    // Each thread's list.
    let mut lists = Vec::with_capacity(n);
    for i in 0..n {
        let (steps, dropped) = build_list(&mut marks[i], &mut ends[i], &curves[i], &profiler);
        summary.inferred.sections_dropped += dropped;
        lists.push(merge_lossless(steps));
    }
    summary.inferred.holder_sections = holder_sections;
    summary.measured.cpu_ns = rec.threads.iter().zip(&ends).map(|(t, &e)| t.samples.last().map_or(0, |s| s.cpu_ns).max(e)).sum();
    let empty = lists.iter().filter(|l| l.is_empty()).count();
    for l in &mut lists {
        if l.is_empty() {
            // A thread that did nothing measurable still exists (it is spawned, maybe joined):
            // the least phase the format takes.
            l.push(Step::Compute { instructions: 1.0, cpi: 1.0, mpki: 0.0 });
        }
    }
    // Within the bound by compression alone if it can; else, the hand-offs that held their
    // waiters back least in the recording (the shortest waits) dropped, as few as it takes: the
    // number doubled until the file fits, then the fewest found between by bisection (a drop
    // can make a list periodic or not, so the count is not strictly monotonic: the fitting
    // result kept is the fewest tried).
    let mut order: Vec<usize> = (0..hand_offs.len()).collect();
    order.sort_by_key(|&i| (hand_offs[i], i));
    let phases_lossless: usize = lists.iter().map(Vec::len).sum();
    let attempt = |k: usize| {
        let drop: std::collections::BTreeSet<usize> = order[..k].iter().copied().collect();
        compress::compress(&compress::drop_hand_offs(&lists, &drop), opts.max_phases)
    };
    let too_many = |reached: usize| {
        InputError::new(
            "--max-phases",
            "",
            format!(
                "{}: the recording needs {reached} phases even at the coarsest compression (its synchronisation cannot merge further): give a larger bound",
                opts.max_phases
            ),
        )
    };
    let ((lists, mut error), dropped) = match compress::compress(&lists, opts.max_phases) {
        Ok(done) => (done, 0),
        Err(reached) if order.is_empty() => return Err(too_many(reached)),
        Err(_) => {
            let (mut lo, mut k) = (0, 1);
            let mut found = loop {
                match attempt(k) {
                    Ok(done) => break (done, k),
                    Err(reached) if k == order.len() => return Err(too_many(reached)),
                    Err(_) => {
                        lo = k;
                        k = (2 * k).min(order.len());
                    }
                }
            };
            let mut hi = found.1;
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                match attempt(mid) {
                    Ok(done) => {
                        found = (done, mid);
                        hi = mid;
                    }
                    Err(_) => lo = mid,
                }
            }
            found
        }
    };
    let dropped_ids = &order[..dropped];
    // The count the compression started from is the file's before any hand-off was dropped.
    error.phases_before = phases_lossless;
    error.hand_offs_dropped = dropped_ids.len();
    error.hand_off_wait_dropped_ns = dropped_ids.iter().map(|&i| hand_offs[i]).sum();
    summary.phases = error.phases_after;
    summary.error = error;

    // Notes, for the file's header and the summary.
    let mut notes: Vec<String> = rec.notes.clone();
    if !counters {
        notes.push(format!(
            "no hardware counters: compute is CPU time at the recorded core's speed, as instructions at the fastest type's ({}) {} per ns at CPI 1",
            fast.name,
            num(fast_rate)
        ));
    } else {
        notes.push("compute: instructions and LLC misses measured; CPI chosen so that the recorded machine's fastest type gives back the CPU time".into());
    }
    let no_split = curves.iter().filter(|c| c.no_split).count();
    if no_split > 0 {
        notes.push(format!("{no_split} thread(s) had no CPU split per core type: their CPU time is taken as the fastest type's"));
    }
    if empty > 0 {
        notes.push(format!("{empty} thread(s) did no measurable work: one instruction each"));
    }
    if summary.error.hand_offs_dropped > 0 {
        notes.push(format!(
            "{} of {} condition-variable hand-offs dropped to meet the size bound, the shortest waits first ({} s of waiting in the recording): their waiters no longer wait for them",
            summary.error.hand_offs_dropped,
            hand_offs.len(),
            num(summary.error.hand_off_wait_dropped_ns as f64 / 1e9)
        ));
    }
    if summary.error.loops_split > 0 {
        notes.push(format!(
            "{} thread(s) that spawn or join had a loop too long for the size bound: it runs as a helper group of its own ('<thread>.loop'), spawned and joined where the loop was; the thread's CPU time is the two groups'",
            summary.error.loops_split
        ));
    }
    if summary.inferred.sections_dropped > 0 {
        notes.push(format!("{} critical section(s) overlapped another of their thread (nested locks) and were dropped", summary.inferred.sections_dropped));
    }
    summary.notes = notes;

    let toml = write_toml(rec, opts, &machine, &lists, &summary, window);
    Ok(Converted { toml, summary })
}

/// A thread's marks as steps: sections made disjoint, points inside a section moved to its end,
/// computes between places. `end`: the thread's last CPU place (raised to its last mark's).
fn build_list(marks: &mut [Mark], end: &mut u64, curve: &WorkCurve, profiler: &Profiler) -> (Vec<Step>, usize) {
    // A condition wait inside a section releases the mutex (pthread_cond_wait unlocks it and
    // takes it again inside glibc, which the library does not log): the section ends there.
    let cond_waits: Vec<u64> = marks.iter().filter(|m| matches!(m.what, What::Point(Step::SemWait { .. }))).map(|m| m.place).collect();
    for m in marks.iter_mut() {
        let place = m.place;
        if let What::Critical { end: e, .. } = &mut m.what {
            if let Some(&w) = cond_waits.iter().filter(|&&w| place < w && w < *e).min() {
                *e = w;
            }
        }
    }
    // Measured sections first, then by place: keep each that overlaps none kept.
    let mut order: Vec<usize> = (0..marks.len()).filter(|&m| matches!(marks[m].what, What::Critical { .. })).collect();
    order.sort_by_key(|&m| {
        let What::Critical { measured, .. } = marks[m].what else { unreachable!() };
        (!measured, marks[m].place, marks[m].t)
    });
    let mut kept: Vec<(u64, u64)> = Vec::new();
    let mut drop = vec![false; marks.len()];
    for m in order {
        let What::Critical { end: e, .. } = marks[m].what else { unreachable!() };
        let s = marks[m].place;
        // Two sections overlap if they share more than an end point; two zero-length ones at one
        // place do not (they are two acquisitions one after the other).
        if kept.iter().any(|&(a, b)| s < b && a < e || (s == e && a < s && s < b) || (a == b && s < a && a < e)) {
            drop[m] = true;
        } else {
            kept.push((s, e));
        }
    }
    let dropped = drop.iter().filter(|&&d| d).count();
    let mut live: Vec<Mark> = marks.iter().zip(&drop).filter(|(_, &d)| !d).map(|(m, _)| m.clone()).collect();
    for m in live.iter_mut() {
        if let What::Point(_) = m.what {
            if let Some(&(_, b)) = kept.iter().find(|&&(a, b)| a < m.place && m.place < b) {
                m.place = b;
            }
        }
    }
    // At one place: by wall time; a section after the points of its start (it retires work).
    live.sort_by_key(|m| (m.place, m.t, matches!(m.what, What::Critical { .. })));
    let mut steps = Vec::new();
    let mut cursor = 0u64;
    let compute = |steps: &mut Vec<Step>, from: u64, to: u64| {
        if to > from {
            let (instructions, cpi, mpki) = profiler.step(curve.work(from, to));
            if instructions >= 0.5 {
                steps.push(Step::Compute { instructions, cpi, mpki });
            }
        }
    };
    for m in &live {
        compute(&mut steps, cursor, m.place);
        cursor = cursor.max(m.place);
        match &m.what {
            What::Point(s) => steps.push(s.clone()),
            What::Critical { lock, end: e, .. } => {
                let (cs, cpi, mpki) = profiler.step(curve.work(m.place, *e));
                steps.push(Step::Critical { lock: *lock, cs: cs.max(1.0), between: 0.0, count: 1, cpi, mpki });
                cursor = cursor.max(*e);
            }
        }
    }
    *end = (*end).max(cursor);
    compute(&mut steps, cursor, *end);
    (steps, dropped)
}

/// A number as TOML: the shortest text that reads back as the same f64 (Rust's `{:?}`), rounded
/// first to 6 significant digits for the profile values, which the model does not resolve
/// beyond.
fn num(x: f64) -> String {
    if x == 0.0 {
        return "0.0".into();
    }
    let digits = 6 - 1 - x.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits.clamp(-300, 300));
    format!("{:?}", (x * scale).round() / scale)
}

/// A string as a TOML basic string (JSON's escapes are TOML's).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// A thread's group name: its index and its comm, reduced to letters, digits, `_`, `-`, `.`.
fn group_name(i: usize, comm: &str) -> String {
    let clean: String = comm.chars().take(16).map(|c| if c.is_ascii_alphanumeric() || "_-.".contains(c) { c } else { '_' }).collect();
    if clean.is_empty() {
        format!("t{i}")
    } else {
        format!("t{i}-{clean}")
    }
}

fn percent(x: f64) -> String {
    if x.is_infinite() {
        "any".into()
    } else {
        format!("{:.2}%", x * 100.0)
    }
}

fn write_toml(rec: &Recording, opts: &ConvertOptions, machine: &Machine, lists: &[compress::List], s: &Summary, window: u64) -> String {
    let mut o = String::new();
    let m = &s.measured;
    let inf = &s.inferred;
    let e = &s.error;
    let _ = writeln!(o, "# Recorded with `ampsched record`: a live run's threads, their work and their synchronisation,");
    let _ = writeln!(o, "# as a workload the simulator replays on any machine (ampsched run --workload THIS --machine M).");
    if let Some(why) = &s.partial {
        let _ = writeln!(o, "# PARTIAL RECORDING ({}): the run's events were not all logged; what follows misses them.", why.replace('\n', " "));
    }
    let _ = writeln!(
        o,
        "# Recorded on machine '{}' (its file is at the end of this one, commented out), policy '{}', sampled every {} ms;",
        machine.name,
        rec.policy.replace('\n', " "),
        num(rec.interval_ns as f64 / 1e6)
    );
    let _ = writeln!(o, "# wall time {} s, exit status {}, {} threads.", num(rec.wall_ns as f64 / 1e9), rec.exit_status, s.threads);
    if let Some(cmd) = &rec.command {
        let words: Vec<String> = cmd.iter().map(|w| quoted(w)).collect();
        let _ = writeln!(o, "# Command: {}", words.join(" "));
    }
    let _ =
        writeln!(o, "# Measured: each thread's CPU time ({} s in all) and its split over the core types (the agent's samples);", num(m.cpu_ns as f64 / 1e9));
    if rec.events_logged {
        let _ = writeln!(
            o,
            "#   logged by the preload library: {} creations, {} joins, {} contended mutex waits, {} condition waits matched to {} signals",
            m.creations, m.joins, m.mutex_waits, m.cond_waits_matched, m.cond_signals_matched
        );
        let _ = writeln!(o, "#   (as sem_post/sem_wait), {} condition waits timed out or unmatched (as sleeps of their duration),", m.cond_waits_as_sleeps);
        let _ = writeln!(
            o,
            "#   {} pthread barrier waits at {} barriers ({} meetings), {} in no meeting (as sleeps of their duration).",
            m.barrier_waits, m.barriers, m.barrier_meetings, m.barrier_waits_as_sleeps
        );
    } else {
        let _ = writeln!(o, "#   no synchronisation events were logged: every wait below is inferred from the samples.");
    }
    let _ = writeln!(o, "# Inferred (estimates from the samples, not measurements):");
    let _ = writeln!(
        o,
        "#   {} other barriers ({} meetings): off-CPU stretches of several threads, all waiting at one instant and ending within {} ms,",
        inf.barriers,
        inf.barrier_instances,
        num(window as f64 / 1e6)
    );
    let _ = writeln!(
        o,
        "#   the same threads meeting repeatedly; {} arrivals of a last thread that did not block (the one thread running then);",
        inf.last_arrivals
    );
    let _ = writeln!(o, "#   {} holders' critical sections, from the holder's place when a waiter began (lower bounds);", inf.holder_sections);
    let _ = writeln!(o, "#   {} sleeps: off-CPU stretches no event explains (I/O, timers, waits the library cannot see);", inf.sleeps);
    let _ = writeln!(o, "#   {} threads' creators (no creation logged: their parent or the first thread, when first seen);", inf.spawns);
    let _ = writeln!(
        o,
        "#   {} s of off-CPU time in stretches under {} ms left out.",
        num(inf.off_cpu_dropped_ns as f64 / 1e9),
        num(opts.min_block_ns as f64 / 1e6)
    );
    for note in &s.notes {
        let _ = writeln!(o, "# Note: {}", note.replace('\n', " "));
    }
    if e.tolerance == 0.0 && e.sleeps_moved == 0 && e.loops_split == 0 && e.hand_offs_dropped == 0 {
        let _ = writeln!(o, "# Compression: {} phases to {}, lossless (equal phases merged, repetitions of equal values).", e.phases_before, e.phases_after);
    } else {
        let _ = writeln!(
            o,
            "# Compression: {} phases to {} (tolerance {}): merged values within {} of those they replaced; each thread's",
            e.phases_before,
            e.phases_after,
            percent(e.tolerance),
            percent(e.value)
        );
        let _ = writeln!(
            o,
            "#   total instructions within {}, total sleep within {}; {} sleeps moved by the coarsening, {} loops split into groups of their own.",
            percent(e.compute),
            percent(e.wait),
            e.sleeps_moved,
            e.loops_split
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "name = {}", quoted(&opts.name));
    let _ = writeln!(o, "description = {}", quoted(&format!("recorded with ampsched record: {} threads, policy {}", s.threads, rec.policy)));
    let _ = writeln!(o, "source = \"ampsched record\"");
    let _ = writeln!(o, "\n[[app]]\nname = {}", quoted(&opts.name));
    let names: Vec<String> = rec.threads.iter().enumerate().map(|(i, t)| group_name(i, &t.comm)).collect();
    for (i, l) in lists.iter().enumerate() {
        let _ = writeln!(o, "\n[[app.group]]\nname = {}\ncount = 1", quoted(&names[i]));
        if i > 0 {
            let _ = writeln!(o, "start = \"spawned\"");
        }
        if l.repeat > 1 {
            let _ = writeln!(o, "repeat = {}", l.repeat);
        }
        for (k, step) in l.steps.iter().enumerate() {
            if l.split.as_ref().is_some_and(|sp| sp.at == k) {
                write_loop_call(&mut o, &names[i]);
            }
            let _ = writeln!(o, "[[app.group.phase]]");
            write_step(&mut o, step, &names);
        }
        if l.split.as_ref().is_some_and(|sp| sp.at == l.steps.len()) {
            write_loop_call(&mut o, &names[i]);
        }
    }
    for (i, l) in lists.iter().enumerate() {
        let Some(sp) = &l.split else { continue };
        let _ = writeln!(o, "\n# {}'s loop, split out of it (the file's size bound): it spawns this group and joins it at once.", names[i]);
        let _ = writeln!(o, "[[app.group]]\nname = {}\ncount = 1\nstart = \"spawned\"", quoted(&loop_name(&names[i])));
        if sp.repeat > 1 {
            let _ = writeln!(o, "repeat = {}", sp.repeat);
        }
        for step in &sp.body {
            let _ = writeln!(o, "[[app.group.phase]]");
            write_step(&mut o, step, &names);
        }
    }
    let _ = writeln!(o, "\n# The recorded machine (save these lines without their leading '# | ' as a machine file):");
    for line in rec.machine_toml.lines() {
        let _ = writeln!(o, "# | {line}");
    }
    o
}

/// The helper group that runs thread `name`'s loop (`compress::Split`).
fn loop_name(name: &str) -> String {
    format!("{name}.loop")
}

fn write_loop_call(o: &mut String, name: &str) {
    let g = quoted(&loop_name(name));
    let _ = writeln!(o, "[[app.group.phase]]\nkind = \"spawn\"\ngroup = {g}\n[[app.group.phase]]\nkind = \"join\"\ngroup = {g}");
}

fn write_profile(o: &mut String, cpi: f64, mpki: f64) {
    if cpi != 1.0 {
        let _ = writeln!(o, "cpi = {}", num(cpi));
    }
    if mpki > 0.0 {
        let _ = writeln!(o, "llc_mpki = {}", num(mpki));
    }
}

fn write_step(o: &mut String, step: &Step, names: &[String]) {
    let instr = |x: f64| format!("{}", x.round().max(1.0) as u64);
    match step {
        Step::Compute { instructions, cpi, mpki } => {
            let _ = writeln!(o, "kind = \"compute\"\ninstructions = {}", instr(*instructions));
            write_profile(o, *cpi, *mpki);
        }
        Step::Critical { lock, cs, between, count, cpi, mpki } => {
            let _ = writeln!(o, "kind = \"critical\"\nlock = \"m{lock}\"\ncount = {count}\ncs_instructions = {}", instr(*cs));
            if between.round() >= 1.0 {
                let _ = writeln!(o, "between_instructions = {}", instr(*between));
            }
            write_profile(o, *cpi, *mpki);
        }
        Step::Sleep { ns } => {
            let _ = writeln!(o, "kind = \"sleep\"\nseconds = {:?}", *ns.max(&1) as f64 / 1e9);
        }
        Step::Spawn { group } => {
            let _ = writeln!(o, "kind = \"spawn\"\ngroup = {}", quoted(&names[*group]));
        }
        Step::Join { group } => {
            let _ = writeln!(o, "kind = \"join\"\ngroup = {}", quoted(&names[*group]));
        }
        Step::SemPost { sem, count, .. } => {
            let _ = writeln!(o, "kind = \"sem_post\"\nsemaphore = \"c{sem}\"");
            if *count != 1 {
                let _ = writeln!(o, "count = {count}");
            }
        }
        Step::SemWait { sem, .. } => {
            let _ = writeln!(o, "kind = \"sem_wait\"\nsemaphore = \"c{sem}\"");
        }
        Step::Barrier { barrier, parties } => {
            let _ = writeln!(o, "kind = \"barrier\"\nbarrier = \"b{barrier}\"\nparties = {parties}");
        }
    }
}
