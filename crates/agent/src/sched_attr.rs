//! struct sched_attr and the two system calls that read and write it (sched_getattr(2),
//! sched_setattr(2)), which glibc does not wrap: what the slice enforcement (`sched_runtime`) and
//! the uclamp reader (`sched_util_min`/`sched_util_max`) share.
//!
//! The struct grew with the kernel; a caller passes the size it means (`SIZE_VER0`, `SIZE_VER1`):
//! the kernel reads or writes that many bytes, so a call that needs only the first fields works on
//! a kernel that predates the later ones.

/// SCHED_ATTR_SIZE_VER0 (Linux 3.14): the fields up to `sched_period`.
pub const SIZE_VER0: u32 = 48;
/// SCHED_ATTR_SIZE_VER1 (Linux 5.3): up to `sched_util_max`.
pub const SIZE_VER1: u32 = 56;

/// struct sched_attr (include/uapi/linux/sched/types.h) up to `sched_util_max`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SchedAttr {
    pub size: u32,
    pub policy: u32,
    pub flags: u64,
    pub nice: i32,
    pub priority: u32,
    pub runtime: u64,
    pub deadline: u64,
    pub period: u64,
    pub util_min: u32,
    pub util_max: u32,
}

const _: () = assert!(std::mem::size_of::<SchedAttr>() == SIZE_VER1 as usize);

/// Thread `tid`'s attributes, the first `size` bytes of them (0: the calling thread).
pub fn get(tid: u32, size: u32) -> std::io::Result<SchedAttr> {
    assert!(size <= SIZE_VER1);
    let mut a = SchedAttr::default();
    // SAFETY: the kernel writes at most `size` bytes into the struct, which has at least that size.
    let r = unsafe { libc::syscall(libc::SYS_sched_getattr, tid as libc::pid_t, &mut a as *mut SchedAttr, size, 0u32) };
    if r == 0 {
        Ok(a)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Set thread `tid`'s attributes from the first `size` bytes of `a`.
pub fn set(tid: u32, a: &SchedAttr, size: u32) -> std::io::Result<()> {
    assert!(size <= SIZE_VER1);
    let a = SchedAttr { size, ..*a };
    // SAFETY: the kernel reads `size` bytes of the struct, which has at least that size.
    let r = unsafe { libc::syscall(libc::SYS_sched_setattr, tid as libc::pid_t, &a as *const SchedAttr, 0u32) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
