"""`ampsched sweep`: many runs over a grid machines x workloads x policies x seeds, one table out.

    grid ──> expand + validate ──> batches on a backend ──> part files ──> FILE.parquet
                                   (local processes, Ray)

A sweep file (TOML) gives the same grid keys as the command line, the settings, and
[[override]] tables that change the settings of the runs they match, or skip them (see
load_file). Every row records the settings it ran with (slice_ms, max_sim_s, max_events), so a
row is re-runnable alone: --resume keeps a stored row only if it succeeded with the slice the
grid now asks for, and --verify re-runs a sample with each row's own settings.

Batches are sized as the sweep goes to about BATCH_SECONDS of work each (`Batcher`): many
short runs then cost one part file per second of work, not per run, and long runs go one at a
time. How the rows are stored, and why a kill loses only the batches in flight: _sweep_store.
"""

import functools
import json
import math
import os
import shutil
import stat
import sys
import time

from ._sweep_store import (
    KEYS,
    PATHS,
    SETTINGS,
    fixed_types,
    frame,
    load,
    merged,
    part_files,
    parts_dir,
    read_parts,
    rows_table,
    sort_key,
    stored_table,
    write_parquet,
    write_part,
)

GRID_OPTIONS = ["machines", "workloads", "policies", "seeds"]  # the grid's axes, in KEYS order
# The largest sweep file read: as for machine and workload files (the engine's MAX_INPUT_BYTES),
# so that a wrong path (/dev/zero, a log) is refused at once.
MAX_SWEEP_FILE_BYTES = 16 << 20
# Worker processes at most per CPU on this machine: more only queue on the CPUs, and a typo
# (--jobs 100000) would fork thousands of processes.
MAX_JOBS_PER_CPU = 8
MAX_RUNS = 10_000_000  # more needs --yes (CLI) or max_runs=None (Python): a typo should not start a week of runs


def _error(message):
    # InputError is a ValueError (also its stand-in without the engine, when only the parsing of
    # seeds works), so that the CLI's argument types can use parse_seeds.
    from . import InputError

    return InputError(message)


def _names(option: str, value) -> list:
    """A list from "a,b" or an iterable of strings, without blanks or repeats."""
    if not isinstance(value, (str, list, tuple)):
        raise _error(f'{option}: expected a list of names or an "a,b" string, got {type(value).__name__}')
    items = value.split(",") if isinstance(value, str) else list(value)
    out = []
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise _error(f"{option}: expected names, got {type(item).__name__}")
        item = os.fspath(item).strip()
        if item:
            out.append(item)
    out = list(dict.fromkeys(out))  # a repeat would be a second run with the same grid key
    if not out:
        raise _error(f"{option}: empty: the grid would have no runs")
    return out


def parse_seeds(text: str) -> list:
    """Seeds from "1-5", "7" or "1,3,10-12" (ranges inclusive, ascending)."""
    seeds = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        low, dash, high = part.partition("-")
        ends = [_seed_number(low, part)] + ([_seed_number(high, part)] if dash else [])
        if ends[-1] < ends[0]:
            raise _error(f"seeds: the range {part} is empty (write it low-high)")
        # Counted before the list is built: a typo such as 1-1000000000 must not fill the memory.
        if len(seeds) + ends[-1] - ends[0] + 1 > MAX_RUNS:
            from . import _shown

            raise _error(f"seeds: over {MAX_RUNS:,} seeds in {_shown(text)}")
        seeds.extend(range(ends[0], ends[-1] + 1))
    return _seed_list(seeds)


def _seed_number(text: str, part: str) -> int:
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or int(text) >= 2**64:
        raise _error(f"seeds: {part!r}: a seed is a whole number from 0 to 2^64-1")
    return int(text)


def _seed_list(seeds) -> list:
    """Seeds from an int, a "1-5,7" string, or a list of ints and such strings."""
    if isinstance(seeds, str):
        return parse_seeds(seeds)
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        seeds = [seeds]
    if not isinstance(seeds, (list, tuple)):
        raise _error(
            f'seeds: expected a whole number, a string such as "1-5" or a list of them, got {type(seeds).__name__}'
        )
    out = []
    for seed in seeds:
        if isinstance(seed, str):
            out.extend(parse_seeds(seed))
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            from . import _shown

            raise _error(f"seeds: a seed is a whole number from 0 to 2^64-1, got {_shown(seed)}")
        else:
            out.append(seed)
        if len(out) > MAX_RUNS:
            raise _error(f"seeds: over {MAX_RUNS:,} seeds")
    out = list(dict.fromkeys(out))  # without repeats, in the order given
    if not out:
        raise _error("seeds: empty: the grid would have no runs")
    return out


GRID_VALUES = "|"  # between a policy option's values in a grid: "rr:threshold_ms=25|50"


def expand_policies(specs: list) -> list:
    """The specs with every option grid expanded ("rr:threshold_ms=25|50:quantum_ms=5|10" is
    four specs), in a fixed order: the specs as given, and within a grid the product of its
    options' values with the last option varying fastest (as nested loops written in the
    spec's order). A Python policy's spec is left as it is."""
    import itertools

    from . import _shown
    from .policy import is_file_spec

    out = []
    for spec in specs:
        if GRID_VALUES not in spec or is_file_spec(spec):
            out.append(spec)
            continue
        name, *options = spec.split(":")
        choices = []
        for option in options:
            key, equals, values = option.partition("=")
            values = [v.strip() for v in values.split(GRID_VALUES)]
            if not equals or not key.strip() or not all(values):
                raise _error(
                    f"policies: {_shown(spec)}: {_shown(option)}: an option grid is key=value{GRID_VALUES}"
                    f"value{GRID_VALUES}..., without empty values"
                )
            choices.append([f"{key.strip()}={v}" for v in values])
        out.extend(":".join([name.strip(), *combo]) for combo in itertools.product(*choices))
    return list(dict.fromkeys(out))


def _axis(option: str, value) -> list:
    """One axis of a grid (or of an override's match) as a list of its values."""
    if option == "seeds":
        return _seed_list(value)
    names = _names(option, value)
    return expand_policies(names) if option == "policies" else names


def grid_text(axes: dict, runs: int) -> str:
    """What a sweep says before running: each axis's size and the runs they make."""
    words = {"machines": "machine", "workloads": "workload", "policies": "policy variant", "seeds": "seed"}
    sizes = [f"{len(axes[o])} {words[o]}{'' if len(axes[o]) == 1 else 's'}" for o in GRID_OPTIONS]
    product = math.prod(len(axes[o]) for o in GRID_OPTIONS)
    skipped = f" ({product - runs:,} skipped by overrides: {runs:,} runs)" if runs != product else ""
    return f"{' × '.join(sizes)} = {product:,} runs{skipped}"


def _check_names(machines, workloads, policies, where) -> None:
    """Unknown names fail here, before any run: a name must be in the catalog or an existing
    file, a registered policy's options must be among its options; then the engine checks
    every machine and workload pair as a run would (the files' contents, each registered
    policy's options and what it needs), so that a typo never fails every run of a sweep."""
    from . import _require_core, _shown
    from .policy import is_file_spec, resolve

    core = _require_core()
    catalog = {
        kind: {e["name"]: e for e in json.loads(core.list_catalog(kind))}
        for kind in ("machines", "workloads", "policies")
    }
    for option, kind, names in (("machines", "machines", machines), ("workloads", "workloads", workloads)):
        for name in names:
            base = machine_base(name) if kind == "machines" else name
            built = kind == "workloads" and (is_mix(name) or is_task_options(name))
            if base not in catalog[kind] and not os.path.isfile(base) and not built:
                raise _error(
                    f"{where[option]}{option}: {_shown(name)} is neither a catalog {kind[:-1]} nor a file "
                    f"(see `ampsched list {kind}`)"
                )
    for spec in policies:
        if is_file_spec(spec):
            try:
                resolve(spec)  # loads the file and makes the class once: its errors are one line
            except ValueError as error:
                raise _error(f"{where['policies']}{error}") from None
            continue
        name, *options = spec.split(":")
        entry = catalog["policies"].get(name.strip())
        if entry is None:
            raise _error(
                f"{where['policies']}policies: unknown policy {_shown(name.strip())} (see `ampsched list policies`)"
            )
        known = entry.get("options") or {}
        for option in options:
            key = option.partition("=")[0].strip()
            # `os=` is taken by every policy that leaves placement to the OS, besides its listed
            # options; the engine's check below says where it is refused.
            if key not in known and key != "os":
                # The engine's wording (ampsched-policy's Options::new), so that run, compare and sweep agree.
                takes = f"takes: {', '.join(known)}" if known else "takes no options"
                raise _error(
                    f"{where['policies']}policies: {_shown(spec)}: unknown option {_shown(key)} ({name.strip()} {takes})"
                )
    registered = [spec for spec in policies if not is_file_spec(spec)]
    mixes = [w for w in workloads if is_mix(w)]
    for machine in machines:
        try:
            if mixes:  # the machine and the catalog read once for all of them
                core.check_mixes(machine, mixes, registered)
            for workload in workloads:
                if not is_mix(workload):
                    core.check_runs(machine, workload, registered)
        except core.InputError as error:
            raise _error(" ".join(str(error).split("\n"))) from None


def expand(
    machines, workloads, policies, seeds, settings: dict, overrides=(), max_runs=MAX_RUNS, sources=None, announce=None
) -> list:
    """The grid's runs as (machine, workload, policy, seed, settings) tuples, after validating
    it: `settings` are the sweep's (engine keywords), changed per run by `overrides` ((label,
    table, reference axes or None) triples, see load_file; later ones win) and checked by the
    engine's own rules before any run. Policy option grids are expanded (expand_policies).
    `sources` prefixes an axis's errors with where it was given (a sweep file). `announce`, if
    given, is called with grid_text once the grid is valid."""
    where = {option: (sources or {}).get(option, "") for option in GRID_OPTIONS}
    axes = {}
    for option, value in zip(GRID_OPTIONS, (machines, workloads, policies, seeds)):
        try:
            axes[option] = _axis(option, value)
        except ValueError as error:
            raise _error(f"{where[option]}{error}") from None
    machines, workloads, policies, seeds = (axes[o] for o in GRID_OPTIONS)
    overrides = [_override(label, o, _axes(reference, axes)) for label, o, reference in overrides or ()]
    count = len(machines) * len(workloads) * len(policies) * len(seeds)
    if max_runs is not None and count > max_runs:
        raise _error(f"the grid has {count:,} runs, over {max_runs:,}: confirm with --yes (Python: max_runs=None)")
    _check_names(machines, workloads, policies, where)
    _check_settings((sources or {}).get("settings", ""), settings)
    for where, match, changes in overrides:
        if changes:
            _check_settings(where, dict(settings, **changes))
    runs = []
    for key in ((m, w, p, s) for m in machines for w in workloads for p in policies for s in seeds):
        run_settings, skipped = settings, False  # the sweep's dict, shared until an override changes it
        for _, match, changes in overrides:
            if all(key[i] in match[i] for i in match):
                if changes is None:
                    skipped = True  # whatever other overrides say: `skip` means never run
                else:
                    run_settings = dict(run_settings, **changes)
        if not skipped:
            runs.append(key + (run_settings,))
    if not runs:
        skips = [where.rstrip(": ") for where, _, changes in overrides if changes is None]
        raise _error(f"{skips[0]}: the overrides skip every run ({', '.join(skips)}): the grid would have no runs")
    if announce is not None:
        announce(grid_text(axes, len(runs)))
    return runs


def _axes(reference, grid: dict) -> dict:
    """The axes an override's values are checked against: the grid's, or for a sweep file's
    override the file's own (the command line may narrow the grid, e.g. --seeds 1, without
    making the file's override for seed 2 a typo)."""
    if not reference:
        return grid
    return {
        option: _axis(option, reference[option]) if option in reference else grid[option] for option in GRID_OPTIONS
    }


def _override(label: str, override, axes: dict):
    """(where, {key index: allowed values}, setting changes or None for skip) of an override:
    a table of match keys (machines, workloads, policies, seeds: values from the grid) and
    either settings (slice_ms, max_sim_s, max_events, counter_noise) or `skip = true`."""
    from . import _settings

    where = f"{label}: "
    if not isinstance(override, dict):
        raise _error(f"{where}expected a table of keys, got {type(override).__name__}")
    unknown = [k for k in override if k not in GRID_OPTIONS + SETTINGS + ["skip"]]
    if unknown:
        raise _error(f"{where}unknown key {unknown[0]!r} (known: {', '.join(GRID_OPTIONS + SETTINGS + ['skip'])})")
    match = {}
    for index, option in enumerate(GRID_OPTIONS):
        if option not in override:
            continue
        try:
            values = _axis(option, override[option])  # a policy grid matches each of its variants
        except ValueError as error:
            raise _error(f"{where}{error}") from None
        for value in values:
            # A value outside the grid would match nothing: a typo must not pass silently.
            if value not in axes[option]:
                raise _error(f"{where}{option}: {value!r} is not in the grid's {option}")
        match[index] = set(values)
    skip = override.get("skip", False)
    if not isinstance(skip, bool):
        raise _error(f"{where}skip: must be true or false, got {skip!r}")
    changes = {k: override[k] for k in SETTINGS if k in override}
    if skip:
        if changes:
            raise _error(
                f"{where}skip = true and settings ({', '.join(changes)}) together: a skipped run has no settings"
            )
        return where, match, None
    if not changes:
        raise _error(f"{where}changes nothing: give settings ({', '.join(SETTINGS)}) or skip = true")
    try:
        typed = _settings(None, *(changes.get(k) for k in SETTINGS))
    except ValueError as error:
        raise _error(f"{where}{_as_file_key(str(error))}") from None
    return where, match, {k: typed[k] for k in changes}


def _check_settings(where: str, settings: dict) -> None:
    """The engine's range checks (those a run makes first), so that no run starts with a bad
    setting."""
    from . import _require_core, defaults

    full = {k: defaults()[k] for k in SETTINGS}
    full.update(settings)
    try:
        _require_core().check_settings(
            full["slice_ms"], full["max_sim_s"], int(full["max_events"]), full["counter_noise"]
        )
    except ValueError as error:
        message = _as_file_key(str(error)) if where else str(error)
        raise _error(f"{where}{message}") from None


def _as_file_key(message: str) -> str:
    """A setting's error as a file names it: the option "--slice-ms" is the key slice_ms there."""
    for key in SETTINGS:
        flag = "--" + key.replace("_", "-")
        if message.startswith(flag + ":"):
            return key + message[len(flag) :]
    return message


def load_file(path) -> dict:
    """The keywords of sweep() that a sweep file gives. The file (TOML):

    machines = ["2fc-2sc-amd", "my-machine.toml"]   # or "a,b"; paths as on the command line
    workloads = ["w1", "w2"]
    policies = ["rr", "busyfcs", "rr:threshold_ms=8|16"]   # a grid: expand_policies
    seeds = "1-5"                                    # or 7, or [1, 2, 3]
    slice_ms = 4                                     # optional: max_sim_s, max_events, counter_noise too
    output = "results.parquet"                       # optional

    [[override]]              # the runs it matches (every key given must match; none: all)
    workloads = ["w8"]
    max_sim_s = 1e8           # get these settings; later overrides win

    [[override]]
    machines = ["2fc-2sc-amd"]
    policies = ["busyfcs"]
    skip = true               # are not run, whatever the other overrides say
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib

    path = os.fspath(path)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block, /dev/zero fill the memory
            raise _error(f"{path}: not a regular file")
        with open(path, "rb") as f:
            raw = f.read(MAX_SWEEP_FILE_BYTES + 1)
    except OSError as error:
        raise _error(f"{path}: cannot read: {error.strerror or error}") from None
    if len(raw) > MAX_SWEEP_FILE_BYTES:
        raise _error(f"{path}: larger than {MAX_SWEEP_FILE_BYTES >> 20} MiB: not a sweep file?")
    try:
        # Editors on some systems start UTF-8 files with a byte-order mark, which TOML forbids.
        data = tomllib.loads(raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except UnicodeDecodeError as error:
        line = 1 + raw[: error.start].count(b"\n")
        raise _error(f"{path}: line {line}: not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise _error(f"{path}: not valid TOML: {error}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise _error(f"{path}: not valid TOML for a sweep file: arrays or tables nested too deep") from None
    known = GRID_OPTIONS + SETTINGS + ["output", "override"]
    for key in data:
        if key not in known:
            raise _error(f"{path}: unknown key {key!r} (known: {', '.join(known)})")
    for key in GRID_OPTIONS[:3]:
        if key in data and not isinstance(data[key], (str, list)):
            raise _error(f"{path}: {key}: expected a string or a list of strings, got {type(data[key]).__name__}")
    if "output" in data and not (isinstance(data["output"], str) and data["output"]):
        raise _error(f"{path}: output: expected a file name, got {data['output']!r}")
    overrides = data.pop("override", [])
    if not isinstance(overrides, list):
        raise _error(f"{path}: override: write each as an [[override]] table")
    data["overrides"] = overrides
    return data


# ---- running (in worker processes)

MIX_PREFIX = "mix:"  # a workload named by its programs (the engine's runner::mix): `mix:skip=1e9:instructions=1e8:a+b`


def machine_base(machine: str) -> str:
    """The machine a configuration names ("exynos5422" of "exynos5422:big=4:little=1", the
    engine's `catalog::split_config`): the catalog name or file checked before a run; the
    engine checks the online counts."""
    if os.path.isfile(machine) or ":" not in machine:
        return machine
    return machine.split(":", 1)[0].strip()


def is_mix(workload) -> bool:
    """Whether a workload argument is a mix of catalog programs (built by the engine, no file)."""
    return isinstance(workload, str) and workload.strip().startswith(MIX_PREFIX)


TASKS_PREFIX = "tasks:"  # a workload with the task runtime's options for the run (runner::task_options)


def is_task_options(workload) -> bool:
    """Whether a workload argument sets task-runtime options: `tasks:scheduler=cats:WORKLOAD`
    (docs/task-runtime.md); the engine checks it like any workload argument."""
    return isinstance(workload, str) and workload.strip().startswith(TASKS_PREFIX)


def batch_table(runs: list):
    """The table of a batch of runs and how many failed. Runs of mixes (`is_mix`) with a
    registered policy go to the engine's batch path (`_mix_table`), grouped by machine, policy,
    seed and settings: the machine and catalog are read once per group and the rows come back
    column by column, so that a mix costs its simulation, not its bookkeeping. Every other run
    goes through run_batch. The table is the one run_batch's rows give, value for value (tested)."""
    from .policy import is_file_spec

    groups, single = {}, []
    for run in runs:
        if is_mix(run[1]) and not is_file_spec(run[2]):
            key = (run[0], run[2], run[3], tuple(run[4][k] for k in SETTINGS))
            groups.setdefault(key, []).append(run)
        else:
            single.append(run)
    tables, failed = [], 0
    if single:
        rows = run_batch(single)
        failed += sum(1 for r in rows if r["error"] is not None)
        tables.append(rows_table(rows))
    for (machine, policy, seed, _), group in groups.items():
        table, errors = _mix_table(machine, policy, seed, group)
        failed += errors
        tables.append(table)
    return merged(tables), failed


def _mix_table(machine: str, policy: str, seed: int, runs: list):
    """The rows of runs of mixes on one machine with one policy, seed and settings, from one call
    of the engine's batch path (`run_mix_rows`), and how many failed."""
    import pyarrow as pa

    from . import _require_core

    core = _require_core()
    settings = runs[0][4]
    mixes = [run[1] for run in runs]
    try:
        out = json.loads(
            core.run_mix_rows(
                machine,
                mixes,
                policy,
                seed,
                settings["slice_ms"],
                settings["max_sim_s"],
                int(settings["max_events"]),
                settings["counter_noise"],
            )
        )
    except core.InputError as error:  # the machine or the catalog: every run of the group fails alike
        rows = [
            dict(_named(core, machine, mix), policy=policy, seed=seed, error=" ".join(str(error).split("\n")))
            for mix in mixes
        ]
        for row in rows:
            row.update((k, settings[k]) for k in SETTINGS)
        return rows_table(rows), len(rows)
    n = len(mixes)
    names = _named(core, machine, mixes[0])
    columns = {
        "machine": pa.array([names["machine"]] * n, pa.string()),
        PATHS["machine"]: pa.array([names[PATHS["machine"]]] * n, pa.string()),
        "workload": pa.array([m.strip() for m in mixes], pa.string()),
        PATHS["workload"]: pa.nulls(n, pa.string()),
        "policy": pa.array([policy] * n, pa.string()),
        "seed": pa.array([seed] * n, pa.uint64()),
        "error": pa.array(out["error"], pa.string()),
        "apps_json": pa.array(out["apps_json"], pa.string()),
    }
    for key in SETTINGS:
        columns[key] = pa.array([settings[key]] * n, fixed_types()[key])
    for key, values in out["columns"].items():
        if key not in columns:
            columns[key] = pa.array(values)
    failed = sum(1 for e in out["error"] if e is not None)
    return merged([pa.table(columns)]), failed


def run_batch(runs: list) -> list:
    """Rows for a batch of (machine, workload, policy, seed, settings) runs. A failing run gives
    a row with its error and no metrics, so that one bad combination does not stop the sweep."""
    from . import _require_core
    from .policy import resolve

    core = _require_core()
    rows = []
    named = {}
    for machine, workload, policy, seed, run_settings in runs:
        # A row names its machine and workload as compare does; one given as a file has its
        # path in its own column (`PATHS`), which with the spec as written is the run's key
        # for --resume.
        if (machine, workload) not in named:
            named[machine, workload] = _named(core, machine, workload)
        row = dict(named[machine, workload], policy=policy, seed=seed, error=None)
        row.update((k, run_settings[k]) for k in SETTINGS)
        try:
            label, policy_object = resolve(policy)
            scalars, apps = core.run_row(
                machine, workload, label, seed=seed, policy_object=policy_object, **run_settings
            )
        except KeyboardInterrupt:
            raise
        except core.InputError as error:
            rows.append(dict(row, error=" ".join(str(error).split("\n"))))
            continue
        except BaseException as error:  # a failing Python policy (SystemExit too), an engine failure: recorded
            rows.append(dict(row, error=" ".join(f"{type(error).__name__}: {error}".split("\n"))))
            continue
        row.update((k, v) for k, v in json.loads(scalars).items() if k not in row)
        row["apps_json"] = apps
        rows.append(row)
    return rows


def _named(core, machine: str, workload: str) -> dict:
    """The row columns naming a run's machine and workload: the names the engine gives them
    (those of compare's rows) and, for a file, its path (a catalog entry's is None)."""
    try:
        names = core.check_runs(machine, workload, [])
    except core.InputError:  # checked before the sweep: a file changed or gone since; its run fails too
        names = (machine, workload)
    out = {}
    for key, given, name in zip(("machine", "workload"), (machine, workload), names):
        out[key] = name
        base = machine_base(given) if key == "machine" else given
        built = is_mix(given) or is_task_options(given)
        out[PATHS[key]] = None if base in _catalog_names(key + "s") or built else given
    return out


@functools.lru_cache(maxsize=None)
def _catalog_names(kind: str) -> frozenset:
    from . import _require_core

    return frozenset(e["name"] for e in json.loads(_require_core().list_catalog(kind)))


# ---- the sweep


def sweep(*args, **kwargs):
    """Run every (machine, workload, policy, seed) of the grid; returns a DataFrame, one row
    per run: the grid keys, `error` (None, or why the run failed), the run's settings and the
    scalar metrics of `ampsched run --json`; df.attrs["apps"] has one row per run and app,
    df.attrs["sweep"] the statistics of run_sweep. Keywords: those of run_sweep."""
    table, stats = run_sweep(*args, **kwargs)
    df = frame(table)
    df.attrs["sweep"] = stats
    return df


def run_sweep(
    machines=None,
    workloads=None,
    policies=None,
    seeds=None,
    jobs=None,
    output=None,
    resume=False,
    slice_ms=None,
    max_sim_s=None,
    max_events=None,
    max_runs=MAX_RUNS,
    progress=None,
    file=None,
    overrides=None,
    backend="local",
    address=None,
    force=False,
    counter_noise=None,
    announce=None,
):
    """The sweep as a pyarrow Table (what FILE.parquet holds) and its statistics: runs made
    (`ran`), `failed`, kept from before (`skipped`), `seconds`, `output`. A sweep `file`
    gives defaults for every other keyword and its overrides come before `overrides`.
    An existing output is refused unless `resume` (add to it) or `force` (replace it: the old
    file stays until the new one replaces it, and an interrupted --force sweep resumes
    without it).
    backend: "local" (worker processes) or "ray" (ampsched.ray_backend; address: a running
    cluster, None: a local Ray instance for this sweep). counter_noise: every run's (a setting,
    as slice_ms). announce: called with grid_text once nothing refuses the sweep, before its
    first run."""
    from . import _settings, _shown, defaults
    from ._files import text_arg

    for name, value in (("resume", resume), ("force", force)):
        if not isinstance(value, bool):
            raise _error(f"{name}: must be True or False, got {_shown(value)}")
    if progress is not None and not isinstance(progress, bool):
        raise _error(f"progress: must be True, False or None, got {_shown(progress)}")
    if max_runs is not None and (isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 1):
        raise _error(f"max_runs: must be a whole number of at least 1, or None, got {_shown(max_runs)}")
    if overrides is not None and not isinstance(overrides, (list, tuple)):
        raise _error(f"overrides: expected a list of dicts, got {type(overrides).__name__}")
    if output is not None:
        output = text_arg("output", output)
    given = dict(
        machines=machines,
        workloads=workloads,
        policies=policies,
        seeds=seeds,
        slice_ms=slice_ms,
        max_sim_s=max_sim_s,
        max_events=max_events,
        counter_noise=counter_noise,
        output=output,
    )
    labelled = []
    sources = {}
    if file is not None:
        file = text_arg("file", file)
        spec = load_file(file)
        for key, value in spec.items():
            if key != "overrides" and given.get(key) is None:
                given[key] = value
                sources["settings" if key in SETTINGS else key] = f"{file}: "
        own_axes = {k: v for k, v in spec.items() if k in GRID_OPTIONS}
        labelled = [(f"{file}: override {i + 1}", o, own_axes) for i, o in enumerate(spec["overrides"])]
    labelled += [(f"overrides[{i}]", o, None) for i, o in enumerate(overrides or ())]
    for option in GRID_OPTIONS[:3]:
        if given[option] is None:
            raise _error(f"{option}: missing: give it{' (or in the sweep file)' if file else ''}")
    try:
        typed = _settings(None, *(given[k] for k in SETTINGS))
    except ValueError as error:
        where = sources.get("settings", "")
        raise _error(f"{where}{_as_file_key(str(error)) if where else error}") from None
    settings = {k: typed.get(k, defaults()[k]) for k in SETTINGS}
    grid = []

    def said():  # once nothing refuses the sweep (its backend made), before its first run
        if announce is not None:
            announce(grid[0])

    runs = expand(
        given["machines"],
        given["workloads"],
        given["policies"],
        defaults()["seed"] if given["seeds"] is None else given["seeds"],
        settings,
        labelled,
        max_runs,
        sources,
        grid.append,
    )
    jobs = check_jobs(jobs)
    check_backend(backend, address)
    if resume and force:
        raise _error("resume and force: --resume adds to the output, --force replaces it: give one")
    output = given["output"]
    if output is None:
        if resume or force:
            raise _error(f"{'resume' if resume else 'force'}: needs an output file")
        return _run(runs, [], None, [], backend, address, jobs, progress, said)
    output = os.fspath(output)
    rows = _check_output(output, file)
    with _OutputLock(output):
        parts = parts_dir(output)
        kept = []
        if resume:
            kept = _kept_rows(stored_table(output), {r[:4]: r[4] for r in runs})
        elif force:
            # What an earlier sweep left goes now; the old FILE stays until the new one
            # replaces it, marked as replaced so that --resume of this sweep ignores it.
            shutil.rmtree(parts, ignore_errors=True)
            os.makedirs(parts)
            open(os.path.join(parts, REPLACES_OUTPUT), "w").close()
        elif os.path.isdir(parts):
            raise _error(
                f"output: {parts} holds an interrupted sweep: finish it with --resume "
                f"(resume=True), or start again with --force (force=True)"
            )
        elif rows is not None:
            raise _error(
                f"output: {output} exists ({rows:,} rows from an earlier sweep): add this grid's runs "
                f"to it with --resume (resume=True), or replace it with --force (force=True)"
            )
        return _run(runs, kept, parts, part_files(parts), backend, address, jobs, progress, said)


def _run(runs, kept, parts, old_parts, backend, address, jobs, progress, said=lambda: None):
    """Runs what `kept` lacks and merges; with `parts` (an output), saves as it goes and writes
    the output. Returns run_sweep's table and statistics."""
    from .policy import is_file_spec

    kept_keys = {sort_key(r) for r in kept}
    todo = [r for r in runs if r[:4] not in kept_keys]
    started = time.monotonic()  # the backend's start-up (a pool, a Ray instance) counts as sweep time
    # Made only now, after every check, since the Ray backend may start a local Ray instance;
    # and before the parts directory, which would make the next attempt ask for --resume.
    # A Python policy runs in a worker process even for one job: its os._exit() or a crash
    # of its extension must end one batch with an error, not the sweep silently.
    runner = make_backend(backend, address, jobs, len(todo), isolate=any(is_file_spec(r[2]) for r in todo))
    said()
    try:
        if parts is not None:
            os.makedirs(parts, exist_ok=True)
        results = _execute(todo, runner, parts, progress)
    except WorkerDied as died:
        saved = (
            "the runs finished before it are saved: --resume continues"
            if parts is not None
            else "give --output to keep the runs that finish"
        )
        raise _error(f"sweep: {died}; {saved}") from None
    finally:
        runner.close()
    if parts is not None:
        new_parts = sorted(set(part_files(parts)) - set(old_parts))
        tables = [table for _, table in read_parts(new_parts)]
        lost = sum(r.count for r in results) - sum(t.num_rows for t in tables)
        if lost:  # damaged between their writing and now: the disk is failing
            raise _error(
                f"sweep: {lost} runs' part files were damaged after they were written; --resume runs them again"
            )
    else:
        tables = [r.table for r in results]
    table = merged([rows_table(kept)] + tables)
    output = None
    if parts is not None:
        output = parts[: -len(".parts")]
        write_parquet(table, output)
        shutil.rmtree(parts, ignore_errors=True)
    return table, {
        "ran": len(todo),
        "failed": sum(r.failed for r in results),
        "seconds": time.monotonic() - started,
        "skipped": len(runs) - len(todo),
        "output": output,
    }


def _check_output(output: str, file):
    """Refuses an output a sweep must not replace: the sweep writes a new file and renames it
    over the output, which would turn a device (/dev/null) or a FIFO into a regular file and
    replace a symlink, and would destroy a file that holds something else (the sweep file
    itself, a typo'd name). Returns the rows of an existing sweep file there, None if none."""
    from . import _shown
    from ._files import check_output

    if file is not None and os.path.exists(output) and os.path.samefile(output, file):
        raise _error(f"output: {_shown(output)} is the sweep file itself")
    check_output("output", output)
    rows = None
    if os.path.exists(output):
        try:
            rows = load(output).num_rows
        except ValueError as error:
            why = str(error).partition("not a sweep file")[2].strip()
            raise _error(
                f"output: {output} exists and is not a sweep file {why}: choose another name or delete it"
            ) from None
    parts = parts_dir(output)
    if os.path.lexists(parts) and (os.path.islink(parts) or not os.path.isdir(parts)):
        raise _error(f"output: {parts} exists and is not a sweep's parts directory")
    return rows


class _OutputLock:
    """An exclusive lock on FILE.lock for the sweep's life: two sweeps writing one output would
    mix their part files. flock, so a killed sweep's lock goes with it."""

    def __init__(self, output: str):
        self.path = f"{output}.lock"
        self.fd = None

    def __enter__(self):
        import fcntl

        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise _error(f"output: cannot create {self.path}: {error.strerror or error}") from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self.fd)
            raise _error(
                f"output: another sweep is writing {self.path[: -len('.lock')]} "
                f"(it holds {self.path}); wait for it, or stop it and --resume"
            ) from None
        return self

    def __exit__(self, *exc):
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)


RESULT_SETTINGS = ("slice_ms", "counter_noise")  # the settings a result depends on (not the budgets)
REPLACES_OUTPUT = "REPLACES_OUTPUT"  # in FILE.parts/: a --force sweep's parts, which replace FILE (_sweep_store)


def _kept_rows(stored, grid: dict) -> list:
    """The stored rows --resume keeps: one per grid key, reusable for the run the grid now asks
    for (`_reusable`). Rows of runs no longer in the grid are kept too: resuming with a smaller
    grid does not delete results."""
    kept = {}
    for row in stored.to_pylist():
        key = sort_key(row)
        if key in kept:
            continue
        if key not in grid or _reusable(row, grid[key]):
            kept[key] = row
    return list(kept.values())


def _reusable(row, settings: dict) -> bool:
    """Whether --resume keeps a stored row: it succeeded, with the slice and counter noise asked
    for now (RESULT_SETTINGS; a budget does not change a result that fit in it). A failed run is run again: its failure
    may have been a budget since raised, and a deterministic one costs one more failure."""
    return row.get("error") is None and all(row.get(k) == settings[k] for k in RESULT_SETTINGS)


class BatchResult:
    """What a worker sends back for a batch: counts and its time (for sizing the next
    batches), and the rows' table unless it wrote them to a part file itself."""

    __slots__ = ("count", "failed", "seconds", "table")

    def __init__(self, count, failed, seconds, table):
        self.count, self.failed, self.seconds, self.table = count, failed, seconds, table


def run_task(batch: list, parts=None) -> BatchResult:
    """The unit of work a backend runs: one batch, its rows written by the worker as a part
    file when there is an output (so the sweep's own process stays idle), else returned."""
    started = time.perf_counter()
    table, failed = batch_table(batch)
    count = table.num_rows
    if parts is not None:
        write_part(table, parts)
        table = None
    return BatchResult(count, failed, time.perf_counter() - started, table)


BATCH_SECONDS = 1.0  # work per batch: a part file per second costs ~0.1%; a kill loses ~1 s per worker
FIRST_BATCH = 4  # runs per batch until the first batch tells how long a run takes
MAX_BATCH = 4096  # runs per batch at most, whatever their speed: bounds a worker's memory


class Batcher:
    """The runs in batches of about BATCH_SECONDS of work, sized from the batches done so far;
    the last ones shrink so that all workers finish together. Batching never changes the
    output (see _sweep_store)."""

    def __init__(self, runs: list, workers: int):
        self.runs, self.workers, self.start = runs, workers, 0
        self.done_runs, self.done_seconds = 0, 0.0

    def __iter__(self):
        while self.start < len(self.runs):
            size = FIRST_BATCH
            if self.done_runs:
                size = round(BATCH_SECONDS * self.done_runs / max(self.done_seconds, 1e-9))
            remaining = len(self.runs) - self.start
            size = max(1, min(size, MAX_BATCH, math.ceil(remaining / (2 * self.workers))))
            yield self.runs[self.start : self.start + size]
            self.start += size

    def observe(self, result: BatchResult) -> None:
        self.done_runs += result.count
        self.done_seconds += result.seconds


def _execute(runs: list, backend, parts, progress) -> list:
    """Runs `runs` on the backend; returns the BatchResults."""
    from tqdm import tqdm

    import pyarrow  # noqa: F401  (here, so that forked workers have it loaded, not each its own import)

    bar = tqdm(
        total=len(runs),
        unit="run",
        file=sys.stderr,
        dynamic_ncols=True,
        disable=not (sys.stderr.isatty() if progress is None else progress),
    )
    batcher = Batcher(runs, backend.workers)
    # A worker writes its part file itself only where it shares this machine's disk; else (a
    # Ray cluster's nodes) it sends the table back and the part file is written here.
    remote = parts is not None and not backend.shares_disk
    task = functools.partial(run_task, parts=None if remote else parts)
    results = []
    try:
        for result in backend.run(task, batcher):
            if remote:
                write_part(result.table, parts)
                result.table = None
            batcher.observe(result)
            results.append(result)
            bar.update(result.count)
    finally:
        bar.close()
    return results


# ---- backends: where batches run. A backend has `workers` (how many batches run at once),
# `shares_disk` (whether its workers write to this machine's file system) and `run(task,
# batches)`, which calls the picklable `task` on each batch somewhere and yields the results
# as batches finish, in any order. It draws batches from the iterable only as workers free up,
# so that the Batcher sizes each one with what the finished ones taught it. `close()` frees
# what it holds; the sweep calls it also after an error.

BACKENDS = ("local", "ray")


def check_jobs(jobs):
    """jobs as given (None: the backend's default), or an error."""
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise _error(f"jobs: must be a whole number of at least 1, got {jobs!r}")
    return jobs


def check_backend(backend, address) -> None:
    # Before anything starts: a typo must not cost a Ray start-up.
    if backend not in BACKENDS:
        raise _error(f"backend: unknown backend {str(backend)[:256]!r} (one of: {', '.join(BACKENDS)})")
    if backend == "local" and address is not None:
        raise _error("address: only for the ray backend (--backend ray); the local backend runs on this machine")


def make_backend(backend, address, jobs, runs=None, isolate=False):
    """The backend for a sweep of `runs` runs (None: unknown); `isolate`: never run a batch in
    this process."""
    if backend == "ray":
        from .ray_backend import RayBackend  # Ray is an optional extra, imported only when asked for

        return RayBackend(address, jobs)
    return LocalBackend(jobs, runs, isolate)


class WorkerDied(Exception):
    """A backend's worker ended while running a batch (killed by a signal, out of memory, or a
    Python policy that ended its process): what the sweep reports in one line."""

    def __init__(self, batch: list, how: str = "a worker process died", exact: bool = True):
        first = batch[0]
        runs = f"the batch of {len(batch)} runs from" if len(batch) > 1 else "the run"
        other = "" if exact else " or a batch beside it"
        super().__init__(
            f"{how} while running {runs} {first[0]} {first[1]} {first[2]} seed {first[3]}{other} "
            f"(killed by a signal or out of memory, or a Python policy ended the process)"
        )


class LocalBackend:
    """Worker processes on this machine; one job runs the batches in this process."""

    shares_disk = True

    def __init__(self, jobs=None, runs=None, isolate=False):
        jobs = check_jobs(jobs)
        self.isolate = isolate
        cpus = os.cpu_count() or 1
        if jobs is not None and jobs > MAX_JOBS_PER_CPU * cpus:
            raise _error(
                f"jobs: at most {MAX_JOBS_PER_CPU * cpus} worker processes on this machine "
                f"({MAX_JOBS_PER_CPU} per CPU), got {jobs}"
            )
        # No more workers than runs: a process per run at most.
        self.workers = max(1, min(cpus if jobs is None else jobs, runs if runs is not None else math.inf))

    def close(self) -> None:
        pass  # the pool lives only inside run()

    def run(self, task, batches):
        batches = iter(batches)
        if self.workers == 1 and not self.isolate:
            for batch in batches:
                yield task(batch)
            return
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        with ProcessPoolExecutor(
            max_workers=self.workers, initializer=_exit_with_parent, initargs=(os.getpid(),)
        ) as pool:
            pending = {}
            try:
                while True:
                    # One batch queued behind each running one: a worker never waits for the
                    # main process, and the next batch is sized after the latest results.
                    while len(pending) < 2 * self.workers:
                        batch = next(batches, None)
                        if batch is None:
                            break
                        pending[pool.submit(task, batch)] = batch
                    if not pending:
                        return
                    complete, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in complete:
                        batch = pending.pop(future)
                        try:
                            result = future.result()
                        except BrokenProcessPool:
                            # Every pending batch fails alike; the first one done names the culprit
                            # as well as the pool can (it does not say which process died).
                            raise WorkerDied(batch, exact=len(pending) == 0) from None
                        yield result
            except BaseException:
                for future in pending:
                    future.cancel()
                raise


PARENT_POLL_S = 0.5  # how soon a worker notices that the sweep's process is gone


def _exit_with_parent(parent: int) -> None:
    """In each worker: exit when the sweep's process dies. A SIGKILLed sweep cannot stop its
    pool, whose workers would otherwise wait on its queue forever (holding its terminal's
    pipes); a thread, since a worker may be deep in a run (which releases the GIL)."""
    import threading

    def watch():
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="ampsched-parent-watch", daemon=True).start()


# ---- verify: the file's runs are reproducible

VERIFY_SAMPLE = 20  # runs re-run by default: enough to catch a changed model or a changed input file in seconds


def verify(path, sample=VERIFY_SAMPLE, jobs=None, progress=None):
    """Re-runs `sample` runs of a sweep file (spread evenly over its sorted rows, so the choice
    is the same every time and covers the whole grid) with each row's own settings, and
    compares every column bit for bit. Returns a DataFrame: the grid keys, `identical`, and
    `differences` (the columns that differ, "" when identical)."""
    import pandas as pd

    from . import _require_core, defaults

    path = os.fspath(path)
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
        raise _error(f"sample: must be a whole number of at least 1, got {sample!r}")
    rows = load(path).to_pylist()
    if not rows:
        raise _error(f"{path}: no rows to verify")
    keys = [sort_key(r) for r in rows]
    if len(set(keys)) < len(keys):
        twice = next(k for k in keys if keys.count(k) > 1)
        raise _error(f"{path}: the run {' '.join(map(str, twice))} has more than one row: not a file one sweep wrote")
    # A machine or workload given as a path is read again: from another directory it would be
    # missing, and every run would "differ" by its error.
    catalog = {
        kind: {e["name"] for e in json.loads(_require_core().list_catalog(kind))} for kind in ("machines", "workloads")
    }
    for row in rows:
        for key, kind, given in zip(("machine", "workload"), ("machines", "workloads"), sort_key(row)):
            base = machine_base(given) if kind == "machines" else given
            if base not in catalog[kind] and not os.path.isfile(base):
                raise _error(
                    f"{path}: the {key} file {given} of its runs is not there: verify from the "
                    f"directory the sweep ran in"
                )
    rows.sort(key=sort_key)
    picked = [rows[i * len(rows) // sample] for i in range(sample)] if sample < len(rows) else rows
    picked = list({sort_key(r): r for r in picked}.values())
    # A setting a file from before it existed lacks (null) is the engine's default, as its runs had.
    runs = [sort_key(r) + ({k: defaults()[k] if r[k] is None else r[k] for k in SETTINGS},) for r in picked]
    results = _execute(runs, LocalBackend(jobs, len(runs)), None, progress)
    fresh = {sort_key(r): r for result in results for r in result.table.to_pylist()}
    out = []
    for row in picked:
        key = sort_key(row)
        differences = _differences(row, fresh[key])
        out.append(dict(zip(KEYS, key), identical=not differences, differences=", ".join(differences)))
    return pd.DataFrame(out, columns=KEYS + ["identical", "differences"])


def _differences(stored: dict, fresh: dict) -> list:
    """Columns whose values differ; floats compared by their bits (NaN equals NaN)."""
    import struct

    def bits(value):
        return struct.pack("<d", value) if isinstance(value, float) else value

    columns = [k for k in fresh if k not in KEYS] + [k for k in stored if k not in fresh and k not in KEYS]
    return [k for k in columns if bits(stored.get(k)) != bits(fresh.get(k))]
