//! `hass-d`: HASS-D, the heterogeneity-aware signature-supported scheduler with dynamic
//! signatures (Sáez thesis, §4.2.2 and Algorithm 4.2).
//!
//! Each thread's SF is estimated online from its hardware counters (`common::sf::DynamicSf`:
//! sampled every 200 ms, samples after a start or migration discarded, a phase change above
//! 12% restarting the running average, the SF updated once a phase has lasted 2 more periods;
//! a new thread starts at the lowest SF, 1.0). The invariant: every thread in the fast
//! partition has an SF at least that of every runnable thread in the slow one, with the load
//! balanced (§2.3). Algorithm 4.2:
//! - a new thread goes to the partition of lowest scaled load, ties to the faster (fast
//!   partitions are filled first);
//! - when a thread's SF changes (a new stable estimate): if it is on a fast core and a slow
//!   thread has a higher SF, the two swap; if it is on a slow core and its SF beats the lowest
//!   SF on a fast core, the two swap (`Partitions::exchange`: the runnable threads of each
//!   partition are kept ordered by SF, so the partner is a lookup);
//! - when a thread blocks, wakes or exits, one one-way move restores the rules where needed
//!   (`keep_fast_busy`: an idle fast core takes the slow thread of highest SF; an overloaded
//!   fast partition beside an idle slow core gives up its thread of lowest SF).
//!
//! On a machine of more than two capacities each partition swaps with the next faster and
//! slower one.

use ampsched_model::{Diagnostics, Machine, Placement, Policy, PolicyFailure, Signals, SystemView, ThreadId, Trigger, Triggers};

use crate::common::sf::{DynamicOptions, DynamicSf, Sf, DYNAMIC_OPTIONS};
use crate::common::Partitions;
use crate::options::Options;
use crate::{Build, PolicyInfo};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "hass-d",
    description: "HASS-D: threads of higher speedup factor, estimated online from counters, on the fast cores",
    source: "Sáez thesis, §4.2.2, Algorithm 4.2 (HASS-D)",
    options: &DYNAMIC_OPTIONS,
    needs: Signals::COUNTERS,
    optional: Signals::NONE,
    build: Build::Policy(|o, m| Box::new(HassD::new(o, m))),
};

pub struct HassD {
    parts: Partitions<Sf>,
    estimator: DynamicSf,
    /// Threads whose SF changed at this quantum, reused between calls.
    new_sf: Vec<ThreadId>,
}

impl HassD {
    pub fn new(o: &Options, m: &Machine) -> Self {
        HassD { parts: Partitions::new(m), estimator: DynamicSf::new(DynamicOptions::from(o)), new_sf: Vec::new() }
    }
}

impl Policy for HassD {
    /// The sampling period: the estimator reads each thread's counters over one quantum.
    fn quantum_ns(&self) -> Option<u64> {
        Some(self.estimator.period_ns())
    }
    fn triggers(&self) -> Triggers {
        Triggers::ALL
    }
    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        if self.parts.begin(view).is_none() {
            return Ok(());
        }
        match view.trigger {
            Trigger::Start(t) => self.parts.place_new(view, t, out),
            Trigger::Quantum => {
                self.new_sf.clear();
                for &t in view.ran {
                    if self.estimator.sample(view, t) {
                        self.parts.set_claim(t, Sf(self.estimator.sf(t)));
                        self.new_sf.push(t);
                    }
                }
                for &t in &self.new_sf {
                    self.parts.exchange(view, t, out);
                }
            }
            Trigger::Exit(_) | Trigger::Block(_) | Trigger::Wake(_) => {}
        }
        let estimator = &self.estimator;
        self.parts.keep_fast_busy(view, out, |v| Sf(estimator.sf(v.id)));
        Ok(())
    }
    fn diagnostics(&self) -> Option<&dyn Diagnostics> {
        Some(self)
    }
}

impl Diagnostics for HassD {
    fn sf_estimate(&self, t: ThreadId) -> Option<f64> {
        Some(self.estimator.sf(t))
    }
}
