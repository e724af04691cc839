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

/// The memory side's state of a thread (`Engine::rates`): the rate it retires instructions at
/// on its core, and where its memory is. The other counted events per instruction at that
/// rate are apart (`Engine::more_per_instruction`): read only when the rate changes or is
/// flushed, not at every accounting.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ThreadRate {
    /// ns per instruction of the current chunk on its core, since it was last accounted.
    pub tpi: f64,
    /// LLC misses per thousand instructions, the same way.
    pub llc_mpki: f64,
    /// Instructions retired at the rate and not yet added to the other events
    /// (`Engine::flush_events`), and the core type those are counted on.
    pub retired_at_rate: f64,
    pub rate_type: u8,
    /// The core, phase and clocks `tpi` was computed for (`NO_RATE`: none).
    pub rate_key: RateKey,
    /// The memory node its memory is on (`NO_HOME` before it first runs).
    pub home_node: u16,
}

impl Default for ThreadRate {
    fn default() -> Self {
        ThreadRate { tpi: 0.0, llc_mpki: 0.0, retired_at_rate: 0.0, rate_type: 0, rate_key: NO_RATE, home_node: NO_HOME }
    }
}

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
        let home = self.rates[t as usize].home_node;
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
    /// phase and clocks (`ThreadRate::rate_key`). Its LLC co-runners may change it too: where they
    /// can (`shared_curves`), a dispatch forgets the key and a change in the domain forces
    /// `update_rate`, here if the domain is still to be refreshed (`llc_dirty`). Planned first
    /// at the old rate and again by `refresh_llcs`, the core's event would be scheduled later
    /// than before the cache and so run after, not before, other events at the same ns (slice
    /// ends often meet): the same physics, a different tie order, different runs.
    pub(crate) fn ensure_rate(&mut self, c: usize) {
        let t = self.running[c].expect("a rate is for a running thread");
        let key = RateKey { core: c as u32, pc: self.flow[t as usize].pc, clock_epoch: self.dvfs.epoch };
        let stale = self.rates[t as usize].rate_key != key || !self.cfg.rate_cache || self.llc_pending(c);
        // A thread that spins or waits has no rate: it gets one, and a key, when it computes.
        if stale && self.computing_profile(t).is_some() {
            self.update_rate(c);
            self.rates[t as usize].rate_key = key;
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
        let rate = &self.rates[t as usize];
        let same_events = rate.rate_type as usize == type_index && more == self.more_per_instruction[t as usize];
        if r.ns_per_instruction == rate.tpi && r.mpki == rate.llc_mpki && same_events {
            return false;
        }
        self.account(c);
        if !same_events {
            self.flush_events(t);
        }
        let rate = &mut self.rates[t as usize];
        rate.tpi = r.ns_per_instruction;
        rate.llc_mpki = r.mpki;
        rate.rate_type = type_index as u8;
        self.more_per_instruction[t as usize] = more;
        true
    }

    /// Add to thread `t`'s other events (`Counters::more`) what it retired at its current rate.
    pub(crate) fn flush_events(&mut self, t: u32) {
        let rate = &mut self.rates[t as usize];
        if rate.retired_at_rate > 0.0 {
            let more = &mut self.counters.more[t as usize][rate.rate_type as usize];
            for (x, per) in more.iter_mut().zip(self.more_per_instruction[t as usize]) {
                *x += rate.retired_at_rate * per;
            }
            rate.retired_at_rate = 0.0;
        }
    }

    /// Thread `t` is dispatched on core `c`: the first run places its memory (first touch, on
    /// `c`'s node), and where co-runners change rates (`shared_curves`) its rate is asked
    /// again, since who runs beside it in its LLC may have changed while it waited.
    #[inline]
    pub(crate) fn dispatched(&mut self, t: u32, c: usize) {
        let rate = &mut self.rates[t as usize];
        if rate.home_node == NO_HOME {
            rate.home_node = self.dvfs.machine.cores[c].node as u16;
            self.book.threads[t as usize].home_node = Some(self.dvfs.machine.cores[c].node);
        }
        if self.shared_curves {
            rate.rate_key = NO_RATE;
        }
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
