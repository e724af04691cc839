//! `busyfcs`: never leave a fast core idle while a slow core runs a thread (Sáez thesis, ch. 5
//! baseline "BusyFCs", after Balakrishnan et al.; Li et al.'s AMPS is similar).
//!
//! Threads start in the partition of lowest scaled load (thesis §2.3). Whenever a fast core
//! would idle (a thread blocked or exited there) and a slow-partition thread is runnable, that
//! thread moves to the fast partition at once. The thesis does not say which slow thread; we
//! take the one with the least fast-core time so far (ties: lowest id), which spreads the fast
//! cores over the threads. When woken threads overload the fast partition while a slow core
//! idles, the fast thread with the most fast-core time moves back (ties: lowest id).

use std::cmp::Reverse;

use ampsched_model::{Machine, Placement, Policy, PolicyFailure, Signals, SystemView, Trigger, Triggers};

use crate::common::{Claim, Partitions, PREFER_LOCAL_OPTION};
use crate::options::Options;
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "busyfcs",
    description: "never leaves a fast core idle while a slow core runs a thread",
    source: "Sáez thesis, ch. 5 (BusyFCs, after Balakrishnan et al.)",
    options: &[PREFER_LOCAL_OPTION],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(BusyFcs::new(o, m))),
};

/// Fast-core time so far as a claim on the fast cores: the less a thread has had, the higher.
/// It falls while the thread runs on a fast core, which no call reports, so `Partitions` reads
/// it when a move needs it (a thread never read claims the most: no fast time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct FastTime(Reverse<u64>);

impl Claim for FastTime {
    const FALLS_UNSEEN: bool = true;
}

pub struct BusyFcs {
    parts: Partitions<FastTime>,
}

impl BusyFcs {
    pub fn new(o: &Options, m: &Machine) -> Self {
        BusyFcs { parts: Partitions::with_topology(m, o.flag(PREFER_LOCAL_OPTION.name)) }
    }
}

impl Policy for BusyFcs {
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        if let Trigger::Start(t) = view.trigger {
            self.parts.place_new(view, t, out);
        }
        let m = view.machine;
        self.parts.keep_fast_busy(view, out, |v| FastTime(Reverse(v.fast_time_ns(m))));
        Ok(())
    }
}
