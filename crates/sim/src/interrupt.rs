//! Stopping a run from outside (Ctrl-C): the caller's `Interrupt` hook, which the event loop asks
//! now and then. Kept out of `engine` so that the loop carries one line for it.

use std::fmt;
use std::sync::Arc;

use crate::engine::{Engine, SimError};
use crate::local::LocalScheduler;

/// The engine asks its hook once every this many events (a power of two, so the test is a mask).
/// A run handles 5–14M events/s (`make bench`: 16 384 threads, 1 024 cores, the reference), so
/// that is every 1.2–3.5 ms, far within the fraction of a second a user waits for Ctrl-C; and a
/// hook that costs a microsecond (taking Python's GIL) costs under 0.1% of that.
pub const CHECK_EVERY_EVENTS: u64 = 1 << 14;

/// Where a run is when its hook is asked: what a front shows as progress (a long run says it
/// is running, and how fast it draws on its budget).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Simulated time so far, s.
    pub sim_s: f64,
    /// Events of the command so far: this run's and its earlier simulations' (`events_before`).
    pub events: u64,
    /// The command's event budget (`SimConfig::max_events`).
    pub max_events: u64,
}

/// A hook that says whether the caller wants the run stopped; once it says so, the run ends with
/// `SimError::Interrupted`. It may be shared by runs on several threads, and is called on the
/// thread that runs the engine, with the run's progress.
#[derive(Clone)]
pub struct Interrupt(Arc<dyn Fn(&Progress) -> bool + Send + Sync>);

impl Interrupt {
    pub fn new(asked: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        Interrupt(Arc::new(move |_: &Progress| asked()))
    }

    /// A hook that is also shown the run's progress.
    pub fn with_progress(asked: impl Fn(&Progress) -> bool + Send + Sync + 'static) -> Self {
        Interrupt(Arc::new(asked))
    }

    /// Whether the caller wants the run stopped, told where the run is.
    pub fn asked(&self, progress: &Progress) -> bool {
        (self.0)(progress)
    }
}

impl fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Interrupt(..)") // a closure has nothing to show
    }
}

impl<S: LocalScheduler> Engine<'_, S> {
    /// `Err(SimError::Interrupted)` if the hook, asked every `CHECK_EVERY_EVENTS` events, says stop.
    #[inline]
    pub(crate) fn check_interrupt(&self) -> Result<(), SimError> {
        if !self.stats.events.is_multiple_of(CHECK_EVERY_EVENTS) {
            return Ok(());
        }
        if let Some(hook) = &self.cfg.interrupt {
            let progress = Progress { sim_s: self.now as f64 / 1e9, events: self.cfg.events_before + self.stats.events, max_events: self.cfg.max_events };
            if hook.asked(&progress) {
                return Err(SimError::Interrupted);
            }
        }
        Ok(())
    }
}
