//! Core partitions, shared by the asymmetry-aware policies.
//!
//! Sáez thesis, §2.3 ("core partitions"): the scheduler assigns threads to partitions of
//! same-type cores, not to cores; the local scheduler balances inside a partition. We use one
//! fast partition (the highest-capacity cores) and one slow partition (all others), as the
//! thesis's evaluation did. A thread's partition is its affinity.

use ampsched_model::{CoreSet, Machine, Placement, SystemView, ThreadId, ThreadView};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Fast,
    Slow,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Fast => Side::Slow,
            Side::Slow => Side::Fast,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Partitions {
    pub fast: CoreSet,
    pub slow: CoreSet,
    side: Vec<Option<Side>>,
}

impl Partitions {
    pub fn new(m: &Machine) -> Self {
        Partitions { fast: m.fast_cores(), slow: m.slow_cores(), side: Vec::new() }
    }

    /// True when the machine has both fast and slow cores (the thesis's asymmetric mode).
    pub fn asymmetric(&self) -> bool {
        !self.slow.is_empty()
    }

    pub fn cores(&self, side: Side) -> CoreSet {
        match side {
            Side::Fast => self.fast,
            Side::Slow => self.slow,
        }
    }

    pub fn ncores(&self, side: Side) -> usize {
        self.cores(side).len()
    }

    pub fn side(&self, t: ThreadId) -> Option<Side> {
        self.side.get(t as usize).copied().flatten()
    }

    /// Put thread `t` in partition `side`.
    pub fn assign(&mut self, t: ThreadId, side: Side, out: &mut Placement) {
        if self.side.len() <= t as usize {
            self.side.resize(t as usize + 1, None);
        }
        if self.side[t as usize] != Some(side) {
            self.side[t as usize] = Some(side);
            out.set(t, self.cores(side));
        }
    }

    /// Exchange the partitions of two threads (a swap keeps the partitions' loads unchanged).
    pub fn swap(&mut self, a: ThreadId, b: ThreadId, out: &mut Placement) {
        let (sa, sb) = (self.side(a), self.side(b));
        if let (Some(sa), Some(sb)) = (sa, sb) {
            self.assign(a, sb, out);
            self.assign(b, sa, out);
        }
    }

    /// Runnable threads of the view in partition `side`.
    pub fn runnable<'a>(&self, view: &SystemView<'a>, side: Side) -> Vec<&'a ThreadView> {
        view.live_threads().filter(|t| t.state.is_runnable() && self.side(t.id) == Some(side)).collect()
    }

    pub fn load(&self, view: &SystemView, side: Side) -> usize {
        view.live_threads().filter(|t| t.state.is_runnable() && self.side(t.id) == Some(side)).count()
    }

    /// Thesis §2.3 initial placement: the partition with the lowest scaled load
    /// ⌊runnable / (⌊P⌋ × cores)⌋, ties to the fast partition. ⌊P⌋ = 1 for every machine the thesis
    /// used (fast/slow ratio ≤ 2), and we keep it so: a fast core takes no more threads than a slow one.
    pub fn place_new(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        if !self.asymmetric() {
            self.assign(t, Side::Fast, out);
            return;
        }
        let scaled = |side: Side| self.runnable(view, side).iter().filter(|u| u.id != t).count() / self.ncores(side);
        let side = if scaled(Side::Fast) <= scaled(Side::Slow) { Side::Fast } else { Side::Slow };
        self.assign(t, side, out);
    }

    /// Keep fast cores busy and the machine balanced, with one-way migrations:
    /// while a fast core would idle and a slow-partition thread is runnable, move the one `pick`
    /// prefers to the fast partition; while the fast partition has more runnable threads than
    /// cores and a slow core would idle, move the one `pick` prefers to the slow partition.
    pub fn keep_fast_busy(
        &mut self,
        view: &SystemView,
        out: &mut Placement,
        mut pick: impl FnMut(&[&ThreadView], Side) -> ThreadId,
    ) {
        if !self.asymmetric() {
            return;
        }
        for from in [Side::Slow, Side::Fast] {
            let to = from.other();
            loop {
                let on_from = self.runnable(view, from);
                let on_to = self.load(view, to);
                let room = on_to < self.ncores(to);
                // Into fast: whenever a fast core is free. Into slow: only the fast overflow.
                let movable = match from {
                    Side::Slow => room && !on_from.is_empty(),
                    Side::Fast => room && on_from.len() > self.ncores(from),
                };
                if !movable {
                    break;
                }
                let t = pick(&on_from, from);
                self.assign(t, to, out);
            }
        }
    }
}

/// Fast-core time of a thread, ns.
pub fn fast_time_ns(view: &SystemView, t: &ThreadView) -> u64 {
    let m = view.machine;
    let fast = m.core_types[m.fastest_type()].capacity;
    m.core_types.iter().zip(t.per_type.iter()).filter(|(ty, _)| ty.capacity == fast).map(|(_, c)| c.time_ns).sum()
}
