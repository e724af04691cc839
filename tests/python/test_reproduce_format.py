"""The reproductions' shared formatting (ampsched/reproductions/_format.py) against values
derived by hand: what every reproduction's document prints its means, percentages, verdicts and
tables with. Pure Python, no engine: fast."""

import math
import os

import pytest

from ampsched import reproductions
from ampsched.reproductions import _format as fmt

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)


@pytest.mark.parametrize(
    "xs, mean",
    [
        ([1, 4], 2.0),  # sqrt(1 x 4)
        ([2, 8], 4.0),
        ([1, 3, 9], 3.0),  # cube root of 27
        ([0.5, 2.0], 1.0),  # a ratio and its inverse cancel
        ([7.0], 7.0),
        ([0.9, 1.1], math.sqrt(0.99)),  # thesis-ch4's test of `gain`: 10% faster, 10% slower
    ],
)
def test_geomean_by_hand(xs, mean):
    assert math.isclose(fmt.geomean(xs), mean, rel_tol=1e-15)
    # Any iterable: the modules pass generators.
    assert math.isclose(fmt.geomean(x for x in xs), mean, rel_tol=1e-15)


@pytest.mark.parametrize("xs", [[], [1.0, 0.0], [2.0, -1.0]])
def test_geomean_refuses_what_has_none(xs):
    # No silent nan or 0: a mean of no value, of a zero or of a negative time is a bug upstream.
    with pytest.raises(ValueError):
        fmt.geomean(xs)


@pytest.mark.parametrize(
    "x, text",
    [
        (12.34, "+12.3%"),
        (-7.0, "-7.0%"),
        (0.0, "+0.0%"),
        (0.26, "+0.3%"),
        (-0.04, "-0.0%"),  # the sign of what was rounded away stays: "-0.0%", as before
        (99.96, "+100.0%"),
    ],
)
def test_pct_signs_and_rounds_to_one_decimal(x, text):
    assert fmt.pct(x) == text


def test_pct_of_and_pct_change_are_pct_of_the_same_value():
    assert fmt.pct_of(0.1234) == "+12.3%"
    assert fmt.pct_of(-0.0625) == "-6.2%"  # -6.25 rounds half to even in binary: 6.25 is exact, so -6.2
    assert fmt.pct_change(1.05) == "+5.0%"
    assert fmt.pct_change(0.9) == "-10.0%"
    assert fmt.pct_change(1.0) == "+0.0%"
    # bindVM/Oblivious 0.73 on 1B5S: 27% less time.
    assert fmt.pct_change(0.73) == "-27.0%"


def test_points_singular_and_plural():
    assert fmt.points(1) == "1 point"
    assert fmt.points(1.0) == "1 point"
    assert fmt.points(2.5) == "2.5 points"
    assert fmt.points(3.0) == "3 points"
    assert fmt.points(0) == "0 points"


def test_judge_keeps_the_reason_only_when_the_claim_differs():
    args = ("c-1", "§1", "a claim", "10%", "+9.0%", "within 3 points")
    ok = fmt.judge(*args, True, "why it differs")
    assert (ok.verdict, ok.reason) == ("reproduced", "")
    bad = fmt.judge(*args, False, "why it differs")
    assert (bad.verdict, bad.reason) == ("differs", "why it differs")
    assert isinstance(bad, reproductions.Claim)
    assert fmt.verdict(True) == "reproduced" and fmt.verdict(False) == "differs"
    assert set(map(fmt.verdict, (True, False))) <= set(reproductions.VERDICTS)


def test_markdown_table_layout():
    text = fmt.markdown_table(["workload", "PA", "CAMP"], [["HH1", "+1.0%", "-2.5%"], ["MH1", "+0.0%", "+3.1%"]], "lrr")
    assert text == (
        "| workload | PA | CAMP |\n"  # no padding: cells as given
        "|---|---:|---:|\n"
        "| HH1 | +1.0% | -2.5% |\n"
        "| MH1 | +0.0% | +3.1% |"
    )
    # Left-aligned by default, and a table with no rows is its header.
    assert fmt.markdown_table(["a", "b"], []) == "| a | b |\n|---|---|"


def test_markdown_table_refuses_ragged_rows():
    with pytest.raises(ValueError, match="2 columns"):
        fmt.markdown_table(["a", "b"], [["1", "2", "3"]])
    with pytest.raises(ValueError, match="1 alignments"):
        fmt.markdown_table(["a", "b"], [["1", "2"]], "l")


def test_the_claims_table_reads_back(tmp_path):
    # The document's claims table goes through markdown_table; read_claims (what the tests
    # hold a new run to) must read it back.
    claims = [
        reproductions.Claim("a", "§1", "x", "1", "1", "exact", "reproduced", kind="independent", numeric=True),
        reproductions.Claim("b", "§2", "y", "2", "3", "exact", "differs", "because", kind="calibrated"),
    ]
    table = fmt.markdown_table(reproductions.COLUMNS, [[getattr(c, k) for k in reproductions.COLUMNS] for c in claims])
    path = tmp_path / "doc.md"
    path.write_text("# doc\n\n## Claims\n\n" + table + "\n\n## Figures\n", encoding="utf-8")
    assert reproductions.read_claims(path) == {"a": "reproduced", "b": "differs"}
    rows = reproductions.read_claim_rows(path)
    assert [r["evidence"] for r in rows] == ["independent, numeric", "calibrated"]


# ---- the one tolerance rule: 25% of theirs or 1.5 points, whichever is larger; same sign


@pytest.mark.parametrize(
    "theirs, ours, unit, bound, ok",
    [
        (12.5, 10.0, "%", None, True),  # allowance max(3.125, 1.5) = 3.125 points
        (12.5, 9.3, "%", None, False),  # 3.2 points off
        (12.5, 15.625, "%", None, True),  # exactly at the edge
        (2.0, 0.6, "%", None, True),  # the floor: 1.4 points off, within 1.5
        (2.0, -1.0, "%", None, False),  # within 3 points? no, and a loss for a stated gain
        (1.0, -0.4, "%", None, False),  # within 1.5 points, but the other sign
        (0.0, -0.4, "%", None, True),  # "no change": no side to agree on
        (-20.0, -16.0, "%", None, True),  # a loss: allowance 5 points
        (6.0, 7.5, "%", "at most", True),  # "at most 6%": up to 6 + 1.5
        (6.0, 7.6, "%", "at most", False),
        (6.0, -3.0, "%", "at most", True),  # a bound from above: any lower number holds it
        (20.0, 15.0, "%", "at least", True),  # "at least 20%": down to 20 - 5
        (20.0, 14.9, "%", "at least", False),
        (2.2, 1.9, "x", None, True),  # a ratio as its gain: +120% vs +90%, allowance 30 points
        (2.2, 1.89, "x", None, False),
        (1.02, 0.995, "x", None, False),  # a 2% gain is not reproduced by a 0.5% loss
        (1.02, 1.005, "x", None, True),  # 1.5 points off
        (40.0, 50.0, "", None, True),  # a plain quantity: 25% of it, no floor
        (40.0, 50.1, "", None, False),
        (0.4, 0.2, "", None, False),  # no floor for plain quantities
    ],
)
def test_tolerance_rule_by_hand(theirs, ours, unit, bound, ok):
    assert fmt.agrees(theirs, ours, unit, bound) is ok


def test_tolerance_rule_texts():
    assert fmt.rule_text(12.5) == "rule: within 3.12 points of theirs, same sign"
    assert fmt.rule_text(2.2, "x") == "rule: within 30 points of theirs, same sign"
    assert fmt.rule_text(6, bound="at most") == "rule: at most theirs + 1.5 points"
    assert fmt.rule_text(40, "") == "rule: within 10 of theirs, same sign"
    with pytest.raises(ValueError, match="unit"):
        fmt.agrees(1, 1, "ms")


def test_judge_number_is_numeric_and_classified():
    c = fmt.judge_number(
        "g", "§4", "a gain", "+12.5%", "+10.0%", value=12.5, ours_value=10.0, unit="%", kind="independent", reason="r"
    )
    assert (c.verdict, c.reason, c.numeric, c.evidence) == ("reproduced", "", True, "independent, numeric")
    c = fmt.judge_number(
        "g", "§4", "a gain", "+12.5%", "+5.0%", value=12.5, ours_value=5.0, unit="%", kind="calibrated", reason="r"
    )
    assert (c.verdict, c.reason, c.tolerance) == ("differs", "r", "rule: within 3.12 points of theirs, same sign")
    with pytest.raises(ValueError, match="evidence"):
        reproductions.Claim("x", "s", "c", "t", "o", "tol", "reproduced", kind="anecdotal")


def test_evidence_summary_counts_independent_claims_only():
    C = reproductions.Claim
    claims = [
        C("a", "s", "c", "t", "o", "tol", "reproduced", kind="independent", numeric=True),
        C("b", "s", "c", "t", "o", "tol", "differs", "r", kind="independent", numeric=True),
        C("c", "s", "c", "t", "o", "tol", "reproduced", kind="independent"),
        C("d", "s", "c", "t", "o", "tol", "reproduced", kind="calibrated", numeric=True),
        C("e", "s", "c", "t", "o", "tol", "reproduced", kind="by construction"),
    ]
    assert reproductions.evidence_lines(claims) == [
        "Independent: 2 of 3 reproduced (numeric: 1 of 2).",
        "",
        "Calibrated (the catalog was fitted to them: checks, not evidence): `d`.",
        "",
        "By construction (they follow from the code's definitions: checks, not evidence): `e`.",
    ]


def test_catalog_links_are_relative_to_docs_reproduction():
    assert fmt.catalog_link("machines", "2fc-8sc") == "[`2fc-8sc`](../../catalog/machines/2fc-8sc.toml)"
    assert fmt.catalog_links("workloads", (w for w in ("hh1", "mh1"))) == (
        "[`hh1`](../../catalog/workloads/hh1.toml), [`mh1`](../../catalog/workloads/mh1.toml)"
    )
    # From docs/reproduction/ the link reaches the file of the repository's catalog.
    docs = os.path.join(REPO, "docs", "reproduction")
    target = fmt.catalog_link("machines", "2fc-8sc").split("](")[1].rstrip(")")
    assert os.path.isfile(os.path.join(docs, target))


def test_judge_numbers_holds_every_number_to_the_rule():
    args = dict(unit="%", kind="independent", reason="r")
    # MH1-MH4's 10, 8, 6, 8 (thesis-ch4): allowances 2.5, 2, 1.5, 2 points.
    c = fmt.judge_numbers(
        "mh", "§4", "gains", "t", "o", values=(10, 8, 6, 8), ours_values=(12.4, 9.9, 7.5, 6.1), **args
    )
    assert (c.verdict, c.numeric) == ("reproduced", True)
    assert c.tolerance == (
        "rule, each: within 2.5 points of theirs, same sign; within 2 points of theirs, same sign; "
        "within 1.5 points of theirs, same sign"
    )
    # One number off (6 against 7.6, 1.6 points) and the claim differs.
    c = fmt.judge_numbers("mh", "§4", "gains", "t", "o", values=(10, 8, 6, 8), ours_values=(10, 8, 7.6, 8), **args)
    assert (c.verdict, c.reason) == ("differs", "r")
    # A range, 5-10%, as its two ends: at least 3.5 and at most 12.5.
    for x, verdict in ((3.5, "reproduced"), (12.5, "reproduced"), (3.4, "differs"), (12.6, "differs")):
        c = fmt.judge_numbers(
            "r", "§4", "range", "5-10%", "o", values=(5, 10), ours_values=(x, x), bounds=("at least", "at most"), **args
        )
        assert c.verdict == verdict, x
    with pytest.raises(ValueError, match="2 values, 1 of ours"):
        fmt.judge_numbers("r", "§4", "c", "t", "o", values=(5, 10), ours_values=(1,), **args)


def test_ci95_by_hand():
    # 1, 2, 3: mean 2, sample standard deviation 1; t(0.975, 2) = 4.303, over sqrt(3) and the mean.
    assert math.isclose(fmt.ci95([1, 2, 3]), 100 * 4.303 / math.sqrt(3) / 2, rel_tol=1e-12)
    # The interval of 20 runs estimated from 3: t(0.975, 19) = 2.093, over sqrt(20).
    assert math.isclose(fmt.ci95([1, 2, 3], 20), 100 * 2.093 / math.sqrt(20) / 2, rel_tol=1e-12)
    assert fmt.ci95([5.0] * 20) == 0.0
    for xs, runs in (([1.0], None), ([1.0, 2.0], 1), ([1.0, 2.0], 32)):
        with pytest.raises(ValueError, match="ci95"):
            fmt.ci95(xs, runs)


# ---- spread over the seeds: "the observed variance was small in most cases"


def test_seed_spreads_by_hand():
    pd = pytest.importorskip("pandas")
    rows = (
        [
            # app a: 9, 10, 11 over three seeds: sample stdev 1, mean 10 -> 10%
            ("m", "w", "p", s, "a", t)
            for s, t in ((1, 9.0), (2, 10.0), (3, 11.0))
        ]
        + [
            ("m", "w", "p", s, "b", 4.0)  # the same every seed: 0%
            for s in (1, 2, 3)
        ]
        + [("m", "w", "q", 1, "a", 5.0)]
    )  # one seed: no spread, left out
    apps = pd.DataFrame(rows, columns=["machine", "workload", "policy", "seed", "app", "turnaround_s"])
    spreads = fmt.seed_spreads(apps)
    assert spreads.keys() == {("m", "w", "p", "a"), ("m", "w", "p", "b")}
    assert spreads[("m", "w", "p", "a")] == pytest.approx(10.0)
    assert spreads[("m", "w", "p", "b")] == 0.0


def test_judge_spread_wants_more_than_half_below():
    label = "/".join
    two_of_three = {("m", "w", "p", "a"): 0.2, ("m", "w", "p", "b"): 0.5, ("m", "w", "q", "a"): 4.0}
    c = fmt.judge_spread("v", "§5.2", "small", "small in most cases", two_of_three, 1.0, label, "independent", "")
    assert (c.verdict, c.kind, c.numeric) == ("reproduced", "independent", False)
    assert c.ours == "2 of 3 app x scheduler x workload cases below 1%; median 0.50%, largest 4.0% (m/w/q/a)"
    # Half is not most: 1 of 2 below differs, its reason counting the cases above.
    c = fmt.judge_spread("v", "§5.2", "small", "t", {("a",): 0.2, ("b",): 1.0}, 1.0, label, "independent", "why")
    assert (c.verdict, c.reason) == ("differs", "the spread is 1% or more in 1 of 2 cases: why")
    # One seed measures no spread: not comparable, never reproduced by default.
    c = fmt.judge_spread("v", "§5.2", "small", "t", {}, 1.0, label, "independent", "")
    assert c.verdict == "not comparable"


# ---- a swept parameter: the paper's value the best, or within the rule of the best


def test_overall_gain_by_hand():
    # Two workloads: one of two apps (T_base / T = 2 and 0.5: geomean 1) and a single app (1.21);
    # overall sqrt(1 x 1.21) = 1.1: +10%.
    pairs = [({"a": 2.0, "b": 1.0}, {"a": 1.0, "b": 2.0}), ({"c": 1.21}, {"c": 1.0})]
    assert math.isclose(fmt.overall_gain(pairs), 10.0)


def test_judge_best_of_sweep():
    def why(best):
        return f"{best} is better"

    # 100 is 1 point behind the best's 20% (allowance 5 points): reproduced.
    c = fmt.judge_best_of_sweep("b", "§5", "100 best", "100", {50: 20.0, 100: 19.0}, 100, "gain", "independent", why)
    assert (c.verdict, c.ours) == ("reproduced", "gain: 50 +20.0%, 100 +19.0%; best 50")
    assert c.tolerance == "100 the best, or within the one rule's allowance of the best (5 points)"
    # 6 points behind: differs, with the measured cause.
    c = fmt.judge_best_of_sweep("b", "§5", "100 best", "100", {50: 20.0, 100: 14.0}, 100, "gain", "independent", why)
    assert (c.verdict, c.reason) == ("differs", "50 gives +20.0% against 100's +14.0%: 50 is better")
