//! Ctrl-C during a simulation. Python runs its signal handlers (the one that raises
//! KeyboardInterrupt) only when its main thread checks for them, and a run keeps that thread in
//! Rust for as long as it lasts. `Stop` gives the engine a hook (`ampsched_runner::Interrupt`,
//! asked every few thousand events) that makes that check; the exception a handler raises stops
//! every run sharing the hook and is what the Python call raises.

use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use ampsched_runner::{Interrupt, Progress};
use pyo3::prelude::*;

/// The least time between two checks for signals. A check takes the GIL, which a busy Python
/// thread (a notebook's, say) may hold for up to its switch interval (5 ms): checking at most
/// every 50 ms bounds what that can cost a run to a few percent, and a user's Ctrl-C still
/// takes effect within a fraction of a second.
const SIGNAL_CHECK_INTERVAL: Duration = Duration::from_millis(50);

struct State {
    /// What a signal handler raised: the runs stop, and the call raises it.
    raised: Option<PyErr>,
    last_check: Instant,
}

pub struct Stop {
    state: Arc<Mutex<State>>,
    interrupt: Interrupt,
}

impl Stop {
    /// A hook for the runs of one call from Python, made on the thread that called. `ticker`,
    /// if given, is called with (simulated s, events, event budget) at each check (every
    /// `SIGNAL_CHECK_INTERVAL` at most): what a front shows as a long run's progress. What it
    /// raises stops the runs, as a signal handler's exception does.
    pub fn new(ticker: Option<PyObject>) -> Self {
        let state = Arc::new(Mutex::new(State { raised: None, last_check: Instant::now() }));
        // Python runs handlers only on its main thread, so only the calling thread can see a
        // signal (and only if it is the main one); runs on other threads stop when it does. So
        // the calling thread must itself be in a run: one that only waited for others would
        // never check.
        let caller: ThreadId = thread::current().id();
        let shared = state.clone();
        let interrupt = Interrupt::with_progress(move |at: &Progress| {
            {
                let mut s = shared.lock().unwrap();
                if s.raised.is_some() {
                    return true;
                }
                if thread::current().id() != caller || s.last_check.elapsed() < SIGNAL_CHECK_INTERVAL {
                    return false;
                }
                s.last_check = Instant::now();
            } // not holding the lock while waiting for the GIL
            let checked = Python::with_gil(|py| {
                py.check_signals()?;
                match &ticker {
                    Some(tick) => tick.call1(py, (at.sim_s, at.events, at.max_events)).map(|_| ()),
                    None => Ok(()),
                }
            });
            match checked {
                Ok(()) => false,
                Err(e) => {
                    shared.lock().unwrap().raised = Some(e);
                    true
                }
            }
        });
        Stop { state, interrupt }
    }

    /// The hook, for `Settings::interrupt`.
    pub fn interrupt(&self) -> Option<Interrupt> {
        Some(self.interrupt.clone())
    }

    /// The exception that stopped the runs, if one did: the call raises it rather than the
    /// runner's error ("interrupted").
    pub fn raised(&self) -> Option<PyErr> {
        self.state.lock().unwrap().raised.take()
    }
}
