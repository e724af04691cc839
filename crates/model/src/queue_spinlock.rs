//! The queue spinlock (`wait = "queue_spinlock"` on a critical phase, docs/queue-spinlock.md):
//! the OS lock of "Opportunistic Competition Overhead Reduction for Expediting Critical Section
//! in NoC based CMPs" (Yao & Lu), §2.2 and Alg. 1-2, run over the machine's mesh
//! (`[interconnect]`).
//!
//! A waiter retries the lock up to `max_spin` times, each retry an atomic request packet from its
//! core's node to the lock's home node and a reply back, `relax_cycles` of `cpu_relax()` between
//! retries; then it prepares to sleep (`sleep_prep_us`) and sleeps in the kernel (futex wait)
//! until a releaser's wake-up reaches the home; the woken thread pays `wakeup_us` before it
//! retries. This file holds the format (keys, defaults with their sources, ranges) and the checks
//! made where the workload meets its machine; the engine's side is `ampsched_sim::qspin`.

use crate::limits::{self, Bounds};
use crate::toml_read::Node;
use crate::workload::{Phase, Wait, Workload, CYCLES_PER_SPIN_ITERATION};
use crate::Result;

/// Retries of the spinning phase: 128, the paper's MAX_SPIN_COUNT ("the maximum spinning times
/// of a queue spinlock is 128", §2.2's footnote, "based on the Linux 4.2 kernel"; Table 2: "128
/// retry times in the spinning phase").
pub const DEFAULT_MAX_SPIN: u32 = 128;

/// Cycles of `cpu_relax()` between two retries, at the waiting core's clock: the paper gives
/// none (Alg. 1 line 9). Linux's `cpu_relax()` is one PAUSE on x86 (arch/x86/include/asm/
/// vdso/processor.h, `rep; nop`), about 10 cycles before Skylake: the same cost as one iteration
/// of the engine's spin-wait loop (`CYCLES_PER_SPIN_ITERATION`, whose comment gives its source),
/// so one constant says both. A retry's cost is then dominated by its round trip through the mesh,
/// as in the paper's Fig. 4a, where the retry interval is short against the wake-up.
pub const DEFAULT_RELAX_CYCLES: u64 = CYCLES_PER_SPIN_ITERATION;

/// The futex sleep's preparation, µs (Alg. 1 line 12: `sys_futex(lock, FUTEX_WAIT)` up to the
/// moment the core is given away): the paper gives none (its Fig. 5 toy uses 4 units, four
/// retry intervals). A thread's voluntary context switch on Linux, measured by a futex-based
/// ping-pong of two threads pinned on one core, costs 1.1 to 1.3 µs (Eli Bendersky, "Measuring
/// context switching and memory overheads for Linux threads", 2018: ~1.2 µs per switch;
/// albertnetymk.github.io, "Context Switch on Linux", 2022: ~1.3 µs with a mutex and condition
/// variable); the system call's entry and the futex hash bucket's lock add ~0.1-0.2 µs. 1.5 µs.
pub const DEFAULT_SLEEP_PREP_US: f64 = 1.5;

/// The wake-up, µs: from the wake-up request reaching the home (`sys_futex(lock, FUTEX_WAKE)`)
/// to the woken thread running again on its core, where it retries the lock. The paper gives
/// none. The waker's futex wake, the scheduler's wake-up path, the sleeper's idle core leaving
/// its idle state and the context switch in (~1.2 µs, as `DEFAULT_SLEEP_PREP_US`): a sleeping
/// thread's wake-up latency on an idle machine is a few µs on a standard kernel (rt-tests'
/// cyclictest averages; kernel.org schbench's wake-up latency percentiles), the range the
/// machine key `lock_wake_us` documents. 5 µs, inside it.
pub const DEFAULT_WAKEUP_US: f64 = 5.0;

/// A lock's home node by default, when the phase gives no `home`: a fixed hash of the app's index
/// and the lock's index over the mesh's nodes, as a lock variable's address would map to an
/// address-interleaved L2 bank (Table 2: "chip-wide shared" L2, one bank per node). Fibonacci
/// hashing (Knuth, TAOCP vol. 3, §6.4): the 64-bit golden-ratio multiplier, its top 32 bits
/// reduced modulo the node count.
pub fn default_home(app: usize, lock: usize, nodes: u32) -> u32 {
    const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
    let key = ((app as u64) << 32) | lock as u64;
    let hashed = key.wrapping_add(1).wrapping_mul(GOLDEN) >> 32;
    (hashed % nodes.max(1) as u64) as u32
}

/// The options of one queue spinlock (`Wait::QueueSpinlock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueSpinlock {
    /// Retries of the spinning phase (`max_spin`): the first writes RTR = max_spin, the last 1.
    pub max_spin: u32,
    /// `cpu_relax()` cycles between two retries, at the core's clock (`relax_cycles`).
    pub relax_cycles: u64,
    /// The futex sleep's preparation, ns (`sleep_prep_us`), on the core.
    pub sleep_prep_ns: u64,
    /// The woken thread's wake-up, ns (`wakeup_us`), before it retries.
    pub wakeup_ns: u64,
    /// The lock's home node (`home`); None: `default_home`.
    pub home: Option<u32>,
}

impl Default for QueueSpinlock {
    fn default() -> Self {
        QueueSpinlock {
            max_spin: DEFAULT_MAX_SPIN,
            relax_cycles: DEFAULT_RELAX_CYCLES,
            sleep_prep_ns: us_to_ns(DEFAULT_SLEEP_PREP_US),
            wakeup_ns: us_to_ns(DEFAULT_WAKEUP_US),
            home: None,
        }
    }
}

/// Retries of the spinning phase: 1 to 2^20 (the paper's 128 and glibc's adaptive mutex's 100,
/// `glibc.pthread.mutex_spin_count`, are far inside; RTR is then a u32 and the priority levels'
/// segments of `max_spin / levels` retries stay whole numbers for any level count up to it).
pub const MAX_SPIN: u64 = 1 << 20;
/// `cpu_relax()` cycles between retries: none to a million (0.5 ms at 2 GHz, a sleep's worth).
pub const RELAX_CYCLES: Bounds = Bounds { min: 0.0, min_open: false, max: 1e6, unit: "cycles" };
/// The sleep's preparation and the wake-up, µs: 0 (not modelled) to 10 ms, as `LOCK_WAKE_US`.
pub const SLEEP_PREP_US: Bounds = limits::LOCK_WAKE_US;
pub const WAKEUP_US: Bounds = limits::LOCK_WAKE_US;
/// A home node: 0 to 65,535 at reading (the mesh's node ids are u16, `Interconnect`); below the
/// machine's node count where the workload meets its machine (`check`).
pub const MAX_HOME: u64 = u16::MAX as u64;

/// The keys only `wait = "queue_spinlock"` takes.
pub const KEYS: [&str; 5] = ["max_spin", "relax_cycles", "sleep_prep_us", "wakeup_us", "home"];

/// Read the queue spinlock's keys of phase `p` (its `wait` is "queue_spinlock").
pub fn read(p: &mut Node) -> Result<QueueSpinlock> {
    let d = QueueSpinlock::default();
    let max_spin = p.opt_count("max_spin", MAX_SPIN)?.unwrap_or(d.max_spin);
    let relax_cycles = match p.opt_number("relax_cycles", &RELAX_CYCLES)? {
        Some(c) if c.fract() != 0.0 => return Err(p.err("relax_cycles", format!("must be a whole number of cycles, got {c}"))),
        Some(c) => c as u64,
        None => d.relax_cycles,
    };
    let sleep_prep_ns = p.opt_number("sleep_prep_us", &SLEEP_PREP_US)?.map_or(d.sleep_prep_ns, us_to_ns);
    let wakeup_ns = p.opt_number("wakeup_us", &WAKEUP_US)?.map_or(d.wakeup_ns, us_to_ns);
    let home = match p.opt_int("home")? {
        None => None,
        Some(h) if (0..=MAX_HOME as i64).contains(&h) => Some(h as u32),
        Some(h) => return Err(p.err("home", format!("must be a node id from 0 to {MAX_HOME}, got {h}"))),
    };
    Ok(QueueSpinlock { max_spin, relax_cycles, sleep_prep_ns, wakeup_ns, home })
}

/// Refuse a queue spinlock's key on a phase whose wait is not "queue_spinlock".
pub fn refuse_keys(p: &Node) -> Result<()> {
    match KEYS.iter().find(|k| p.has(k)) {
        Some(k) => Err(p.err(k, "only wait = \"queue_spinlock\" (on a critical phase) takes this key")),
        None => Ok(()),
    }
}

fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

/// Whether some critical phase of `w` waits with a queue spinlock.
pub fn uses_queue_spinlock(w: &Workload) -> bool {
    w.apps.iter().flat_map(|a| &a.groups).flat_map(|g| &g.phases).any(|p| matches!(p, Phase::Critical { wait: Wait::QueueSpinlock(_), .. }))
}

/// The queue spinlock of lock `lock` of app `a`: the options of its first critical phase (`check`
/// holds every phase of the lock to the same). None for a lock of another kind.
pub fn of_lock(w: &Workload, a: usize, lock: usize) -> Option<QueueSpinlock> {
    w.apps[a].groups.iter().flat_map(|g| &g.phases).find_map(|p| match p {
        Phase::Critical { lock: l, wait: Wait::QueueSpinlock(q), .. } if *l == lock => Some(*q),
        _ => None,
    })
}

/// The node count of machine `m`'s mesh; None: it has no `[interconnect]`.
pub fn mesh_nodes(m: &crate::Machine) -> Option<u32> {
    m.interconnect.as_ref().map(|i| i.nodes() as u32)
}

/// Where a workload with queue spinlocks meets its machine, whose mesh has `nodes` nodes (None:
/// the machine has no `[interconnect]`): a queue spinlock needs a mesh, its `home` must be one of
/// its nodes, and every critical phase of one lock must wait alike (one lock has one home and one
/// algorithm). Err: (the workload key, the message), for the caller to name its file.
pub fn check(w: &Workload, nodes: Option<u32>, machine: &str) -> std::result::Result<(), (String, String)> {
    for app in &w.apps {
        for lock in 0..app.locks.len() {
            let waits: Vec<Wait> = app
                .groups
                .iter()
                .flat_map(|g| &g.phases)
                .filter_map(|p| match p {
                    Phase::Critical { lock: l, wait, .. } if *l == lock => Some(*wait),
                    _ => None,
                })
                .collect();
            let Some(Wait::QueueSpinlock(q)) = waits.iter().copied().find(|w| matches!(w, Wait::QueueSpinlock(_))) else { continue };
            let name = format!("app '{}', lock '{}'", app.name, app.locks[lock]);
            if waits.iter().any(|w| *w != Wait::QueueSpinlock(q)) {
                return Err(("wait".into(), format!("{name}: every critical phase of a queue spinlock must give the same wait and keys")));
            }
            let Some(nodes) = nodes else {
                return Err(("wait".into(), format!("{name} is a queue spinlock, which needs a network: machine '{machine}' has no [interconnect]")));
            };
            if let Some(h) = q.home.filter(|&h| h >= nodes) {
                return Err(("home".into(), format!("{name}: home node {h} is not on machine '{machine}''s mesh of {nodes} nodes (0 to {})", nodes - 1)));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_values() {
        let d = QueueSpinlock::default();
        assert_eq!((d.max_spin, d.relax_cycles, d.sleep_prep_ns, d.wakeup_ns, d.home), (128, 10, 1500, 5000, None));
    }

    #[test]
    fn default_homes_spread_over_the_nodes() {
        // Eight locks of one app on 64 nodes: a hash, not a constant; always on the mesh.
        let homes: Vec<u32> = (0..8).map(|l| default_home(0, l, 64)).collect();
        assert!(homes.iter().all(|&h| h < 64));
        let mut distinct = homes.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() >= 6, "{homes:?}");
        assert_eq!(default_home(3, 1, 1), 0);
    }
}
