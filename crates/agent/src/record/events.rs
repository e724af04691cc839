//! The agent's side of the preload library's event log (`ampsched record`): the ring buffer that
//! the library's recording build (preload/ampsched_locks.c built with AMPSCHED_RECORD, whose
//! header defines the layout mirrored here) writes, one file in the lock table's directory named
//! to the command by AMPSCHED_EVENTS_SHM. Many producers (every thread of every process of the
//! command), one consumer (the agent, at every sample): Vyukov's bounded queue, where each slot's
//! sequence number says whether it is free for the position a producer claimed or published for
//! the reader. A full ring drops the event and counts it (`lost`), never blocks the program.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::locks::EVENTS_FILE;

const MAGIC: u64 = 0x0054_5645_4c50_4d41; // "AMPLEVT", AMPSCHED_EVENTS_MAGIC
const VERSION: u32 = 1;
/// AMPSCHED_EVENTS_SLOTS (the header says why this many).
pub const SLOTS: usize = 65536;

/// The event kinds (enum ampsched_event_kind).
pub const CREATE: u32 = 1;
pub const EXIT: u32 = 2;
pub const MUTEX_WAIT: u32 = 3;
pub const MUTEX_RELEASE: u32 = 4;
pub const COND_WAIT: u32 = 5;
pub const COND_SIGNAL: u32 = 6;
pub const JOIN: u32 = 7;
pub const BARRIER_WAIT: u32 = 8;

#[repr(C)]
struct Slot {
    seq: AtomicU64,
    kind: AtomicU32,
    tid: AtomicU32,
    start_ns: AtomicU64,
    end_ns: AtomicU64,
    cpu_ns: AtomicU64,
    object: AtomicU64,
    other: AtomicU32,
    flags: AtomicU32,
    reserved: AtomicU64,
}

#[repr(C)]
struct Log {
    magic: AtomicU64,
    version: AtomicU32,
    slots: AtomicU32,
    lost: AtomicU64,
    processes: AtomicU64,
    pad0: [AtomicU64; 4],
    head: AtomicU64,
    pad1: [AtomicU64; 7],
    ring: [Slot; SLOTS],
}

/// One event as the library wrote it (struct ampsched_event): times are CLOCK_MONOTONIC, absolute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEvent {
    pub kind: u32,
    pub tid: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub cpu_ns: u64,
    pub object: u64,
    pub other: u32,
    pub flags: u32,
}

/// The log, mapped into the agent. The file is removed with the lock table's directory.
pub struct EventLog {
    path: PathBuf,
    log: *const Log,
    /// The next position to read (the one consumer's: not shared).
    tail: u64,
}

// SAFETY: the mapping is only accessed through atomics.
unsafe impl Send for EventLog {}

impl EventLog {
    /// Create the log in `dir` (the lock table's fresh directory, mode 0700).
    pub fn create(dir: &Path) -> std::io::Result<EventLog> {
        let path = dir.join(EVENTS_FILE);
        let file: File = OpenOptions::new().read(true).write(true).create_new(true).open(&path)?;
        let size = std::mem::size_of::<Log>();
        file.set_len(size as u64)?;
        use std::os::fd::AsRawFd;
        // SAFETY: a fresh shared mapping of a file of exactly `size` bytes (zero-filled by set_len).
        let p = unsafe { libc::mmap(std::ptr::null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0) };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let log = p as *const Log;
        // SAFETY: the mapping is valid and zeroed; all-zero is a valid Log of atomics.
        let l = unsafe { &*log };
        for (i, slot) in l.ring.iter().enumerate() {
            slot.seq.store(i as u64, Ordering::Relaxed); // free for position i
        }
        l.slots.store(SLOTS as u32, Ordering::Relaxed);
        l.version.store(VERSION, Ordering::Relaxed);
        l.magic.store(MAGIC, Ordering::Release);
        Ok(EventLog { path, log, tail: 0 })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn log(&self) -> &Log {
        // SAFETY: mapped in `create`, unmapped only in `drop`.
        unsafe { &*self.log }
    }

    /// Events the library dropped for a full ring.
    pub fn lost(&self) -> u64 {
        self.log().lost.load(Ordering::Relaxed)
    }

    /// Processes that loaded the library and mapped the log.
    pub fn processes(&self) -> u64 {
        self.log().processes.load(Ordering::Relaxed)
    }

    /// Append every event published since the last call to `out`. A slot claimed but not yet
    /// published (its producer between claim and publication) ends the call: it and those after
    /// it are read at the next.
    pub fn drain(&mut self, out: &mut Vec<RawEvent>) {
        let l = self.log();
        let mut tail = self.tail;
        loop {
            let slot = &l.ring[tail as usize & (SLOTS - 1)];
            if slot.seq.load(Ordering::Acquire) != tail + 1 {
                break;
            }
            out.push(RawEvent {
                kind: slot.kind.load(Ordering::Relaxed),
                tid: slot.tid.load(Ordering::Relaxed),
                start_ns: slot.start_ns.load(Ordering::Relaxed),
                end_ns: slot.end_ns.load(Ordering::Relaxed),
                cpu_ns: slot.cpu_ns.load(Ordering::Relaxed),
                object: slot.object.load(Ordering::Relaxed),
                other: slot.other.load(Ordering::Relaxed),
                flags: slot.flags.load(Ordering::Relaxed),
            });
            // Free for the position one lap on.
            slot.seq.store(tail + SLOTS as u64, Ordering::Release);
            tail += 1;
        }
        self.tail = tail;
    }
}

impl Drop for EventLog {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `create`, of this size.
        unsafe { libc::munmap(self.log as *mut libc::c_void, std::mem::size_of::<Log>()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_the_headers() {
        // struct ampsched_event is one 64-byte cache line; the header two lines (head on the second).
        assert_eq!(std::mem::size_of::<Slot>(), 64);
        assert_eq!(std::mem::offset_of!(Log, head), 64);
        assert_eq!(std::mem::offset_of!(Log, ring), 128);
        assert_eq!(std::mem::size_of::<Log>(), 128 + 64 * SLOTS);
        assert!(SLOTS.is_power_of_two());
    }
}
