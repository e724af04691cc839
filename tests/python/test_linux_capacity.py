"""linux-capacity and smt-aware from the front (docs/policies/linux-capacity.md): their listing and
live refusal, and the workload format's uclamp keys with their one-line errors. Their placements
are tested against hand-derived numbers in Rust (crates/runner/tests/it/linux_capacity.rs,
crates/policy/tests/it/smt_aware.rs, crates/policy/src/common/utilization.rs)."""

import subprocess
import sys

import pytest

import ampsched
from conftest import env_with_package

pytest.importorskip("ampsched._core")


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "ampsched", *args], capture_output=True, text=True, env=env_with_package(), timeout=600
    )


def test_listing_linux_capacity_runs_live_and_smt_aware_needs_the_wake_up_path():
    policies = ampsched.list_policies().set_index("name")
    assert policies.loc["linux-capacity", "live"] == "yes"
    assert policies.loc["linux-capacity", "options"] == {"balance_ms": 4}
    assert policies.loc["smt-aware", "live"] == "no (simulator only)"
    assert policies.loc["smt-aware", "needs"] == ["wakeup"]


def test_the_agent_refuses_smt_aware_in_one_line():
    done = cli("agent", "--policy", "smt-aware", "--", "true")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "smt-aware cannot run live: it needs the OS's wake-up path" in lines[0]


APP = '[[app]]\nname = "a"\n{keys}\n[[app.phase]]\nkind = "compute"\ninstructions = 1e7\n'
GROUPED = '[[app]]\nname = "a"\n{keys}\n[[app.group]]\nname = "g"\n{group}\n[[app.group.phase]]\nkind = "compute"\ninstructions = 1e7\n'


@pytest.mark.parametrize(
    "text, key, words",
    [
        (APP.format(keys="uclamp_min = 1025"), "app[0].uclamp_min", "must be a whole number from 0 to 1024"),
        (APP.format(keys="uclamp_max = -1"), "app[0].uclamp_max", "must be a whole number from 0 to 1024"),
        (APP.format(keys="uclamp_min = 0.5"), "app[0].uclamp_min", "expected an integer"),
        (APP.format(keys="uclamp_min = 600\nuclamp_max = 500"), "app[0].uclamp_min", "600 is above uclamp_max (500)"),
        (GROUPED.format(keys="", group="uclamp_max = 2000"), "app[0].group[0].uclamp_max", "from 0 to 1024"),
        (GROUPED.format(keys="uclamp_min = 10", group=""), "app[0].uclamp_min", "gives this per group"),
    ],
)
def test_bad_uclamp_values_are_errors_naming_file_and_key(tmp_path, text, key, words):
    path = tmp_path / "w.toml"
    path.write_text(text)
    with pytest.raises(ampsched.InputError) as e:
        ampsched.run(machine="exynos5422", workload=str(path), policy="linux-capacity")
    assert str(e.value).startswith(f"{path}: {key}: ") and words in str(e.value), str(e.value)


def test_the_cli_gives_a_bad_uclamp_in_one_line_and_runs_a_good_one(tmp_path):
    bad, good = tmp_path / "bad.toml", tmp_path / "good.toml"
    bad.write_text(APP.format(keys="uclamp_min = 600\nuclamp_max = 500"))
    good.write_text(GROUPED.format(keys="", group="uclamp_min = 700\nuclamp_max = 1024"))
    done = cli("run", "--machine", "exynos5422", "--workload", str(bad), "--policy", "linux-capacity")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0] == (
        f"ampsched: error: {bad}: app[0].uclamp_min: 600 is above uclamp_max (500): a clamp's minimum must not exceed its maximum"
    )
    done = cli("run", "--machine", "exynos5422", "--workload", str(good), "--policy", "linux-capacity")
    assert done.returncode == 0, done.stderr
