//! The guardian: a small process outside the agent's fate that undoes what the agent changed
//! when the agent dies without undoing it itself (SIGKILL, a crash, the OOM killer).
//!
//! An affinity-based scheduler cannot rely on its own last breath; sched_ext's answer is a
//! watchdog outside the scheduler, and this is the agent's. Before it changes anything, the agent
//! forks the guardian and keeps a *ledger* in memory they share (an anonymous shared mapping made
//! before the fork): every process it follows with its original affinity, every thread with its
//! original affinity, nice value and slice, every affinity it imposed on a process, every
//! cpufreq file with its original text, the lock table's directory and the launched command.
//! Each record is written *before* the change it allows to undo, so a kill between the two
//! leaves at most a harmless extra restore.
//!
//! The guardian sleeps in poll(2) on a pipe whose only writer is the agent. On a clean end the
//! agent writes one byte ("dismissed") and the guardian exits without acting. End of file means
//! the agent's process is gone, however it died (the kernel closes a dead process's descriptors);
//! as a second sign, checked every `PARENT_CHECK_MS`, the guardian's parent changes when the
//! agent's process is gone. Then the guardian, in order:
//!
//! 1. gives every live recorded thread of every followed process its original affinity, nice
//!    value and slice; a thread not in the ledger (created after the agent's last sample) whose
//!    affinity is one the agent imposed on its process gets the process's original (it inherited
//!    the mask from its creator), and one whose nice value is one the agent set in its process
//!    gets the original the agent recorded with that value (`monitor::inherited_nice`'s rule);
//!    the same for the threads of a child process forked since the last sample (one level: a
//!    child of a followed process);
//! 2. writes every recorded cpufreq file's original text back;
//! 3. removes the lock table's directory (/dev/shm/ampsched-agent-PID-XXXXXX);
//! 4. sends SIGTERM to the command the agent launched, which would otherwise run on unattended
//!    and unreported: SIGTERM, as the agent itself sends when it fails under the command, so the
//!    command may clean up. An attached process (`--pid`) is left running, as on a clean stop.
//!
//! The agent lives inside a multithreaded Python process, and after fork(2) the child of such a
//! process may only make async-signal-safe calls: the guardian's code below `guardian_main`
//! makes raw system calls on stack buffers and never allocates, panics or unwinds.
//!
//! Not restored by the guardian (the agent's own restore does them): threads of processes forked
//! two levels below a followed process since the last sample. Masks wider than `MASK_CPUS` CPUs, and records past
//! the ledger's capacities, are not kept; the report counts them.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};

use crate::procfs::CpuMask;

/// Threads the ledger holds at once (an exited thread's record is reused).
pub const THREADS: usize = 65536;
/// Processes followed at once (an ended process's record is reused).
pub const PROCESSES: usize = 4096;
/// Distinct CPU masks (originals and imposed ones): a few per process, usually.
pub const MASKS: usize = 4096;
/// (process, imposed mask) pairs.
pub const IMPOSED: usize = 16384;
/// (process, nice value set, original) triples: at most 40 per process (the nice values).
pub const NICE_IMPOSED: usize = 16384;
/// cpufreq files: one per cpufreq policy, at most one per CPU.
pub const FILES: usize = 1024;
/// The widest CPU mask the ledger keeps: glibc's `cpu_set_t` (1,024 CPUs).
pub const MASK_CPUS: usize = 1024;
/// Bytes of a path the ledger keeps (the lock directory, a cpufreq file).
const PATH_BYTES: usize = 256;
/// Bytes of a cpufreq file's original text (a frequency in kHz and a newline).
const TEXT_BYTES: usize = 64;
/// How often the guardian checks that its parent is still the agent, should the pipe's end of
/// file not come (another process inheriting the agent's end by a fork without exec).
const PARENT_CHECK_MS: libc::c_int = 1000;
/// Most passes the guardian makes over the targets (see `restore`): each finds only the threads
/// started during the previous one, so a few cover even a program that starts threads nonstop.
const PASSES: usize = 4;
/// The byte the agent writes to dismiss the guardian.
const DISMISS: u8 = b'd';

type Word = libc::c_ulong;
const MASK_WORDS: usize = MASK_CPUS / Word::BITS as usize;
type Mask = [Word; MASK_WORDS];

/// Thread record flags: what the agent changed on the thread.
const CHANGED_AFFINITY: u32 = 1;
const CHANGED_NICE: u32 = 2;
const CHANGED_SLICE: u32 = 4;

#[repr(C)]
struct ThreadRecord {
    /// 0: a free record (the thread exited, or was never written whole).
    tid: AtomicU32,
    pid: AtomicU32,
    /// Index of its original affinity in `masks`.
    original: AtomicU32,
    flags: AtomicU32,
    nice: AtomicI32,
    _pad: AtomicU32,
    /// The slice request to put back (0: none, the kernel's default).
    slice_ns: AtomicU64,
}

#[repr(C)]
struct ProcessRecord {
    /// 0: a free record.
    pid: AtomicU32,
    /// Index of its original affinity in `masks`, plus one (0: not known yet).
    original: AtomicU32,
}

#[repr(C)]
struct ImposedRecord {
    pid: AtomicU32,
    mask: AtomicU32,
}

#[repr(C)]
struct NiceRecord {
    pid: AtomicU32,
    value: AtomicI32,
    original: AtomicI32,
}

#[repr(C)]
struct FileRecord {
    path: [u8; PATH_BYTES],
    text: [u8; TEXT_BYTES],
    path_len: u32,
    text_len: u32,
}

/// The shared mapping. Counts are published with Release after the records below them are
/// written; the guardian reads them only once the agent has stopped writing.
#[repr(C)]
struct Shared {
    threads_used: AtomicU32,
    processes_used: AtomicU32,
    masks_used: AtomicU32,
    imposed_used: AtomicU32,
    nice_imposed_used: AtomicU32,
    files_used: AtomicU32,
    launched: AtomicU32,
    lock_dir_len: AtomicU32,
    lock_dir: [u8; PATH_BYTES],
    processes: [ProcessRecord; PROCESSES],
    imposed: [ImposedRecord; IMPOSED],
    nice_imposed: [NiceRecord; NICE_IMPOSED],
    files: [FileRecord; FILES],
    masks: [Mask; MASKS],
    threads: [ThreadRecord; THREADS],
}

/// The agent's handle on its guardian process.
pub struct Guardian {
    pid: libc::pid_t,
    /// The pipe's write end: one byte dismisses the guardian, its closing (the agent's death) wakes it.
    pipe: libc::c_int,
}

/// The agent's side of the shared ledger: it writes records; the guardian reads them.
pub struct Ledger {
    shared: *mut Shared,
    masks: HashMap<CpuMask, u32>,
    free_threads: Vec<u32>,
    processes: HashMap<u32, u32>,
    free_processes: Vec<u32>,
    imposed: HashSet<(u32, u32)>,
    nice_imposed: HashSet<(u32, i32)>,
    files: HashSet<std::path::PathBuf>,
    /// Records that did not fit (a capacity reached, a mask too wide): the guardian would miss them.
    pub unrecorded: u64,
}

// SAFETY: the mapping is private to the agent's side besides the guardian's reads, and the
// ledger is used from one thread at a time.
unsafe impl Send for Ledger {}

/// Fork the guardian. Nothing the agent changes after this goes unrecorded, if it goes through
/// the ledger.
pub fn start() -> Result<(Guardian, Ledger), String> {
    let size = std::mem::size_of::<Shared>();
    // SAFETY: a fresh anonymous shared mapping, zero-filled; all-zero is an empty ledger.
    let p = unsafe { libc::mmap(std::ptr::null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1, 0) };
    if p == libc::MAP_FAILED {
        return Err(format!("cannot map its ledger: {}", std::io::Error::last_os_error()));
    }
    let shared = p as *mut Shared;
    let unmap = || {
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(p, size) };
    };
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array. Close-on-exec: a command the agent
    // launches must not hold the write end, or the agent's death would not close it.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        unmap();
        return Err(format!("cannot make its pipe: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: getpid has no preconditions.
    let agent = unsafe { libc::getpid() };
    // SAFETY: fork; the child runs only `guardian_main`, which is async-signal-safe and never returns.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: in the child, on the mapping and the read end made above.
        unsafe { guardian_main(fds[0], shared, agent) }
    }
    // SAFETY: the read end is the guardian's.
    unsafe { libc::close(fds[0]) };
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        // SAFETY: our write end.
        unsafe { libc::close(fds[1]) };
        unmap();
        return Err(format!("cannot fork: {e}"));
    }
    let ledger = Ledger {
        shared,
        masks: HashMap::new(),
        free_threads: Vec::new(),
        processes: HashMap::new(),
        free_processes: Vec::new(),
        imposed: HashSet::new(),
        nice_imposed: HashSet::new(),
        files: HashSet::new(),
        unrecorded: 0,
    };
    Ok((Guardian { pid, pipe: fds[1] }, ledger))
}

impl Guardian {
    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// The agent has restored everything itself: the guardian exits without acting.
    pub fn dismiss(&mut self) {
        if self.pipe < 0 {
            return;
        }
        // SAFETY: one byte from our buffer to our pipe; then the guardian, our child, is reaped.
        unsafe {
            libc::write(self.pipe, [DISMISS].as_ptr().cast(), 1);
            libc::close(self.pipe);
            let mut status = 0;
            while libc::waitpid(self.pid, &mut status, 0) < 0 && *libc::__errno_location() == libc::EINTR {}
        }
        self.pipe = -1;
    }
}

impl Drop for Guardian {
    fn drop(&mut self) {
        self.dismiss();
    }
}

impl Ledger {
    fn shared(&self) -> &Shared {
        // SAFETY: mapped in `start`, unmapped only in `drop`.
        unsafe { &*self.shared }
    }

    /// The index of `mask` in the pool, adding it if new.
    fn mask(&mut self, mask: &CpuMask) -> Option<u32> {
        if let Some(&i) = self.masks.get(mask) {
            return Some(i);
        }
        let words = mask.words();
        let i = self.shared().masks_used.load(Ordering::Relaxed);
        if words.len() > MASK_WORDS || i as usize >= MASKS {
            self.unrecorded += 1;
            return None;
        }
        let mut m: Mask = [0; MASK_WORDS];
        m[..words.len()].copy_from_slice(words);
        // SAFETY: record `i` is past the published count: nobody reads it yet.
        unsafe { std::ptr::addr_of_mut!((*self.shared).masks[i as usize]).write(m) };
        self.shared().masks_used.store(i + 1, Ordering::Release);
        self.masks.insert(mask.clone(), i);
        Some(i)
    }

    /// Record a process the agent follows (again, when its original affinity becomes known).
    pub fn process(&mut self, pid: u32, original: Option<&CpuMask>) {
        let original = original.and_then(|m| self.mask(m)).map_or(0, |i| i + 1);
        let slot = match self.processes.get(&pid) {
            Some(&s) => s,
            None => {
                let s = match self.free_processes.pop() {
                    Some(s) => s,
                    None => {
                        let used = self.shared().processes_used.load(Ordering::Relaxed);
                        if used as usize >= PROCESSES {
                            self.unrecorded += 1;
                            return;
                        }
                        self.shared().processes_used.store(used + 1, Ordering::Release);
                        used
                    }
                };
                self.processes.insert(pid, s);
                s
            }
        };
        let r = &self.shared().processes[slot as usize];
        r.original.store(original, Ordering::Release);
        r.pid.store(pid, Ordering::Release);
    }

    /// A followed process has ended: its record is free.
    pub fn process_gone(&mut self, pid: u32) {
        if let Some(s) = self.processes.remove(&pid) {
            self.shared().processes[s as usize].pid.store(0, Ordering::Release);
            self.free_processes.push(s);
        }
    }

    /// Record that the agent is about to give a thread of `pid` the affinity `mask`.
    pub fn imposed(&mut self, pid: u32, mask: &CpuMask) {
        let Some(m) = self.mask(mask) else { return };
        if !self.imposed.insert((pid, m)) {
            return;
        }
        let used = self.shared().imposed_used.load(Ordering::Relaxed);
        if used as usize >= IMPOSED {
            self.unrecorded += 1;
            return;
        }
        let r = &self.shared().imposed[used as usize];
        r.pid.store(pid, Ordering::Relaxed);
        r.mask.store(m, Ordering::Relaxed);
        self.shared().imposed_used.store(used + 1, Ordering::Release);
    }

    /// Record that the agent set (or is about to set) the nice value `value` on a thread of `pid`
    /// whose original is `original`: a thread found with `value` gets `original` back (the first
    /// record per value and process counts, as in `monitor::inherited_nice`).
    pub fn nice_imposed(&mut self, pid: u32, value: i32, original: i32) {
        if !self.nice_imposed.insert((pid, value)) {
            return;
        }
        let used = self.shared().nice_imposed_used.load(Ordering::Relaxed);
        if used as usize >= NICE_IMPOSED {
            self.unrecorded += 1;
            return;
        }
        let r = &self.shared().nice_imposed[used as usize];
        r.pid.store(pid, Ordering::Relaxed);
        r.value.store(value, Ordering::Relaxed);
        r.original.store(original, Ordering::Relaxed);
        self.shared().nice_imposed_used.store(used + 1, Ordering::Release);
    }

    /// Record a thread when the agent first sees it; `changed` when its affinity is already one
    /// the agent imposed (inherited). Returns its record, if it fits.
    pub fn thread(&mut self, tid: u32, pid: u32, original: &CpuMask, changed: bool) -> Option<u32> {
        let m = self.mask(original)?;
        let slot = match self.free_threads.pop() {
            Some(s) => s,
            None => {
                let used = self.shared().threads_used.load(Ordering::Relaxed);
                if used as usize >= THREADS {
                    self.unrecorded += 1;
                    return None;
                }
                self.shared().threads_used.store(used + 1, Ordering::Release);
                used
            }
        };
        let r = &self.shared().threads[slot as usize];
        r.pid.store(pid, Ordering::Relaxed);
        r.original.store(m, Ordering::Relaxed);
        r.flags.store(if changed { CHANGED_AFFINITY } else { 0 }, Ordering::Relaxed);
        r.tid.store(tid, Ordering::Release);
        Some(slot)
    }

    /// The thread of record `slot` has exited: its record is free.
    pub fn thread_gone(&mut self, slot: u32) {
        self.shared().threads[slot as usize].tid.store(0, Ordering::Release);
        self.free_threads.push(slot);
    }

    /// The agent is about to change the affinity of the thread of record `slot`.
    pub fn affinity_changing(&mut self, slot: u32) {
        self.shared().threads[slot as usize].flags.fetch_or(CHANGED_AFFINITY, Ordering::Release);
    }

    /// The agent is about to change the nice value of the thread of record `slot` from `original`.
    pub fn nice_changing(&mut self, slot: u32, original: i32) {
        let r = &self.shared().threads[slot as usize];
        r.nice.store(original, Ordering::Relaxed);
        r.flags.fetch_or(CHANGED_NICE, Ordering::Release);
    }

    /// The agent is about to change the slice of the thread of record `slot`; `back` is the
    /// request that restores it (0: none).
    pub fn slice_changing(&mut self, slot: u32, back: u64) {
        let r = &self.shared().threads[slot as usize];
        r.slice_ns.store(back, Ordering::Relaxed);
        r.flags.fetch_or(CHANGED_SLICE, Ordering::Release);
    }

    /// The agent is about to write a cpufreq file whose text is `original`.
    pub fn file(&mut self, path: &Path, original: &str) {
        if self.files.contains(path) {
            return;
        }
        let bytes = path.as_os_str().as_encoded_bytes();
        let used = self.shared().files_used.load(Ordering::Relaxed);
        // One byte short of the buffers: the guardian ends the path with a NUL.
        if bytes.len() >= PATH_BYTES || original.len() > TEXT_BYTES || used as usize >= FILES {
            self.unrecorded += 1;
            return;
        }
        let mut r = FileRecord { path: [0; PATH_BYTES], text: [0; TEXT_BYTES], path_len: bytes.len() as u32, text_len: original.len() as u32 };
        r.path[..bytes.len()].copy_from_slice(bytes);
        r.text[..original.len()].copy_from_slice(original.as_bytes());
        // SAFETY: record `used` is past the published count.
        unsafe { std::ptr::addr_of_mut!((*self.shared).files[used as usize]).write(r) };
        self.shared().files_used.store(used + 1, Ordering::Release);
        self.files.insert(path.to_path_buf());
    }

    /// The lock table's directory, which the guardian removes.
    pub fn lock_dir(&mut self, dir: &Path) {
        let bytes = dir.as_os_str().as_encoded_bytes();
        let longest = crate::locks::FILES.iter().map(|f| f.len() + 1).max().unwrap_or(0);
        if bytes.len() + longest >= PATH_BYTES {
            self.unrecorded += 1;
            return;
        }
        // SAFETY: written before its length is published.
        unsafe {
            let d = std::ptr::addr_of_mut!((*self.shared).lock_dir) as *mut u8;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), d, bytes.len());
        }
        self.shared().lock_dir_len.store(bytes.len() as u32, Ordering::Release);
    }

    /// The command the agent launched, which the guardian stops (0: none, or no more: reaped).
    pub fn launched(&mut self, pid: u32) {
        self.shared().launched.store(pid, Ordering::Release);
    }
}

impl Drop for Ledger {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `start`; the guardian keeps its own.
        unsafe { libc::munmap(self.shared.cast(), std::mem::size_of::<Shared>()) };
    }
}

// ---- the guardian process: raw system calls on stack buffers only, from here on

/// The guardian: wait for the agent's end; restore if it died rather than dismissed us.
unsafe fn guardian_main(pipe: libc::c_int, shared: *const Shared, agent: libc::pid_t) -> ! {
    // The signals the agent stops on are ignored: a terminal's Ctrl-C (sent to the whole process
    // group) or a `kill` of the group leaves the guardian to see how the agent ends.
    let mut sa: libc::sigaction = std::mem::zeroed();
    sa.sa_sigaction = libc::SIG_IGN;
    for sig in crate::agent::stop_signals() {
        libc::sigaction(sig, &sa, std::ptr::null_mut());
    }
    // A signal to the whole group that cannot be ignored (a CI job's timeout, `kill -KILL --
    // -PGID`) would take the guardian with the agent: in a session of its own it is out of reach.
    libc::setsid();
    // Only the pipe's read end stays open: an inherited descriptor (the agent's stdout, which a
    // caller reads to its end, or the pipe's write end) must not outlive the agent here.
    close_all_but(pipe);
    loop {
        let mut pfd = libc::pollfd { fd: pipe, events: libc::POLLIN, revents: 0 };
        let r = libc::poll(&mut pfd, 1, PARENT_CHECK_MS);
        if r > 0 {
            let mut byte = 0u8;
            let n = libc::read(pipe, (&mut byte as *mut u8).cast(), 1);
            if n == 1 && byte == DISMISS {
                libc::_exit(0);
            }
            if n == 0 || (n < 0 && *libc::__errno_location() != libc::EINTR) {
                break; // end of file: the agent's process is gone
            }
        }
        if libc::getppid() != agent {
            break;
        }
    }
    restore(&*shared);
    libc::_exit(0)
}

unsafe fn close_all_but(keep: libc::c_int) {
    let keep = keep as libc::c_uint;
    let below = keep.checked_sub(1).map(|last| (0, last));
    let above = keep.checked_add(1).map(|first| (first, libc::c_uint::MAX));
    for (first, last) in [below, above].into_iter().flatten() {
        if libc::syscall(libc::SYS_close_range, first, last, 0) != 0 {
            // close_range needs Linux 5.9: close them one by one up to the descriptor limit.
            let mut lim: libc::rlimit = std::mem::zeroed();
            let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 { lim.rlim_cur.min(1 << 20) as libc::c_uint } else { 1024 };
            let mut fd = first;
            while fd <= last && fd < top {
                libc::close(fd as libc::c_int);
                fd += 1;
            }
        }
    }
}

unsafe fn restore(s: &Shared) {
    // A thread may start while its creator is being restored, inheriting the creator's imposed
    // affinity after the pass listed its threads: passes go on while they find such threads.
    for _ in 0..PASSES {
        if restore_processes(s) == 0 {
            break;
        }
    }
    restore_files(s);
    remove_lock_dir(s);
    let launched = s.launched.load(Ordering::Acquire);
    if launched != 0 {
        libc::kill(launched as libc::pid_t, libc::SIGTERM);
    }
}

/// One pass over the followed processes and their children forked since the agent's last
/// sample: how many threads the agent never saw it found with an imposed affinity.
unsafe fn restore_processes(s: &Shared) -> usize {
    let procs = (s.processes_used.load(Ordering::Acquire) as usize).min(PROCESSES);
    let mut inherited = 0;
    for r in &s.processes[..procs] {
        let pid = r.pid.load(Ordering::Acquire);
        if pid != 0 {
            inherited += restore_process(s, pid, pid, r.original.load(Ordering::Acquire));
        }
    }
    // Children forked since the agent's last sample inherited their parent's affinity.
    let mut path = PathBuf::new();
    path.push(b"/proc");
    let followed = |pid: u32| s.processes[..procs].iter().find(|r| pid != 0 && r.pid.load(Ordering::Acquire) == pid);
    each_entry(&path, |child| {
        if followed(child).is_some() {
            return;
        }
        if let Some(parent) = followed(parent_of(child)) {
            inherited += restore_process(s, child, parent.pid.load(Ordering::Acquire), parent.original.load(Ordering::Acquire));
        }
    });
    inherited
}

/// Every thread of process `pid`: its own record's originals, or, for a thread the agent never
/// saw, its process's original when it carries a mask the agent imposed on `imposed_on`.
/// Returns how many of the latter it found.
unsafe fn restore_process(s: &Shared, pid: u32, imposed_on: u32, original_plus_one: u32) -> usize {
    let threads = (s.threads_used.load(Ordering::Acquire) as usize).min(THREADS);
    let masks = (s.masks_used.load(Ordering::Acquire) as usize).min(MASKS);
    let imposed = (s.imposed_used.load(Ordering::Acquire) as usize).min(IMPOSED);
    let mask = |i: u32| s.masks[..masks].get(i as usize);
    let mut path = PathBuf::new();
    path.push(b"/proc/");
    path.push_number(pid);
    path.push(b"/task");
    let mut found = 0;
    each_entry(&path, |tid| match s.threads[..threads].iter().find(|r| r.tid.load(Ordering::Acquire) == tid && r.pid.load(Ordering::Relaxed) == pid) {
        Some(r) => {
            let flags = r.flags.load(Ordering::Acquire);
            if flags & CHANGED_AFFINITY != 0 {
                if let Some(m) = mask(r.original.load(Ordering::Relaxed)) {
                    set_affinity(tid, m);
                }
            }
            if flags & CHANGED_NICE != 0 {
                libc::setpriority(libc::PRIO_PROCESS, tid, r.nice.load(Ordering::Relaxed));
            }
            if flags & CHANGED_SLICE != 0 {
                set_slice(tid, r.slice_ns.load(Ordering::Relaxed));
            }
        }
        None => {
            if let Some(original) = inherited_nice(s, tid, imposed_on) {
                libc::setpriority(libc::PRIO_PROCESS, tid, original);
                found += 1;
            }
            let Some(original) = original_plus_one.checked_sub(1).and_then(mask) else { return };
            let mut current: Mask = [0; MASK_WORDS];
            let size = std::mem::size_of::<Mask>();
            if libc::syscall(libc::SYS_sched_getaffinity, tid, size, current.as_mut_ptr()) <= 0 {
                return;
            }
            let inherited =
                s.imposed[..imposed].iter().any(|r| r.pid.load(Ordering::Relaxed) == imposed_on && mask(r.mask.load(Ordering::Relaxed)) == Some(&current));
            if inherited {
                set_affinity(tid, original);
                found += 1;
            }
        }
    });
    found
}

/// The original nice value of thread `tid`, which the agent never saw, when its nice value is one
/// the agent set on a thread of `imposed_on` (it inherited it from its creator): the original
/// recorded with that value (`Ledger::nice_imposed`).
unsafe fn inherited_nice(s: &Shared, tid: u32, imposed_on: u32) -> Option<i32> {
    let used = (s.nice_imposed_used.load(Ordering::Acquire) as usize).min(NICE_IMPOSED);
    let records = &s.nice_imposed[..used];
    if !records.iter().any(|r| r.pid.load(Ordering::Relaxed) == imposed_on) {
        return None; // no getpriority for the threads of a process the agent never reniced
    }
    // getpriority returns -1 both as a nice value and on error: only errno tells them apart.
    *libc::__errno_location() = 0;
    let nice = libc::getpriority(libc::PRIO_PROCESS, tid);
    if nice == -1 && *libc::__errno_location() != 0 {
        return None;
    }
    records.iter().find(|r| r.pid.load(Ordering::Relaxed) == imposed_on && r.value.load(Ordering::Relaxed) == nice).map(|r| r.original.load(Ordering::Relaxed))
}

unsafe fn set_affinity(tid: u32, mask: &Mask) {
    libc::syscall(libc::SYS_sched_setaffinity, tid, std::mem::size_of::<Mask>(), mask.as_ptr());
}

/// sched_setattr with only the slice request changed (enforce/slice.rs's layout and rules).
unsafe fn set_slice(tid: u32, ns: u64) {
    // struct sched_attr up to sched_period (SCHED_ATTR_SIZE_VER0).
    let mut a = [0u64; 6];
    let size = std::mem::size_of_val(&a) as u32;
    if libc::syscall(libc::SYS_sched_getattr, tid, a.as_mut_ptr(), size, 0u32) != 0 {
        return;
    }
    // Word 0: size (u32) and policy (u32); word 1: flags; word 2: nice and priority; word 3: runtime.
    a[0] = (a[0] & !0xffff_ffff) | size as u64;
    a[1] = 0;
    a[3] = ns;
    libc::syscall(libc::SYS_sched_setattr, tid, a.as_ptr(), 0u32);
}

unsafe fn restore_files(s: &Shared) {
    let files = (s.files_used.load(Ordering::Acquire) as usize).min(FILES);
    for f in &s.files[..files] {
        let mut path = PathBuf::new();
        path.push(f.path.get(..f.path_len as usize).unwrap_or(&[]));
        let fd = libc::open(path.c_str(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd >= 0 {
            let text = f.text.get(..f.text_len as usize).unwrap_or(&[]);
            libc::write(fd, text.as_ptr().cast(), text.len());
            libc::close(fd);
        }
    }
}

unsafe fn remove_lock_dir(s: &Shared) {
    let len = (s.lock_dir_len.load(Ordering::Acquire) as usize).min(PATH_BYTES);
    if len == 0 {
        return;
    }
    let dir = &s.lock_dir[..len];
    for name in crate::locks::FILES {
        let mut path = PathBuf::new();
        path.push(dir);
        path.push(b"/");
        path.push(name.as_bytes());
        libc::unlink(path.c_str());
    }
    let mut path = PathBuf::new();
    path.push(dir);
    libc::rmdir(path.c_str());
}

/// A process's parent, from /proc/PID/stat (0 when unreadable).
unsafe fn parent_of(pid: u32) -> u32 {
    let mut path = PathBuf::new();
    path.push(b"/proc/");
    path.push_number(pid);
    path.push(b"/stat");
    let fd = libc::open(path.c_str(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return 0;
    }
    let mut buf = [0u8; 1024];
    let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
    libc::close(fd);
    let text = &buf[..(n.max(0) as usize).min(buf.len())];
    // "pid (comm) state ppid ...": the name may hold spaces and parentheses, so go from the last ')'.
    let Some(close) = text.iter().rposition(|&b| b == b')') else { return 0 };
    let mut fields = text[close + 1..].split(|&b| b == b' ').filter(|f| !f.is_empty());
    let _state = fields.next();
    fields.next().map_or(0, parse_number)
}

fn parse_number(text: &[u8]) -> u32 {
    let mut n: u32 = 0;
    for &b in text {
        if !b.is_ascii_digit() {
            return 0;
        }
        n = n.wrapping_mul(10).wrapping_add((b - b'0') as u32);
    }
    n
}

/// Call `f` with every numeric entry of a directory (a process or thread id).
unsafe fn each_entry(dir: &PathBuf, mut f: impl FnMut(u32)) {
    let fd = libc::open(dir.c_str(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
    if fd < 0 {
        return;
    }
    // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name (NUL-terminated).
    const RECLEN: usize = 16;
    const NAME: usize = 19;
    let mut buf = [0u8; 4096];
    loop {
        let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
        if n <= 0 {
            break;
        }
        let n = (n as usize).min(buf.len());
        let mut at = 0;
        while at + NAME < n {
            let reclen = u16::from_ne_bytes([buf[at + RECLEN], buf[at + RECLEN + 1]]) as usize;
            if reclen <= NAME {
                break; // not a record the kernel writes: stop rather than misread
            }
            let end = (at + reclen).min(n);
            let name = &buf[at + NAME..end];
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
            let id = parse_number(name);
            if id != 0 {
                f(id);
            }
            at += reclen;
        }
    }
    libc::close(fd);
}

/// A NUL-terminated path in a fixed buffer (no allocation); too long a path is cut, and then
/// names nothing that exists.
struct PathBuf {
    buf: [u8; PATH_BYTES + 32],
    len: usize,
}

impl PathBuf {
    fn new() -> PathBuf {
        PathBuf { buf: [0; PATH_BYTES + 32], len: 0 }
    }
    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.len + 1 < self.buf.len() {
                self.buf[self.len] = b;
                self.len += 1;
            }
        }
    }
    fn push_number(&mut self, mut n: u32) {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 || i == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }
    /// The path, NUL-terminated: the buffer starts zeroed and `push` never writes its last byte.
    fn c_str(&self) -> *const libc::c_char {
        self.buf.as_ptr().cast()
    }
}
