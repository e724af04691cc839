//! A thread's utilisation clamps, read with sched_getattr(2): `sched_util_min` and
//! `sched_util_max` (Linux 5.3, CONFIG_UCLAMP_TASK), the hints `ThreadView::{uclamp_min,
//! uclamp_max}` carry. Read once, when the agent first sees the thread (a later sched_setattr of
//! the clamps is not followed).
//!
//! A kernel built without uclamp has no `/proc/sys/kernel/sched_util_clamp_max` and reports
//! both fields as 0 (it never fills them); there, and when the call fails (the thread exited),
//! the clamps read as none: 0 and 1024.

use std::sync::OnceLock;

use ampsched_model::limits::UCLAMP_MAX;

/// SCHED_ATTR_SIZE_VER1: struct sched_attr up to `sched_util_max`.
const ATTR_SIZE_VER1: u32 = 56;

/// The sysctl that exists only on a kernel with CONFIG_UCLAMP_TASK.
const UCLAMP_SYSCTL: &str = "/proc/sys/kernel/sched_util_clamp_max";

/// struct sched_attr (sched_setattr(2)) up to `sched_util_max`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct SchedAttrV1 {
    size: u32,
    policy: u32,
    flags: u64,
    nice: i32,
    priority: u32,
    runtime: u64,
    deadline: u64,
    period: u64,
    util_min: u32,
    util_max: u32,
}

/// Whether the running kernel tracks utilisation clamps.
pub fn kernel_has_uclamp() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| std::path::Path::new(UCLAMP_SYSCTL).exists())
}

/// Thread `tid`'s (uclamp_min, uclamp_max); (0, 1024) without uclamp or when unreadable.
pub fn read(tid: u32) -> (u32, u32) {
    const NONE: (u32, u32) = (0, UCLAMP_MAX);
    if !kernel_has_uclamp() {
        return NONE;
    }
    let mut a = SchedAttrV1::default();
    // SAFETY: the kernel writes at most ATTR_SIZE_VER1 bytes into the struct, which has that size.
    let r = unsafe { libc::syscall(libc::SYS_sched_getattr, tid as libc::pid_t, &mut a as *mut SchedAttrV1, ATTR_SIZE_VER1, 0u32) };
    if r != 0 {
        return NONE;
    }
    let max = a.util_max.min(UCLAMP_MAX);
    (a.util_min.min(max), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const _: () = assert!(std::mem::size_of::<SchedAttrV1>() == ATTR_SIZE_VER1 as usize);

    /// This thread has no clamps set: (0, 1024), with or without uclamp in the kernel.
    #[test]
    fn an_unclamped_thread_reads_0_and_1024() {
        let tid = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
        assert_eq!(read(tid), (0, UCLAMP_MAX));
    }
}
