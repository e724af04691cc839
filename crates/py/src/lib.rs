#![allow(unexpected_cfgs)] // pyo3 0.22 macros test a cfg this crate does not declare
//! `ampsched._core`: the engine for Python. Every call returns JSON text (which the Python
//! front turns into DataFrames); bad input raises `InputError` with a one-line message.

use ampsched_runner::{compare as run_compare, default_compare as default_cmp, list, Error, Experiment, Settings};
use pyo3::create_exception;
use ampsched_agent::{resolve_topology, run as run_agent, AgentConfig, AgentError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(_core, InputError, PyValueError, "Bad input: names the file or option, the key and the problem.");

fn to_py(e: Error) -> PyErr {
    InputError::new_err(e.to_string())
}

fn settings(seed: u64, slice_ms: f64, timeline: bool, trace: Option<String>) -> Settings {
    Settings { seed, slice_ms, timeline, trace }
}

#[pyfunction]
fn list_catalog(kind: &str) -> PyResult<String> {
    list(kind).map(|v| v.to_string()).map_err(to_py)
}

#[pyfunction]
#[pyo3(signature = (machine, workload, policy, seed=1, slice_ms=4.0, trace=None, timeline=false))]
fn run(py: Python<'_>, machine: &str, workload: &str, policy: &str, seed: u64, slice_ms: f64, trace: Option<String>, timeline: bool) -> PyResult<String> {
    py.allow_threads(|| {
        let mut exp = Experiment::new(machine, workload, settings(seed, slice_ms, timeline, trace))?;
        exp.run(policy).map(|v| v.to_string())
    })
    .map_err(to_py)
}

#[pyfunction]
#[pyo3(signature = (machine, workload, policies, baseline=None, seed=1, slice_ms=4.0, timeline=false, progress=None))]
#[allow(clippy::too_many_arguments)]
fn compare(
    machine: &str,
    workload: &str,
    policies: Vec<String>,
    baseline: Option<String>,
    seed: u64,
    slice_ms: f64,
    timeline: bool,
    progress: Option<PyObject>,
) -> PyResult<String> {
    let mut exp = Experiment::new(machine, workload, settings(seed, slice_ms, timeline, None)).map_err(to_py)?;
    let mut callback_err: Option<PyErr> = None;
    // A callback that raises (Ctrl-C arrives that way) stops the comparison; without a
    // callback, pending signals are still checked between runs.
    let mut report = |done: usize, total: usize, label: &str| -> bool {
        Python::with_gil(|py| {
            let outcome = match &progress {
                Some(cb) => cb.call1(py, (done, total, label)).map(|_| ()),
                None => py.check_signals(),
            };
            match outcome {
                Ok(()) => true,
                Err(e) => {
                    callback_err = Some(e);
                    false
                }
            }
        })
    };
    let out = run_compare(&mut exp, &policies, baseline.as_deref(), &mut report);
    if let Some(e) = callback_err {
        return Err(e);
    }
    out.map(|v| v.to_string()).map_err(to_py)
}

#[pyfunction]
fn default_compare() -> String {
    default_cmp().to_string()
}

fn agent_err(e: AgentError) -> PyErr {
    match e {
        AgentError::Input(e) => InputError::new_err(e.to_string()),
        AgentError::Internal(m) => PyRuntimeError::new_err(m),
    }
}

/// The machine's topology (detected, or as `--cores`/`--emulate` make it), with its machine file.
#[pyfunction]
#[pyo3(signature = (cores=None, emulate=None, name="detected".to_string()))]
fn topology(cores: Option<String>, emulate: Option<String>, name: String) -> PyResult<String> {
    let t = resolve_topology("/", cores.as_deref(), emulate.as_deref()).map_err(agent_err)?;
    let mut v = t.to_json();
    v["machine_toml"] = serde_json::Value::String(t.to_machine_toml(&name));
    Ok(v.to_string())
}

/// Run the live agent (see `ampsched agent --help`); returns its JSON report.
#[pyfunction]
#[pyo3(signature = (policy, command, pids, interval_ms, emulate=None, emulate_period_ms=2.0, cores=None, machine=None, locks=true, status=true))]
#[allow(clippy::too_many_arguments)]
fn agent(
    py: Python<'_>,
    policy: String,
    command: Vec<String>,
    pids: Vec<u32>,
    interval_ms: f64,
    emulate: Option<String>,
    emulate_period_ms: f64,
    cores: Option<String>,
    machine: Option<String>,
    locks: bool,
    status: bool,
) -> PyResult<String> {
    let machine = machine.map(|m| ampsched_runner::catalog::machine(&m)).transpose().map_err(|e| InputError::new_err(e.to_string()))?;
    let cfg = AgentConfig { policy, interval_ms, emulate, emulate_period_ms, cores, machine, command, pids, locks, status, sysfs_root: "/".into() };
    py.allow_threads(|| run_agent(&cfg)).map(|v| v.to_string()).map_err(agent_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("InputError", m.py().get_type_bound::<InputError>())?;
    m.add_function(wrap_pyfunction!(list_catalog, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(default_compare, m)?)?;
    m.add_function(wrap_pyfunction!(topology, m)?)?;
    m.add_function(wrap_pyfunction!(agent, m)?)?;
    Ok(())
}
