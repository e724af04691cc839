//! What a source of views (the simulator, the live agent) keeps so that building a
//! `SystemView` costs O(changes), and so that both build it alike: the thread table, the live
//! list, the change list, per-app runnable counts, per-core state, lock edges, and each
//! thread's counters over the policy's last quantum.

use std::collections::HashMap;

use crate::machine::Machine;
use crate::view::{AppView, CoreView, LockEdge, PerType, Signals, SystemView, ThreadId, ThreadState, ThreadView, Trigger};

#[derive(Debug, Clone, Default)]
pub struct ViewBook {
    /// Every thread ever seen, indexed by `ThreadId`.
    pub threads: Vec<ThreadView>,
    pub apps: Vec<AppView>,
    /// Per core; the source fills them before each call.
    pub cores: Vec<CoreView>,
    pub available: Signals,
    /// The run's seed, handed to the policy in the view (`SystemView::seed`); the source sets it.
    pub seed: u64,
    lock_edges: Vec<LockEdge>,
    lock_edge_index: HashMap<(ThreadId, ThreadId), usize>,
    live: Vec<ThreadId>,
    /// Threads that exited since the last call, still in `live`: dropping them costs the tail
    /// of `live` after the first of them, never a look at the thread table (a workload of many
    /// threads exits one by one, a call each).
    exited: Vec<ThreadId>,
    changed: Vec<ThreadId>,
    is_changed: Vec<bool>,
    calls: u64,
    /// Kept only for a policy with a quantum.
    track_intervals: bool,
    /// Some(types): the source writes CPU time and runnable time (`time_ns`, `runnable_ns`,
    /// `corun_ns`) alone into the threads' counters, on the machine's first `types` core types
    /// (the simulator, for a policy that reads no counters): every other field stays zero, so an
    /// interval is those three's alone and costs three subtractions per core type of the
    /// machine, not a whole `PerType`.
    pub time_only: Option<usize>,
    interval: Vec<PerType>,
    interval_base: Vec<PerType>,
    /// Threads that ran since the last quantum call (and a flag per thread), and those that ran
    /// in the quantum before: only they have a non-zero interval, so closing a quantum costs
    /// O(threads that ran), not O(threads).
    ran: Vec<ThreadId>,
    has_run: Vec<bool>,
    ran_last_quantum: Vec<ThreadId>,
    interval_start_ns: u64,
    last_quantum_ns: u64,
}

impl ViewBook {
    /// `track_intervals`: keep per-quantum counter deltas (the policy has a quantum).
    pub fn new(cores: usize, available: Signals, track_intervals: bool) -> ViewBook {
        ViewBook { cores: vec![CoreView::default(); cores], available, track_intervals, ..ViewBook::default() }
    }

    /// Add a thread (its id must be the next one); it counts as a change.
    pub fn add_thread(&mut self, v: ThreadView) {
        debug_assert_eq!(v.id as usize, self.threads.len());
        let id = v.id;
        let app = &mut self.apps[v.app as usize];
        app.live_threads += 1;
        if v.state.is_runnable() {
            app.runnable_threads += 1;
        }
        self.threads.push(v);
        self.is_changed.push(false);
        self.mark_changed(id);
        self.live.push(id);
        if self.track_intervals {
            self.interval.push(PerType::default());
            self.interval_base.push(PerType::default());
            self.has_run.push(false);
        }
    }

    /// Thread `t`'s counters moved (it ran): its interval is computed at the next quantum.
    #[inline]
    pub fn mark_ran(&mut self, t: ThreadId) {
        if self.track_intervals && !self.has_run[t as usize] {
            self.has_run[t as usize] = true;
            self.ran.push(t);
        }
    }

    pub fn mark_changed(&mut self, t: ThreadId) {
        if !self.is_changed[t as usize] {
            self.is_changed[t as usize] = true;
            self.changed.push(t);
        }
    }

    /// Every state change goes through here: it keeps the apps' runnable counts, the live list
    /// and the change list (runnable or not, and exits, are changes; running/ready moves are not).
    pub fn set_state(&mut self, t: ThreadId, state: ThreadState) {
        let v = &mut self.threads[t as usize];
        let before = v.state;
        if before == state {
            return;
        }
        v.state = state;
        if before.is_runnable() != state.is_runnable() {
            let app = &mut self.apps[v.app as usize];
            if before.is_runnable() {
                app.runnable_threads -= 1;
            } else {
                app.runnable_threads += 1;
            }
            self.mark_changed(t);
        }
        if state == ThreadState::Exited {
            self.apps[self.threads[t as usize].app as usize].live_threads -= 1;
            self.mark_changed(t);
            self.exited.push(t);
        } else if before == ThreadState::Exited {
            // A source revised what it read: the thread is live after all.
            self.exited.retain(|&x| x != t);
        }
    }

    /// `waiter` waited `ns` more for a lock `holder` held.
    pub fn add_lock_wait(&mut self, waiter: ThreadId, holder: ThreadId, ns: u64) {
        let edges = &mut self.lock_edges;
        let i = *self.lock_edge_index.entry((waiter, holder)).or_insert_with(|| {
            edges.push(LockEdge { waiter, holder, wait_ns: 0 });
            edges.len() - 1
        });
        self.lock_edges[i].wait_ns += ns;
    }

    /// Threads not exited.
    pub fn live_count(&self) -> usize {
        self.live.len() - self.exited.len()
    }

    /// Get ready for a policy call: number it, close the quantum's interval on a quantum call,
    /// drop exited threads from the live list.
    pub fn begin_call(&mut self, trigger: Trigger, now_ns: u64) {
        self.calls += 1;
        self.drop_exited();
        if trigger == Trigger::Quantum && self.track_intervals {
            for &t in &self.ran_last_quantum {
                if let Some(types) = self.time_only {
                    self.interval[t as usize][..types].iter_mut().for_each(|c| {
                        c.time_ns = 0;
                        c.runnable_ns = 0;
                        c.corun_ns = 0;
                    });
                } else {
                    self.interval[t as usize] = PerType::default();
                }
            }
            // A thread's base is where its counters stood when it last ran, so its interval is
            // what it did since, all of it in this quantum.
            for &t in &self.ran {
                let t = t as usize;
                if let Some(types) = self.time_only {
                    for ty in 0..types {
                        let (now, base) = (&self.threads[t].per_type[ty], &mut self.interval_base[t][ty]);
                        self.interval[t][ty].time_ns = now.time_ns - base.time_ns;
                        self.interval[t][ty].runnable_ns = now.runnable_ns - base.runnable_ns;
                        self.interval[t][ty].corun_ns = now.corun_ns - base.corun_ns;
                        base.time_ns = now.time_ns;
                        base.runnable_ns = now.runnable_ns;
                        base.corun_ns = now.corun_ns;
                    }
                } else {
                    let now = self.threads[t].per_type;
                    for (ty, c) in now.iter().enumerate() {
                        self.interval[t][ty] = c.since(&self.interval_base[t][ty]);
                    }
                    self.interval_base[t] = now;
                }
                self.has_run[t] = false;
            }
            self.ran_last_quantum = std::mem::take(&mut self.ran);
            self.ran_last_quantum.sort_unstable();
            self.interval_start_ns = self.last_quantum_ns;
            self.last_quantum_ns = now_ns;
        }
    }

    /// Remove `exited` from `live`, both ascending: each found by bisection past the last, the
    /// runs between them moved down as blocks, nothing before the first touched.
    fn drop_exited(&mut self) {
        if self.exited.is_empty() {
            return;
        }
        self.exited.sort_unstable();
        let (mut kept, mut read) = (0, 0);
        for &t in &self.exited {
            let at = read + self.live[read..].partition_point(|&x| x < t);
            debug_assert_eq!(self.live.get(at), Some(&t), "an exited thread was not live");
            if kept != read {
                self.live.copy_within(read..at, kept);
            }
            kept += at - read;
            read = at + 1;
        }
        let end = self.live.len();
        self.live.copy_within(read..end, kept);
        self.live.truncate(kept + end - read);
        self.exited.clear();
    }

    pub fn view<'a>(&'a self, machine: &'a Machine, trigger: Trigger, now_ns: u64) -> SystemView<'a> {
        SystemView {
            now_ns,
            trigger,
            call: self.calls,
            machine,
            available: self.available,
            seed: self.seed,
            threads: &self.threads,
            live: &self.live,
            changed: &self.changed,
            interval: &self.interval,
            ran: &self.ran_last_quantum,
            interval_start_ns: self.interval_start_ns,
            apps: &self.apps,
            cores: &self.cores,
            lock_edges: &self.lock_edges,
        }
    }

    /// The policy has seen the changes.
    pub fn end_call(&mut self) {
        for &t in &self.changed {
            self.is_changed[t as usize] = false;
        }
        self.changed.clear();
    }
}
