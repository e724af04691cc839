//! `PyPolicy`: a policy written in Python (a subclass of `ampsched.Policy`), run by the
//! simulator and the live agent like a Rust one.
//!
//! The run releases the GIL; each `decide` takes it back, hands Python a `View` (closed when
//! the call returns) and turns the `ampsched.Placement` it returns into the engine's. The
//! first exception (any BaseException: a SystemExit is the policy's failure too; only a
//! KeyboardInterrupt is raised again as itself, `chain`), a placement the machine cannot take,
//! or a call past its time limit (`watchdog.rs`) makes the policy fail (`decide`'s error): it
//! decides nothing more, and the run ends with that error.

use std::sync::Arc;

use ampsched_model::{defaults, limits, CoreSet, Placement, Policy, PolicyFailure, Signals, SystemView, Triggers};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};

use crate::view::{machine_dict, View};
use crate::watchdog::{Calls, Interrupted};

/// The per-thread triggers a Python policy may list, in `Triggers`' order.
pub const TRIGGER_NAMES: [&str; 4] = ["start", "exit", "block", "wake"];

pub struct PyPolicy {
    /// The policy's bound `decide`, looked up once.
    decide: Py<PyAny>,
    placement_type: Py<PyType>,
    quantum_ns: Option<u64>,
    triggers: Triggers,
    pub needs: Signals,
    /// The machine as the view shows it, built at the first call (it is the run's).
    machine: Option<Py<PyDict>>,
    failure: Option<PolicyFailure>,
    /// The exception `decide` raised, kept so that Python can chain it (or re-raise a
    /// KeyboardInterrupt as such).
    pub raised: Option<PyErr>,
    /// Where its calls are recorded for the watchdog that bounds them.
    calls: Option<Arc<Calls>>,
    /// A call was interrupted because the front stops: no more calls, and no failure.
    stopped: bool,
}

/// Why a call failed.
enum Failed {
    Raised(PyErr),
    Placement(String),
    Interrupted(Interrupted),
}

impl From<PyErr> for Failed {
    fn from(e: PyErr) -> Self {
        Failed::Raised(e)
    }
}

impl PyPolicy {
    /// Check `object` (an `ampsched.Policy`) and read its quantum, triggers and needs. The
    /// error says what is wrong in a policy author's words (the caller names the policy).
    pub fn new(object: &Bound<'_, PyAny>) -> Result<PyPolicy, String> {
        let py = object.py();
        let module = py.import_bound("ampsched.policy").map_err(|e| format!("cannot import ampsched.policy: {e}"))?;
        let base = module.getattr("Policy").and_then(|b| Ok(b.downcast_into::<PyType>()?)).map_err(|e| e.to_string())?;
        let placement_type = module.getattr("Placement").and_then(|b| Ok(b.downcast_into::<PyType>()?)).map_err(|e| e.to_string())?;
        if !object.is_instance(&base).map_err(|e| e.to_string())? {
            let type_name = object.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            return Err(format!("a {type_name} is not an ampsched.Policy (subclass ampsched.Policy)"));
        }
        let attr = |name: &str| object.getattr(name).map_err(|e| format!("{name}: {e}"));
        let quantum = attr("quantum_ms")?;
        let quantum_ns = if quantum.is_none() {
            None
        } else {
            // The range of the Rust policies' quantum_ms options.
            match quantum.extract::<f64>() {
                Ok(ms) if limits::QUANTUM_MS.contains(ms) => Some(defaults::ms_to_ns(ms)),
                _ => {
                    let range = limits::QUANTUM_MS.describe();
                    return Err(format!("quantum_ms must be a number {range}, or None; got {}", repr(&quantum)));
                }
            }
        };
        let triggers = names(&attr("triggers")?, "triggers", |name| {
            TRIGGER_NAMES
                .iter()
                .position(|t| *t == name)
                .map(|i| i as u8)
                .ok_or_else(|| format!("unknown trigger '{name}' (known: {}; the quantum is set by quantum_ms)", TRIGGER_NAMES.join(", ")))
        })?;
        let triggers = Triggers { start: triggers.contains(&0), exit: triggers.contains(&1), block: triggers.contains(&2), wake: triggers.contains(&3) };
        let needs = names(&attr("needs")?, "needs", Signals::named)?.into_iter().fold(Signals::NONE, Signals::union);
        if quantum_ns.is_none() && triggers == Triggers::NONE {
            return Err("it has neither a quantum_ms nor triggers, so it would never be called".into());
        }
        let decide = attr("decide")?;
        if !decide.is_callable() {
            return Err("decide is not a method".into());
        }
        Ok(PyPolicy {
            decide: decide.unbind(),
            placement_type: placement_type.unbind(),
            quantum_ns,
            triggers,
            needs,
            machine: None,
            failure: None,
            raised: None,
            calls: None,
            stopped: false,
        })
    }

    /// Bound its calls by the watchdog that `calls` belongs to.
    pub fn watched_by(&mut self, calls: Arc<Calls>) {
        self.calls = Some(calls);
    }

    fn call(&mut self, py: Python<'_>, view: &SystemView, out: &mut Placement) -> Result<(), Failed> {
        let machine = match &self.machine {
            Some(m) => m.clone_ref(py),
            None => self.machine.insert(machine_dict(py, view.machine)?).clone_ref(py),
        };
        // SAFETY: closed below, before this call returns and `view` goes away.
        let handle = Bound::new(py, unsafe { View::open(view, machine) })?;
        let seq = self.calls.as_ref().map(|c| c.begin());
        let returned = self.decide.call1(py, (handle.clone(),));
        let interrupted = self.calls.as_ref().zip(seq).and_then(|(c, seq)| c.end(py, seq));
        handle.get().close();
        if let Some(why) = interrupted {
            // Whatever it returned or raised after the interruption.
            return Err(Failed::Interrupted(why));
        }
        let returned = returned?.into_bound(py);
        if returned.is_none() {
            return Ok(());
        }
        if !returned.is_instance(self.placement_type.bind(py))? {
            let type_name = returned.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            return Err(Failed::Placement(format!("returned a {type_name}, not an ampsched.Placement or None")));
        }
        read_placement(&returned, view, out)?;
        out.validate(view.machine, view.threads.len()).map_err(|e| Failed::Placement(format!("returned a placement that {e}")))
    }
}

/// A tuple (or list) of names, each checked by `parse`.
fn names<T>(value: &Bound<'_, PyAny>, attr: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    let wrong = || format!("{attr} must be a tuple of names, got {}", repr(value));
    if value.is_instance_of::<PyString>() {
        return Err(wrong());
    }
    let mut out = Vec::new();
    for item in value.iter().map_err(|_| wrong())? {
        let item = item.map_err(|_| wrong())?;
        let name: String = item.extract().map_err(|_| wrong())?;
        out.push(parse(&name).map_err(|e| format!("{attr}: {e}"))?);
    }
    Ok(out)
}

fn repr(value: &Bound<'_, PyAny>) -> String {
    value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into())
}

/// The Python `Placement`'s lists into the engine's, each value checked.
fn read_placement(p: &Bound<'_, PyAny>, view: &SystemView, out: &mut Placement) -> Result<(), Failed> {
    let py = p.py();
    let cores = view.machine.num_cores();
    let bad = |what: &str, item: &Bound<'_, PyAny>| Failed::Placement(format!("returned a placement whose {what} entry {} is not valid", repr(item)));
    for item in p.getattr(intern!(py, "affinity"))?.iter()? {
        let item = item?;
        let (t, set): (u32, Bound<'_, PyAny>) = item.extract().map_err(|_| bad("affinity", &item))?;
        let mut ids = CoreSet::EMPTY;
        for c in set.iter().map_err(|_| bad("affinity", &item))? {
            let c: usize = c.and_then(|c| c.extract()).map_err(|_| bad("affinity", &item))?;
            if c >= cores {
                return Err(Failed::Placement(format!(
                    "returned a placement that gave thread {t} core {c}, which the machine lacks (it has cores 0 to {})",
                    cores - 1
                )));
            }
            ids.insert(c);
        }
        out.set(t, ids);
    }
    for item in p.getattr(intern!(py, "fast_share"))?.iter()? {
        let item = item?;
        let (t, share) = item.extract().map_err(|_| bad("fast_share", &item))?;
        out.set_fast_share(t, share);
    }
    for item in p.getattr(intern!(py, "slice_ns"))?.iter()? {
        let item = item?;
        let (t, slice) = item.extract().map_err(|_| bad("slice_ns", &item))?;
        out.set_slice(t, slice);
    }
    for item in p.getattr(intern!(py, "weight"))?.iter()? {
        let item = item?;
        let (t, weight) = item.extract().map_err(|_| bad("weight", &item))?;
        out.set_weight(t, weight);
    }
    for item in p.getattr(intern!(py, "frequency"))?.iter()? {
        let item = item?;
        let (core_type, ghz) = item.extract().map_err(|_| bad("frequency", &item))?;
        out.set_frequency(core_type, ghz);
    }
    Ok(())
}

impl Policy for PyPolicy {
    fn quantum_ns(&self) -> Option<u64> {
        self.quantum_ns
    }

    fn triggers(&self) -> Triggers {
        self.triggers
    }

    fn decide(&mut self, view: &SystemView, out: &mut Placement) -> Result<(), PolicyFailure> {
        if let Some(failure) = &self.failure {
            return Err(failure.clone());
        }
        if self.stopped {
            return Ok(());
        }
        Python::with_gil(|py| match self.call(py, view, out) {
            Ok(()) => Ok(()),
            Err(Failed::Interrupted(Interrupted::Stop)) => {
                out.clear();
                self.stopped = true;
                Ok(())
            }
            Err(failed) => {
                out.clear();
                let failure = PolicyFailure(match failed {
                    Failed::Interrupted(_) => {
                        let limit = self.calls.as_ref().map(|c| c.limit_text()).unwrap_or_default();
                        format!("decide (call {}) did not return within its limit of {limit}, and was stopped", view.call)
                    }
                    Failed::Placement(why) => format!("decide (call {}) {why}", view.call),
                    Failed::Raised(e) => {
                        let type_name = e.get_type_bound(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "exception".into());
                        let text = e.value_bound(py).str().map(|s| s.to_string()).unwrap_or_default();
                        self.raised = Some(e);
                        let text = if text.is_empty() { String::new() } else { format!(": {text}") };
                        format!("decide (call {}) raised {type_name}{text}", view.call)
                    }
                });
                self.failure = Some(failure.clone());
                Err(failure)
            }
        })
    }
}

/// The error Python gets for a failed run: the `InputError` the runner made, chained to what
/// `decide` raised; an interrupt (Ctrl-C inside `decide`) is raised again as itself. Any other
/// BaseException (SystemExit, GeneratorExit, a policy's own) is the policy's failure like an
/// Exception: the error is a plain message, which a sweep's worker process can send back.
pub fn chain(py: Python<'_>, error: PyErr, raised: Option<PyErr>) -> PyErr {
    match raised {
        Some(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => e,
        Some(e) => {
            error.set_cause(py, Some(e));
            error
        }
        None => error,
    }
}
