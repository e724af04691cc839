"""Power rails and machine configurations from Python and the command line (docs/power.md):
run(power_trace=...) and Result.power_trace, the rail columns of a summary and of a sweep's
rows, machine configurations (exynos5422:big=B:little=L) through run, sweep and the CLI, and
their errors (one line, exit status 2)."""

import pytest

import ampsched
from test_cli import assert_one_line_error, run_module

pytest.importorskip("ampsched._core")

WORKLOAD = "dacapo-lusearch"  # a short Java program: threads that come and go, on both clusters


def test_power_trace_is_a_frame_of_the_rails_that_integrates_to_their_energy():
    r = ampsched.run("exynos5422", WORKLOAD, "oblivious", power_trace=0.05)
    trace = r.power_trace
    assert list(trace.columns) == ["a15", "a7", "mem"] and trace.index.name == "time_s"
    assert trace.index[-1] == pytest.approx(r.raw["makespan_s"])
    windows = trace.index.to_series().diff().fillna(trace.index[0])
    for rail, joules in r.raw["rail_energy_j"].items():
        assert (trace[rail] * windows).sum() == pytest.approx(joules, rel=1e-9), rail
    # The whole chip's power, Fig. 9's upper curve, averages to the run's mean power.
    assert (trace.sum(axis=1) * windows).sum() / r.raw["makespan_s"] == pytest.approx(r.raw["avg_power_w"], rel=1e-9)
    # The summary has one column per rail, which sum to the energy.
    rails = r.summary.filter(like="rail_energy_j.")
    assert list(rails.columns) == ["rail_energy_j.a15", "rail_energy_j.a7", "rail_energy_j.mem"]
    assert rails.iloc[0].sum() == pytest.approx(r.raw["energy_j"], rel=1e-12)


def test_power_trace_true_samples_as_the_paper_and_false_gives_none():
    r = ampsched.run("exynos5422", WORKLOAD, "oblivious", power_trace=True)
    assert r.raw["power_trace"]["interval_s"] == 0.27
    assert ampsched.run("exynos5422", WORKLOAD, "oblivious").power_trace is None


@pytest.mark.parametrize(
    "value, message",
    [
        ("yes", "power_trace: must be True, False or a sampling interval in seconds, got 'yes'"),
        (0, "--power-trace: must be from 1e-6 to 86400 s, got 0"),
        (float("nan"), "--power-trace: must be from 1e-6 to 86400 s, got NaN"),
    ],
)
def test_bad_power_trace_is_an_input_error(value, message):
    with pytest.raises(ampsched.InputError) as error:
        ampsched.run("exynos5422", WORKLOAD, "oblivious", power_trace=value)
    assert str(error.value) == message


def test_a_configuration_is_a_machine_everywhere():
    r = ampsched.run("exynos5422:big=2:little=2", WORKLOAD, "oblivious")
    assert r.raw["machine"] == "exynos5422:big=2:little=2"
    assert list(r.cores["type"]) == ["big", "big", "little", "little"]
    # The big cluster off: it draws nothing, and the A7 and memory rails draw the rest.
    off = ampsched.run("exynos5422:big=0", WORKLOAD, "oblivious").raw
    assert off["rail_energy_j"]["a15"] == 0.0 and off["rail_energy_j"]["a7"] > 0.0
    df = ampsched.sweep(
        machines=["exynos5422:big=0", "exynos5422:big=4:little=1"], workloads=[WORKLOAD], policies=["oblivious"], jobs=1
    )
    assert list(df["machine"]) == ["exynos5422:big=0", "exynos5422:big=4:little=1"]
    assert df["machine_path"].isna().all()
    assert (df["rail_energy_j.a15"] == [0.0, df["rail_energy_j.a15"][1]]).all() and df["rail_energy_j.a15"][1] > 0


@pytest.mark.parametrize(
    "machine, message",
    [
        ("exynos5422:huge=1", "no core type 'huge' in this machine (its core types: big, little)"),
        ("exynos5422:big=5", "big=5: the machine has 4 big cores"),
        ("exynos5422:big=0:little=0", "no core online: at least one core type needs a count of 1 or more"),
        ("exynos5422:big", "'big' is not TYPE=COUNT"),
    ],
)
def test_bad_configurations_exit_2_with_one_line(machine, message):
    done = run_module("run", "--machine", machine, "--workload", WORKLOAD, "--policy", "oblivious")
    assert done.returncode == 2
    assert message in assert_one_line_error(done.stderr)


def test_a_sweep_refuses_an_unknown_base_machine_before_any_run():
    with pytest.raises(ampsched.InputError, match="'nosuch:big=1' is neither a catalog machine nor a file"):
        ampsched.sweep(machines=["nosuch:big=1"], workloads=[WORKLOAD], policies=["oblivious"], jobs=1)


def test_the_run_table_shows_the_mean_power_and_each_rail():
    done = run_module("run", "--machine", "exynos5422:big=0", "--workload", WORKLOAD, "--policy", "oblivious")
    assert done.returncode == 0, done.stderr
    rows = dict(line.split(None, 1) for line in done.stdout.splitlines() if line.startswith(("avg_power_w", "rail_")))
    assert list(rows) == ["avg_power_w", "rail_energy_j.a15", "rail_energy_j.a7", "rail_energy_j.mem"]
    assert float(rows["rail_energy_j.a15"]) == 0.0
    # A machine without rails prints no such rows.
    done = run_module("run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr")
    assert "avg_power_w" not in done.stdout
