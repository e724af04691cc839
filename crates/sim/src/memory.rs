//! The memory side of a running thread: the LLC capacity it gets beside its co-runners, the
//! latency of its misses (local or remote memory node), and so its time per instruction; and
//! the refill a migration to another LLC domain costs it. The models are in
//! `ampsched_model::cache` (FOA sharing, refill) and `perf` (time per instruction).
//!
//! A thread's rate is computed when its core is planned, from who runs in its LLC domain at
//! that moment. When that changes (a thread starts or stops running in the domain, changes
//! phase, spins, or the domain's clocks change), the domain is marked, and at the end of the
//! handler its other threads whose miss rate depends on capacity are accounted at their old
//! rate and re-planned. Threads with flat miss rates never are: a machine without shared LLCs
//! or a workload without miss curves runs exactly as before.
//!
//! Memory is placed by first touch, as Linux and Solaris do by default: a thread's home node is
//! the node of the first core it runs on, and its memory never moves (no automatic NUMA
//! balancing). Away from home, every miss costs the remote latency.

use ampsched_model::cache::{foa_capacity_kb, refill_lines};
use ampsched_model::events as pmu;
use ampsched_model::Profile;

use crate::engine::Engine;
use crate::local::LocalScheduler;

/// No home node yet: the thread has not run.
pub(crate) const NO_HOME: u16 = u16::MAX;

/// What a thread's rate was computed for: its core, its phase, and the machine's clocks (an
/// epoch counted up at every frequency change). `NO_RATE`: none, ask the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RateKey {
    core: u32,
    pc: u32,
    clock_epoch: u32,
}

pub(crate) const NO_RATE: RateKey = RateKey { core: u32::MAX, pc: u32::MAX, clock_epoch: u32::MAX };

/// What a thread's instructions cost on a core, now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rate {
    pub ns_per_instruction: f64,
    pub mpki: f64,
    /// The LLC capacity it gets.
    pub capacity_kb: f64,
    pub latency_ns: f64,
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// The latency of thread `t`'s misses on core `c`.
    pub(crate) fn latency_ns(&self, t: u32, c: usize) -> f64 {
        let m = &self.dvfs.machine;
        let home = self.rts[t as usize].home_node;
        if home == NO_HOME || home as usize == m.cores[c].node {
            m.memory_latency_ns
        } else {
            m.remote_memory_latency_ns
        }
    }

    /// Thread `t`'s rate on core `c` with `profile`, beside the threads running in `c`'s LLC
    /// domain now (other than on `c` itself).
    pub(crate) fn rate(&self, t: u32, c: usize, profile: &Profile) -> Rate {
        let m = &self.dvfs.machine;
        let latency_ns = self.latency_ns(t, c);
        let capacity_kb = if profile.misses.is_flat() { m.llc_size_kb(c) } else { self.llc_capacity_kb(c, profile, latency_ns) };
        let mpki = profile.misses.mpki_at(capacity_kb);
        let ty = &m.core_types[m.cores[c].core_type];
        Rate { ns_per_instruction: self.model.ns_per_instruction_at(ty, profile.cpi, mpki, latency_ns), mpki, capacity_kb, latency_ns }
    }

    /// LLC accesses per ns of a thread with `profile` alone on core `c` (the FOA model's
    /// access frequency, taken from the solo run as Chandra et al. do).
    fn access_rate(&self, c: usize, profile: &Profile, latency_ns: f64) -> f64 {
        let m = &self.dvfs.machine;
        let solo_mpki = profile.misses.mpki_at(m.llc_size_kb(c));
        let ty = &m.core_types[m.cores[c].core_type];
        profile.misses.accesses_pki() / 1000.0 / self.model.ns_per_instruction_at(ty, profile.cpi, solo_mpki, latency_ns)
    }

    fn llc_capacity_kb(&self, c: usize, profile: &Profile, latency_ns: f64) -> f64 {
        let m = &self.dvfs.machine;
        let domain = &m.llcs[m.cores[c].llc];
        let size = m.llc_size_kb(c);
        if domain.cores.len() == 1 {
            return size;
        }
        let own = self.access_rate(c, profile, latency_ns);
        let mut all = own;
        for other in domain.cores.iter().filter(|&o| o != c) {
            if let Some(u) = self.running[other] {
                if let Some(p) = self.computing_profile(u) {
                    all += self.access_rate(other, p, self.latency_ns(u, other));
                }
            }
        }
        foa_capacity_kb(size, own, all)
    }

    /// Set the rate of core `c`'s running thread from now, unless it is known for this core,
    /// phase and clocks (`ThreadRt::rate_key`). Its LLC co-runners may change it too: where they
    /// can (`shared_curves`), a dispatch forgets the key and a change in the domain forces
    /// `update_rate`, here if the domain is still to be refreshed (`llc_dirty`). Planned first
    /// at the old rate and again by `refresh_llcs`, the core's event would be scheduled later
    /// than before the cache and so run after, not before, other events at the same ns (slice
    /// ends often meet): the same physics, a different tie order, different runs.
    pub(crate) fn ensure_rate(&mut self, c: usize) {
        let t = self.running[c].expect("a rate is for a running thread");
        let key = RateKey { core: c as u32, pc: self.rts[t as usize].pc, clock_epoch: self.dvfs.epoch };
        let stale = self.rts[t as usize].rate_key != key || !self.cfg.rate_cache || self.llc_pending(c);
        // A thread that spins or waits has no rate: it gets one, and a key, when it computes.
        if stale && self.computing_profile(t).is_some() {
            self.update_rate(c);
            self.rts[t as usize].rate_key = key;
        }
    }

    /// Set the rate of core `c`'s running thread from now; what it did before is accounted at
    /// the rate it had. Whether the rate changed.
    pub(crate) fn update_rate(&mut self, c: usize) -> bool {
        let t = self.running[c].expect("a rate is for a running thread");
        let Some(profile) = self.computing_profile(t) else { return false };
        let r = self.rate(t, c, profile);
        let type_index = self.dvfs.machine.cores[c].core_type;
        let ty = &self.dvfs.machine.core_types[type_index];
        let more = pmu::per_instruction(profile.cpi, &profile.misses, &profile.events, r.mpki, r.latency_ns, ty.freq_ghz, ty.cpi_scale);
        let rt = &self.rts[t as usize];
        let same_events = more == rt.more_per_instruction && rt.rate_type as usize == type_index;
        if r.ns_per_instruction == rt.tpi && r.mpki == rt.llc_mpki && same_events {
            return false;
        }
        self.account(c);
        if !same_events {
            self.flush_events(t);
        }
        let rt = &mut self.rts[t as usize];
        rt.tpi = r.ns_per_instruction;
        rt.llc_mpki = r.mpki;
        rt.more_per_instruction = more;
        rt.rate_type = type_index as u8;
        true
    }

    /// Who runs in core `c`'s LLC domain, or what they do, has changed.
    #[inline]
    pub(crate) fn llc_changed(&mut self, c: usize) {
        if self.shared_curves {
            self.mark_llc_dirty(c);
        }
    }

    fn mark_llc_dirty(&mut self, c: usize) {
        let d = self.dvfs.machine.cores[c].llc;
        if self.dvfs.machine.llcs[d].cores.len() > 1 && !self.llc_dirty.contains(&(d as u32)) {
            self.llc_dirty.push(d as u32);
        }
    }

    /// Whether core `c`'s LLC domain has changed since its threads' rates were last refreshed.
    fn llc_pending(&self, c: usize) -> bool {
        !self.llc_dirty.is_empty() && self.llc_dirty.contains(&(self.dvfs.machine.cores[c].llc as u32))
    }

    /// Re-plan, at their new share of the cache, the threads of the changed domains whose miss
    /// rate depends on it.
    pub(crate) fn refresh_llcs(&mut self) {
        while let Some(d) = self.llc_dirty.pop() {
            let domain = self.dvfs.machine.llcs[d as usize].cores.clone();
            for c in domain.iter() {
                let Some(t) = self.running[c] else { continue };
                if self.computing_profile(t).is_some_and(|p| !p.misses.is_flat()) && self.update_rate(c) {
                    self.mark_dirty(c as u32);
                }
            }
        }
    }

    /// The LLC refill thread `t` pays on arriving at core `c` from another domain: (time,
    /// misses). The lines it would have hit, at its latency there (`cache::refill_lines`).
    pub(crate) fn refill_cost(&self, t: u32, c: usize) -> (u64, f64) {
        let Some(profile) = self.refill_profile(t) else { return (0, 0.0) };
        if profile.misses.is_flat() {
            return (0, 0.0);
        }
        let r = self.rate(t, c, profile);
        let lines = refill_lines(&profile.misses, profile.footprint_kb, r.capacity_kb);
        ((lines * r.latency_ns).round() as u64, lines)
    }

    /// The profile whose data a thread has cached: that of the phase it is in, computing or not
    /// (a thread spinning or woken in a phase still holds its data).
    fn refill_profile(&self, t: u32) -> Option<&'a Profile> {
        self.phase_of(t)?.profile()
    }
}
