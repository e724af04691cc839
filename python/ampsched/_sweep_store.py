"""Where a sweep's rows live: part files while it runs, one sorted Parquet file at the end.

Why it survives SIGKILL: a Parquet file is readable only once its footer is written, so a
sweep never appends to the final file. Each finished batch becomes one Arrow IPC file in
`FILE.parquet.parts/`, written by the worker that ran it under a temporary name and renamed
into place (a rename is atomic): a sweep killed at any instant leaves only whole part files
(and maybe a `.tmp` that is ignored), so it loses the batches in flight, nothing else. Parts
are Arrow IPC rather than Parquet because they are read back once, by this code, and IPC
costs a tenth of Parquet's encoding per batch. At the end the parts (and, on --resume, the
rows kept from before) are merged, sorted by the grid keys and written to FILE.parquet in
row groups through a temporary file renamed over it; only then is the parts directory
removed. A kill between the two leaves rows in both places, which --resume deduplicates.

Why a part carries a checksum: --resume trusts what it keeps, and a part file damaged after it
was written (a bad disk, a copy gone wrong, a hand edit) would otherwise end in a decoder's
traceback or, worse, be read as other numbers. Each part's name holds the SHA-256 of its
bytes (`part-RANDOM.SHA256.arrow`), written with it by the same rename; a part whose bytes do
not match is removed with one line saying so, and its runs, then missing, run again. The final
file has Parquet's own page checksums (CRC-32 per data page, written and verified by pyarrow),
so a damaged FILE.parquet is refused rather than resumed from.

Nothing in the file depends on time, job count, batch sizes or completion order: rows are
sorted by the grid keys and columns come in a fixed order (`column_order`), so its bytes do
not either.

Per-app results differ in shape between workloads, so each run's list of app dicts is kept as
JSON text in the column `apps_json`; the frame drops it and gives the long per-app table in
df.attrs["apps"], as compare() does.
"""

import hashlib
import json
import os
import re
import sys
import tempfile

KEYS = ["machine", "workload", "policy", "seed"]  # the grid keys: one row per combination
# A machine or workload given as a file: its row names it as compare does (`machine`: the name
# in the file) and gives the path in its own column; for a catalog entry the column is null.
# The run itself is the path's (`sort_key`), so two files with one name stay two runs.
PATHS = {"machine": "machine_path", "workload": "workload_path"}
SETTINGS = ["slice_ms", "max_sim_s", "max_events", "counter_noise"]  # a run's settings, recorded in its row
ROW_GROUP = 10_000  # rows per row group of the final file: readers can skip groups, memory stays bounded
PART_SUFFIX = ".arrow"


def sort_key(row: dict) -> tuple:
    """The run a row is of, as the grid gives it: the machine's and the workload's path, or
    catalog name, then the policy spec and the seed."""
    return tuple(row.get(PATHS[k]) or row[k] if k in PATHS else row[k] for k in KEYS)


# The order of the rows of a table (a file's or a part's): by name, then path, then the rest.
SORT_COLUMNS = ["machine", "machine_path", "workload", "workload_path", "policy", "seed"]


def _row_order(row: dict) -> tuple:
    # As pyarrow's sort_by (`merged`): nulls after every value.
    return tuple((row.get(k) is None, (row.get(k) or 0) if k == "seed" else (row.get(k) or "")) for k in SORT_COLUMNS)


def column_order(names) -> list:
    """The columns of a sweep table in a fixed order, whatever rows and batches they came
    from: the grid keys, error, the settings, the metrics in the order of the package's
    metric table, any other column by name, and apps_json last."""
    from ._metrics import METRICS

    names = set(names)
    fixed = KEYS + list(PATHS.values()) + ["error"] + SETTINGS
    metrics = [m for m in METRICS if m in names]
    rest = sorted(names - set(fixed) - set(metrics) - {"apps_json"})
    return [c for c in fixed if c in names] + metrics + rest + (["apps_json"] if "apps_json" in names else [])


def fixed_types() -> dict:
    """The columns every sweep table has, whatever its runs gave, with their types: a file
    whose runs all succeeded, or all failed, has the same schema for them. (Seeds reach
    2^64-1, past int64.)"""
    import pyarrow as pa

    text = pa.string()
    return {
        "machine": text,
        "workload": text,
        "policy": text,
        "seed": pa.uint64(),
        "machine_path": text,
        "workload_path": text,
        "error": text,
        "slice_ms": pa.float64(),
        "max_sim_s": pa.float64(),
        "max_events": pa.uint64(),
        "counter_noise": pa.float64(),
    }


# Columns a file written before they existed lacks (null there once read): the path columns
# (its `machine` was the path or name given) and counter_noise (its runs had the default, which
# --resume does not trust: it runs them again).
LATER_COLUMNS = ("machine_path", "workload_path", "counter_noise")


def sweep_metrics() -> list:
    """The metric columns every sweep table has (null where no run gave them): those of the
    package's metric table that a single run reports."""
    from ._metrics import METRICS

    return [m for m in METRICS if m != "speedup_vs_baseline"]  # compare's, relative to a baseline


def conform(table):
    """`table` with the fixed columns' types and every metric column, in column order."""
    import pyarrow as pa

    types = fixed_types()
    columns = {}
    for name in table.column_names:
        column = table.column(name)
        columns[name] = column.cast(types[name]) if name in types and column.type != types[name] else column
    for name in list(types) + sweep_metrics():
        if name not in columns:
            columns[name] = pa.nulls(table.num_rows, types.get(name, pa.null()))
    return pa.table({name: columns[name] for name in column_order(columns)})


def rows_table(rows: list):
    """A pyarrow Table of row dicts, sorted by the grid keys. Types are inferred column by
    column over all rows (pa.Table.from_pylist would look at the first row only), so a column
    a failed run lacks is null there, and the same rows always give the same table."""
    import pyarrow as pa

    rows = sorted(rows, key=_row_order)
    names = set(KEYS)
    for row in rows:
        names.update(row)
    types = fixed_types()
    return conform(
        pa.table(
            {name: pa.array([row.get(name) for row in rows], type=types.get(name)) for name in column_order(names)}
        )
    )


def merged(tables: list):
    """One sorted table of many (part files, kept rows): columns unified (a column some
    tables lack is null there, an int column meeting a float one becomes float), rows sorted
    by the grid keys, columns in `column_order`."""
    import pyarrow as pa

    tables = [t for t in tables if t.num_rows]
    if not tables:
        return rows_table([])
    table = pa.concat_tables(tables, promote_options="permissive")
    return conform(table.sort_by([(k, "ascending") for k in SORT_COLUMNS if k in table.column_names]))


def write_part(table, parts: str) -> None:
    """One finished batch, atomically, under a name no earlier (resumed) sweep used and that
    holds the SHA-256 of its bytes. (Through pyarrow.ipc, not pyarrow.feather, which would
    import pandas into every worker.)"""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    data = sink.getvalue().to_pybytes()
    fd, tmp = tempfile.mkstemp(dir=parts, prefix="part-", suffix=PART_SUFFIX + ".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    stem = tmp[: -len(PART_SUFFIX + ".tmp")]
    os.replace(tmp, f"{stem}.{hashlib.sha256(data).hexdigest()}{PART_SUFFIX}")


def part_files(parts: str) -> list:
    if not os.path.isdir(parts):
        return []
    return sorted(os.path.join(parts, n) for n in os.listdir(parts) if n.endswith(PART_SUFFIX))


_PART_NAME = re.compile(r"^part-[^.]+\.([0-9a-f]{64})" + re.escape(PART_SUFFIX) + "$")


def read_parts(paths, warn=None) -> list:
    """(path, table) of each part file that passes its checksum. A part that fails it (or has
    none: a name this code did not write) is removed, with one line on `warn` (default
    stderr) saying so: its runs are then missing, and the sweep runs them again."""
    import pyarrow as pa

    tables = []
    for path in paths:
        problem = None
        match = _PART_NAME.match(os.path.basename(path))
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as error:
            problem = f"unreadable ({error.strerror or error})"
        else:
            if match is None:
                problem = "no checksum in its name"
            elif hashlib.sha256(data).hexdigest() != match.group(1):
                problem = "its bytes do not match its checksum"
            else:
                try:
                    tables.append((path, pa.ipc.open_file(pa.BufferReader(data)).read_all()))
                except Exception as error:  # checked bytes that do not decode: written by another version
                    problem = f"not readable ({' '.join(str(error).split())[:120]})"
        if problem is not None:
            try:
                os.unlink(path)
            except OSError:
                pass
            print(
                f"ampsched: sweep: {path}: damaged part file, {problem}: removed; its runs run again",
                file=warn or sys.stderr,
            )
    return tables


def write_parquet(table, path) -> None:
    """Write `table` to `path` atomically (to a temporary file, then renamed), in row groups,
    with page checksums."""
    import pyarrow.parquet as pq

    from ._files import write_atomically

    def write(tmp):
        with pq.ParquetWriter(tmp, table.schema, write_page_checksum=True) as writer:
            for start in range(0, max(table.num_rows, 1), ROW_GROUP):
                writer.write_table(table.slice(start, ROW_GROUP))

    write_atomically(path, write=write, option="output")


def parts_dir(output) -> str:
    return f"{os.fspath(output)}.parts"


def load(path):
    """A sweep file's table, checked: a readable Parquet file with the grid keys (no nulls),
    error and the settings; a one-line error naming the file otherwise."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ._sweep import _error

    path = os.fspath(path)
    if not os.path.exists(path):
        raise _error(f"{path}: cannot read: no such file")
    if not os.path.isfile(path):
        raise _error(f"{path}: cannot read: not a regular file")
    try:
        table = pq.read_table(path, page_checksum_verification=True)
    except (OSError, pa.ArrowException) as error:
        raise _error(
            f"{path}: not a sweep file (not a readable Parquet file: {' '.join(str(error).split())[:200]})"
        ) from None
    return check(table, path)


def check(table, source: str):
    """`table` conformed (fixed types, every metric column), if it is a sweep's table."""
    import pyarrow as pa

    from ._sweep import _error

    for name, want in fixed_types().items():
        if name not in table.column_names:
            if name in LATER_COLUMNS:
                continue
            raise _error(f"{source}: not a sweep file (no column {name!r})")
        column = table.column(name)
        ok = (
            pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
            if want == pa.string()
            else pa.types.is_null(column.type) or pa.types.is_integer(column.type) or pa.types.is_floating(column.type)
        )
        if name in ("error",) + LATER_COLUMNS and pa.types.is_null(column.type):
            ok = True
        if not ok:
            raise _error(f"{source}: not a sweep file (column {name!r} is {column.type}, not {want})")
        if name in KEYS and column.null_count:
            raise _error(f"{source}: not a sweep file (column {name!r} has empty values)")
    try:
        return conform(table)
    except pa.ArrowException as error:  # a negative seed, a fractional max_events
        raise _error(f"{source}: not a sweep file ({' '.join(str(error).split())[:200]})") from None


def stored_table(output):
    """Everything an earlier sweep left for `output`: FILE.parquet and the part files that pass
    their checksum, as one table (a run may appear more than once: in both, or failed once and
    then redone)."""
    replaced = os.path.exists(os.path.join(parts_dir(output), "REPLACES_OUTPUT"))  # a --force sweep's parts
    tables = [load(output)] if os.path.isfile(output) and not replaced else []
    return merged(tables + [check(t, p) for p, t in read_parts(part_files(parts_dir(output)))])


def frame(table):
    """The DataFrame of a sweep table: one row per run, df.attrs["apps"] one row per run and app
    (the grid keys and path columns, app, slowdown, turnaround_s, then the app's other values)."""
    import numpy as np
    import pandas as pd

    df = table.to_pandas()
    texts = df["apps_json"] if "apps_json" in df else pd.Series([None] * len(df), dtype=object)
    # One parse of all runs' lists, and the long table built column-wise: per-row dicts would
    # cost a sweep of many short runs more than its runs.
    lists = json.loads("[" + ",".join(t if isinstance(t, str) else "[]" for t in texts) + "]")
    apps = pd.DataFrame.from_records([app for runs_apps in lists for app in runs_apps])
    if len(apps):
        apps = apps.rename(columns={"name": "app"})
        keys = (
            df[KEYS + list(PATHS.values())]
            .iloc[np.repeat(np.arange(len(df)), [len(a) for a in lists])]
            .reset_index(drop=True)
        )
        first = [c for c in ("app", "slowdown", "turnaround_s") if c in apps]
        apps = pd.concat([keys, apps[first + [c for c in apps.columns if c not in first]]], axis=1)
    else:
        apps = pd.DataFrame(columns=KEYS + list(PATHS.values()) + ["app", "slowdown", "turnaround_s"])
    df = df.drop(columns=["apps_json"], errors="ignore")
    df.attrs["apps"] = apps
    return df


def read(path):
    """The frame of a finished sweep file (what sweep() returned when it wrote it)."""
    return frame(load(path))
