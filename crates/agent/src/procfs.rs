//! What the agent reads of Linux threads, and the two calls it makes on them.
//!
//! Threads come and go between any two reads: every reader returns `None` for a thread or
//! process that has vanished, never an error.

use std::fs::File;
use std::io::{self, Read};

/// The fields of `/proc/PID/task/TID/stat` the agent uses (proc(5)).
#[derive(Debug, Clone, PartialEq)]
pub struct Stat {
    pub comm: String,
    /// R (running or runnable), S (interruptible sleep), D (uninterruptible, usually I/O), T, t, Z, X, I.
    pub state: char,
    pub ppid: u32,
    pub nice: i32,
    /// Since boot, in clock ticks: with the tid, it tells a reused thread id from the old thread.
    pub starttime: u64,
    /// The CPU it last ran on.
    pub processor: usize,
}

/// `/proc/PID/task/TID/schedstat`: time on a CPU and time waiting in a run queue, ns, and timeslices run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SchedStat {
    pub run_ns: u64,
    pub wait_ns: u64,
    pub timeslices: u64,
}

/// Read a small /proc file into `buf` (reused across calls so the agent's loop does not allocate).
///
/// Three system calls (open, read, close): `read_to_end` would add a statx, an lseek and a
/// final empty read, which doubled the agent's cost. A /proc file of one record is produced
/// whole by one read when the buffer holds it; a full buffer means there may be more.
pub fn read_into(path: &str, buf: &mut Vec<u8>) -> Option<()> {
    let mut f = File::open(path).ok()?;
    if buf.capacity() < 4096 {
        buf.reserve(4096 - buf.len());
    }
    buf.clear();
    loop {
        let len = buf.len();
        buf.resize(buf.capacity(), 0);
        let n = f.read(&mut buf[len..]).ok()?;
        buf.truncate(len + n);
        if n == 0 || buf.len() < buf.capacity() {
            return Some(());
        }
        buf.reserve(buf.capacity());
    }
}

pub fn parse_stat(text: &[u8]) -> Option<Stat> {
    // A name cut at 15 bytes may split a UTF-8 character: never let the name hide the thread.
    let s = String::from_utf8_lossy(text);
    // comm is in parentheses and may itself contain spaces and parentheses: split at the last ')'.
    let open = s.find('(')?;
    let close = s.rfind(')')?;
    let comm = s[open + 1..close].to_string();
    let rest: Vec<&str> = s[close + 1..].split_ascii_whitespace().collect();
    // rest[0] is field 3 (state); field N is rest[N - 3].
    let field = |n: usize| rest.get(n - 3).copied();
    Some(Stat {
        comm,
        state: field(3)?.chars().next()?,
        ppid: field(4)?.parse().ok()?,
        nice: field(19)?.parse().ok()?,
        starttime: field(22)?.parse().ok()?,
        processor: field(39)?.parse().ok()?,
    })
}

pub fn parse_schedstat(text: &[u8]) -> Option<SchedStat> {
    let s = std::str::from_utf8(text).ok()?;
    let mut it = s.split_ascii_whitespace().map(|x| x.parse::<u64>().ok());
    Some(SchedStat { run_ns: it.next()??, wait_ns: it.next()??, timeslices: it.next()?? })
}

/// (voluntary, involuntary) context switches from `/proc/PID/task/TID/status`.
pub fn parse_switches(text: &[u8]) -> Option<(u64, u64)> {
    let s = std::str::from_utf8(text).ok()?;
    let get = |key: &str| s.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.trim().parse().ok());
    Some((get("voluntary_ctxt_switches:")?, get("nonvoluntary_ctxt_switches:")?))
}

/// Numeric entries of a /proc directory (process ids in /proc, thread ids in /proc/PID/task).
pub fn list_ids(dir: &str) -> Option<Vec<u32>> {
    let mut out: Vec<u32> = std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect();
    out.sort_unstable();
    Some(out)
}

/// A process's total CPU time, ns, from its CPU clock: one syscall, no /proc text. Linux lets any
/// process read another's process clock (clock_getcpuclockid(3)), but not its threads' clocks.
pub fn process_cpu_ns(pid: u32) -> Option<u64> {
    // MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) from include/linux/posix-timers.h.
    const CPUCLOCK_SCHED: i32 = 2;
    let clock = ((!pid) << 3) as i32 | CPUCLOCK_SCHED;
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec we own.
    let r = unsafe { libc::clock_gettime(clock, &mut ts) };
    (r == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// CPU time of the calling thread, ns.
pub fn own_thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: as above.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: as above.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A set of Linux CPUs, as sched_setaffinity takes it.
#[derive(Clone, Copy)]
pub struct CpuMask(libc::cpu_set_t);

impl PartialEq for CpuMask {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: cpu_set_t is a plain array of words; comparing its bytes compares the sets.
        let bytes = |m: &CpuMask| unsafe {
            std::slice::from_raw_parts(&m.0 as *const libc::cpu_set_t as *const u8, std::mem::size_of::<libc::cpu_set_t>())
        };
        bytes(self) == bytes(other)
    }
}

impl Eq for CpuMask {}

impl std::fmt::Debug for CpuMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuMask({})", crate::cores::format_ranges(&self.cpus()))
    }
}

impl CpuMask {
    pub fn from_cpus(cpus: impl IntoIterator<Item = usize>) -> CpuMask {
        // SAFETY: cpu_set_t is a plain bit array; all-zero is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for c in cpus {
            // SAFETY: CPU_SET bounds-checks against the set's size.
            unsafe { libc::CPU_SET(c, &mut set) };
        }
        CpuMask(set)
    }

    pub fn cpus(&self) -> Vec<usize> {
        // SAFETY: CPU_ISSET reads the bit array.
        (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &self.0) }).collect()
    }

    pub fn contains(&self, cpu: usize) -> bool {
        // SAFETY: as above.
        cpu < libc::CPU_SETSIZE as usize && unsafe { libc::CPU_ISSET(cpu, &self.0) }
    }
}

/// A thread's affinity; `Err(ESRCH)` when it has exited.
pub fn get_affinity(tid: u32) -> io::Result<CpuMask> {
    // SAFETY: as above, then the kernel fills the set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::sched_getaffinity(tid as libc::pid_t, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if r == 0 {
        Ok(CpuMask(set))
    } else {
        Err(io::Error::last_os_error())
    }
}

pub fn set_affinity(tid: u32, mask: &CpuMask) -> io::Result<()> {
    // SAFETY: the kernel reads the set we pass.
    let r = unsafe { libc::sched_setaffinity(tid as libc::pid_t, std::mem::size_of::<libc::cpu_set_t>(), &mask.0) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
