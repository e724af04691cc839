//! Applying a policy's `Placement` to real threads and cores, and undoing it.
//!
//! - `affinity`: sched_setaffinity, the decision every policy makes;
//! - `share`: fast-core shares, by alternating a thread's affinity round by round;
//! - `weight`: CFS weights, as the nice value of nearest weight (setpriority);
//! - `slice`: time slices, as EEVDF's slice request (sched_setattr's sched_runtime);
//! - `cpufreq`: core-type frequencies, through cpufreq's sysfs files.
//!
//! A decision the agent cannot apply here is never dropped silently: it is counted in
//! `NotApplied`, with its reason, and listed in the report. Whatever the agent changed is put
//! back by `Enforcer::restore`, on every way the agent ends.

pub mod affinity;
pub mod cpufreq;
pub mod share;
pub mod slice;
pub mod weight;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use ampsched_model::{Placement, ThreadState};
use serde::Serialize;

use crate::monitor::Monitor;

/// Decisions of one kind that could not be applied for one reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotAppliedEntry {
    /// "affinity", "fast_share", "weight", "slice" or "frequency".
    pub decision: &'static str,
    pub reason: String,
    pub count: u64,
    /// The first such decision, with the thread or core type it named.
    pub first: String,
}

/// The decisions the agent could not apply, grouped by kind and reason (a policy that asks for a
/// frequency every quantum on a machine without cpufreq makes one entry, not thousands).
#[derive(Debug, Clone, Default)]
pub struct NotApplied {
    pub entries: Vec<NotAppliedEntry>,
    index: HashMap<(&'static str, String), usize>,
    pub total: u64,
}

impl NotApplied {
    pub fn add(&mut self, decision: &'static str, reason: String, what: impl FnOnce() -> String) {
        self.total += 1;
        let entries = &mut self.entries;
        let i = *self.index.entry((decision, reason.clone())).or_insert_with(|| {
            entries.push(NotAppliedEntry { decision, reason, count: 0, first: what() });
            entries.len() - 1
        });
        self.entries[i].count += 1;
    }
}

/// What `Enforcer::restore` put back: (restored, vanished before they could be) per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Restored {
    pub affinities: (usize, usize),
    pub nice_values: (usize, usize),
    pub slices: (usize, usize),
    pub frequencies: usize,
}

/// Everything the agent has changed beyond what the monitor records, and how to undo it.
pub struct Enforcer {
    pub shares: share::Shares,
    pub weights: weight::Weights,
    pub slices: slice::Slices,
    pub frequencies: cpufreq::Frequencies,
    pub not_applied: NotApplied,
    restored: Option<Restored>,
    /// Threads (by id) there were at the restore: later ones are found by a rescan after it.
    restored_threads: usize,
}

impl Enforcer {
    /// `sysfs_root`: where cpufreq is ("/" on a real machine); `interval_ns`: the agent's
    /// sampling interval, which fast-core share rounds are made of.
    pub fn new(sysfs_root: &Path, interval_ns: u64) -> Enforcer {
        Enforcer {
            shares: share::Shares::new(interval_ns),
            weights: weight::Weights,
            slices: slice::Slices::new(),
            frequencies: cpufreq::Frequencies::new(sysfs_root),
            not_applied: NotApplied::default(),
            restored: None,
            restored_threads: 0,
        }
    }

    /// Apply a (validated) placement. The last decision for a thread or core type wins, as in
    /// the simulator. Returns how many decisions changed something.
    pub fn apply(&mut self, m: &mut Monitor, out: &Placement) -> u64 {
        for id in out.named_threads() {
            // Even if refused below: the policy sees what really happened.
            m.book.mark_changed(id);
        }
        let mut changed = 0;
        for (id, cores) in last_per_key(&out.affinity) {
            let id = *id;
            if let Some(why) = unmanageable(m, id) {
                self.not_applied.add("affinity", why, || format!("thread {} to cores {cores}", m.extra[id as usize].tid));
                continue;
            }
            let run_on = self.shares.run_on(m, id, cores, &mut self.not_applied);
            match affinity::put_on(m, id, cores, &run_on) {
                affinity::Moved::Changed => {
                    changed += 1;
                    m.extra[id as usize].decisions += 1;
                }
                affinity::Moved::Unchanged | affinity::Moved::Gone => {}
                affinity::Moved::Refused(why) => self.not_applied.add("affinity", why, || format!("thread {} to cores {cores}", m.extra[id as usize].tid)),
            }
        }
        for &(id, share) in last_per_key(&out.fast_share) {
            changed += self.decide(m, id, "fast_share", |e, m| e.shares.set(m, id, share), || format!("{share:?}"));
        }
        for &(id, w) in last_per_key(&out.weight) {
            changed += self.decide(m, id, "weight", |e, m| e.weights.set(m, id, w), || format!("{w:?}"));
        }
        for &(id, ns) in last_per_key(&out.slice_ns) {
            changed += self.decide(m, id, "slice", |e, m| e.slices.set(m, id, ns), || format!("{ns:?} ns"));
        }
        for &(ty, ghz) in last_per_key(&out.frequency) {
            match self.frequencies.set(&m.machine, ty, ghz, m.ledger.as_mut()) {
                Ok(n) => changed += n,
                Err(why) => self.not_applied.add("frequency", why, || format!("core type '{}' to {ghz} GHz", m.machine.core_types[ty].name)),
            }
        }
        changed
    }

    /// One per-thread decision of kind `decision`: Ok(true) changed something, Err(why) not applied.
    fn decide(
        &mut self,
        m: &mut Monitor,
        id: u32,
        decision: &'static str,
        set: impl FnOnce(&mut Enforcer, &mut Monitor) -> Result<bool, String>,
        value: impl FnOnce() -> String,
    ) -> u64 {
        let result = match unmanageable(m, id) {
            Some(why) => Err(why),
            None => set(self, m),
        };
        match result {
            Ok(true) => {
                m.extra[id as usize].decisions += 1;
                1
            }
            Ok(false) => 0,
            Err(why) => {
                let e = &m.extra[id as usize];
                self.not_applied.add(decision, why, || format!("thread {} ({}) to {}", e.tid, e.comm, value()));
                0
            }
        }
    }

    /// After each sample: the fast-core share rounds.
    pub fn after_sample(&mut self, m: &mut Monitor) {
        self.shares.step(m, &mut self.not_applied);
    }

    /// Put back everything the agent changed (once; later calls return the first result).
    pub fn restore(&mut self, m: &Monitor) -> Restored {
        if let Some(r) = self.restored {
            return r;
        }
        let r = Restored {
            affinities: affinity::restore(m, 0),
            nice_values: self.weights.restore(m, 0),
            slices: self.slices.restore(m),
            frequencies: self.frequencies.restore(),
        };
        self.restored = Some(r);
        self.restored_threads = m.book.threads.len();
        r
    }

    /// After `restore`, the threads the monitor has found since (created meanwhile by a thread
    /// that still had an imposed affinity or nice value): their original affinities and nice
    /// values. Returns the whole restore.
    pub fn restore_found_since(&mut self, m: &Monitor) -> Restored {
        let Some(mut r) = self.restored else { return self.restore(m) };
        let (ok, gone) = affinity::restore(m, self.restored_threads);
        r.affinities = (r.affinities.0 + ok, r.affinities.1 + gone);
        let (ok, gone) = self.weights.restore(m, self.restored_threads);
        r.nice_values = (r.nice_values.0 + ok, r.nice_values.1 + gone);
        self.restored = Some(r);
        self.restored_threads = m.book.threads.len();
        r
    }
}

/// Why the agent may not touch thread `id` (it has exited, or refused an affinity before).
fn unmanageable(m: &Monitor, id: u32) -> Option<String> {
    if m.book.threads[id as usize].state == ThreadState::Exited {
        return Some("the thread has exited".into());
    }
    m.extra[id as usize].unmanaged.as_ref().map(|_| "the thread is left alone since it refused an affinity".into())
}

/// The last decision for each key (the simulator applies decisions in order, so only the last
/// one per thread or core type matters), latest first.
fn last_per_key<K: Copy + Eq + std::hash::Hash, V>(decisions: &[(K, V)]) -> Vec<&(K, V)> {
    let mut seen = HashSet::new();
    decisions.iter().rev().filter(|d| seen.insert(d.0)).collect()
}
