//! `busyfcs`: never leave a fast core idle while a slow core runs a thread (Sáez thesis, ch. 5
//! baseline "BusyFCs", after Balakrishnan et al.; Li et al.'s AMPS is similar).
//!
//! Threads start in the partition of lowest scaled load (thesis §2.3). Whenever a fast core
//! would idle (a thread blocked or exited there) and a slow-partition thread is runnable, that
//! thread moves to the fast partition at once. The thesis does not say which slow thread; we
//! take the one with the least fast-core time so far (ties: lowest id), which spreads the fast
//! cores over the threads. When woken threads overload the fast partition while a slow core
//! idles, the fast thread with the most fast-core time moves back.

use ampsched_model::{Placement, Policy, SystemView, ThreadId, ThreadView, Trigger, Triggers};

use crate::options::{OptionInfo, Options, PolicySpec};
use crate::partition::{fast_time_ns, Partitions, Side};

pub const OPTIONS: &[OptionInfo] = &[];

pub struct BusyFcs {
    parts: Partitions,
}

impl BusyFcs {
    pub fn new(spec: &PolicySpec, m: &ampsched_model::Machine) -> Result<Self, ampsched_model::InputError> {
        Options::new(spec, OPTIONS)?;
        Ok(BusyFcs { parts: Partitions::new(m) })
    }
}

impl Policy for BusyFcs {
    fn name(&self) -> &str {
        "busyfcs"
    }
    fn quantum_ns(&self) -> Option<u64> {
        None
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) {
        if let Trigger::Start(t) = view.trigger {
            self.parts.place_new(view, t, out);
        }
        let pick = |ts: &[&ThreadView], from: Side| -> ThreadId {
            let key = |t: &&&ThreadView| (fast_time_ns(view, t), t.id);
            match from {
                Side::Slow => ts.iter().min_by_key(key),
                Side::Fast => ts.iter().max_by_key(|t| (fast_time_ns(view, t), std::cmp::Reverse(t.id))),
            }
            .expect("keep_fast_busy offers at least one thread")
            .id
        };
        self.parts.keep_fast_busy(view, out, pick);
    }
}
