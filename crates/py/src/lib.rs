#![allow(unexpected_cfgs)] // pyo3 0.22 macros test a cfg this crate does not declare
//! `ampsched._core`: the engine for Python. Every call returns JSON text (which the Python
//! front turns into DataFrames); bad input raises `InputError` with a one-line message.
//!
//! A policy is a registered spec, or a Python policy: an `ampsched.Policy` object passed with
//! the label its results carry (`policy_object`, `policy_objects`), run as a `PyPolicy`.

// pyo3's #[pyfunction] and #[pymethods] expansions convert a PyResult's error into PyErr again,
// which clippy reports at every function returning PyResult.
#![allow(clippy::useless_conversion)]

mod fairness;
mod interrupt;
mod policy;
mod view;
mod watchdog;

use ampsched_agent::{abandon, resolve_topology, run as run_agent, run_with_policy, stop_requested, AgentConfig, AgentError};
use ampsched_runner::{compare_candidates, default_compare as default_cmp, list, Candidate, Error, Experiment, Settings};
use interrupt::Stop;
use policy::{chain, PyPolicy};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::time::Duration;
use watchdog::{Interrupted, Watchdog, SIMULATOR_DECIDE_LIMIT_MS};

create_exception!(_core, InputError, PyValueError, "Bad input: names the file or option, the key and the problem.");

fn to_py(e: Error) -> PyErr {
    InputError::new_err(e.to_string())
}

/// A run's budget: simulated seconds and events (`limits`).
type Budget = (f64, u64);

fn settings(seed: u64, slice_ms: f64, (max_sim_s, max_events): Budget, timeline: bool, trace: Option<String>, stop: &Stop) -> Settings {
    Settings { seed, slice_ms, timeline, trace, max_sim_s, max_events, interrupt: stop.interrupt(), ..Settings::default() }
}

/// `ampsched list KIND` as JSON text. The catalog is compiled in, so a listing never changes
/// within a process: each kind is built once and its text kept (the workloads' listing parses
/// every catalog file, ~0.4 s, and a sweep asks for the names at its start and in each batch;
/// worker processes forked after the first call inherit it).
#[pyfunction]
fn list_catalog(kind: &str) -> PyResult<String> {
    static LISTED: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, String>>> = std::sync::OnceLock::new();
    let listed = LISTED.get_or_init(Default::default);
    if let Some(text) = listed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(kind) {
        return Ok(text.clone());
    }
    let text = list(kind).map(|v| v.to_string()).map_err(to_py)?;
    listed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(kind.to_string(), text.clone());
    Ok(text)
}

/// The text of a shipped catalog file (kind "machines", "programs" or "workloads"), for
/// scripts that derive a variant of it (a reproduction's machine with another start clock).
#[pyfunction]
fn catalog_text(kind: &str, name: &str) -> PyResult<String> {
    use ampsched_runner::catalog::{MACHINES, PROGRAMS, WORKLOADS};
    let files = match kind {
        "machines" => MACHINES,
        "programs" => PROGRAMS,
        "workloads" => WORKLOADS,
        _ => return Err(InputError::new_err(format!("catalog_text: kind {kind:?} is not machines, programs or workloads"))),
    };
    files
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| text.to_string())
        .ok_or_else(|| InputError::new_err(format!("catalog_text: no {kind} file {name:?} in the catalog")))
}

/// A Python policy object checked and wrapped; bad ones raise `InputError` naming `label`.
fn py_policy(object: &Bound<'_, PyAny>, label: &str) -> PyResult<PyPolicy> {
    PyPolicy::new(object).map_err(|why| InputError::new_err(format!("--policy: {label}: {why}")))
}

/// The watchdog bounding the simulator's calls of `policies` to `limit_ms` each
/// (`SIMULATOR_DECIDE_LIMIT_MS`, or less for `run`'s `decide_limit_ms`, which tests shorten); a
/// Ctrl-C reaches a call through Python's own handler (`interrupt.rs`). None without policies.
fn simulator_watchdog(py: Python<'_>, policies: &mut [PyPolicy], limit_ms: f64) -> Option<Watchdog> {
    if policies.is_empty() {
        return None;
    }
    let w = Watchdog::start(py, Duration::from_secs_f64(limit_ms / 1e3), None, None, None);
    for p in policies {
        p.watched_by(w.calls());
    }
    Some(w)
}

/// A runner error, chained to what a Python policy's `decide` raised.
fn run_error(py: Python<'_>, e: Error, policies: &mut [PyPolicy]) -> PyErr {
    let raised = policies.iter_mut().find_map(|p| p.raised.take());
    chain(py, to_py(e), raised)
}

/// Run one policy: a registered spec, or the Python policy `policy_object` labelled `policy`.
/// A run's result as a sweep stores it: the JSON of its scalars (no threads, cores or apps)
/// and the JSON of its apps list, as the engine writes them. A sweep of many short runs would
/// otherwise spend a tenth of its time parsing and re-serialising what it throws away.
#[pyfunction]
#[pyo3(signature = (machine, workload, policy, seed, slice_ms, max_sim_s, max_events, policy_object=None, counter_noise=ampsched_model::defaults::COUNTER_NOISE))]
#[allow(clippy::too_many_arguments)]
fn run_row(
    py: Python<'_>,
    machine: &str,
    workload: &str,
    policy: &str,
    seed: u64,
    slice_ms: f64,
    max_sim_s: f64,
    max_events: u64,
    policy_object: Option<Bound<'_, PyAny>>,
    counter_noise: f64,
) -> PyResult<(String, String)> {
    let settings = |stop: &Stop| Settings { counter_noise, ..settings(seed, slice_ms, (max_sim_s, max_events), false, None, stop) };
    run_result(py, machine, workload, policy, settings, policy_object, SIMULATOR_DECIDE_LIMIT_MS, None, |mut result| {
        let apps = result.as_object_mut().and_then(|m| m.remove("apps")).unwrap_or_else(|| serde_json::json!([]));
        flatten_rails(&mut result);
        if let Some(fields) = result.as_object_mut() {
            fields.retain(|_, v| !v.is_array() && !v.is_object());
        }
        (result.to_string(), apps.to_string())
    })
}

/// A result's `rail_energy_j` {rail: J} as scalar columns `rail_energy_j.RAIL`, and a network's
/// one-value counts `noc` {KEY: value} as `noc.KEY` (a sweep row keeps scalars only;
/// `ampsched.Result.summary` names them the same way).
fn flatten_rails(result: &mut serde_json::Value) {
    let Some(fields) = result.as_object_mut() else { return };
    if let Some(serde_json::Value::Object(rails)) = fields.remove("rail_energy_j") {
        for (rail, joules) in rails {
            fields.insert(format!("rail_energy_j.{rail}"), joules);
        }
    }
    if let Some(serde_json::Value::Object(noc)) = fields.remove("noc") {
        for (key, value) in noc.into_iter().filter(|(_, v)| !v.is_array() && !v.is_object()) {
            fields.insert(format!("noc.{key}"), value);
        }
    }
}

#[pyfunction]
#[pyo3(signature = (machine, workload, policy, seed=ampsched_model::defaults::SEED, slice_ms=ampsched_model::defaults::SLICE_MS, trace=None, timeline=false, policy_object=None, max_sim_s=ampsched_model::limits::DEFAULT_MAX_SIM_S, max_events=ampsched_model::limits::DEFAULT_MAX_EVENTS, counter_noise=ampsched_model::defaults::COUNTER_NOISE, decide_limit_ms=SIMULATOR_DECIDE_LIMIT_MS, ticker=None, machine_set=Vec::new(), power_sample_s=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    machine: &str,
    workload: &str,
    policy: &str,
    seed: u64,
    slice_ms: f64,
    trace: Option<String>,
    timeline: bool,
    policy_object: Option<Bound<'_, PyAny>>,
    max_sim_s: f64,
    max_events: u64,
    counter_noise: f64,
    decide_limit_ms: f64,
    ticker: Option<PyObject>,
    machine_set: Vec<String>,
    power_sample_s: Option<f64>,
) -> PyResult<String> {
    let settings =
        |stop: &Stop| Settings { counter_noise, machine_set, power_sample_s, ..settings(seed, slice_ms, (max_sim_s, max_events), timeline, trace, stop) };
    if !(decide_limit_ms > 0.0 && decide_limit_ms <= SIMULATOR_DECIDE_LIMIT_MS) {
        return Err(InputError::new_err(format!("decide_limit_ms: {decide_limit_ms}: must be greater than 0 and at most {SIMULATOR_DECIDE_LIMIT_MS} ms")));
    }
    run_result(py, machine, workload, policy, settings, policy_object, decide_limit_ms, ticker, |v| v.to_string())
}

/// One run, with the GIL released; `out` makes the Python result from the engine's JSON
/// value (outside the GIL too). `ticker`: the run's progress (`Stop::new`).
#[allow(clippy::too_many_arguments)]
fn run_result<T: Send>(
    py: Python<'_>,
    machine: &str,
    workload: &str,
    policy: &str,
    settings: impl FnOnce(&Stop) -> Settings + Send,
    policy_object: Option<Bound<'_, PyAny>>,
    decide_limit_ms: f64,
    ticker: Option<PyObject>,
    out: impl FnOnce(serde_json::Value) -> T + Send,
) -> PyResult<T> {
    let mut python: Vec<PyPolicy> = policy_object.map(|o| py_policy(&o, policy)).transpose()?.into_iter().collect();
    let watchdog = simulator_watchdog(py, &mut python, decide_limit_ms);
    let stop = Stop::new(ticker);
    let result = py.allow_threads(|| {
        let mut exp = Experiment::new(machine, workload, settings(&stop))?;
        match python.first_mut() {
            Some(p) => {
                let needs = p.needs;
                exp.run_policy(policy, needs, p)
            }
            None => exp.run(policy),
        }
        .map(out)
    });
    if let Some(w) = watchdog {
        w.finish(py);
    }
    if let Some(e) = stop.raised() {
        return Err(e);
    }
    result.map_err(|e| run_error(py, e, &mut python))
}

/// HASS-S's static SF estimate against the SF observed in solo runs on each core type, per
/// group of every app of `workload` on `machine` (`Experiment::sf_estimation`), as JSON.
#[pyfunction]
#[pyo3(signature = (machine, workload, base_cpi=ampsched_runner::THESIS_BASE_CPI))]
fn sf_estimation(py: Python<'_>, machine: &str, workload: &str, base_cpi: f64) -> PyResult<String> {
    let stop = Stop::new(None);
    let settings = settings(
        ampsched_model::defaults::SEED,
        ampsched_model::defaults::SLICE_MS,
        (ampsched_model::limits::DEFAULT_MAX_SIM_S, ampsched_model::limits::DEFAULT_MAX_EVENTS),
        false,
        None,
        &stop,
    );
    let result = py.allow_threads(|| Experiment::new(machine, workload, settings)?.sf_estimation(base_cpi).map(|v| v.to_string()));
    if let Some(e) = stop.raised() {
        return Err(e);
    }
    result.map_err(|e| run_error(py, e, &mut Vec::new()))
}

/// Synthetic traffic on `machine`'s network alone (`ampsched_runner::noc_traffic`): one row of
/// the latency-throughput curve, as JSON.
#[pyfunction]
#[pyo3(signature = (machine, injection_rate, cycles, warmup, seed, pattern, packet_flits=None))]
#[allow(clippy::too_many_arguments)]
fn noc_traffic(
    py: Python<'_>,
    machine: &str,
    injection_rate: f64,
    cycles: u64,
    warmup: Option<u64>,
    seed: u64,
    pattern: String,
    packet_flits: Option<u16>,
) -> PyResult<String> {
    use ampsched_runner::noc_traffic::{traffic, TrafficSpec};
    let m = ampsched_runner::catalog::machine(machine).map_err(|e| to_py(e.into()))?;
    let spec = TrafficSpec { injection_rate, cycles, warmup, seed, pattern, packet_flits };
    py.allow_threads(|| traffic(&m, &spec)).map(|t| t.to_json().to_string()).map_err(|e| to_py(e.into()))
}

/// Compare policies. `policy_objects`, if given, has one entry per policy: a Python policy
/// object (then the policy's text is its label) or None for a registered spec.
#[pyfunction]
#[pyo3(signature = (machine, workload, policies, baseline=None, seed=ampsched_model::defaults::SEED, slice_ms=ampsched_model::defaults::SLICE_MS, timeline=false, progress=None, policy_objects=None, max_sim_s=ampsched_model::limits::DEFAULT_MAX_SIM_S, max_events=ampsched_model::limits::DEFAULT_MAX_EVENTS, counter_noise=ampsched_model::defaults::COUNTER_NOISE, ticker=None, machine_set=Vec::new(), trace_dir=None, replace_traces=false))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    machine: &str,
    workload: &str,
    policies: Vec<String>,
    baseline: Option<String>,
    seed: u64,
    slice_ms: f64,
    timeline: bool,
    progress: Option<PyObject>,
    policy_objects: Option<Vec<Option<Bound<'_, PyAny>>>>,
    max_sim_s: f64,
    max_events: u64,
    counter_noise: f64,
    ticker: Option<PyObject>,
    machine_set: Vec<String>,
    trace_dir: Option<String>,
    replace_traces: bool,
) -> PyResult<String> {
    let objects = policy_objects.unwrap_or_else(|| vec![None; policies.len()]);
    if objects.len() != policies.len() {
        return Err(InputError::new_err(format!("--policies: {} policies but {} policy objects", policies.len(), objects.len())));
    }
    let mut python = Vec::new();
    for (label, object) in policies.iter().zip(&objects) {
        if let Some(o) = object {
            python.push(py_policy(o, label.trim())?);
        }
    }
    let is_object: Vec<bool> = objects.iter().map(Option::is_some).collect();
    let watchdog = simulator_watchdog(py, &mut python, SIMULATOR_DECIDE_LIMIT_MS);
    let stop = Stop::new(ticker);
    let mut callback_err: Option<PyErr> = None;
    // A callback that raises stops the comparison; without a callback, pending signals are
    // still checked between runs (`stop` checks them during each run).
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
    // Without the GIL, as in `run`: other Python threads go on during the runs (the callback
    // and Python policies take it when called).
    let out = py.allow_threads(|| {
        let settings =
            Settings { counter_noise, machine_set, trace_dir, replace_traces, ..settings(seed, slice_ms, (max_sim_s, max_events), timeline, None, &stop) };
        let mut exp = Experiment::new(machine, workload, settings)?;
        let mut ready = python.iter_mut();
        let mut candidates: Vec<Candidate> = policies
            .iter()
            .zip(&is_object)
            .map(|(label, &object)| {
                if object {
                    let p = ready.next().expect("one PyPolicy per object");
                    Candidate::Ready { label: label.trim().to_string(), needs: p.needs, policy: p }
                } else {
                    Candidate::Registered(label.trim().to_string())
                }
            })
            .collect();
        compare_candidates(&mut exp, &mut candidates, baseline.as_deref(), &mut report)
    });
    if let Some(w) = watchdog {
        w.finish(py);
    }
    if let Some(e) = stop.raised().or(callback_err) {
        return Err(e);
    }
    out.map(|v| v.to_string()).map_err(|e| run_error(py, e, &mut python))
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
#[pyo3(signature = (policy, command, pids, interval_ms, emulate=None, emulate_period_ms=ampsched_model::defaults::EMULATE_PERIOD_MS, cores=None, machine=None, locks=true, status=true, policy_object=None, seed=ampsched_model::defaults::SEED, until_tree_exits=false, runtime_threads=None, decide_limit_ms=ampsched_model::defaults::DECIDE_LIMIT_MS, trace=None))]
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
    policy_object: Option<Bound<'_, PyAny>>,
    seed: u64,
    until_tree_exits: bool,
    runtime_threads: Option<String>,
    decide_limit_ms: f64,
    trace: Option<String>,
) -> PyResult<String> {
    use ampsched_model::defaults::{DECIDE_LIMIT_MAX_MS, DECIDE_LIMIT_MIN_MS};
    let machine = machine.map(|m| ampsched_runner::catalog::machine(&m)).transpose().map_err(|e| InputError::new_err(e.to_string()))?;
    if !(DECIDE_LIMIT_MIN_MS..=DECIDE_LIMIT_MAX_MS).contains(&decide_limit_ms) {
        return Err(InputError::new_err(format!(
            "--decide-limit: {decide_limit_ms}: must be between {DECIDE_LIMIT_MIN_MS} and {DECIDE_LIMIT_MAX_MS} ms (1 ms to 1 hour)"
        )));
    }
    let mut python = policy_object.map(|o| py_policy(&o, &policy)).transpose()?;
    // A Python policy's calls are bounded, and a stop signal interrupts the call in progress; one
    // that cannot be interrupted ends the agent's process, whose guardian restores (`abandon`).
    let watchdog = python.as_mut().map(|p| {
        let label = policy.clone();
        let give_up = move |why: Interrupted| {
            let what = match why {
                Interrupted::Limit => "did not return within its limit",
                Interrupted::Stop => "did not return when the agent stopped",
            };
            abandon(&format!("--policy: {label}: its decide {what} and could not be interrupted"))
        };
        let limit = Duration::from_secs_f64(decide_limit_ms / 1e3);
        let w = Watchdog::start(py, limit, Some("--decide-limit"), Some(Box::new(stop_requested)), Some(Box::new(give_up)));
        p.watched_by(w.calls());
        w
    });
    let cfg = AgentConfig {
        policy,
        interval_ms,
        emulate,
        emulate_period_ms,
        cores,
        machine,
        command,
        pids,
        locks,
        status,
        sysfs_root: "/".into(),
        seed,
        until_tree_exits,
        runtime_threads,
        trace,
    };
    let result = py.allow_threads(|| match python {
        Some(p) => {
            let needs = p.needs;
            run_with_policy(&cfg, Box::new(p), needs)
        }
        None => run_agent(&cfg),
    });
    if let Some(w) = watchdog {
        w.finish(py);
    }
    result.map(|v| v.to_string()).map_err(agent_err)
}

/// `ampsched record`'s live side: run the agent on `command` (or attach to `pids`) recording
/// (`ampsched_agent::record::recorder`). Returns (the raw recording as JSON text, the agent's
/// report as a dict, or None when the agent failed under the command: the recording then says
/// why in `incomplete`). Bad options, no permission, a command that cannot run or that ends
/// before any of its threads was seen, no threads seen: InputError (or the agent's RuntimeError),
/// one line.
#[pyfunction]
#[pyo3(signature = (command, pids, policy="oblivious".to_string(), interval_ms=ampsched_model::defaults::AGENT_INTERVAL_MS, emulate=None, cores=None, machine=None, seed=ampsched_model::defaults::SEED, keep_command=false, status=true))]
#[allow(clippy::too_many_arguments)]
fn record(
    py: Python<'_>,
    command: Vec<String>,
    pids: Vec<u32>,
    policy: String,
    interval_ms: f64,
    emulate: Option<String>,
    cores: Option<String>,
    machine: Option<String>,
    seed: u64,
    keep_command: bool,
    status: bool,
) -> PyResult<(String, PyObject)> {
    use ampsched_agent::record::recorder::{machine_of, record as record_live};
    // The machine file's text, for the recording (a configuration NAME:TYPE=N has none of its own).
    let machine_text =
        match &machine {
            None => None,
            Some(m) => {
                ampsched_runner::catalog::machine(m).map_err(|e| InputError::new_err(e.to_string()))?;
                match ampsched_runner::catalog::MACHINES.iter().find(|(n, _)| n == m) {
                    Some((_, text)) => Some(text.to_string()),
                    None => Some(std::fs::read_to_string(m).map_err(|e| {
                        InputError::new_err(format!("--machine: {m}: record needs a machine file or a catalog name, not a configuration ({e})"))
                    })?),
                }
            }
        };
    let cfg = AgentConfig {
        policy,
        interval_ms,
        emulate,
        cores,
        machine: machine.map(|m| ampsched_runner::catalog::machine(&m)).transpose().map_err(|e| InputError::new_err(e.to_string()))?,
        command,
        pids,
        status,
        seed,
        ..AgentConfig::default()
    };
    let mut opts = machine_of(&cfg, machine_text.as_deref(), "recorded").map_err(agent_err)?;
    opts.keep_command = keep_command;
    let recorded = py.allow_threads(|| record_live(&cfg, &opts)).map_err(agent_err)?;
    let raw = serde_json::to_string(&recorded.recording).expect("the recording is plain data");
    let report = match recorded.report {
        Some(v) => py.import_bound("json")?.call_method1("loads", (v.to_string(),))?.unbind(),
        None => py.None(),
    };
    Ok((raw, report))
}

/// Checks a run's settings as a run would, without running: a sweep rejects a bad setting
/// before its first run.
#[pyfunction]
#[pyo3(signature = (slice_ms, max_sim_s, max_events, counter_noise=ampsched_model::defaults::COUNTER_NOISE))]
fn check_settings(slice_ms: f64, max_sim_s: f64, max_events: u64, counter_noise: f64) -> PyResult<()> {
    let settings = Settings { slice_ms, max_sim_s, max_events, counter_noise, ..Settings::default() };
    settings.check().map_err(to_py)
}

/// Checks what a run of each of `policies` on `machine` and `workload` would check before
/// simulating (the files, the specs and their options, what each policy needs), without
/// running: a sweep's grid is checked so before its first run. Returns the machine's and the
/// workload's names (what a run's result calls them), which a sweep's rows give.
#[pyfunction]
fn check_runs(py: Python<'_>, machine: &str, workload: &str, policies: Vec<String>) -> PyResult<(String, String)> {
    py.allow_threads(|| {
        let exp = Experiment::new(machine, workload, Settings::default())?;
        policies.iter().try_for_each(|p| exp.check(p))?;
        Ok((exp.machine.name.clone(), exp.workload.name.clone()))
    })
    .map_err(to_py)
}

/// The batch path of `sweep` for mixes (`mix:...` workloads, `ampsched_runner::run_mixes`):
/// registered policy `policy` on each mix of `mixes` on `machine`, the machine and catalog read
/// once, the GIL released throughout. Columnar JSON: `{"columns": {NAME: [value per mix]},
/// "apps_json": [text per mix], "error": [message or null per mix]}`, each mix's scalars and apps
/// as `run_row` gives them (null where the mix failed), so that a sweep builds its table column by
/// column instead of from a dict per run.
#[pyfunction]
#[pyo3(signature = (machine, mixes, policy, seed, slice_ms, max_sim_s, max_events, counter_noise=ampsched_model::defaults::COUNTER_NOISE))]
#[allow(clippy::too_many_arguments)]
fn run_mix_rows(
    py: Python<'_>,
    machine: &str,
    mixes: Vec<String>,
    policy: &str,
    seed: u64,
    slice_ms: f64,
    max_sim_s: f64,
    max_events: u64,
    counter_noise: f64,
) -> PyResult<String> {
    let stop = Stop::new(None);
    let settings = Settings { counter_noise, ..settings(seed, slice_ms, (max_sim_s, max_events), false, None, &stop) };
    let out = py.allow_threads(|| {
        let n = mixes.len();
        let mut columns: serde_json::Map<String, serde_json::Value> = serde_json::Map::new();
        let (mut apps, mut errors) = (Vec::with_capacity(n), Vec::with_capacity(n));
        ampsched_runner::run_mixes(machine, &mixes, policy, &settings, |i, result| match result {
            Ok(mut value) => {
                let app_list = value.as_object_mut().and_then(|m| m.remove("apps")).unwrap_or_else(|| serde_json::json!([]));
                apps.push(serde_json::Value::String(app_list.to_string()));
                errors.push(serde_json::Value::Null);
                for (key, v) in value.as_object().into_iter().flatten().filter(|(_, v)| !v.is_array() && !v.is_object()) {
                    let column = columns.entry(key.clone()).or_insert_with(|| serde_json::Value::Array(vec![serde_json::Value::Null; n]));
                    column.as_array_mut().expect("a column is an array")[i] = v.clone();
                }
            }
            Err(e) => {
                apps.push(serde_json::Value::Null);
                errors.push(serde_json::Value::String(e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")));
            }
        })?;
        Ok::<_, Error>(serde_json::json!({"columns": columns, "apps_json": apps, "error": errors}).to_string())
    });
    if let Some(e) = stop.raised() {
        return Err(e);
    }
    out.map_err(to_py)
}

/// `check_runs` for many mixes on one machine (`ampsched_runner::check_mixes`): the machine and
/// the catalog read once.
#[pyfunction]
fn check_mixes(py: Python<'_>, machine: &str, mixes: Vec<String>, policies: Vec<String>) -> PyResult<()> {
    py.allow_threads(|| ampsched_runner::check_mixes(machine, &mixes, &policies)).map_err(to_py)
}

/// A raw recording (`ampsched record --raw`'s JSON) as a workload file: the TOML text and a
/// summary (JSON) of what was measured, what inferred, and what the compression cost
/// (`ampsched_agent::record::convert`). A recording of another version, an empty or a partial
/// one (unless `accept_lost_events`) raises `InputError` with one line.
#[pyfunction]
#[pyo3(signature = (raw_json, max_phases=ampsched_agent::record::convert::DEFAULT_MAX_PHASES, barrier_window_ns=0, min_block_ns=ampsched_agent::record::convert::DEFAULT_MIN_BLOCK_NS, accept_lost_events=false, name="recorded".to_string()))]
fn record_convert(
    py: Python<'_>,
    raw_json: &str,
    max_phases: usize,
    barrier_window_ns: u64,
    min_block_ns: u64,
    accept_lost_events: bool,
    name: String,
) -> PyResult<(String, String)> {
    use ampsched_agent::record::convert::{convert, ConvertOptions};
    use ampsched_agent::record::recording::{Recording, RECORDING_VERSION};
    let bad = |why: String| InputError::new_err(format!("raw recording: {why}"));
    // The version first: a raw file of another version may not even have this one's fields.
    let value: serde_json::Value = serde_json::from_str(raw_json).map_err(|e| bad(format!("invalid JSON: {e}")))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == RECORDING_VERSION as u64 => {}
        Some(v) => return Err(bad(format!("version: {v} is not the version this ampsched reads ({RECORDING_VERSION}): record again with this version"))),
        None => return Err(bad("version: missing (not a raw recording of ampsched record)".into())),
    }
    let rec: Recording = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    let opts = ConvertOptions { max_phases, barrier_window_ns, min_block_ns, accept_lost_events, name };
    let out = py.allow_threads(|| convert(&rec, &opts)).map_err(|e| InputError::new_err(e.to_string()))?;
    let summary = serde_json::to_string(&out.summary).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((out.toml, summary))
}

/// The defaults every front uses (seed, slice, agent interval, emulation period), defined once
/// in the engine (`ampsched_model::defaults`).
#[pyfunction]
fn defaults() -> String {
    serde_json::json!({
        "seed": ampsched_model::defaults::SEED,
        "slice_ms": ampsched_model::defaults::SLICE_MS,
        "counter_noise": ampsched_model::defaults::COUNTER_NOISE,
        "agent_interval_ms": ampsched_model::defaults::AGENT_INTERVAL_MS,
        "agent_interval_min_ms": ampsched_model::defaults::AGENT_INTERVAL_MIN_MS,
        "agent_interval_max_ms": ampsched_model::defaults::AGENT_INTERVAL_MAX_MS,
        "emulate_period_ms": ampsched_model::defaults::EMULATE_PERIOD_MS,
        "decide_limit_ms": ampsched_model::defaults::DECIDE_LIMIT_MS,
        "decide_limit_min_ms": ampsched_model::defaults::DECIDE_LIMIT_MIN_MS,
        "decide_limit_max_ms": ampsched_model::defaults::DECIDE_LIMIT_MAX_MS,
        "simulator_decide_limit_ms": SIMULATOR_DECIDE_LIMIT_MS,
        "max_sim_s": ampsched_model::limits::DEFAULT_MAX_SIM_S,
        "max_events": ampsched_model::limits::DEFAULT_MAX_EVENTS,
        "record_max_phases": ampsched_agent::record::convert::DEFAULT_MAX_PHASES,
        "record_min_block_ns": ampsched_agent::record::convert::DEFAULT_MIN_BLOCK_NS,
        "record_barrier_window_intervals": ampsched_agent::record::convert::BARRIER_WINDOW_INTERVALS,
    })
    .to_string()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("InputError", m.py().get_type_bound::<InputError>())?;
    m.add("DecideInterrupted", m.py().get_type_bound::<watchdog::DecideInterrupted>())?;
    m.add_class::<view::View>()?;
    m.add_class::<view::Thread>()?;
    m.add_function(wrap_pyfunction!(check_settings, m)?)?;
    m.add_function(wrap_pyfunction!(run_row, m)?)?;
    m.add_function(wrap_pyfunction!(check_runs, m)?)?;
    m.add_function(wrap_pyfunction!(run_mix_rows, m)?)?;
    m.add_function(wrap_pyfunction!(check_mixes, m)?)?;
    m.add_function(wrap_pyfunction!(defaults, m)?)?;
    m.add_function(wrap_pyfunction!(list_catalog, m)?)?;
    m.add_function(wrap_pyfunction!(catalog_text, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sf_estimation, m)?)?;
    m.add_function(wrap_pyfunction!(noc_traffic, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(default_compare, m)?)?;
    m.add_function(wrap_pyfunction!(topology, m)?)?;
    m.add_function(wrap_pyfunction!(agent, m)?)?;
    m.add_function(wrap_pyfunction!(record_convert, m)?)?;
    m.add_function(wrap_pyfunction!(record, m)?)?;
    m.add_function(wrap_pyfunction!(fairness::fairness_shares, m)?)?;
    m.add_function(wrap_pyfunction!(fairness::fairness_metrics, m)?)?;
    Ok(())
}
