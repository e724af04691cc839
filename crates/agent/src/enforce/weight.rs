//! CFS weights. Linux takes a weight only as a nice value (setpriority(PRIO_PROCESS, tid, nice)
//! sets one thread's), so a weight decision becomes the nice value whose weight in Linux's
//! sched_prio_to_weight table is nearest (`ampsched_model::nice`, the table the simulator weighs with).
//!
//! Every thread whose nice value the agent changed gets its original back at the end. A thread
//! created by such a thread, in its process or in a child process, inherits the changed value:
//! a thread found with one of the values the agent set in its process (or in the parent of a
//! process forked since) gets its creator's original back too (`monitor::inherited_nice` gives
//! the rule), as `monitor.rs` does for inherited affinities. The restore rescans the targets
//! first, so threads created after the last sample are found (`Session::restore`).

use ampsched_model::nice::weight_of_nice;
use ampsched_model::ThreadState;

use crate::monitor::Monitor;

/// Nice values Linux has.
const NICE_RANGE: std::ops::RangeInclusive<i32> = -20..=19;

/// The nice value whose CFS weight is nearest `weight` (absolute difference; a tie goes to the
/// heavier weight).
pub fn nice_of_weight(weight: u32) -> i32 {
    NICE_RANGE.min_by_key(|&n| (weight_of_nice(n) as i64 - weight as i64).abs()).expect("non-empty range")
}

/// A thread's nice value; `Err` when it has exited (or may not be read).
pub fn get_nice(tid: u32) -> std::io::Result<i32> {
    // getpriority returns -1 both as a nice value and on error: only errno tells them apart.
    // SAFETY: errno is thread-local; getpriority takes integers.
    unsafe {
        *libc::__errno_location() = 0;
        let n = libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t);
        if n == -1 && *libc::__errno_location() != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(n)
    }
}

pub fn set_nice(tid: u32, nice: i32) -> std::io::Result<()> {
    // SAFETY: setpriority takes integers.
    if unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The nice values the agent changed: each thread's original is kept in its `ThreadExtra`
/// (`nice_original`), where the monitor also puts the original of a thread that inherited a
/// value the agent set (`monitor::inherited_nice`).
#[derive(Debug, Default)]
pub struct Weights;

impl Weights {
    /// The policy's decision for thread `id`: a weight, or `None` for its own nice value back.
    pub fn set(&mut self, m: &mut Monitor, id: u32, weight: Option<u32>) -> Result<bool, String> {
        let (tid, original) = (m.extra[id as usize].tid, m.extra[id as usize].nice_original);
        let target = match (weight, original) {
            (Some(w), _) => nice_of_weight(w),
            (None, Some(n)) => n,
            (None, None) => return Ok(false),
        };
        let current = if m.real_proc() { get_nice(tid).map_err(|e| format!("cannot read its nice value: {e}"))? } else { m.extra[id as usize].nice_seen };
        if current == target {
            return Ok(false);
        }
        if m.real_proc() {
            if original.is_none() {
                m.guard_nice(id, current);
            }
            set_nice(tid, target).map_err(|e| match e.raw_os_error() {
                Some(libc::EACCES) | Some(libc::EPERM) => format!("not permitted ({e}): lowering a nice value needs CAP_SYS_NICE"),
                _ => e.to_string(),
            })?;
        }
        if original.is_none() {
            m.extra[id as usize].nice_original = Some(current);
        }
        m.record_nice(id, target);
        Ok(true)
    }

    /// Give every live thread from id `from` on whose nice value the agent changed (or that
    /// inherited one it set) its original back: (restored, vanished).
    pub fn restore(&self, m: &Monitor, from: usize) -> (usize, usize) {
        let (mut ok, mut gone) = (0, 0);
        if !m.real_proc() {
            return (0, 0);
        }
        for (t, e) in m.book.threads.iter().zip(&m.extra).skip(from) {
            let Some(nice) = e.nice_original else { continue };
            if t.state == ThreadState::Exited {
                continue;
            }
            match set_nice(e.tid, nice) {
                Ok(()) => ok += 1,
                Err(_) => gone += 1, // exited since the last sample (ESRCH)
            }
        }
        (ok, gone)
    }
}
