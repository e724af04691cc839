"""ampsched: scheduling threads on asymmetric multicore processors.

    import ampsched
    r = ampsched.run("dvfs-2x", "demo", "rr:threshold_ms=50")
    r.summary, r.apps, r.threads, r.cores      # pandas DataFrames
    df = ampsched.compare("dvfs-2x", "demo", ["rr", "busyfcs"])
    df.attrs["apps"]                           # slowdown per policy and app
    ampsched.write_report(df.attrs["raw"], "report.html")

Machines and workloads are catalog names (see list_machines(), list_workloads()) or
paths to TOML files; a policy is a spec "name[:key=value[:key=value...]]" (see
list_policies() for the names and their options), or a policy written in Python: an
ampsched.Policy object, or its spec "path/to/file.py:ClassName" (see help(ampsched.policy)).
Bad input raises InputError, a ValueError whose message reads "file: key: problem".

Metrics (lower is better for makespan_s, antt, unfairness, energy_j, edp, migrations;
higher for stp, min_fairness, uniformity, speedup_vs_baseline):

"""

import functools
import importlib
import importlib.metadata
import json
import os

from ._files import text_arg, write_atomically
from ._metrics import ENERGY_METRICS, METRICS, glossary_text, same_as  # noqa: F401 (METRICS is re-exported)
from .policy import Placement, Policy, resolve as _resolve_policy
from .report import write_report  # noqa: F401 (re-exported)
from .plot import plot  # noqa: F401 (re-exported; the function, which hides its module's name here)
from . import _sweep as _sweep_module  # the sweep's machinery; ampsched.sweep is the function
from . import _agent_compare
from . import _record
from ._record import Recorded

__doc__ += glossary_text() + "\n"

try:
    # The installed distribution's version: pyproject.toml's, the one place it is written.
    __version__ = importlib.metadata.version(__name__)
except importlib.metadata.PackageNotFoundError:  # imported from a source tree never installed
    __version__ = "0+unknown"

# The engine is a compiled extension. Importing the package must not need it, so that
# the pure-Python parts (report, tables) work and `ampsched --help` answers even when it
# is not built; the functions that need it say so when called.
try:
    # import_module, not `from . import _core`: its error names the missing module
    # instead of blaming a circular import.
    _core = importlib.import_module(__name__ + "._core")
except ImportError as error:
    _core = None
    _core_error = error

    class InputError(ValueError):
        """Bad input: what the user gave is wrong, and the message says what ("file: key: problem").

        The engine's InputError when it is built; this stand-in when it is not, so that the pure-Python
        parts (the report, the checks of paths) raise the same type and `except ampsched.InputError`
        works either way."""

else:
    _core_error = None
    InputError = _core.InputError

__all__ = [
    "run",
    "compare",
    "default_comparison",
    "sweep",
    "reproduce",
    "read_sweep",
    "verify_sweep",
    "plot",
    "defaults",
    "Result",
    "results_frame",
    "METRICS",
    "write_report",
    "Policy",
    "Placement",
    "list_machines",
    "list_workloads",
    "list_policies",
    "list_programs",
    "sf_estimation_error",
    "noc_traffic",
    "catalog",
    "topology",
    "agent",
    "agent_compare",
    "AgentComparison",
    "record",
    "Recorded",
    "InputError",
]

TIMELINE_COLUMNS = ["core", "thread", "app", "start_s", "end_s"]


def _require_core():
    if _core is None:
        raise ImportError(
            "the compiled engine ampsched._core is not available; build it with "
            f"`maturin develop` from the repository root ({_core_error})"
        ) from _core_error
    return _core


def _scalars(raw: dict) -> dict:
    # Everything that is not a list or an object is a one-value metric or setting; taking
    # them generically keeps new engine metrics visible without touching this file. Each power
    # rail's energy is a column rail_energy_j.RAIL, as in a sweep's rows.
    out = {k: v for k, v in raw.items() if not isinstance(v, (list, dict))}
    out.update((f"rail_energy_j.{rail}", j) for rail, j in (raw.get("rail_energy_j") or {}).items())
    # A run on a machine with a mesh: its network's one-value counts as noc.KEY (docs/queue-spinlock.md).
    out.update((f"noc.{k}", v) for k, v in (raw.get("noc") or {}).items() if not isinstance(v, (list, dict)))
    return out


def _energy_as_float(frame):
    """The energy columns as floats: NaN where the machine has no power model (the engine's
    null, "not modelled"), rather than a column of Python objects."""
    for column in ENERGY_METRICS:
        if column in frame.columns:
            frame[column] = frame[column].astype(float)
    return frame


def split_policies(text: str) -> list:
    """Policy specs from "p1,p2,..." (a spec never contains a comma)."""
    return [spec.strip() for spec in text.split(",") if spec.strip()]


class Result:
    """One simulated run.

    summary   one-row DataFrame: machine, workload, policy, seed, slice_ms and the scalar
              metrics (makespan_s, antt, stp, min_fairness, uniformity, unfairness,
              energy_j, edp, migrations, events, policy_calls; sf_error for a policy that
              estimates speedup factors; efficiency_error, efficiency_error_max and
              efficiency_interval_error for a fairness policy, its efficiency estimates against
              the solo profiling runs, Kim & Huh §7.5).
    apps      one row per app: name, threads, runs, turnaround_s, solo_s, slowdown, fast_share
              (and for a fairness policy efficiency_estimate, efficiency_true, efficiency_error,
              efficiency_interval_error; on a machine with a mesh coh_ns, handoffs,
              spin_acquisitions, sleep_acquisitions, spin_share, cs_ns, roi_ns: its queue
              spinlocks, docs/queue-spinlock.md, and summary's noc.* columns the network's counts).
    threads   one row per thread: id, app, group, kind, cpu_s, fast_s, fast_share, migrations
              (and sf_error, for a policy that estimates speedup factors: hass-s, hass-d).
    cores     one row per core: id, type, fast, busy_s, energy_j.
    timeline  rows (core, thread, app, start_s, end_s) if the run asked for it, else None.
    power_trace  if the run asked for it (run(power_trace=...)): one row per sampling window,
              indexed by time_s (the window's end), one column per power rail: its mean power
              over the window, W; .sum(axis=1) is the whole chip's. Else None. docs/power.md.
    raw       the engine's JSON result as a dict.
    json      the engine's JSON result as text (what `ampsched run --json` prints).

    See help(ampsched) for what each metric means. The DataFrames are made on first use:
    pandas is imported only then (the CLI prints from `raw` and never pays for it).
    """

    def __init__(self, raw: dict, json_text: str = None):
        self.raw = raw
        self.json = json_text if json_text is not None else json.dumps(raw)

    @functools.cached_property
    def summary(self):
        import pandas as pd

        return _energy_as_float(pd.DataFrame([_scalars(self.raw)]))

    @functools.cached_property
    def apps(self):
        import pandas as pd

        return pd.DataFrame(self.raw.get("apps", []))

    @functools.cached_property
    def threads(self):
        import pandas as pd

        return pd.DataFrame(self.raw.get("threads", []))

    @functools.cached_property
    def cores(self):
        import pandas as pd

        return _energy_as_float(pd.DataFrame(self.raw.get("cores", [])))

    @functools.cached_property
    def timeline(self):
        import pandas as pd

        timeline = self.raw.get("timeline")
        return None if timeline is None else pd.DataFrame(timeline, columns=TIMELINE_COLUMNS)

    @functools.cached_property
    def power_trace(self):
        import pandas as pd

        trace = self.raw.get("power_trace")
        if trace is None:
            return None
        return pd.DataFrame(trace["power_w"], index=pd.Index(trace["time_s"], name="time_s"))

    def __repr__(self):
        r = self.raw
        return (
            f"<ampsched.Result {r.get('policy')} on {r.get('machine')}/{r.get('workload')}: "
            f"makespan_s={r.get('makespan_s')} antt={r.get('antt')} stp={r.get('stp')}>"
        )


def defaults() -> dict:
    """The defaults every front uses, from the engine: seed, slice_ms, agent_interval_ms (and
    its range, agent_interval_min_ms to agent_interval_max_ms), emulate_period_ms, a Python
    policy's per-call limit live (decide_limit_ms, its range) and in the simulator
    (simulator_decide_limit_ms), max_sim_s, max_events, and `record`'s converter's
    (record_max_phases, record_min_block_ns, record_barrier_window_intervals) (the engine's
    values when it is built, else the documented ones)."""
    if _core is None:
        return dict(_DOCUMENTED_DEFAULTS)
    return json.loads(_core.defaults())


# What `defaults()` says when the engine is not built (help texts only; a run needs the engine).
_DOCUMENTED_DEFAULTS = {
    "seed": 1,
    "slice_ms": 4.0,
    "agent_interval_ms": 40.0,
    "agent_interval_min_ms": 1.0,
    "agent_interval_max_ms": 3600000.0,
    "emulate_period_ms": 2.0,
    "decide_limit_ms": 1000.0,
    "decide_limit_min_ms": 1.0,
    "decide_limit_max_ms": 3600000.0,
    "simulator_decide_limit_ms": 10000.0,
    "max_sim_s": 1e7,
    "max_events": 2 * 10**8,
    "counter_noise": 0.02,
    "record_max_phases": 10_000,
    "record_min_block_ns": 1_000_000,
    "record_barrier_window_intervals": 2,
}


def _option(name: str) -> str:
    """How errors name a setting: as the command line spells it (max_events: --max-events), the
    one name the engine's own checks use for every front, the API's included."""
    return "--" + name.replace("_", "-")


def _settings(seed, slice_ms, max_sim_s=None, max_events=None, counter_noise=None) -> dict:
    """The engine's keywords for a run's settings, None meaning the engine's default. Types are
    checked here, where PyO3 would raise OverflowError or TypeError: every bad value raises
    InputError naming it (the engine checks the ranges)."""
    error = _require_core().InputError
    d = defaults()
    out = {"seed": _seed(seed), "slice_ms": d["slice_ms"] if slice_ms is None else slice_ms}
    for name, value in (("slice_ms", slice_ms), ("max_sim_s", max_sim_s)):
        if value is not None:
            out[name] = _number(_option(name), value)
    if max_events is not None:
        if isinstance(max_events, float) and max_events.is_integer():
            max_events = int(max_events)  # 1e9 is a whole number too
        if not _is_int(max_events) or not 0 <= max_events < 2**64:
            raise error(f"--max-events: must be a whole number, got {_shown(max_events)}")
        out["max_events"] = max_events
    out.update(_noise(counter_noise))
    return out


def _seed(seed) -> int:
    """A seed for the engine (None: the default), or InputError (PyO3 would raise OverflowError)."""
    value = defaults()["seed"] if seed is None else seed
    if not _is_int(value) or not 0 <= value < 2**64:
        raise _require_core().InputError(f"--seed: must be a whole number from 0 to 2^64-1, got {seed!r}")
    return value


def _number(name: str, value) -> float:
    """A number for the engine as a float, or InputError naming it (PyO3 would raise TypeError or
    OverflowError)."""
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError
        return float(value)
    except (TypeError, OverflowError):
        raise _require_core().InputError(f"{name}: must be a number, got {_shown(value)}") from None


def _noise(counter_noise) -> dict:
    """The engine's keyword for the counter noise (None: the engine's default); the engine
    checks the range and names it in its error."""
    if counter_noise is None:
        return {}
    if isinstance(counter_noise, bool) or not isinstance(counter_noise, (int, float)):
        raise _require_core().InputError(f"--counter-noise: must be a number, got {_shown(counter_noise)}")
    return {"counter_noise": float(counter_noise)}


def _flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise _require_core().InputError(f"{name}: must be True or False, got {_shown(value)}")
    return value


def _list(name: str, value) -> list:
    """A list from any iterable but a string (a string is one item, not its characters)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise _require_core().InputError(f"{name}: expected a list, got {type(value).__name__}")
    return list(value)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value) -> str:
    """A value as an error message shows it: cut short, as the engine cuts long values."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:40]}…({len(text) - 40} more chars)"


def _text(name: str, value) -> str:
    """A path or spec for the engine (see _files.text_arg)."""
    _require_core()
    return text_arg(name, value)


def run(
    machine,
    workload,
    policy,
    seed: int = None,
    slice_ms: float = None,
    trace=None,
    timeline: bool = False,
    max_sim_s: float = None,
    max_events: int = None,
    counter_noise: float = None,
    machine_set=None,
    progress=False,
    power_trace=False,
) -> Result:
    """Simulate `workload` on `machine` under one policy; returns a Result.

    policy: a spec, or an ampsched.Policy object (the run uses a copy of it).
    seed, slice_ms: None for the engine's defaults (see defaults()).
    trace: a path; if given, a Chrome/Perfetto trace JSON is written there.
    timeline: also return every (core, thread, app, start, end) segment.
    max_sim_s, max_events: the budget of simulated seconds of each simulation, and of events of
    all the simulations the run makes together (its solo references and profiling runs too), which
    bounds its wall time (None: defaults()); a run still going past either raises InputError,
    naming the simulation that passed it.
    counter_noise: the relative standard deviation of the simulator's measurement noise on the
    counters the policy reads (None: defaults()["counter_noise"]; 0: exact; 0 to 0.25).
    machine_set: edits of the machine before it is read, as `--set`: a list of "TYPE.KEY=VALUE"
    (e.g. "pcore.count=6": KEY of the core type named TYPE) or "KEY=VALUE" (a top-level key).
    progress: True for a progress line on stderr when it is a terminal and the run takes more
    than a few seconds, or a callable progress(sim_s, events, max_events), called a few times a
    second.
    power_trace: True to record each power rail's power every 0.27 s (the big.LITTLE paper's
    sampling daemon), or the interval in seconds; then Result.power_trace is a DataFrame of it
    (docs/power.md). The machine must give every core type a power.
    """
    from ._console import ProgressBar

    core = _require_core()
    settings = _settings(seed, slice_ms, max_sim_s, max_events)
    label, policy_object = _resolve_policy(policy)
    if not (callable(progress) or isinstance(progress, bool)):
        raise core.InputError(f"progress: must be True, False or a callable, got {_shown(progress)}")
    bar = ProgressBar() if progress is True else None
    try:
        text = core.run(
            _text("machine", machine),
            _text("workload", workload),
            _text("policy", label),
            trace=None if trace is None else _text("trace", trace),
            timeline=_flag("timeline", timeline),
            policy_object=policy_object,
            ticker=bar.tick if bar is not None else progress if callable(progress) else None,
            machine_set=_machine_set(machine_set),
            power_sample_s=_power_sample_s(power_trace),
            **settings,
            **_noise(counter_noise),
        )
    finally:
        if bar is not None:
            bar.clear()
    return Result(json.loads(text), text)


# The big.LITTLE paper's power daemon samples the sensors every 0.27 s (§IV.B): power_trace=True.
PAPER_POWER_SAMPLE_S = 0.27


def _power_sample_s(power_trace):
    """run()'s power_trace for the engine: None (off), or the sampling interval in seconds."""
    if power_trace is False or power_trace is None:
        return None
    if power_trace is True:
        return PAPER_POWER_SAMPLE_S
    if isinstance(power_trace, (int, float)) and not isinstance(power_trace, bool):
        return _number("power_trace", power_trace)
    raise _require_core().InputError(
        f"power_trace: must be True, False or a sampling interval in seconds, got {_shown(power_trace)}"
    )


def _machine_set(edits) -> list:
    """`machine_set` for the engine: None, or a list of "TYPE.KEY=VALUE" texts."""
    return [] if edits is None else [_text("--set", e) for e in _list("--set", edits)]


def compare(
    machine,
    workload,
    policies,
    baseline=None,
    seed: int = None,
    slice_ms: float = None,
    progress=False,
    timeline: bool = False,
    max_sim_s: float = None,
    max_events: int = None,
    counter_noise: float = None,
    machine_set=None,
    trace_dir=None,
    replace_traces: bool = False,
):
    """Run several policies on the same machine and workload; returns a DataFrame.

    One row per policy (index "policy"): the scalar metrics and speedup_vs_baseline, and
    same_as: the earlier policy whose results are identical (the same placements), else None.
    A registered policy that cannot run the workload at all (best-static above 16 threads) is
    left out: df.attrs["left_out"] lists them, [{"policy", "why"}].
    df.attrs["apps"] is a long DataFrame (policy, app, slowdown, turnaround_s, ...) and
    df.attrs["raw"] the engine's list of results (what write_report takes), df.attrs["json"]
    the same as the engine's JSON text (what `ampsched compare --json` prints).

    policies: a list of specs and ampsched.Policy objects, or one "p1,p2,..." string.
    baseline: the spec (or Policy object, or label) the speedups are relative to, or
    "default": the Saez thesis's default metric (§4.3.3), the mean of the bound runs
    bound:offset=0..cores-1, added as a row "default" (docs/policies/baselines.md). None: the workload
    file's `baseline` key (the thesis workloads name "default"), else the first policy. progress: True for a progress bar on
    stderr when it is a terminal, or a callable progress(done, total, label).
    timeline: also record each run's core timeline (write_report draws it).
    max_sim_s, max_events: as in run(); the events are one budget for the whole comparison (every
    policy's run, and the solo references). counter_noise, machine_set: as in run().
    trace_dir: a directory: one Chrome/Perfetto trace per policy, DIR/POLICY.json (existing
    files are refused unless replace_traces).

    Note: pandas (2.x, 3.0) compares attrs when it concatenates or merges frames and fails
    on DataFrame values ("truth value of a DataFrame is ambiguous"); to pd.concat several
    compare() frames (e.g. one per seed), drop the attrs first: pd.DataFrame(df).
    """
    from ._console import ProgressBar

    core = _require_core()
    settings = _settings(seed, slice_ms, max_sim_s, max_events)
    specs = split_policies(policies) if isinstance(policies, str) else _list("policies", policies)
    labels, objects = _resolve_policies(specs)
    if isinstance(baseline, Policy):
        baseline = _resolve_policy(baseline)[0]
    if baseline is not None:
        baseline = _text("baseline", baseline)
    labels = [_text("policies", label) for label in labels]
    if not (callable(progress) or isinstance(progress, bool)):
        raise core.InputError(f"progress: must be True, False or a callable, got {_shown(progress)}")
    callback = progress if callable(progress) else ProgressBar() if progress else None
    try:
        text = core.compare(
            _text("machine", machine),
            _text("workload", workload),
            labels,
            baseline=baseline,
            timeline=_flag("timeline", timeline),
            progress=callback,
            policy_objects=objects,
            ticker=getattr(callback, "tick", None),
            machine_set=_machine_set(machine_set),
            trace_dir=None if trace_dir is None else _text("--trace", trace_dir),
            replace_traces=_flag("replace_traces", replace_traces),
            **settings,
            **_noise(counter_noise),
        )
    finally:
        if isinstance(callback, ProgressBar):
            callback.clear()  # also on an error or Ctrl-C, so the terminal line is clean
    results = json.loads(text)
    frame = results_frame(results)
    # Rows identical to an earlier one (the same placements on this workload), and the policies
    # left out because they cannot run it (the oracle above its thread limit).
    frame["same_as"] = same_as(results)
    frame.attrs["left_out"] = results[0].get("left_out", [])
    frame.attrs["json"] = text
    return frame


def default_comparison() -> dict:
    """What `ampsched compare` runs when given nothing: {"machine", "workload", "policies"}."""
    return json.loads(_require_core().default_compare())


def _resolve_policies(policies):
    """Labels and objects for the engine's compare; objects is None when all are specs."""
    resolved = [_resolve_policy(p) for p in policies]
    labels = [label for label, _ in resolved]
    objects = [obj for _, obj in resolved]
    return labels, (objects if any(o is not None for o in objects) else None)


def results_frame(results: list):
    """The DataFrame compare() returns, from a list of result dicts (e.g. the output of
    `ampsched compare --json`)."""
    import pandas as pd

    if not isinstance(results, list) or not results or not all(isinstance(r, dict) and "policy" in r for r in results):
        raise _require_core().InputError(
            "results: expected a non-empty list of result dicts "
            "(compare(...).attrs['raw'], or `ampsched compare --json`)"
        )
    frame = _energy_as_float(pd.DataFrame([_scalars(r) for r in results])).set_index("policy")
    rows = [row for r in results for row in _app_rows(r.get("apps", []), {"policy": r["policy"]})]
    frame.attrs["apps"] = pd.DataFrame(rows, columns=None if rows else ["policy", "app", "slowdown", "turnaround_s"])
    frame.attrs["raw"] = results
    return frame


def _app_rows(apps: list, keys: dict) -> list:
    """A result's apps as rows of a long table: `keys` (which run), app, slowdown,
    turnaround_s, then the app's other values."""
    rows = []
    for app in apps:
        row = dict(keys, app=app.get("name"), slowdown=app.get("slowdown"), turnaround_s=app.get("turnaround_s"))
        row.update((k, v) for k, v in app.items() if k != "name" and k not in row)
        rows.append(row)
    return rows


def sweep(
    machines=None,
    workloads=None,
    policies=None,
    seeds=None,
    jobs: int = None,
    output=None,
    resume: bool = False,
    slice_ms: float = None,
    max_sim_s: float = None,
    max_events: int = None,
    max_runs=_sweep_module.MAX_RUNS,
    progress=None,
    file=None,
    overrides=None,
    backend: str = "local",
    address: str = None,
    force: bool = False,
    counter_noise: float = None,
    announce=None,
):
    """Run every combination of machines x workloads x policies x seeds; returns a DataFrame.

    One row per run: machine and workload (their names, as compare() gives them), policy and
    seed (as given), machine_path and workload_path (the file given, None for a catalog name),
    error (None, or the message of a run that failed: it is recorded and the sweep goes on),
    the run's settings (slice_ms, max_sim_s, max_events, counter_noise), then every scalar
    metric of `ampsched run --json`;
    df.attrs["apps"] has one row per run and app, and df.attrs["sweep"] how many runs this call
    made, failed and skipped and its seconds.

    machines, workloads, policies: lists, or "a,b,..." strings (policies are specs; Python
    policies as "file.py:ClassName"). A policy spec may be a grid over its options,
    "rr:threshold_ms=25|50|100:quantum_ms=5|10": the product of the values, each a policy of
    the sweep (the last option varying fastest). counter_noise: as in run(), for every run.
    announce: a callable given the grid's size as text ("1 machine × ... = K runs") once the
    grid is valid, before any run. seeds: an int, a list, or "1-5" / "1,3,7-9" (None: the
    default seed). jobs: batches at once, worker processes or Ray tasks (None: all CPUs, of the
    Ray cluster for backend="ray"). backend: "local" (worker processes on this machine) or "ray"
    (Ray tasks; needs `pip install 'ampsched[ray]'`, and ampsched on every node of a cluster):
    address None starts a local Ray instance for the sweep, else the running cluster to connect
    to ("HOST:PORT" of its head, "ray://HOST:PORT", "auto"); the rows are the same either way.
    output: a Parquet file written as runs finish (see the module ampsched._sweep); an existing one
    is refused unless resume (keep the successful runs it, or an interrupted sweep's
    FILE.parquet.parts, already has and run only the others) or force (replace it). max_runs: a larger grid is refused (None: no limit). progress: a tqdm bar on stderr (None: when a
    terminal). file: a sweep TOML file whose keys are the defaults of these keywords.
    overrides: a list of dicts, each matching runs by machines/workloads/policies/seeds and
    giving them slice_ms/max_sim_s/max_events/counter_noise, or skip=True (as [[override]] in a sweep file).
    The grid is checked before any run: bad names, settings and empty grids raise InputError.
    """
    return _sweep_module.sweep(
        machines,
        workloads,
        policies,
        seeds=seeds,
        jobs=jobs,
        output=output,
        resume=resume,
        slice_ms=slice_ms,
        max_sim_s=max_sim_s,
        max_events=max_events,
        max_runs=max_runs,
        progress=progress,
        file=file,
        overrides=overrides,
        backend=backend,
        address=address,
        force=force,
        counter_noise=counter_noise,
        announce=announce,
    )


def verify_sweep(path, sample: int = _sweep_module.VERIFY_SAMPLE, jobs: int = None, progress=None):
    """Re-run `sample` runs of a sweep file (spread evenly over it) and compare every column bit
    for bit; a DataFrame with the grid keys, `identical` and `differences` per run checked."""
    return _sweep_module.verify(_text("path", path), sample=sample, jobs=jobs, progress=progress)


def reproduce(name: str, quick: bool = False, jobs: int = None, output=None, backend: str = "local", address=None):
    """Run reproduction NAME (see ampsched.reproductions and `ampsched reproduce --list`);
    returns its claims as a DataFrame (id, source, claim, theirs, ours, tolerance, verdict,
    reason). quick: the reduced version the tests run. output: a directory to write NAME.md
    and its figures to (None: write nothing; the CLI's default is docs/reproduction).
    backend, address: where its sweeps run, as for sweep()."""
    from . import reproductions

    _require_core()
    if output is not None:
        output = _text("output", output)
    try:
        return reproductions.run(
            _text("name", name), quick=_flag("quick", quick), jobs=jobs, output=output, backend=backend, address=address
        )[0]
    except reproductions.ReproductionError as error:
        raise InputError(str(error)) from None


def read_sweep(path):
    """The DataFrame of a sweep's Parquet file, as sweep() returned it."""
    from ._sweep_store import read

    return read(_text("path", path))


def catalog(kind: str, as_json: bool = False):
    """The entries of one kind of the catalog, "machines", "workloads", "policies" or "programs",
    as a list of dicts in the catalog's order (each kind's keys are those of list_machines() and
    the others); as_json: the engine's JSON text instead, what `ampsched list KIND --json` prints.
    An unknown kind raises InputError."""
    text = _require_core().list_catalog(_text("kind", kind))
    return text if _flag("as_json", as_json) else json.loads(text)


def _catalog(kind: str):
    import pandas as pd

    return pd.DataFrame(catalog(kind))


def list_machines():
    """Catalog machines: name, description, source, cores, core_types."""
    return _catalog("machines")


def list_workloads():
    """Catalog workloads: name, description, source, apps, threads."""
    return _catalog("workloads")


def list_policies():
    """Policies: name, description, source, options (name -> default), option_kinds,
    option_docs, needs (the signals it reads beyond thread states and CPU time: counters, locks,
    spin, hints, simulator), needs_text, live (where the live agent can run it)."""
    return _catalog("policies")


def list_programs():
    """Catalog programs (the apps workloads are made of): name, description, source."""
    return _catalog("programs")


def noc_traffic(
    machine,
    injection_rate: float,
    cycles: int = 100_000,
    seed: int = None,
    pattern: str = "uniform",
    warmup: int = None,
    packet_flits: int = None,
) -> dict:
    """Synthetic traffic on `machine`'s network alone (its `[interconnect]`; a configuration
    such as "noc-mesh-64:arbitration=ocor" sets its options): every node offers `injection_rate`
    flits per cycle in packets of `packet_flits` (default: a cache line's) to uniformly random
    destinations ("uniform", the one pattern) for `warmup` cycles (default: a tenth of `cycles`,
    at least 1,000), then `cycles` more are measured. Returns a dict: machine, pattern,
    injection_rate, offered and accepted (flits per node per cycle over the measured cycles),
    mean_latency (cycles, injection to tail arrival, source queueing included), packets
    (delivered while measuring), bisection_bound (4 / k, the uniform-random throughput bound of a
    k-wide mesh) and zero_load_latency (at the mean uniform distance). A list of such dicts is
    the latency-throughput curve (docs/noc.md)."""
    core = _require_core()

    def whole(name, value, allow_none):
        if value is None and allow_none:
            return None
        if not _is_int(value) or value < 0 or value >= 2**64:
            raise core.InputError(f"noc_traffic: {name}: must be a whole number, got {_shown(value)}")
        return value

    cycles = whole("cycles", cycles, False)
    warmup = whole("warmup", warmup, True)
    packet_flits = whole("packet_flits", packet_flits, True)
    if packet_flits is not None and packet_flits > 65535:
        raise core.InputError(f"noc_traffic: packet_flits: must be from 1 to 1024, got {packet_flits}")
    row = json.loads(
        core.noc_traffic(
            _text("machine", machine),
            _number("injection_rate", injection_rate),
            cycles,
            warmup,
            _seed(seed),
            _text("pattern", pattern),
            packet_flits,
        )
    )
    return {"machine": machine, "pattern": pattern, "injection_rate": float(injection_rate), **row}


# The suite the Sáez thesis's ch. 4 estimates SFs for (its Fig. 4.1), `sf_estimation_error`'s default.
SF_ESTIMATION_SUITE = "SPEC CPU2000"


def sf_estimation_error(machine: str, programs=None, base_cpi: float = 1.5):
    """HASS-S's static speedup-factor estimate against the observed SF, per catalog program on
    `machine` (the Sáez thesis's Fig. 4.1). The estimate is the one `hass-s:base_cpi=BASE_CPI`
    makes: the program's signature (LLC misses per instruction at each LLC size, as an offline
    profiling run with exact counters measures them) in the thesis's model (§4.1.3: a fixed base
    CPI at the core's clock plus misses x the machine's one memory latency), never the engine's
    model. The observed SF is the program's instruction rate alone on a machine of the fastest
    core type over alone on one of the slowest (the offline profiling runs `static-ipc-driven`
    reads). programs: catalog program names (default: every program of SPEC CPU2000, the
    thesis's suite). One row per program and thread group: program, group, cpi (the program's
    true mean CPI, which the estimate does not read), mpki_fast, mpki_slow (its signature at the
    fastest and slowest types' LLC sizes), estimated_sf, observed_sf, error (estimated -
    observed) and relative_error (error / observed)."""
    import tempfile

    import pandas as pd

    core = _require_core()
    known = list_programs()
    if programs is None:
        programs = list(known[known["description"] == SF_ESTIMATION_SUITE]["name"])
    programs = [_text("programs", p) for p in _list("programs", programs)]
    unknown = sorted(set(programs) - set(known["name"]))
    if unknown:
        raise core.InputError(f"programs: unknown catalog program(s) {', '.join(unknown)} (see ampsched list programs)")
    lines = [
        'name = "sf-estimation"',
        'description = "each program alone, for its SF estimate"',
        'source = "generated"',
    ]
    for p in programs:
        lines += ["[[app]]", f"name = {json.dumps(p)}", f"program = {json.dumps(p)}"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sf-estimation.toml")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        rows = json.loads(core.sf_estimation(_text("machine", machine), path, _number("base_cpi", base_cpi)))
    df = pd.DataFrame(
        rows, columns=["app", "group", "program", "cpi", "mpki_fast", "mpki_slow", "estimated_sf", "observed_sf"]
    )
    df = df.drop(columns="app")
    df["error"] = df["estimated_sf"] - df["observed_sf"]
    df["relative_error"] = df["error"] / df["observed_sf"]
    return df


# ---- live: the machine the package runs on, and the agent


def topology(cores: str = None, emulate: str = None, name: str = "detected") -> dict:
    """This machine's topology as the live agent sees it (what `ampsched topology --json` prints,
    with machine_toml): source (where the core types come from), symmetric, core_types (name,
    cpus, count, capacity on Linux's scale of 1024, max_freq_khz, smt: hardware threads per
    core, docs/smt.md), cpus (each CPU's core type, max_freq_khz and llc), llcs (size_kb, cpus),
    notes, and machine_toml, a machine file for the simulator named `name` (what `ampsched
    topology --save` writes). cores: name the core types
    yourself, fastest first ("big=0-3,small=4-7[:SPEED]"); emulate: the topology
    `agent(emulate=...)` makes ("small=1:0.5"). Bad specs raise InputError."""
    core = _require_core()
    specs = {
        key: None if value is None else _text(key, value) for key, value in (("cores", cores), ("emulate", emulate))
    }
    return json.loads(core.topology(**specs, name=_text("name", name)))


def agent(
    policy,
    command=None,
    pids=None,
    interval_ms: float = None,
    emulate: str = None,
    emulate_period_ms: float = None,
    cores: str = None,
    machine=None,
    locks: bool = True,
    status: bool = True,
    seed: int = None,
    until_tree_exits: bool = False,
    runtime_threads: str = None,
    decide_limit_ms: float = None,
    trace=None,
) -> dict:
    """Run a policy live on real threads (Linux; `ampsched agent`): launch `command` (a list, the
    program and its arguments) or attach to the running processes `pids` (one or the other),
    follow their threads and child processes and apply the policy's placements with
    sched_setaffinity until the command exits. Every affinity is restored when the agent ends.
    Returns the agent's report as a dict (what `ampsched agent --json` prints); the command's exit
    status is in `report["target"]["status"]`.

    policy: a spec, or an ampsched.Policy object. interval_ms: the sampling interval (None:
    defaults()["agent_interval_ms"]). emulate: make CPUs slow by cycle stealing, "small=1:0.5"
    (needs root), with the period emulate_period_ms. cores: name the core types yourself,
    "big=0-3,small=4-7[:SPEED]"; machine: a machine file or catalog name whose core types list
    their `cpus`. locks: inject the lock-insight preload library into the command. status: the
    live status line on stderr (when it is a terminal). seed: the seed the policy sees.
    until_tree_exits: go on until every process the command started has exited.
    runtime_threads: comma-separated globs on thread names marking a managed runtime's helper
    threads. decide_limit_ms: how long a Python policy's decide may run. None: defaults().
    trace: a file for what ran where, sampled at each interval, in the simulator's trace format
    (`ampsched run --trace`; it replaces an existing file, never a symlink). The report's "notes"
    say what the user should know, such as a machine of one core type leaving the policy nothing
    to do (`ampsched agent` prints them on stderr at the end).

    Bad input raises InputError; a failure under the agent (its affinities restored) RuntimeError.
    """
    core = _require_core()
    d = defaults()
    command = [_text("command", arg) for arg in _list("command", [] if command is None else command)]
    pids = _list("pids", [] if pids is None else pids)
    for pid in pids:
        if not _is_int(pid) or not 0 < pid < 2**31:
            raise core.InputError(f"pids: {_shown(pid)} is not a process id")
    label, policy_object = _resolve_policy(policy)
    specs = {
        key: None if value is None else _text(key, value)
        for key, value in (
            ("emulate", emulate),
            ("cores", cores),
            ("machine", machine),
            ("runtime_threads", runtime_threads),
            ("trace", trace),
        )
    }
    numbers = {
        key: _number(key, d[default] if value is None else value)
        for key, value, default in (
            ("interval_ms", interval_ms, "agent_interval_ms"),
            ("emulate_period_ms", emulate_period_ms, "emulate_period_ms"),
            ("decide_limit_ms", decide_limit_ms, "decide_limit_ms"),
        )
    }
    text = core.agent(
        _text("policy", label),
        command,
        pids,
        locks=_flag("locks", locks),
        status=_flag("status", status),
        policy_object=policy_object,
        seed=_seed(seed),
        until_tree_exits=_flag("until_tree_exits", until_tree_exits),
        **specs,
        **numbers,
    )
    return json.loads(text)


class AgentComparison:
    """Live runs of one command under several policies (`agent_compare`).

    runs      one row per run, in the order they ran: run, round, policy, wall_s,
              cpu_<type>_s per core type (the target threads' CPU time there), exit_code,
              signal, decisions, migrations, samples, report (its file, with output=DIR).
    summary   one row per policy, in the order given: runs, failed (runs whose command did
              not exit 0), and for wall_s and each cpu_<type>_s its mean, sd (the sample
              standard deviation; NaN for one run), min and max.
    reports   every run's agent report (dict), in run order.
    raw       {"runs": [...], "summary": [...]} as plain data (what `--json` prints).
    """

    def __init__(self, rows: list, summary: list, reports: list):
        self.raw = {"runs": rows, "summary": summary}
        self.reports = reports

    @functools.cached_property
    def runs(self):
        import pandas as pd

        return pd.DataFrame(self.raw["runs"])

    @functools.cached_property
    def summary(self):
        import pandas as pd

        return pd.DataFrame(self.raw["summary"]).astype({k: float for k in self._stats()})

    def _stats(self):
        return [k for k in (self.raw["summary"][0] if self.raw["summary"] else {}) if k.endswith(("_sd", "_mean"))]

    def __repr__(self):
        return f"<ampsched.AgentComparison {len(self.raw['runs'])} runs of {len(self.raw['summary'])} policies>"


def agent_compare(
    policies,
    command,
    repeat: int = _agent_compare.DEFAULT_REPEAT,
    output=None,
    force: bool = False,
    on_run=None,
    **options,
) -> AgentComparison:
    """Run `command` live `repeat` times under each policy (`ampsched agent --policies a,b
    --repeat N -- CMD`), each run one `agent(policy, command, **options)` call. The runs are
    interleaved: round r (from 0) runs every policy once, in the order given rotated left by r,
    so that drift over the comparison falls on every policy alike.

    policies: a list of specs or Policy objects, or "a,b,c". options: agent()'s keywords
    (interval_ms, emulate, cores, machine, locks, status, seed, ...; not pids: a comparison
    launches its command). output: a directory for every run's JSON report, named
    runNNN-roundR-POLICY.json, written as each run ends; it is made if missing, and report
    files already there are refused before anything runs unless `force`. on_run: called with
    (row, report) after each run (the CLI's progress line).

    Returns an AgentComparison (runs and summary DataFrames, every report). Bad input raises
    InputError; a failure under the agent RuntimeError, with the reports of the runs before it
    already written.
    """
    core = _require_core()
    if isinstance(policies, str):
        policies = split_policies(policies)
    policies = _list("policies", policies)
    if not policies:
        raise core.InputError("policies: give at least one policy")
    labels = [_resolve_policy(p)[0] for p in policies]
    twice = [label for i, label in enumerate(labels) if label in labels[:i]]
    if twice:
        raise core.InputError(f"policies: {twice[0]} given twice")
    if not _is_int(repeat) or repeat < 1:
        raise core.InputError(f"repeat: must be a whole number of at least 1, got {_shown(repeat)}")
    if "pids" in options:
        raise core.InputError("pids: a comparison launches its command; it cannot attach to processes")
    command = [_text("command", arg) for arg in _list("command", command)]
    if not command:
        raise core.InputError("command: a comparison needs a command to launch")
    order = _agent_compare.schedule(policies, repeat)
    names = [_agent_compare.report_name(i, r, labels[p]) for i, (r, p) in enumerate(order)]
    if output is not None:
        output = _text("output", output)
        if os.path.lexists(output) and not os.path.isdir(output):
            raise core.InputError(f"output: {output} exists and is not a directory")
        there = _agent_compare.existing_reports(output, names) if os.path.isdir(output) else []
        if there and not _flag("force", force):
            raise core.InputError(
                f"output: {os.path.join(output, there[0])} exists ({len(there)} of this comparison's "
                "report files do): give another directory, or force to replace them"
            )
        os.makedirs(output, exist_ok=True)
    rows, reports = [], []
    for i, (r, p) in enumerate(order):
        report = agent(policies[p], command, **options)
        path = None
        if output is not None:
            path = os.path.join(output, names[i])
            write_atomically(path, json.dumps(report, indent=1) + "\n", option="output")
        row = _agent_compare.run_row(i, r, labels[p], report, path)
        rows.append(row)
        reports.append(report)
        if on_run is not None:
            on_run(row, report)
    return AgentComparison(rows, _agent_compare.summarize(rows, labels), reports)


def record(
    command=None,
    pid=None,
    output=None,
    force: bool = False,
    policy=_record.DEFAULT_POLICY,
    interval_ms: float = None,
    emulate: str = None,
    cores: str = None,
    machine=None,
    seed: int = None,
    keep_command: bool = False,
    max_phases: int = None,
    raw=None,
    accept_partial: bool = False,
    from_raw=None,
    status: bool = True,
) -> Recorded:
    """Record a real program with the live agent and convert the run into a workload file the
    simulator replays (`ampsched record`, docs/record.md): launch `command` (a list, the program
    and its arguments) or attach to the running process `pid`, under `policy` (default
    "oblivious"), and turn what the agent and the preload library saw (per thread: its creation,
    CPU time, blocking and lock waits, its exit; barriers inferred where threads wait and resume
    together) into phases. Or, with `from_raw`, convert a raw recording written earlier by `raw`
    without running anything.

    output: the workload file to write (a new file; an existing one only with `force`; never a
    symlink or a FIFO), written whole or not at all; None writes nothing (the text is returned).
    raw: a file for the raw recording (JSON, what was measured before any inference), written
    before the conversion, by the same rules. interval_ms, emulate, cores, machine, seed: as for
    `agent` (the emulation's period is the agent's default). keep_command: keep the command line in the file (privacy:
    by default no argument or environment is kept). max_phases: the file's size bound, in
    phases over all threads (the converter's default when None); past it, phases are merged
    into repeats and the summary states the error that cost. accept_partial: write a partial
    recording (the agent stopped early, events lost), its file marked partial; by default a
    partial recording is refused. status: the agent's live status line on stderr.

    Returns a Recorded (toml, summary, raw, report, partial, output). Bad input, a recording that
    cannot be made (no permission, a command that fails at once, no threads seen) or a partial
    one not accepted raise InputError; a failure under the agent RuntimeError.
    """
    core = _require_core()
    d = defaults()
    if (command is not None) + (pid is not None) + (from_raw is not None) != 1:
        raise core.InputError("record: give one of a command, a pid or a raw recording (from_raw)")
    targets = []
    for option, path in (("output", output), ("raw", raw)):
        if path is not None:
            path = _files_check_new(option, path, force)
            if path in targets:
                raise core.InputError(f"{option}: {path}: the same file as the other output")
            targets.append(path)
        if option == "output":
            output = path
        else:
            raw = path
    label, policy_object = _resolve_policy(policy)
    if policy_object is not None:
        raise core.InputError(
            f"policy: {label}: a recording runs under a built-in policy (a Python policy is not replayable)"
        )
    report = None
    if from_raw is not None:
        raw_text = _record.load_raw(_text("from_raw", from_raw))
    else:
        command = [_text("command", arg) for arg in _list("command", [] if command is None else command)]
        if pid is not None and (not _is_int(pid) or not 0 < pid < 2**31):
            raise core.InputError(f"pid: {_shown(pid)} is not a process id")
        if command == [] and pid is None:
            raise core.InputError("command: give the program to record and its arguments")
        specs = {
            key: None if value is None else _text(key, value)
            for key, value in (("emulate", emulate), ("cores", cores), ("machine", machine))
        }
        raw_text, report = core.record(
            command,
            [] if pid is None else [pid],
            policy=_text("policy", label),
            interval_ms=_number("interval_ms", d["agent_interval_ms"] if interval_ms is None else interval_ms),
            seed=_seed(seed),
            keep_command=_flag("keep_command", keep_command),
            status=_flag("status", status),
            **specs,
        )
        failed = _record.failed_at_once(json.loads(raw_text))
        if failed is not None:
            raise core.InputError(f"record: {command[0] if command else f'pid {pid}'}: {failed}")
    if raw is not None:
        write_atomically(raw, raw_text, option="raw")
    partial = _record.partial_reason(json.loads(raw_text))
    if partial is not None and not _flag("accept_partial", accept_partial):
        kept = f"; the raw recording is in {raw}" if raw is not None else ""
        raise core.InputError(
            f"record: the recording is partial ({partial}): no workload written (accept_partial / "
            f"--accept-partial writes it, marked partial){kept}"
        )
    options = {} if max_phases is None else {"max_phases": _whole("max_phases", max_phases)}
    toml, summary_text = core.record_convert(
        raw_text,
        name=_record.default_name(output),
        accept_lost_events=partial is not None,
        **options,
    )
    _check_recorded(core, toml, json.loads(raw_text).get("machine_toml"), label)
    if output is not None:
        write_atomically(output, toml, option="output")
    return Recorded(toml, json.loads(summary_text), raw_text, report, partial, output)


def _check_recorded(core, toml: str, machine_toml, policy: str) -> None:
    """The converted workload read as `ampsched run` reads it, on the recording's machine under
    its policy, before it is written: a file the simulator would refuse is never written as a
    recording (a converter's error, said as one)."""
    import tempfile

    if not machine_toml:
        return
    with tempfile.TemporaryDirectory(prefix="ampsched-record-") as folder:
        paths = [os.path.join(folder, name) for name in ("machine.toml", "workload.toml")]
        for path, text in zip(paths, (machine_toml, toml)):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        try:
            core.check_runs(*paths, [policy])
        except core.InputError as error:
            message = str(error).replace(paths[1], "the converted workload").replace(paths[0], "the recorded machine")
            raise core.InputError(f"record: the converted workload does not read back: {message}") from None


def _whole(name: str, value) -> int:
    if not _is_int(value) or value < 1:
        raise _require_core().InputError(f"{name}: must be a whole number of at least 1, got {_shown(value)}")
    return value


def _files_check_new(option: str, path, force) -> str:
    """`path` checked as an output (never a symlink, a FIFO, a directory: _files.check_output),
    and refused if it exists unless `force`: a recording is a live run, made once."""
    from ._files import check_output

    path = check_output(option, path)
    if os.path.lexists(path) and not _flag("force", force):
        raise _require_core().InputError(f"{option}: {path} exists: give another name, or force to replace it")
    return path


def __getattr__(name):
    # `ampsched.fairness` (Kim & Huh's share model) imports pandas, which `import ampsched` does
    # not pay for (the CLI never needs it): the submodule is loaded when first named.
    if name == "fairness":
        return importlib.import_module(__name__ + ".fairness")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
