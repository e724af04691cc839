//! A CFS-like local scheduler: per-core queues ordered by virtual runtime (`runqueue`), wake-up
//! placement on the last or an idle or the least loaded allowed core (among equals, one that
//! shares the last core's LLC), pulls by idle cores, and periodic balancing of queue lengths.

use ampsched_model::rng::Rng;
use ampsched_model::{CoreSet, Machine};

use super::runqueue::{weight_of_nice, RunQueue};
use super::{LocalScheduler, SchedView};

/// How far down another core's queue an idle core looks for a thread allowed on it: bounds the
/// cost of a pull when affinities exclude most queued threads.
const PULL_SCAN_LIMIT: usize = 64;

/// `Cfs::sibling`'s mark of a core without another hardware thread.
const NO_SIBLING: u32 = u32::MAX;

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
    /// Per core, its other hardware thread (`NO_SIBLING` for a core without one); None on a
    /// machine without SMT, which then places exactly as before SMT was modelled.
    sibling: Option<Vec<u32>>,
    threads: Vec<Entity>,
    /// The default time slice; also the most sleeper credit a waking thread gets.
    slice_ns: u64,
    rng: Rng,
}

impl Cfs {
    /// `llc_of` gives each core's LLC domain (its length is the number of cores); `seed` draws
    /// among equally good cores for a waking thread.
    pub fn new(llc_of: Vec<u32>, slice_ns: u64, seed: u64) -> Cfs {
        Cfs { queues: vec![RunQueue::default(); llc_of.len()], llc_of, sibling: None, threads: Vec::new(), slice_ns, rng: Rng::new(seed) }
    }

    /// For machine `m`: its LLC domains, and its SMT siblings when it has any.
    pub fn for_machine(m: &Machine, slice_ns: u64, seed: u64) -> Cfs {
        let mut cfs = Cfs::new(m.cores.iter().map(|c| c.llc as u32).collect(), slice_ns, seed);
        if m.has_smt() {
            let other = |c: usize| m.smt_siblings(c).iter().find(|&s| s != c).map_or(NO_SIBLING, |s| s as u32);
            cfs.sibling = Some((0..m.cores.len()).map(other).collect());
        }
        cfs
    }

    /// The threads queued on core `c`, in the order it would run them.
    pub fn queued(&self, c: usize) -> impl Iterator<Item = u32> + '_ {
        self.queues[c].iter().map(|(_, t)| t)
    }

    /// Threads running or queued on core `c` (Linux's nr_running).
    fn nr(&self, sys: &SchedView, c: usize) -> usize {
        self.queues[c].len() + sys.is_running(c) as usize
    }

    /// What `select_core` minimises: the core's nr_running, then, for an idle hardware thread,
    /// whether its sibling is busy (always false without SMT).
    fn load(&self, sys: &SchedView, c: usize) -> (usize, bool) {
        let nr = self.nr(sys, c);
        let sibling_busy = nr == 0 && self.sibling.as_ref().is_some_and(|s| s[c] != NO_SIBLING && self.nr(sys, s[c] as usize) > 0);
        (nr, sibling_busy)
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
    /// footnote 7 and §6.2.3, prefers a target core in the source core's LLC). With SMT, an idle
    /// hardware thread whose sibling is idle too (a fully idle core) comes before one whose
    /// sibling is busy (Linux kernel/sched/fair.c, `select_idle_sibling`: `select_idle_core`
    /// while the LLC has an idle core); the last core, idle, is still kept first, as there.
    fn select_core(&mut self, sys: &SchedView, t: u32) -> usize {
        let allowed = sys.allowed(t);
        let last = sys.last_ran(t);
        if let Some(prev) = last {
            if allowed.contains(prev) && self.nr(sys, prev) == 0 {
                return prev;
            }
        }
        let last_llc = last.map(|p| self.llc_of[p]);
        let mut best_nr = (usize::MAX, false);
        let mut ties = 0usize;
        let mut near_ties = 0usize;
        let mut choice = allowed.first().unwrap_or(0);
        for c in allowed.iter() {
            let nr = self.load(sys, c);
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
        if allowed.contains(prev) && self.load(sys, prev) == best_nr {
            return prev;
        }
        // The draw above stands when it is near already (every tie on a one-LLC machine), so
        // machines without a choice of LLC draw exactly as before; else draw again among the near.
        if near_ties == 0 || last_llc == Some(self.llc_of[choice]) {
            return choice;
        }
        let pick = self.rng.below(near_ties);
        allowed.iter().filter(|&c| self.llc_of[c] == self.llc_of[prev] && self.load(sys, c) == best_nr).nth(pick).unwrap_or(choice)
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
        self.balance_within(sys, None, moved);
    }
}

impl Cfs {
    /// `balance` among the cores of `within` only (all cores: None): GTS balances each of its
    /// domains so, never across them.
    pub fn balance_within(&mut self, sys: &SchedView, within: Option<&CoreSet>, moved: &mut Vec<(u32, usize)>) {
        let n = self.queues.len();
        let inside = |c: usize| within.is_none_or(|w| w.contains(c));
        for _ in 0..n {
            let Some(busiest) = (0..n).filter(|&c| inside(c) && !self.queues[c].is_empty()).max_by_key(|&c| (self.nr(sys, c), usize::MAX - c)) else {
                return;
            };
            let mut targets: Vec<usize> = (0..n).filter(|&c| inside(c) && self.nr(sys, c) + 2 <= self.nr(sys, busiest)).collect();
            targets.sort_by_key(|&c| (self.nr(sys, c), c));
            // What `first_allowed` would find for each target in turn, reading the busiest
            // queue's head once (a queue is read in order through a heap): pinned partitions
            // make most targets find nothing there, and each would read it all again.
            let found = {
                let mut unread = self.queues[busiest].iter().take(PULL_SCAN_LIMIT).map(|(_, t)| t);
                let (mut read, mut reachable, mut all_read) = (Vec::new(), CoreSet::default(), false);
                targets.into_iter().find_map(|to| {
                    if all_read && !reachable.contains(to) {
                        return None;
                    }
                    if let Some(&t) = read.iter().find(|&&t| sys.allowed(t).contains(to)) {
                        return Some((t, to));
                    }
                    for t in unread.by_ref() {
                        read.push(t);
                        reachable = reachable.union(sys.allowed(t));
                        if sys.allowed(t).contains(to) {
                            return Some((t, to));
                        }
                    }
                    all_read = true;
                    None
                })
            };
            let Some((t, to)) = found else {
                return;
            };
            self.move_queued(t, busiest);
            self.enqueue(t, to);
            moved.push((t, to));
        }
    }
}

#[cfg(test)]
mod tests {
    //! Cfs on a few cores and threads written down directly (`SchedView` over literal slices).
    //! Every expected value follows from the rule of `Cfs` it names.

    use super::*;

    const SLICE_NS: u64 = 4_000_000;

    /// The system `Cfs` reads: per thread its allowed cores and last core, per core its running
    /// thread.
    struct System {
        allowed: Vec<CoreSet>,
        last_ran: Vec<Option<u32>>,
        running: Vec<Option<u32>>,
    }

    impl System {
        /// `threads` threads, each allowed on every core of `cores`, none has run, none runs.
        fn new(cores: usize, threads: usize) -> System {
            System { allowed: vec![CoreSet::first_n(cores); threads], last_ran: vec![None; threads], running: vec![None; cores] }
        }

        fn view(&self) -> SchedView<'_> {
            SchedView::new(&self.allowed, &self.last_ran, &self.running)
        }
    }

    /// A Cfs over cores in the given LLC domains, with `threads` nice-0 threads.
    fn cfs(llc_of: &[u32], threads: u32, seed: u64) -> Cfs {
        let mut s = Cfs::new(llc_of.to_vec(), SLICE_NS, seed);
        for t in 0..threads {
            s.add_thread(t, 0);
        }
        s
    }

    fn queue(s: &Cfs, c: usize) -> Vec<u32> {
        s.queues[c].iter().map(|(_, t)| t).collect()
    }

    /// select_core's first rule: the last core, if it is allowed and idle (nothing runs or is
    /// queued there), even when other cores are idle too; no draw.
    #[test]
    fn a_waking_thread_goes_back_to_its_idle_last_core() {
        let mut sys = System::new(4, 1);
        sys.last_ran[0] = Some(2);
        for seed in 0..20 {
            assert_eq!(cfs(&[0, 0, 1, 1], 1, seed).select_core(&sys.view(), 0), 2);
        }
    }

    /// Its last core busy, the only idle allowed core is taken (the least loaded: nr 0 against 1).
    #[test]
    fn a_waking_thread_takes_the_idle_core_when_its_last_is_busy() {
        let mut sys = System::new(4, 4);
        sys.last_ran[3] = Some(0);
        sys.running = vec![Some(0), Some(1), Some(2), None];
        for seed in 0..20 {
            assert_eq!(cfs(&[0, 0, 1, 1], 4, seed).select_core(&sys.view(), 3), 3);
        }
    }

    /// Least loaded counts queued threads as well as the running one (Linux's nr_running): core 0
    /// runs one and queues one (nr 2), core 1 runs one (nr 1), so a new thread joins core 1.
    #[test]
    fn a_new_thread_joins_the_least_loaded_core() {
        let mut sys = System::new(2, 4);
        sys.running = vec![Some(0), Some(2)];
        let mut s = cfs(&[0, 0], 4, 1);
        s.enqueue(1, 0);
        assert_eq!(s.select_core(&sys.view(), 3), 1);
    }

    /// Every core equally loaded (each runs one thread): the last core is among the least
    /// loaded, and is kept whatever the draw among the ties was.
    #[test]
    fn among_equally_loaded_cores_the_last_core_is_kept() {
        let mut sys = System::new(4, 5);
        sys.running = vec![Some(0), Some(1), Some(2), Some(3)];
        sys.last_ran[4] = Some(2);
        for seed in 0..20 {
            assert_eq!(cfs(&[0, 0, 1, 1], 5, seed).select_core(&sys.view(), 4), 2);
        }
    }

    /// The LLC preference: its last core (0, LLC 0) busy, idle cores in its LLC (1) and in the
    /// other (2, 3). Among the equally loaded the near one is chosen whatever the first draw: a
    /// far draw is replaced by a draw among the near, here core 1 alone.
    #[test]
    fn among_idle_cores_one_in_the_last_cores_llc_is_chosen() {
        let mut sys = System::new(4, 2);
        sys.running = vec![Some(0), None, None, None];
        sys.last_ran[1] = Some(0);
        for seed in 0..50 {
            assert_eq!(cfs(&[0, 0, 1, 1], 2, seed).select_core(&sys.view(), 1), 1, "seed {seed}");
        }
    }

    /// SMT (two physical cores of two hardware threads, 0-1 and 2-3; one LLC): thread 0 runs on
    /// hardware thread 0, so of the idle hardware threads 1, 2, 3 a new thread takes 2 or 3 (the
    /// fully idle core), never 1 (its sibling busy); over seeds both 2 and 3 are drawn. Its own
    /// idle last core is still kept first, sibling busy or not (`select_idle_sibling`'s target).
    #[test]
    fn with_smt_a_fully_idle_core_comes_before_a_busy_cores_sibling() {
        let mut sys = System::new(4, 2);
        sys.running = vec![Some(0), None, None, None];
        let smt = |seed| {
            let mut s = cfs(&[0, 0, 0, 0], 2, seed);
            s.sibling = Some(vec![1, 0, 3, 2]);
            s
        };
        let drawn: std::collections::BTreeSet<usize> = (0..40).map(|seed| smt(seed).select_core(&sys.view(), 1)).collect();
        assert_eq!(drawn, [2, 3].into());
        // Without the sibling table the same draw reaches core 1 too.
        let plain: std::collections::BTreeSet<usize> = (0..40).map(|seed| cfs(&[0, 0, 0, 0], 2, seed).select_core(&sys.view(), 1)).collect();
        assert_eq!(plain, [1, 2, 3].into());
        sys.last_ran[1] = Some(1);
        assert_eq!(smt(7).select_core(&sys.view(), 1), 1);
    }

    /// With several near idle cores the draw is among them only: last core 1 of LLC 0 (cores
    /// 0-3) busy, every other core idle; over seeds each of 0, 2, 3 is drawn, never 4-7.
    #[test]
    fn the_near_draw_stays_in_the_llc_and_reaches_each_near_core() {
        let mut sys = System::new(8, 2);
        sys.running[1] = Some(0);
        sys.last_ran[1] = Some(1);
        let mut seen = [0u32; 8];
        for seed in 0..200 {
            seen[cfs(&[0, 0, 0, 0, 1, 1, 1, 1], 2, seed).select_core(&sys.view(), 1)] += 1;
        }
        assert_eq!(seen[1] + seen[4..].iter().sum::<u32>(), 0, "drawn: {seen:?}");
        assert!(seen[0] > 0 && seen[2] > 0 && seen[3] > 0, "drawn: {seen:?}");
    }

    /// Affinity is respected: its last core (0) is idle but no longer allowed; of the allowed
    /// cores 2 (busy) and 3 (idle), core 3. The LLC preference does not reach outside `allowed`.
    #[test]
    fn a_waking_thread_stays_within_its_allowed_cores() {
        let mut sys = System::new(4, 2);
        sys.running = vec![None, None, Some(0), None];
        sys.allowed[1] = CoreSet::from_cores([2, 3]);
        sys.last_ran[1] = Some(0);
        for seed in 0..20 {
            assert_eq!(cfs(&[0, 0, 1, 1], 2, seed).select_core(&sys.view(), 1), 3);
        }
    }

    /// pick_next takes the smallest vruntime of the core's own queue; equal vruntimes (every new
    /// thread starts at the queue's floor, 0) go in arrival order.
    #[test]
    fn an_idle_core_runs_its_own_queue_first_in_vruntime_order() {
        let sys = System::new(2, 3);
        let mut s = cfs(&[0, 0], 3, 1);
        s.enqueue(2, 0);
        s.enqueue(0, 0);
        s.enqueue(1, 1);
        assert_eq!(s.pick_next(&sys.view(), 0), Some(2));
        assert_eq!(s.queued_on(2), None);
        assert_eq!(s.pick_next(&sys.view(), 0), Some(0));
        // Its own queue empty: it pulls core 1's thread.
        assert_eq!(s.pick_next(&sys.view(), 0), Some(1));
        assert_eq!(s.pick_next(&sys.view(), 0), None);
    }

    /// An idle core with an empty queue pulls from the longest other queue the first thread (in
    /// vruntime order) allowed on it: core 1 queues 2, 3, 4 and core 2 queues 5, 6; thread 2 may
    /// run only on core 1, so idle core 0 pulls 3.
    #[test]
    fn an_idle_core_pulls_the_first_allowed_thread_of_the_longest_queue() {
        let mut sys = System::new(3, 7);
        sys.running = vec![None, Some(0), Some(1)];
        sys.allowed[2] = CoreSet::single(1);
        let mut s = cfs(&[0, 0, 0], 7, 1);
        for (t, c) in [(2, 1), (3, 1), (4, 1), (5, 2), (6, 2)] {
            s.enqueue(t, c);
        }
        assert_eq!(s.pick_next(&sys.view(), 0), Some(3));
        assert_eq!(queue(&s, 1), vec![2, 4]);
        assert_eq!(s.queued_on(3), None);
        // Now both queues hold 2: a tie goes to the first core found, core 1, whose first
        // allowed thread is 4.
        assert_eq!(s.pick_next(&sys.view(), 0), Some(4));
        assert_eq!(queue(&s, 1), vec![2]);
    }

    /// A queue none of whose threads may run on the idle core is passed over for a shorter one.
    #[test]
    fn a_pull_passes_over_a_longer_queue_of_threads_pinned_elsewhere() {
        let mut sys = System::new(3, 5);
        sys.running = vec![None, Some(0), None];
        for t in 1..4 {
            sys.allowed[t] = CoreSet::single(1);
        }
        let mut s = cfs(&[0, 0, 0], 5, 1);
        for (t, c) in [(1, 1), (2, 1), (3, 1), (4, 2)] {
            s.enqueue(t, c);
        }
        assert_eq!(s.pick_next(&sys.view(), 0), Some(4));
        assert_eq!(s.pick_next(&sys.view(), 0), None);
        assert_eq!(queue(&s, 1), vec![1, 2, 3]);
    }

    /// balance moves from the busiest core (most runnable threads) to the least loaded core
    /// with at least two fewer that the thread may run on, until no such pair is left. Core 0
    /// runs 0 and queues 1, 2, 3 (nr 4; thread 1 pinned to it), core 1 is idle (nr 0), core 2
    /// runs 4 (nr 1). Round 1: busiest 0, targets 1 (nr 0) then 2 (nr 1); 1 may not move, 2
    /// goes to core 1 (nr 3, 1, 1). Round 2: busiest 0 (3), targets 1 and 2 (nr 1 each, the
    /// lower index first): 3 goes to core 1 (nr 2, 2, 1). Round 3: no core has nr 0 = 2 − 2:
    /// done.
    #[test]
    fn balance_moves_queued_threads_to_cores_with_two_fewer() {
        let mut sys = System::new(3, 5);
        sys.running = vec![Some(0), None, Some(4)];
        sys.allowed[1] = CoreSet::single(0);
        let mut s = cfs(&[0, 0, 0], 5, 1);
        for t in 1..4 {
            s.enqueue(t, 0);
        }
        let mut moved = Vec::new();
        s.balance(&sys.view(), &mut moved);
        assert_eq!(moved, vec![(2, 1), (3, 1)]);
        assert_eq!(queue(&s, 0), vec![1]);
        assert_eq!(queue(&s, 1), vec![2, 3]);
        assert_eq!((s.queued_on(2), s.queued_on(3)), (Some(1), Some(1)));
        // Balanced (no core two below another): a second pass moves nothing.
        moved.clear();
        s.balance(&sys.view(), &mut moved);
        assert!(moved.is_empty());
    }

    /// A difference of one is left alone: nr 2 against 1 is not "at least two fewer".
    #[test]
    fn balance_leaves_a_difference_of_one() {
        let mut sys = System::new(2, 3);
        sys.running = vec![Some(0), Some(2)];
        let mut s = cfs(&[0, 0], 3, 1);
        s.enqueue(1, 0);
        let mut moved = Vec::new();
        s.balance(&sys.view(), &mut moved);
        assert!(moved.is_empty());
        assert_eq!(queue(&s, 0), vec![1]);
    }

    /// vruntime advances by run time × 1024 / weight (integer division): nice 0 (weight 1024)
    /// by the run time, nice 5 (weight 335, Linux's sched_prio_to_weight) by 3 ms × 1024 / 335
    /// = 9,170,149 ns. A policy's weight replaces it from the next charge; None restores the
    /// nice weight.
    #[test]
    fn vruntime_advances_by_run_time_over_weight() {
        let mut s = Cfs::new(vec![0], SLICE_NS, 1);
        s.add_thread(0, 0);
        s.add_thread(1, 5);
        assert_eq!((s.weight(0), s.weight(1)), (1024, 335));
        s.charge(0, 0, 3_000_000);
        s.charge(1, 0, 3_000_000);
        assert_eq!(s.threads[0].vruntime, 3_000_000);
        assert_eq!(s.threads[1].vruntime, 9_170_149);
        s.set_weight(0, Some(2048));
        s.charge(0, 0, 1_000_000);
        assert_eq!(s.threads[0].vruntime, 3_500_000);
        s.set_weight(0, None);
        assert_eq!(s.weight(0), 1024);
    }

    /// The queue's floor follows the smallest of the running and queued vruntimes, and a thread
    /// that comes back is placed by its lag from the floor, with at most one slice of sleeper
    /// credit.
    #[test]
    fn a_returning_thread_gets_at_most_one_slice_of_credit() {
        let sys = System::new(1, 2);
        let mut s = Cfs::new(vec![0], SLICE_NS, 1);
        s.add_thread(0, 0);
        s.add_thread(1, 0);
        // Thread 1 runs 20 ms alone: the floor follows it to 20 ms.
        s.charge(1, 0, 20_000_000);
        assert_eq!(s.queues[0].min_vruntime, 20_000_000);
        s.put_prev(1, 0);
        // Thread 0 (vruntime 0, lag 0 since it has not run) joins at the floor: 20 ms.
        s.enqueue(0, 0);
        assert_eq!(s.threads[0].vruntime, 20_000_000);
        assert_eq!(s.pick_next(&sys.view(), 0), Some(0));
        // Thread 0 now runs 30 ms: the floor is 50 ms.
        s.charge(0, 0, 30_000_000);
        s.put_prev(0, 0);
        assert_eq!(s.queues[0].min_vruntime, 50_000_000);
        // A thread 30 ms behind the floor (written in; a thread pulled from a queue whose floor
        // lags this one's gets such a lag when it leaves the core) is placed only one slice,
        // 4 ms, before it.
        s.threads[1].lag = -30_000_000;
        s.enqueue(1, 0);
        assert_eq!(s.threads[1].vruntime, 50_000_000 - SLICE_NS);
    }

    /// A running thread yields at its slice end only when others are queued on its core; a
    /// policy's slice replaces the default until it is withdrawn.
    #[test]
    fn slices_and_yielding() {
        let mut s = cfs(&[0, 0], 2, 1);
        assert!(!s.yields_at_slice_end(0));
        s.enqueue(1, 0);
        assert!(s.yields_at_slice_end(0));
        assert!(!s.yields_at_slice_end(1));
        assert_eq!(s.slice_ns(0), SLICE_NS);
        s.set_slice(0, Some(1_000_000));
        assert_eq!((s.slice_ns(0), s.slice_ns(1)), (1_000_000, SLICE_NS));
        s.set_slice(0, None);
        assert_eq!(s.slice_ns(0), SLICE_NS);
    }
}
