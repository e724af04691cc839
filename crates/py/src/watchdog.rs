//! Bounding a Python policy's calls. A watchdog thread interrupts a `decide` that runs past its
//! limit, or that is running when the front must stop (the live agent's stop signals), so that
//! neither a stuck policy (`while True: pass`, `time.sleep(1e6)`) nor the signals meant to stop
//! the front wait on it. Every front that runs a Python policy (run, compare, sweeps, the agent)
//! uses it; only the limit differs (`SIMULATOR_DECIDE_LIMIT_MS`, the agent's `--decide-limit`).
//!
//! How a call is interrupted, by a thread that must never wait for the call's own:
//! - Python code that runs (a busy loop): `PyThreadState_SetAsyncExc` raises `DecideInterrupted`
//!   in the call's thread at its next bytecode. That needs the GIL, which the stuck call may hold
//!   (a C function that keeps it), so a helper thread waits for it, never the watchdog.
//! - A blocking system call (`time.sleep`, a read): `WAKE_SIGNAL`, sent to the call's thread, makes
//!   it fail with EINTR, after which Python runs its signal handlers: ours, installed for the run,
//!   raises `DecideInterrupted`. Python runs handlers on its main thread only, so this works where
//!   the front was called from the main thread (the CLI always is, and so are the sweep's worker
//!   processes); on another thread a blocking call resumes after EINTR, and only its end, or the
//!   front's last resort (`give_up`), ends it.
//!
//! The exception derives from BaseException, so that a policy's `except Exception` does not
//! swallow it, and the interruption is repeated at every check until the call returns. A call
//! still running `GIVE_UP` after the first interruption (it catches BaseException, or blocks off
//! the main thread) is handed to the front's `give_up`: the agent then exits and leaves the
//! restore to its guardian; the simulator's fronts, with nothing to restore, keep interrupting.
//!
//! The per-call cost is a few atomic stores: the watchdog wakes on its own every `check` and
//! looks at the call in progress, so a call never makes a system call to arm it.

use std::os::raw::c_long;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::PyBaseException;
use pyo3::prelude::*;
use pyo3::types::{PyCFunction, PyDict, PyTuple};

create_exception!(
    _core,
    DecideInterrupted,
    PyBaseException,
    "Raised inside a Python policy's decide that ran past its time limit, or while its front stopped."
);

/// A Python policy's per-call limit in the simulator's fronts (run, compare, sweeps), ms. A call
/// costs tens of microseconds (docs/policy-interface.md, "Cost per call") and a run makes
/// thousands, so a call of 10 s is stuck, or does work no run could afford thousands of times;
/// the limit is there so that a sweep with nobody at the keyboard records the failure instead
/// of hanging a worker. It bounds wall time, not a result: a run either fails with the error or
/// gives the same result as without the limit.
pub const SIMULATOR_DECIDE_LIMIT_MS: f64 = 10_000.0;

/// How long after its first interruption a call may go on before the front's `give_up` is
/// called: Python reacts to an interruption within its switch interval (5 ms) or at once, so a
/// call still running after 2 s catches what is raised, or blocks where nothing reaches it.
pub const GIVE_UP: Duration = Duration::from_secs(2);

/// How long `Watchdog::finish` waits for a helper to end: once the GIL is free it ends in
/// microseconds, so this is only a bound for a GIL that some other thread keeps.
const HELPER_WAIT: Duration = Duration::from_secs(2);

/// The longest wait between two of the watchdog's looks at the call in progress: it bounds how
/// late a stop signal reaches a stuck call (a user's Ctrl-C takes effect within a tenth of a
/// second) and how far past its limit a call runs. Shorter limits are checked every tenth of the
/// limit, down to `MIN_CHECK`.
const MAX_CHECK: Duration = Duration::from_millis(50);
const MIN_CHECK: Duration = Duration::from_millis(1);

/// The signal that wakes a blocked call on the main thread. SIGURG: its default action is to
/// ignore it (a stray one, before or after the run, does nothing), no stop signal of the agent is
/// it, and programs rarely use it (Go's runtime takes it to preempt goroutines for the same reasons).
const WAKE_SIGNAL: libc::c_int = libc::SIGURG;

/// Why the watchdog interrupted a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupted {
    /// It ran past the limit.
    Limit,
    /// The front is stopping (a stop signal reached the agent).
    Stop,
}

const FIRED_LIMIT: u8 = 1;
const FIRED_STOP: u8 = 2;

/// The call in progress, shared by the policies of one front call and the watchdog.
pub struct Calls {
    limit: Duration,
    /// The option that sets the limit, for the error (None: a fixed limit).
    limit_option: Option<&'static str>,
    epoch: Instant,
    next: AtomicU64,
    /// The call in progress (0: none), by sequence number.
    current: AtomicU64,
    began_ns: AtomicU64,
    /// The thread making it (pthread_t, which is also Python's thread id on Linux).
    thread: AtomicU64,
    /// The call the watchdog is interrupting, and why (the why is written first).
    fired: AtomicU64,
    why: AtomicU8,
    /// The thread whose blocking calls `WAKE_SIGNAL` ends (Python's main thread) when our
    /// handler is in place (0: it is not).
    wakes: AtomicU64,
    /// A helper thread waits for the GIL to raise in the call.
    helper_busy: AtomicBool,
}

impl Calls {
    /// The limit a call has, as the error says it: "1000 ms (--decide-limit)".
    pub fn limit_text(&self) -> String {
        let ms = self.limit.as_secs_f64() * 1e3;
        match self.limit_option {
            Some(option) => format!("{ms} ms ({option})"),
            None => format!("{ms} ms"),
        }
    }

    fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// A call begins, on the calling thread.
    pub fn begin(&self) -> u64 {
        let seq = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        // SAFETY: pthread_self has no preconditions.
        self.thread.store(unsafe { libc::pthread_self() } as u64, Ordering::Relaxed);
        self.began_ns.store(self.now_ns(), Ordering::Relaxed);
        self.current.store(seq, Ordering::SeqCst);
        seq
    }

    /// Call `seq` has returned (with the GIL held, so that no helper raises in the thread after
    /// this): whether the watchdog interrupted it, and why. An exception it had raised but Python
    /// had not yet delivered is withdrawn.
    pub fn end(&self, _py: Python<'_>, seq: u64) -> Option<Interrupted> {
        self.current.store(0, Ordering::SeqCst);
        if self.fired.load(Ordering::SeqCst) != seq {
            return None;
        }
        // SAFETY: with the GIL; a null exception clears the thread's pending one.
        unsafe { pyo3::ffi::PyThreadState_SetAsyncExc(self.thread.load(Ordering::Relaxed) as c_long, std::ptr::null_mut()) };
        Some(if self.why.load(Ordering::SeqCst) == FIRED_STOP { Interrupted::Stop } else { Interrupted::Limit })
    }

    /// True while call `seq` is the one in progress and the watchdog is interrupting it.
    fn interrupting(&self) -> bool {
        let current = self.current.load(Ordering::SeqCst);
        current != 0 && self.fired.load(Ordering::SeqCst) == current
    }
}

/// Whether the front must stop now (the agent: a stop signal came).
pub type StopFn = Box<dyn Fn() -> bool + Send>;
/// The front's last resort for a call that does not return (`GIVE_UP`): called once, with why
/// the call was interrupted and its number among this front call's calls.
pub type GiveUpFn = Box<dyn Fn(Interrupted) + Send>;

/// The watchdog of one front call; `finish` it with the GIL before returning to Python.
pub struct Watchdog {
    calls: Arc<Calls>,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// Python's handler of `WAKE_SIGNAL` before ours, to put back.
    old_handler: Option<PyObject>,
}

impl Watchdog {
    /// Watch the calls made on this thread: each may last `limit` (which `limit_option` sets, if an option does).
    pub fn start(py: Python<'_>, limit: Duration, limit_option: Option<&'static str>, stop: Option<StopFn>, give_up: Option<GiveUpFn>) -> Watchdog {
        let calls = Arc::new(Calls {
            limit,
            limit_option,
            epoch: Instant::now(),
            next: AtomicU64::new(0),
            current: AtomicU64::new(0),
            began_ns: AtomicU64::new(0),
            thread: AtomicU64::new(0),
            fired: AtomicU64::new(0),
            why: AtomicU8::new(0),
            wakes: AtomicU64::new(0),
            helper_busy: AtomicBool::new(false),
        });
        let old_handler = install_handler(py, calls.clone());
        if old_handler.is_some() {
            // SAFETY: pthread_self has no preconditions.
            calls.wakes.store(unsafe { libc::pthread_self() } as u64, Ordering::SeqCst);
        }
        let done = Arc::new(AtomicBool::new(false));
        let thread = {
            let (calls, done) = (calls.clone(), done.clone());
            thread::Builder::new().name("ampsched-watchdog".into()).spawn(move || watch(&calls, &done, stop, give_up)).ok()
        };
        Watchdog { calls, done, thread, old_handler }
    }

    /// The shared state the policies record their calls in.
    pub fn calls(&self) -> Arc<Calls> {
        self.calls.clone()
    }

    /// Stop the watchdog, wait for its helper, and put Python's handler back.
    pub fn finish(mut self, py: Python<'_>) {
        self.stop_thread();
        // A helper still waiting for the GIL to interrupt a call must be gone before Python goes
        // on: at exit, CPython ends a thread that waits for the GIL with pthread_exit, whose
        // forced unwind through the helper's Rust frames aborts the process ("FATAL: exception
        // not rethrown", seen in the fuzz test after a stuck call's one-line error). With the
        // call over, a helper that gets the GIL finds nothing to interrupt and ends at once.
        let calls = self.calls.clone();
        py.allow_threads(|| {
            let deadline = Instant::now() + HELPER_WAIT;
            while calls.helper_busy.load(Ordering::SeqCst) && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(1));
            }
        });
        if let Some(old) = self.old_handler.take() {
            if let Ok(signal) = py.import_bound("signal") {
                let _ = signal.call_method1("signal", (WAKE_SIGNAL, old));
            }
        }
    }

    fn stop_thread(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

/// Install our Python handler of `WAKE_SIGNAL`, which raises `DecideInterrupted` in a call being
/// interrupted (and does nothing otherwise: a stray signal between calls is harmless). Python
/// allows it on its main thread only; elsewhere, or when the signal's handler is not Python's
/// (`getsignal` gives None), nothing is installed. Returns the handler to put back.
fn install_handler(py: Python<'_>, calls: Arc<Calls>) -> Option<PyObject> {
    let signal = py.import_bound("signal").ok()?;
    let old = signal.call_method1("getsignal", (WAKE_SIGNAL,)).ok()?;
    if old.is_none() {
        return None;
    }
    let handler = PyCFunction::new_closure_bound(py, None, None, move |_: &Bound<'_, PyTuple>, _: Option<&Bound<'_, PyDict>>| -> PyResult<()> {
        if calls.interrupting() {
            return Err(DecideInterrupted::new_err("interrupted by the ampsched watchdog"));
        }
        Ok(())
    })
    .ok()?;
    signal.call_method1("signal", (WAKE_SIGNAL, handler)).ok()?;
    Some(old.unbind())
}

fn watch(calls: &Arc<Calls>, done: &AtomicBool, stop: Option<StopFn>, give_up: Option<GiveUpFn>) {
    let check = (calls.limit / 10).clamp(MIN_CHECK, MAX_CHECK);
    // The call being interrupted and when that began; whether it was given up.
    let mut firing: Option<(u64, Instant)> = None;
    let mut gave_up = false;
    while !done.load(Ordering::SeqCst) {
        thread::park_timeout(check);
        let seq = calls.current.load(Ordering::SeqCst);
        if seq == 0 || done.load(Ordering::SeqCst) {
            continue;
        }
        let ran = Duration::from_nanos(calls.now_ns().saturating_sub(calls.began_ns.load(Ordering::Relaxed)));
        let known = firing.is_some_and(|(s, _)| s == seq);
        let why = if known {
            calls.why.load(Ordering::SeqCst)
        } else if ran >= calls.limit {
            FIRED_LIMIT
        } else if stop.as_ref().is_some_and(|s| s()) {
            FIRED_STOP
        } else {
            continue;
        };
        if !known {
            firing = Some((seq, Instant::now()));
            calls.why.store(why, Ordering::SeqCst);
            calls.fired.store(seq, Ordering::SeqCst);
        }
        interrupt(calls, seq);
        if let (Some((_, since)), Some(g), false) = (firing, give_up.as_ref(), gave_up) {
            if since.elapsed() >= GIVE_UP && calls.current.load(Ordering::SeqCst) == seq {
                gave_up = true;
                g(if why == FIRED_STOP { Interrupted::Stop } else { Interrupted::Limit });
            }
        }
    }
}

/// Raise `DecideInterrupted` in call `seq`: by the wake-up signal on the main thread, and by an
/// asynchronous exception, which a helper thread sets once it has the GIL (if the call is still
/// in progress then: a call that has returned must not get it).
fn interrupt(calls: &Arc<Calls>, seq: u64) {
    let thread = calls.thread.load(Ordering::Relaxed);
    if thread != 0 && calls.wakes.load(Ordering::SeqCst) == thread {
        // SAFETY: the thread is Python's main thread, which outlives the front call.
        unsafe { libc::pthread_kill(thread as libc::pthread_t, WAKE_SIGNAL) };
    }
    if calls.helper_busy.swap(true, Ordering::SeqCst) {
        return; // the previous helper still waits for the GIL
    }
    let helper = calls.clone();
    let spawned = thread::Builder::new().name("ampsched-interrupt".into()).spawn(move || {
        Python::with_gil(|py| {
            if helper.current.load(Ordering::SeqCst) == seq {
                let exc = py.get_type_bound::<DecideInterrupted>();
                // SAFETY: with the GIL; the exception type outlives the call (it is the module's).
                unsafe { pyo3::ffi::PyThreadState_SetAsyncExc(thread as c_long, exc.as_ptr()) };
            }
        });
        helper.helper_busy.store(false, Ordering::SeqCst);
    });
    if spawned.is_err() {
        calls.helper_busy.store(false, Ordering::SeqCst); // no thread now: try again at the next check
    }
}
