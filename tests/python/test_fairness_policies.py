"""Kim & Huh's fairness policies through the API and the CLI: a run's efficiency-error report
(IEEE TC 2018, §7.5) shows in the summary, the apps table and `ampsched run`'s text."""

import ampsched
from ampsched import cli

# Three single-threaded apps on kimhuh-2f4s (2 fast at 2.8 GHz, 4 slow at 0.8 GHz, CPI scale 1):
# compute-bound (e = 2.8/0.8 = 3.5; 7 s alone on a fast core), 20 misses per kilo-instruction at
# 75 ns (e = (1.25 + 1.5)/(1/2.8 + 1.5) = 1.4808) and 5 (e = 2.22). More apps than fast cores: with
# fewer, the share enforcement's work conservation keeps every app on a fast core, and an online
# estimator never sees the slow type (nor needs to).
MIX = """
[[app]]
name = "cpu"
[[app.phase]]
kind = "compute"
instructions = 2e10
cpi = 1.0
[[app]]
name = "mem"
[[app.phase]]
kind = "compute"
instructions = 8e9
cpi = 1.0
llc_mpki = 20.0
[[app]]
name = "mid"
[[app.phase]]
kind = "compute"
instructions = 8e9
cpi = 1.0
llc_mpki = 5.0
"""


def _mix(tmp_path):
    path = tmp_path / "mix.toml"
    path.write_text(MIX)
    return str(path)


def test_the_efficiency_error_report_is_in_the_summary_and_the_apps(tmp_path):
    r = ampsched.run("kimhuh-2f4s", _mix(tmp_path), "max-fair")
    apps = r.apps.set_index("name")
    assert abs(apps.loc["cpu", "efficiency_true"] - 3.5) < 1e-6
    assert abs(apps.loc["mem", "efficiency_true"] - 2.75 / (1 / 2.8 + 1.5)) < 1e-6
    # Online, 2% counter noise on each read: a few percent at most.
    assert 0 < r.summary["efficiency_error"].iloc[0] <= r.summary["efficiency_error_max"].iloc[0] < 0.05
    assert (
        apps["efficiency_error"] - (apps["efficiency_estimate"] / apps["efficiency_true"] - 1).abs()
    ).abs().max() < 1e-12
    # Offline the estimate is the solo profile itself.
    assert (
        ampsched.run("kimhuh-2f4s", _mix(tmp_path), "max-fair:efficiency=offline").summary["efficiency_error"].iloc[0]
        < 1e-9
    )
    # A policy without efficiency estimates has no such columns.
    assert "efficiency_error" not in ampsched.run("kimhuh-2f4s", _mix(tmp_path), "rr").summary.columns


def test_ampsched_run_prints_the_report(tmp_path):
    text = cli.format_run(ampsched.run("kimhuh-2f4s", _mix(tmp_path), "min-fair:target=0.9").raw)
    assert "efficiency_error_max" in text and "efficiency_true" in text
    assert "efficiency" not in cli.format_run(ampsched.run("kimhuh-2f4s", _mix(tmp_path), "rr").raw)


def test_the_nine_policies_are_listed_with_their_sources():
    policies = ampsched.list_policies().set_index("name")
    family = ["max-perf", "max-fair", "min-fair", "uni-fair", "sim-fair", "combined-fair", "scaled-lb", "r-fair"]
    for name in [*family, "guaranteed-fairness"]:
        assert name in policies.index, name
    assert "Li et al." in policies.loc["scaled-lb", "source"]
    assert "PACT 2013" in policies.loc["guaranteed-fairness", "source"]
    # `ampsched compare` given nothing keeps to the thesis's and WASH's schedulers.
    assert not set(family) & set(ampsched.default_comparison()["policies"])
