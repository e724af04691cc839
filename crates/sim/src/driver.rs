//! The policy driver: calls the policy through the `ViewBook` and applies its `Placement`
//! (affinities, fast-core shares, slices, weights, core-type frequencies).

use ampsched_model::{CoreSet, CoreView, ThreadState, Trigger};

use crate::engine::{Engine, SimError};
use ampsched_model::share_rounds::Rounds;

use crate::local::share::{ShareThread, Side};
use crate::local::LocalScheduler;
use crate::observe::Observer;

impl<'a, S: LocalScheduler> Engine<'a, S> {
    pub(crate) fn call_policy(&mut self, trigger: Trigger) -> Result<(), SimError> {
        self.stats.policy_calls += 1;
        let types = self.m.core_types.len();
        for i in 0..self.counters.unsynced() {
            let t = self.counters.unsynced_at(i);
            // Flushed either way: when the rate's events are added changes their sum's last bits,
            // and the run reports them.
            self.flush_events(t);
            if self.cfg.policy_reads_counters {
                self.counters.sync(&mut self.book, t, types);
            } else {
                self.counters.sync_time(&mut self.book, t, types);
            }
        }
        self.counters.synced_all();
        self.book.begin_call(trigger, self.now);
        for (c, core) in self.cores.iter().enumerate() {
            self.book.cores[c] =
                CoreView { nr_running: self.sched.queue_len(c) as u32 + self.running[c].is_some() as u32, running: self.running[c], busy_ns: core.busy_ns };
        }
        self.placement.clear();
        let decided = self.policy.decide(&self.book.view(self.m, trigger, self.now), &mut self.placement);
        self.book.end_call();
        // A policy that cannot go on (a Python decide raised) ends the run now, not at its end.
        decided.map_err(SimError::PolicyFailed)?;
        if trigger == Trigger::Quantum {
            self.sample_sf_error();
        }
        let placement = std::mem::take(&mut self.placement);
        if let Err(e) = placement.validate(self.m, self.book.threads.len()) {
            return Err(SimError::Policy(format!("{}: {e}", self.cfg.run_name)));
        }
        let mut changed = 0;
        // Threads of an app left to the OS (`os_scheduled`) keep what the OS gives them.
        let affinity: Vec<_> = placement.affinity.iter().filter(|(t, _)| self.managed(*t)).cloned().collect();
        let fast_share: Vec<_> = placement.fast_share.iter().filter(|(t, _)| self.managed(*t)).copied().collect();
        let slice_ns: Vec<_> = placement.slice_ns.iter().filter(|(t, _)| self.managed(*t)).copied().collect();
        let weight: Vec<_> = placement.weight.iter().filter(|(t, _)| self.managed(*t)).copied().collect();
        for (t, cores) in &affinity {
            changed += self.set_affinity(*t, cores) as u64;
        }
        for (t, share) in fast_share {
            changed += self.set_fast_share(t, share) as u64;
        }
        for (t, slice) in slice_ns {
            changed += self.set_slice(t, slice) as u64;
        }
        for (t, weight) in weight {
            changed += self.set_weight(t, weight) as u64;
        }
        for &(ty, ghz) in &placement.frequency {
            changed += self.set_frequency(ty, ghz) as u64;
        }
        // Named threads are changes even when refused or unchanged, so a policy's cache of
        // what it decided is corrected by what happened.
        for t in placement.named_threads() {
            self.book.mark_changed(t);
        }
        self.placement = placement;
        if changed > 0 {
            self.stats.decisions += changed;
            if let Some(o) = &mut self.trace {
                o.decided(self.now, changed as u32);
            }
        }
        Ok(())
    }

    /// Whether thread `t`'s app takes placements from the policy (not `os_scheduled`).
    fn managed(&self, t: u32) -> bool {
        self.w.apps[self.flow[t as usize].app as usize].policy_managed
    }

    fn exited(&self, t: u32) -> bool {
        self.book.threads[t as usize].state == ThreadState::Exited
    }

    /// Apply one thread's new allowed set; a thread on a core it may no longer use is moved.
    fn set_affinity(&mut self, t: u32, cores: &CoreSet) -> bool {
        // A task program's tied main thread stays on its cluster where the policy's choice
        // allows it; a policy that places it on other cores only is obeyed (its placement of the
        // other threads may leave no free core of that cluster: overriding it would put two
        // spinning runtime threads on one core).
        let pinned = self.runtime_pin(t).map(|pin| cores.intersection(&pin)).filter(|both| !both.is_empty());
        let cores = pinned.as_ref().unwrap_or(cores);
        let v = &mut self.book.threads[t as usize];
        if v.state == ThreadState::Exited || v.allowed == *cores {
            return false;
        }
        v.allowed = cores.clone();
        // Rounds counted on the old affinity mean nothing on the new one.
        if let Some(share) = self.shares[t as usize].as_ref().map(|s| s.rounds.share()) {
            self.start_share(t, share);
        }
        self.narrow_allowed(t);
        self.evict_if_excluded(t);
        true
    }

    /// A share starts (or restarts) with fresh rounds, or ends (`None`). A share equal to the
    /// current one changes nothing, so a policy may repeat its decision every quantum.
    fn set_fast_share(&mut self, t: u32, share: Option<f64>) -> bool {
        if self.exited(t) || self.shares[t as usize].as_ref().map(|s| s.rounds.share()) == share {
            return false;
        }
        match share {
            Some(s) => {
                if self.shares[t as usize].is_none() {
                    self.sharing.push(t);
                }
                self.start_share(t, s)
            }
            None => self.end_share(t),
        }
        self.narrow_allowed(t);
        self.evict_if_excluded(t);
        true
    }

    /// Fresh rounds. A runnable thread's side is the core type it is on, so that setting a share
    /// does not move it (its rounds move it at its ticks); a share of 0 or 1 has one side only.
    /// A thread that is not runnable gets its side where it is next queued.
    fn start_share(&mut self, t: u32, share: f64) {
        let affinity = &self.book.threads[t as usize].allowed;
        let honoured = !affinity.intersection(&self.fast_cores).is_empty() && !affinity.difference(&self.fast_cores).is_empty();
        let side = if share == 0.0 {
            Some(Side::Slow)
        } else if share == 1.0 {
            Some(Side::Fast)
        } else {
            self.runnable_on(t).map(|c| if self.fast_cores.contains(c) { Side::Fast } else { Side::Slow })
        };
        self.shares[t as usize] = Some(Box::new(ShareThread { rounds: Rounds::new(share, self.cfg.share_round_ns), side, honoured }));
    }

    /// Takes effect from the thread's next slice: the current one runs out as planned.
    fn set_slice(&mut self, t: u32, slice_ns: Option<u64>) -> bool {
        let before = self.sched.slice_ns(t);
        if !self.exited(t) {
            self.sched.set_slice(t, slice_ns);
        }
        self.sched.slice_ns(t) != before
    }

    /// The time a running thread has run so far is charged at its old weight.
    fn set_weight(&mut self, t: u32, weight: Option<u32>) -> bool {
        if self.exited(t) {
            return false;
        }
        if self.book.threads[t as usize].state == ThreadState::Running {
            self.account(self.book.threads[t as usize].core.expect("running thread has a core"));
        }
        let before = self.sched.weight(t);
        self.sched.set_weight(t, weight);
        self.sched.weight(t) != before
    }

    /// Every core of type `ty` runs at `ghz` from now: what its threads did so far is accounted
    /// at the old frequency, and the busy cores are re-planned, which asks the model for their
    /// threads' time per instruction again.
    fn set_frequency(&mut self, ty: usize, ghz: f64) -> bool {
        if self.dvfs.machine.core_types[ty].freq_ghz == ghz {
            return false;
        }
        let of_type: Vec<usize> = (0..self.cores.len()).filter(|&c| self.dvfs.machine.cores[c].core_type == ty).collect();
        for &c in &of_type {
            self.account(c);
            self.dvfs.split_busy(c, self.cores[c].busy_ns);
        }
        self.dvfs.set(ty, ghz);
        for c in of_type {
            if self.running[c].is_some() {
                // Re-planned at the new clock (a new clock epoch: `memory::RateKey`); its co-runners' cache shares change with its speed.
                self.llc_changed(c);
                self.mark_dirty(c as u32);
            }
        }
        true
    }
}
