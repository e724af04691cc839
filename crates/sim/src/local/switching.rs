//! What cluster switching (`cluster_switch`) and the in-kernel switcher (`iks`) share: the OS sees
//! one CPU per big/little pair of cores (the k-th big core with the k-th little one, by number),
//! and each pair runs on one of its two cores, its "active" core. Scheduling is CFS (`Cfs`) over
//! the active cores: every thread's allowed cores are mapped to their pairs' active cores, so
//! CFS's placement, pulls and balancing never touch an inactive core. At each balance (the
//! cpufreq governor's sample: the engine's balance period, 10 ms by default, ondemand's shortest
//! sampling rate) each pair's load is the busy fraction of the sample on either of its cores; the
//! switcher's rule (`Rule`) then says which pairs change cores, and a change moves the pair's
//! queue and running thread to the other core at once (the engine charges the migration:
//! its fixed cost and, across clusters, the refill of the other L2, as the kernel's switch moves
//! a CPU's context and lets the caches warm up). Idle pairs start on their little cores ("when
//! idle, run on LITTLE": the big.LITTLE paper, §III.A/B).

use ampsched_model::{CoreSet, Machine, SwitchParams};

use super::cfs::Cfs;
use super::{LocalScheduler, SchedView};

/// Which cores switch together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// All pairs at once, on the busiest pair's load (`cluster_switch`).
    Cluster,
    /// Each pair on its own load (`iks`).
    Pairs,
}

#[derive(Debug, Clone)]
pub struct Switcher {
    cfs: Cfs,
    p: SwitchParams,
    rule: Rule,
    /// Per pair: its big core and its little core.
    pairs: Vec<(usize, usize)>,
    pair_of: Vec<usize>,
    /// Per pair: whether it runs on its big core.
    on_big: Vec<bool>,
    now: u64,
    sample_start: u64,
    /// Per core: busy ns in the current sample before `run_since`, and since when it runs.
    busy: Vec<u64>,
    run_since: Vec<Option<u64>>,
    /// Per thread: its allowed cores mapped to the active cores (current for the threads CFS is
    /// about to read).
    narrowed: Vec<CoreSet>,
    /// Switches made, per pair.
    pub switches: u64,
}

impl Switcher {
    /// The switcher over `m`, which must have two core types with as many cores each (the
    /// paper: IKS "requires #LITTLE == #big"; cluster switching swaps equal clusters). `what`
    /// names the scheduler in the error.
    pub fn new(m: &Machine, p: SwitchParams, rule: Rule, slice_ns: u64, seed: u64, what: &str) -> Result<Switcher, String> {
        // Big as the OS's reported capacities say (the switcher is the OS's).
        let big: Vec<usize> = m.fast_cores().iter().collect();
        let little: Vec<usize> = (0..m.num_cores()).filter(|&c| !m.is_fast(c)).collect();
        if m.core_types.len() != 2 || big.len() != little.len() {
            let counts: Vec<String> = m.core_types.iter().map(|t| format!("{} {}", t.count, t.name)).collect();
            return Err(format!(
                "{what} needs a big.LITTLE machine with as many big as little cores (two core types), but '{}' has {}",
                m.name,
                counts.join(" + ")
            ));
        }
        let pairs: Vec<(usize, usize)> = big.into_iter().zip(little).collect();
        let mut pair_of = vec![0; m.num_cores()];
        for (i, &(b, l)) in pairs.iter().enumerate() {
            pair_of[b] = i;
            pair_of[l] = i;
        }
        let n = m.num_cores();
        Ok(Switcher {
            cfs: Cfs::new(m.cores.iter().map(|c| c.llc as u32).collect(), slice_ns, seed),
            p,
            rule,
            on_big: vec![false; pairs.len()],
            pairs,
            pair_of,
            now: 0,
            sample_start: 0,
            busy: vec![0; n],
            run_since: vec![None; n],
            narrowed: Vec::new(),
            switches: 0,
        })
    }

    fn active_of(&self, pair: usize) -> usize {
        let (b, l) = self.pairs[pair];
        if self.on_big[pair] {
            b
        } else {
            l
        }
    }

    /// Whether core `c` is its pair's active core.
    pub fn is_active(&self, c: usize) -> bool {
        self.active_of(self.pair_of[c]) == c
    }

    /// `allowed` seen through the pairs: the active core of each pair it names.
    fn map(&self, allowed: &CoreSet) -> CoreSet {
        CoreSet::from_cores(allowed.iter().map(|c| self.active_of(self.pair_of[c])))
    }

    fn narrow_queued(&mut self, sys: &SchedView) {
        for c in 0..self.busy.len() {
            for t in self.cfs.queued(c).collect::<Vec<_>>() {
                self.narrowed[t as usize] = self.map(sys.allowed(t));
            }
        }
    }

    /// Each pair's load over the sample that ends now, and a new sample started.
    fn sample(&mut self) -> Vec<f64> {
        let window = self.now.saturating_sub(self.sample_start).max(1) as f64;
        for c in 0..self.busy.len() {
            if let Some(since) = self.run_since[c] {
                self.busy[c] += self.now - since;
                self.run_since[c] = Some(self.now);
            }
        }
        let loads = self.pairs.iter().map(|&(b, l)| (self.busy[b] + self.busy[l]) as f64 / window).collect();
        self.busy.iter_mut().for_each(|b| *b = 0);
        self.sample_start = self.now;
        loads
    }

    /// Pair `i` changes cores: its queue and its running thread go to the other core.
    fn switch(&mut self, sys: &SchedView, i: usize, moved: &mut Vec<(u32, usize)>) {
        let from = self.active_of(i);
        self.on_big[i] = !self.on_big[i];
        let to = self.active_of(i);
        self.switches += 1;
        for t in self.cfs.queued(from).collect::<Vec<_>>() {
            self.cfs.dequeue(t);
            self.cfs.enqueue(t, to);
            moved.push((t, to));
        }
        if let Some(t) = sys.running(from) {
            moved.push((t, to));
        }
    }
}

impl LocalScheduler for Switcher {
    fn add_thread(&mut self, t: u32, nice: i32) {
        self.cfs.add_thread(t, nice);
        self.narrowed.push(CoreSet::default());
    }

    fn set_now(&mut self, now_ns: u64) {
        self.now = now_ns;
    }

    fn select_core(&mut self, sys: &SchedView, t: u32) -> usize {
        self.narrowed[t as usize] = self.map(sys.allowed(t));
        self.cfs.select_core(&sys.with_allowed(&self.narrowed), t)
    }

    fn enqueue(&mut self, t: u32, c: usize) {
        self.cfs.enqueue(t, c)
    }

    fn dequeue(&mut self, t: u32) {
        self.cfs.dequeue(t)
    }

    forward_to_cfs!();

    /// An inactive core runs nothing; an active one its queue, else CFS's pull among the active.
    fn pick_next(&mut self, sys: &SchedView, c: usize) -> Option<u32> {
        if !self.is_active(c) {
            return None;
        }
        if self.cfs.queue_len(c) == 0 {
            self.narrow_queued(sys);
        }
        let t = self.cfs.pick_next(&sys.with_allowed(&self.narrowed), c)?;
        self.run_since[c] = Some(self.now);
        Some(t)
    }

    fn put_prev(&mut self, t: u32, c: usize) {
        if let Some(since) = self.run_since[c].take() {
            self.busy[c] += self.now - since;
        }
        self.cfs.put_prev(t, c)
    }

    /// The governor's sample: switch what the rule says, then CFS's balancing among the active
    /// cores.
    fn balance(&mut self, sys: &SchedView, moved: &mut Vec<(u32, usize)>) {
        let loads = self.sample();
        let switch: Vec<usize> = match self.rule {
            Rule::Pairs => (0..self.pairs.len()).filter(|&i| super::iks::switches(&self.p, self.on_big[i], loads[i])).collect(),
            Rule::Cluster => {
                // The cluster's cpufreq policy: the busiest CPU's load (all pairs share `on_big`).
                let busiest = loads.iter().copied().fold(0.0, f64::max);
                if super::cluster_switch::switches(&self.p, self.on_big[0], busiest) {
                    (0..self.pairs.len()).collect()
                } else {
                    Vec::new()
                }
            }
        };
        for i in switch {
            self.switch(sys, i, moved);
        }
        let active = CoreSet::from_cores((0..self.pairs.len()).map(|i| self.active_of(i)));
        self.narrow_queued(sys);
        self.cfs.balance_within(&sys.with_allowed(&self.narrowed), Some(&active), moved);
    }
}
