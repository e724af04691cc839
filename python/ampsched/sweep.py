"""`ampsched sweep`: many runs over a grid machines x workloads x policies x seeds, one table out.

    grid ──> expand + validate ──> batches on worker processes ──> part files ──> FILE.parquet

Storage, and why it survives SIGKILL: a Parquet file is readable only once its footer is
written, so a sweep never appends to the final file. Each finished batch becomes one small
Parquet file in `FILE.parquet.parts/`, written under a temporary name and renamed into place
(a rename is atomic), so a sweep killed at any instant leaves only whole part files (and maybe
a `.tmp` that is ignored): it loses the batches in flight, nothing else. At the end the parts
(and, on --resume, the rows FILE.parquet already had) are merged into FILE.parquet, sorted by
the grid keys, written in row groups with ParquetWriter to a temporary file renamed over
FILE.parquet; only then is the parts directory removed. A kill between the two leaves rows in
both places, which --resume deduplicates by grid key (the runs are deterministic, so the copies
are equal). Nothing in the data depends on time, job count or completion order, so the file's
bytes do not either.

Per-app results differ in shape between workloads, so each run's list of app dicts is kept as
JSON text in the column `apps_json`; the frame `sweep()` returns drops it and gives the long
per-app table in df.attrs["apps"], as compare() does.
"""

import json
import math
import os
import shutil
import sys
import tempfile
import time

KEYS = ["machine", "workload", "policy", "seed"]
MAX_RUNS = 10_000_000  # more needs --yes (CLI) or max_runs=None (Python): a typo should not start a week of runs
ROW_GROUP = 10_000  # rows per row group of the final file: readers can skip groups, memory stays bounded


def _error(message):
    # InputError is a ValueError; without the engine (only the parsing of seeds works then)
    # a plain ValueError, so that the CLI's argument types can use parse_seeds.
    from . import _core

    return (ValueError if _core is None else _core.InputError)(message)


def _names(option: str, value) -> list:
    """A list from "a,b" or an iterable of strings, without blanks or repeats."""
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
        seeds.extend(range(ends[0], ends[-1] + 1))
        # Checked as they come, before a typo such as 1-1000000000 fills the memory.
        if len(seeds) > MAX_RUNS:
            raise _error(f"seeds: over {MAX_RUNS:,} seeds in {text!r}")
    return _seed_list(seeds)


def _seed_number(text: str, part: str) -> int:
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or int(text) >= 2 ** 64:
        raise _error(f"seeds: {part!r}: a seed is a whole number from 0 to 2^64-1")
    return int(text)


def _seed_list(seeds) -> list:
    if isinstance(seeds, str):
        return parse_seeds(seeds)
    if isinstance(seeds, int):
        seeds = [seeds]
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
            raise _error(f"seeds: a seed is a whole number from 0 to 2^64-1, got {seed!r}")
    out = list(dict.fromkeys(seeds))  # without repeats, in the order given
    if not out:
        raise _error("seeds: empty: the grid would have no runs")
    return out


def _check_names(machines, workloads, policies) -> None:
    """Unknown names fail here, before any run: a name must be in the catalog or an existing
    file, a registered policy's options must be among its options. Checked against the
    catalog lists, not by running (a file's content is checked by its first run)."""
    from . import _require_core
    from .policy import is_file_spec, resolve

    core = _require_core()
    catalog = {kind: {e["name"]: e for e in json.loads(core.list_catalog(kind))}
               for kind in ("machines", "workloads", "policies")}
    for option, kind, names in (("machines", "machines", machines), ("workloads", "workloads", workloads)):
        for name in names:
            if name not in catalog[kind] and not os.path.isfile(name):
                raise _error(f"{option}: {name!r} is neither a catalog {kind[:-1]} nor a file "
                             f"(see `ampsched list {kind}`)")
    for spec in policies:
        if is_file_spec(spec):
            resolve(spec)  # loads the file and makes the class once: its errors are one line
            continue
        name, *options = spec.split(":")
        entry = catalog["policies"].get(name.strip())
        if entry is None:
            raise _error(f"policies: unknown policy {name.strip()!r} (see `ampsched list policies`)")
        known = entry.get("options") or {}
        for option in options:
            key = option.partition("=")[0].strip()
            if key not in known:
                raise _error(f"policies: {spec}: {name} has no option {key!r} "
                             f"(its options: {', '.join(known) or 'none'})")


def expand(machines, workloads, policies, seeds, max_runs=MAX_RUNS) -> list:
    """The grid's runs as (machine, workload, policy, seed) tuples, after validating it."""
    machines, workloads = _names("machines", machines), _names("workloads", workloads)
    policies = _names("policies", policies)
    seeds = _seed_list(seeds)
    count = len(machines) * len(workloads) * len(policies) * len(seeds)
    if max_runs is not None and count > max_runs:
        raise _error(f"the grid has {count:,} runs, over {max_runs:,}: confirm with --yes (Python: max_runs=None)")
    _check_names(machines, workloads, policies)
    return [(m, w, p, s) for m in machines for w in workloads for p in policies for s in seeds]


# ---- running (in worker processes)

def run_batch(runs: list, settings: dict) -> list:
    """Rows for a batch of runs. A failing run gives a row with its error and no metrics, so
    that one bad combination does not stop the sweep."""
    from . import _require_core, _scalars
    from .policy import resolve

    core = _require_core()
    rows = []
    for machine, workload, policy, seed in runs:
        keys = dict(zip(KEYS, (machine, workload, policy, seed)))
        try:
            label, policy_object = resolve(policy)
            raw = json.loads(core.run(machine, workload, label, timeline=False, policy_object=policy_object,
                                      **dict(settings, seed=seed)))
        except KeyboardInterrupt:
            raise
        except core.InputError as error:
            rows.append(dict(keys, error=" ".join(str(error).split("\n"))))
            continue
        except Exception as error:  # a failing Python policy, an engine failure: recorded too
            rows.append(dict(keys, error=f"{type(error).__name__}: {error}"))
            continue
        # The grid keys are what the user gave (a path, a spec as written), so that --resume
        # finds them; the engine's own names of machine and workload are in the file anyway.
        row = dict(keys, error=None)
        row.update((k, v) for k, v in _scalars(raw).items() if k not in keys)
        row["apps_json"] = json.dumps(raw.get("apps", []), separators=(",", ":"))
        rows.append(row)
    return rows


# ---- storage

def _sort_key(row):
    return tuple(row[k] for k in KEYS)


def rows_table(rows: list):
    """A pyarrow Table of row dicts, sorted by the grid keys. Types are inferred column by
    column over all rows (pa.Table.from_pylist would look at the first row only), so a column
    a failed run lacks is null there, and the same rows always give the same table."""
    import pyarrow as pa

    rows = sorted(rows, key=_sort_key)
    columns = list(KEYS) + ["error"]
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    arrays = {}
    for name in columns:
        values = [row.get(name) for row in rows]
        # Seeds reach 2^64-1, past int64.
        arrays[name] = pa.array(values, type=pa.uint64() if name == "seed" else None)
    return pa.table(arrays)


def _read_rows(path) -> list:
    import pyarrow.parquet as pq

    return [{k: v for k, v in row.items()} for row in pq.read_table(path).to_pylist()]


def _write_table(table, path, tmp=None) -> None:
    """Write `table` to `path` atomically (to `tmp`, then renamed)."""
    import pyarrow.parquet as pq

    tmp = f"{path}.tmp" if tmp is None else tmp
    with pq.ParquetWriter(tmp, table.schema) as writer:
        for start in range(0, max(table.num_rows, 1), ROW_GROUP):
            writer.write_table(table.slice(start, ROW_GROUP))
    os.replace(tmp, path)


def parts_dir(output) -> str:
    return f"{os.fspath(output)}.parts"


def stored_rows(output) -> dict:
    """{grid key: row} of what an earlier sweep left: FILE.parquet and its part files."""
    rows = {}
    paths = [output] if os.path.isfile(output) else []
    parts = parts_dir(output)
    if os.path.isdir(parts):
        paths += [os.path.join(parts, n) for n in sorted(os.listdir(parts)) if n.endswith(".parquet")]
    for path in paths:
        for row in _read_rows(path):
            rows[_sort_key(row)] = row
    return rows


def frame(table):
    """The DataFrame of a sweep table: one row per run, df.attrs["apps"] one row per run and app."""
    import pandas as pd

    from . import _app_rows

    df = table.to_pandas()
    apps = []
    for keys, text in zip(df[KEYS].itertuples(index=False), df["apps_json"] if "apps_json" in df else []):
        if isinstance(text, str):
            apps.extend(_app_rows(json.loads(text), dict(zip(KEYS, keys))))
    df = df.drop(columns=["apps_json"], errors="ignore")
    df.attrs["apps"] = pd.DataFrame(apps, columns=None if apps else KEYS + ["app", "slowdown", "turnaround_s"])
    return df


def read(path):
    """The frame of a finished sweep file (what sweep() returned when it wrote it)."""
    import pyarrow.parquet as pq

    return frame(pq.read_table(path))


# ---- the sweep

def _batches(runs: list, jobs: int) -> list:
    # Several batches per worker keep them all busy to the end; at most 64 runs per batch so
    # that a kill loses little and the bar moves; at least one run. Output does not depend on it.
    size = max(1, min(64, math.ceil(len(runs) / (jobs * 4))))
    return [runs[i:i + size] for i in range(0, len(runs), size)]


def sweep(machines, workloads, policies, seeds=None, jobs=None, output=None, resume=False,
          slice_ms=None, max_sim_s=None, max_events=None, max_runs=MAX_RUNS, progress=None):
    """Run every (machine, workload, policy, seed) of the grid; returns a DataFrame, one row
    per run: the grid keys, `error` (None, or why the run failed), and the scalar metrics of
    `ampsched run --json`; df.attrs["apps"] has one row per run and app. See the module doc."""
    from . import _settings, defaults

    runs = expand(machines, workloads, policies, defaults()["seed"] if seeds is None else seeds, max_runs)
    settings = _settings(None, slice_ms, max_sim_s, max_events)
    settings.pop("seed")
    backend = LocalBackend(jobs)
    done = {}
    if output is not None:
        output = os.fspath(output)
        if os.path.isdir(output):
            raise _error(f"output: {output}: is a directory")
        parts = parts_dir(output)
        if resume:
            done = stored_rows(output)
        elif os.path.isdir(parts):
            raise _error(f"output: {parts} holds an interrupted sweep: finish it with --resume "
                         f"(resume=True) or delete it")
        os.makedirs(parts, exist_ok=True)
    todo = [r for r in runs if r not in done]
    started = time.monotonic()
    new_rows = _execute(todo, settings, backend, output, progress)
    rows = dict(done)
    rows.update((_sort_key(r), r) for r in new_rows)
    table = rows_table(list(rows.values()))
    if output is not None:
        _write_table(table, output)
        shutil.rmtree(parts_dir(output), ignore_errors=True)
    df = frame(table)
    failed = sum(1 for r in new_rows if r.get("error") is not None)
    df.attrs["sweep"] = {"ran": len(todo), "failed": failed, "seconds": time.monotonic() - started,
                         "skipped": len(runs) - len(todo)}
    return df


def _execute(runs: list, settings: dict, backend, output, progress) -> list:
    """Runs the batches on the backend, saving each as a part file when it finishes; returns
    all rows."""
    from tqdm import tqdm

    bar = tqdm(total=len(runs), unit="run", file=sys.stderr, dynamic_ncols=True,
               disable=not (sys.stderr.isatty() if progress is None else progress))
    rows = []
    try:
        for batch_rows in backend.run(_batches(runs, backend.workers), settings):
            if output is not None:
                # mkstemp gives a name no earlier (resumed) sweep used; the rename makes it count.
                fd, tmp = tempfile.mkstemp(dir=parts_dir(output), prefix="part-", suffix=".parquet.tmp")
                os.close(fd)
                _write_table(rows_table(batch_rows), tmp[:-len(".tmp")], tmp)
            rows.extend(batch_rows)
            bar.update(len(batch_rows))
    finally:
        bar.close()
    return rows


# ---- backends: where batches run. A backend has `workers` (how many batches run at once,
# which sizes the batches) and `run(batches, settings)`, which yields each batch's rows from
# run_batch as the batch finishes, in any order; the sweep does the rest.

class LocalBackend:
    """Worker processes on this machine; one job runs the batches in this process."""

    def __init__(self, jobs=None):
        jobs = (os.cpu_count() or 1) if jobs is None else jobs
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise _error(f"jobs: must be a whole number of at least 1, got {jobs!r}")
        self.workers = jobs

    def run(self, batches, settings):
        if self.workers == 1 or len(batches) <= 1:
            for batch in batches:
                yield run_batch(batch, settings)
            return
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        with ProcessPoolExecutor(max_workers=min(self.workers, len(batches))) as pool:
            pending = {pool.submit(run_batch, b, settings) for b in batches}
            try:
                while pending:
                    complete, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in complete:
                        yield future.result()
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
