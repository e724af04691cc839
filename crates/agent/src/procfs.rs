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

/// Bits in one word of a kernel CPU mask (an `unsigned long`).
const MASK_WORD_BITS: usize = libc::c_ulong::BITS as usize;
/// The first size `get_affinity` tries: glibc's `cpu_set_t` (CPU_SETSIZE, 1,024 CPUs), which
/// fits every machine but the largest servers in one call.
const FIRST_MASK_CPUS: usize = libc::CPU_SETSIZE as usize;
/// The widest mask `get_affinity` asks for: the most cores a machine may have, which is Linux's
/// own ceiling on CPUs (see `CoreSet::CAPACITY`); a kernel built for more is refused by name.
const MAX_MASK_CPUS: usize = ampsched_model::MAX_CORES;

/// A set of Linux CPUs in the kernel's layout (CPU `c` is bit `c % 64` of word `c / 64`), as
/// sched_setaffinity takes it. Sized to its highest CPU, as glibc's CPU_ALLOC sizes one, rather
/// than glibc's fixed 1,024-CPU `cpu_set_t`, so that machines with more CPUs can be enforced.
/// It never ends in a zero word, so the derived equality compares the sets.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct CpuMask(Vec<libc::c_ulong>);

impl std::fmt::Debug for CpuMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuMask({})", crate::cores::format_ranges(&self.cpus()))
    }
}

impl CpuMask {
    pub fn from_cpus(cpus: impl IntoIterator<Item = usize>) -> CpuMask {
        let mut words = Vec::new();
        for c in cpus {
            let w = c / MASK_WORD_BITS;
            if words.len() <= w {
                words.resize(w + 1, 0);
            }
            words[w] |= 1 << (c % MASK_WORD_BITS);
        }
        CpuMask(words)
    }

    /// A mask the kernel filled: its trailing zero words dropped.
    pub fn from_words(mut words: Vec<libc::c_ulong>) -> CpuMask {
        let used = words.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
        words.truncate(used);
        CpuMask(words)
    }

    /// The kernel's words (none past the highest CPU).
    pub fn words(&self) -> &[libc::c_ulong] {
        &self.0
    }

    /// The CPUs, ascending.
    pub fn cpus(&self) -> Vec<usize> {
        (0..self.0.len() * MASK_WORD_BITS).filter(|&c| self.contains(c)).collect()
    }

    pub fn contains(&self, cpu: usize) -> bool {
        self.0.get(cpu / MASK_WORD_BITS).is_some_and(|w| w & (1 << (cpu % MASK_WORD_BITS)) != 0)
    }
}

/// A thread's affinity; `Err(ESRCH)` when it has exited.
pub fn get_affinity(tid: u32) -> io::Result<CpuMask> {
    // The kernel refuses (EINVAL) a buffer narrower than its own CPU count, which user space
    // cannot know beforehand: ask again with twice the width, as sched_setaffinity(2) advises.
    let mut cpus = FIRST_MASK_CPUS;
    loop {
        let mut words: Vec<libc::c_ulong> = vec![0; cpus / MASK_WORD_BITS];
        // SAFETY: the kernel writes at most the size we pass into the buffer we own; a
        // cpu_set_t is that same array of words, so the pointer cast is what CPU_ALLOC does.
        let r = unsafe { libc::sched_getaffinity(tid as libc::pid_t, std::mem::size_of_val(words.as_slice()), words.as_mut_ptr().cast()) };
        if r == 0 {
            return Ok(CpuMask::from_words(words));
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINVAL) {
            return Err(err);
        }
        if cpus >= MAX_MASK_CPUS {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("the kernel has more than {MAX_MASK_CPUS} CPUs, the most the agent supports")));
        }
        cpus *= 2;
    }
}

pub fn set_affinity(tid: u32, mask: &CpuMask) -> io::Result<()> {
    // An empty mask still passes one word, which the kernel refuses (EINVAL) like any empty set.
    let words: &[libc::c_ulong] = if mask.0.is_empty() { &[0] } else { &mask.0 };
    // SAFETY: the kernel reads the size we pass from the words we own (zero past them).
    let r = unsafe { libc::sched_setaffinity(tid as libc::pid_t, std::mem::size_of_val(words), words.as_ptr().cast()) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
