"""ampsched.fairness: Kim & Huh's share model from Python, with values derived by hand (each test
says how), and its errors. The model itself is tested in Rust (crates/policy/tests/it/
fairness_model.rs); these check that the wrapper passes and returns what it says."""

import math

import pytest

import ampsched

pytest.importorskip("ampsched._core")

fair = ampsched.fairness

TOY = [3.3, 3.2, 2.6, 2.1, 1.8, 1.7]


def approx(values, tol=1e-12):
    return pytest.approx(values, abs=tol)


def test_min_fair_shares_and_throughputs():
    # e = [3, 2, 1.5], c = 1, F = 1, fair-share base: f_b = 1/3, perf_base = 1 + (e − 1)/3 =
    # [5/3, 4/3, 7/6]. Target 0.9: required (0.9 perf_base − 1)/(e − 1) = [0.25, 0.2, 0.1]; the
    # remaining 0.45 to thread 0 → f = [0.7, 0.2, 0.1], T = [1.44, 0.9, 0.9]; mean 3.24/3 = 1.08.
    df = fair.shares(e=[3, 2, 1.5], policy="min-fair", target=0.9, fast_cores=1)
    assert list(df.columns) == ["e", "c", "f", "s", "perf_base", "T"]
    assert df.index.name == "thread"
    assert list(df["f"]) == approx([0.7, 0.2, 0.1])
    assert list(df["s"]) == approx([0.3, 0.8, 0.9])
    assert list(df["perf_base"]) == approx([5 / 3, 4 / 3, 7 / 6])
    assert list(df["T"]) == approx([1.44, 0.9, 0.9])
    assert df.attrs["throughput"] == pytest.approx(1.08, abs=1e-12)
    assert df.attrs["min_fairness"] == pytest.approx(0.9, abs=1e-12)
    assert math.isnan(df.attrs["alpha"])
    assert (df.attrs["base"], df.attrs["policy"], df.attrs["target"], df.attrs["fast_cores"]) == (
        "fair",
        "min-fair",
        0.9,
        1.0,
    )


def test_each_base_of_max_fair():
    # Slow only: f ∝ c/(e − 1): e = [2, 3, 1.5] → weights [1, 0.5, 2]/3.5, T = 1 + 1/3.5 = 9/7.
    df = fair.shares(e=[2, 3, 1.5], base="slow", fast_cores=1)
    assert list(df["f"]) == approx([2 / 7, 1 / 7, 4 / 7])
    assert list(df["T"]) == approx([9 / 7] * 3)
    # Fast only: (1 + f0)/2 = (1 + 3 f1)/4 with f0 + f1 = 1 → [0.4, 0.6], T = 0.7 each.
    df = fair.shares(e=[2, 4], base="fast", fast_cores=1)
    assert list(df["f"]) == approx([0.4, 0.6])
    assert df.attrs["uniformity"] == pytest.approx(1.0, abs=1e-12)
    # Fair share with unequal c: f = c/Σc · F = [0.5, 0.5, 1.0].
    df = fair.shares(e=[2, 3, 1.5], c=[1, 1, 2], fast_cores=2)
    assert list(df["f"]) == approx([0.5, 0.5, 1.0])


def test_printed_and_normalised_slow_only_forms():
    # e = [2, 3, 1.5], c = [1, 0.5, 0.8], F = 1: the printed formula gives [0.1, 0.3, 0.6] (equal
    # absolute performance 1.1), the normalised one c/(e − 1)/2.85 = [1, 0.25, 1.6]/2.85.
    kw = dict(e=[2, 3, 1.5], c=[1, 0.5, 0.8], base="slow", fast_cores=1)
    assert list(fair.shares(form="printed", **kw)["f"]) == approx([0.1, 0.3, 0.6])
    assert list(fair.shares(**kw)["f"]) == approx([1 / 2.85, 0.25 / 2.85, 1.6 / 2.85])


def test_uni_fair_alpha():
    # e = [3, 2], F = 1: U(α) = 1 − 5α/(12 + α); target 0.9: first guess 0.26, lowered to 0.24.
    m = fair.metrics(e=[3, 2], policy="uni-fair", target=0.9, fast_cores=1)
    assert m["alpha"] == pytest.approx(0.24, abs=1e-9)
    assert m["uniformity"] == pytest.approx(1 - 1.2 / 12.24, abs=1e-9)


def test_sim_fair_and_its_safe_variant():
    # e = [3.0, 2.9, 2.0], F = 1: similarity 0.2 pools threads 0 and 1: [0.5, 0.5, 0].
    assert list(fair.shares(e=[3.0, 2.9, 2.0], policy="sim-fair", similarity=0.2, fast_cores=1)["f"]) == approx(
        [0.5, 0.5, 0]
    )
    # Combined-fair, slow base, minF 1.4, e = [3, 2.8, 1.9], F = 1: min-fair gives [1/3, 2/9, 4/9]
    # (required 0.4/(e − 1) = [0.2, 2/9, 4/9], the rest to thread 0); similarity 1.2 groups all
    # three. The paper's averaging gives [1/3; 3], thread 2 falls to T = 1 + 0.9/3 = 1.3; the safe
    # variant holds it at 4/9 and shares 5/9 equally: [5/18, 5/18, 4/9], T = [14/9, 1.5, 1.4].
    # Uniformity target 0.3 is met by both (α = 1: no blend with max-fair).
    kw = dict(
        e=[3.0, 2.8, 1.9],
        base="slow",
        policy="combined-fair",
        similarity=1.2,
        min_target=1.4,
        uni_target=0.3,
        fast_cores=1,
    )
    safe = fair.shares(**kw)
    assert list(safe["f"]) == approx([5 / 18, 5 / 18, 4 / 9])
    assert list(safe["T"]) == approx([14 / 9, 1.5, 1.4])
    assert safe.attrs["alpha"] == 1.0
    plain = fair.shares(safe=False, **kw)
    assert list(plain["f"]) == approx([1 / 3] * 3)
    assert plain.attrs["min_fairness"] == pytest.approx(1.3, abs=1e-12)
    # Sim-fair with a target keeps min(current, required) shares: from max-perf [1, 0, 0] no one is
    # above its required share but thread 0, so here the same as the plain averaging.
    df = fair.shares(e=[3.0, 2.8, 1.9], base="slow", policy="sim-fair", similarity=1.2, target=1.4, fast_cores=1)
    assert list(df["f"]) == approx([1 / 3] * 3)


def test_the_toy_table():
    # Our notes' toy check (values from an independent Python reconstruction, 3 decimals).
    table = fair.compare(e=TOY, min_target=0.85, uni_target=0.7)
    assert table.loc["max-perf", ["throughput", "min_fairness", "uniformity"]].tolist() == approx(
        [1.116, 0.652, 0.529], 5e-4
    )
    assert table.loc["min-fair", ["throughput", "min_fairness", "uniformity"]].tolist() == approx(
        [1.080, 0.850, 0.652], 5e-4
    )
    assert table.loc["uni-fair", ["throughput", "min_fairness", "uniformity"]].tolist() == approx(
        [1.071, 0.789, 0.702], 5e-4
    )
    assert table.loc["combined-fair", ["throughput", "min_fairness", "uniformity"]].tolist() == approx(
        [1.078, 0.850, 0.701], 5e-4
    )
    assert table.loc["uni-fair", "alpha"] == pytest.approx(0.61, abs=0.005)
    assert list(table.index) == list(fair.POLICIES)


@pytest.mark.parametrize(
    "kwargs, says",
    [
        (dict(base="fair_share"), 'ampsched.fairness: base: unknown base "fair_share" (known: fair, slow, fast)'),
        (
            dict(policy="minfair"),
            'ampsched.fairness: policy: unknown policy "minfair" (known: max-perf, max-fair, min-fair, uni-fair, sim-fair, combined-fair)',
        ),
        (dict(e=[2, -1]), "ampsched.fairness: e[1]: must be a finite number > 0, got -1"),
        (dict(e=[2, float("nan")]), "ampsched.fairness: e[1]: must be a finite number > 0, got NaN"),
        (dict(c=[1]), "ampsched.fairness: c: 1 values for 2 threads (one per value of e)"),
        (dict(c=[1, 0]), "ampsched.fairness: c[1]: must be a finite number > 0, got 0"),
        (dict(e=[]), "ampsched.fairness: e: the mix has no threads"),
        (dict(fast_cores=-1), "ampsched.fairness: fast_cores: must be a finite number ≥ 0, got -1"),
        (dict(policy="min-fair"), "ampsched.fairness: target: min-fair needs it"),
        (
            dict(policy="min-fair", target=85),
            "ampsched.fairness: target: must be a fraction > 0 and ≤ 10 (0.85 for 85%), got 85",
        ),
        (
            dict(policy="uni-fair", target=1.2),
            "ampsched.fairness: target: must be a uniformity > 0 and ≤ 1 (0.8 for 80%), got 1.2",
        ),
        (
            dict(policy="max-perf", target=0.8),
            "ampsched.fairness: target: max-perf does not take it (it takes no parameters)",
        ),
        (dict(policy="combined-fair", min_target=0.85), "ampsched.fairness: uni_target: combined-fair needs it"),
        (
            dict(policy="sim-fair", similarity=-0.1),
            "ampsched.fairness: similarity: must be an efficiency difference from 0 to 10, got -0.1",
        ),
        (dict(form="print"), 'ampsched.fairness: form: unknown form "print" (known: normalised, printed)'),
        (
            dict(form="printed", policy="max-perf"),
            "ampsched.fairness: form: 'printed' is the paper's max-fair formula; max-perf uses the normalised one",
        ),
        (dict(e="3,2"), "ampsched.fairness: e: must be a list of numbers, got '3,2'"),
        (dict(e=[3, "x"]), "ampsched.fairness: e[1]: must be a number, got 'x'"),
        (dict(target="high", policy="min-fair"), "ampsched.fairness: target: must be a number, got 'high'"),
    ],
)
def test_bad_input_is_one_line(kwargs, says):
    args = dict(e=[2, 3])
    args.update(kwargs)
    with pytest.raises(ampsched.InputError) as raised:
        fair.shares(**args)
    assert str(raised.value) == says


def test_shares_decided_on_estimates_outcome_on_the_truth():
    # Estimates e = [2, 3] put thread 1 on the fast core (max-perf, F = 1): f = [0, 1]. The truth is [3, 2]:
    # fair-share base f_b = 0.5, perf_base = [2, 1.5]; T = [1/2, 2/1.5].
    df = fair.shares(e=[2, 3], e_true=[3, 2], policy="max-perf", fast_cores=1)
    assert list(df["f"]) == approx([0, 1])
    assert list(df["perf_base"]) == approx([2, 1.5])
    assert list(df["T"]) == approx([0.5, 4 / 3])
    with pytest.raises(ampsched.InputError, match="e_true: 1 values for 2 threads"):
        fair.shares(e=[2, 3], e_true=[3])


def test_metrics_of_measured_throughputs():
    # T = [1, 2, 3]: mean 2, min 1, uniformity 1 − √(2/3)/2 (population σ).
    t, m, u = ampsched._core.fairness_metrics([1.0, 2.0, 3.0])
    assert (t, m) == (2.0, 1.0)
    assert u == pytest.approx(1 - (2 / 3) ** 0.5 / 2, abs=1e-15)
    with pytest.raises(ampsched.InputError, match="T: must be one or more finite numbers"):
        ampsched._core.fairness_metrics([])
