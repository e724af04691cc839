//! `scaled-lb`: the asymmetry-aware load balancing of Li, Baumberger, Koufaty and Hahn,
//! "Efficient Operating System Scheduling for Performance-Asymmetric Multi-Core Architectures"
//! (SC 2007; AMPS), as Kim & Huh compare it (IEEE Trans. Computers 2018, Table 2: unaware of
//! application characteristics, slow-only base, no guarantee).
//!
//! Each core's load (its threads) is scaled by a fixed per-core-type ratio, its computing power
//! (1 for the slowest type, `ratio` for the fast one; others by capacity), and threads are
//! balanced so that the scaled loads n/p are as even as they can be, faster cores first:
//! - a new thread goes to an idle core if there is one, the most powerful first (Li et al.'s
//!   faster-core-first), else to the core whose scaled load after taking it, (n + 1)/p, is
//!   lowest (ties to more power, then the lower id);
//! - when a thread exits, threads move one at a time: to an idle core from a core of two or more
//!   threads or of less power (no core idles while another queues, and a fast core never idles
//!   while a slow one runs: work conservation and faster-core-first), else from a core of two or
//!   more threads to the core whose scaled load after taking it is below the source's (the
//!   latest-placed thread of the source moves). A move never empties a core it does not fill
//!   elsewhere, so the two rules do not undo each other.
//!
//! Each thread is bound to its core; threads sharing a core time-share it. Which thread sits on a
//! fast core is not chosen by what it gains there: the scheduler knows no efficiencies.

use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use crate::common::PerThread;
use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

pub const RATIO_OPTION: OptionInfo = OptionInfo {
    name: "ratio",
    // Li et al. choose the ratio empirically per machine; 0 (the default) takes the machine's
    // capacity ratio of its fastest to its slowest type (3.5 on kimhuh-2f4s's 2.8/0.8 GHz).
    kind: OptionKind::Range { default: 0.0, min: 0.0, max: 100.0 },
    doc: "computing power of a fast core over a slow one, scaling its load (0: the machine's capacity ratio)",
};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "scaled-lb",
    description: "Li et al.'s scaled load balancing: per-core thread counts scaled by a fixed per-core-type power kept even, faster cores first",
    source: "Li et al., Efficient Operating System Scheduling for Performance-Asymmetric Multi-Core Architectures, SC 2007; Kim & Huh, IEEE TC 2018, Table 2",
    options: &[RATIO_OPTION],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(ScaledLb::new(o, m))),
};

pub struct ScaledLb {
    /// Each core's computing power.
    power: Vec<f64>,
    /// The threads bound to each core, in the order they came.
    queue: Vec<Vec<ThreadId>>,
    core_of: PerThread<Option<usize>>,
}

impl ScaledLb {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let min_cap = m.core_types.iter().map(|t| t.capacity).min().unwrap_or(1).max(1) as f64;
        let max_cap = m.core_types.iter().map(|t| t.capacity).max().unwrap_or(1) as f64;
        let ratio = match o.number(RATIO_OPTION.name) {
            r if r > 0.0 => r,
            _ => max_cap / min_cap,
        };
        // Types between the slowest and the fastest get their place on the same line.
        let power = m
            .cores
            .iter()
            .map(|c| {
                let cap = m.core_types[c.core_type].capacity as f64;
                if max_cap > min_cap {
                    1.0 + (ratio - 1.0) * (cap - min_cap) / (max_cap - min_cap)
                } else {
                    1.0
                }
            })
            .collect();
        ScaledLb { power, queue: vec![Vec::new(); m.num_cores()], core_of: PerThread::new() }
    }

    fn scaled(&self, core: usize, extra: f64) -> f64 {
        (self.queue[core].len() as f64 + extra) / self.power[core]
    }

    /// Of `cores`, the one a thread goes to: an idle one of most power, else lowest (n + 1)/p;
    /// ties to more power, then the lower id.
    fn target(&self, cores: impl Iterator<Item = usize>) -> Option<usize> {
        let key = |c: usize| (!self.queue[c].is_empty(), self.scaled(c, 1.0));
        cores.min_by(|&a, &b| {
            let ((busy_a, sa), (busy_b, sb)) = (key(a), key(b));
            busy_a
                .cmp(&busy_b)
                .then(if busy_a { sa.total_cmp(&sb) } else { std::cmp::Ordering::Equal })
                .then(self.power[b].total_cmp(&self.power[a]))
                .then(a.cmp(&b))
        })
    }

    fn bind(&mut self, t: ThreadId, core: usize, out: &mut Placement) {
        self.queue[core].push(t);
        self.core_of.set(t, Some(core));
        out.set(t, CoreSet::single(core));
    }

    /// Whether a thread of `src` should move to `dst` (the module's rules).
    fn should_move(&self, src: usize, dst: usize) -> bool {
        let (n_src, n_dst) = (self.queue[src].len(), self.queue[dst].len());
        if src == dst || n_src == 0 {
            return false;
        }
        if n_dst == 0 {
            return n_src >= 2 || self.power[dst] > self.power[src];
        }
        n_src >= 2 && self.scaled(dst, 1.0) < self.scaled(src, 0.0) - 1e-12
    }

    /// Move threads while a move is due: the most loaded source first, to the best target.
    fn rebalance(&mut self, out: &mut Placement) {
        let cores = self.queue.len();
        // Each move fills an idle core, or lowers the highest scaled load without emptying a
        // core; the bound only guards against a cycle of rounding.
        for _ in 0..cores * cores * 4 {
            let mut sources: Vec<usize> = (0..cores).filter(|&c| !self.queue[c].is_empty()).collect();
            sources.sort_by(|&a, &b| self.scaled(b, 0.0).total_cmp(&self.scaled(a, 0.0)).then(self.power[a].total_cmp(&self.power[b])).then(a.cmp(&b)));
            let found = sources.into_iter().find_map(|src| self.target((0..cores).filter(|&d| self.should_move(src, d))).map(|dst| (src, dst)));
            let Some((src, dst)) = found else { return };
            let t = self.queue[src].pop().expect("not empty");
            self.bind(t, dst, out);
        }
    }
}

impl Policy for ScaledLb {
    fn triggers(&self) -> Triggers {
        Triggers { start: true, exit: true, block: false, wake: false }
    }

    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        match view.trigger {
            Trigger::Start(t) => {
                if view.apps[view.thread(t).app as usize].policy_managed {
                    if let Some(core) = self.target(view.thread(t).allowed.iter()) {
                        self.bind(t, core, out);
                    }
                }
            }
            Trigger::Exit(t) => {
                if let Some(core) = self.core_of.value(t) {
                    self.queue[core].retain(|&x| x != t);
                    self.core_of.set(t, None);
                    self.rebalance(out);
                }
            }
            Trigger::Quantum | Trigger::Block(_) | Trigger::Wake(_) => {}
        }
        Ok(())
    }
}
