//! `static`: each thread is pinned, when it starts, to one core and never moved: the core with
//! the fewest live pinned threads, lowest number first, so threads fill cores 0, 1, 2, ... in
//! arrival order. This is the binding behind the Sáez thesis's "default metric" (§4.5: a
//! benchmark bound to one core for its whole run, with no migration).

use ampsched_model::{CoreSet, Placement, Policy, SystemView, ThreadState, Trigger, Triggers};

use crate::options::OptionInfo;

pub const OPTIONS: &[OptionInfo] = &[];

#[derive(Debug, Default)]
pub struct StaticPin {
    core_of: Vec<Option<usize>>,
}

impl Policy for StaticPin {
    fn name(&self) -> &str {
        "static"
    }
    fn quantum_ns(&self) -> Option<u64> {
        None
    }
    fn triggers(&self) -> Triggers {
        Triggers { start: true, ..Triggers::NONE }
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) {
        let Trigger::Start(t) = view.trigger else { return };
        let mut pinned = vec![0usize; view.machine.num_cores()];
        for u in view.live_threads().filter(|u| u.id != t && u.state != ThreadState::Exited) {
            if let Some(Some(c)) = self.core_of.get(u.id as usize) {
                pinned[*c] += 1;
            }
        }
        let core = (0..pinned.len()).min_by_key(|&c| (pinned[c], c)).unwrap_or(0);
        if self.core_of.len() <= t as usize {
            self.core_of.resize(t as usize + 1, None);
        }
        self.core_of[t as usize] = Some(core);
        out.set(t, CoreSet::single(core));
    }
}
