//! Today's schedulers: what Linux mainline and sched_ext schedulers run on asymmetric chips now,
//! beside the literature's policies. Each file opens with the public source it follows (Linux
//! kernel/sched/fair.c, the sched-ext/scx repository's schedulers), states its rule in a few
//! lines and what it simplifies. The capacity rules and the utilisation estimate they share are
//! in `common::utilization`.

pub mod compaction;
pub mod linux_capacity;
pub mod linux_eas;
pub mod p2dq_eas;
pub mod primary_domain;
pub mod smt_aware;

use ampsched_model::{CoreSet, InputError, Machine, Placement, SystemView, ThreadId};

use crate::options::Options;
use crate::PolicyInfo;

/// The family, in the registry's order.
pub const FAMILY: [&PolicyInfo; 6] = [&linux_capacity::INFO, &smt_aware::INFO, &linux_eas::INFO, &compaction::INFO, &p2dq_eas::INFO, &primary_domain::INFO];

/// The decision period of the policies that stand for a per-wake-up rule with affinities set
/// every quantum: `linux-capacity`'s balance interval, one scheduler tick at CONFIG_HZ=250, so a
/// thread is looked at again about as often as the kernel looks at a running one.
pub const DECISION_MS: f64 = linux_capacity::BALANCE_MS;

/// What a policy of this family checks against the machine before it is built: `linux-eas`
/// needs an energy model (powers), `primary-domain` a domain the machine has.
pub fn check_machine(info: &PolicyInfo, o: &Options, m: &Machine, spec: &str) -> Result<(), InputError> {
    let why = if info.name == linux_eas::INFO.name {
        linux_eas::check_machine(m).err()
    } else if info.name == primary_domain::INFO.name {
        primary_domain::resolve(o.text("domain"), m).err()
    } else {
        None
    };
    why.map_or(Ok(()), |why| Err(InputError::new("--policy", spec, why)))
}

/// Give thread `t` the affinity `cores` unless the view shows it has it already: the policies
/// that recompute every thread's place each interval decide only what changes.
pub fn set_if_changed(view: &SystemView, t: ThreadId, cores: &CoreSet, out: &mut Placement) {
    if &view.thread(t).allowed != cores {
        out.set(t, cores.clone());
    }
}
