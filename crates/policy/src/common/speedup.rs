//! Predicting a thread's big-core speedup from what one quantum measured: the input WASH's
//! ExecRank and its preference for sensitive threads read (WASH, "Portable Performance on
//! Asymmetric Multicore Processors", §5 "Speedup model"; §6 "adjusted priority").
//!
//! A thread's *speedup* is its instruction rate on the fastest core type over its rate on the
//! slowest (WASH's "relative instruction-retirement performance on big versus small cores"; the
//! Sáez thesis calls the same ratio the speedup factor, SF, in `sf.rs`).
//!
//! Two kinds of predictor implement `SpeedupPredictor`:
//! - `CoreTypeRatio`: no counters; every thread is predicted the cores' peak-rate ratio. What
//!   WASH falls back on where no per-thread counters can be read (the live agent on a machine
//!   without a PMU), and what a report says it used;
//! - the counter-trained linear models of WASH §5 (`speedup_model.rs`), trained offline
//!   leave-one-out over the programs.

use ampsched_model::{Machine, PerType};

use super::sf::highest_sf;

/// Predicts a thread's speedup from its counters over one quantum (`SystemView::interval_of`:
/// per core type, what it did there).
pub trait SpeedupPredictor: Send {
    /// How reports name it ("core-type", "default", ...).
    fn name(&self) -> &str;
    /// The predicted speedup (≥ 1 for a sensible model; a deliberately bad model may say less),
    /// or `None` when the interval gives nothing to predict from (no instructions counted):
    /// the caller then keeps its previous prediction.
    fn predict(&self, m: &Machine, interval: &PerType) -> Option<f64>;
}

/// Every thread speeds up by the ratio of the fastest to the slowest core type's peak rates
/// (clock over `cpi_scale`): 3.5 on WASH's 2.8/0.8 GHz Phenom II. Knows nothing of a thread, so
/// it ranks threads by progress alone.
#[derive(Debug, Clone, Copy, Default)]
pub struct CoreTypeRatio;

impl SpeedupPredictor for CoreTypeRatio {
    fn name(&self) -> &str {
        "core-type"
    }
    fn predict(&self, m: &Machine, _interval: &PerType) -> Option<f64> {
        Some(highest_sf(m))
    }
}
