//! Simultaneous multithreading: the hardware threads of one physical core share its pipeline,
//! so a thread runs slower while its sibling is busy (docs/smt.md).
//!
//! The model is the machine's per-core-type throughput factor for two busy siblings
//! (`CoreType::smt_sibling_speed`, s): a thread's speed on a hardware thread whose sibling is
//! busy (running a thread, computing or spinning: a spin loop issues instructions too) is s times
//! its speed alone on the core, whatever the two run; alone (the sibling idle) it is its speed
//! alone. So a core's throughput with both busy is 2s times one thread's: 0.5 gains nothing, 1
//! doubles it. Its CPU time is its wall time on the hardware thread, as Linux counts it; at the
//! lower speed it retires fewer instructions in it, so its counters show the lower IPC.
//!
//! It follows the mechanism of the LLC and memory-bandwidth sharing (`memory`): a rate is
//! computed when a core is planned, from whether its sibling is busy at that moment
//! (`smt_factor`, in `Engine::tpi_on`). When a core starts or stops running a thread
//! (`Engine::busy_changed`, from dispatch and `stop_running`), its sibling is marked, and at the
//! end of the handler the sibling's running thread is accounted at its old rate and re-planned
//! (`refresh_smt`). A machine without SMT has no `Smt` (`Engine::smt` is None) and pays nothing
//! for it: no table, no mark, the same rates.
//!
//! What it leaves out: the factor is one per core type, not per pair of programs (Eyerman and
//! Eeckhout's symbiosis: two memory-bound threads share a core better than two compute-bound
//! ones); a spin budget counted in cycles runs at the clock whatever the sibling does; and the
//! power model counts each hardware thread's active power as a core's.

use ampsched_model::Machine;

use crate::engine::Engine;
use crate::local::LocalScheduler;

/// No sibling: a hardware thread alone on its physical core.
const NO_SIBLING: u32 = u32::MAX;

/// The SMT state of a machine that has some (`Machine::has_smt`).
#[derive(Debug, Clone)]
pub(crate) struct Smt {
    /// Per core: the other hardware thread of its physical core, or `NO_SIBLING`.
    sibling: Vec<u32>,
    /// Per core: a thread's speed there while the sibling is busy, relative to alone (its type's
    /// `smt_sibling_speed`).
    sibling_speed: Vec<f64>,
    /// Cores whose sibling started or stopped running a thread in this handler.
    dirty: Vec<u32>,
}

impl Smt {
    /// The SMT state of `m`, None when no physical core has two hardware threads.
    pub(crate) fn new(m: &Machine) -> Option<Box<Smt>> {
        if !m.has_smt() {
            return None;
        }
        let sibling = (0..m.num_cores())
            .map(|c| {
                let siblings = m.smt_siblings(c);
                debug_assert!(siblings.len() <= 2, "two-way SMT at most (limits::MAX_SMT)");
                siblings.iter().find(|&s| s != c).map_or(NO_SIBLING, |s| s as u32)
            })
            .collect();
        let sibling_speed = m.cores.iter().map(|c| m.core_types[c.core_type].smt_sibling_speed).collect();
        Some(Box::new(Smt { sibling, sibling_speed, dirty: Vec::new() }))
    }
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// The factor of a thread's speed on core `c` now: `smt_sibling_speed` while `c`'s sibling
    /// runs a thread, else 1 (and 1 on a machine without SMT).
    #[inline]
    pub(crate) fn smt_factor(&self, c: usize) -> f64 {
        match &self.smt {
            None => 1.0,
            Some(s) => {
                let sib = s.sibling[c];
                if sib != NO_SIBLING && self.running[sib as usize].is_some() {
                    s.sibling_speed[c]
                } else {
                    1.0
                }
            }
        }
    }

    /// Core `c` started or stopped running a thread: its sibling's thread changes speed.
    #[inline]
    pub(crate) fn busy_changed(&mut self, c: usize) {
        if let Some(s) = &mut self.smt {
            let sib = s.sibling[c];
            if sib != NO_SIBLING && !s.dirty.contains(&sib) {
                s.dirty.push(sib);
            }
        }
    }

    /// Whether core `c`'s sibling changed its busy state since `c`'s rate was last refreshed.
    #[inline]
    pub(crate) fn smt_pending(&self, c: usize) -> bool {
        self.smt.as_ref().is_some_and(|s| s.dirty.contains(&(c as u32)))
    }

    /// Whether some core's sibling changed its busy state in this handler.
    #[inline]
    pub(crate) fn smt_dirty(&self) -> bool {
        self.smt.as_ref().is_some_and(|s| !s.dirty.is_empty())
    }

    /// Re-plan, at their new speed, the running threads of the cores whose sibling started or
    /// stopped running (what they did before is accounted at the old rate, `update_rate`).
    pub(crate) fn refresh_smt(&mut self) {
        let Some(s) = &mut self.smt else { return };
        let mut dirty = std::mem::take(&mut s.dirty);
        for &c in &dirty {
            let c = c as usize;
            if self.running[c].is_some() && self.update_rate(c) {
                self.mark_dirty(c as u32);
            }
        }
        dirty.clear();
        if let Some(s) = &mut self.smt {
            // The buffer back, for the next handler (nothing marked while refreshing: rates
            // change, not who runs).
            debug_assert!(s.dirty.is_empty());
            s.dirty = dirty;
        }
    }
}
