"""linux-eas, compaction, p2dq-eas and primary-domain from the front (docs/policies/eas-and-scx.md):
their listing (which run live) and the one-line errors of a machine they cannot run on. Their rules
are tested against hand-derived numbers in Rust (crates/policy/tests/it/today_scx.rs,
crates/runner/tests/it/today_scx.rs)."""

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


def test_listing_eas_needs_the_wake_up_path_and_the_scx_policies_run_live():
    policies = ampsched.list_policies().set_index("name")
    assert policies.loc["linux-eas", "live"] == "no (simulator only)"
    assert policies.loc["linux-eas", "needs"] == ["wakeup"]
    for name in ["compaction", "p2dq-eas", "primary-domain"]:
        assert policies.loc[name, "live"] == "yes", name
    assert policies.loc["compaction", "options"] == {"mode": "autopilot", "stats_ms": 10, "pin_ms": 250}
    assert policies.loc["primary-domain", "options"] == {"domain": "auto", "quantum_ms": 4}


@pytest.mark.parametrize(
    "machine, policy, message",
    [
        (
            "kimhuh-gem5-2f4s",
            "linux-eas",
            "linux-eas needs an energy model: core type 'fast' of machine 'kimhuh-gem5-2f4s' gives no power",
        ),
        ("exynos5422", "primary-domain:domain=0-1,9", "CPU 9 of '0-1,9' is not on machine 'exynos5422'"),
        (
            "exynos5422",
            "primary-domain:domain=fast",
            "'fast' is not auto, performance, powersave, turbo, all or a CPU list",
        ),
    ],
)
def test_a_machine_the_policy_cannot_run_on_is_one_line_and_exit_2(machine, policy, message):
    done = cli("run", "--machine", machine, "--workload", "java-like", "--policy", policy)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"ampsched: error: --policy: {policy}: ") and message in lines[0], lines[0]
