"""The HTML report, on hand-made results (no engine needed)."""

import copy
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from ampsched.report import render_report, write_report
from conftest import HOSTILE, env_with_package

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class TreeChecker(HTMLParser):
    """Checks that every non-void tag is closed in order, and collects the metric table."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []
        self.rows, self._row, self._cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = [dict(attrs).get("class") or "", ""]

    def handle_startendtag(self, tag, attrs):
        pass  # <rect .../> and the like in SVG

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(tuple(self._cell))
            self._cell = None
        elif tag == "tr":
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data


@pytest.fixture
def page(sample_results, tmp_path):
    path = tmp_path / "report.html"
    write_report(sample_results, path)
    return path.read_text(encoding="utf-8")


def parse(page):
    checker = TreeChecker()
    checker.feed(page)
    checker.close()
    return checker


def test_well_formed_and_self_contained(page):
    assert page.startswith("<!DOCTYPE html>")
    checker = parse(page)
    assert checker.errors == [] and checker.stack == []
    assert "<script" not in page.lower()  # no JavaScript at all
    # SVG's namespaces are names, never fetched; no other address
    for namespace in ('xmlns="http://www.w3.org/2000/svg"', 'xmlns:xlink="http://www.w3.org/1999/xlink"'):
        page = page.replace(namespace, "")
    assert "http://" not in page
    assert "https://" not in page
    assert "dvfs-2x" in page and "demo" in page and "seed 7" in page


def svgs_of(page):
    return re.findall(r"<svg\b.*?</svg>", page, flags=re.S)


def bar_colors(chart):
    """{(policy index, app index): fill} of the slowdown chart's bars."""
    out = {}
    for g in chart.iter("{http://www.w3.org/2000/svg}g"):
        match = re.fullmatch(r"slowdown-bar(\d+)-(\d+)", g.get("id") or "")
        if match:
            (path,) = g.iter("{http://www.w3.org/2000/svg}path")
            out[int(match[1]), int(match[2])] = re.search(r"fill: (#[0-9a-f]{6})", path.get("style"))[1]
    return out


def texts(svg):
    return [e.text for e in svg.iter("{http://www.w3.org/2000/svg}text")]


def titles(svg):
    """{tooltip: the group it is on} of an SVG."""
    return {t.text: g for g in svg.iter("{http://www.w3.org/2000/svg}g") for t in g.findall("{*}title")}


def test_svgs_parse_as_xml(page):
    svgs = svgs_of(page)
    # slowdown chart, app legend, one timeline per policy
    assert len(svgs) == 4
    roots = [ET.fromstring(svg) for svg in svgs]
    assert all(root.tag.endswith("svg") and root.get("role") == "img" for root in roots)
    colors = bar_colors(roots[0])
    assert len(colors) == 4  # 2 policies x 2 apps
    # a policy has its colour in every panel, and the two policies differ
    assert colors[0, 0] == colors[0, 1] != colors[1, 0] == colors[1, 1]
    assert {"rr", "fair", "gzip", "slowdown", "1.200", "1.600", "1.100", "1.300"} <= set(texts(roots[0]))
    # The timeline: one group per app, with the app's name as tooltip.
    assert set(titles(roots[2])) == {"gzip", HOSTILE}
    assert {"0 fast", "1 slow", "time (s)"} <= set(texts(roots[2]))


def test_ids_are_unique_in_the_page(page):
    # Charts share a page: one's clip path must not be another's (matplotlib's ids are hashes).
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)) and ids
    for ref in re.findall(r'(?:url\(#|href="#)([^)"]+)', page):
        assert ref in ids, ref


def test_same_results_same_bytes(sample_results):
    import matplotlib

    before = dict(matplotlib.rcParams)
    first = render_report(sample_results)
    assert render_report(sample_results) == first
    assert dict(matplotlib.rcParams) == before  # the report's settings stay in their rc_context
    # Another process, with another hash seed, writes the same page: nothing random, no date.
    script = "import json, sys; from ampsched.report import render_report; "
    script += "sys.stdout.write(render_report(json.load(sys.stdin)))"
    env = dict(env_with_package(), PYTHONHASHSEED="12345")
    done = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(sample_results), capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == first


def test_eighteen_policies_stay_apart(sample_results):
    # Every policy `ampsched compare` runs by default (all but bound): eighteen.
    pytest.importorskip("ampsched._core", reason="the policy names come from the engine's catalog")
    import ampsched

    names = ampsched.default_comparison()["policies"]
    assert len(names) == 18
    results = []
    for i, name in enumerate(names):
        r = copy.deepcopy(sample_results[i % 2])
        r["policy"] = name
        for app in r["apps"]:
            app["slowdown"] = 1.0 + i / 10
        results.append(r)
    page = render_report(results)
    checker = parse(page)
    assert checker.errors == [] and checker.stack == []
    chart = ET.fromstring(svgs_of(page)[0])
    colors = bar_colors(chart)
    assert len(colors) == 18 * 2
    assert len({colors[i, 0] for i in range(18)}) == 18  # eighteen colours, one per policy
    assert all(colors[i, 0] == colors[i, 1] for i in range(18))
    # each policy named beside its bars, in order
    assert [t for t in texts(chart) if t in names] == names
    assert len(svgs_of(page)) == 2 + 18  # chart, apps, a timeline each


def test_long_names_are_cut_with_the_whole_name_as_tooltip(sample_results):
    long_policy = "examples/policies/my_own_policy.py:Balanced"
    long_app = "a_very_long_application_name_" + HOSTILE
    sample_results[1]["policy"] = long_policy
    for r in sample_results:
        r["apps"][1]["name"] = long_app
        r["timeline"] = [
            [core, thread, long_app if app == HOSTILE else app, a, b] for core, thread, app, a, b in r["timeline"]
        ]
    page = render_report(sample_results)
    assert parse(page).errors == []
    chart, legend, timeline = (ET.fromstring(svg) for svg in svgs_of(page)[:3])
    assert long_policy not in texts(chart) and "examples/policies/my_own_po\u2026" in texts(chart)
    assert long_app not in texts(chart) and "a_very_long_application_nam\u2026" in texts(chart)  # its panel's title
    assert {long_policy, long_app} <= set(titles(chart))
    assert "a_very_long_application_nam\u2026" in texts(legend) and long_app in titles(legend)
    assert set(titles(timeline)) == {"gzip", long_app}
    # a name that fits is not repeated as a tooltip
    assert "rr" not in titles(chart) and "gzip" not in titles(chart)


def test_dollars_are_text_not_mathtext(sample_results):
    # matplotlib would read "$...$" as mathtext (and fail on a lone backslash in it).
    sample_results[0]["policy"] = "cost$\\alpha$"
    for r in sample_results:
        r["apps"][0]["name"] = "a $x^2$ b"
    chart = ET.fromstring(svgs_of(render_report(sample_results))[0])
    assert {"cost$\\alpha$", "a $x^2$ b"} <= set(texts(chart))


def test_names_that_look_like_svg_are_shown_as_given(sample_results):
    # The page's tidying of matplotlib's SVG (ids prefixed, paths compacted) works inside tags
    # only: a name that reads like an attribute or a reference is text, kept as it is.
    sample_results[0]["policy"] = 'id="x" url(#y)'
    for r in sample_results:
        r["apps"][0]["name"] = 'd="M 0 0 L 1 1" z'
    chart = ET.fromstring(svgs_of(render_report(sample_results))[0])
    assert {'id="x" url(#y)', 'd="M 0 0 L 1 1" z'} <= set(texts(chart))
    # a bar's tooltip names its policy, app and value
    tips = [t.text for t in chart.iter("{http://www.w3.org/2000/svg}title")]
    assert any(t.startswith('id="x" url(#y) / d="M 0 0 L 1 1" z: slowdown ') for t in tips), tips


def test_names_are_escaped(page):
    assert HOSTILE not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;co" in page


def test_best_value_highlighted(page):
    rows = parse(page).rows
    header = [text.split()[0] for _, text in rows[0]]
    body = {cells[0][1].split()[0]: cells for cells in rows[1:]}
    assert set(body) == {"rr", "fair"}

    def best(policy, metric):
        return "best" in body[policy][header.index(metric)][0].split()

    for metric in ("makespan_s", "antt", "stp", "energy_j", "edp", "speedup_vs_baseline"):
        assert best("fair", metric) and not best("rr", metric), metric
    assert best("rr", "migrations") and not best("fair", "migrations")
    # a tie highlights both
    assert best("rr", "uniformity") and best("fair", "uniformity")
    assert body["rr"][header.index("antt")][1] == "1.400"
    assert "(baseline)" in body["rr"][0][1]


def test_single_policy_highlights_nothing(sample_results):
    assert 'class="num best"' not in render_report(sample_results[:1])


def test_without_timeline(sample_results):
    for r in sample_results:
        del r["timeline"]
    page = render_report(sample_results)
    assert "No timelines" in page
    assert parse(page).errors == []


def test_long_timeline_stays_small(sample_results):
    # 200 s of 4 ms slices on 2 cores, two apps alternating: 100,000 segments.
    timeline = [
        [core, i % 2, ("gzip", HOSTILE)[(i + core) % 2], i * 0.004, (i + 1) * 0.004]
        for core in (0, 1)
        for i in range(50_000)
    ]
    for r in sample_results:
        r["timeline"], r["makespan_s"] = timeline, 200.0
    page = render_report(sample_results)
    assert len(page) < 1_000_000
    assert parse(page).errors == []


def test_no_results():
    with pytest.raises(ValueError):
        render_report([])
