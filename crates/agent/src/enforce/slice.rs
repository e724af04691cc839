//! Time slices. Since Linux 6.12 (commit 857b158dc5e8, "sched/eevdf: Use sched_attr::
//! sched_runtime to set request/slice suggestion"), EEVDF takes a SCHED_OTHER/BATCH/IDLE
//! thread's `sched_attr.sched_runtime` as its slice request, clamped to 0.1–100 ms; 0 means the
//! default slice. Older kernels accept the call and ignore the value, so the agent reads the
//! slice back: a kernel that reports a different one did not apply it.

use std::collections::BTreeMap;

use ampsched_model::ThreadState;

use crate::monitor::Monitor;
use crate::sched_attr::{self, SchedAttr};

use ampsched_model::defaults::{MAX_SLICE_NS, MIN_SLICE_NS};
/// The fields up to `sched_period` are all a fair-class thread's slice needs.
const ATTR_SIZE: u32 = sched_attr::SIZE_VER0;

fn get_attr(tid: u32) -> std::io::Result<SchedAttr> {
    sched_attr::get(tid, ATTR_SIZE)
}

fn set_attr(tid: u32, a: &SchedAttr) -> std::io::Result<()> {
    sched_attr::set(tid, a, ATTR_SIZE)
}

fn is_fair_class(policy: u32) -> bool {
    matches!(policy as i32, libc::SCHED_OTHER | libc::SCHED_BATCH | libc::SCHED_IDLE)
}

/// Set thread `tid`'s slice request (0: the default), keeping its policy and nice value.
/// Returns the slice the kernel reports afterwards.
fn set_slice(tid: u32, ns: u64) -> Result<u64, String> {
    let mut a = get_attr(tid).map_err(|e| format!("sched_getattr: {e}"))?;
    if !is_fair_class(a.policy) {
        return Err(format!("the thread runs under real-time or deadline policy {}; slices are for SCHED_OTHER threads", a.policy));
    }
    a.runtime = ns;
    // No SCHED_FLAG_KEEP_PARAMS: with it the kernel would keep the old slice too.
    a.flags = 0;
    set_attr(tid, &a).map_err(|e| format!("sched_setattr: {e}"))?;
    Ok(get_attr(tid).map_err(|e| format!("sched_getattr: {e}"))?.runtime)
}

#[derive(Debug)]
pub struct Slices {
    /// The slice a thread without a request reports (the agent's own thread's), if readable.
    default_ns: Option<u64>,
    /// Thread → its slice before the agent changed it.
    originals: BTreeMap<u32, u64>,
}

impl Slices {
    pub fn new() -> Slices {
        Slices { default_ns: get_attr(0).ok().map(|a| a.runtime), originals: BTreeMap::new() }
    }

    /// The policy's decision for thread `id`: a slice, or `None` for the default one.
    pub fn set(&mut self, m: &mut Monitor, id: u32, slice_ns: Option<u64>) -> Result<bool, String> {
        if slice_ns.is_none() && !self.originals.contains_key(&id) {
            return Ok(false); // never changed: it has the default already
        }
        if !m.real_proc() {
            return Ok(true);
        }
        let tid = m.extra[id as usize].tid;
        let before = get_attr(tid).map_err(|e| format!("sched_getattr: {e}"))?.runtime;
        if !self.originals.contains_key(&id) {
            m.guard_slice(id, self.request_restoring(before));
        }
        let want = slice_ns.unwrap_or(0);
        let got = set_slice(tid, want)?;
        self.originals.entry(id).or_insert(before);
        let expected = if want == 0 { self.default_ns.unwrap_or(got) } else { want.clamp(MIN_SLICE_NS, MAX_SLICE_NS) };
        if got != expected {
            return Err(format!(
                "the kernel reports a slice of {got} ns after the request: it ignores sched_runtime for SCHED_OTHER threads (slices need Linux 6.12 or later)"
            ));
        }
        if want != 0 && expected != want {
            return Err(format!("clamped to {} ms (the kernel's range is 0.1 to 100 ms)", expected as f64 / 1e6));
        }
        Ok(got != before)
    }

    /// The request that gives back a thread's slice `before`. A thread that had the default
    /// slice gets "no request" back (0), not a request of the default's length (which would
    /// stay fixed if the default changed).
    fn request_restoring(&self, before: u64) -> u64 {
        if Some(before) == self.default_ns {
            0
        } else {
            before
        }
    }

    /// Give every live thread whose slice the agent changed its original back: (restored, vanished).
    pub fn restore(&self, m: &Monitor) -> (usize, usize) {
        let (mut ok, mut gone) = (0, 0);
        for (&id, &before) in &self.originals {
            if m.book.threads[id as usize].state == ThreadState::Exited {
                continue;
            }
            match set_slice(m.extra[id as usize].tid, self.request_restoring(before)) {
                Ok(_) => ok += 1,
                Err(_) => gone += 1,
            }
        }
        (ok, gone)
    }
}

impl Default for Slices {
    fn default() -> Self {
        Slices::new()
    }
}
