//! Schedulers of WASH, "Portable Performance on Asymmetric Multicore Processors" (Jibaja et al.,
//! CGO 2016): WASH itself (`wash`, Algorithm 1), and the two schedulers it is compared with:
//! bindVM (`bindvm`, Cao et al., ISCA 2012, as WASH §3 and §7 use it) and PFS (`pfs`, WASH built
//! without its application-over-runtime preference and lock prioritisation, WASH §3 and §8.5).
//!
//! Each app is one managed runtime (a JVM) with its own scheduler; the big cores C_B (the
//! machine's fast cores, `Machine::is_fast_type`) and the small cores C_S (all the others) are
//! the machine's.

pub mod bindvm;
pub mod pfs;
#[allow(clippy::module_inception)]
pub mod wash;

use ampsched_model::{CoreSet, Machine, ThreadKind};

/// bindVM's binding, which is also WASH's fallback for a thread that has no profile yet (WASH
/// §6, after Cao et al.): application threads on the big cores, runtime helper threads (GC, JIT)
/// on the small ones.
pub fn bind_vm_cores(m: &Machine, kind: ThreadKind) -> CoreSet {
    match kind {
        ThreadKind::App => m.fast_cores(),
        ThreadKind::Runtime => m.slow_cores(),
    }
}
