//! The true speedup factor of a running thread's current phase, and the error of a policy's
//! estimate of it (the run's `sf_error`).
//!
//! The truth is the engine's own rate model read for both ends of the machine: the phase's
//! time per instruction on the slowest core type over that on the fastest (`perf::true_sf_types`),
//! each with the phase's CPI and miss overlap on that type (`Profile::on_core`), at
//! the miss rate it has now (its LLC capacity beside its co-runners now, its curve read there)
//! and the memory latency it has now (local or remote node), the same on both types. So it is
//! what moving the thread, as it is now, from the fastest to the slowest core type would cost
//! it per instruction; a migration's refill, a one-off, is not part of it. Only a thread
//! computing on a core has a rate; waiting, spinning or queued threads are not sampled.
//!
//! Sampled after every quantum call of a policy that gives estimates (`Diagnostics::sf_estimate`),
//! for each thread running then: per thread the mean absolute error over its samples, and
//! over the run the mean over all samples (so a thread weighs by how often it was running).

use ampsched_model::perf::true_sf_types;

use crate::engine::Engine;
use crate::local::LocalScheduler;

impl<'a, S: LocalScheduler> Engine<'a, S> {
    /// The true SF of the thread running on core `c` in its current phase, if it computes.
    pub(crate) fn true_sf(&self, c: usize) -> Option<f64> {
        let t = self.running[c]?;
        let profile = self.computing_profile(t)?;
        let r = self.rate(t, c, profile);
        // The truly fastest and slowest types (peak rates), not the OS's reported capacities.
        let (fast, slow) = true_sf_types(self.m);
        let ns = |ty: usize| self.model.ns_per_instruction_on(&self.m.core_types[ty], self.core_cpi(t, ty, profile), r.mpki, r.latency_ns);
        Some(ns(slow) / ns(fast))
    }

    /// Add one sample of |estimate − truth| for each running thread the policy estimates.
    pub(crate) fn sample_sf_error(&mut self) {
        let Some(diagnostics) = self.policy.diagnostics() else { return };
        for c in 0..self.cores.len() {
            let Some(t) = self.running[c] else { continue };
            let Some(estimate) = diagnostics.sf_estimate(t) else { continue };
            let Some(truth) = self.true_sf(c) else { continue };
            let i = t as usize;
            if i >= self.sf_error.len() {
                self.sf_error.resize(i + 1, (0.0, 0));
            }
            self.sf_error[i].0 += (estimate - truth).abs();
            self.sf_error[i].1 += 1;
        }
    }
}
