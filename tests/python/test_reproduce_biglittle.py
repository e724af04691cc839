"""`ampsched reproduce biglittle`: the big.LITTLE paper's Eqs. 1-4 on hand-derived numbers, the configurations'
argument order (Eqs. 1-3 take (L, B), the paper's figures write B+L), the averages and the two changes the paper's
inconsistent pairs are held to, Table I's claims, and the quick reproduction (its claims the committed document marks
reproduced stay reproduced)."""

import math
import os

import pytest

import ampsched

if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)
pytest.importorskip("matplotlib")

from ampsched import reproductions  # noqa: E402
from ampsched.reproductions import biglittle as bl  # noqa: E402
from ampsched.reproductions.biglittle import Config, Results, Run  # noqa: E402

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
DOCUMENT = os.path.join(REPO, "docs", "reproduction", "biglittle.md")


def run(time, energy=1.0):
    return Run(time=time, energy=energy, edp=energy * time, power=energy / time, rails={})


# ---- the paper's equations, by hand


def test_configurations_are_big_first_and_name_their_machine():
    # §V writes B+L: "Four little cores (0+4)"; Eqs. 2-3's Energy(4, 0, static) is (L, B) = four little cores.
    assert str(Config(big=0, little=4)) == "0+4" and bl.BASELINE == (Config(big=0, little=4), "static")
    assert bl.machine(Config(big=4, little=1)) == "exynos5422:big=4:little=1"
    assert bl.machine(bl.ONE_LITTLE) == "exynos5422:big=0:little=1"
    assert [str(c) for c in bl.CONFIGS] == ["0+4", "2+2", "4+0", "4+1", "4+2", "4+3", "4+4"]
    assert [c.asymmetric for c in bl.CONFIGS] == [False, True, False, True, True, True, True]


def test_eq_1_to_3():
    # Eq. 1: 8.7 s on one little core, 0.87 s on the configuration: 10x.
    assert math.isclose(bl.speedup(8.7, 0.87), 10.0)
    # Eqs. 2-3: 3 J against 0+4 Static threading's 2 J.
    assert bl.normalised(3.0, 2.0) == 1.5


@pytest.mark.parametrize(
    "ratio, config, ideal",
    [
        # Eq. 4, B x ratio + L (the research summary's Fig. 2 table, derived from Table I).
        (2.18, Config(2, 2), 6.36),
        (4.16, Config(4, 1), 17.64),
        (1.73, Config(4, 4), 10.92),
        (3.48, Config(0, 4), 4.00),
        (2.96, Config(4, 4), 15.84),  # the mean ratio at 4+4
    ],
)
def test_eq_4_against_hand_derived_values(ratio, config, ideal):
    assert math.isclose(bl.ideal_speedup(ratio, config), ideal, rel_tol=1e-12)


def test_eq_4_means_from_table_i():
    # Table I's mean: 26.63 / 9 = 2.9589; the mean ideal speedup at 4+4, 4 x 2.9589 + 4 = 15.836 (15.84).
    assert math.isclose(bl.mean(bl.TABLE_I.values()), 26.63 / 9)
    assert round(bl.mean(bl.ideal_speedup(r, Config(4, 4)) for r in bl.TABLE_I.values()), 2) == 15.84
    # §V.B's ideal gain 4+0 -> 4+4 with the mean ratio: (4r + 4) / 4r - 1 = 1 / 2.96 = 33.8%.
    assert math.isclose(bl.ideal_gain(2.96, Config(4, 0), Config(4, 4)), 1 / 2.96)
    assert f"{bl.ideal_gain(2.96, Config(4, 0), Config(4, 4)):.1%}" == "33.8%"
    # 4+1 adds 1 / (4 x 2.96) = 8.4% (the summary's table).
    assert f"{bl.ideal_gain(2.96, Config(4, 0), Config(4, 1)):.1%}" == "8.4%"
    # The mean of the programs' own ideal gains would be 36.1% instead.
    gains = [bl.ideal_gain(r, Config(4, 0), Config(4, 4)) for r in bl.TABLE_I.values()]
    assert f"{bl.mean(gains):.1%}" == "36.1%"


def _results(serial, times, serial_big=None):
    """Results of two programs (PROGRAMS[:2]) with serial times `serial` and {(Config, method): (t0, t1)}."""
    a, b = bl.PROGRAMS[:2]
    runs = {(c, m, p): run(t) for (c, m), ts in times.items() for p, t in zip((a, b), ts)}
    serial_big = serial_big or serial
    return (
        Results(
            runs,
            {a: run(serial[0]), b: run(serial[1])},
            {a: run(serial_big[0]), b: run(serial_big[1])},
            {},
            {},
            {},
            {},
        ),
        (a, b),
    )


def test_speedup_change_and_execution_time_change_differ_as_the_paper_s_pairs():
    # Two programs, serial 10 s and 20 s on one little core. At 4+0 both take 2 s: speedups 5x and 10x, mean 7.5x.
    # At 4+4 they take 1 s and 2 s: 10x and 10x, mean 10x. The average speedup rises by 10 / 7.5 - 1 = +33.3%;
    # the execution time changes by the geometric mean of 1/2 and 2/2, sqrt(0.5) - 1 = -29.3%.
    c40, c44 = Config(4, 0), Config(4, 4)
    r, progs = _results((10.0, 20.0), {(c40, "tasks"): (2.0, 2.0), (c44, "tasks"): (1.0, 2.0)})
    assert math.isclose(r.avg_speedup(c40, "tasks", progs), 7.5)
    assert math.isclose(r.speedup_change(c40, c44, "tasks", progs), 1 / 3)
    assert math.isclose(r.time_change(c40, c44, "tasks", progs), math.sqrt(0.5) - 1)
    # A speedup of 1.16x is a time 13.8% shorter (the summary's reading of +16% against +13%).
    assert f"{1 - 1 / 1.16:.1%}" == "13.8%"


def test_energy_and_edp_are_normalised_to_0p4_static_per_program():
    c04, c40 = Config(0, 4), Config(4, 0)
    a, b = bl.PROGRAMS[:2]
    runs = {
        (c04, "static", a): run(4.0, energy=2.0),  # EDP 8
        (c04, "static", b): run(8.0, energy=4.0),  # EDP 32
        (c40, "tasks", a): run(1.0, energy=3.0),  # energy 1.5x, EDP 3 / 8
        (c40, "tasks", b): run(2.0, energy=2.0),  # energy 0.5x, EDP 4 / 32
    }
    r = Results(runs, {}, {}, {}, {}, {}, {})
    assert math.isclose(r.avg_norm(c40, "tasks", "energy", (a, b)), (1.5 + 0.5) / 2)
    assert math.isclose(r.avg_norm(c40, "tasks", "edp", (a, b)), (3 / 8 + 4 / 32) / 2)
    # Average power: each run's energy over its time, averaged: (3 + 1) / 2.
    assert math.isclose(r.avg_power(c40, "tasks", (a, b)), 2.0)


def test_table_i_claims_on_table_i_s_own_ratios():
    # A model whose one-core ratios are Table I's: every Table I claim reproduced; Eq. 4's gain with the mean 2.96 is
    # 1 / 2.96 = +33.8% by construction, with the model's ratios (mean 26.63 / 9) 1 / 2.9589 = +33.8% too.
    serial = {p: run(v) for p, v in bl.TABLE_I.items()}
    r = Results({}, serial, {p: run(1.0) for p in bl.PROGRAMS}, {p: run(1.0) for p in bl.PROGRAMS}, {}, {}, {})
    claims = {c.id: c for c in bl.table_i_claims(r)}
    assert {c.verdict for c in claims.values()} == {"reproduced"}
    assert claims["table1-ratios"].kind == claims["table1-mean"].kind == "calibrated"
    assert claims["eq4-ideal-gain-table1"].kind == "by construction"
    assert claims["eq4-ideal-gain-table1"].ours.startswith("+33.8% (ideal mean speedup at 4+4: 15.84x)")
    assert claims["eq4-ideal-gain-model"].ours == "+33.8%"
    # A ratio 30% off Table I's for one program breaks the ratios' claim (25% by the one rule, on the gain over 1).
    serial["canneal"] = run(bl.TABLE_I["canneal"] * 1.3)
    claims = {c.id: c for c in bl.table_i_claims(Results({}, serial, r.serial_big, r.tasks_big, {}, {}, {}))}
    assert claims["table1-ratios"].verdict == "differs"


def test_fig_9_samples_as_often_per_run_as_the_paper_s_daemon():
    # 0.27 s in the paper's 312 s run; a run of 3.12 s is sampled every 2.7 ms: 1,155 samples either way.
    assert math.isclose(bl.trace_interval(312.0), 0.27)
    assert math.isclose(bl.trace_interval(3.12), 0.0027)


def test_task_workloads_name_the_runtime_s_choices():
    assert bl.workload("canneal", "static") == bl.workload("canneal", "gts") == "parsec-canneal"
    assert bl.workload("canneal", "serial") == "parsec-canneal-serial"
    assert bl.workload("canneal", "tasks") == "parsec-canneal-tasks"
    # The runtime's per-run options (docs/task-runtime.md): only those that differ from the catalog's FIFO, main free.
    assert bl.workload("canneal", "tasks", scheduler="cats") == "tasks:scheduler=cats:parsec-canneal-tasks"
    assert bl.workload("canneal", "tasks", main="big") == "tasks:main=big:parsec-canneal-tasks"
    assert (
        bl.workload("canneal", "tasks", "steal", "little") == "tasks:scheduler=steal:main=little:parsec-canneal-tasks"
    )
    with pytest.raises(ValueError, match="unknown method"):
        bl.workload("canneal", "openmp")


# ---- the reproduction, quick


def _missing() -> list:
    """What this build lacks to run the reproduction: policies, then catalog workloads."""
    return bl.missing_policies() + bl.missing_workloads()


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    missing = _missing()
    if missing:
        pytest.skip(f"this build lacks what the reproduction runs: {', '.join(missing)}")
    # The run test_reproduce.py's every-reproduction tests make (two jobs), once per session.
    from test_reproduce import quick_run

    return quick_run("biglittle", 2, tmp_path_factory)


def test_the_quick_reproduction_runs_and_draws_the_paper_s_figures(quick):
    folder, claims, text = quick
    ids = list(claims["id"])
    assert len(ids) == len(set(ids)) and len(ids) >= 60
    for stem, fig in (
        ("fig2", "Fig. 2"),
        ("fig3-5", "Figs. 3, 4 and 5"),
        ("fig6", "Fig. 6"),
        ("fig9", "Fig. 9"),
        ("fig10", "Fig. 10"),
    ):
        file = f"biglittle-{stem}.png"
        assert (folder / file).read_bytes()[:4] == b"\x89PNG" and f"]({file})" in text
        assert f"*Redraws the big.LITTLE paper's {fig}" in text
    # Eq. 4 with Table I's ratios holds by construction, whatever the runs.
    row = claims.set_index("id").loc["eq4-ideal-gain-table1"]
    assert row["verdict"] == "reproduced" and row["ours"].startswith("+33.8%")


def test_claims_the_committed_document_marks_reproduced_stay_reproduced_in_quick_mode(quick):
    if not os.path.isfile(DOCUMENT):
        pytest.skip("docs/reproduction/biglittle.md is not committed yet (`ampsched reproduce biglittle`)")
    committed = reproductions.read_claims(DOCUMENT)
    now = dict(zip(quick[1]["id"], quick[1]["verdict"]))
    assert set(now) == set(committed), "the claims changed; regenerate the document"
    # QUICK_ESTIMATES: claims at their condition's edge, where one seed and five may disagree (the module says why).
    assert set(bl.QUICK_ESTIMATES) <= set(now)
    broken = [
        c for c, v in committed.items() if v == "reproduced" and now[c] != "reproduced" and c not in bl.QUICK_ESTIMATES
    ]
    assert not broken, f"no longer reproduced in the quick version: {broken}"


def test_the_quick_version_passes_every_reproduction_s_checks(quick):
    from test_reproduce import check_quick

    check_quick("biglittle", quick)
