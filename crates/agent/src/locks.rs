//! The agent's side of lock insight: the shared table the preload library
//! (preload/ampsched_locks.c, whose header defines the layout mirrored here) writes, and the
//! library itself, embedded in the agent and written out next to the table when a command is
//! launched.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The preload library, built by build.rs.
pub const PRELOAD_LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libampsched_locks.so"));
/// Its build with the event log of `ampsched record` (`record::events`), preloaded only then.
pub const RECORD_LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libampsched_record.so"));

/// The files the table's directory holds (the guardian removes them by these names). Either build
/// of the library is written as `LIBRARY_FILE`; the event log's file is there only when recording.
pub const LIBRARY_FILE: &str = "libampsched_locks.so";
pub const TABLE_FILE: &str = "locks.shm";
pub const EVENTS_FILE: &str = "events.shm";
pub const FILES: [&str; 3] = [LIBRARY_FILE, TABLE_FILE, EVENTS_FILE];

const MAGIC: u64 = 0x004b_434f_4c50_4d41; // "AMPLOCK", AMPSCHED_LOCKS_MAGIC
const VERSION: u32 = 2;
pub const ENTRIES: usize = 16384;
const INDEX: usize = 2 * ENTRIES;

#[repr(C)]
struct Entry {
    tid: AtomicU32,
    waiting_for: AtomicU32,
    wait_since_ns: AtomicU64,
    wait_ns: AtomicU64,
    caused_ns: AtomicU64,
    contended: AtomicU64,
    spin_since_ns: AtomicU64,
    spin_ns: AtomicU64,
}

#[repr(C)]
struct Table {
    magic: AtomicU64,
    version: AtomicU32,
    capacity: AtomicU32,
    used: AtomicU32,
    dropped: AtomicU32,
    index: [AtomicU32; INDEX],
    entries: [Entry; ENTRIES],
}

/// What the table says of one thread at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LockRecord {
    /// Time waited for contended mutexes, finished waits plus the one in progress, ns.
    pub wait_ns: u64,
    /// The holder of the mutex it waits for now (a Linux tid).
    pub waiting_for: Option<u32>,
    /// Time others waited on mutexes it held, ns, finished waits plus those in progress.
    pub caused_ns: u64,
    pub contended: u64,
    /// Spinning on a busy pthread spinlock now.
    pub spinning: bool,
    /// Time spun on busy pthread spinlocks, finished spins plus the one in progress, ns.
    pub spin_ns: u64,
}

/// The table, mapped into the agent, and the directory holding it and the library.
pub struct LockTable {
    dir: PathBuf,
    table: *const Table,
}

// SAFETY: the mapping is only read through atomics.
unsafe impl Send for LockTable {}

impl LockTable {
    /// Create the table and the library in a fresh directory below `base`,
    /// `ampsched-agent-PID-XXXXXX` (PID the agent's: whose it is shows in the name).
    pub fn create(base: &Path) -> std::io::Result<LockTable> {
        LockTable::create_with(base, PRELOAD_LIBRARY)
    }

    /// `create` with the given build of the library (`PRELOAD_LIBRARY` or `RECORD_LIBRARY`).
    pub fn create_with(base: &Path, library: &[u8]) -> std::io::Result<LockTable> {
        // A fresh directory of a random name, mode 0700 (mkdtemp): in a world-writable place a
        // predictable name would let another user swap the library a root agent preloads.
        let name = format!("ampsched-agent-{}-XXXXXX", std::process::id());
        let template = std::ffi::CString::new(base.join(name).into_os_string().into_encoded_bytes())
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "path with a NUL byte"))?;
        let mut raw = template.into_bytes_with_nul();
        // SAFETY: mkdtemp rewrites the XXXXXX of a NUL-terminated buffer we own.
        if unsafe { libc::mkdtemp(raw.as_mut_ptr() as *mut libc::c_char) }.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        raw.pop();
        let dir = PathBuf::from(String::from_utf8_lossy(&raw).into_owned());
        OpenOptions::new().write(true).create_new(true).open(dir.join(LIBRARY_FILE))?.write_all(library)?;
        let path = dir.join(TABLE_FILE);
        let file: File = OpenOptions::new().read(true).write(true).create_new(true).open(&path)?;
        let size = std::mem::size_of::<Table>();
        file.set_len(size as u64)?;
        use std::os::fd::AsRawFd;
        // SAFETY: a fresh shared mapping of a file of exactly `size` bytes (zero-filled by set_len).
        let p = unsafe { libc::mmap(std::ptr::null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0) };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let table = p as *const Table;
        // SAFETY: the mapping is valid and zeroed; all-zero is a valid Table of atomics.
        let t = unsafe { &*table };
        t.capacity.store(ENTRIES as u32, Ordering::Relaxed);
        t.version.store(VERSION, Ordering::Relaxed);
        t.magic.store(MAGIC, Ordering::Release);
        Ok(LockTable { dir, table })
    }

    pub fn library_path(&self) -> PathBuf {
        self.dir.join(LIBRARY_FILE)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn table_path(&self) -> PathBuf {
        self.dir.join(TABLE_FILE)
    }

    fn table(&self) -> &Table {
        // SAFETY: mapped in `create`, unmapped only in `drop`.
        unsafe { &*self.table }
    }

    /// Threads that found the table full (more than `ENTRIES` threads contended).
    pub fn dropped(&self) -> u32 {
        self.table().dropped.load(Ordering::Relaxed)
    }

    /// Every recorded thread's lock data at `now_ns` (CLOCK_MONOTONIC), by tid.
    pub fn read(&self, now_ns: u64, out: &mut HashMap<u32, LockRecord>) {
        out.clear();
        let t = self.table();
        let used = (t.used.load(Ordering::Acquire) as usize).min(ENTRIES);
        let mut ongoing: Vec<(u32, u64)> = Vec::new();
        for e in &t.entries[..used] {
            let tid = e.tid.load(Ordering::Acquire);
            if tid == 0 {
                continue;
            }
            let since = e.wait_since_ns.load(Ordering::Acquire);
            let holder = e.waiting_for.load(Ordering::Relaxed);
            let waiting = since != 0 && since <= now_ns;
            let current = if waiting { now_ns - since } else { 0 };
            let r = out.entry(tid).or_default();
            r.wait_ns += e.wait_ns.load(Ordering::Acquire) + current;
            r.caused_ns += e.caused_ns.load(Ordering::Acquire);
            r.contended += e.contended.load(Ordering::Relaxed);
            // The library adds a finished spin to spin_ns before it clears the mark, so a spin
            // read in both at once counts twice for this one reading; never in neither.
            let spin_since = e.spin_since_ns.load(Ordering::Acquire);
            let spinning = spin_since != 0 && spin_since <= now_ns;
            r.spin_ns += e.spin_ns.load(Ordering::Acquire) + if spinning { now_ns - spin_since } else { 0 };
            r.spinning |= spinning;
            if waiting && holder != 0 {
                r.waiting_for = Some(holder);
                ongoing.push((holder, current));
            }
        }
        for (holder, ns) in ongoing {
            out.entry(holder).or_default().caused_ns += ns;
        }
    }
}

impl Drop for LockTable {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `create`, of this size.
        unsafe { libc::munmap(self.table as *mut libc::c_void, std::mem::size_of::<Table>()) };
        let _ = fs::remove_dir_all(&self.dir);
    }
}
