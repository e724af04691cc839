//! Hardware performance counters (perf_event_open(2)): whether this machine gives them.
//!
//! The policies that read instructions, cycles or LLC misses (the Sáez thesis's SF estimators,
//! IPC-driven scheduling) refuse to run live where `probe` fails, with its reason. Virtual
//! machines often expose no PMU (this project's CI machine does not), and
//! kernel.perf_event_paranoid may forbid per-thread counting of other users' threads.

/// Try to open an instructions counter on the calling thread. Ok when the kernel gives one.
pub fn probe() -> Result<(), String> {
    // struct perf_event_attr, zeroed, as u64 words: word 0 = type (u32) | size (u32) << 32,
    // word 1 = config, word 5 = the flag bits. PERF_ATTR_SIZE_VER5 = 112 bytes.
    const PERF_TYPE_HARDWARE: u64 = 0;
    const PERF_COUNT_HW_INSTRUCTIONS: u64 = 1;
    const SIZE: u64 = 112;
    const DISABLED: u64 = 1 << 0;
    const EXCLUDE_KERNEL: u64 = 1 << 5;
    const EXCLUDE_HV: u64 = 1 << 6;
    let mut attr = [0u64; 16];
    attr[0] = PERF_TYPE_HARDWARE | (SIZE << 32);
    attr[1] = PERF_COUNT_HW_INSTRUCTIONS;
    attr[5] = DISABLED | EXCLUDE_KERNEL | EXCLUDE_HV;
    // SAFETY: perf_event_open reads `SIZE` bytes of the attribute buffer, which has 128.
    let fd = unsafe { libc::syscall(libc::SYS_perf_event_open, attr.as_ptr(), 0, -1, -1, 0) };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        let why = match e.raw_os_error() {
            Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) => "the CPU or hypervisor exposes no hardware counters".to_string(),
            Some(libc::EACCES) | Some(libc::EPERM) => {
                let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid").unwrap_or_default();
                format!("not permitted (kernel.perf_event_paranoid = {}; run as root or lower it)", paranoid.trim())
            }
            Some(libc::ENOSYS) => "the kernel has no perf_event support".to_string(),
            _ => e.to_string(),
        };
        return Err(format!("hardware counters unavailable: {why}"));
    }
    // SAFETY: closing the descriptor we opened.
    unsafe { libc::close(fd as i32) };
    Ok(())
}
