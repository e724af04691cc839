//! `busyfcs`: never leave a fast core idle while a slow core runs a thread (Sáez thesis, ch. 5
//! baseline "BusyFCs", after Balakrishnan et al.; Li et al.'s AMPS is similar).
//!
//! Threads start in the partition of lowest scaled load (thesis §2.3). Whenever a fast core
//! would idle (a thread blocked or exited there) and a slow-partition thread is runnable, that
//! thread moves to the fast partition at once. The thesis does not say which slow thread; we
//! take the one with the least fast-core time so far (ties: lowest id), which spreads the fast
//! cores over the threads. When woken threads overload the fast partition while a slow core
//! idles, the fast thread with the most fast-core time moves back.

use std::cmp::Reverse;

use ampsched_model::{Machine, Placement, Policy, Signals, SystemView, ThreadId, ThreadView, Trigger, Triggers};

use crate::common::{Move, Partitions};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "busyfcs",
    description: "never leaves a fast core idle while a slow core runs a thread",
    source: "Sáez thesis, ch. 5 (BusyFCs, after Balakrishnan et al.)",
    options: &[],
    needs: Signals::NONE,
    build: Build::Policy(|_, m| Box::new(BusyFcs::new(m))),
};

pub struct BusyFcs {
    parts: Partitions,
}

impl BusyFcs {
    pub fn new(m: &Machine) -> Self {
        BusyFcs { parts: Partitions::new(m) }
    }
}

impl Policy for BusyFcs {
    fn name(&self) -> &str {
        INFO.name
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) {
        if let Trigger::Start(t) = view.trigger {
            self.parts.place_new(view, t, out);
        }
        let m = view.machine;
        let pick = |ts: &[&ThreadView], dir: Move| -> ThreadId {
            match dir {
                Move::Up => ts.iter().min_by_key(|t| (t.fast_time_ns(m), t.id)),
                Move::Down => ts.iter().max_by_key(|t| (t.fast_time_ns(m), Reverse(t.id))),
            }
            .expect("keep_fast_busy offers at least one thread")
            .id
        };
        self.parts.keep_fast_busy(view, out, pick);
    }
}
