"""The Python API: frames built from sample results, and the engine when it is built."""

import json

import pytest

import ampsched
from ampsched import METRICS, Result, results_frame
from conftest import HOSTILE


def test_docstring_defines_every_metric():
    for name in list(METRICS) + ["slowdown", "turnaround_s"]:
        assert f"    {name} " in ampsched.__doc__, name


def test_result_frames(sample_results):
    r = Result(sample_results[0])
    assert len(r.summary) == 1
    assert r.summary.loc[0, "antt"] == 1.4 and r.summary.loc[0, "policy"] == "rr"
    assert "apps" not in r.summary.columns
    assert list(r.apps["name"]) == ["gzip", HOSTILE]
    assert list(r.cores["type"]) == ["fast", "slow"]
    assert len(r.threads) == 1
    assert list(r.timeline.columns) == ["core", "thread", "app", "start_s", "end_s"]
    assert r.raw is sample_results[0]
    assert "rr" in repr(r)


def test_results_frame(sample_results):
    df = results_frame(sample_results)
    assert list(df.index) == ["rr", "fair"] and df.index.name == "policy"
    assert df.loc["fair", "speedup_vs_baseline"] == 1.25
    apps = df.attrs["apps"]
    assert list(apps.columns[:4]) == ["policy", "app", "slowdown", "turnaround_s"]
    assert apps.set_index(["policy", "app"]).loc[("fair", HOSTILE), "slowdown"] == 1.3
    assert df.attrs["raw"] is sample_results


def test_split_policies():
    assert ampsched.split_policies(" rr:threshold_ms=50, fair ,,") == ["rr:threshold_ms=50", "fair"]


# ---- with the engine

@pytest.fixture
def core():
    return pytest.importorskip("ampsched._core")


@pytest.fixture
def default(core):
    return json.loads(core.default_compare())


def test_input_error(core, default):
    assert issubclass(ampsched.InputError, ValueError)
    with pytest.raises(ampsched.InputError):
        ampsched.run("nonexistent", default["workload"], default["policies"][0])


@pytest.mark.parametrize("seed", [-1, 2 ** 64, 1.5, True, "1"])
def test_a_seed_outside_u64_is_an_input_error(default, seed):
    with pytest.raises(ampsched.InputError, match=r"^seed: must be a whole number from 0 to 2\^64-1"):
        ampsched.run(default["machine"], default["workload"], default["policies"][0], seed=seed)
    with pytest.raises(ampsched.InputError):
        ampsched.compare(default["machine"], default["workload"], default["policies"], seed=seed)


def test_run(default):
    r = ampsched.run(default["machine"], default["workload"], default["policies"][0], timeline=True)
    assert len(r.summary) == 1 and len(r.apps) > 0 and len(r.cores) > 0
    assert r.timeline is not None and len(r.timeline) > 0


def test_compare(default):
    calls = []
    df = ampsched.compare(default["machine"], default["workload"], default["policies"],
                          progress=lambda done, total, label: calls.append((done, total)))
    # hh1 names the thesis's default metric as its baseline: run last, as an extra row.
    n = len(default["policies"]) + 1
    assert len(df) == n and df.index[-1] == "default"
    assert (df["baseline"] == "default").all()
    assert df.loc["default", "speedup_vs_baseline"] == pytest.approx(1.0)
    assert calls[-1][0] == calls[-1][1] == n
    assert set(df.attrs["apps"]["policy"]) == set(df.index)
    # Named explicitly, the first policy is the baseline and no row is added.
    first = default["policies"][0]
    df = ampsched.compare(default["machine"], default["workload"], default["policies"][:2], baseline=first)
    assert list(df.index) == default["policies"][:2] and df["speedup_vs_baseline"].iloc[0] == pytest.approx(1.0)


def test_compare_default_baseline_on_a_workload_without_the_key():
    df = ampsched.compare("dvfs-2x", "demo", ["static"], baseline="default")
    assert list(df.index) == ["static", "default"]
    assert len(df.attrs["raw"][1]["rotations"]) == 4  # dvfs-2x has 4 cores: one bound run each


@pytest.mark.parametrize("name", ["list_machines", "list_workloads", "list_policies", "list_programs"])
def test_catalog(core, name):
    frame = getattr(ampsched, name)()
    assert {"name", "description", "source"} <= set(frame.columns)


def test_defaults_come_from_the_engine_and_match_the_documented_ones():
    core = pytest.importorskip("ampsched._core")
    engine = json.loads(core.defaults())
    assert ampsched.defaults() == engine == ampsched._DOCUMENTED_DEFAULTS
    # The API and the CLI use them: a run without seed or slice says which it used.
    r = ampsched.run("dvfs-2x", "demo", "oblivious")
    assert (r.raw["seed"], r.raw["slice_ms"]) == (engine["seed"], engine["slice_ms"])
