"""The design-space study's machinery: mix workloads (`mix:...`), the engine's batch path for them
(`_core.run_mix_rows`, sweep's `batch_table`) against the ordinary one-run-at-a-time path, the
window of a program, determinism, and the study's arithmetic. The quick study itself runs in
test_reproduce.py."""

import json

import pytest

import ampsched
from test_cli import assert_one_line_error, run_module

if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)

from ampsched import _sweep  # noqa: E402
from ampsched._sweep_store import merged, rows_table  # noqa: E402
from ampsched.reproductions import fairness_study as study  # noqa: E402

MACHINE = study.MACHINE
SETTINGS = {"slice_ms": 6.0, "max_sim_s": 1e6, "max_events": 10**9, "counter_noise": 0.0}
MIXES = [
    study.mix_name(("perlbench", "mcf_2006", "lbm", "gamess", "milc", "astar")),
    study.mix_name(("lbm",) * 5 + ("gamess",)),
    study.mix_name(
        ("gcc_2006", "astar", "astar", "soplex", "namd", "bwaves")
    ),  # phased programs: windows across phases
    "mix:hmmer+lbm",  # whole programs, no window
]


def runs(policy, mixes=MIXES, seed=1):
    return [(MACHINE, mix, policy, seed, SETTINGS) for mix in mixes]


@pytest.mark.parametrize("policy", ["busyfcs", "static-ipc-driven", study.POLICY])
def test_the_batch_path_gives_the_rows_of_the_ordinary_path_value_for_value(policy):
    # The ordinary path: a run_row per mix (catalog parsed, solo runs made, per run); the batch
    # path: one call for all of them. Same table, every column, bit for bit.
    single = merged([rows_table(_sweep.run_batch(runs(policy)))])
    batch, failed = _sweep.batch_table(runs(policy))
    assert failed == 0
    assert batch.column_names == single.column_names
    for name in single.column_names:
        assert batch.column(name).equals(single.column(name)), name
    apps = dict(zip(batch.column("workload").to_pylist(), map(json.loads, batch.column("apps_json").to_pylist())))
    assert [len(apps[mix]) for mix in MIXES] == [6, 6, 6, 2]
    assert [a["name"] for a in apps[MIXES[1]]] == ["lbm", "lbm#2", "lbm#3", "lbm#4", "lbm#5", "gamess"]


def test_the_batch_path_is_deterministic_and_its_solo_cache_does_not_leak_between_mixes():
    # The cache carries one mix's solo runs to the next: a mix alone and the same mix after others
    # give the same row.
    first, _ = _sweep.batch_table(runs("static-ipc-driven"))
    again, _ = _sweep.batch_table(runs("static-ipc-driven"))
    assert first.equals(again)
    alone, _ = _sweep.batch_table(runs("static-ipc-driven", MIXES[2:3]))
    row = first.slice(first.column("workload").to_pylist().index(MIXES[2]), 1)
    assert row.equals(alone)


def test_a_sweep_of_mixes_writes_the_same_bytes_every_time(tmp_path):
    outputs = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.parquet"
        ampsched.sweep([MACHINE], MIXES, ["busyfcs"], seeds=[1, 2], jobs=2, output=str(path), progress=False)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]


def test_a_window_runs_exactly_its_instructions_at_the_machines_speed():
    # gamess (cpi 0.6, 0.03 misses per 1000 instructions at 2 MB, one at a time) alone, its window
    # of 1e8 instructions: on a fast core (2 GHz, cpi_scale 1) 1e8 x (0.6 / 2 + 0.03e-3 x 70) ns
    # = 30.21 ms, its solo reference; `static` puts the one thread on a slow core (cpi_scale 2):
    # 1e8 x (1.2 / 2 + 0.0021) ns = 60.21 ms.
    mix = study.mix_name(("gamess",))
    scalars, apps = ampsched._core.run_row(MACHINE, mix, "static", 1, 6.0, 1e6, 10**9)
    assert json.loads(scalars)["instructions"] == pytest.approx(study.WINDOW, rel=1e-9)
    app = json.loads(apps)[0]
    assert app["solo_s"] == pytest.approx(0.03021, rel=1e-6)
    assert app["turnaround_s"] == pytest.approx(0.06021, rel=1e-6)
    assert json.loads(ampsched._core.sf_estimation(MACHINE, mix))[0]["observed_sf"] == pytest.approx(60.21 / 30.21)


def test_a_window_across_phases_takes_each_phases_part():
    # gcc_2006's first phase retires 8.7e9 instructions: a window from 8.65e9 of 1e8 is half in
    # the first phase and half in the second, 1e8 in all. On a fast core (2 GHz, cpi 1.0, 0.48 and
    # 5.3 misses per 1000 instructions at 2 MB, 70 ns each): 5e7 x (0.5 + 0.0336) ns + 5e7 x (0.5 +
    # 0.371) ns = 26.68 + 43.55 = 70.23 ms, the solo reference.
    mix = "mix:skip=8.65e9:instructions=1e8:gcc_2006"
    scalars, apps = ampsched._core.run_row(MACHINE, mix, "static", 1, 6.0, 1e6, 10**9)
    assert json.loads(scalars)["instructions"] == pytest.approx(1e8, rel=1e-9)
    assert json.loads(apps)[0]["solo_s"] == pytest.approx(0.07023, rel=1e-6)


@pytest.mark.parametrize(
    "workload, message",
    [
        ("mix:", "expected catalog program names"),
        ("mix:lbm++lbm", "none empty"),
        ("mix:nosuch+lbm", "no program 'nosuch' in the catalog"),
        ("mix:skip=1e9:lbm", "give instructions=N"),
        ("mix:skip=x:instructions=1e8:lbm", "'x' is not a number"),
        ("mix:instructions=0:lbm", "must be greater than 0"),
        ("mix:speed=2:lbm", "unknown option"),
        ("mix:skip=1e15:instructions=1e8:lbm", "fewer than skip + instructions"),
    ],
)
def test_a_bad_mix_is_one_line_naming_it(workload, message):
    done = run_module("run", "--machine", MACHINE, "--workload", workload, "--policy", "static")
    assert done.returncode == 2
    line = assert_one_line_error(done.stderr)
    assert workload.strip() in line and message in line, line


def test_a_sweep_refuses_a_bad_mix_before_any_run():
    with pytest.raises(ampsched.InputError, match="no program 'nosuch'"):
        ampsched.sweep([MACHINE], MIXES[:1] + ["mix:nosuch"], ["busyfcs"], progress=False)


def test_the_study_has_every_mix_once():
    mixes = study.all_mixes()
    assert len(mixes) == 376_740  # C(28, 6): 23 programs, 6 at a time, with repetition (Kim & Huh §4.1)
    assert len(set(mixes)) == len(mixes) and len(study.PROGRAMS) == 23 and study.LEFT_OUT not in study.PROGRAMS
    catalog = {p["name"] for p in json.loads(ampsched._core.list_catalog("programs"))}
    assert set(study.PROGRAMS) | {study.LEFT_OUT} <= catalog


def test_the_fair_share_base_and_max_perf_by_hand():
    import numpy as np

    # e = 3 on 2 fast + 4 slow: base 3 * 1/3 + 2/3 = 5/3; with a fast core T = 3 / (5/3) = 1.8,
    # without 1 / (5/3) = 0.6 (the paper's minF = 3/(e+2) with F = 2, N = 6).
    assert study.fair_share_base(3.0) == pytest.approx(5 / 3)
    eff = np.array([[3.0, 2.0, 2.5, 1.0, 1.5, 1.2]])
    t = study.model_t(eff)[0]
    assert t == pytest.approx([1.8, 0.75, 2.5 / (2.5 / 3 + 2 / 3), 1.0, 1 / (1.5 / 3 + 2 / 3), 1 / (1.2 / 3 + 2 / 3)])
    assert study.ks(np.array([1.0, 2.0]), np.array([1.0, 2.0])) == 0
    assert study.ks(np.array([1.0, 2.0]), np.array([3.0, 4.0])) == 1
