"""Shared set-up: make `ampsched` importable from the source tree, and sample results.

When the package is installed (`maturin develop`, `pip install`), that copy is used; else
python/ is put on sys.path so that the pure-Python parts can be tested before the engine
is built (the tests that need the engine skip then).
"""

import copy
import importlib.util
import os
import re
import sys
import time

import signal

import pytest

SOURCE = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "python")
if importlib.util.find_spec("ampsched") is None:
    sys.path.insert(0, os.path.abspath(SOURCE))


def _result(policy, makespan, antt, stp, energy, migrations, speedup, slowdowns, timeline):
    apps = [
        {
            "name": name,
            "threads": 1,
            "runs": 1,
            "turnaround_s": 8.0 * s,
            "solo_s": 8.0,
            "slowdown": s,
            "fast_share": 0.5,
        }
        for name, s in slowdowns.items()
    ]
    return {
        "machine": "dvfs-2x",
        "workload": "demo",
        "policy": policy,
        "seed": 7,
        "slice_ms": 4.0,
        "makespan_s": makespan,
        "antt": antt,
        "stp": stp,
        "min_fairness": 0.5,
        "uniformity": 0.8,
        "unfairness": 1.5,
        "energy_j": energy,
        "edp": energy * makespan,
        "migrations": migrations,
        "events": 1000,
        "policy_calls": 30,
        "baseline": "rr",
        "speedup_vs_baseline": speedup,
        "apps": apps,
        "threads": [
            {
                "id": 0,
                "app": "gzip",
                "group": "main",
                "kind": "app",
                "cpu_s": 10.0,
                "fast_s": 5.0,
                "fast_share": 0.5,
                "migrations": 3,
            }
        ],
        "cores": [
            {"id": 0, "type": "fast", "fast": True, "busy_s": 11.0, "energy_j": 100.0},
            {"id": 1, "type": "slow", "fast": False, "busy_s": 9.0, "energy_j": 40.0},
        ],
        "timeline": timeline,
        "timeline_truncated": False,
    }


HOSTILE = "<script>alert(1)</script>&co"  # an app name that must come out escaped


def env_with_package():
    """The environment for a child Python (`python -m ampsched`, a script) that imports the
    ampsched this test run imports."""
    import ampsched

    env = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(ampsched.__file__))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    return env


def cli(*args):
    """`python -m ampsched ARGS` in a child process: its exit status, stdout and stderr."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "ampsched", *args], capture_output=True, text=True, env=env_with_package(), timeout=600
    )


@pytest.fixture
def sample_results():
    """Two policies as `_core.compare(..., timeline=True)` would return them. "fair" has
    the better antt, stp, energy and speedup; "rr" the better (lower) migrations."""
    rr = _result(
        "rr",
        12.0,
        1.4,
        1.5,
        250.0,
        10,
        1.0,
        {"gzip": 1.2, HOSTILE: 1.6},
        [[0, 0, "gzip", 0.0, 4.0], [1, 1, HOSTILE, 0.0, 6.0], [0, 1, HOSTILE, 4.0, 12.0]],
    )
    fair = _result(
        "fair",
        10.0,
        1.2,
        1.7,
        200.0,
        25,
        1.25,
        {"gzip": 1.1, HOSTILE: 1.3},
        [[0, 0, "gzip", 0.0, 5.0], [1, 1, HOSTILE, 0.0, 10.0]],
    )
    return copy.deepcopy([rr, fair])


def thread_affinities(pid):
    """{tid: CPU set} of every thread of `pid` now (threads that exit meanwhile are left out)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            out[int(tid)] = os.sched_getaffinity(int(tid))
        except OSError:
            pass  # exited meanwhile
    return out


def wait_for(predicate, timeout=20.0, what="condition"):
    """Poll `predicate` until it holds; generous, for a loaded machine."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def sigint_as_in_a_terminal():
    """A child's SIGINT as a user's terminal gives it (for `preexec_fn`): a child of a shell
    without job control (CI, `make test &`) starts with SIGINT ignored, which exec keeps and
    Python and the agent then respect, so a test's Ctrl-C would stop nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# ---- slow tests: in `make test-all` only (AMPSCHED_TEST_ALL=1), reported as skipped elsewhere

TEST_ALL = os.environ.get("AMPSCHED_TEST_ALL") == "1"


# ---- serial tests: `make test` runs the others on two pytest-xdist workers, then these alone.
# They run a live program under the agent and compare the CPU time the agent saw with what the
# program measured itself, or signal process groups: a second test beside them on this 2-core
# machine would take their CPU and turn their timings into noise. A module is serial by its name.
SERIAL_MODULES = re.compile(r"^test_(agent\w*|\w+_live|interrupt)\.py$")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a test too slow for `make test`; `make test-all` runs it")
    config.addinivalue_line("markers", "serial: runs alone, after the parallel tests (SERIAL_MODULES)")


# The modules that take the longest, longest first (seconds of one worker, measured on the
# reference machine with `pytest --durations=0`, summed per module): the two workers take modules
# in collection order (`make test` passes --no-loadscope-reorder), so these start first and the
# many short ones fill in around them. pytest-xdist's default order, by number of tests, would
# start the fuzz module's one long test last and leave one worker idle while it ran.
LONGEST_FIRST = (
    "test_reproduce.py",  # the reproductions' quick versions but thesis-ch5's (~190 s)
    "test_reproduce_thesis_ch5.py",  # ~80 s
    "test_sweep.py",  # ~120 s
    "test_fuzz.py",  # ~60 s: one test
    "test_sweep_safety.py",
    "test_python_policy.py",
    "test_golden.py",
    "test_reproduce_biglittle.py",
    "test_reproduce_noc_locks.py",
    "test_record.py",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SERIAL_MODULES.match(item.path.name):
            item.add_marker(pytest.mark.serial)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    # A stable sort: tests keep their order within a module, and other modules theirs.
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))
    if TEST_ALL:
        return
    skip = pytest.mark.skip(reason="slow: runs in `make test-all` (AMPSCHED_TEST_ALL=1)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# ---- the C programs of tests/agent, which the live tests run under the agent

AGENT_PROGRAMS = os.path.join(os.path.dirname(__file__), os.pardir, "agent")


def build_programs(tmp_path_factory, *names):
    """tests/agent's NAME.c for each name, built with the system compiler into a fresh directory:
    {name: executable}. Without a compiler the test skips, naming what it needed."""
    import shutil
    import subprocess

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("needs a C compiler to build " + ", ".join(f"tests/agent/{n}.c" for n in names))
    out = tmp_path_factory.mktemp("programs")
    built = {}
    for name in names:
        exe = str(out / name)
        subprocess.run([cc, "-O2", "-pthread", "-o", exe, os.path.join(AGENT_PROGRAMS, name + ".c")], check=True)
        built[name] = exe
    return built
