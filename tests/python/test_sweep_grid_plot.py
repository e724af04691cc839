"""Issue 25's sweep additions (docs/sweeps-and-plots.md): policy option grids, the counter noise
of a sweep, rows naming machines and workloads as compare does, and `ampsched plot`."""

import os
import shutil

import pytest

import ampsched
from ampsched import cli
from test_cli import assert_one_line_error

pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")
if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)

from ampsched._sweep import expand_policies  # noqa: E402


class Proc:
    """What `ampsched ARGS` gave, run in this process (a child's start-up costs seconds here)."""

    def __init__(self, capsys, *args):
        try:
            self.returncode = cli.main([str(a) for a in args])
        except SystemExit as stop:  # argparse's errors
            self.returncode = stop.code
        self.stderr = capsys.readouterr().err


GRID = "rr:threshold_ms=25|50|100:quantum_ms=5|10"
# hass-d reads counters (its speedup factors are estimated from them); rr reads none. On this
# machine and workload hass-d migrates 14 times with exact counters and 35 times at the default
# noise (test_counter_noise checks the same runs through ampsched.run).
NOISE_M, NOISE_W = "2fc-2sc-amd", "lh1"


def test_a_grid_is_the_product_of_its_options_last_fastest():
    assert expand_policies([GRID, "busyfcs"]) == [
        "rr:threshold_ms=25:quantum_ms=5",
        "rr:threshold_ms=25:quantum_ms=10",
        "rr:threshold_ms=50:quantum_ms=5",
        "rr:threshold_ms=50:quantum_ms=10",
        "rr:threshold_ms=100:quantum_ms=5",
        "rr:threshold_ms=100:quantum_ms=10",
        "busyfcs",
    ]
    # A variant also given alone is one policy, not two runs of the same spec.
    assert expand_policies(["rr:threshold_ms=25", "rr:threshold_ms=25|50"]) == [
        "rr:threshold_ms=25",
        "rr:threshold_ms=50",
    ]


def test_api_sweep_of_a_grid_says_its_count_first():
    said = []
    df = ampsched.sweep(
        "dvfs-2x", "demo", "rr:threshold_ms=25|50:quantum_ms=5|10", seeds="1-2", jobs=1, announce=said.append
    )
    assert said == ["1 machine × 1 workload × 4 policy variants × 2 seeds = 8 runs"]
    assert len(df) == 8
    assert sorted(set(df["policy"])) == sorted(expand_policies(["rr:threshold_ms=25|50:quantum_ms=5|10"]))
    # Each variant runs as its spec alone would.
    one = ampsched.run("dvfs-2x", "demo", "rr:threshold_ms=50:quantum_ms=5", seed=2).raw
    row = df[(df.policy == "rr:threshold_ms=50:quantum_ms=5") & (df.seed == 2)].iloc[0]
    assert row["makespan_s"] == one["makespan_s"] and row["migrations"] == one["migrations"]


def test_cli_grid_count_and_bad_grids(tmp_path, capsys):
    out = tmp_path / "g.parquet"
    base = ["sweep", "--machines", "dvfs-2x", "--workloads", "demo", "--seeds", "1", "--output", str(out)]
    proc = Proc(capsys, *base, "--policies", f"{GRID},busyfcs", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "ampsched: sweep: 1 machine × 1 workload × 7 policy variants × 1 seed = 7 runs"
    assert lines[-1].endswith(f"7 rows in {out}")
    for grid, message in [
        ("rr:threshold_ms=25|50:qq=5|10", "unknown option 'qq' (rr takes: quantum_ms, threshold_ms, prefer_local)"),
        ("rr:threshold_ms=25||50", "'threshold_ms=25||50': an option grid is key=value|value|..., without empty"),
        ("rr:threshold_ms=25|abc", "option 'threshold_ms' must be a number"),
    ]:
        proc = Proc(capsys, *base[:-1], str(tmp_path / "bad.parquet"), "--policies", grid)
        assert proc.returncode == 2
        assert message in assert_one_line_error(proc.stderr)
        assert not os.path.exists(tmp_path / "bad.parquet")


def test_counter_noise_is_recorded_and_changes_what_reads_counters(tmp_path):
    frames = {
        noise: ampsched.sweep(NOISE_M, NOISE_W, "hass-d,rr", seeds=1, jobs=1, counter_noise=noise)
        for noise in (0.0, 0.02)
    }
    for noise, df in frames.items():
        assert (df["counter_noise"] == noise).all()
    by = {n: df.set_index("policy") for n, df in frames.items()}
    assert by[0.0].loc["hass-d", "migrations"] == 14 and by[0.02].loc["hass-d", "migrations"] == 35
    assert by[0.0].loc["rr", "makespan_s"] == by[0.02].loc["rr", "makespan_s"]
    # The default is the engine's, recorded as such.
    assert (ampsched.sweep("dvfs-2x", "demo", "rr", jobs=1)["counter_noise"] == 0.02).all()


def test_cli_counter_noise_resume_and_errors(tmp_path, capsys):
    out = tmp_path / "n.parquet"
    base = ["sweep", "--machines", NOISE_M, "--workloads", NOISE_W, "--policies", "hass-d", "--output", str(out)]
    assert Proc(capsys, *base, "--counter-noise", "0").returncode == 0
    # The same noise: kept; another noise changes the result, so the run is made again.
    assert "0 runs, 0 failed" in Proc(capsys, *base, "--counter-noise", "0", "--resume").stderr
    proc = Proc(capsys, *base, "--counter-noise", "0.1", "--resume")
    assert "1 runs, 0 failed" in proc.stderr and "0 kept" not in proc.stderr
    assert ampsched.read_sweep(out)["counter_noise"].tolist() == [0.1]
    proc = Proc(capsys, *base, "--counter-noise", "0.5", "--force")
    assert proc.returncode == 2
    assert "--counter-noise: must be from 0 to 0.25" in assert_one_line_error(proc.stderr)
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(f'machines = "{NOISE_M}"\nworkloads = "{NOISE_W}"\npolicies = "rr"\ncounter_noise = -1\n')
    proc = Proc(capsys, "sweep", str(sweep_file), "--output", str(tmp_path / "f.parquet"))
    assert proc.returncode == 2
    assert f"{sweep_file}: counter_noise: must be from 0 to 0.25" in assert_one_line_error(proc.stderr)


def test_rows_name_machines_and_workloads_as_compare_does(tmp_path):
    # A copy of a catalog machine under another file name: its name is the one inside it.
    copy = tmp_path / "my-machine.toml"
    shutil.copy(os.path.join(os.path.dirname(__file__), "..", "..", "catalog", "machines", "2fc-2sc-amd.toml"), copy)
    out = tmp_path / "r.parquet"
    df = ampsched.sweep(["2fc-2sc-amd", str(copy)], "demo", "rr", jobs=1, output=out)
    compared = ampsched.compare(str(copy), "demo", ["rr"])
    assert set(df["machine"]) == {compared["machine"].iloc[0]} == {"2fc-2sc-amd"}
    assert sorted(df["machine_path"].fillna("-")) == sorted(["-", str(copy)])
    assert df["workload"].tolist() == ["demo", "demo"] and df["workload_path"].isna().all()
    assert len(df.attrs["apps"][["machine_path", "seed"]].fillna("-").drop_duplicates()) == 2
    # The file's run is the path's: --resume keeps both, verify re-runs both from the path.
    again = ampsched.sweep(["2fc-2sc-amd", str(copy)], "demo", "rr", jobs=1, output=out, resume=True)
    assert again.attrs["sweep"]["skipped"] == 2 and again.attrs["sweep"]["ran"] == 0
    assert ampsched.verify_sweep(out)["identical"].all()


@pytest.fixture(scope="module")
def grid_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "grid.parquet"
    ampsched.sweep("dvfs-2x", "demo", "rr:threshold_ms=25|50|100:quantum_ms=5|10", seeds="1-2", jobs=2, output=out)
    return out


def test_plot_one_line_per_policy_without_the_x_option(grid_file):
    fig = ampsched.plot(grid_file, x="threshold_ms", y="makespan_s")
    (ax,) = fig.axes
    assert sorted(line.get_label() for line in ax.get_lines()) == ["rr:quantum_ms=10", "rr:quantum_ms=5"]
    df = ampsched.read_sweep(grid_file)
    mine = df[df.policy == "rr:threshold_ms=50:quantum_ms=5"]["makespan_s"]
    line = next(line for line in ax.get_lines() if line.get_label() == "rr:quantum_ms=5")
    assert list(line.get_xdata()) == [25.0, 50.0, 100.0]
    assert line.get_ydata()[1] == pytest.approx(mine.mean(), rel=1e-12)
    assert "band: min-max over seeds" in ax.get_title(loc="left") and "2 per point" in ax.get_title(loc="left")


def test_plot_png_same_bytes_and_no_overwrite(grid_file, tmp_path, capsys):
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    for out in (first, second):
        proc = Proc(capsys, "plot", str(grid_file), "--x", "threshold_ms", "--y", "antt", "--out", str(out))
        assert proc.returncode == 0, proc.stderr
    data = first.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data == second.read_bytes()
    proc = Proc(capsys, "plot", str(grid_file), "--x", "seed", "--y", "stp", "--out", str(first))
    assert proc.returncode == 2
    assert f"out: {first} exists: give another name, or --force" in assert_one_line_error(proc.stderr)
    assert first.read_bytes() == data  # untouched
    proc = Proc(capsys, "plot", str(grid_file), "--x", "seed", "--y", "stp", "--out", str(first), "--force")
    assert proc.returncode == 0 and first.read_bytes() != data
    with pytest.raises(ampsched.InputError, match="exists"):
        ampsched.plot(grid_file, x="seed", y="stp", out=second)


@pytest.mark.parametrize(
    "args, message, lists_options",
    [
        (["--x", "thr", "--y", "antt"], "x: no column 'thr' (columns: machine, workload, policy, seed,", True),
        (["--x", "seed", "--y", "speed"], "y: no column 'speed' (columns: antt, makespan_s,", False),
        (["--x", "seed", "--y", "antt", "--hue", "colour"], "hue: no column 'colour' (columns: machine,", True),
    ],
)
def test_plot_unknown_columns(grid_file, tmp_path, capsys, args, message, lists_options):
    out = tmp_path / "x.png"
    proc = Proc(capsys, "plot", str(grid_file), *args, "--out", str(out))
    assert proc.returncode == 2
    line = assert_one_line_error(proc.stderr)
    assert message in line
    # The grid's options are parameters (x, hue), not metrics (y).
    assert ("threshold_ms" in line.partition("columns: ")[2]) == lists_options
    assert not out.exists()
