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


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "1"])
def test_a_seed_outside_u64_is_an_input_error(default, seed):
    with pytest.raises(ampsched.InputError, match=r"^--seed: must be a whole number from 0 to 2\^64-1"):
        ampsched.run(default["machine"], default["workload"], default["policies"][0], seed=seed)
    with pytest.raises(ampsched.InputError):
        ampsched.compare(default["machine"], default["workload"], default["policies"], seed=seed)


@pytest.mark.parametrize(
    "key,value,says",
    [
        ("slice_ms", 2**2000, "--slice-ms: must be a number, got 1148130695274254524232833201177681984022…"),
        ("slice_ms", "4", "--slice-ms: must be a number, got '4'"),
        ("slice_ms", True, "--slice-ms: must be a number, got True"),
        ("max_sim_s", [1.0], "--max-sim-s: must be a number, got [1.0]"),
        ("max_events", -1, "--max-events: must be a whole number, got -1"),
        ("max_events", 2**64, "--max-events: must be a whole number"),
        ("max_events", 0, "--max-events: must be a whole number from 1 to 1e13 events, got 0"),
        ("max_sim_s", 0.0, "--max-sim-s: must be greater than 0 and at most 1e9 s, got 0"),
        ("machine", "dvfs-2x\udcff", "machine: not UTF-8 text: 'dvfs-2x\\udcff'"),
        ("machine", 5, "machine: expected a string or path, got int"),
    ],
)
def test_bad_settings_are_input_errors_naming_them(default, key, value, says):
    # Where PyO3 would raise OverflowError, TypeError or UnicodeEncodeError.
    args = {
        "machine": default["machine"],
        "workload": default["workload"],
        "policy": default["policies"][0],
        key: value,
    }
    with pytest.raises(ampsched.InputError) as raised:
        ampsched.run(**args)
    assert str(raised.value).startswith(says), str(raised.value)


def test_a_bad_baseline_or_trace_is_named_as_such(default):
    with pytest.raises(ampsched.InputError, match=r"^--baseline: nosuch: unknown policy"):
        ampsched.compare("dvfs-2x", "demo", ["rr", "static"], baseline="nosuch")
    with pytest.raises(ampsched.InputError, match=r"^--trace: the path is empty$"):
        ampsched.run("dvfs-2x", "demo", "rr", trace="")
    with pytest.raises(ampsched.InputError, match=r"^--trace: /proc/version: cannot write the trace: "):
        ampsched.run("dvfs-2x", "demo", "rr", trace="/proc/version")


def test_a_run_past_its_budget_is_an_input_error_and_a_float_count_is_taken(default):
    # demo is a few seconds of simulated time: 1 s or 100 events cannot hold it.
    with pytest.raises(
        ampsched.InputError,
        match=r"the solo reference run of cpu-bound passed its budget: 1 s of "
        r"simulated time \(--max-sim-s\)",
    ):
        ampsched.run("dvfs-2x", "demo", "rr", max_sim_s=1)
    with pytest.raises(ampsched.InputError, match=r"passed its budget: 100 events \(--max-events"):
        ampsched.compare("dvfs-2x", "demo", ["rr", "static"], max_events=100.0)
    assert ampsched.defaults()["max_events"] == 2 * 10**8 and ampsched.defaults()["max_sim_s"] == 1e7


def test_run(default):
    r = ampsched.run(default["machine"], default["workload"], default["policies"][0], timeline=True)
    assert len(r.summary) == 1 and len(r.apps) > 0 and len(r.cores) > 0
    assert r.timeline is not None and len(r.timeline) > 0


def test_compare(default):
    calls = []
    df = ampsched.compare(
        default["machine"],
        default["workload"],
        default["policies"],
        progress=lambda done, total, label: calls.append((done, total)),
    )
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


def test_sf_error_per_thread_and_on_average_for_policies_that_estimate_sfs():
    # 2fc-2sc-amd has a private LLC per core: a one-phase program's static estimate errs only by
    # the estimator's base CPI (1.5, not the program's), so its error over the run is its solo
    # estimation error (sixtrack, crafty, equake; hass-s moves none of them, so their memory
    # stays local); mcf has phases its whole-run signature averages away.
    r = ampsched.run("2fc-2sc-amd", "hh1", "hass-s")
    errors = r.threads.groupby("app")["sf_error"].mean()
    solo = ampsched.sf_estimation_error("2fc-2sc-amd", ["sixtrack", "crafty", "equake"]).set_index("program")
    for p in ("sixtrack", "crafty", "equake"):
        assert errors[p] == pytest.approx(abs(solo.loc[p, "error"]), abs=1e-9), p
    assert errors["mcf"] > 0.1
    assert 0 < r.summary["sf_error"].iloc[0] < errors["mcf"]
    # A policy without estimates has no such column; a sweep has one, empty for it.
    assert "sf_error" not in ampsched.run("2fc-2sc-amd", "hh1", "rr").summary.columns
    df = ampsched.sweep("2fc-2sc-amd", "hh1", ["hass-d", "rr"], seeds="1", jobs=1)
    by = df.set_index("policy")["sf_error"]
    assert by.isna()["rr"] and 0 < by["hass-d"] < 0.2


def test_sf_estimation_error_is_the_thesis_model_against_solo_runs():
    # dvfs-2x: 2 and 1 GHz, 100 ns, 2 MB LLCs. By hand for a program of CPI c missing m MPKI at
    # 2 MB: estimated SF = (1.5 / 1 + m / 10) / (1.5 / 2 + m / 10) (the thesis's CPI 1.5),
    # observed (c + m / 10) / (c / 2 + m / 10) (alone on each type; a one-phase program).
    df = ampsched.sf_estimation_error("dvfs-2x", ["crafty", "art", "equake"]).set_index("program")
    for p, row in df.iterrows():
        stall = row["mpki_fast"] / 10
        assert row["estimated_sf"] == pytest.approx((1.5 + stall) / (0.75 + stall), rel=1e-12), p
        c = row["cpi"]
        assert row["observed_sf"] == pytest.approx((c + stall) / (c / 2 + stall), rel=1e-3), p
        assert row["error"] == pytest.approx(row["estimated_sf"] - row["observed_sf"])
    # art's true CPI (2.8) is above 1.5: the estimate understates its SF; equake's (1.0) below:
    # it overstates it.
    assert df.loc["art", "error"] < 0 < df.loc["equake", "error"]
    # A base CPI equal to a program's true one leaves only what the model lacks (nothing, here).
    one = ampsched.sf_estimation_error("dvfs-2x", ["equake"], base_cpi=1.0).iloc[0]
    assert one["error"] == pytest.approx(0, abs=1e-3)
    with pytest.raises(ampsched.InputError, match="unknown catalog program"):
        ampsched.sf_estimation_error("dvfs-2x", ["no-such-program"])
    with pytest.raises(ampsched.InputError, match="base_cpi"):
        ampsched.sf_estimation_error("dvfs-2x", ["art"], base_cpi=0)
