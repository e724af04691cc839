//! A CFS-like local scheduler: per-core queues ordered by virtual runtime (`runqueue`), wake-up
//! placement on the last or an idle or the least loaded allowed core (among equals, one that
//! shares the last core's LLC), pulls by idle cores, and periodic balancing of queue lengths.

use ampsched_model::rng::Rng;

use super::runqueue::{weight_of_nice, RunQueue};
use super::{LocalScheduler, SchedView};

/// How far down another core's queue an idle core looks for a thread allowed on it: bounds the
/// cost of a pull when affinities exclude most queued threads.
const PULL_SCAN_LIMIT: usize = 64;

/// The weight vruntime is scaled to: a nice-0 thread's vruntime is its run time.
const NICE_0_WEIGHT: u32 = 1024;

/// CFS's per-thread state (Linux's sched_entity).
#[derive(Debug, Clone)]
struct Entity {
    vruntime: u64,
    /// The thread's key in its run queue.
    qkey: (u64, u64),
    /// vruntime minus the queue floor, kept while the thread is off any queue.
    lag: i64,
    weight: u32,
    nice_weight: u32,
    /// A policy's slice for this thread, if it set one.
    slice_ns: Option<u64>,
    queued_on: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct Cfs {
    queues: Vec<RunQueue>,
    /// Per core, the index of its LLC domain (the machine's `[[llc]]`).
    llc_of: Vec<u32>,
    threads: Vec<Entity>,
    /// The default time slice; also the most sleeper credit a waking thread gets.
    slice_ns: u64,
    rng: Rng,
}

impl Cfs {
    /// `llc_of` gives each core's LLC domain (its length is the number of cores); `seed` draws
    /// among equally good cores for a waking thread.
    pub fn new(llc_of: Vec<u32>, slice_ns: u64, seed: u64) -> Cfs {
        Cfs { queues: vec![RunQueue::default(); llc_of.len()], llc_of, threads: Vec::new(), slice_ns, rng: Rng::new(seed) }
    }

    /// Threads running or queued on core `c` (Linux's nr_running).
    fn nr(&self, sys: &SchedView, c: usize) -> usize {
        self.queues[c].len() + sys.is_running(c) as usize
    }

    /// An idle core takes a queued thread that may run on it, from the busiest other core.
    fn pull(&mut self, sys: &SchedView, c: usize) -> Option<u32> {
        let mut best: Option<(usize, u32)> = None;
        let mut best_len = 0;
        for o in 0..self.queues.len() {
            let len = self.queues[o].len();
            if o == c || len == 0 || len <= best_len {
                continue;
            }
            if let Some(t) = self.first_allowed(sys, o, c) {
                best = Some((o, t));
                best_len = len;
            }
        }
        let (o, t) = best?;
        self.move_queued(t, o);
        Some(t)
    }

    fn first_allowed(&self, sys: &SchedView, from: usize, to: usize) -> Option<u32> {
        self.queues[from].iter().take(PULL_SCAN_LIMIT).map(|(_, t)| t).find(|&t| sys.allowed(t).contains(to))
    }

    /// Take queued thread `t` out of core `from`'s queue, keeping its lag.
    fn move_queued(&mut self, t: u32, from: usize) {
        let queue = &mut self.queues[from];
        let e = &mut self.threads[t as usize];
        queue.remove(e.qkey, t);
        e.lag = e.vruntime as i64 - queue.min_vruntime as i64;
        e.queued_on = None;
    }
}

impl LocalScheduler for Cfs {
    fn add_thread(&mut self, t: u32, nice: i32) {
        debug_assert_eq!(t as usize, self.threads.len());
        let weight = weight_of_nice(nice);
        self.threads.push(Entity { vruntime: 0, qkey: (0, 0), lag: 0, weight, nice_weight: weight, slice_ns: None, queued_on: None });
    }

    /// Its last core if idle, else an idle allowed core (at random, seeded: like a default
    /// scheduler's arbitrary binding), else the least loaded allowed core; among equally loaded
    /// cores, one in the last core's LLC domain when there is one, so that a thread moved to
    /// another core type keeps its cache where the machine allows (Linux's select_idle_sibling
    /// looks in the previous core's LLC first; the Sáez thesis's partition framework, §5.2.4
    /// footnote 7 and §6.2.3, prefers a target core in the source core's LLC).
    fn select_core(&mut self, sys: &SchedView, t: u32) -> usize {
        let allowed = sys.allowed(t);
        let last = sys.last_ran(t);
        if let Some(prev) = last {
            if allowed.contains(prev) && self.nr(sys, prev) == 0 {
                return prev;
            }
        }
        let last_llc = last.map(|p| self.llc_of[p]);
        let mut best_nr = usize::MAX;
        let mut ties = 0usize;
        let mut near_ties = 0usize;
        let mut choice = allowed.first().unwrap_or(0);
        for c in allowed.iter() {
            let nr = self.nr(sys, c);
            let near = last_llc == Some(self.llc_of[c]);
            if nr < best_nr {
                best_nr = nr;
                ties = 1;
                near_ties = near as usize;
                choice = c;
            } else if nr == best_nr {
                near_ties += near as usize;
                // Reservoir sampling: each tied core is equally likely.
                ties += 1;
                if self.rng.below(ties) == 0 {
                    choice = c;
                }
            }
        }
        let Some(prev) = last else { return choice };
        if allowed.contains(prev) && self.nr(sys, prev) == best_nr {
            return prev;
        }
        // The draw above stands when it is near already (every tie on a one-LLC machine), so
        // machines without a choice of LLC draw exactly as before; else draw again among the near.
        if near_ties == 0 || last_llc == Some(self.llc_of[choice]) {
            return choice;
        }
        let pick = self.rng.below(near_ties);
        allowed.iter().filter(|&c| self.llc_of[c] == self.llc_of[prev] && self.nr(sys, c) == best_nr).nth(pick).unwrap_or(choice)
    }

    /// Placed by its lag relative to the core's floor. A thread that slept gets at most one
    /// slice of credit, as CFS bounds sleeper credit.
    fn enqueue(&mut self, t: u32, c: usize) {
        let slice = self.slice_ns as i64;
        let queue = &mut self.queues[c];
        let e = &mut self.threads[t as usize];
        let v = queue.min_vruntime as i64 + e.lag.max(-slice);
        e.vruntime = v.max(0) as u64;
        e.queued_on = Some(c as u32);
        e.qkey = queue.insert(e.vruntime, t);
    }

    fn dequeue(&mut self, t: u32) {
        if let Some(c) = self.threads[t as usize].queued_on {
            self.move_queued(t, c as usize);
        }
    }

    #[inline]
    fn queued_on(&self, t: u32) -> Option<usize> {
        self.threads[t as usize].queued_on.map(|c| c as usize)
    }

    #[inline]
    fn queue_len(&self, c: usize) -> usize {
        self.queues[c].len()
    }

    #[inline]
    fn peek_next(&self, c: usize) -> Option<u32> {
        self.queues[c].first_thread()
    }

    #[inline]
    fn prefetch(&self, t: u32) {
        crate::prefetch::prefetch(&self.threads[t as usize]);
    }

    /// The smallest vruntime of its queue (CFS's pick), else a pull.
    fn pick_next(&mut self, sys: &SchedView, c: usize) -> Option<u32> {
        match self.queues[c].pop_first() {
            Some((_, t)) => {
                self.threads[t as usize].queued_on = None;
                Some(t)
            }
            None => self.pull(sys, c),
        }
    }

    #[inline]
    fn charge(&mut self, t: u32, c: usize, ns: u64) {
        let e = &mut self.threads[t as usize];
        // Nice 0 is nearly every thread: skip the division (exact either way).
        e.vruntime += if e.weight == NICE_0_WEIGHT { ns } else { ns * NICE_0_WEIGHT as u64 / e.weight as u64 };
        // As CFS's min_vruntime: the floor follows the smallest of the running and queued vruntimes.
        let queue = &mut self.queues[c];
        let floor = queue.first_vruntime().map_or(e.vruntime, |q| q.min(e.vruntime));
        queue.advance_floor(floor);
    }

    #[inline]
    fn put_prev(&mut self, t: u32, c: usize) {
        let e = &mut self.threads[t as usize];
        e.lag = e.vruntime as i64 - self.queues[c].min_vruntime as i64;
    }

    /// When others wait (the smallest vruntime runs next, which may be the same thread).
    #[inline]
    fn yields_at_slice_end(&self, c: usize) -> bool {
        !self.queues[c].is_empty()
    }

    #[inline]
    fn slice_ns(&self, t: u32) -> u64 {
        self.threads[t as usize].slice_ns.unwrap_or(self.slice_ns)
    }

    fn set_slice(&mut self, t: u32, slice_ns: Option<u64>) {
        self.threads[t as usize].slice_ns = slice_ns;
    }

    fn weight(&self, t: u32) -> u32 {
        self.threads[t as usize].weight
    }

    /// Takes effect from the next charge: the vruntime already earned stays.
    fn set_weight(&mut self, t: u32, weight: Option<u32>) {
        let e = &mut self.threads[t as usize];
        e.weight = weight.unwrap_or(e.nice_weight);
    }

    /// Move queued threads from the longest queues to cores with at least two fewer runnable
    /// threads that they may run on.
    fn balance(&mut self, sys: &SchedView, moved: &mut Vec<(u32, usize)>) {
        let n = self.queues.len();
        for _ in 0..n {
            let Some(busiest) = (0..n).filter(|&c| !self.queues[c].is_empty()).max_by_key(|&c| (self.nr(sys, c), usize::MAX - c)) else {
                return;
            };
            let mut targets: Vec<usize> = (0..n).filter(|&c| self.nr(sys, c) + 2 <= self.nr(sys, busiest)).collect();
            targets.sort_by_key(|&c| (self.nr(sys, c), c));
            let Some((t, to)) = targets.into_iter().find_map(|to| self.first_allowed(sys, busiest, to).map(|t| (t, to))) else {
                return;
            };
            self.move_queued(t, busiest);
            self.enqueue(t, to);
            moved.push((t, to));
        }
    }
}
