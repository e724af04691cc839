//! Core partitions, shared by the asymmetry-aware policies.
//!
//! Sáez thesis, §2.3 ("core partitions"): the scheduler assigns threads to partitions of
//! same-type cores, not to cores; the local scheduler balances inside a partition. There is one
//! partition per capacity level of the machine, fastest first (`Machine::capacity_levels`): two
//! on every machine the thesis used, the fast cores (FC) and the slow cores (SC).
//!
//! A thread's partition is read from its affinity in the view, which is what the simulator or
//! the agent really applied: a refused affinity shows as such. Decisions made during a call
//! are overlaid until the next view shows them. The runnable threads of each partition are
//! kept up to date from the view's `changed` list, so a call costs O(changes), and a move
//! O(runnable threads of the partition it takes from).

use std::collections::BTreeSet;

use ampsched_model::{CoreSet, Machine, Placement, SystemView, ThreadId, ThreadState, ThreadView};

use super::per_thread::PerThread;

/// A partition's index: 0 is the fastest.
pub type Level = usize;
pub const FAST: Level = 0;

/// Which way a one-way move goes: `Up` to a faster partition, `Down` to a slower one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    Up,
    Down,
}

#[derive(Debug, Clone)]
pub struct Partitions {
    levels: Vec<CoreSet>,
    /// The runnable threads counted in each partition.
    runnable: Vec<BTreeSet<ThreadId>>,
    /// Each thread's partition: from its affinity in the view, or this call's decision. None
    /// while its affinity spans partitions (a thread no decision has placed yet).
    level_of: PerThread<Option<Level>>,
    /// The partition a runnable thread is counted in.
    counted: PerThread<Option<Level>>,
    /// The view call these were last brought up to date with.
    synced_call: u64,
}

impl Partitions {
    pub fn new(m: &Machine) -> Self {
        let levels: Vec<CoreSet> = m.capacity_levels().into_iter().map(|(_, cores)| cores).collect();
        let runnable = vec![BTreeSet::new(); levels.len()];
        Partitions { levels, runnable, level_of: PerThread::new(), counted: PerThread::new(), synced_call: 0 }
    }

    /// True when the machine has cores of more than one capacity (the thesis's asymmetric mode).
    pub fn asymmetric(&self) -> bool {
        self.levels.len() > 1
    }

    pub fn levels(&self) -> usize {
        self.levels.len()
    }

    pub fn cores(&self, level: Level) -> &CoreSet {
        &self.levels[level]
    }

    pub fn ncores(&self, level: Level) -> usize {
        self.levels[level].len()
    }

    /// The partition that holds every core of `cores`, if one does.
    pub fn level_of_cores(&self, cores: &CoreSet) -> Option<Level> {
        if cores.is_empty() {
            return None;
        }
        self.levels.iter().position(|l| cores.is_subset(l))
    }

    /// Thread `t`'s partition (as of the last sync and this call's decisions).
    pub fn level(&self, t: ThreadId) -> Option<Level> {
        self.level_of.value(t)
    }

    /// Runnable threads in partition `level`, ascending id.
    pub fn runnable_in(&self, level: Level) -> impl Iterator<Item = ThreadId> + '_ {
        self.runnable[level].iter().copied()
    }

    /// Number of runnable threads in partition `level`.
    pub fn load(&self, level: Level) -> usize {
        self.runnable[level].len()
    }

    /// Bring the partitions up to date with the view: the threads that changed since the last
    /// call, or every live thread if a call was missed.
    pub fn sync(&mut self, view: &SystemView) {
        if view.call == self.synced_call {
            return;
        }
        if view.call == self.synced_call + 1 {
            for &t in view.changed {
                self.refresh(view.thread(t));
            }
        } else {
            self.runnable.iter_mut().for_each(BTreeSet::clear);
            self.level_of = PerThread::new();
            self.counted = PerThread::new();
            for t in view.live_threads() {
                self.refresh(t);
            }
        }
        self.synced_call = view.call;
    }

    fn refresh(&mut self, v: &ThreadView) {
        let level = if v.state == ThreadState::Exited { None } else { self.level_of_cores(&v.allowed) };
        self.level_of.set(v.id, level);
        self.recount(v.id, if v.state.is_runnable() { level } else { None });
    }

    fn recount(&mut self, t: ThreadId, level: Option<Level>) {
        let old = self.counted.value(t);
        if old != level {
            if let Some(o) = old {
                self.runnable[o].remove(&t);
            }
            if let Some(n) = level {
                self.runnable[n].insert(t);
            }
            self.counted.set(t, level);
        }
    }

    /// Put thread `t` in partition `level`.
    pub fn assign(&mut self, view: &SystemView, t: ThreadId, level: Level, out: &mut Placement) {
        self.sync(view);
        if self.level(t) == Some(level) {
            return;
        }
        self.level_of.set(t, Some(level));
        out.set(t, self.cores(level).clone());
        if view.thread(t).state.is_runnable() {
            self.recount(t, Some(level));
        }
    }

    /// Exchange the partitions of two threads (a swap keeps the partitions' loads unchanged).
    pub fn swap(&mut self, view: &SystemView, a: ThreadId, b: ThreadId, out: &mut Placement) {
        self.sync(view);
        if let (Some(la), Some(lb)) = (self.level(a), self.level(b)) {
            self.assign(view, a, lb, out);
            self.assign(view, b, la, out);
        }
    }

    /// Thesis §2.3 initial placement: the partition with the lowest scaled load
    /// ⌊runnable / (⌊P⌋ × cores)⌋, ties to the faster. ⌊P⌋ = 1 for every machine the thesis
    /// used (fast/slow ratio ≤ 2), and we keep it so: a fast core takes no more threads than a slow one.
    pub fn place_new(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        self.sync(view);
        let own = self.counted.value(t);
        let scaled = |l: Level| (self.load(l) - (own == Some(l)) as usize) / self.ncores(l);
        let level = (0..self.levels()).min_by_key(|&l| (scaled(l), l)).unwrap_or(FAST);
        self.assign(view, t, level, out);
    }

    /// Keep faster cores busy and the machine balanced, with one-way moves. Up: while a
    /// partition has fewer runnable threads than cores and a slower one has runnable threads,
    /// the thread `pick` prefers moves up from the nearest such slower partition. Down: while a
    /// partition has more runnable threads than cores and a slower one has fewer, the thread
    /// `pick` prefers moves down to the nearest such. On two partitions: never a fast core idle
    /// while a slow-partition thread is runnable; the fast overflow goes to idle slow cores.
    pub fn keep_fast_busy(&mut self, view: &SystemView, out: &mut Placement, mut pick: impl FnMut(&[&ThreadView], Move) -> ThreadId) {
        self.sync(view);
        if !self.asymmetric() {
            return;
        }
        let n = self.levels();
        for to in 0..n - 1 {
            while self.load(to) < self.ncores(to) {
                let Some(from) = (to + 1..n).find(|&l| self.load(l) > 0) else { break };
                let t = self.pick_from(view, from, Move::Up, &mut pick);
                self.assign(view, t, to, out);
            }
        }
        for from in 0..n - 1 {
            while self.load(from) > self.ncores(from) {
                let Some(to) = (from + 1..n).find(|&l| self.load(l) < self.ncores(l)) else { break };
                let t = self.pick_from(view, from, Move::Down, &mut pick);
                self.assign(view, t, to, out);
            }
        }
    }

    fn pick_from(&self, view: &SystemView, from: Level, dir: Move, pick: &mut impl FnMut(&[&ThreadView], Move) -> ThreadId) -> ThreadId {
        let candidates: Vec<&ThreadView> = self.runnable_in(from).map(|t| view.thread(t)).collect();
        pick(&candidates, dir)
    }
}
