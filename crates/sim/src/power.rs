//! Power by rail (`ampsched_model::Rail`), as a board's current sensors measure it: the
//! Odroid-XU3's INA231s give the A15 cluster, the A7 cluster and the DRAM separately (the
//! big.LITTLE paper, "Exploiting Asymmetric Multi-Core Processors with Flexible System
//! Software", §IV; its daemon samples them every 0.27 s and Eqs. 2–3 take the energy over the
//! region of interest). docs/power.md gives the formulas:
//!
//! - a core draws its level's active power while busy, its idle power otherwise (`metrics`);
//! - a core rail adds its `static_w` for the whole run while any of its cores is online (a type
//!   with no core online is gone from the machine, `Machine::with_online`: hotplugged off, its
//!   rail draws nothing);
//! - the memory rail draws its `static_w` throughout plus `pj_per_byte` for every byte the LLC
//!   misses move (a line each: `[memory] line_bytes`, `DEFAULT_LINE_BYTES` without it).
//!
//! The power trace (`PowerTrace`) is the same energy by time window: its samples integrate to
//! the run's rail energies.

use ampsched_model::machine::DEFAULT_LINE_BYTES;
use ampsched_model::Machine;

use crate::result::RunResult;

/// The most samples a power trace keeps: past it, neighbouring windows are merged in pairs and
/// the interval doubles (the trace still integrates to the energy), so a long run at a short
/// interval cannot fill memory. 65 536 windows of the paper's 0.27 s are about 4.9 simulated hours.
pub const MAX_POWER_SAMPLES: usize = 1 << 16;

/// The paper's sampling interval: "a background daemon reads the 4 power sensors every 0.27 s"
/// (the big.LITTLE paper, §IV.B).
pub const PAPER_SAMPLE_S: f64 = 0.27;

/// Whether rail `r` draws power: the memory rail always, a core rail while one of its cores is online.
pub fn powered(m: &Machine, r: usize) -> bool {
    m.rails[r].memory || m.core_types.iter().any(|t| t.rail == r && t.count > 0)
}

/// The bytes one LLC miss moves between memory and the caches.
pub fn line_bytes(m: &Machine) -> f64 {
    m.memory_bandwidth.map_or(DEFAULT_LINE_BYTES, |b| b.line_bytes)
}

/// The memory rail's energy per LLC miss, J (0 on a machine without one).
pub fn joules_per_miss(m: &Machine) -> f64 {
    m.rails.iter().filter(|r| r.memory).map(|r| r.pj_per_byte * 1e-12 * line_bytes(m)).sum()
}

/// Every rail's power that does not depend on what runs, W: its static power if powered, and
/// its cores' idle power (what a run adds above it is `busy × (active − idle)` and the misses).
pub fn baseline_w(m: &Machine) -> Vec<f64> {
    let mut w: Vec<f64> = (0..m.rails.len()).map(|r| if powered(m, r) { m.rails[r].static_w } else { 0.0 }).collect();
    for c in &m.cores {
        w[m.core_types[c.core_type].rail] += m.core_types[c.core_type].power_idle_w;
    }
    w
}

/// The energy of each rail over the run, J, from its cores' energy (`core_energy_j`, per core,
/// as `metrics` computes it), and what the rails add to the cores' sum: their static power and
/// the memory's traffic (0.0 exactly on a machine without `[[rail]]`, so its `energy_j` is the
/// cores' sum as before rails existed).
pub fn rail_energy(m: &Machine, r: &RunResult, core_energy_j: &[f64], makespan_s: f64) -> (Vec<f64>, f64) {
    let mut rails = vec![0.0; m.rails.len()];
    for (c, e) in m.cores.iter().zip(core_energy_j) {
        rails[m.core_types[c.core_type].rail] += e;
    }
    let misses: f64 = r.threads.iter().flat_map(|t| t.per_type.iter()).map(|c| c.llc_misses).sum();
    let mut added = 0.0;
    for (i, rail) in m.rails.iter().enumerate() {
        let mut e = if powered(m, i) { rail.static_w * makespan_s } else { 0.0 };
        if rail.memory {
            e += joules_per_miss(m) * misses;
        }
        rails[i] += e;
        added += e;
    }
    (rails, added)
}

/// The energy above the baseline (`baseline_w`) each rail drew in each window of `interval_ns`,
/// filled as the engine accounts each core's busy time and misses (`Engine::account`).
#[derive(Debug, Clone)]
pub struct PowerTrace {
    pub interval_ns: u64,
    /// Per window, per rail: J above the baseline.
    pub above_j: Vec<Vec<f64>>,
    rails: usize,
    /// The memory rail and its energy per LLC miss, J, if the machine has one.
    memory: Option<(usize, f64)>,
}

impl PowerTrace {
    pub fn new(m: &Machine, interval_ns: u64) -> PowerTrace {
        let memory = m.rails.iter().position(|r| r.memory).map(|r| (r, joules_per_miss(m)));
        PowerTrace { interval_ns: interval_ns.max(1), above_j: Vec::new(), rails: m.rails.len(), memory }
    }

    /// A core of `rail` busy from `start_ns` to `end_ns` at `watts` above its idle power, its
    /// thread missing `misses` times in that span (spread evenly over it): split between the
    /// windows the span covers.
    pub fn add(&mut self, rail: usize, start_ns: u64, end_ns: u64, watts: f64, misses: f64) {
        if end_ns <= start_ns {
            return;
        }
        let span = (end_ns - start_ns) as f64;
        let mut t = start_ns;
        while t < end_ns {
            let k = self.window((t / self.interval_ns) as usize);
            let until = ((k as u64 + 1) * self.interval_ns).min(end_ns);
            let dt = (until - t) as f64;
            self.above_j[k][rail] += watts * dt * 1e-9;
            if let Some((r, joules)) = self.memory {
                self.above_j[k][r] += joules * misses * dt / span;
            }
            t = until;
        }
    }

    /// The index of window `k`, made to exist; past `MAX_POWER_SAMPLES` windows, pairs merge
    /// and the interval doubles (`k`, counted in the old interval, halves with it).
    fn window(&mut self, mut k: usize) -> usize {
        while k >= MAX_POWER_SAMPLES {
            let merged: Vec<Vec<f64>> = self.above_j.chunks(2).map(|p| (0..self.rails).map(|r| p.iter().map(|w| w[r]).sum()).collect()).collect();
            self.above_j = merged;
            self.interval_ns *= 2;
            k /= 2;
        }
        if k >= self.above_j.len() {
            self.above_j.resize(k + 1, vec![0.0; self.rails]);
        }
        k
    }

    /// The samples: per window ending at `times_s[k]`, each rail's mean power over it, W. The last
    /// window ends with the run (`makespan_ns`), so it may be shorter than the interval.
    pub fn samples(&self, m: &Machine, makespan_ns: u64) -> (Vec<f64>, Vec<Vec<f64>>) {
        let base = baseline_w(m);
        let n = makespan_ns.div_ceil(self.interval_ns) as usize;
        let (mut times, mut power) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for k in 0..n {
            let end = ((k as u64 + 1) * self.interval_ns).min(makespan_ns);
            let len_s = (end - k as u64 * self.interval_ns) as f64 / 1e9;
            let above = self.above_j.get(k);
            times.push(end as f64 / 1e9);
            power.push((0..self.rails).map(|r| base[r] + above.map_or(0.0, |a| a[r]) / len_s).collect());
        }
        (times, power)
    }
}
