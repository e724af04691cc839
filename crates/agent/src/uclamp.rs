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

use crate::sched_attr;

/// The sysctl that exists only on a kernel with CONFIG_UCLAMP_TASK.
const UCLAMP_SYSCTL: &str = "/proc/sys/kernel/sched_util_clamp_max";

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
    let Ok(a) = sched_attr::get(tid, sched_attr::SIZE_VER1) else { return NONE };
    let max = a.util_max.min(UCLAMP_MAX);
    (a.util_min.min(max), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This thread has no clamps set: (0, 1024), with or without uclamp in the kernel.
    #[test]
    fn an_unclamped_thread_reads_0_and_1024() {
        let tid = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
        assert_eq!(read(tid), (0, UCLAMP_MAX));
    }
}
