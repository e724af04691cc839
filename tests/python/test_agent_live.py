"""`ampsched agent` end to end: hardware counters and the report's account of decisions.

This machine (CI) is a 2-CPU VM without a PMU, where perf_event_open fails: the tests check what
the agent says and refuses there, and where a machine has counters, what it reads. Weight, slice,
fast-share and frequency decisions are tested in Rust on real threads (crates/agent/tests/enforce.rs
and agent_run.rs): no registered policy makes them yet.
"""

import glob
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import ampsched
from conftest import env_with_package, thread_affinities, wait_for

TWO_CPUS = hasattr(os, "sched_getaffinity") and {0, 1} <= os.sched_getaffinity(0)
pytestmark = [
    pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the agent is Linux-only"),
    pytest.mark.skipif(not TWO_CPUS, reason="names CPU 0 fast and CPU 1 slow: needs both"),
]

# The report's keys, in order (crates/agent/src/report.rs).
REPORT_KEYS = [
    "policy",
    "policy_spec",
    "interval_ms",
    "machine",
    "emulate",
    "notes",
    "command",
    "pids",
    "stopped_by",
    "target",
    "counters",
    "speedup",
    "progress_rate",
    "runtime_threads",
    "locks",
    "guardian",
    "decisions",
    "migrations",
    "unmanaged_threads",
    "decisions_not_applied",
    "not_applied",
    "fast_share_rounds",
    "agent",
    "threads",
]
TARGET_KEYS = ["wall_s", "status", "left_running", "processes_left_running"]
AGENT_KEYS = [
    "cpu_s",
    "cpu_share",
    "samples",
    "late_samples",
    "mean_sample_ms",
    "max_sample_ms",
    "policy_calls",
    "affinities_restored",
    "threads_vanished_before_restore",
    "emulation_threads_stopped",
    "nice_values_restored",
    "slices_restored",
    "cpufreq_files_restored",
]
THREAD_KEYS = [
    "tid",
    "pid",
    "comm",
    "app",
    "kind",
    "time_s",
    "run_queue_wait_s",
    "migrations",
    "decisions",
    "affinity",
    "voluntary_switches",
    "involuntary_switches",
    "lock_wait_s",
    "lock_wait_caused_s",
    "contended_locks",
    "spin_s",
    "exited",
]


def run_ampsched(*args, timeout=120):
    env = env_with_package()
    return subprocess.run(
        [sys.executable, "-m", "ampsched", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def agent_report(*args, status=0):
    r = run_ampsched("agent", "--json", *args)
    assert r.returncode == status, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def busy_report():
    """The report of a 0.3 s busy loop under busyfcs, CPU 0 named fast and CPU 1 slow (timeout(1) ends the
    loop with status 124, which is the agent's too)."""
    return agent_report(
        "--policy",
        "busyfcs",
        "--interval",
        "10",
        "--cores",
        "big=0,small=1:0.5",
        "--",
        "timeout",
        "0.3",
        "sh",
        "-c",
        "while :; do :; done",
        status=124,
    )


def test_the_report_keeps_its_keys_in_order(busy_report):
    assert list(busy_report) == REPORT_KEYS
    assert list(busy_report["agent"]) == AGENT_KEYS
    assert list(busy_report["target"]) == TARGET_KEYS
    counted = busy_report["counters"].startswith("read:")
    for t in busy_report["threads"]:
        assert list(t) == THREAD_KEYS + (["counters"] if counted else [])


def test_counters_line_says_what_was_read_or_why_not(busy_report):
    line = busy_report["counters"]
    if line.startswith("read:"):
        # A machine with a PMU: every thread that ran has instructions on some core type.
        assert "instructions, cycles" in line
        for t in busy_report["threads"]:
            if sum(t["time_s"].values()) > 0.05:
                assert sum(c["instructions"] for c in t["counters"].values()) > 0, t
    else:
        assert line.startswith("hardware counters unavailable: "), line
        assert all("counters" not in t for t in busy_report["threads"])


def test_a_registered_policy_makes_no_decision_the_agent_cannot_apply(busy_report):
    # busyfcs makes affinity decisions only (here: the loop's thread to the fast partition), which Linux applies.
    assert busy_report["decisions"] >= 1
    assert busy_report["decisions_not_applied"] == 0 and busy_report["not_applied"] == []
    assert busy_report["fast_share_rounds"] == {"round_ms": 30.0, "round_switches": 0}


def counter_policies():
    r = run_ampsched("list", "policies", "--json")
    assert r.returncode == 0, r.stderr
    return [p["name"] for p in json.loads(r.stdout) if "counters" in p["needs"]]


def test_a_policy_that_needs_counters_is_refused_live_with_one_line_naming_them(busy_report):
    if busy_report["counters"].startswith("read:"):
        pytest.skip("this machine has hardware counters: such a policy runs")
    names = counter_policies()
    if not names:
        pytest.skip("no registered policy needs counters yet (crates/agent/tests/agent_run.rs checks the refusal)")
    for name in names:
        r = run_ampsched("agent", "--policy", name, "--", "true")
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert lines[0].startswith("ampsched: error: --policy: "), lines[0]
        assert "hardware counters" in lines[0] and busy_report["counters"] in lines[0], lines[0]


# ---- however the agent ends (issue 10 §4)
#
# Every test starts its own target processes and looks only at them. The machine may be loaded:
# waits poll with generous timeouts instead of sleeping for tuned times.

# A target of N threads that sleep; on SIGTERM it writes each thread's affinity to OUT, as the
# signal found it, and exits. `static` pins each thread to one CPU.
THREADS_TARGET = """
import json, os, signal, sys, threading, time
out = sys.argv[1]
def on_term(*_):
    tids = [int(t) for t in os.listdir("/proc/self/task")]
    with open(out + ".tmp", "w") as f:
        json.dump({t: sorted(os.sched_getaffinity(t)) for t in tids}, f)
    os.rename(out + ".tmp", out)
    os._exit(0)
signal.signal(signal.SIGTERM, on_term)
for _ in range(3):
    threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
print("ready", flush=True)
time.sleep(120)
"""

# A target that starts a thread every 20 ms: threads keep appearing between any two of the
# agent's samples, and inherit their creator's affinity. They outlive any test's wait, so that a
# thread left pinned is not hidden by its exit.
SPAWNER_TARGET = """
import threading, time
print("ready", flush=True)
while True:
    threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
    time.sleep(0.02)
"""


def running(pid):
    """Not exited: /proc/PID is there and not a zombie (an orphan's zombie waits for init)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def children_of(pid):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return out


def start_agent(*args):
    env = env_with_package()
    return subprocess.Popen(
        [sys.executable, "-m", "ampsched", "agent", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def start_target(script, *args):
    target = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True)
    assert target.stdout.readline() == "ready\n"
    return target


def stop(process):
    if process.poll() is None:
        process.kill()
    process.wait(timeout=30)


def test_sigkill_of_the_agent_leaves_its_guardian_to_restore_and_stop_the_launched_command(tmp_path):
    out = tmp_path / "affinities.json"
    script = tmp_path / "target.py"
    script.write_text(THREADS_TARGET)
    original = sorted(os.sched_getaffinity(0))
    agent = start_agent("--policy", "static", "--interval", "10", "--", sys.executable, str(script), str(out))
    try:
        target = []

        def pinned():
            # The launched command (not the guardian, the agent's other child) with all 4 threads pinned.
            pids = [p for p in children_of(agent.pid) if len(thread_affinities(p)) == 4]
            target[:] = pids
            return len(pids) == 1 and all(len(a) == 1 for a in thread_affinities(pids[0]).values())

        wait_for(pinned, what="static to pin the command's threads")
        guardians = [p for p in children_of(agent.pid) if p != target[0]]
        assert len(guardians) == 1, guardians
        assert glob.glob(f"/dev/shm/ampsched-agent-{agent.pid}-*"), "the lock table is where the test looks"
        agent.kill()
        agent.wait(timeout=30)
        # The guardian restores, then sends the command SIGTERM: it wrote what it had then.
        wait_for(out.exists, what="the command to get SIGTERM")
        assert all(a == original for a in json.loads(out.read_text()).values()), out.read_text()
        wait_for(lambda: not running(target[0]), what="the command to exit")
        wait_for(lambda: not glob.glob(f"/dev/shm/ampsched-agent-{agent.pid}-*"), what="the lock table's removal")
        wait_for(lambda: not running(guardians[0]), what="the guardian to exit")
    finally:
        stop(agent)
        for pid in children_of(agent.pid):
            os.kill(pid, signal.SIGKILL)


def test_sigkill_of_the_agent_restores_an_attached_process_with_the_threads_it_started_since():
    # Threads keep starting from the pinned main thread between samples, which are 1 s apart: the
    # guardian must find those the agent never saw and give them their process's original affinity.
    target = start_target(SPAWNER_TARGET)
    try:
        original = os.sched_getaffinity(target.pid)
        agent = start_agent("--policy", "static", "--interval", "1000", "--pid", str(target.pid))
        try:

            def pinned():
                return sum(len(a) == 1 for a in thread_affinities(target.pid).values())

            wait_for(lambda: len(os.sched_getaffinity(target.pid)) == 1, what="static to pin the main thread")
            at_first = pinned()
            wait_for(lambda: pinned() >= at_first + 3, what="threads started pinned since")
            agent.kill()
            agent.wait(timeout=30)
            wait_for(
                lambda: all(a == original for a in thread_affinities(target.pid).values()),
                what="every thread's original affinity",
            )
            assert target.poll() is None, "an attached process is left running"
        finally:
            stop(agent)
    finally:
        stop(target)


def test_threads_started_after_the_last_sample_get_their_affinity_back_on_sigterm():
    # End to end, where the window between the agent's last sample and its restore is short and
    # rarely hit; crates/agent/tests/agent_run.rs starts a thread in it every time.
    target = start_target(SPAWNER_TARGET)
    try:
        original = os.sched_getaffinity(target.pid)
        agent = start_agent("--policy", "static", "--interval", "10", "--json", "--pid", str(target.pid))
        wait_for(lambda: len(os.sched_getaffinity(target.pid)) == 1, what="static to pin the main thread")
        agent.send_signal(signal.SIGTERM)
        stdout, stderr = agent.communicate(timeout=60)
        assert agent.returncode == 128 + signal.SIGTERM, stderr
        # Checked once, at once: a thread that exists now started before the restore (so the agent
        # must have found it) or after (from a restored creator).
        pinned = {t: a for t, a in thread_affinities(target.pid).items() if a != original}
        assert not pinned, pinned
        report = json.loads(stdout)
        assert report["stopped_by"] == "SIGTERM" and report["target"]["left_running"]
    finally:
        stop(target)


@pytest.mark.parametrize("sig", [signal.SIGQUIT, signal.SIGUSR1, signal.SIGALRM, signal.SIGXCPU], ids=lambda s: s.name)
def test_every_catchable_terminating_signal_stops_the_agent_like_sigterm(sig):
    if signal.getsignal(sig) == signal.SIG_IGN:
        pytest.skip(f"{sig.name} is ignored here (a background job's SIGQUIT), and so by the agent")
    target = start_target(SPAWNER_TARGET)
    try:
        original = os.sched_getaffinity(target.pid)
        agent = start_agent("--policy", "static", "--interval", "10", "--json", "--pid", str(target.pid))
        wait_for(lambda: len(os.sched_getaffinity(target.pid)) == 1, what="static to pin the main thread")
        agent.send_signal(sig)
        stdout, stderr = agent.communicate(timeout=60)
        assert agent.returncode == 128 + sig, stderr
        assert json.loads(stdout)["stopped_by"] == sig.name
        assert all(a == original for a in thread_affinities(target.pid).values())
    finally:
        stop(target)


def test_a_huge_interval_is_refused_in_one_line_naming_the_range():
    for value in ("1e14", "0.5", "-1", "nan"):
        r = run_ampsched("agent", "--policy", "oblivious", "--interval", value, "--", "true")
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert lines[0].startswith("ampsched: error: --interval: "), lines[0]
        assert "between 1 and 3600000 ms" in lines[0], lines[0]


def test_the_agent_sees_the_command_exit_at_once_whatever_the_interval():
    # A 1000 s interval: the command's exit wakes the agent, which reports the true wall time.
    started = time.monotonic()
    report = agent_report("--policy", "oblivious", "--interval", "1e6", "--", "sleep", "0.5")
    assert time.monotonic() - started < 30
    assert 0.5 <= report["target"]["wall_s"] < 5, report["target"]
    assert report["agent"]["samples"] <= 3


def test_a_background_child_left_running_is_named_and_restored(tmp_path):
    pidfile = tmp_path / "pid"
    # The shell waits until the agent has pinned its child (`static` pins every thread), then exits.
    # (The child's output goes elsewhere: the test reads the agent's to its end.)
    script = (
        f"sleep 60 >/dev/null 2>&1 & echo $! > {pidfile}; "
        f"while [ \"$(taskset -pc $! | sed 's/.*: //')\" = \"$(taskset -pc $$ | sed 's/.*: //')\" ]; "
        f"do sleep 0.01; done; exit 5"
    )
    original = os.sched_getaffinity(0)
    report = agent_report("--policy", "static", "--interval", "10", "--", "sh", "-c", script, status=5)
    child = int(pidfile.read_text())
    try:
        assert report["target"]["left_running"] is True, report["target"]
        assert {"pid": child, "command": "sleep"} in report["target"]["processes_left_running"]
        assert os.sched_getaffinity(child) == original
    finally:
        os.kill(child, signal.SIGKILL)


def test_until_tree_exits_follows_the_background_child_to_its_end():
    report = agent_report(
        "--policy", "static", "--interval", "10", "--until-tree-exits", "--", "sh", "-c", "sleep 0.5 & exit 5", status=5
    )
    target = report["target"]
    assert target["left_running"] is False and target["processes_left_running"] == [], target
    assert target["wall_s"] >= 0.5, target
    assert any(t["comm"] == "sleep" for t in report["threads"])


def test_exits_of_followed_processes_wait_for_the_sample_but_the_last_one_ends_the_agent():
    # An attached shell with three children: each child's exit is no reason to sample (the
    # interval bounds the agent's cost), the last one's ends the agent at once, not at 30 s.
    tree = subprocess.Popen(["sh", "-c", "sleep 0.6 & sleep 1.2 & sleep 1.8 & wait"])
    # Reaped the moment it exits, as a shell reaps its jobs: a zombie left to the test would
    # still be listed in /proc.
    threading.Thread(target=tree.wait, daemon=True).start()
    try:
        wait_for(
            lambda: (
                len(os.listdir("/proc"))
                and sum(
                    1
                    for p in os.listdir("/proc")
                    if p.isdigit() and open(f"/proc/{p}/stat").read().split()[3] == str(tree.pid)
                )
                == 3
            ),
            what="the three children",
        )
        r = agent_report("--policy", "oblivious", "--interval", "30000", "--pid", str(tree.pid))
    finally:
        tree.kill()
        tree.wait()
    assert r["agent"]["samples"] == 2, r["agent"]  # the first, and the last at the tree's end
    assert r["target"]["wall_s"] < 10, r["target"]


# ---- a Python policy that fails or hangs (issue 23)
#
# The policies write a file when decide is first called (its path in the environment, which the
# agent's process has), so that a test signals the agent while a call is stuck, not before.

STUCK_POLICIES = """
import os, time
import ampsched

def called():
    open(os.environ["AMPSCHED_TEST_CALLED"], "a").close()

class Sleeps(ampsched.Policy):
    quantum_ms = 10
    def decide(self, view):
        called()
        time.sleep(1e6)

class Spins(ampsched.Policy):
    quantum_ms = 10
    def decide(self, view):
        called()
        while True:
            pass

class SpinsSwallowing(ampsched.Policy):
    quantum_ms = 10
    def decide(self, view):
        called()
        while True:
            try:
                time.sleep(1e6)
            except Exception:
                pass

class Raises(ampsched.Policy):
    quantum_ms = 10
    def decide(self, view):
        called()
        # It fails at once, so the SIGTERM it causes could reach the command before its shell has
        # set the trap (a loaded machine starts sh slowly): it waits, at most 5 s, for the command
        # to say it is ready (its pid file, written after the trap).
        deadline = time.monotonic() + 5
        while not os.path.exists(os.environ["AMPSCHED_TEST_READY"]) and time.monotonic() < deadline:
            time.sleep(0.01)
        raise ValueError("no placement today")
"""

# A command with a TERM trap that says it ran; it goes on until a signal ends it.
TRAPPING = 'trap "echo term > {out}; exit 0" TERM; echo $$ > {pid}; while :; do sleep 0.05; done'


def policy_file(tmp_path):
    path = tmp_path / "stuck.py"
    path.write_text(STUCK_POLICIES)
    return str(path)


def start_agent_with_env(env_extra, *args):
    env = env_with_package()
    env.update(env_extra)
    return subprocess.Popen(
        [sys.executable, "-m", "ampsched", "agent", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_as_in_a_terminal,
    )


def sigint_as_in_a_terminal():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("name", ["Sleeps", "Spins", "SpinsSwallowing", "Raises"])
def test_a_failing_or_stuck_policy_ends_the_agent_and_the_command_gets_sigterm(tmp_path, name):
    # A call past --decide-limit is stopped (a sleep and a busy loop alike, and one that catches
    # Exception); either failure ends the agent at once, with one line naming the policy, after
    # restoring, and the command gets SIGTERM: its trap runs.
    spec = f"{policy_file(tmp_path)}:{name}"
    out, pid = tmp_path / "term", tmp_path / "pid"
    agent = start_agent_with_env(
        {"AMPSCHED_TEST_CALLED": str(tmp_path / "called"), "AMPSCHED_TEST_READY": str(pid)},
        "--policy",
        spec,
        "--interval",
        "10",
        "--decide-limit",
        # Raises waits for the command's trap within its call (see there): room for that wait.
        "10000" if name == "Raises" else "200",
        "--",
        "sh",
        "-c",
        TRAPPING.format(out=out, pid=pid),
    )
    _, stderr = agent.communicate(timeout=60)
    assert agent.returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    why = (
        "raised ValueError: no placement today"
        if name == "Raises"
        else "did not return within its limit of 200 ms (--decide-limit), and was stopped"
    )
    assert lines[0].startswith(f"ampsched: error: --policy: {spec}: decide (call 1) {why}"), lines[0]
    assert out.read_text() == "term\n", "the command's TERM trap ran"
    assert not running(int(pid.read_text()))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
@pytest.mark.parametrize("name", ["Sleeps", "Spins"])
def test_a_signal_stops_the_agent_during_a_stuck_decide(tmp_path, name, sig):
    # A limit of an hour: only the signal can end the call. The agent stops as on any stop signal:
    # everything restored, the signal passed on to the command, the report, 128 + the signal.
    called = tmp_path / "called"
    out, pid = tmp_path / "term", tmp_path / "pid"
    agent = start_agent_with_env(
        {"AMPSCHED_TEST_CALLED": str(called)},
        "--policy",
        f"{policy_file(tmp_path)}:{name}",
        "--interval",
        "10",
        "--decide-limit",
        "3600000",
        "--json",
        "--",
        "sh",
        "-c",
        TRAPPING.format(out=out, pid=pid),
    )
    try:
        wait_for(called.exists, what="the policy's first call")
        agent.send_signal(sig)
        stdout, stderr = agent.communicate(timeout=30)
    finally:
        stop(agent)
    # The exit status is the command's: its trap exits 0 on SIGTERM; SIGINT kills the shell.
    assert agent.returncode == (0 if sig == signal.SIGTERM else 128 + sig), stderr
    report = json.loads(stdout)
    assert report["stopped_by"] == sig.name
    assert not running(int(pid.read_text()))
    if sig == signal.SIGTERM:
        assert out.read_text() == "term\n", "the command got the agent's SIGTERM"


# ---- the report's file (--output)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory", "existing"])
def test_an_output_the_agent_must_not_write_is_refused_before_the_command_runs(tmp_path, kind):
    path, ran = tmp_path / "report.json", tmp_path / "ran"
    target = tmp_path / "target.txt"
    target.write_text("precious\n")
    if kind == "symlink":
        path.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text("an earlier report\n")
    r = run_ampsched("agent", "--policy", "oblivious", "--output", str(path), "--", "touch", str(ran), timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ampsched: error: --output: {path}"), r.stderr
    assert not ran.exists(), "refused before the command started"
    assert target.read_text() == "precious\n"
    if kind == "existing":
        assert "--force" in lines[0] and path.read_text() == "an earlier report\n"
        # With --force it is replaced by a new file (renamed into place: no temporary left).
        r = run_ampsched("agent", "--policy", "oblivious", "--output", str(path), "--force", "--", "true", timeout=60)
        assert r.returncode == 0, r.stderr
        assert json.loads(path.read_text())["command"] == ["true"]
        assert sorted(os.listdir(tmp_path)) == ["report.json", "target.txt"]
