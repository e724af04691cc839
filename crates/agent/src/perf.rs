//! Hardware counters from perf_event_open(2): one group per target thread (pid = tid, cpu = -1),
//! read with PERF_FORMAT_GROUP in one read(2), user-space events only (what kernel.
//! perf_event_paranoid = 2, the usual default, allows for one's own threads).
//!
//! The LLC event is the generic cache event "LL, read, miss" (PERF_TYPE_HW_CACHE), not
//! PERF_COUNT_HW_CACHE_MISSES: the generic hardware event means LLC misses on Intel but L1D
//! refills on ARMv8 PMUv3 (arm_pmuv3.c's `armv8_pmuv3_perf_map`), which would make the "LLC
//! misses" of a big.LITTLE machine an L1 number. "LL read miss" is the last-level cache wherever
//! the kernel maps it (LL_CACHE_MISS_RD on ARMv8, the offcore-response LLC-miss event on
//! Intel), and read misses are what the Sáez thesis's LLC miss rate counts (stores mostly miss
//! as write-backs, off the critical path). Where the kernel does not map it (some AMD and older
//! ARM cores), the group falls back to PERF_COUNT_HW_CACHE_MISSES and the report says so.
//!
//! Virtual machines often expose no PMU (this project's CI machine does not): there every
//! open fails and the agent says why.

use std::fs::File;
use std::io::Read;
use std::os::fd::FromRawFd;

use crate::counters::{parse_group, CounterSource, GroupReading, OpenError, EVENTS};

const PERF_TYPE_HARDWARE: u64 = 0;
const PERF_TYPE_HW_CACHE: u64 = 3;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const PERF_COUNT_HW_INSTRUCTIONS: u64 = 1;
const PERF_COUNT_HW_CACHE_MISSES: u64 = 3;
const PERF_COUNT_HW_CACHE_LL: u64 = 2;
const PERF_COUNT_HW_CACHE_OP_READ: u64 = 0;
const PERF_COUNT_HW_CACHE_RESULT_MISS: u64 = 1;
/// A PERF_TYPE_HW_CACHE config: cache id | operation << 8 | result << 16.
const LL_READ_MISS: u64 = PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
/// PERF_ATTR_SIZE_VER5: the fields up to `sample_regs_intr`, which every kernel since 4.1 takes.
const ATTR_SIZE: u64 = 112;
const FORMAT_TOTAL_TIME_ENABLED: u64 = 1 << 0;
const FORMAT_TOTAL_TIME_RUNNING: u64 = 1 << 1;
const FORMAT_GROUP: u64 = 1 << 3;
const EXCLUDE_KERNEL: u64 = 1 << 5;
const EXCLUDE_HV: u64 = 1 << 6;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 1 << 3;

/// An event of the group: (perf type, config, name in the report).
type Event = (u64, u64, &'static str);
const INSTRUCTIONS: Event = (PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions");
const CYCLES: Event = (PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles");
const LLC_READ_MISSES: Event = (PERF_TYPE_HW_CACHE, LL_READ_MISS, "LLC read misses (LL-read-miss cache event)");
const CACHE_MISSES: Event = (PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses (the generic event: LLC misses on Intel, L1D refills on ARMv8)");

/// Open one event on thread `tid` (0: the calling thread), in `group` (-1: as a leader).
fn open_event((kind, config, _): Event, tid: i32, group: i32) -> std::io::Result<File> {
    // struct perf_event_attr as u64 words: word 0 = type (u32) | size (u32) << 32, word 1 =
    // config, word 4 = read_format, word 5 = the flag bits. The buffer has 128 bytes.
    let mut attr = [0u64; 16];
    attr[0] = kind | (ATTR_SIZE << 32);
    attr[1] = config;
    if group < 0 {
        attr[4] = FORMAT_GROUP | FORMAT_TOTAL_TIME_ENABLED | FORMAT_TOTAL_TIME_RUNNING;
    }
    // Enabled at once (no `disabled` bit): a group counts from the moment it is opened.
    attr[5] = EXCLUDE_KERNEL | EXCLUDE_HV;
    // SAFETY: perf_event_open reads ATTR_SIZE bytes of the attribute buffer, which has 128.
    let fd = unsafe { libc::syscall(libc::SYS_perf_event_open, attr.as_ptr(), tid, -1, group, PERF_FLAG_FD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor the kernel just gave us, owned by the File from now on.
    Ok(unsafe { File::from_raw_fd(fd as i32) })
}

/// One thread's group; the descriptors close on drop.
struct Group {
    leader: File,
    _members: [File; 2],
}

fn open_group(tid: i32, llc: Event) -> std::io::Result<Group> {
    let leader = open_event(INSTRUCTIONS, tid, -1)?;
    use std::os::fd::AsRawFd;
    let fd = leader.as_raw_fd();
    let members = [open_event(CYCLES, tid, fd)?, open_event(llc, tid, fd)?];
    Ok(Group { leader, _members: members })
}

/// The reason perf_event_open failed, in words a user can act on.
fn why(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) => "the CPU or hypervisor exposes no hardware counters".to_string(),
        Some(libc::EACCES) | Some(libc::EPERM) => {
            let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid").unwrap_or_default();
            format!("not permitted (kernel.perf_event_paranoid = {}; run as root or lower it)", paranoid.trim())
        }
        Some(libc::ENOSYS) => "the kernel has no perf_event support".to_string(),
        Some(libc::EMFILE) => {
            let (soft, hard) = fd_limits();
            format!("out of file descriptors (RLIMIT_NOFILE {soft}, hard limit {hard}; each thread takes {})", EVENTS.len())
        }
        _ => e.to_string(),
    }
}

/// Per-thread counter groups on this machine's PMU.
pub struct PerfCounters {
    llc: Event,
    groups: Vec<Option<Group>>,
}

impl PerfCounters {
    /// Check, on the calling thread, that the machine gives the three events; choose the LLC
    /// event. `Err` says why there are no counters.
    pub fn new() -> Result<PerfCounters, String> {
        let llc = match open_group(0, LLC_READ_MISSES) {
            Ok(_) => LLC_READ_MISSES,
            Err(e) if open_event(INSTRUCTIONS, 0, -1).is_err() => return Err(format!("hardware counters unavailable: {}", why(&e))),
            // Instructions open, the LL cache event does not: the kernel does not map it here.
            Err(_) => match open_group(0, CACHE_MISSES) {
                Ok(_) => CACHE_MISSES,
                Err(e) => return Err(format!("hardware counters unavailable: {}", why(&e))),
            },
        };
        Ok(PerfCounters { llc, groups: Vec::new() })
    }
}

impl CounterSource for PerfCounters {
    fn open(&mut self, id: u32, tid: u32) -> Result<(), OpenError> {
        let group = open_group(tid as i32, self.llc).map_err(|e| match e.raw_os_error() {
            Some(libc::ESRCH) => OpenError::Gone,
            _ => OpenError::Failed(why(&e)),
        })?;
        let i = id as usize;
        if self.groups.len() <= i {
            self.groups.resize_with(i + 1, || None);
        }
        self.groups[i] = Some(group);
        Ok(())
    }

    fn read(&mut self, id: u32) -> Option<GroupReading> {
        let g = self.groups.get_mut(id as usize)?.as_mut()?;
        let mut buf = [0u8; 8 * (3 + EVENTS.len())];
        let n = g.leader.read(&mut buf).ok()?;
        let words: Vec<u64> = buf[..n].chunks_exact(8).map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes"))).collect();
        parse_group(&words)
    }

    fn close(&mut self, id: u32) {
        if let Some(slot) = self.groups.get_mut(id as usize) {
            *slot = None;
        }
    }

    fn describe(&self) -> String {
        format!("{}, {}, {} per thread (user space, perf_event groups)", INSTRUCTIONS.2, CYCLES.2, self.llc.2)
    }
}

/// Whether this machine gives hardware counters (`Err`: why not).
pub fn probe() -> Result<(), String> {
    PerfCounters::new().map(|_| ())
}

/// RLIMIT_NOFILE (soft, hard).
#[allow(clippy::unnecessary_cast)] // rlim_t is u64 on 64-bit Linux only
pub fn fd_limits() -> (u64, u64) {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit we own.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) };
    (r.rlim_cur as u64, r.rlim_max as u64)
}

/// Raise RLIMIT_NOFILE's soft limit to the hard limit (three descriptors per counted thread:
/// thousands of threads need more than the usual 1024). Returns the soft limit before, for
/// `restore_fd_limit` and for the launched command, which must not inherit the raised one.
pub fn raise_fd_limit() -> u64 {
    let (soft, hard) = fd_limits();
    let r = libc::rlimit { rlim_cur: hard as libc::rlim_t, rlim_max: hard as libc::rlim_t };
    // SAFETY: setrlimit reads one rlimit we own; raising the soft limit up to the hard one needs no privilege.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &r) };
    soft
}

/// Put the soft limit back (the agent runs inside a host process, Python's).
pub fn restore_fd_limit(soft: u64) {
    let (_, hard) = fd_limits();
    let r = libc::rlimit { rlim_cur: soft as libc::rlim_t, rlim_max: hard as libc::rlim_t };
    // SAFETY: as above.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &r) };
}
