"""The public functions the CLI goes through for `list`, `topology` and `agent` (catalog,
topology, agent), and InputError with and without the engine."""

import json
import os
import subprocess
import sys

import pytest

import ampsched
from ampsched import cli
from conftest import env_with_package

needs_core = pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built")
needs_two_cpus = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or not {0, 1} <= os.sched_getaffinity(0),
    reason="needs CPUs 0 and 1 (the emulated topology makes CPU 1 the slow one)",
)
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the agent is Linux-only")

# What --emulate small=1:0.5 makes of CPUs 0 and 1: CPU 1 at half speed, so capacity 512 on
# Linux's scale of 1024 (SCHED_CAPACITY_SCALE, include/linux/sched.h in the Linux kernel), and
# CPU 0, the rest, the big type at full capacity.
EMULATED_SMALL = {"name": "small", "cpus": "1", "count": 1, "capacity": 512, "max_freq_khz": None, "smt": 1}


@needs_core
def test_catalog_gives_each_kind_as_list_and_as_the_cli_prints_it(capsys):
    # about 3 s: the engine takes 1 s for each listing of the workloads
    for kind in cli.KINDS:
        text = ampsched.catalog(kind, as_json=True)
        entries = ampsched.catalog(kind)
        assert json.loads(text) == entries and entries
        assert cli.main(["list", kind, "--json"]) == 0
        assert capsys.readouterr().out == text + "\n"
    # dvfs-2x (catalog/machines/dvfs-2x.toml): 2 fast cores at 2.0 GHz and 2 slow at 1.0 GHz,
    # same CPI: the slow ones at half the capacity.
    (machine,) = [m for m in ampsched.catalog("machines") if m["name"] == "dvfs-2x"]
    assert machine["cores"] == 4
    assert [(t["name"], t["count"], t["capacity"]) for t in machine["core_types"]] == [
        ("fast", 2, 1024),
        ("slow", 2, 512),
    ]


@needs_core
def test_catalog_bad_kind():
    with pytest.raises(ampsched.InputError, match="list: nope: unknown kind"):
        ampsched.catalog("nope")
    with pytest.raises(ampsched.InputError, match="kind: expected a string or path, got int"):
        ampsched.catalog(3)
    with pytest.raises(ampsched.InputError, match="as_json: must be True or False"):
        ampsched.catalog("machines", as_json="yes")


@needs_core
@needs_two_cpus
def test_topology_emulated_as_the_cli_prints_it(capsys):
    topo = ampsched.topology(emulate="small=1:0.5", name="two-speed")
    assert topo["source"] == "--emulate" and topo["symmetric"] is False
    big, small = topo["core_types"]
    assert small == EMULATED_SMALL
    assert big["name"] == "big" and big["capacity"] == 1024
    # the machine file: the small type's CPI twice the big one's (half the speed)
    assert 'name = "two-speed"' in topo["machine_toml"]
    assert 'name = "small"\ncount = 1\ncpus = "1"\nfreq_ghz = 1.0\ncpi_scale = 2.0' in topo["machine_toml"]
    assert cli.main(["topology", "--emulate", "small=1:0.5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {k: v for k, v in topo.items() if k != "machine_toml"}


@needs_core
def test_topology_bad_specs():
    with pytest.raises(ampsched.InputError, match="--cores: bad: 'bad' is not of the form NAME=CPUS"):
        ampsched.topology(cores="bad")
    with pytest.raises(ampsched.InputError, match="emulate: expected a string or path, got int"):
        ampsched.topology(emulate=5)


@needs_core
@linux_only
@needs_two_cpus
def test_agent_runs_a_command_and_reports_its_status():
    report = ampsched.agent("rr", ["sh", "-c", "exit 3"], cores="big=0,small=1:0.5", status=False)
    assert report["policy"] == "rr" and report["command"] == ["sh", "-c", "exit 3"] and report["pids"] == []
    assert report["interval_ms"] == ampsched.defaults()["agent_interval_ms"]
    assert report["machine"]["core_types"] == [
        {"name": "big", "cpus": "0", "capacity": 1024},
        {"name": "small", "cpus": "1", "capacity": 512},
    ]
    assert report["target"]["status"] == {"exit_code": 3, "signal": None}
    assert cli.agent_exit_status(report) == 3
    assert report["target"]["left_running"] is False


@needs_core
def test_agent_bad_input_is_input_error():
    cases = [
        ({}, "agent: give either a command to launch"),
        ({"command": ["true"], "pids": [os.getpid()]}, "agent: give either a command to launch"),
        ({"command": "true"}, "command: expected a list, got str"),
        ({"command": ["true", 3]}, "command: expected a string or path, got int"),
        ({"pids": [-1]}, "pids: -1 is not a process id"),
        ({"pids": [True]}, "pids: True is not a process id"),
        ({"command": ["true"], "interval_ms": "fast"}, "interval_ms: must be a number, got 'fast'"),
        ({"command": ["true"], "seed": -1}, "seed: must be a whole number"),
        ({"command": ["true"], "locks": "no"}, "locks: must be True or False"),
        ({"command": ["true"], "decide_limit_ms": 0.5}, "--decide-limit: 0.5: must be between"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ampsched.InputError, match=message):
            ampsched.agent("rr", **kwargs)
    with pytest.raises(ampsched.InputError, match="--policy: nope: unknown policy"):
        ampsched.agent("nope", ["true"])


def test_input_error_without_the_engine(tmp_path):
    # As a checkout without the compiled engine: InputError is a stand-in ValueError, exported
    # and raised by the pure-Python checks, and the CLI still says what is missing.
    script = f"""
import sys
sys.modules["ampsched._core"] = None  # the import of the engine fails, as when it is not built
import ampsched
from ampsched import cli
assert ampsched._core is None and "InputError" in ampsched.__all__
assert issubclass(ampsched.InputError, ValueError) and ampsched.InputError.__module__ == "ampsched"
try:
    ampsched.write_report("not a list", {str(tmp_path / "r.html")!r})
except ampsched.InputError as error:
    print("InputError:", error)
print("list:", cli.main(["list", "machines"]))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env_with_package())
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["InputError: results: expected a list of result dicts, got str", "list: 1"]
    assert done.stderr.startswith("ampsched: error: the compiled engine ampsched._core is not available")
    assert len(done.stderr.splitlines()) == 1
