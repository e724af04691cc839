"""A comparison of policies as ONE self-contained HTML page.

Inline CSS and inline SVG only, no script, font or network: the page has to open the same
from a mail attachment, a CI artifact or an offline machine. Every name that comes from a
catalog or a TOML file goes through html.escape, since workload files are user input.

The charts are matplotlib figures saved as SVG text and written into the page. matplotlib's
SVG is made reproducible here (a fixed id salt, no date or creator), so that the same results
give a byte-identical page, and each chart's ids are prefixed so that charts sharing one page
cannot take each other's clip paths.
"""

import io
import math
import re
from html import escape

from ._console import format_value
from ._metrics import (
    APP_TERMS,
    CONSTANT_LOAD_NOTE,
    ENERGY_NOTE,
    IDLE_FLAG_SHARE,
    METRICS,
    compare_notes,
    energy_unmodelled,
    idle_share,
    shown,
)

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1200px; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 32px; } h3 { font-size: 15px; }
table { border-collapse: collapse; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; }
th { text-align: left; background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.best { background: #c9efc9; font-weight: 600; }
.note { color: #666; }
td.flag { color: #b00000; font-weight: bold; }
svg { display: block; margin: 8px 0; max-width: 100%; height: auto; }
dt { font-weight: 600; margin-top: 6px; }
"""

# matplotlib writes SVG in points (1/72 in) and a browser shows a point as 4/3 CSS px (CSS: 96 px
# per inch): sizes below are in CSS px and divided by _PX_PER_INCH for matplotlib's inches.
_PX_PER_INCH = 96
_WIDTH = 900  # px, every chart; the timeline is drawn at one app per pixel column, so this bounds its size

# The charts' matplotlib settings, applied in an rc_context only (the user's rcParams are left alone).
_RC = {
    "svg.fonttype": "none",  # text stays <text>: selectable, and far smaller than glyph outlines
    "svg.hashsalt": "ampsched-report",  # matplotlib's ids hash a random uuid unless a salt is set
    "text.parse_math": False,  # names are user text: a '$' in one is a dollar, not mathtext (matplotlib 3.6+)
    "text.usetex": False,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],  # matplotlib's own font: its metrics are those of the layout
    "font.size": 8,  # pt, 10.7 px on the page
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 8,
    "axes.titlelocation": "left",
}
# No date, creator or format (each would put a timestamp, a version or a URL in the page).
_SVG_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
_AXIS_COLOR = "#333333"
_STRIPE_COLOR = "#f6f6f6"  # every other core row of a timeline
_LABEL_CHARS = 28  # a longer name is cut with an ellipsis on a chart; its tooltip gives it whole
_SLOWDOWN_COLUMNS = 4  # panels per row of the slowdown chart (16 apps: 4 rows)
_LEGEND_COLUMNS = 6  # names per row of the apps' legend


def _palette(n: int) -> list:
    """`n` colours that tell series apart: matplotlib's tab20 (the Tableau 20 palette), its ten
    dark hues first and then their light pairs, so that up to ten series get ten unlike hues and
    up to twenty still differ from each other (the light blue of series 11 is far from the dark
    blue of series 1 in lightness); past twenty, hues spaced by the golden angle."""
    import colorsys

    import matplotlib

    tab20 = [matplotlib.colors.to_hex(c) for c in matplotlib.colormaps["tab20"].colors]
    colors = tab20[0::2] + tab20[1::2]
    for i in range(len(colors), n):
        r, g, b = colorsys.hls_to_rgb((i * 137.508 / 360) % 1.0, 0.45, 0.6)
        colors.append(matplotlib.colors.to_hex((r, g, b)))
    return colors[:n]


def write_report(results, path) -> None:
    """Write the HTML report for a list of result dicts (as `_core.compare` returns, with
    timeline=True for the core timelines) to `path`."""
    from ._files import input_error, text_arg, write_atomically

    path = text_arg("path", path)
    if isinstance(results, (str, bytes, dict)) or not hasattr(results, "__iter__"):
        raise input_error(f"results: expected a list of result dicts, got {type(results).__name__}")
    results = list(results)
    if not results or not all(isinstance(r, dict) for r in results):
        raise input_error("results: expected a non-empty list of result dicts (compare(...).attrs['raw'])")
    write_atomically(path, render_report(results), option="path")


def render_report(results) -> str:
    """The report page as a string."""
    import matplotlib

    results = list(results)
    if not results:
        raise ValueError("no results to report")
    first = results[0]
    title = f"ampsched: {first.get('machine')} / {first.get('workload')} (seed {first.get('seed')})"
    apps = _unique(
        [a.get("name") for r in results for a in r.get("apps", [])]
        + [seg[2] for r in results for seg in r.get("timeline") or []]
    )
    meta = [
        f"machine <b>{escape(str(first.get('machine')))}</b>",
        f"workload <b>{escape(str(first.get('workload')))}</b>",
        f"seed {escape(str(first.get('seed')))}",
        f"time slice {escape(str(first.get('slice_ms')))} ms",
    ]
    if first.get("baseline") is not None:
        meta.append(f"baseline <b>{escape(str(first['baseline']))}</b>")
    with matplotlib.rc_context(_RC):
        policy_colors = _palette(len(results))
        app_colors = dict(zip(apps, _palette(len(apps))))
        slowdown = _slowdown_chart(results, policy_colors)
        timelines = _timelines(results, app_colors)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            f'<head><meta charset="utf-8"><title>{escape(title)}</title><style>{_CSS}</style></head>',
            "<body>",
            f"<h1>{escape(title)}</h1>",
            f'<p class="note">{" &middot; ".join(meta)}</p>',
            "<h2>Metrics</h2>",
            '<p class="note">The best value of each column is highlighted; '
            "&darr; lower is better, &uarr; higher is better.</p>",
            _metric_table(results),
            "<h2>Slowdown per app</h2>",
            '<p class="note">Turnaround divided by the app\'s turnaround alone on an all-fast machine, '
            "one panel per app on one scale; the dashed line is 1 (no slowdown).</p>",
            slowdown,
            "<h2>Core timelines</h2>",
            timelines,
            "<h2>Glossary</h2>",
            _glossary(),
            "</body>",
            "</html>",
            "",
        ]
    )


def _unique(items) -> list:
    return list(dict.fromkeys(i for i in items if i is not None))


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _policy_label(r: dict) -> str:
    label = escape(str(r.get("policy")))
    if r.get("baseline") is not None and r.get("baseline") == r.get("policy"):
        label += ' <span class="note">(baseline)</span>'
    return label


def _metric_table(results) -> str:
    metrics = [m for m in METRICS if any(m in r for r in results)]
    head = "".join(
        f'<th title="{escape(METRICS[m][1])}">{escape(m)} {"&darr;" if METRICS[m][0] == "lower" else "&uarr;"}</th>'
        for m in metrics
    )
    best = {}
    for m in metrics:
        values = [r.get(m) for r in results if _finite(r.get(m))]
        # With a single value there is nothing to compare: highlighting it would only be noise.
        if len(values) > 1:
            best[m] = min(values) if METRICS[m][0] == "lower" else max(values)
    rows = []
    for r in results:
        # Cores idle while threads waited for more than IDLE_FLAG_SHARE of the core-time: flagged.
        share = idle_share(r)
        flagged = {"idle_while_waiting_s"} if share is not None and share > IDLE_FLAG_SHARE else set()
        cells = "".join(
            f'<td class="num{" best" if m in best and r.get(m) == best[m] else ""}{" flag" if m in flagged else ""}">'
            f"{escape(format_value(shown(r, m)))}</td>"
            for m in metrics
        )
        rows.append(f'<tr><th scope="row">{_policy_label(r)}</th>{cells}</tr>')
    notes = ([ENERGY_NOTE] if energy_unmodelled(results) else []) + compare_notes(results)
    note = "".join(f'<p class="note">{escape(n)}</p>' for n in notes)
    return (
        f'<table class="metrics"><thead><tr><th>policy</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{note}"
    )


# ---- charts: matplotlib figures as inline SVG


class _Chart:
    """One matplotlib figure on its way to the page.

    matplotlib wraps an artist that has a gid in <g id="gid">, and writes no SVG <title> (a
    browser's tooltip): `tip` gives an artist a gid and `svg` writes the title in its group."""

    def __init__(self, prefix: str, width_px: float, height_px: float, **figure_kw):
        from matplotlib.backends.backend_svg import FigureCanvasSVG
        from matplotlib.figure import Figure

        self.prefix = prefix  # the chart's ids begin with it: unique in the page
        self.fig = Figure(figsize=(width_px / _PX_PER_INCH, height_px / _PX_PER_INCH), **figure_kw)
        FigureCanvasSVG(self.fig)  # the SVG canvas, chosen here rather than through a global backend
        self.tips = {}  # gid -> tooltip
        self.gids = set()  # the gids given, whose groups keep their id

    def gid(self, artist, gid: str):
        artist.set_gid(gid)
        self.gids.add(gid)

    def tip(self, artist, text: str, always: bool = True, gid: str | None = None):
        """Give `artist` the tooltip `text` (unless not `always` and its label already shows it
        whole), under the id `gid` if given."""
        if always or artist.get_text() != text:
            gid = gid or f"tip{len(self.tips)}"
            self.gid(artist, gid)
            self.tips[gid] = text

    def label(self, artist_fn, text: str, **kw):
        """`artist_fn(shown text, **kw)` with `text` cut to _LABEL_CHARS, and its whole text as tooltip."""
        artist = artist_fn(_cut(text), **kw)
        self.tip(artist, text, always=False)
        return artist

    def _tidy_tag(self, match) -> str:
        tag = match.group(0)
        # matplotlib numbers every group (figure_1, patch_2, text_3...): nothing refers to those ids
        # (references go to clip paths and markers), and the page is smaller without them.
        tag = re.sub(r'^<g id="([^"]*)"', lambda m: m.group(0) if m.group(1) in self.gids else "<g", tag)
        # What matplotlib writes and a browser does not need: a path's commands one a line and
        # spaced (a timeline's rectangles take a third less without), and the rotation by -0
        # degrees of every text.
        tag = re.sub(
            r' d="([^"]*)"', lambda m: ' d="' + re.sub(r"\s*([MLQCz])\s*", r"\1", m.group(1)).strip() + '"', tag
        )
        tag = re.sub(r' transform="rotate\(-0 [-0-9.]+ [-0-9.]+\)"', "", tag)
        # Every id and reference to one (url(#id), xlink:href="#id") gets the chart's prefix.
        return re.sub(r'(\bid="|url\(#|href="#)', rf"\g<1>{self.prefix}-", tag)

    def svg(self, aria_label: str) -> str:
        buf = io.StringIO()
        self.fig.savefig(buf, format="svg", metadata=_SVG_METADATA)
        text = buf.getvalue()
        text = text[text.index("<svg") :]  # no XML prolog or DOCTYPE inside HTML
        for gid, tip in self.tips.items():
            text = text.replace(f'<g id="{gid}">', f'<g id="{gid}"><title>{escape(tip)}</title>', 1)
        # Inside tags only, so that no name shown on the chart (text between tags) is touched.
        text = re.sub(r"<[^>]*>", self._tidy_tag, text)
        text = re.sub(r">\n +<", ">\n<", text)  # the indentation
        return text.replace("<svg ", f'<svg role="img" aria-label="{escape(aria_label)}" ', 1).rstrip()


def _cut(text: str) -> str:
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "\u2026"


def _slowdown_chart(results, policy_colors) -> str:
    """Small multiples: a panel per app with a bar per policy, named on its axis and coloured
    alike in every panel; all panels share the slowdown scale. A panel keeps eighteen or more
    policies readable where grouped bars would not, and its bars are labelled with their value."""
    apps = _unique(a.get("name") for r in results for a in r.get("apps", []))
    if not apps:
        return '<p class="note">No per-app results.</p>'
    values = {(i, a.get("name")): a.get("slowdown") for i, r in enumerate(results) for a in r.get("apps", [])}
    n = len(results)
    columns = min(len(apps), _SLOWDOWN_COLUMNS)
    rows = math.ceil(len(apps) / columns)
    panel_h = 40 + 13 * n  # px: a title, and 13 px per bar (8 pt text)
    chart = _Chart("slowdown", _WIDTH, rows * panel_h + 30, layout="constrained")
    axes = chart.fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False).ravel()
    top = max([v for v in values.values() if _finite(v)] + [1.0])
    for ax in axes[len(apps) :]:
        ax.set_visible(False)
    for ai, (ax, app) in enumerate(zip(axes, apps)):
        chart.label(ax.set_title, str(app))
        for pi, r in enumerate(results):
            v = values.get((pi, app))
            if not _finite(v):
                continue
            (bar,) = ax.barh(pi, v, height=0.75, color=policy_colors[pi])
            chart.tip(bar, f"{r.get('policy')} / {app}: slowdown {format_value(v)}", gid=f"bar{pi}-{ai}")
            ax.annotate(format_value(v), (v, pi), xytext=(2, 0), textcoords="offset points", va="center", fontsize=7)
        ax.axvline(1.0, color=_AXIS_COLOR, linestyle=(0, (4, 3)), linewidth=0.8)
        ax.tick_params(axis="y", length=0)
        if ai >= len(apps) - columns:  # the lowest panel of its column
            ax.set_xlabel("slowdown")
            ax.tick_params(axis="x", labelbottom=True)
    axes[0].set_yticks(range(n))
    axes[0].set_ylim(n - 0.5, -0.5)  # the first policy on top, as in the table
    axes[0].set_xlim(0, top * 1.2)  # room for the value after the longest bar
    names = [str(r.get("policy")) for r in results]
    for ax in axes[::columns]:  # the policies' names, on the first panel of each row
        for tick, name in zip(ax.set_yticklabels([_cut(name) for name in names]), names):
            chart.tip(tick, name, always=False)
    return chart.svg("slowdown per app and policy")


def _timelines(results, app_colors) -> str:
    if not any(r.get("timeline") for r in results):
        return (
            '<p class="note">No timelines in these results (compare with timeline=True, '
            "as <code>ampsched compare --report</code> does).</p>"
        )
    # One time scale for all policies, so that a shorter makespan looks shorter.
    t_max = max(
        [r.get("makespan_s") or 0 for r in results] + [seg[4] for r in results for seg in r.get("timeline") or []]
    )
    if not _finite(t_max) or t_max <= 0:
        t_max = 1.0
    out = [
        '<p class="note">One row per core; each pixel column shows the app that ran longest '
        "in it (blank: idle). Hover for names.</p>",
        _apps_legend(app_colors),
    ]
    for i, r in enumerate(results):
        out.append(f"<h3>{_policy_label(r)}</h3>")
        if not r.get("timeline"):
            out.append('<p class="note">No timeline for this policy.</p>')
            continue
        if r.get("timeline_truncated"):
            out.append('<p class="note">The engine truncated this timeline: the end of the run is missing.</p>')
        out.append(_timeline_svg(r, t_max, app_colors, f"timeline{i}"))
    return "\n".join(out)


def _apps_legend(app_colors) -> str:
    """The apps' colours, once for all the timelines."""
    from matplotlib.patches import Patch

    rows = max(1, math.ceil(len(app_colors) / _LEGEND_COLUMNS))
    chart = _Chart("apps", _WIDTH, 18 * rows + 8)
    handles = [Patch(facecolor=color, label=_cut(str(app))) for app, color in app_colors.items()]
    legend = chart.fig.legend(
        handles=handles, loc="upper left", ncol=_LEGEND_COLUMNS, frameon=False, handlelength=1.2, borderaxespad=0.3
    )
    for text, app in zip(legend.get_texts(), app_colors):
        chart.tip(text, str(app), always=False)
    return chart.svg("apps")


# The timeline's geometry in px: the plot's width is what its pixel columns are counted over.
_TL_LEFT, _TL_RIGHT, _TL_TOP, _TL_BOTTOM, _TL_ROW = 110, 16, 4, 36, 16
_TL_BAR = 0.8  # of a row's height: rows stay apart


def _timeline_svg(result, t_max: float, app_colors, prefix: str) -> str:
    import numpy as np
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    timeline = result["timeline"]
    core_type = {c.get("id"): c.get("type", "") for c in result.get("cores", [])}
    cores = sorted(set(core_type) | {seg[0] for seg in timeline})
    row_of = {c: i for i, c in enumerate(cores)}
    plot_w = _WIDTH - _TL_LEFT - _TL_RIGHT
    scale = plot_w / t_max  # px per second

    # Long runs have far more segments than pixels: sum, per core and pixel column, the
    # time each app ran there and draw the app that ran longest. The drawing then has at
    # most cores x plot_w rectangles whatever the run's length, and loses only what a
    # screen could not show anyway.
    cover = {}
    for core, _thread, app, start, end in timeline:
        a, b = max(start * scale, 0.0), min(end * scale, plot_w)
        for px in range(int(a), min(math.ceil(b), plot_w)):
            overlap = min(b, px + 1) - max(a, px)
            if overlap > 0:
                cell = cover.setdefault((row_of[core], px), {})
                cell[app] = cell.get(app, 0.0) + overlap

    rects = {}  # app -> rectangles (x0, x1 in px, row), drawn as one path per app
    for row in range(len(cores)):
        run_app, run_start = None, 0
        for px in range(plot_w + 1):
            cell = cover.get((row, px)) if px < plot_w else None
            # A column mostly idle stays blank, so that idle time shows.
            app = max(cell, key=cell.get) if cell and sum(cell.values()) >= 0.5 else None
            if app != run_app:
                if run_app is not None:
                    rects.setdefault(run_app, []).append((run_start, px, row))
                run_app, run_start = app, px

    height = _TL_TOP + len(cores) * _TL_ROW + _TL_BOTTOM
    chart = _Chart(prefix, _WIDTH, height)
    ax = chart.fig.add_axes([_TL_LEFT / _WIDTH, _TL_BOTTOM / height, plot_w / _WIDTH, len(cores) * _TL_ROW / height])
    ax.set_xlim(0, t_max)
    ax.set_ylim(len(cores), 0)  # the first core on top
    for row in range(1, len(cores), 2):
        ax.axhspan(row, row + 1, color=_STRIPE_COLOR, linewidth=0)
    pad = (1 - _TL_BAR) / 2
    for app, shapes in rects.items():
        polys = np.array(
            [
                [
                    (x0 / scale, row + pad),
                    (x1 / scale, row + pad),
                    (x1 / scale, row + 1 - pad),
                    (x0 / scale, row + 1 - pad),
                ]
                for x0, x1, row in shapes
            ]
        )
        # add_artist, not add_patch: the limits are set, and add_patch would go over every vertex for them.
        patch = ax.add_artist(
            PathPatch(Path.make_compound_path_from_polys(polys), facecolor=app_colors.get(app, "#888888"), linewidth=0)
        )
        chart.tip(patch, str(app))
    labels = [f"{core} {core_type.get(core, '')}".rstrip() for core in cores]
    ax.set_yticks([row + 0.5 for row in range(len(cores))])
    for tick, label in zip(ax.set_yticklabels([_cut(label) for label in labels]), labels):
        chart.tip(tick, label, always=False)
    ax.tick_params(axis="y", length=0)
    for side in ("left", "top", "right"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color(_AXIS_COLOR)
    ax.set_xlabel("time (s)", loc="right", labelpad=2)
    return chart.svg(f"core timeline of {result.get('policy')}")


def _glossary() -> str:
    items = [f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in APP_TERMS.items()]
    items += [
        f"<dt>{escape(k)} ({better} is better)</dt><dd>{escape(text)}</dd>" for k, (better, text) in METRICS.items()
    ]
    return f"<dl>{''.join(items)}</dl><p>{escape(CONSTANT_LOAD_NOTE)}</p>"
