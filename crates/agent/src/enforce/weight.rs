//! CFS weights. Linux takes a weight only as a nice value (setpriority(PRIO_PROCESS, tid, nice)
//! sets one thread's), so a weight decision becomes the nice value whose weight in Linux's
//! sched_prio_to_weight table is nearest (`ampsched_model::nice`, the table the simulator weighs with).
//!
//! Every thread whose nice value the agent changed gets its original back at the end. A thread
//! created by such a thread inherits the changed value: a thread found after the agent changed
//! a nice value in its process, with one of the values the agent set there, gets the process's
//! original back too (as `monitor.rs` does for inherited affinities).

use std::collections::{BTreeMap, HashMap};

use ampsched_model::ThreadState;
use ampsched_model::nice::weight_of_nice;

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

/// What the agent changed in one process.
#[derive(Debug, Clone)]
struct Imposed {
    /// The nice value of the first thread the agent changed, before.
    original: i32,
    values: Vec<i32>,
    /// Threads with ids from here on were found after the first change.
    first_later_id: u32,
}

#[derive(Debug, Default)]
pub struct Weights {
    /// Thread → its nice value before the agent changed it.
    originals: BTreeMap<u32, i32>,
    by_pid: HashMap<u32, Imposed>,
}

impl Weights {
    /// The policy's decision for thread `id`: a weight, or `None` for its own nice value back.
    pub fn set(&mut self, m: &mut Monitor, id: u32, weight: Option<u32>) -> Result<bool, String> {
        let (tid, pid) = (m.extra[id as usize].tid, m.extra[id as usize].pid);
        let target = match weight {
            Some(w) => nice_of_weight(w),
            None => match self.originals.get(&id) {
                Some(&n) => n,
                None => return Ok(false),
            },
        };
        let current = if m.real_proc() { get_nice(tid).map_err(|e| format!("cannot read its nice value: {e}"))? } else { m.extra[id as usize].nice_seen };
        if current == target {
            return Ok(false);
        }
        if m.real_proc() {
            if !self.originals.contains_key(&id) {
                m.guard_nice(id, current);
            }
            set_nice(tid, target).map_err(|e| match e.raw_os_error() {
                Some(libc::EACCES) | Some(libc::EPERM) => format!("not permitted ({e}): lowering a nice value needs CAP_SYS_NICE"),
                _ => e.to_string(),
            })?;
        }
        self.originals.entry(id).or_insert(current);
        let next_id = m.book.threads.len() as u32;
        let p = self.by_pid.entry(pid).or_insert(Imposed { original: current, values: Vec::new(), first_later_id: next_id });
        if !p.values.contains(&target) {
            p.values.push(target);
        }
        Ok(true)
    }

    /// Give every live thread whose nice value the agent changed (or that inherited one) its
    /// original back: (restored, vanished).
    pub fn restore(&self, m: &Monitor) -> (usize, usize) {
        let (mut ok, mut gone) = (0, 0);
        if !m.real_proc() {
            return (0, 0);
        }
        let mut put_back = |tid: u32, nice: i32| match set_nice(tid, nice) {
            Ok(()) => ok += 1,
            Err(_) => gone += 1,
        };
        for (&id, &nice) in &self.originals {
            if m.book.threads[id as usize].state != ThreadState::Exited {
                put_back(m.extra[id as usize].tid, nice);
            }
        }
        for (id, e) in m.extra.iter().enumerate() {
            let id = id as u32;
            let Some(p) = self.by_pid.get(&e.pid) else { continue };
            let inherited = id >= p.first_later_id && p.values.contains(&e.nice_seen) && !self.originals.contains_key(&id);
            if inherited && m.book.threads[id as usize].state != ThreadState::Exited {
                put_back(e.tid, p.original);
            }
        }
        (ok, gone)
    }
}
