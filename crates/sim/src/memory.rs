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
//!
//! On a machine that gives its memory bandwidth (`[memory]`), each node's controller is a
//! queue (`ampsched_model::bandwidth`: M/D/1, the Pollaczek–Khinchine mean wait), and a miss
//! costs its latency plus the controller's mean wait at the demand of the threads running now
//! whose memory is on that node. When that demand changes (the same changes as an LLC domain's,
//! anywhere on the machine), the controllers are solved again at the end of the handler, after
//! the LLC shares, and where a controller's wait changed, the running threads it serves are
//! accounted at their old rate and re-planned. The LLC shares are those of the unloaded
//! latency (the FOA model's access rates are taken at it), so that the cache and the queue do
//! not feed each other: the miss rates are known before the queues are solved. A machine
//! without `[memory]` has no controllers and runs exactly as before.
//!
//! SMT siblings change each other's speed the same way (`smt`): marked when a core starts or
//! stops running a thread, re-planned at the end of the handler with the LLC shares.

use ampsched_model::bandwidth;
use ampsched_model::cache::{foa_capacity_kb, refill_lines};
use ampsched_model::events as pmu;
use ampsched_model::machine::MAX_CORE_TYPES;
use ampsched_model::perf::CoreCpi;
use ampsched_model::{Machine, MemoryBandwidth, Profile, Workload};

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

/// The memory controllers of a machine with `[memory]`: one per memory node, each a queue whose
/// mean wait is added to the latency of the misses it serves.
#[derive(Debug, Clone)]
pub(crate) struct Controllers<'a> {
    bw: MemoryBandwidth,
    /// Per memory node: its controller's mean queueing delay now, ns (0 while no thread misses).
    wait_ns: Vec<f64>,
    /// Who runs, or what they do, has changed since the waits were solved.
    pub dirty: bool,
    /// What the waits were solved for: the running threads that miss, and the clocks. The same
    /// again gives the same waits, so a slice switch between two threads of one phase on one
    /// core (the common event) solves nothing.
    served: Vec<Served<'a>>,
    clock_epoch: u32,
    /// Reused buffers: the served threads now, and which nodes' waits changed.
    now: Vec<Served<'a>>,
    changed: Vec<bool>,
}

/// A running thread that misses, as its controller's demand needs it.
#[derive(Debug, Clone, Copy)]
struct Served<'a> {
    core: u32,
    node: u32,
    profile: &'a Profile,
    /// What an instruction of `profile` costs on the core (`core_cpi`).
    cost: CoreCpi,
    mpki: f64,
    unloaded_ns: f64,
}

impl PartialEq for Served<'_> {
    fn eq(&self, o: &Self) -> bool {
        // The same profile: the same object for threads of one app's phase, else equal values.
        let same_profile = std::ptr::eq(self.profile, o.profile) || self.profile == o.profile;
        self.core == o.core && self.node == o.node && self.mpki == o.mpki && self.unloaded_ns == o.unloaded_ns && self.cost == o.cost && same_profile
    }
}

impl<'a> Controllers<'a> {
    pub(crate) fn new(bw: MemoryBandwidth, nodes: usize) -> Controllers<'a> {
        Controllers { bw, wait_ns: vec![0.0; nodes], dirty: false, served: Vec::new(), clock_epoch: 0, now: Vec::new(), changed: vec![false; nodes] }
    }
}

/// The costs on each core type (`Profile::on_core`) of the phases whose CPI is a table per
/// microarchitecture, resolved when the engine is made, so that a rate never looks a
/// microarchitecture up by name. Phases with a plain CPI need no table: their cost is a product.
/// Only groups with such a phase take room.
#[derive(Debug, Default)]
pub(crate) struct UarchCosts {
    /// Per app, the index of its first group in `group_base`.
    app_first_group: Vec<u32>,
    /// Per group (all apps), the index of its first phase in `costs`; `NONE` for a group
    /// without a table.
    group_base: Vec<u32>,
    costs: Vec<[CoreCpi; MAX_CORE_TYPES]>,
}

impl UarchCosts {
    const NONE: u32 = u32::MAX;

    pub(crate) fn new(m: &Machine, w: &Workload) -> UarchCosts {
        let mut out = UarchCosts::default();
        let unused = CoreCpi { cycles: f64::NAN, overlap: f64::NAN };
        for app in &w.apps {
            out.app_first_group.push(out.group_base.len() as u32);
            for g in &app.groups {
                if !g.phases.iter().any(|p| p.profile().is_some_and(|p| p.uarch_cpi.is_some())) {
                    out.group_base.push(Self::NONE);
                    continue;
                }
                out.group_base.push(out.costs.len() as u32);
                for p in &g.phases {
                    let mut per_type = [unused; MAX_CORE_TYPES];
                    if let Some(profile) = p.profile() {
                        for (slot, t) in per_type.iter_mut().zip(&m.core_types) {
                            *slot = profile.on_core(t);
                        }
                    }
                    out.costs.push(per_type);
                }
            }
        }
        out
    }
}

impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// What thread `t`'s current phase, of `profile`, costs on core type `ty` (`Profile::on_core`):
    /// the product for a plain CPI, the resolved value for a table.
    #[inline]
    pub(crate) fn core_cpi(&self, t: u32, ty: usize, profile: &Profile) -> CoreCpi {
        if profile.uarch_cpi.is_none() {
            return profile.on_core(&self.dvfs.machine.core_types[ty]);
        }
        let f = &self.flow[t as usize];
        let u = &self.uarch_costs;
        let base = u.group_base[(u.app_first_group[f.app as usize] + f.group) as usize];
        debug_assert_ne!(base, UarchCosts::NONE, "a phase with a table is in a group with costs");
        let n = self.w.apps[f.app as usize].groups[f.group as usize].phases.len() as u32;
        u.costs[(base + f.pc % n) as usize][ty]
    }

    /// The node holding thread `t`'s memory when it runs on core `c`: its home, or `c`'s own
    /// before it has one.
    fn memory_node(&self, t: u32, c: usize) -> usize {
        let home = self.rates[t as usize].home_node;
        if home == NO_HOME {
            self.dvfs.machine.cores[c].node
        } else {
            home as usize
        }
    }

    /// The latency of thread `t`'s misses on core `c` on an idle memory system: local or remote.
    fn unloaded_latency_ns(&self, t: u32, c: usize) -> f64 {
        let m = &self.dvfs.machine;
        if self.memory_node(t, c) == m.cores[c].node {
            m.memory_latency_ns
        } else {
            m.remote_memory_latency_ns
        }
    }

    /// The latency of thread `t`'s misses on core `c`: unloaded, plus its memory controller's
    /// queueing delay where the machine gives a bandwidth.
    pub(crate) fn latency_ns(&self, t: u32, c: usize) -> f64 {
        let unloaded = self.unloaded_latency_ns(t, c);
        match &self.controllers {
            None => unloaded,
            Some(k) => unloaded + k.wait_ns[self.memory_node(t, c)],
        }
    }

    /// ns per instruction on core `c` of instructions that cost `cost` there (`core_cpi`) and
    /// miss `mpki` times per thousand, each miss taking `latency_ns`: what the performance model
    /// says, slowed by a busy SMT sibling (`smt`).
    fn tpi_on(&self, c: usize, cost: CoreCpi, mpki: f64, latency_ns: f64) -> f64 {
        let m = &self.dvfs.machine;
        let alone = self.model.ns_per_instruction_on(&m.core_types[m.cores[c].core_type], cost, mpki, latency_ns);
        if self.smt.is_none() {
            return alone;
        }
        alone / self.smt_factor(c)
    }

    /// Thread `t`'s rate on core `c` with `profile`, beside the threads running in `c`'s LLC
    /// domain now (other than on `c` itself), and at its memory controller's wait now.
    pub(crate) fn rate(&self, t: u32, c: usize, profile: &Profile) -> Rate {
        let m = &self.dvfs.machine;
        let latency_ns = self.latency_ns(t, c);
        let capacity_kb = if profile.misses.is_flat() { m.llc_size_kb(c) } else { self.llc_capacity_kb(t, c, profile, self.unloaded_latency_ns(t, c)) };
        let mpki = profile.misses.mpki_at(capacity_kb);
        let cost = self.core_cpi(t, m.cores[c].core_type, profile);
        Rate { ns_per_instruction: self.tpi_on(c, cost, mpki, latency_ns), mpki, capacity_kb, latency_ns }
    }

    /// LLC accesses per ns of thread `t` with `profile` alone on core `c` (the FOA model's
    /// access frequency, taken from the solo run as Chandra et al. do).
    fn access_rate(&self, t: u32, c: usize, profile: &Profile, latency_ns: f64) -> f64 {
        let m = &self.dvfs.machine;
        let solo_mpki = profile.misses.mpki_at(m.llc_size_kb(c));
        let type_index = m.cores[c].core_type;
        let cost = self.core_cpi(t, type_index, profile);
        profile.misses.accesses_pki() / 1000.0 / self.model.ns_per_instruction_on(&m.core_types[type_index], cost, solo_mpki, latency_ns)
    }

    fn llc_capacity_kb(&self, t: u32, c: usize, profile: &Profile, latency_ns: f64) -> f64 {
        let m = &self.dvfs.machine;
        let domain = &m.llcs[m.cores[c].llc];
        let size = m.llc_size_kb(c);
        if domain.cores.len() == 1 {
            return size;
        }
        let own = self.access_rate(t, c, profile, latency_ns);
        let mut all = own;
        for other in domain.cores.iter().filter(|&o| o != c) {
            if let Some(u) = self.running[other] {
                if let Some(p) = self.computing_profile(u) {
                    all += self.access_rate(u, other, p, self.unloaded_latency_ns(u, other));
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
        let stale = self.rates[t as usize].rate_key != key || !self.cfg.rate_cache || self.llc_pending(c) || self.smt_pending(c);
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
        let more = pmu::per_instruction(self.core_cpi(t, type_index, profile), &profile.misses, &profile.events, r.mpki, r.latency_ns, ty.freq_ghz);
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
        // The same where the controllers' waits, or whether its sibling is busy, may have
        // changed while it waited.
        if self.shared_curves || self.controllers.is_some() || self.smt.is_some() {
            rate.rate_key = NO_RATE;
        }
    }

    /// Who runs in core `c`'s LLC domain, or what they do, has changed; and so the demand on the
    /// memory controllers.
    #[inline]
    pub(crate) fn llc_changed(&mut self, c: usize) {
        if self.shared_curves {
            self.mark_llc_dirty(c);
        }
        if let Some(k) = &mut self.controllers {
            k.dirty = true;
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

    /// Solve each memory controller's queue again for the threads running now (their miss
    /// rates as their LLC shares give them, `ThreadRate::llc_mpki`), and re-plan, at the new
    /// latency, the running threads of each controller whose wait changed. Called by `settle`
    /// after the LLC shares, so every running thread's miss rate is current.
    pub(crate) fn refresh_controllers(&mut self) {
        let Some(mut k) = self.controllers.take() else { return };
        k.dirty = false;
        k.now.clear();
        for c in 0..self.running.len() {
            let Some(t) = self.running[c] else { continue };
            let Some(profile) = self.computing_profile(t) else { continue };
            let mpki = self.rates[t as usize].llc_mpki;
            if mpki > 0.0 {
                let cost = self.core_cpi(t, self.dvfs.machine.cores[c].core_type, profile);
                k.now.push(Served { core: c as u32, node: self.memory_node(t, c) as u32, profile, cost, mpki, unloaded_ns: self.unloaded_latency_ns(t, c) });
            }
        }
        if k.now == k.served && k.clock_epoch == self.dvfs.epoch {
            self.controllers = Some(k);
            return;
        }
        let mut any_changed = false;
        for node in 0..k.wait_ns.len() {
            // Bytes per ns the node's threads ask for when each of their misses waits `wait_ns`.
            let demand = |wait_ns: f64| {
                let mut misses_per_ns = 0.0;
                for s in k.now.iter().filter(|s| s.node as usize == node) {
                    misses_per_ns += s.mpki / 1000.0 / self.tpi_on(s.core as usize, s.cost, s.mpki, s.unloaded_ns + wait_ns);
                }
                misses_per_ns * k.bw.line_bytes
            };
            let wait = bandwidth::solve(&k.bw, demand).1;
            k.changed[node] = wait != k.wait_ns[node];
            any_changed |= k.changed[node];
            k.wait_ns[node] = wait;
        }
        std::mem::swap(&mut k.served, &mut k.now);
        k.clock_epoch = self.dvfs.epoch;
        let changed = std::mem::take(&mut k.changed);
        self.controllers = Some(k);
        if any_changed {
            // Every running thread whose controller changed, missing or not yet (one that starts
            // to compute on it is re-rated at its plan).
            for c in 0..self.running.len() {
                let Some(t) = self.running[c] else { continue };
                if changed[self.memory_node(t, c)] && self.update_rate(c) {
                    self.mark_dirty(c as u32);
                }
            }
        }
        if let Some(k) = &mut self.controllers {
            k.changed = changed;
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
