//! Big, little and turbo CPUs as the sched_ext schedulers see them: the rule of sched-ext/scx's
//! rust/scx_utils/src/topology.rs (`create_insert_cpu`'s core type, `get_primary_cpus`), which
//! scx_lavd (cpu_order.rs: `big_core`), scx_p2dq (its little and big cpumasks) and scx_bpfland /
//! scx_cosmos (`-m performance|powersave|turbo`) all read.
//!
//! - The machine is big.LITTLE when its highest capacity is at least 1.3 times its lowest
//!   (`has_biglittle`); otherwise every CPU is big and none is little.
//! - A CPU is big when its capacity is at least the average capacity over all CPUs (not over
//!   core types: a type with many CPUs pulls the average its way), little otherwise.
//! - A CPU is turbo when it has the highest capacity and that is above the average.
//!
//! Capacities are the ones the OS reports (`CoreType::capacity`), as scx_utils reads sysfs
//! `cpu_capacity`: on a chip whose firmware reports them wrongly, so does this.
//!
//! Also here: the two CPU orders the schedulers walk when they fill CPUs, performance (biggest
//! first) and powersave (smallest first). scx_lavd's orders (cpu_order.rs) also group by
//! compute domain and SMT sibling; ours sort by capacity alone, ties by core number.

use ampsched_model::{CoreSet, Machine};

/// The ratio of highest to lowest capacity from which scx_utils calls a machine big.LITTLE
/// (topology.rs: `max_rcap >= 1.3 * min_rcap`).
pub const BIG_LITTLE_RATIO: f64 = 1.3;

/// A machine's CPUs by kind, as scx_utils classifies them.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreClasses {
    pub big: CoreSet,
    pub little: CoreSet,
    /// The big CPUs of the highest capacity, when it is above the average (else empty).
    pub turbo: CoreSet,
    /// Cores by capacity, highest first (ties: lower core number first).
    pub performance_order: Vec<usize>,
    /// Cores by capacity, lowest first (ties: lower core number first).
    pub powersave_order: Vec<usize>,
}

impl CoreClasses {
    pub fn of(m: &Machine) -> CoreClasses {
        let cap = |c: usize| m.core_type_of(c).capacity;
        let n = m.num_cores();
        let max = (0..n).map(cap).max().unwrap_or(0);
        let min = (0..n).map(cap).min().unwrap_or(0);
        let sum: u64 = (0..n).map(|c| cap(c) as u64).sum();
        // scx_utils averages in integers.
        let avg = sum / n.max(1) as u64;
        let big_little = max as f64 >= BIG_LITTLE_RATIO * min as f64;
        let mut classes =
            CoreClasses { big: CoreSet::EMPTY, little: CoreSet::EMPTY, turbo: CoreSet::EMPTY, performance_order: Vec::new(), powersave_order: Vec::new() };
        for c in 0..n {
            if avg < max as u64 && cap(c) == max {
                classes.turbo.insert(c);
            }
            if !big_little || cap(c) as u64 >= avg {
                classes.big.insert(c);
            } else {
                classes.little.insert(c);
            }
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&c| (std::cmp::Reverse(cap(c)), c));
        classes.performance_order = order.clone();
        order.sort_by_key(|&c| (cap(c), c));
        classes.powersave_order = order;
        classes
    }

    /// Whether the machine has little CPUs at all (scx_utils `has_little_cores`).
    pub fn has_little(&self) -> bool {
        !self.little.is_empty()
    }
}
