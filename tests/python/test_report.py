"""The HTML report, on hand-made results (no engine needed)."""

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from ampsched.report import render_report, write_report
from conftest import HOSTILE

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
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page
    assert "dvfs-2x" in page and "demo" in page and "seed 7" in page


def test_svgs_parse_as_xml(page):
    svgs = re.findall(r"<svg\b.*?</svg>", page, flags=re.S)
    # slowdown chart, app legend, one timeline per policy
    assert len(svgs) == 4
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
    chart = ET.fromstring(svgs[0])
    bars = [e for e in chart.iter() if e.tag.endswith("rect") and e.find("{*}title") is not None]
    assert len(bars) == 4  # 2 policies x 2 apps
    timeline = ET.fromstring(svgs[2])
    groups = [g for g in timeline.iter() if g.tag.endswith("}g")]
    assert {g.find("{*}title").text for g in groups} == {"gzip", HOSTILE}


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
