"""`ampsched plot` and ampsched.plot: the common figure of a sweep, a metric against a parameter.

One line per policy (or per value of another `hue` column); each point is the mean over the
seeds of its runs, and the band around the line spans their minimum to their maximum. Min-max
rather than a 95% confidence interval: sweeps have a handful of seeds (3 to 10), where a
t-interval is wider than the data and rests on a normality the runs need not have, while
min-max shows exactly what the seeds gave. The figure says so under its axis.

The parameter (`x`) is any column of the sweep's table (seed, slice_ms, counter_noise, a
metric) or an option of the policy specs, as a grid writes them ("rr:threshold_ms=25|50"
gives the column threshold_ms): then each line is a policy spec without that option. Rows
that differ in anything else (two workloads, two machines) are never averaged together:
each such combination is a line of its own, its label naming what sets it apart.

The PNG is the same bytes for the same table: matplotlib's Agg renderer, a fixed size and
DPI, and no "Software" (version) or date entry.
"""

import os

from ._files import check_output, input_error, write_atomically
from ._metrics import METRICS

DPI = 100  # with FIGSIZE_IN, a 800 x 500 px image: readable on a page, small on disk
FIGSIZE_IN = (8.0, 5.0)
BAND_ALPHA = 0.2  # the band under its line: visible, and the lines of other policies show through
BAND = "min-max over seeds"  # what the band is (see the module's text), as the figure says it
PNG_METADATA = {"Software": None}  # no matplotlib version: the bytes must not change with it
# Columns a sweep's rows give that name a run, besides the metrics: what sets two lines apart.
IDENTITY = ["machine", "machine_path", "workload", "workload_path", "policy"]
SETTINGS = ["slice_ms", "max_sim_s", "max_events", "counter_noise"]
_RC = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],  # matplotlib's own font: the same glyphs on every machine
    "text.parse_math": False,  # spec text such as "$x" is text, not mathtext
    "text.usetex": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def plot(df, x: str, y: str, hue: str = "policy", out=None, force: bool = False):
    """Draw metric `y` against parameter `x` of a sweep, one line per value of `hue`, the mean
    over seeds with a min-max band; returns the matplotlib Figure.

    df: a sweep's DataFrame (what ampsched.sweep or read_sweep return) or the path of its
    Parquet file, or a list of them (drawn as one table). x, hue: columns of it, or options of its policy specs (a grid's
    "threshold_ms"); y: a numeric column (a metric). Runs that failed are left out (the figure
    says how many). out: a PNG file to write (an existing one is refused unless force).
    Unknown columns, an empty table, or an existing `out` raise InputError."""
    import pandas as pd

    if not isinstance(force, bool):
        raise input_error(f"force: must be True or False, got {force!r}")
    df = _frame(df)
    table, options = with_policy_options(df)
    keys = [c for c in table.columns if c not in [*METRICS, *options, "error"] and not _is_metric(table, c)] + options
    metrics = [c for c in table.columns if c not in keys and pd.api.types.is_numeric_dtype(table[c])]
    for name, value, known in (("x", x, keys + metrics), ("y", y, metrics), ("hue", hue, keys)):
        if not isinstance(value, str) or value not in known:
            raise input_error(f"{name}: no column {value!r} (columns: {', '.join(dict.fromkeys(known))})")
    if x == hue:
        raise input_error(f"hue: {hue!r} is also x: give another column (default policy)")
    if out is not None:
        out = check_output("out", out)
        if os.path.exists(out) and not force:
            raise input_error(f"out: {out} exists: give another name, or --force (force=True) to replace it")
    failed = int(table["error"].notna().sum()) if "error" in table else 0
    table = table[table["error"].isna()] if "error" in table else table
    table = table[table[y].notna() & table[x].notna()]
    if table.empty:
        raise input_error(f"y: no run gave {y} (failed runs: {failed})")
    if x in options or hue in options:
        # A grid's variants differ in x (or hue): what is left of the spec tells the lines apart.
        table = table.assign(policy=[_without(spec, (x, hue)) for spec in table["policy"]])
    # The other options are in the policy spec, which tells lines apart when it differs.
    apart = [c for c in IDENTITY + SETTINGS if c in table and c not in (x, hue) and table[c].nunique(dropna=False) > 1]
    return _draw(table, x, y, hue, apart, failed, out)


def _frame(df):
    """One DataFrame of a sweep's frame or file, or of a list of them (several sweeps, e.g. one
    per counter noise), without their attrs (pandas cannot concatenate frames holding frames)."""
    import pandas as pd

    from ._sweep_store import read

    parts = df if isinstance(df, (list, tuple)) else [df]
    frames = []
    for part in parts:
        if isinstance(part, (str, os.PathLike)):
            part = read(os.fspath(part))
        if not isinstance(part, pd.DataFrame):
            raise input_error(
                f"df: expected a sweep's DataFrame, the path of its Parquet file, or a list of them, "
                f"got {type(part).__name__}"
            )
        frames.append(pd.DataFrame(part, copy=False).set_axis(range(len(part))))
    if not frames:
        raise input_error("df: an empty list: nothing to plot")
    for frame in frames:
        frame.attrs = {}
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def with_policy_options(df):
    """`df` with a column for each option its policy specs give (a spec "rr:threshold_ms=25"
    gives threshold_ms = 25.0), unless a column has that name; and the options' names."""
    from .policy import is_file_spec

    parsed = []
    names = []
    for spec in df["policy"] if "policy" in df else []:
        values = {}
        if not is_file_spec(spec):
            for option in spec.split(":")[1:]:
                key, _, value = option.partition("=")
                values[key.strip()] = _number_or_text(value.strip())
        parsed.append(values)
        names.extend(k for k in values if k not in df.columns)
    names = list(dict.fromkeys(names))
    if not names:
        return df, []
    return df.assign(**{n: [p.get(n) for p in parsed] for n in names}), names


def _number_or_text(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def _without(spec: str, leave_out) -> str:
    """The spec without the options named in `leave_out`."""
    from .policy import is_file_spec

    if is_file_spec(spec):
        return spec
    name, *options = spec.split(":")
    return ":".join([name] + [o for o in options if o.partition("=")[0].strip() not in leave_out])


def _is_metric(table, column) -> bool:
    # A numeric column no run's identity needs (a metric the engine added since METRICS).
    import pandas as pd

    return column not in IDENTITY + SETTINGS + ["seed", "error"] and pd.api.types.is_numeric_dtype(table[column])


def _draw(table, x, y, hue, apart, failed, out):
    import matplotlib
    from matplotlib.figure import Figure

    import pandas as pd

    if pd.api.types.is_numeric_dtype(table[x]) and not pd.api.types.is_bool_dtype(table[x]):
        positions = None
    else:
        # Categories (workloads, policies) in sorted order, one tick each.
        positions = {v: i for i, v in enumerate(sorted(table[x].astype(str).unique()))}
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=FIGSIZE_IN, dpi=DPI)
        ax = fig.add_subplot()
        groups = [hue] + apart
        lines = table.groupby(groups, sort=True, dropna=False)
        for key, rows in lines:
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join([_shown(key[0])] + [f"{c}={_shown(v)}" for c, v in zip(apart, key[1:])])
            xs = rows[x] if positions is None else rows[x].astype(str).map(positions)
            stats = rows.assign(_x=xs).groupby("_x", sort=True)[y].agg(["mean", "min", "max"])
            (line,) = ax.plot(stats.index, stats["mean"], marker="o", markersize=3, label=label)
            ax.fill_between(stats.index, stats["min"], stats["max"], color=line.get_color(), alpha=BAND_ALPHA, lw=0)
        if positions is not None:
            ax.set_xticks(list(positions.values()), list(positions), rotation=30, ha="right")
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        seeds = table.groupby(groups + [x], dropna=False).size()
        note = f"line: mean over seeds ({_count_text(seeds)} per point); band: {BAND}"
        if failed:
            note += f"; {failed} failed runs left out"
        ax.set_title(note, fontsize="small", loc="left")
        # Below the axes: labels naming paths are long, and inside they would hide the lines.
        ax.legend(title=hue, fontsize="small", loc="upper left", bbox_to_anchor=(0, -0.14), frameon=False)
        fig.tight_layout()
        if out is not None:
            write_atomically(
                out, option="out", write=lambda tmp: fig.savefig(tmp, format="png", dpi=DPI, metadata=PNG_METADATA)
            )
    return fig


def _shown(value) -> str:
    import pandas as pd

    return "-" if pd.isna(value) else str(value)  # "-": none, as a catalog entry's path


def _count_text(sizes) -> str:
    low, high = int(sizes.min()), int(sizes.max())
    return str(low) if low == high else f"{low} to {high}"
