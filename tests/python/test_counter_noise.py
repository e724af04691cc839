"""The counter noise as a run setting (docs/model.md, "Counter noise"): the
Python API and the CLI pass it, the engine checks its range with a one-line error, 0 reads the
counters exactly, and only what a counter-reading policy decides changes with it."""

import subprocess
import sys

import pytest

import ampsched
from conftest import env_with_package

M, W = "2fc-2sc-amd", "lh1"


def test_default_is_the_engines():
    assert ampsched.defaults()["counter_noise"] == 0.02


def test_noise_changes_what_a_counter_reading_policy_decides_and_nothing_else():
    exact, noisy = (ampsched.run(M, W, "hass-d", counter_noise=n).raw for n in (0, 0.02))
    assert exact["migrations"] != noisy["migrations"]
    again = ampsched.run(M, W, "hass-d", counter_noise=0.02).raw
    assert again == noisy  # same seed, same bytes
    # rr reads no counters: the same run at any noise.
    assert ampsched.run(M, W, "rr", counter_noise=0).raw == ampsched.run(M, W, "rr", counter_noise=0.25).raw


@pytest.mark.parametrize("bad", [-0.01, 0.3, float("nan")])
def test_out_of_range_is_a_one_line_error(bad):
    with pytest.raises(ampsched.InputError, match=r"^--counter-noise: must be .*got"):
        ampsched.run(M, W, "rr", counter_noise=bad)


def test_not_a_number_is_refused_before_the_engine():
    with pytest.raises(ampsched.InputError, match=r"^--counter-noise: must be a number"):
        ampsched.run(M, W, "rr", counter_noise="0.1")


def test_cli_takes_it_and_exits_2_on_a_bad_value():
    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "ampsched", *args],
            capture_output=True,
            text=True,
            env=env_with_package(),
            timeout=600,
        )

    done = cli("run", "--machine", M, "--workload", W, "--policy", "hass-d", "--counter-noise", "0", "--json")
    assert done.returncode == 0, done.stderr
    bad = cli("run", "--machine", M, "--workload", W, "--policy", "rr", "--counter-noise", "1")
    assert bad.returncode == 2 and "--counter-noise: must be" in bad.stderr and bad.stderr.count("\n") == 1, bad.stderr
