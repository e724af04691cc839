"""`ampsched record` and `ampsched.record`: a recorded program of known structure gives a workload
of that structure, the replay is deterministic, the recorded file reads back as any workload file,
and a recording that cannot be made, a bad raw recording or an output that must not be replaced
is one line and exit status 2, with nothing written.

The live tests need root (the emulated slow CPU's cycle stealing, placements) and run alone
(`serial`: they time a live program), as the agent's; each skips with its reason where it cannot
run. The reproduction's quick version (record-replay: record, replay, live runs) runs here too.
"""

import json
import os
import stat
import subprocess
import sys
import tomllib

import pytest

import ampsched
from conftest import build_programs, cli, env_with_package
from test_agent import high_priority

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, os.pardir, os.pardir)
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
TWO_CPUS = len(os.sched_getaffinity(0)) >= 2 if hasattr(os, "sched_getaffinity") else False

pytestmark = [
    pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the agent is Linux-only"),
]


def live(test):
    """A live test's marks: alone (it times a live program), root and two CPUs (the emulation)."""
    for mark in (
        pytest.mark.serial,
        pytest.mark.skipif(not IS_ROOT, reason="needs root (the emulation's cycle stealing, the agent's placements)"),
        pytest.mark.skipif(not TWO_CPUS, reason="needs at least 2 CPUs"),
    ):
        test = mark(test)
    return test


EMULATE = "small=1:0.5"
# barrier.c's run: N workers, R rounds of 40 M iterations of work (30 to 40 ms here), the barrier,
# then a tenth of that under the one mutex; sampled every INTERVAL_MS, so that a round spans several
# samples. Four workers, so that static's placement (two on each CPU, one of them at half speed)
# leaves the fast pair waiting half of each round (the barrier is logged, measured; when it was
# only inferred from the samples, three workers' waits fell between two samples). Under a second.
N, ROUNDS, ITERS, LOCK_ITERS = 4, 5, 40_000_000, 4_000_000
INTERVAL_MS = 10


def one_line_error(done):
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ampsched: error: "), done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """barrier.c and prodcons.c of tests/agent, built with the system compiler."""
    return build_programs(tmp_path_factory, "barrier", "prodcons")


# ---- refused before anything runs


def test_a_target_is_needed_and_only_one():
    assert "give either a command after --, --pid PID or --from-raw FILE" in one_line_error(cli("record"))
    assert "(not a command and --pid)" in one_line_error(cli("record", "--pid", "1", "--", "true"))


def test_an_existing_output_is_refused_before_the_command_runs(tmp_path):
    out, marker = tmp_path / "w.toml", tmp_path / "ran"
    out.write_text("mine\n")
    line = one_line_error(cli("record", "--output", str(out), "--", "touch", str(marker)))
    assert f"--output: {out} exists: give another name, or --force to replace it" in line
    assert not marker.exists() and out.read_text() == "mine\n"
    raw = tmp_path / "r.json"
    raw.write_text("{}")
    line = one_line_error(cli("record", "--output", str(tmp_path / "new.toml"), "--raw", str(raw), "--", "true"))
    assert "--raw:" in line and "exists" in line and not (tmp_path / "new.toml").exists()


def test_a_symlink_or_fifo_output_is_refused_even_with_force(tmp_path):
    target = tmp_path / "target"
    target.write_text("kept\n")
    link, fifo = tmp_path / "link.toml", tmp_path / "fifo.toml"
    link.symlink_to(target)
    os.mkfifo(fifo)
    assert "is a symbolic link" in one_line_error(cli("record", "--force", "--output", str(link), "--", "true"))
    assert "a FIFO" in one_line_error(cli("record", "--force", "--output", str(fifo), "--", "true"))
    assert target.read_text() == "kept\n" and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_the_same_file_twice_is_refused(tmp_path):
    path = str(tmp_path / "same")
    assert "the same file as --output" in one_line_error(cli("record", "--output", path, "--raw", path, "--", "true"))


@pytest.mark.parametrize(
    "content, says",
    [
        ("{not json", "line 1: not JSON"),
        ("[1, 2]", "not a raw recording (a JSON object)"),
        (b"\xff\xfe", "not UTF-8 text"),
    ],
)
def test_a_damaged_raw_recording_is_one_line(tmp_path, content, says):
    raw, out = tmp_path / "raw.json", tmp_path / "w.toml"
    raw.write_bytes(content if isinstance(content, bytes) else content.encode())
    line = one_line_error(cli("record", "--from-raw", str(raw), "--output", str(out)))
    assert f"--from-raw: {raw}: {says}" in line, line
    assert not out.exists()


def test_a_raw_recording_of_the_wrong_shape_is_the_converters_one_line(tmp_path):
    raw, out = tmp_path / "raw.json", tmp_path / "w.toml"
    raw.write_text(json.dumps({"version": 1, "threads": "none"}))
    one_line_error(cli("record", "--from-raw", str(raw), "--output", str(out)))
    assert not out.exists()


def test_from_raw_takes_no_machine_option(tmp_path):
    line = one_line_error(cli("record", "--from-raw", str(tmp_path / "r.json"), "--emulate", EMULATE))
    assert "--from-raw: the raw recording names its machine" in line


# ---- recordings that cannot be made: one line, nothing written


@pytest.mark.parametrize(
    "command",
    [["false"], [os.path.join("/nonexistent", "program")]],
    ids=["exits-at-once", "not-found"],
)
def test_a_command_that_fails_at_once_is_one_line(tmp_path, command):
    out = tmp_path / "w.toml"
    one_line_error(cli("record", "--output", str(out), "--", *command))
    assert not out.exists()


def test_a_pid_that_does_not_exist_is_one_line(tmp_path):
    # A pid above the kernel's limit (pid_max is at most 2^22) names no process.
    out = tmp_path / "w.toml"
    one_line_error(cli("record", "--output", str(out), "--pid", str(2**22 + 1)))
    assert not out.exists()


@live
def test_emulating_without_the_privilege_is_one_line(tmp_path):
    """`--emulate` needs CAP_SYS_NICE (real-time cycle stealers): without it, one line and no
    file, before anything runs. The capability is dropped with util-linux's setpriv (root keeps
    the others, so nothing else stands in the way)."""
    import shutil

    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("needs setpriv (util-linux) to drop CAP_SYS_NICE")
    out = tmp_path / "w.toml"
    drop = [setpriv, "--bounding-set=-sys_nice", "--inh-caps=-sys_nice", "--"]
    done = subprocess.run(
        [*drop, sys.executable, "-m", "ampsched", "record", "--emulate", EMULATE, "--output", str(out), "--", "true"],
        capture_output=True, text=True, env=env_with_package(), timeout=60,
    )  # fmt: skip
    line = one_line_error(done)
    assert "CAP_SYS_NICE" in line, line
    assert not out.exists()


# ---- barrier.c recorded live


@pytest.fixture(scope="module")
def barrier_recording(programs, tmp_path_factory):
    """barrier.c recorded under static on the emulated machine: the files and what the program
    measured of itself. Its OUT argument carries a mark that must not reach the workload file."""
    return record_barrier(programs, tmp_path_factory.mktemp("barrier"))


def record_barrier(programs, folder):
    """barrier.c recorded into `folder` (see barrier_recording)."""
    os.makedirs(folder, exist_ok=True)
    files = {k: str(folder / f) for k, f in (("toml", "w.toml"), ("raw", "w.json"), ("machine", "m.toml"))}
    own = str(folder / "private-argument-31.json")
    done = subprocess.run(
        [sys.executable, "-m", "ampsched",
         "record", "--policy", "static", "--emulate", EMULATE, "--interval", str(INTERVAL_MS), "--output", files["toml"],
         "--raw", files["raw"], "--save-machine", files["machine"],
         "--", programs["barrier"], str(N), str(ROUNDS), str(ITERS), str(LOCK_ITERS), own],
        capture_output=True, text=True, env=env_with_package(), timeout=300, preexec_fn=high_priority,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with open(own) as f:
        files["measured"] = json.load(f)
    files["stderr"] = done.stderr
    return files


def _phases(group):
    return group.get("phase", [])


def effective(group, predicate) -> int:
    """How many of a group's phases, over its repeats, satisfy `predicate`."""
    return group.get("repeat", 1) * sum(1 for p in _phases(group) if predicate(p))


@live
class TestBarrierRecorded:
    def test_the_workload_has_the_programs_structure(self, barrier_recording):
        with open(barrier_recording["toml"], "rb") as f:
            w = tomllib.load(f)
        (app,) = w["app"]
        groups = app["group"]
        # The main thread and its N workers, one group each (a thread's own lifetime and work).
        assert len(groups) == N + 1, [g["name"] for g in groups]
        main, workers = groups[0], groups[1:]
        assert main.get("start", "at_start") == "at_start"
        assert all(g.get("start") == "spawned" for g in workers)
        # The main thread spawns and joins each worker.
        for kind in ("spawn", "join"):
            named = sorted(p["group"] for p in _phases(main) if p["kind"] == kind)
            assert named == sorted(g["name"] for g in workers), (kind, named)
        # (The barrier: the test below.)
        # Critical sections on one lock, in the workers only.
        locks = {p["lock"] for g in groups for p in _phases(g) if p["kind"] == "critical"}
        assert len(locks) == 1, locks
        assert not any(p["kind"] == "critical" for p in _phases(main))

    def test_one_barrier_of_n_parties_reached_once_a_round(self, barrier_recording):
        # The library logs every pthread_barrier_wait (the last arrival's too): one barrier of N
        # parties, measured, met ROUNDS times by each worker (through its group's repeat or its
        # phases), and no other barrier inferred from the samples (the waits explain the time
        # the workers spent off the CPU there).
        with open(barrier_recording["toml"], "rb") as f:
            workers = tomllib.load(f)["app"][0]["group"][1:]
        barriers = {(p["barrier"], p["parties"]) for g in workers for p in _phases(g) if p["kind"] == "barrier"}
        meetings = [effective(g, lambda p: p["kind"] == "barrier") for g in workers]
        assert (sorted(barriers), meetings) == ([("b0", N)], [ROUNDS] * N)

    def test_the_file_says_what_was_measured_and_inferred_and_keeps_no_argument(self, barrier_recording):
        text = open(barrier_recording["toml"]).read()
        head = text.split("\n[")[0].lower()
        assert head.startswith("#") and "measured" in head and "inferred" in head
        assert "private-argument-31" not in text
        with open(barrier_recording["raw"]) as f:
            assert json.load(f)["command"] is None
        # The summary names the replay command, with the machine file written.
        assert f"--machine {barrier_recording['machine']}" in barrier_recording["stderr"]

    def test_the_replay_reads_back_and_is_deterministic(self, barrier_recording):
        runs = [
            cli("run", "--workload", barrier_recording["toml"], "--machine", barrier_recording["machine"],
                "--policy", policy, "--json")
            for policy in ("static", "static", "busyfcs")
        ]  # fmt: skip
        for done in runs:
            assert done.returncode == 0, done.stderr
        assert runs[0].stdout == runs[1].stdout
        result = json.loads(runs[0].stdout)
        # Every worker's recorded work is replayed: as work (a slow-core second is half a second
        # of work here), each worker's CPU time within 10% of what it measured of itself.
        measured = {w["tid"]: w["cpu_ns"] / 1e9 for w in barrier_recording["measured"]["workers"]}
        replayed = sorted(t["fast_s"] + (t["cpu_s"] - t["fast_s"]) * 0.5 for t in result["threads"])[-N:]
        for own, sim in zip(sorted(measured.values()), replayed):
            assert abs(sim / own - 1) <= 0.10, (own, sim)

    def test_the_recording_replays_on_machines_it_never_ran_on(self, barrier_recording):
        # The point of a recording: any catalog machine and policy. Every recorded thread runs (the
        # spawns, the barrier and the lock fill on 24 cores as on 2), deterministically, and on
        # a part whose every core is faster than the recorded machine's fast CPU sooner than the
        # replay on the recorded machine.
        def replay(machine, policy):
            done = cli(
                "run", "--workload", barrier_recording["toml"], "--machine", machine, "--policy", policy, "--json"
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

        recorded = json.loads(replay(barrier_recording["machine"], "rr"))
        for machine, policy in (("alder-lake-8p16e", "linux-capacity"), ("odroid-xu3-lite", "busyfcs")):
            text = replay(machine, policy)
            assert replay(machine, policy) == text
            result = json.loads(text)
            assert len(result["threads"]) == N + 1, machine
            if machine == "alder-lake-8p16e":
                assert result["makespan_s"] < recorded["makespan_s"], (result["makespan_s"], recorded["makespan_s"])

    def test_the_machine_topology_saves_replays_it_alike(self, barrier_recording, tmp_path):
        # The machine `record --save-machine` writes is `topology --emulate ... --save`'s, but for its name.
        machine = tmp_path / "m.toml"
        assert cli("topology", "--emulate", EMULATE, "--save", str(machine)).returncode == 0
        results = []
        for path in (barrier_recording["machine"], str(machine)):
            done = cli("run", "--workload", barrier_recording["toml"], "--machine", path, "--policy", "rr", "--json")
            assert done.returncode == 0, done.stderr
            results.append(json.loads(done.stdout))
        assert results[0]["makespan_s"] == results[1]["makespan_s"]
        assert [t["cpu_s"] for t in results[0]["threads"]] == [t["cpu_s"] for t in results[1]["threads"]]

    def test_conversion_of_the_raw_recording_gives_the_same_file(self, barrier_recording, tmp_path):
        again = tmp_path / "w.toml"
        done = cli("record", "--from-raw", barrier_recording["raw"], "--output", str(again))
        assert done.returncode == 0, done.stderr
        assert again.read_text() == open(barrier_recording["toml"]).read()

    def test_a_partial_recording_is_refused_unless_accepted_then_marked(self, barrier_recording, tmp_path):
        with open(barrier_recording["raw"]) as f:
            raw = json.load(f)
        raw["incomplete"] = "the agent was stopped by SIGTERM"
        path, out = tmp_path / "partial.json", tmp_path / "w.toml"
        path.write_text(json.dumps(raw))
        line = one_line_error(cli("record", "--from-raw", str(path), "--output", str(out)))
        assert "the recording is partial (the agent was stopped by SIGTERM)" in line and not out.exists()
        done = cli("record", "--from-raw", str(path), "--output", str(out), "--accept-partial")
        assert done.returncode == 0, done.stderr
        text = out.read_text()
        (mark,) = [line for line in text.split("\n[")[0].splitlines() if "PARTIAL RECORDING" in line]
        assert mark.startswith("#") and "SIGTERM" in mark
        assert "partial" in done.stderr

    def test_the_api_returns_the_recording_and_writes_nothing_without_output(self, barrier_recording):
        r = ampsched.record(from_raw=barrier_recording["raw"])
        # The same file but for its name (the output's stem; "recorded" without an output).
        written = open(barrier_recording["toml"]).read().replace('name = "w"', 'name = "recorded"')
        assert r.output is None and r.partial is None and r.toml == written
        assert r.summary["threads"] == N + 1


@live
def test_the_reproductions_quick_version(tmp_path):
    """record-replay's quick version (barrier.c under static): its document, every claim with
    its evidence kind, and the claims the committed document holds."""
    from ampsched import reproductions

    cwd = os.getcwd()
    os.chdir(REPO)  # the reproduction reads tests/agent/ from the repository's root
    try:
        claims, text = reproductions.run("record-replay", quick=True, output=str(tmp_path))
    finally:
        os.chdir(cwd)
    assert (tmp_path / "record-replay.md").read_text() == text
    assert "ampsched reproduce record-replay" in text and "## Validation table" in text
    kinds = set(claims["evidence"].str.split(",").str[0])
    assert kinds <= set(reproductions.EVIDENCE), kinds
    ids = set(claims["id"])
    assert {"barrier-static-wall", "barrier-static-thread-cpu"} <= ids
    committed = reproductions.read_claims(os.path.join(REPO, "docs", "reproduction", "record-replay.md"))
    assert ids <= set(committed), "the claims changed: regenerate docs/reproduction/record-replay.md"
