"""A comparison of policies as ONE self-contained HTML page.

Inline CSS and inline SVG only, no script, font or network: the page has to open the same
from a mail attachment, a CI artifact or an offline machine. Every name that comes from a
catalog or a TOML file goes through html.escape, since workload files are user input.
"""

import math
from html import escape

from ._console import format_value
from ._metrics import APP_TERMS, CONSTANT_LOAD_NOTE, ENERGY_NOTE, METRICS, energy_unmodelled, shown

# Tableau 10 then a second set of clearly different hues; past those, hues spaced by the
# golden angle stay distinct enough for a legend with tooltips.
_PALETTE = [
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#1b9e77",
    "#7570b3",
    "#e7298a",
    "#66a61e",
    "#a6761d",
    "#17becf",
    "#393b79",
    "#8c6d31",
]

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1200px; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 32px; } h3 { font-size: 15px; }
table { border-collapse: collapse; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; }
th { text-align: left; background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.best { background: #c9efc9; font-weight: 600; }
.note { color: #666; }
svg { display: block; margin: 8px 0; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
dt { font-weight: 600; margin-top: 6px; }
"""

_TIMELINE_WIDTH = 900  # px; the timeline is drawn at one app per pixel column, so this bounds its size


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
    results = list(results)
    if not results:
        raise ValueError("no results to report")
    first = results[0]
    title = f"ampsched: {first.get('machine')} / {first.get('workload')} (seed {first.get('seed')})"
    policy_colors = [_color(i) for i in range(len(results))]
    apps = _unique(
        [a.get("name") for r in results for a in r.get("apps", [])]
        + [seg[2] for r in results for seg in r.get("timeline") or []]
    )
    app_colors = {app: _color(i) for i, app in enumerate(apps)}
    meta = [
        f"machine <b>{escape(str(first.get('machine')))}</b>",
        f"workload <b>{escape(str(first.get('workload')))}</b>",
        f"seed {escape(str(first.get('seed')))}",
        f"time slice {escape(str(first.get('slice_ms')))} ms",
    ]
    if first.get("baseline") is not None:
        meta.append(f"baseline <b>{escape(str(first['baseline']))}</b>")
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
            '<p class="note">Turnaround divided by the app\'s turnaround alone on an all-fast machine; '
            "the dashed line is 1 (no slowdown).</p>",
            _slowdown_chart(results, policy_colors),
            "<h2>Core timelines</h2>",
            _timelines(results, app_colors),
            "<h2>Glossary</h2>",
            _glossary(),
            "</body>",
            "</html>",
            "",
        ]
    )


def _unique(items) -> list:
    return list(dict.fromkeys(i for i in items if i is not None))


def _color(i: int) -> str:
    if i < len(_PALETTE):
        return _PALETTE[i]
    return f"hsl({(i * 137.508) % 360:.0f},60%,45%)"


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
        cells = "".join(
            f'<td class="num{" best" if m in best and r.get(m) == best[m] else ""}">'
            f"{escape(format_value(shown(r, m)))}</td>"
            for m in metrics
        )
        rows.append(f'<tr><th scope="row">{_policy_label(r)}</th>{cells}</tr>')
    note = f'<p class="note">{escape(ENERGY_NOTE)}</p>' if energy_unmodelled(results) else ""
    return (
        f'<table class="metrics"><thead><tr><th>policy</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{note}"
    )


def _nice_ticks(top: float, count: int = 5) -> list:
    """Ticks 0, step, 2*step... with step 1, 2 or 5 times a power of ten, up to >= top."""
    if not _finite(top) or top <= 0:
        top = 1.0
    raw = top / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    return [i * step for i in range(math.ceil(top / step - 1e-9) + 1)]


def _legend(items, x: float, y: float, width: float):
    """SVG legend of (label, colour) swatches flowing over rows; returns (svg, height)."""
    parts, cx, cy = [], x, y
    for label, color in items:
        shown = label if len(label) <= 40 else label[:39] + "\u2026"
        item_w = 16 + round(7.5 * len(shown)) + 20  # 7.5 px per character: a generous estimate at 11 px
        if cx > x and cx + item_w > x + width:
            cx, cy = x, cy + 18
        parts.append(
            f'<rect x="{cx:.0f}" y="{cy:.0f}" width="12" height="12" fill="{color}"/>'
            f'<text x="{cx + 16:.0f}" y="{cy + 10:.0f}">{escape(shown)}<title>{escape(label)}</title></text>'
        )
        cx += item_w
    return "".join(parts), (cy - y + 18 if items else 0)


def _slowdown_chart(results, policy_colors) -> str:
    apps = _unique(a.get("name") for r in results for a in r.get("apps", []))
    if not apps:
        return '<p class="note">No per-app results.</p>'
    values = {(i, a.get("name")): a.get("slowdown") for i, r in enumerate(results) for a in r.get("apps", [])}
    n = len(results)
    bar = max(4, min(24, 120 // n))
    left, right, top, plot_h, bottom = 80, 16, 10, 240, 100  # room for slanted app names
    plot_w = max(400, (bar * n + 14) * len(apps))
    group = plot_w / len(apps)  # few apps: spread them over the width
    legend, legend_h = _legend([(str(r.get("policy")), c) for r, c in zip(results, policy_colors)], left, top, plot_w)
    y0 = top + legend_h + 10  # top of the plot area
    shown = [v for v in values.values() if _finite(v)]
    ticks = _nice_ticks(max(shown + [1.0]))
    y_top = ticks[-1]

    def y(v):
        return y0 + plot_h - v / y_top * plot_h

    out = [legend]
    for t in ticks:
        out.append(
            f'<line x1="{left}" y1="{y(t):.1f}" x2="{left + plot_w}" y2="{y(t):.1f}" stroke="#e5e5e5"/>'
            f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:g}</text>'
        )
    for ai, app in enumerate(apps):
        gx = left + ai * group + (group - bar * n) / 2  # the bars centred in their group
        for pi, r in enumerate(results):
            v = values.get((pi, app))
            if not _finite(v):
                continue
            out.append(
                f'<rect x="{gx + pi * bar:.1f}" y="{y(v):.1f}" width="{bar - 1}" height="{y(0) - y(v):.1f}" '
                f'fill="{policy_colors[pi]}"><title>{escape(str(r.get("policy")))} / {escape(app)}: '
                f"slowdown {escape(format_value(v))}</title></rect>"
            )
        label = app if len(app) <= 18 else app[:17] + "\u2026"  # the full name is in the tooltip
        cx = gx + bar * n / 2
        out.append(
            f'<text x="{cx:.1f}" y="{y0 + plot_h + 14}" text-anchor="end" '
            f'transform="rotate(-35 {cx:.1f} {y0 + plot_h + 14})">{escape(label)}<title>{escape(app)}</title></text>'
        )
    out.append(
        f'<line x1="{left}" y1="{y(1):.1f}" x2="{left + plot_w}" y2="{y(1):.1f}" stroke="#333" stroke-dasharray="4 3"/>'
    )
    out.append(
        f'<line x1="{left}" y1="{y0}" x2="{left}" y2="{y(0)}" stroke="#333"/>'
        f'<line x1="{left}" y1="{y(0)}" x2="{left + plot_w}" y2="{y(0)}" stroke="#333"/>'
    )
    out.append(
        f'<text x="30" y="{y0 + plot_h / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 30 {y0 + plot_h / 2:.0f})">slowdown</text>'
    )
    width, height = left + plot_w + right, y0 + plot_h + bottom
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="slowdown per app">{"".join(out)}</svg>'
    )


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
    legend, legend_h = _legend(list(app_colors.items()), 10, 6, _TIMELINE_WIDTH - 20)
    out = [
        '<p class="note">One row per core; each pixel column shows the app that ran longest '
        "in it (blank: idle). Hover for names.</p>",
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_TIMELINE_WIDTH}" height="{legend_h + 8}" '
        f'role="img" aria-label="apps">{legend}</svg>',
    ]
    for r in results:
        out.append(f"<h3>{_policy_label(r)}</h3>")
        if not r.get("timeline"):
            out.append('<p class="note">No timeline for this policy.</p>')
            continue
        if r.get("timeline_truncated"):
            out.append('<p class="note">The engine truncated this timeline: the end of the run is missing.</p>')
        out.append(_timeline_svg(r, t_max, app_colors))
    return "\n".join(out)


def _timeline_svg(result, t_max: float, app_colors) -> str:
    timeline = result["timeline"]
    core_type = {c.get("id"): c.get("type", "") for c in result.get("cores", [])}
    cores = sorted(set(core_type) | {seg[0] for seg in timeline})
    row_of = {c: i for i, c in enumerate(cores)}
    left, row_h, top = 110, 16, 4
    plot_w = _TIMELINE_WIDTH - left - 16
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

    rects = {}  # app -> rectangles, grouped so that each app's colour and name are written once
    for row in range(len(cores)):
        run_app, run_start = None, 0
        for px in range(plot_w + 1):
            cell = cover.get((row, px)) if px < plot_w else None
            # A column mostly idle stays blank, so that idle time shows.
            app = max(cell, key=cell.get) if cell and sum(cell.values()) >= 0.5 else None
            if app != run_app:
                if run_app is not None:
                    rects.setdefault(run_app, []).append(
                        f'<rect x="{left + run_start}" y="{top + row * row_h}" '
                        f'width="{px - run_start}" height="{row_h - 3}"/>'
                    )
                run_app, run_start = app, px

    out = []
    for row, core in enumerate(cores):
        y = top + row * row_h
        if row % 2:
            out.append(f'<rect x="{left}" y="{y - 1}" width="{plot_w}" height="{row_h}" fill="#f6f6f6"/>')
        out.append(
            f'<text x="{left - 6}" y="{y + row_h - 5}" text-anchor="end">'
            f"{escape(str(core))} {escape(str(core_type.get(core, '')))}</text>"
        )
    for app, shapes in rects.items():
        out.append(f'<g fill="{app_colors.get(app, "#888")}"><title>{escape(str(app))}</title>{"".join(shapes)}</g>')
    axis_y = top + len(cores) * row_h + 2
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" stroke="#333"/>')
    for t in _nice_ticks(t_max, 8):
        if t > t_max * (1 + 1e-9):
            break
        x = left + t * scale
        out.append(
            f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}" stroke="#333"/>'
            f'<text x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle">{t:g}</text>'
        )
    out.append(f'<text x="{left + plot_w}" y="{axis_y + 30}" text-anchor="end">time (s)</text>')
    height = axis_y + 36
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_TIMELINE_WIDTH}" height="{height}" '
        f'viewBox="0 0 {_TIMELINE_WIDTH} {height}" role="img" '
        f'aria-label="core timeline of {escape(str(result.get("policy")))}">{"".join(out)}</svg>'
    )


def _glossary() -> str:
    items = [f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in APP_TERMS.items()]
    items += [
        f"<dt>{escape(k)} ({better} is better)</dt><dd>{escape(text)}</dd>" for k, (better, text) in METRICS.items()
    ]
    return f"<dl>{''.join(items)}</dl><p>{escape(CONSTANT_LOAD_NOTE)}</p>"
