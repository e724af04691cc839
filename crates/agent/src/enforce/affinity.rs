//! Affinities: one sched_setaffinity per thread whose affinity changes, and the originals back
//! at the end.

use ampsched_model::{CoreSet, ThreadState};

use crate::monitor::Monitor;
use crate::procfs::set_affinity;

pub enum Moved {
    Changed,
    /// Already so: no system call.
    Unchanged,
    /// Exited since the sample (ESRCH).
    Gone,
    /// The thread refuses affinities; the agent leaves it alone from now on.
    Refused(String),
}

/// Let thread `id` run on `run_on`: its view's `allowed`, or the part of it a fast-core share
/// picks for this round.
pub fn put_on(m: &mut Monitor, id: u32, allowed: &CoreSet, run_on: &CoreSet) -> Moved {
    let mask = m.mask_of(run_on);
    let e = &m.extra[id as usize];
    if e.applied.as_ref().or(e.original.as_ref()) == Some(&mask) {
        m.note_allowed(id, allowed, run_on);
        return Moved::Unchanged;
    }
    if !m.real_proc() {
        m.record_applied(id, mask, allowed, run_on);
        return Moved::Changed;
    }
    m.guard_affinity(id, &mask);
    let e = &m.extra[id as usize];
    match set_affinity(e.tid, &mask) {
        Ok(()) => {
            m.record_applied(id, mask, allowed, run_on);
            Moved::Changed
        }
        Err(err) if err.raw_os_error() == Some(libc::ESRCH) => Moved::Gone,
        Err(err) => {
            // One thread the agent may not move (a setuid helper: EPERM; a cpuset or a kernel
            // thread that refuses affinities: EINVAL) must not end the run: it is left alone
            // from now on and reported.
            let note = format!("thread {} ({}): {err}", e.tid, e.comm);
            m.mark_unmanaged(id, note);
            Moved::Refused(format!("the thread refused it: {err}"))
        }
    }
}

/// Give every live thread the agent moved its original affinity back, from thread id `from` on
/// (threads found after an earlier restore): (restored, vanished).
pub fn restore(m: &Monitor, from: usize) -> (usize, usize) {
    let (mut ok, mut gone) = (0, 0);
    for (t, e) in m.book.threads.iter().zip(&m.extra).skip(from) {
        let (Some(orig), Some(_)) = (&e.original, &e.applied) else { continue };
        if t.state == ThreadState::Exited || !m.real_proc() {
            continue;
        }
        match set_affinity(e.tid, orig) {
            Ok(()) => ok += 1,
            Err(_) => gone += 1, // exited since the last sample (ESRCH)
        }
    }
    (ok, gone)
}
