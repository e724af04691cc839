"""Live comparisons (`ampsched agent --policies a,b --repeat N`), the agent's note on a machine of
one core type, its `--trace`, and the example policy busiest_fast.py live and simulated.

The live tests run short programs under `--emulate small=1:0.5` (CPU 0 fast, CPU 1 at half
speed), as test_agent.py's do: they need root and two CPUs, and skip with that reason otherwise.
"""

import json
import math
import os
import subprocess
import sys

import pytest

import ampsched
from ampsched import _agent_compare
from conftest import env_with_package
from test_agent import IS_ROOT, TWO_CPUS

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "python", "ampsched", "examples")
BUSIEST_FAST = os.path.join(EXAMPLES, "busiest_fast.py") + ":BusiestFast"

needs_core = pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built")


def live(test):
    """The marks of a live test: the engine, Linux, root and two CPUs, each skipping with its reason."""
    for mark in (
        needs_core,
        pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the agent is Linux-only"),
        pytest.mark.skipif(not IS_ROOT, reason="needs root (real-time cycle stealing, moving threads)"),
        pytest.mark.skipif(not TWO_CPUS, reason="needs at least 2 CPUs"),
    ):
        test = mark(test)
    return test


EMULATE = ["--emulate", "small=1:0.5", "--interval", "10"]
# A busy shell loop of about 0.1 s: a program every machine has.
SHORT_LOOP = ["sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"]


def ampsched_run(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "ampsched", *args],
        capture_output=True,
        text=True,
        env=env_with_package(),
        timeout=timeout,
    )


def one_line_error(r):
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("ampsched: error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


# ---- the comparison's arithmetic (no engine)


def test_rounds_run_every_policy_once_rotated_left_by_the_round():
    assert _agent_compare.schedule(["a", "b", "c"], 3) == [
        (0, 0), (0, 1), (0, 2),
        (1, 1), (1, 2), (1, 0),
        (2, 2), (2, 0), (2, 1),
    ]  # fmt: skip


def test_spread_is_the_mean_and_sample_sd_with_min_and_max():
    # 1, 2, 4: mean 7/3; squared deviations 16/9 + 1/9 + 25/9 = 42/9; over n - 1 = 2: 7/3.
    s = _agent_compare.spread([1.0, 2.0, 4.0])
    assert s["mean"] == pytest.approx(7 / 3) and s["sd"] == pytest.approx(math.sqrt(7 / 3))
    assert (s["min"], s["max"]) == (1.0, 4.0)
    assert _agent_compare.spread([5.0])["sd"] is None  # one run has no spread


def test_report_names_keep_run_order_and_make_specs_file_names():
    assert _agent_compare.report_name(0, 0, "busyfcs") == "run001-round1-busyfcs.json"
    assert _agent_compare.report_name(11, 3, "dir/p.py:Fast") == "run012-round4-dir_p.py_Fast.json"


def test_summary_sums_cpu_time_per_core_type_over_threads():
    def report(wall, big, small, code=0):
        return {
            "machine": {"core_types": [{"name": "big"}, {"name": "small"}]},
            "target": {"wall_s": wall, "status": {"exit_code": code, "signal": None}},
            "threads": [{"time_s": {"big": big, "small": 0.0}}, {"time_s": {"big": 0.0, "small": small}}],
        }

    rows = [
        _agent_compare.run_row(0, 0, "a", report(1.0, 0.5, 0.25)),
        _agent_compare.run_row(1, 0, "b", report(2.0, 1.0, 1.0, code=1)),
        _agent_compare.run_row(2, 1, "b", report(4.0, 1.0, 1.0)),
        _agent_compare.run_row(3, 1, "a", report(3.0, 1.5, 0.75)),
    ]
    assert rows[0]["cpu_big_s"] == 0.5 and rows[0]["cpu_small_s"] == 0.25
    (a, b) = _agent_compare.summarize(rows, ["a", "b"])
    assert (a["runs"], a["failed"], b["failed"]) == (2, 0, 1)
    assert a["wall_s_mean"] == 2.0 and a["wall_s_sd"] == pytest.approx(math.sqrt(2.0))
    assert a["cpu_big_s_mean"] == 1.0 and (b["cpu_small_s_min"], b["cpu_small_s_max"]) == (1.0, 1.0)


# ---- the comparison live


@live
def test_a_comparison_runs_each_policy_repeat_times_interleaved_and_keeps_every_report(tmp_path):
    out = tmp_path / "runs"
    args = ["agent", "--policies", "busyfcs,rr", "--repeat", "2", *EMULATE, "--output", str(out), "--json", "--"]
    r = ampsched_run(*args, *SHORT_LOOP)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    runs, summary = result["runs"], result["summary"]
    assert [(x["round"], x["policy"]) for x in runs] == [(1, "busyfcs"), (1, "rr"), (2, "rr"), (2, "busyfcs")]
    assert [(s["policy"], s["runs"], s["failed"]) for s in summary] == [("busyfcs", 2, 0), ("rr", 2, 0)]
    for x in runs:
        report = json.loads(open(x["report"]).read())
        assert report["policy"] == x["policy"] and report["target"]["wall_s"] == x["wall_s"]
        assert x["cpu_big_s"] + x["cpu_small_s"] > 0  # the loop's CPU time, per core type
    assert sorted(os.listdir(out)) == sorted(os.path.basename(x["report"]) for x in runs)
    for s in summary:
        walls = [x["wall_s"] for x in runs if x["policy"] == s["policy"]]
        assert s["wall_s_mean"] == pytest.approx(sum(walls) / 2)
        assert s["wall_s_sd"] == pytest.approx(abs(walls[0] - walls[1]) / math.sqrt(2))
    # The same directory again: refused before anything runs, the reports left as they were.
    before = {p: (out / p).read_bytes() for p in os.listdir(out)}
    assert "exists" in one_line_error(ampsched_run(*args, *SHORT_LOOP))
    assert {p: (out / p).read_bytes() for p in os.listdir(out)} == before


@needs_core
@pytest.mark.parametrize(
    "args, says",
    [
        (["--policies", "busyfcs", "--pid", "1"], "--pid"),
        (["--repeat", "2", "--policy", "busyfcs", "--", "true"], "--repeat: only with --policies"),
        (["--policies", "busyfcs", "--policy", "rr", "--", "true"], "not allowed with argument"),
        (["--policies", "busyfcs,busyfcs", "--", "true"], "given twice"),
        (["--policies", "busyfcs", "--repeat", "0", "--", "true"], "--repeat"),
    ],
)
def test_a_comparison_refuses_what_it_cannot_do_in_one_line(args, says):
    assert says in one_line_error(ampsched_run("agent", *args))


# ---- a machine of one core type: the agent says the policy has nothing to do


@needs_core
def test_a_machine_of_one_core_type_gets_a_note_on_stderr_and_in_the_report(tmp_path):
    if sys.platform.startswith("linux") and not ampsched.topology()["symmetric"]:
        pytest.skip("this machine has several core types: --cores makes a symmetric one below")
    out = tmp_path / "report.json"
    r = ampsched_run("agent", "--policy", "busyfcs", "--cores", "all=0-1", "--output", str(out), "--", "true")
    assert r.returncode == 0, r.stderr
    notes = json.loads(out.read_text())["notes"]
    assert len(notes) == 1 and "nothing to do" in notes[0]
    assert f"ampsched agent: note: {notes[0]}" in r.stderr.splitlines()
    # Two core types: no note.
    r = ampsched_run("agent", "--policy", "busyfcs", "--cores", "big=0,small=1:0.5", "--json", "--", "true")
    assert r.returncode == 0 and json.loads(r.stdout)["notes"] == [] and "note:" not in r.stderr, r.stderr


# ---- --trace: a live run in the simulator's trace format


# More than a launched command's CPU time before the agent's first sample (its fork and exec).
FIRST_LOOK_S = 0.005


def trace_events(path):
    trace = json.loads(open(path).read())
    assert set(trace) == {"displayTimeUnit", "otherData", "traceEvents"}
    return trace, trace["traceEvents"]


@live
def test_a_live_trace_is_in_the_simulators_format_and_names_the_programs_threads(tmp_path):
    sim = tmp_path / "sim.json"
    r = ampsched_run("run", "--machine", "1fc-3sc", "--workload", "hh1", "--policy", "busyfcs", "--trace", str(sim))
    assert r.returncode == 0, r.stderr
    _, sim_events = trace_events(sim)
    path = tmp_path / "live.json"
    r = ampsched_run("agent", "--policy", "busyfcs", *EMULATE, "--trace", str(path), "--json", "--", *SHORT_LOOP)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    trace, events = trace_events(path)
    assert trace["otherData"] == {"machine": "live", "workload": " ".join(SHORT_LOOP), "policy": "busyfcs"}
    # Every kind of event has the fields the simulator's has.
    shapes = {
        (e["ph"], e["name"] if e["ph"] != "X" else "run"): set(e) | {"args:" + k for k in e["args"]} for e in sim_events
    }
    for e in events:
        shape = set(e) | {"args:" + k for k in e["args"]}
        assert shape == shapes[(e["ph"], e["name"] if e["ph"] != "X" else "run")], e
    runs = [e for e in events if e["ph"] == "X"]
    (main,) = report["threads"]
    assert {e["name"] for e in runs} == {f"sh t{main['tid']}"}
    # The slices add up to the thread's CPU time, but for what it ran before the agent's first
    # look (a slice never starts before it): well under FIRST_LOOK_S. busyfcs keeps the one
    # thread on the fast core 0 (but for its start, anywhere): there go most of them.
    cpu = sum(main["time_s"].values())
    on = {core: sum(e["dur"] for e in runs if e["tid"] == core) / 1e6 for core in (0, 1)}
    assert cpu - FIRST_LOOK_S <= on[0] + on[1] <= cpu + 1e-6
    # (Of what the slices hold: the part before the first look is in none, and on a short run
    # it is a large part of the thread's time.)
    assert on[0] > 0.8 * (on[0] + on[1]), on
    # No slice runs into another of the same core, none before the start.
    for core in (0, 1):
        spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in runs if e["tid"] == core)
        assert all(a[1] <= b[0] + 1e-6 for a, b in zip(spans, spans[1:])) and all(s[0] >= 0 for s in spans)
    # An existing trace is refused before the command runs, unless --force.
    before = path.read_bytes()
    r = ampsched_run("agent", "--policy", "busyfcs", *EMULATE, "--trace", str(path), "--", "true")
    assert "exists" in one_line_error(r) and path.read_bytes() == before
    os.symlink(path, tmp_path / "link.json")
    r = ampsched_run("agent", "--policy", "busyfcs", "--trace", str(tmp_path / "link.json"), "--force", "--", "true")
    assert "symbolic link" in one_line_error(r)


# ---- the example policy busiest_fast.py


# A workload whose main thread mostly sleeps (20 times: 0.1 s asleep, 1 ms of work) beside one
# busy worker (4e9 instructions at CPI 1: 1.4 s on 1fc-3sc's 2.8 GHz fast core).
IDLE_MAIN = """
name = "idle-main"
description = "a main thread that mostly sleeps beside a busy worker"
source = "synthetic (ampsched tests)"

[[app]]
name = "svc"

[[app.group]]
name = "main"
count = 1
kind = "app"
repeat = 20

[[app.group.phase]]
kind = "sleep"
seconds = 0.1

[[app.group.phase]]
kind = "compute"
instructions = 1.0e6
cpi = 1.0
llc_mpki = 1.0

[[app.group]]
name = "worker"
count = 1
kind = "app"

[[app.group.phase]]
kind = "compute"
instructions = 4.0e9
cpi = 1.0
llc_mpki = 1.0
"""


class OldestFirst(ampsched.Policy):
    """The former documented example (FastFirst): the oldest threads on the fast cores."""

    triggers = ("start", "exit")

    def decide(self, view):
        fast = view.machine["fast_cores"]
        slow = [c for c in range(len(view.machine["cores"])) if c not in fast]
        out = ampsched.Placement()
        for i, t in enumerate(view.live):
            out.set(t, fast if i < len(fast) or not slow else slow)
        return out


@needs_core
def test_busiest_fast_gives_the_fast_core_to_the_busy_worker_not_the_idle_main_thread_simulated(tmp_path):
    workload = tmp_path / "idle-main.toml"
    workload.write_text(IDLE_MAIN)
    fast_share = {}
    for name, policy in (("busiest", BUSIEST_FAST), ("oldest", OldestFirst())):
        threads = ampsched.run("1fc-3sc", str(workload), policy).raw["threads"]
        fast_share[name] = {t["group"]: t["fast_share"] for t in threads}
    # The worker waits for the first ranking (the quantum, 40 ms of its ~1.5 s) on any core, then
    # keeps the fast core; the main thread never gets it (it ran less in every quantum).
    assert fast_share["busiest"]["worker"] > 0.9 and fast_share["busiest"]["main"] == 0.0
    # The counter-example: by age, the idle main thread holds the fast core; the worker gets it
    # only once main has exited (after its 20 x 0.1 s), for the last third of its work.
    assert fast_share["oldest"]["main"] == 1.0 and fast_share["oldest"]["worker"] < 0.5


@live
def test_busiest_fast_gives_the_fast_cpu_to_the_busy_child_not_the_idle_shell_live():
    # sh waits (idle) for a busy child shell of about a second: the pattern of a program whose
    # main thread starts workers and waits for them.
    loop = "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"
    r = ampsched_run("agent", "--policy", BUSIEST_FAST, *EMULATE, "--json", "--", "sh", "-c", f"({loop}) & wait")
    assert r.returncode == 0, r.stderr
    threads = json.loads(r.stdout)["threads"]
    (parent,) = [t for t in threads if t["pid"] == t["tid"] and t["tid"] == min(x["pid"] for x in threads)]
    (child,) = [t for t in threads if t is not parent and sum(t["time_s"].values()) > 0.1]
    # The child runs on the fast CPU but for the first ranking (0.1 s) and the agent's reaction.
    assert child["time_s"]["big"] > 0.7 * (child["time_s"]["big"] + child["time_s"]["small"]), child
    # The idle shell on the slow CPU. It may be left on the fast one at the end: once the child
    # has exited, a quantum that falls before the shell's own exit finds it the only live thread,
    # so the busiest, and moves it there (seen once in twenty runs on a loaded machine). It was
    # then moved twice at least (to the slow CPU while the child ran, back to the fast one).
    assert parent["affinity"] == "1" or parent["decisions"] >= 2, parent


@live
def test_agent_compare_gives_a_row_per_run_and_per_policy_as_dataframes():
    result = ampsched.agent_compare(
        ["busyfcs", "rr"], SHORT_LOOP, repeat=1, emulate="small=1:0.5", interval_ms=10, status=False
    )
    assert list(result.runs["policy"]) == ["busyfcs", "rr"] and len(result.reports) == 2
    assert list(result.runs.columns[:6]) == ["run", "round", "policy", "wall_s", "cpu_big_s", "cpu_small_s"]
    assert list(result.summary["policy"]) == ["busyfcs", "rr"]
    assert result.summary["wall_s_sd"].isna().all()  # one run each: no spread
    assert (result.summary["wall_s_mean"] == result.runs["wall_s"]).all()
