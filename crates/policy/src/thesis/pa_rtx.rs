//! `pa-rtx`: PA with the runtime extensions of the Sáez thesis (§5.1.2, "PA Runtime Extensions").
//!
//! Adaptive waits spin before they block, and a spinning thread stays runnable: PA then sees a
//! serial phase as a parallel one. PA-RTX's runtime (a modified OpenMP library) tells the
//! scheduler (a) when a waiting thread has spun past its spin threshold and when it stops, and
//! (b) which thread is the app's master (the one running `main`, which runs the serial code).
//! The scheduler then counts a notified spinning thread as not runnable when it classes the app,
//! ranks it first to leave a fast core (the thesis marks it a fast-to-slow candidate; where in
//! the list is left open: first, as it makes no progress). The master gets "a higher priority in
//! running on a fast core" so that PA "tries to ensure [it] runs on a fast core whenever it is
//! active", without binding it, the other threads competing as in PA; the hint "can speed up
//! do-all applications even without properly detecting serial phases". How it meets Table 5.1
//! is left open; our reading (`master=mp`, the default): the master of an HP app is ranked as an
//! MP thread (above HP, sharing fast cores with ST and MP threads by expiry); in other classes
//! it ranks as its app. It has a cost where serial phases are seen anyway: on the catalog's
//! forkjoin workload (blocking waits) on 1fc-3sc the master shares the fast core with the ST app
//! in every parallel phase too, and ANTT is 1.54 against PA's 1.43. `master=app` is the weak
//! reading: the master only goes up first, and down last, of its app's HP threads (ANTT 1.43
//! there). Otherwise this is `pa`.
//!
//! In the simulator the runtime is the wait model: `ThreadView::spinning` is the wait a thread is
//! in (spin, or spin_then_block before its limit), and `spin_ns` its spin time; the master is
//! the first thread of the app's first group, the leader of its serial sections. A notification
//! is seen at the next quantum (the thesis's swaps are periodic anyway). Live, the runtime is
//! the agent's preload library, for programs that wait in pthread primitives: a thread spinning
//! on a busy `pthread_spin_lock` is marked in the shared table, which gives `spinning` and
//! `spin_ns` (`Signals::SPIN`, offered only when the agent launches the command with the
//! library); the threshold is then applied here as in the simulator. The runtime names the
//! master as the thread whose tid is its process's pid (the one running `main`): the agent
//! numbers it first, group 0 and index 0, so `is_master` below holds for it. Spin loops of a
//! program's or runtime's own (OpenMP's libgomp), and statically linked programs, are not seen.

use std::collections::BTreeSet;

use ampsched_model::view::AppId;
use ampsched_model::{Signals, SystemView, ThreadId};

use super::pa::{Pa, OPTIONS};
use crate::common::PerThread;
use crate::options::{OptionInfo, OptionKind};
use crate::{Build, PolicyInfo};

pub const SPIN_THRESHOLD_OPTION: OptionInfo = OptionInfo {
    name: "spin_threshold_us",
    // The thesis recommends "several hundred thousand or a million iterations" of the spin loop
    // (§5.1.2); at a few ns per iteration that is about a millisecond of spinning.
    kind: OptionKind::Range { default: 1000.0, min: 0.001, max: 1e9 },
    doc: "spin time after which the runtime tells the scheduler a waiting thread spins (thesis: ~1M iterations, ~1 ms)",
};

pub const MASTER_OPTION: OptionInfo = OptionInfo {
    name: "master",
    // The thesis leaves open how the master's priority meets Table 5.1 (see above).
    kind: OptionKind::Choice { default: "mp", choices: &["mp", "app"] },
    doc: "the master of an HP app ranks as an MP thread (mp: above HP, sharing fast cores with ST/MP), \
          or only first among its app's HP threads (app)",
};

/// PA's options, the spin threshold and the master's rank.
const RTX_OPTIONS: &[OptionInfo] = &[OPTIONS[0], OPTIONS[1], OPTIONS[2], OPTIONS[3], OPTIONS[4], OPTIONS[5], SPIN_THRESHOLD_OPTION, MASTER_OPTION];

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pa-rtx",
    description: "PA with runtime hints: threads spinning past a threshold count as not runnable, and the master thread is favoured",
    source: "Sáez thesis, §5.1.2 (PA runtime extensions)",
    options: RTX_OPTIONS,
    needs: Signals::SPIN,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| {
        let threshold_ns = (o.number("spin_threshold_us") * 1000.0).round().max(1.0) as u64;
        Box::new(Pa::new(o, m, Some(RuntimeHints::new(threshold_ns, o.choice("master") == "mp"))))
    }),
};

/// What a thread's current spin looks like to the runtime.
#[derive(Debug, Clone, Copy, Default)]
struct SpinWatch {
    /// `spin_ns` when last looked at.
    last_spin_ns: u64,
    /// `spin_ns` when the current spin began (None: not spinning). A spin first seen at a
    /// quantum is taken to have begun at the previous look, an upper estimate of at most one
    /// quantum's spin.
    since_spin_ns: Option<u64>,
}

/// The runtime's two hints, as the scheduler keeps them.
#[derive(Debug, Clone)]
pub struct RuntimeHints {
    spin_threshold_ns: u64,
    /// The master of an HP app ranks as an MP thread (`master=mp`).
    master_mp: bool,
    watch: PerThread<SpinWatch>,
    /// Threads notified as spinning now.
    notified: BTreeSet<ThreadId>,
    /// Per app: how many of its threads are notified.
    per_app: Vec<u32>,
}

impl RuntimeHints {
    pub fn new(spin_threshold_ns: u64, master_mp: bool) -> Self {
        RuntimeHints { spin_threshold_ns, master_mp, watch: PerThread::new(), notified: BTreeSet::new(), per_app: Vec::new() }
    }

    /// Thread `t` is notified as spinning.
    pub fn spinning(&self, t: ThreadId) -> bool {
        self.notified.contains(&t)
    }

    /// How many of app `a`'s threads are notified as spinning.
    pub fn spinners(&self, a: AppId) -> u32 {
        self.per_app.get(a as usize).copied().unwrap_or(0)
    }

    /// The master thread the runtime names: the first thread of the app's first group (live, the
    /// main thread, tid = pid, which the agent numbers first).
    pub fn is_master(&self, view: &SystemView, t: ThreadId) -> bool {
        let v = view.thread(t);
        v.group == 0 && v.index_in_group == 0
    }

    /// Thread `t` is the master and ranks as an MP thread when its app is HP.
    pub fn master_as_mp(&self, view: &SystemView, t: ThreadId) -> bool {
        self.master_mp && self.is_master(view, t)
    }

    /// Look at the threads whose spin can have changed: those that changed (a spin that ended
    /// in a block, or an exit), and at a quantum those that ran (only a thread on a core spins
    /// further) and those notified. Returns the threads whose notification changed.
    pub fn watch(&mut self, view: &SystemView, changed: &[ThreadId]) -> Vec<ThreadId> {
        let mut look: Vec<ThreadId> = changed.to_vec();
        if view.trigger == ampsched_model::Trigger::Quantum {
            look.extend_from_slice(view.ran);
            look.extend(self.notified.iter().copied());
        }
        look.sort_unstable();
        look.dedup();
        let mut flipped = Vec::new();
        for t in look {
            let v = view.thread(t);
            let w = self.watch.get_mut(t);
            let spins = v.spinning && v.state.is_runnable();
            let notified = if spins {
                let since = *w.since_spin_ns.get_or_insert(w.last_spin_ns);
                v.spin_ns - since >= self.spin_threshold_ns
            } else {
                w.since_spin_ns = None;
                false
            };
            w.last_spin_ns = v.spin_ns;
            if notified != self.notified.contains(&t) {
                let a = v.app as usize;
                if a >= self.per_app.len() {
                    self.per_app.resize(a + 1, 0);
                }
                if notified {
                    self.notified.insert(t);
                    self.per_app[a] += 1;
                } else {
                    self.notified.remove(&t);
                    self.per_app[a] -= 1;
                }
                flipped.push(t);
            }
        }
        flipped
    }
}
