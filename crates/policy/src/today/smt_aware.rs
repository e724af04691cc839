//! `smt-aware`: idle-CPU selection that knows hardware threads share a core, and capacities.
//!
//! Sources: Linux kernel/sched/fair.c, `select_idle_sibling` → `select_idle_core` (a core all of
//! whose SMT siblings are idle, in the domain with SD_SHARE_CPUCAPACITY set between siblings) and
//! `select_idle_smt`/`select_idle_cpu` (else any idle hardware thread), with
//! `select_idle_capacity` on asymmetric machines; sched-ext/scx scheds/rust/scx_bpfland and
//! scx_lavd (`idle_smtmask`: a fully idle core is tried before an idle sibling of a busy one).
//!
//! The rule, where a thread starts or wakes (and, at each quantum, for a thread left waiting in a
//! run queue while a CPU is idle):
//! 1. a hardware thread of a **fully idle physical core**, of the highest capacity (its previous
//!    core first among equals, then the lowest-numbered);
//! 2. else an **idle hardware thread of a busy core**, of the highest capacity (likewise);
//! 3. else no idle CPU: it stays where it is.
//!
//! At each quantum, a running thread whose sibling is busy moves to a fully idle core of at least
//! its capacity (the load balancer spreading tasks over cores, `prefer_sibling`). The choice is an
//! affinity to the one CPU chosen; CPUs chosen in a call count as busy for the rest of it.
//!
//! Simplified: Linux searches idle CPUs in the LLC of the previous CPU only and bounds the scan
//! (`SIS_UTIL`); here every CPU is looked at. It does not check that the thread fits the CPU's
//! capacity (`linux-capacity` does); it prefers the biggest idle CPU. On a machine without SMT
//! every core is a fully idle core or busy, and the rule is capacity-ordered idle selection.
//! It needs the wake-up path (`Signals::WAKEUP`): the choice is made per wake-up before the thread
//! runs, which the live agent's sampled affinities cannot do (a thread pinned to one CPU that is
//! busy when it wakes would wait there until the next sample), so it does not run live.

use ampsched_model::{CoreSet, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, ThreadState, Trigger, Triggers};

use crate::options::{OptionInfo, OptionKind, Options};
use crate::{Build, PolicyInfo};

/// The default quantum, ms: one scheduler tick at CONFIG_HZ=250, at which an idle CPU would look
/// for a waiting thread (the kernel's newly-idle balance pulls at once; 4 ms bounds the wait).
pub const QUANTUM_MS: f64 = 4.0;

pub const OPTIONS: [OptionInfo; 1] = [OptionInfo {
    name: "quantum_ms",
    kind: OptionKind::quantum_ms(QUANTUM_MS),
    doc: "how often waiting threads are moved to idle CPUs and threads beside a busy sibling to fully idle cores",
}];

pub const INFO: PolicyInfo = PolicyInfo {
    name: "smt-aware",
    description: "idle selection that prefers a fully idle physical core of the highest capacity, then an idle hardware thread \
                  of a busy core",
    source: "Linux kernel/sched/fair.c (select_idle_core, select_idle_smt, SD_SHARE_CPUCAPACITY); scx_bpfland/scx_lavd idle SMT mask",
    options: &OPTIONS,
    needs: Signals::WAKEUP,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(SmtAware::new(o, m))),
};

pub struct SmtAware {
    period_ns: u64,
    /// Each core's hardware threads (itself included).
    siblings: Vec<CoreSet>,
    /// Busy CPUs in this call: the view's, and those chosen so far.
    busy: Vec<bool>,
}

impl SmtAware {
    pub fn new(o: &Options, m: &Machine) -> Self {
        SmtAware { period_ns: o.ms("quantum_ms"), siblings: (0..m.num_cores()).map(|c| m.smt_siblings(c)).collect(), busy: Vec::new() }
    }

    fn fully_idle(&self, c: usize) -> bool {
        self.siblings[c].iter().all(|s| !self.busy[s])
    }

    /// The rule's choice for a thread last on `prev`, among CPUs of capacity at least
    /// `at_least` (any core: the policy sets every affinity itself): a fully idle core's thread,
    /// else (unless `whole_core_only`) any idle CPU; None with none.
    pub fn choose(&self, m: &Machine, prev: Option<usize>, whole_core_only: bool, at_least: u32) -> Option<usize> {
        let idle = |c: usize| !self.busy[c] && m.core_type_of(c).capacity >= at_least;
        // Highest capacity, then the previous core's physical core, then the lowest number.
        let rank = |c: usize| (m.core_type_of(c).capacity, prev.is_some_and(|p| self.siblings[p].contains(c)), std::cmp::Reverse(c));
        let best = |want_whole: bool| (0..m.num_cores()).filter(|&c| idle(c) && (!want_whole || self.fully_idle(c))).max_by_key(|&c| rank(c));
        best(true).or_else(|| if whole_core_only { None } else { best(false) })
    }

    fn place(&mut self, view: &SystemView, t: ThreadId, to: usize, out: &mut Placement) {
        if let Some(c) = view.thread(t).core.filter(|_| view.thread(t).state == ThreadState::Running) {
            self.busy[c] = view.cores[c].nr_running > 1;
        }
        self.busy[to] = true;
        if view.thread(t).allowed != CoreSet::single(to) {
            out.set(t, CoreSet::single(to));
        }
    }

    fn managed(view: &SystemView, t: ThreadId) -> bool {
        view.apps[view.thread(t).app as usize].policy_managed
    }
}

impl Policy for SmtAware {
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.period_ns)
    }
    fn triggers(&self) -> Triggers {
        Triggers { start: true, wake: true, ..Triggers::NONE }
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let m = view.machine;
        self.busy.clear();
        self.busy.extend(view.cores.iter().map(|c| c.nr_running > 0));
        match view.trigger {
            Trigger::Start(t) | Trigger::Wake(t) if Self::managed(view, t) && view.thread(t).state.is_runnable() => {
                // The waking thread is not yet running: its queue place does not make its CPU busy.
                let th = view.thread(t);
                if let (ThreadState::Ready, Some(c)) = (th.state, th.core) {
                    self.busy[c] = view.cores[c].nr_running > 1;
                }
                if let Some(to) = self.choose(m, th.core, false, 0) {
                    self.place(view, t, to, out);
                }
            }
            Trigger::Quantum => {
                // Waiting threads to idle CPUs; then threads beside a busy sibling to whole idle cores.
                for th in view.live_threads().filter(|th| th.state == ThreadState::Ready && Self::managed(view, th.id)) {
                    if let Some(to) = self.choose(m, th.core, false, 0) {
                        self.place(view, th.id, to, out);
                    }
                }
                for th in view.live_threads().filter(|th| th.state == ThreadState::Running && Self::managed(view, th.id)) {
                    let Some(c) = th.core else { continue };
                    if self.siblings[c].iter().any(|s| s != c && self.busy[s]) {
                        if let Some(to) = self.choose(m, Some(c), true, m.core_type_of(c).capacity) {
                            self.place(view, th.id, to, out);
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}
