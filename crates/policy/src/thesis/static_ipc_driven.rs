//! `static-ipc-driven`: IPC-Driven's ranking (Sáez thesis, §4.2.3, Algorithm 4.3) with the IPC
//! ratios measured offline, as Becchi and Crowley's original evaluation had them (§4.3.4: "IPCs
//! used to compute ratios were obtained from offline IPC traces", so both were known at once and
//! from the same phase).
//!
//! A thread's ratio is its program group's instructions per second alone on a fast core over
//! alone on a slow one, from the solo profiling runs the runner makes before the run
//! (`Signals::PROFILE`, `AppView::solo_ips`): the whole program's speedup factor, one number for
//! its whole life. The policy reads nothing else of the program. Threads start in the partition
//! of lowest scaled load (§2.3) and are pinned at once (no warm-up, no refresh: the ratio is
//! known); each thread entering the pinned sets (at its start, or when it wakes) is ranked by
//! Algorithm 4.3 (`common::RatioRank`). Ratios never change, so no swap undoes another and no
//! inactivity period is needed. One-way moves keep fast cores busy, the highest ratio going up
//! and the lowest down.

use ampsched_model::{Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use crate::common::{F64Key, Partitions, PerThread, RatioRank, FAST, PREFER_LOCAL_OPTION};
use crate::options::Options;
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "static-ipc-driven",
    description: "IPC-Driven's ranking with each program's fast/slow ratio measured offline (alone on each core type)",
    source: "Sáez thesis, §4.2.3, Algorithm 4.3, with offline ratios as in Becchi & Crowley's simulation (§4.3.4)",
    options: &[PREFER_LOCAL_OPTION],
    needs: Signals::PROFILE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(StaticIpcDriven::new(o, m))),
};

pub struct StaticIpcDriven {
    parts: Partitions<F64Key>,
    rank: RatioRank,
    /// The core types whose solo rates make the ratio: the fastest, and the type of the next
    /// slower partition (the slow type on the thesis's machines).
    fast_type: usize,
    slow_type: usize,
    ratio: PerThread<f64>,
}

impl StaticIpcDriven {
    pub fn new(o: &Options, m: &Machine) -> Self {
        let parts: Partitions<F64Key> = Partitions::with_topology(m, o.flag(PREFER_LOCAL_OPTION.name));
        let fast_type = m.fastest_type();
        let slow_type = if parts.asymmetric() { parts.cores(FAST + 1).first().map_or(fast_type, |c| m.cores[c].core_type) } else { fast_type };
        StaticIpcDriven { parts, rank: RatioRank::new(), fast_type, slow_type, ratio: PerThread::new() }
    }

    /// Thread `t`'s ratio, from its program group's solo profile.
    fn solo_ratio(&self, view: &SystemView, t: ThreadId) -> f64 {
        let v = view.thread(t);
        let ips = view.apps[v.app as usize].solo_ips[v.group as usize].expect("Signals::PROFILE gives every group a profile");
        let ratio = ips[self.fast_type] / ips[self.slow_type];
        // A program that retired nothing alone (it only spun or slept) gives no evidence either
        // way: ratio 1, as ipc-driven gives a thread that retired nothing in a refresh.
        if ratio.is_finite() && ratio > 0.0 {
            ratio
        } else {
            1.0
        }
    }

    /// Bring thread `t`'s place in the pinned sets up to date; a thread entering them is ranked.
    fn refile(&mut self, view: &SystemView, t: ThreadId, out: &mut Placement) {
        let at = match (view.thread(t).state.is_runnable(), self.parts.level(t)) {
            (true, Some(level)) => Some((level, self.ratio.value(t))),
            _ => None,
        };
        match at {
            Some((level, ratio)) if !self.rank.is_pinned(t) => {
                if let Some(p) = self.rank.partner(t, level, ratio) {
                    self.parts.swap(view, t, p, out);
                    self.rank.pin(p, self.parts.level(p).map(|l| (l, self.ratio.value(p))));
                }
                self.rank.pin(t, self.parts.level(t).map(|l| (l, ratio)));
            }
            _ => self.rank.pin(t, at),
        }
    }
}

impl Policy for StaticIpcDriven {
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let Some(changed) = self.parts.begin(view) else { return Ok(()) };
        if let Trigger::Start(t) = view.trigger {
            let ratio = self.solo_ratio(view, t);
            self.ratio.set(t, ratio);
            self.parts.set_claim(t, F64Key(ratio));
            self.parts.place_new(view, t, out);
        }
        for &t in changed {
            self.refile(view, t, out);
        }
        let ratio = &self.ratio;
        self.parts.keep_fast_busy(view, out, |v| F64Key(ratio.value(v.id)));
        // One-way moves keep the ranking (the highest ratio goes up, the lowest down): the
        // pinned sets only follow.
        let moved: Vec<ThreadId> = out.named_threads().collect();
        for t in moved {
            let at = self.parts.level(t).filter(|_| view.thread(t).state.is_runnable()).map(|l| (l, self.ratio.value(t)));
            self.rank.pin(t, at);
        }
        Ok(())
    }
}
