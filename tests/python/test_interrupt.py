"""Ctrl-C during a simulation: `ampsched run` and `compare` end at once with one line and status
130, and the Python API raises KeyboardInterrupt.

Each test starts a child on a workload that would take a minute or more (64 threads of 1e14
instructions each time-share the cores for ~1e5 simulated seconds: some 10^8 events) and sends
it SIGINT while it simulates; without the engine's check it would run to the end.
"""

import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import ampsched
from conftest import env_with_package, sigint_as_in_a_terminal

pytestmark = pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built")

SLOW_WORKLOAD = """\
name = "slow"
description = "64 threads far longer than a test may wait"
source = "test"

[[app]]
name = "long"
threads = 64

[[app.phase]]
kind = "compute"
instructions = 1e14
cpi = 1.0
llc_mpki = 0.1
"""

# Time from the child saying it is about to simulate to the SIGINT: long enough that the run is
# in the engine (it enters it within milliseconds), short to keep the tests quick.
SETTLE_S = 0.5
# How long the child may take to stop after the SIGINT. The engine checks within ~0.05 s; the
# margin is for a loaded machine, and still far below the run's own length.
STOP_S = 5.0
# Python start-up and imports before the child says it starts, on a loaded machine.
START_S = 60.0

# Runs `python -m ampsched ARGS` as the command does, saying "started" on stdout just before
# it calls the engine's function of the command's name (`run`, `compare`), so that the test
# knows when to interrupt.
CLI_CHILD = textwrap.dedent("""\
    import runpy, sys
    import ampsched
    real = getattr(ampsched._core, sys.argv[1])
    def started(*args, **kwargs):
        print("started", flush=True)
        return real(*args, **kwargs)
    setattr(ampsched._core, sys.argv[1], started)
    sys.argv[0] = "ampsched"
    runpy.run_module("ampsched", run_name="__main__")
""")

# Calls the API; a timer sends SIGINT to the process SETTLE_S after the call starts.
API_CHILD = textwrap.dedent("""\
    import os, signal, sys, threading, time
    import ampsched
    machine, workload, settle = sys.argv[1], sys.argv[2], float(sys.argv[3])
    calls = {
        "run": lambda: ampsched.run(machine, workload, "rr"),
        "compare": lambda: ampsched.compare(machine, workload, ["rr", "oblivious"]),
    }
    for name, call in calls.items():
        threading.Timer(settle, os.kill, (os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        try:
            call()
            print(name, "finished", flush=True)
        except KeyboardInterrupt:
            print(name, "KeyboardInterrupt", round(time.monotonic() - start - settle, 3), flush=True)
""")


@pytest.fixture
def slow_workload(tmp_path):
    path = tmp_path / "slow.toml"
    path.write_text(SLOW_WORKLOAD)
    return str(path)


def interrupt_cli(*args):
    """Start `python -m ampsched ARGS`, interrupt it once it simulates; (status, stdout,
    stderr, seconds from the SIGINT to its end)."""
    child = subprocess.Popen(
        [sys.executable, "-c", CLI_CHILD, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_with_package(),
        preexec_fn=sigint_as_in_a_terminal,
    )
    try:
        ready, _, _ = select.select([child.stdout], [], [], START_S)
        assert ready and child.stdout.readline() == "started\n", child.stderr.read()
        time.sleep(SETTLE_S)
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=STOP_S)
        return child.returncode, out, err, time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--policy", "rr"],
        ["compare", "--policies", "rr,oblivious"],
    ],
)
def test_ctrl_c_stops_the_command(slow_workload, command):
    name, *rest = command
    status, out, err, took = interrupt_cli(name, "--machine", "dvfs-2x", "--workload", slow_workload, *rest)
    assert (status, out, err) == (130, "", "ampsched: interrupted\n")
    assert took < STOP_S


def test_ctrl_c_raises_keyboard_interrupt_in_the_api(slow_workload):
    done = subprocess.run(
        [sys.executable, "-c", API_CHILD, "dvfs-2x", slow_workload, str(SETTLE_S)],
        capture_output=True,
        text=True,
        env=env_with_package(),
        preexec_fn=sigint_as_in_a_terminal,
        timeout=START_S + 2 * STOP_S,
    )
    lines = [line.split() for line in done.stdout.splitlines()]
    assert done.returncode == 0 and [line[:2] for line in lines] == [
        ["run", "KeyboardInterrupt"],
        ["compare", "KeyboardInterrupt"],
    ], done.stdout + done.stderr
    assert all(float(line[2]) < STOP_S for line in lines)
