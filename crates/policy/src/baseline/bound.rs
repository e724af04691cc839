//! `bound`: one fixed binding of threads to cores, the runs behind the Sáez thesis's default
//! metric (§4.3.3, "Experimental methodology and metrics"): each benchmark is run bound to a
//! core of one type while the others run on the other cores, then bound to a core of the other
//! type, and its default completion time is the average of the two, the expected completion
//! time of a benchmark randomly bound to a core at its start and never migrated.
//!
//! Binding: the j-th thread to start (counting each thread of the workload once, by app, group
//! and index in its group; in the simulator, threads that start together start in the
//! workload's listing order) is pinned to core (j + offset) mod cores for its whole life, and
//! every later run of it (an app restarted under constant load) to the same core. Running
//! offsets 0..cores-1 ("rotations") moves every thread over every core once; the runner's
//! default baseline (`compare --baseline default`) averages those runs. One rotation alone is
//! this policy with `offset=r`.

use std::collections::HashMap;

use ampsched_model::{CoreSet, Placement, Policy, PolicyFailure, Signals, SystemView, Trigger, Triggers};

use crate::options::{OptionInfo, OptionKind};
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "bound",
    description: "thread j (in start order) pinned to core (j + offset) mod cores for its whole life: one run of the default metric",
    source: "Sáez thesis, §4.3.3 (the bound runs of the default metric)",
    options: &[OptionInfo {
        name: "offset",
        kind: OptionKind::Integer { default: 0, min: 0, max: 1 << 16 },
        doc: "the rotation: thread j goes to core (j + offset) mod cores",
    }],
    needs: Signals::NONE,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(Bound::new(m.num_cores(), o.integer("offset") as usize))),
};

#[derive(Debug, Default)]
pub struct Bound {
    cores: usize,
    offset: usize,
    /// Core of each thread of the workload, keyed by (app, group, index in group).
    core_of: HashMap<(u32, u16, u32), usize>,
}

impl Bound {
    pub fn new(cores: usize, offset: usize) -> Self {
        Bound { cores: cores.max(1), offset, core_of: HashMap::new() }
    }
}

impl Policy for Bound {
    fn triggers(&self) -> Triggers {
        Triggers::START
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        let Trigger::Start(t) = view.trigger else { return Ok(()) };
        let v = view.thread(t);
        let next = self.core_of.len();
        let (cores, offset) = (self.cores, self.offset);
        let core = *self.core_of.entry((v.app, v.group, v.index_in_group)).or_insert((next + offset) % cores);
        out.set(t, CoreSet::single(core));
        Ok(())
    }
}
