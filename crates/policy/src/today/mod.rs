//! Today's schedulers: what Linux mainline and sched_ext schedulers run on asymmetric chips now,
//! beside the literature's policies. Each file opens with the public source it follows (Linux
//! kernel/sched/fair.c, the sched-ext/scx repository's schedulers), states its rule in a few
//! lines and what it simplifies. The capacity rules and the utilisation estimate they share are
//! in `common::utilization`.

pub mod linux_capacity;
pub mod smt_aware;
