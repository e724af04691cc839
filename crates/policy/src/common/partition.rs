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
//! kept up to date from the view's `changed` list, ordered by the policy's `Claim` on a faster
//! core, so a call costs O(changes) and a move O(log threads) once the claims set since the
//! last move are filed (but see `Claim::FALLS_UNSEEN` for a move down).
//!
//! Topology-aware targets (`Partitions::with_topology`): the Sáez thesis's chapter-5 and -6
//! schedulers are "topology-aware" (§5.2.4, footnote 7; §6.2.3): "a scheduler will try to
//! migrate a thread to a fast core that is within the same memory domain as the slow core where
//! the thread was previously running" (§2.2.3), and they "avoid cross-domain migrations when
//! possible". The thesis does not give the target-core algorithm; ours: a thread moved up to a
//! faster partition whose cores lie in several LLC domains gets as its affinity that
//! partition's cores in one domain, the one on its memory (home) node first, then its last
//! core's LLC domain, while that domain has a core free for it now (idle, or left by a thread
//! this call moves away) and no more threads are kept there than it has cores of the partition
//! (the balance allows); otherwise, or with no such domain, the whole partition as before. A
//! move down gets the whole slower partition: the thesis words the preference for the fast
//! core a thread moves to, the local scheduler already prefers the last core's LLC among
//! equally loaded cores, and a slow domain kept would strand threads there when they wake
//! while other chips' slow cores idle. A thread's home
//! node is the view's `home_node` (what Linux reports of its pages in numa_maps), else its last
//! core's node.

use ampsched_model::{CoreSet, Machine, Placement, SystemView, ThreadId, ThreadState, ThreadView};

use crate::options::{OptionInfo, OptionKind};

use super::changes::Changes;
use super::filing::Filing;
use super::per_thread::PerThread;

/// The option of the topology-aware policies that turns `Partitions::with_topology` on (the
/// default) or off (every move targets a whole partition, the former behaviour, for comparison).
pub const PREFER_LOCAL_OPTION: OptionInfo = OptionInfo {
    name: "prefer_local",
    kind: OptionKind::Flag(true),
    doc: "topology-aware targets: a moved thread keeps to its memory node and LLC domain where its new partition \
          has a core there for it (Sáez thesis, §5.2.4 footnote 7, §6.2.3); false targets the whole partition",
};

/// The cores of one partition in one LLC domain: a topology-aware move's target.
#[derive(Debug, Clone)]
struct Domain {
    cores: CoreSet,
    llc: usize,
    node: usize,
}

/// A partition's index: 0 is the fastest.
pub type Level = usize;
pub const FAST: Level = 0;

/// A thread's claim on a faster partition, as a policy ranks threads for one-way moves: `Up`
/// takes the highest claim of the slower partition, `Down` the lowest of the faster one, ties
/// to the lowest id either way. The policy sets each thread's claim (`Partitions::set_claim`)
/// when it changes; a thread never set claims `Default`.
pub trait Claim: Ord + Copy + Default + std::fmt::Debug {
    /// The claim can fall between two settings without the policy seeing it (busyfcs's: a
    /// thread's fast-core time grows while it runs on a fast core): what `Partitions` holds is
    /// then an upper bound, and a move reads the claims now (`keep_fast_busy`'s `now`), `Up` only
    /// as far as the bounds leave a doubt, `Down` for the whole partition it leaves.
    const FALLS_UNSEEN: bool = false;
}

/// No ranking: moves take the lowest id.
impl Claim for () {}

/// Which way a one-way move goes: `Up` to a faster partition, `Down` to a slower one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    Up,
    Down,
}

#[derive(Debug, Clone)]
pub struct Partitions<C: Claim = ()> {
    levels: Vec<CoreSet>,
    /// The runnable threads counted in each partition (a set per partition), by claim as filed.
    runnable: Filing<C>,
    /// Each thread's claim, as last set.
    claim: PerThread<C>,
    /// Filed threads whose claim was set since: refiled at the next move only, so that a policy
    /// setting claims often (rr, every quantum for what ran) pays once per thread between moves,
    /// and nothing while no move is needed.
    unfiled: Vec<ThreadId>,
    is_unfiled: PerThread<bool>,
    /// Each thread's partition: from its affinity in the view, or this call's decision. None
    /// while its affinity spans partitions (a thread no decision has placed yet).
    level_of: PerThread<Option<Level>>,
    /// The view call these were last brought up to date with.
    synced_call: u64,
    /// The policy's calls, for `begin`'s list of threads to look at again.
    changes: Changes,
    /// Per partition, its cores by LLC domain: empty where targets are not topology-aware
    /// (the preference is off, or the partition lies in one domain).
    domains: Vec<Vec<Domain>>,
    /// Each core's LLC domain and memory node.
    llc_of: Vec<usize>,
    node_of: Vec<usize>,
    /// The machine has several memory nodes: only then is a node a reason to keep a thread.
    numa: bool,
    /// Each thread's domain (index in its partition's `domains`) while its affinity is one.
    domain_of: PerThread<Option<usize>>,
    /// The (partition, domain) each runnable thread kept to a domain is counted in (`held`).
    counted: PerThread<Option<(Level, usize)>>,
    /// Runnable threads kept to each partition's domain.
    held: Vec<Vec<usize>>,
}

impl<C: Claim> Partitions<C> {
    /// Partitions whose moves target a whole partition (the thesis's chapter-4 policies).
    pub fn new(m: &Machine) -> Self {
        Self::with_topology(m, false)
    }

    /// Partitions whose moves keep a thread on its node and LLC domain where the balance
    /// allows, if `prefer_local` (the module's "Topology-aware targets").
    pub fn with_topology(m: &Machine, prefer_local: bool) -> Self {
        let levels: Vec<CoreSet> = m.capacity_levels().into_iter().map(|(_, cores)| cores).collect();
        let runnable = Filing::new(levels.len());
        let domains: Vec<Vec<Domain>> = levels
            .iter()
            .map(|level| {
                let split: Vec<Domain> = m
                    .llcs
                    .iter()
                    .enumerate()
                    .filter_map(|(llc, l)| {
                        let cores = l.cores.intersection(level);
                        let node = m.cores[cores.first()?].node;
                        Some(Domain { cores, llc, node })
                    })
                    .collect();
                if prefer_local && split.len() > 1 {
                    split
                } else {
                    Vec::new()
                }
            })
            .collect();
        let held = domains.iter().map(|d| vec![0; d.len()]).collect();
        Partitions {
            levels,
            runnable,
            claim: PerThread::new(),
            unfiled: Vec::new(),
            is_unfiled: PerThread::new(),
            level_of: PerThread::new(),
            synced_call: 0,
            changes: Changes::default(),
            domains,
            llc_of: m.cores.iter().map(|c| c.llc).collect(),
            node_of: m.cores.iter().map(|c| c.node).collect(),
            numa: m.numa_nodes > 1,
            domain_of: PerThread::new(),
            counted: PerThread::new(),
            held,
        }
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

    /// Runnable threads in partition `level`, in no particular order.
    pub fn runnable_in(&self, level: Level) -> impl Iterator<Item = ThreadId> + '_ {
        self.runnable.set(level).iter().map(|&(_, t)| t)
    }

    /// Thread `t`'s claim as last set.
    pub fn claim(&self, t: ThreadId) -> C {
        self.claim.value(t)
    }

    /// Thread `t`'s claim is now `c`.
    pub fn set_claim(&mut self, t: ThreadId, c: C) {
        self.claim.set(t, c);
        if self.runnable.filed(t).is_some() && !std::mem::replace(self.is_unfiled.get_mut(t), true) {
            self.unfiled.push(t);
        }
    }

    fn file_claims(&mut self) {
        for t in std::mem::take(&mut self.unfiled) {
            *self.is_unfiled.get_mut(t) = false;
            self.recount(t, self.runnable.filed(t).map(|(l, _)| l));
        }
    }

    /// Number of runnable threads in partition `level`.
    pub fn load(&self, level: Level) -> usize {
        self.runnable.set(level).len()
    }

    /// The start of each call of a policy that partitions the cores: brings the partitions up
    /// to date with the view and gives the threads the policy must look at again in this call
    /// (`Changes::since_last`: the changed ones, or every live one after a missed call). None on
    /// a machine of one capacity, where such a policy has nothing to decide. Once per call.
    pub fn begin<'a>(&mut self, view: &SystemView<'a>) -> Option<&'a [ThreadId]> {
        debug_assert!(!self.changes.asked(view), "Partitions::begin twice in call {}", view.call);
        self.sync(view);
        let changed = self.changes.since_last(view);
        self.asymmetric().then_some(changed)
    }

    /// Bring the partitions up to date with the view: the threads that changed since the last
    /// call, or every live thread if a call was missed.
    fn sync(&mut self, view: &SystemView) {
        if view.call == self.synced_call {
            return;
        }
        if view.call == self.synced_call + 1 {
            for &t in view.changed {
                self.refresh(view.thread(t));
            }
        } else {
            self.runnable.clear();
            self.level_of = PerThread::new();
            self.counted = PerThread::new();
            self.held.iter_mut().flatten().for_each(|n| *n = 0);
            for t in view.live_threads() {
                self.refresh(t);
            }
        }
        self.synced_call = view.call;
    }

    fn refresh(&mut self, v: &ThreadView) {
        let level = if v.state == ThreadState::Exited { None } else { self.level_of_cores(&v.allowed) };
        self.level_of.set(v.id, level);
        let domain = level.and_then(|l| self.domains[l].iter().position(|d| d.cores == v.allowed));
        self.domain_of.set(v.id, domain);
        self.recount(v.id, if v.state.is_runnable() { level } else { None });
    }

    /// Count thread `t` as runnable in `level` (or nowhere), filed under its claim now, and in
    /// its domain there if it is kept to one.
    fn recount(&mut self, t: ThreadId, level: Option<Level>) {
        self.runnable.file(t, level.map(|l| (l, self.claim.value(t))));
        let now = level.zip(self.domain_of.value(t));
        let was = self.counted.value(t);
        if now != was {
            if let Some((l, d)) = was {
                self.held[l][d] -= 1;
            }
            if let Some((l, d)) = now {
                self.held[l][d] += 1;
            }
            self.counted.set(t, now);
        }
    }

    /// Thread `t` no longer counts in the domain it is kept to (it is about to be moved).
    fn leave_domain(&mut self, t: ThreadId) {
        if let Some((l, d)) = self.counted.value(t) {
            self.held[l][d] -= 1;
            self.counted.set(t, None);
        }
        self.domain_of.set(t, None);
    }

    /// The domain of partition `level` a thread `t` moved there keeps to, if any: one with a
    /// core of the partition not held by another thread kept there, on `t`'s home node or in
    /// its last core's LLC domain (home node first: remote memory costs every miss while the
    /// thread stays, a refill only once), ties to the lowest index.
    fn target_domain(&self, view: &SystemView, t: ThreadId, from: Option<Level>, level: Level) -> Option<usize> {
        let doms = &self.domains[level];
        if doms.is_empty() || from.is_none_or(|f| f <= level) {
            return None;
        }
        // A core of the domain is free for `t` if nothing else is queued there and what runs
        // there is `t` or a thread this call has moved to another partition.
        let free = |c: usize| {
            let cv = &view.cores[c];
            let leaving = cv.running.is_some_and(|r| r == t || self.level(r) != Some(level));
            cv.nr_running <= u32::from(leaving)
        };
        let v = view.thread(t);
        let last = v.core;
        let home = if self.numa { v.home_node.or(last.map(|c| self.node_of[c])) } else { None };
        let last_llc = last.map(|c| self.llc_of[c]);
        let own = self.counted.value(t);
        doms.iter()
            .enumerate()
            .filter(|&(d, dom)| self.held[level][d] - usize::from(own == Some((level, d))) < dom.cores.len())
            .filter(|(_, dom)| dom.cores.iter().any(free))
            .filter(|(_, dom)| Some(dom.node) == home || Some(dom.llc) == last_llc)
            .min_by_key(|&(d, dom)| (Some(dom.node) != home, Some(dom.llc) != last_llc, d))
            .map(|(d, _)| d)
    }

    /// Put thread `t` in partition `level`.
    pub fn assign(&mut self, view: &SystemView, t: ThreadId, level: Level, out: &mut Placement) {
        self.sync(view);
        if self.level(t) == Some(level) {
            return;
        }
        let from = self.level(t);
        self.level_of.set(t, Some(level));
        let domain = self.target_domain(view, t, from, level);
        self.leave_domain(t);
        self.domain_of.set(t, domain);
        out.set(t, domain.map_or_else(|| self.cores(level).clone(), |d| self.domains[level][d].cores.clone()));
        if view.thread(t).state.is_runnable() {
            self.recount(t, Some(level));
        }
    }

    /// Exchange the partitions of two threads (a swap keeps the partitions' loads unchanged).
    /// Each leaves its domain first, so that with topology-aware targets each may take the
    /// other's place: a swap within a chip stays there.
    pub fn swap(&mut self, view: &SystemView, a: ThreadId, b: ThreadId, out: &mut Placement) {
        self.sync(view);
        if let (Some(la), Some(lb)) = (self.level(a), self.level(b)) {
            if la != lb {
                self.leave_domain(a);
                self.leave_domain(b);
            }
            self.assign(view, a, lb, out);
            self.assign(view, b, la, out);
        }
    }

    /// Thesis §2.3 initial placement: the partition with the lowest scaled load
    /// ⌊runnable / (⌊P⌋ × cores)⌋, ties to the faster. ⌊P⌋ = 1 for every machine the thesis
    /// used (fast/slow ratio ≤ 2), and we keep it so: a fast core takes no more threads than a slow one.
    pub fn place_new(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        self.sync(view);
        let own = self.runnable.filed(t).map(|(l, _)| l);
        let scaled = |l: Level| (self.load(l) - (own == Some(l)) as usize) / self.ncores(l);
        let level = (0..self.levels()).min_by_key(|&l| (scaled(l), l)).unwrap_or(FAST);
        self.assign(view, t, level, out);
    }

    /// Whether moving runnable thread `t` alone to partition `to` leaves the machine balanced
    /// (Sáez thesis §2.3): scaled loads ⌊runnable / (⌊P⌋ × cores)⌋ (⌊P⌋ = 1, as in `place_new`)
    /// within one of each other, the fastest partition's at least every other's; and, our
    /// reading of the floors' intent, no state `keep_fast_busy` would undo at once (a faster core
    /// idle while a slower partition has runnable threads, or a faster partition over its cores
    /// while a slower one has an idle core), which would only bounce threads between partitions.
    pub fn move_keeps_balance(&self, t: ThreadId, to: Level) -> bool {
        let from = self.runnable.filed(t).map(|(l, _)| l);
        let n: Vec<usize> = (0..self.levels()).map(|l| self.load(l) + (l == to && from != Some(to)) as usize - (from == Some(l) && l != to) as usize).collect();
        let scaled: Vec<usize> = (0..self.levels()).map(|l| n[l] / self.ncores(l)).collect();
        let (lo, hi) = (scaled.iter().min(), scaled.iter().max());
        if hi.zip(lo).is_some_and(|(h, l)| h - l > 1) || scaled.iter().skip(1).any(|&l| l > scaled[FAST]) {
            return false;
        }
        (0..self.levels()).all(|f| {
            (f + 1..self.levels()).all(|s| {
                let idle_fast = n[f] < self.ncores(f) && n[s] > 0;
                let overflow = n[f] > self.ncores(f) && n[s] < self.ncores(s);
                !idle_fast && !overflow
            })
        })
    }

    /// Swap runnable thread `t` with the runnable thread of the next faster partition with the
    /// lowest claim while `t`'s claim is higher, or with that of the next slower partition with
    /// the highest claim while `t`'s is lower (ties: no swap). Sáez thesis, Algorithm 4.2 (HASS-D)
    /// and the swap partner of Algorithm 4.1's optimistic rebinding (HASS-S): with the
    /// runnable threads of each partition ordered by claim, the partner is a lookup. A swap keeps
    /// every partition's load, so the §2.3 balance holds. On two partitions: afterwards no
    /// runnable slow thread claims more than `t` on a fast core, or than `t` has if it is slow
    /// and a fast thread claims less. Returns how many swaps were made.
    pub fn exchange(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) -> usize {
        self.exchange_while(view, t, out, |a, b| a > b)
    }

    /// `exchange` where a claim `a` must beat `b` (`beats(a, b)`) for a swap: a coarser order
    /// than the claims' own, which it must agree with (if a claim beats another, it is also
    /// higher). CAMP swaps on utility classes while its claims also order threads within a class.
    pub fn exchange_while(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement, beats: impl Fn(&C, &C) -> bool) -> usize {
        self.sync(view);
        self.file_claims();
        let mut swaps = 0;
        while let Some((level, _)) = self.runnable.filed(t) {
            let mine = self.claim(t);
            let up = (level > FAST).then(|| self.runnable.set(level - 1).first().copied()).flatten().filter(|(c, _)| beats(&mine, c));
            let down = (level + 1 < self.levels()).then(|| self.top(level + 1)).flatten().filter(|(c, _)| beats(c, &mine));
            let Some((claim, partner)) = up.or(down) else { break };
            let other = if up.is_some() { level - 1 } else { level + 1 };
            let partner = self.near_tie(view, t, other, claim).unwrap_or(partner);
            self.swap(view, t, partner, out);
            swaps += 1;
        }
        swaps
    }

    /// Swap the strongest claims up, one pair at a time: the runnable thread of highest claim
    /// of a slower partition with the runnable thread of lowest claim of the next faster one,
    /// while `wanted(slower's claim, faster's claim)`; `moved(t, level)` is thread `t`'s claim in
    /// its new partition `level` (a policy resets what it keeps per side). Sáez thesis, §5.1.1:
    /// PA and MinTLP pair the top of their slow-to-fast list with the top of their fast-to-slow
    /// list, and a swap keeps every partition's load, so the §2.3 balance holds. Only a higher
    /// claim moves up (`wanted` is asked only when `slower > faster`). On more than two
    /// partitions the neighbouring pairs are visited again until none swaps, so a claim climbs
    /// as far as it beats; the swaps are bounded by runnable threads × partitions in case
    /// `moved` raises claims. Returns how many swaps were made.
    pub fn swap_up_while(
        &mut self,
        view: &SystemView,
        out: &mut Placement,
        wanted: impl Fn(C, C) -> bool,
        mut moved: impl FnMut(ThreadId, Level) -> C,
    ) -> usize {
        self.sync(view);
        let bound = (0..self.levels()).map(|l| self.load(l)).sum::<usize>() * self.levels();
        let mut swaps = 0;
        loop {
            let before = swaps;
            for fast in 0..self.levels().saturating_sub(1) {
                while swaps < bound {
                    self.file_claims();
                    let (Some((up_claim, up)), Some(&(down_claim, down))) = (self.top(fast + 1), self.runnable.set(fast).first()) else { break };
                    if up_claim <= down_claim || !wanted(up_claim, down_claim) {
                        break;
                    }
                    let down = self.near_tie(view, up, fast, down_claim).unwrap_or(down);
                    self.swap(view, up, down, out);
                    let (cu, cd) = (moved(up, fast), moved(down, fast + 1));
                    self.set_claim(up, cu);
                    self.set_claim(down, cd);
                    swaps += 1;
                }
            }
            if swaps == before || swaps >= bound {
                return swaps;
            }
        }
    }

    /// While a partition has more runnable threads than cores and they do not all claim alike,
    /// move its thread of lowest claim to the next slower partition, if that keeps the machine
    /// balanced (`move_keeps_balance`). The §2.3 placement ties new threads to the faster
    /// partition, so a thread of low claim can share a fast core with one of high claim while
    /// the slow partition could take it: PA's rule 1 (ST and MP before HP, Sáez thesis §5.1.1)
    /// and MinTLP's "threads that do not fit stay on slow cores" (§5.1.1) want it down, and a
    /// swap cannot do it (no slow thread claims more). Returns how many moved.
    pub fn shed_weaker(&mut self, view: &SystemView, out: &mut Placement) -> usize {
        self.sync(view);
        let mut moved = 0;
        for level in 0..self.levels().saturating_sub(1) {
            while self.load(level) > self.ncores(level) {
                self.file_claims();
                let (Some(&(weak, t)), Some((strong, _))) = (self.runnable.set(level).first(), self.top(level)) else { break };
                if weak >= strong || !self.move_keeps_balance(t, level + 1) {
                    break;
                }
                self.assign(view, t, level + 1, out);
                moved += 1;
            }
        }
        moved
    }

    /// With topology-aware targets, the swap partner for thread `t` among the runnable threads
    /// of partition `level` that claim `claim` (a tie, any of which the swap could take): one
    /// whose core is on `t`'s home node, else in its last core's LLC domain, so that each of
    /// the two takes the other's place on one chip (the thesis's swaps within a memory domain,
    /// §2.2.3, §6.2.3); ties to the lowest id. None when targets are not topology-aware, or no
    /// tied thread is near `t`.
    fn near_tie(&self, view: &SystemView, t: ThreadId, level: Level, claim: C) -> Option<ThreadId> {
        if self.domains[level].is_empty() {
            return None;
        }
        let v = view.thread(t);
        let last = v.core?;
        let home = v.home_node.unwrap_or(self.node_of[last]);
        let near = |x: ThreadId| {
            let c = view.thread(x).core?;
            let key = (!self.numa || self.node_of[c] != home, self.llc_of[c] != self.llc_of[last]);
            (key != (true, true)).then_some((key, x))
        };
        self.runnable.set(level).range((claim, 0)..=(claim, ThreadId::MAX)).filter_map(|&(_, x)| near(x)).min().map(|(_, x)| x)
    }

    /// With topology-aware targets, the thread a move up from partition `from` takes among those
    /// tied at `claim` (the highest there): one on the node, else in the LLC domain, of a core
    /// of partition `to` that is idle now and not held by a thread kept there, so the move stays
    /// on its chip (an idle fast core takes a thread of its own chip, the thesis's migrations
    /// within a memory domain, §2.2.3); ties to the lowest id. None when targets are not
    /// topology-aware, the claims can fall unseen (the tie is not known), or no tied thread is
    /// near such a core.
    fn near_free(&self, view: &SystemView, from: Level, to: Level, claim: C) -> Option<ThreadId> {
        if self.domains[to].is_empty() || C::FALLS_UNSEEN {
            return None;
        }
        let idle = |d: usize, dom: &Domain| self.held[to][d] < dom.cores.len() && dom.cores.iter().any(|c| view.cores[c].nr_running == 0);
        let open: Vec<&Domain> = self.domains[to].iter().enumerate().filter(|&(d, dom)| idle(d, dom)).map(|(_, dom)| dom).collect();
        if open.is_empty() {
            return None;
        }
        let near = |x: ThreadId| {
            let v = view.thread(x);
            let Some(c) = v.core else { return false };
            let home = v.home_node.unwrap_or(self.node_of[c]);
            open.iter().any(|dom| (self.numa && dom.node == home) || dom.llc == self.llc_of[c])
        };
        self.runnable.set(from).range((claim, 0)..=(claim, ThreadId::MAX)).map(|&(_, x)| x).find(|&x| near(x))
    }

    /// The (claim, thread) of highest claim in partition `level`, ties to the lowest id.
    fn top(&self, level: Level) -> Option<(C, ThreadId)> {
        let set = self.runnable.set(level);
        let &(top, _) = set.last()?;
        set.range((top, 0)..).next().copied()
    }

    /// Keep faster cores busy and the machine balanced, with one-way moves. Up: while a
    /// partition has fewer runnable threads than cores and a slower one has runnable threads,
    /// the thread of highest claim moves up from the nearest such slower partition. Down: while
    /// a partition has more runnable threads than cores and a slower one has fewer, its thread of
    /// lowest claim moves down to the nearest such. On two partitions: never a fast core idle
    /// while a slow-partition thread is runnable; the fast overflow goes to idle slow cores.
    /// `now` is a thread's claim at this moment: read only for a claim that `FALLS_UNSEEN`, and
    /// otherwise (in debug builds) checked against what was set.
    /// With topology-aware targets, a thread that woke in a domain that other threads filled
    /// while it slept first gets its whole partition back (`widen_crowded`).
    pub fn keep_fast_busy(&mut self, view: &SystemView, out: &mut Placement, now: impl Fn(&ThreadView) -> C) {
        self.sync(view);
        if !self.asymmetric() {
            return;
        }
        self.widen_crowded(view, out);
        let n = self.levels();
        for to in 0..n - 1 {
            while self.load(to) < self.ncores(to) {
                let Some(from) = (to + 1..n).find(|&l| self.load(l) > 0) else { break };
                let t = self.pick_from(view, from, Move::Up, &now);
                let t = self.near_free(view, from, to, self.claim(t)).unwrap_or(t);
                self.assign(view, t, to, out);
            }
        }
        for from in 0..n - 1 {
            while self.load(from) > self.ncores(from) {
                let Some(to) = (from + 1..n).find(|&l| self.load(l) < self.ncores(l)) else { break };
                let t = self.pick_from(view, from, Move::Down, &now);
                self.assign(view, t, to, out);
            }
        }
    }

    /// A runnable thread kept to a domain that holds more runnable threads kept there than it
    /// has cores (one woke after others were kept there while it slept), or that waits for a
    /// core of its domain while another core of its partition idles, gets its whole partition,
    /// so the local scheduler can balance it as any other. Looks at the threads
    /// changed since the last call only: a domain fills only by moves (which check it) or wakes.
    fn widen_crowded(&mut self, view: &SystemView, out: &mut Placement) {
        let idle = |c: usize| view.cores[c].nr_running == 0;
        for &t in view.changed {
            let Some((l, d)) = self.counted.value(t) else { continue };
            // Or it waits for a core of its domain while another of its partition idles.
            let stuck = view.thread(t).state == ThreadState::Ready && !self.domains[l][d].cores.iter().any(idle) && self.cores(l).iter().any(idle);
            if stuck || self.held[l][d] > self.domains[l][d].cores.len() {
                self.leave_domain(t);
                out.set(t, self.cores(l).clone());
            }
        }
    }

    /// The thread a move takes from partition `from` (which has one): see `keep_fast_busy`.
    fn pick_from(&mut self, view: &SystemView, from: Level, dir: Move, now: &impl Fn(&ThreadView) -> C) -> ThreadId {
        self.file_claims();
        debug_assert!(C::FALLS_UNSEEN || self.runnable_in(from).all(|t| now(view.thread(t)) == self.claim(t)), "a claim changed unset");
        match dir {
            Move::Up if C::FALLS_UNSEEN => loop {
                // Every claim held is at least the claim now: once the highest held is also the
                // claim now, no other thread's can be higher (nor equal with a lower id).
                let t = self.highest(from);
                let c = now(view.thread(t));
                if c == self.claim(t) {
                    return t;
                }
                self.set_claim(t, c);
                self.file_claims();
            },
            Move::Up => self.highest(from),
            Move::Down if C::FALLS_UNSEEN => {
                let ts = self.runnable.set(from).iter().map(|&(_, t)| t);
                ts.min_by_key(|&t| (now(view.thread(t)), t)).expect("a move takes from a partition with runnable threads")
            }
            Move::Down => self.runnable.set(from).first().expect("a move takes from a partition with runnable threads").1,
        }
    }

    /// The thread of highest claim in partition `level`, ties to the lowest id.
    fn highest(&self, level: Level) -> ThreadId {
        let set = self.runnable.set(level);
        let &(top, _) = set.last().expect("a move takes from a partition with runnable threads");
        set.range((top, 0)..).next().expect("the highest claim is held").1
    }
}
