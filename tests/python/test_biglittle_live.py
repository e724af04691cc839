"""The task runtime's lesson live (issue 28 §5): a dynamic work queue beats static equal partitioning
on an asymmetric machine, as "Exploiting Asymmetric Multi-Core Processors with Flexible System
Software" (the big.LITTLE paper), §V, shows for PARSEC's task-based versions against their pthreads
static threading.

The program is tests/agent/taskqueue.c: CHUNKS chunks of equal work computed by two workers (the
main thread is one), either split in equal halves and joined (`static`) or taken one by one from a
shared queue behind a pthread mutex (`dynamic`, the OmpSs runtime's FIFO). It measures its own
times: per worker the chunks it computed and the CPU time they took on each CPU, and when it took
its last chunk and finished. The agent runs it under `bound` (each thread pinned at its start to
one core and never moved: the paper's static threading, where "the OS is not allowed to migrate
threads between the clusters", and the task runtime's workers, which Nanos++ binds one per CPU),
with CPU 0 fast and CPU 1 emulated at `SLOW_SPEED` by cycle stealing (crates/agent/src/emulate.rs).

As the other live tests do on a shared machine (test_agent.py): the tests look only at their own
processes, run what they time at nice -20, read CPU time rather than wall time, compare the agent's
accounting with the program's own, and measure up to three times (an attempt in which other
programs held the fast CPU does not count: `MAX_FAST_LOSS`). Under cycle stealing a chunk
costs the same CPU time on either CPU (checked), so a worker's CPU time is its work, and its time
had its CPU been its own is its CPU time on each CPU at that CPU's emulated speed (`own_time`):
another program's load takes CPU time from the workers but adds none to it.
"""

import json
import subprocess
import sys

import pytest

import ampsched
from conftest import build_programs, env_with_package
from test_agent import ATTEMPTS, IS_ROOT, TWO_CPUS, high_priority


needs_root = pytest.mark.skipif(not IS_ROOT, reason="needs root (real-time cycle stealing, moving threads)")
needs_two_cpus = pytest.mark.skipif(not TWO_CPUS, reason="names CPU 0 fast and CPU 1 slow: needs both")
pytestmark = [
    pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the agent is Linux-only"),
]

# The big/little performance ratio the slow CPU emulates: the paper's average over its nine
# PARSEC programs (Table I: 26.63 / 9 = 2.96, one Cortex-A15 against one Cortex-A7). Cycle
# stealing gives every program the same ratio (emulate.rs), so one ratio stands for all nine.
PAPER_RATIO = 2.96
SLOW_SPEED = round(1 / PAPER_RATIO, 3)  # 0.338
EMULATE = ["--emulate", f"small=1:{SLOW_SPEED}"]
SPEED = {0: 1.0, 1: SLOW_SPEED}  # by Linux CPU
CORE_TYPE = {0: "big", 1: "small"}  # the agent's names for them under --emulate
INTERVAL_MS = 10  # the agent's sampling interval
WORKERS = 2  # one per CPU, as the runtime's workers and the pthreads codes' threads = cores
# The work: WORK_MS of computation at full speed in CHUNKS chunks (5 ms each: long against the
# queue's lock and the clock reads around a chunk, microseconds, and against the 2 ms stealing
# period, so that a chunk on the slow CPU sees its average speed; short against the run, so that
# the chunk a worker finishes after the other found the queue empty is 1/CHUNKS of the work).
# About 1.5 s (static) plus 0.75 s (dynamic) of wall time per attempt.
WORK_MS = 1000
CHUNKS = 200

# What the model predicts, W the work at full speed, s = SLOW_SPEED, each worker with a CPU:
# - static: each worker computes W/2; the fast one is done at W/2, the slow one at (W/2)/s, and
#   the join waits for it: T_static = W/(2s) (1.48 W), the fast CPU idle for 1 - s of it.
# - dynamic: both workers compute until the queue is empty, the fast one at rate 1 and the slow
#   one at s, so the fast one takes 1/(1+s) of the chunks (0.75) and T_dynamic = W/(1+s) (0.75 W).
# T_dynamic / T_static = 2s/(1+s) = 0.505: in the paper's terms (Eq. 1, 4), a speedup over one
# little core of 2 for static (two workers at little speed) against 1/s + 1 = 3.96 for dynamic,
# Eq. 4's ideal for one big and one little core.
PREDICTED_RATIO = 2 * SLOW_SPEED / (1 + SLOW_SPEED)
PREDICTED_FAST_SHARE = 1 / (1 + SLOW_SPEED)
# Load. Static's time cannot move with load (each worker's half is fixed, and own_time counts CPU
# time), but the dynamic split follows the rates the workers actually get. Another program taking
# a fraction y of the slow CPU moves chunks to the fast worker: T_dynamic / T_static =
# 2s/(1+s(1-y)), at worst (y = 1, the fast worker does everything) 2s = 0.68, the fast CPU alone.
# One taking a fraction x of the fast CPU (the workers run at nice -20 in a session of their own, so
# it takes another nice -20 session, e.g. another live test) moves chunks to the slow worker: the
# fast one gets (1-x)/(1-x+s) of them and T_dynamic / T_static = 2s/(1-x+s), which is 2s again at
# x = s. Required: at most 2s (the dynamic queue never slower than the fast CPU alone, where static
# waits for the slow one), plus the chunk at the end (one chunk, at the slow speed if the slow
# worker ends last: 2/CHUNKS of T_static); and the fast worker's share of the chunks at least what
# x = s leaves it, 1 - s, less that chunk. An attempt in which other programs took more than
# MAX_FAST_LOSS of the fast CPU from the fast worker (the kernel's run-queue wait says so) did not
# run on the emulated machine: it does not count, and if no attempt ran on it the test is skipped,
# saying so (measured: another nice -20 session spinning on CPU 0 took 68-71% of it, and the
# ratio was 0.99-1.05).
MAX_FAST_LOSS = SLOW_SPEED
REQUIRED_RATIO = 2 * SLOW_SPEED + 2 / CHUNKS
REQUIRED_FAST_SHARE = (1 - MAX_FAST_LOSS) / (1 - MAX_FAST_LOSS + SLOW_SPEED) - 1 / CHUNKS
# The most of the slow CPU the slow worker may have had while pinned there: SLOW_SPEED, plus the
# stealer's lateness (it wakes up to tens of microseconds late in a 2 ms period and then steals
# that much less), as test_agent.py's STOLEN_RANGE allows it (0.1 of the period).
EMULATION_SLACK = 0.1
# How far the agent's CPU time of a worker on each core type may be from the program's, s: before
# the agent's first sample pins a thread (up to two intervals: the sample, and the pin taking
# effect) its time is charged to the type of the CPU it was seen on last, and the time a thread
# runs after the agent's last sample of it before it exits is not seen.
AGENT_SLACK_S = 3 * INTERVAL_MS / 1000


@pytest.fixture(scope="module")
def taskqueue(tmp_path_factory):
    return build_programs(tmp_path_factory, "taskqueue")["taskqueue"]


def run_program(taskqueue, *args, **kw):
    r = subprocess.run([taskqueue, *map(str, args)], capture_output=True, text=True, check=True, **kw)
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def iters_per_ms(taskqueue):
    """taskqueue's loop iterations per millisecond of CPU time on this machine: the best of three
    short runs (CPU time, so load barely changes it; it only sizes the runs, no assertion rests on it)."""
    chunks, iters = 10, 5_000_000
    best = 0.0
    for _ in range(3):
        (w,) = run_program(taskqueue, "static", 1, chunks, iters, preexec_fn=high_priority)["workers"]
        best = max(best, chunks * iters / (w["cpu_ns"] / 1e6))
    return best


# ---- the program itself (no agent, no privileges)


def test_both_modes_compute_the_same_chunks_and_say_what_each_worker_did(taskqueue, tmp_path):
    # 3 workers and 10 chunks: static splits them 3, 3, 4 (floor(i C / T) bounds); dynamic hands
    # out every chunk once, whoever takes it. Each chunk's result depends on its index alone, so
    # the checksums agree; every chunk is charged to one CPU.
    runs = {mode: run_program(taskqueue, mode, 3, 10, 20000) for mode in ("static", "dynamic")}
    assert runs["static"]["checksum"] == runs["dynamic"]["checksum"], runs
    assert [w["chunks"] for w in runs["static"]["workers"]] == [3, 3, 4], runs["static"]
    for mode, out in runs.items():
        assert (out["mode"], out["threads"], out["chunks"], out["iters"]) == (mode, 3, 10, 20000)
        assert sum(w["chunks"] for w in out["workers"]) == 10, out
        assert len({w["tid"] for w in out["workers"]}) == 3, out
        for w in out["workers"]:
            assert sum(c["chunks"] for c in w["cpus"]) == w["chunks"], w
            assert w["finish_ns"] <= out["wall_ns"], out
    # OUT: the same object in a file, nothing on stdout.
    r = subprocess.run([taskqueue, "dynamic", "3", "10", "20000", str(tmp_path / "out.json")], capture_output=True)
    assert (r.returncode, r.stdout) == (0, b""), r
    assert json.loads((tmp_path / "out.json").read_text())["checksum"] == runs["static"]["checksum"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["fifo", "2", "1", "1"], "taskqueue: the mode must be static or dynamic, not 'fifo'"),
        (["static", "0", "1", "1"], "taskqueue: THREADS must be an integer from 1 to 256, not '0'"),
        (["dynamic", "2", "-3", "1"], "taskqueue: CHUNKS must be an integer from 1 to 10000000, not '-3'"),
        (["static", "2", "1", "1e6"], "taskqueue: ITERS must be an integer from 1 to 1000000000000, not '1e6'"),
        (["static", "2"], "usage: taskqueue static|dynamic THREADS CHUNKS ITERS [OUT]"),
        (
            ["static", "2", "1", "1", "/nonexistent/out.json"],
            "taskqueue: cannot write /nonexistent/out.json: No such file or directory",
        ),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(taskqueue, args, message):
    r = subprocess.run([taskqueue, *args], capture_output=True, text=True)
    assert (r.returncode, r.stderr, r.stdout) == (2, message + "\n", "")


# ---- static against dynamic under the agent, CPU 1 emulated slow


def agent_run(taskqueue, mode, iters, out):
    """taskqueue MODE under `ampsched agent --policy bound` at nice -20: (what the program
    measured, the agent's report)."""
    r = subprocess.run(
        [sys.executable, "-m", "ampsched", "agent", "--policy", "bound", "--interval", str(INTERVAL_MS), *EMULATE]
        + ["--output", str(out), "--force", "--", taskqueue, mode, str(WORKERS), str(CHUNKS), str(iters)],
        capture_output=True,
        text=True,
        env=env_with_package(),
        timeout=120,
        preexec_fn=high_priority,
    )
    if r.returncode != 0 and "real-time scheduling" in r.stderr:
        pytest.skip(f"the agent cannot emulate here: {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), json.loads(out.read_text())


def own_time(cpu_ns_by_cpu):
    """A worker's time had its CPUs been its own, s: its CPU time on each CPU at that CPU's
    emulated speed (a second of CPU time on the slow CPU took 1 / SLOW_SPEED seconds, the stealer
    holding the CPU for the rest)."""
    return sum(ns / 1e9 / SPEED[cpu] for cpu, ns in cpu_ns_by_cpu.items())


def per_cpu(worker):
    return {c["cpu"]: c["cpu_ns"] for c in worker["cpus"]}


def chunk_cost_ratio(workers):
    """CPU time per chunk on the slow CPU over that on the fast one, all workers together."""
    chunks, ns = {0: 0, 1: 0}, {0: 0, 1: 0}
    for w in workers:
        for c in w["cpus"]:
            chunks[c["cpu"]] += c["chunks"]
            ns[c["cpu"]] += c["cpu_ns"]
    assert chunks[0] and chunks[1], f"chunks per CPU {chunks}: the workers did not run on both CPUs"
    return (ns[1] / chunks[1]) / (ns[0] / chunks[0])


def check_the_agent_saw_what_the_program_measured(program, report, mode):
    """The program's wall time within the agent's; each worker's thread in the report pinned to one
    CPU, one on each, and its CPU time per core type the program's own, within AGENT_SLACK_S.
    Returns {cpu: worker} by where each was pinned."""
    # The agent's wall time is the command's, from its launch to its exit: the program's own span
    # lies inside it.
    assert program["wall_ns"] / 1e9 <= report["target"]["wall_s"], f"{mode}: {program['wall_ns']}, {report['target']}"
    threads = {t["tid"]: t for t in report["threads"]}
    by_cpu = {}
    for w in program["workers"]:
        t = threads[w["tid"]]
        by_cpu[int(t["affinity"])] = w
        mine = per_cpu(w)
        for cpu, ty in CORE_TYPE.items():
            seen = t["time_s"][ty]
            assert abs(seen - mine.get(cpu, 0) / 1e9) <= AGENT_SLACK_S, f"{mode}: agent {t}, program {w}"
    assert sorted(by_cpu) == [0, 1], f"{mode}: affinities {[t['affinity'] for t in report['threads']]}"
    return by_cpu


def had_of_their_cpu(report, by_cpu):
    """{cpu: the share of the time its worker wanted the CPU that it had it}, from the kernel's
    run-queue wait (schedstat) as the agent reports it: about 1 on the fast CPU and SLOW_SPEED on
    the slow one (the stealer's time is wait), less where other programs took their part."""
    threads = {t["tid"]: t for t in report["threads"]}
    had = {}
    for cpu, w in by_cpu.items():
        t = threads[w["tid"]]
        ran = sum(t["time_s"].values())
        had[cpu] = round(ran / (ran + t["run_queue_wait_s"]), 3)
    return had


class Spoiled(Exception):
    """An attempt that did not run on the emulated machine: other programs took the fast CPU."""


@needs_root
@needs_two_cpus
def test_a_dynamic_queue_beats_static_equal_partitioning_on_an_emulated_big_little(taskqueue, iters_per_ms, tmp_path):
    iters = int(WORK_MS * iters_per_ms / CHUNKS)

    def measure():
        runs = {mode: agent_run(taskqueue, mode, iters, tmp_path / f"{mode}.json") for mode in ("static", "dynamic")}
        program = {mode: out for mode, (out, _) in runs.items()}
        assert program["static"]["checksum"] == program["dynamic"]["checksum"], program
        # Whose worker ran where: the agent's report against the program's own accounting.
        where = {mode: check_the_agent_saw_what_the_program_measured(*runs[mode], mode) for mode in runs}
        own = {mode: {cpu: own_time(per_cpu(w)) for cpu, w in by_cpu.items()} for mode, by_cpu in where.items()}
        time = {mode: max(t.values()) for mode, t in own.items()}
        work = {mode: sum(w["cpu_ns"] for w in out["workers"]) / 1e9 for mode, out in program.items()}
        had = {mode: had_of_their_cpu(runs[mode][1], by_cpu) for mode, by_cpu in where.items()}
        fast_share = where["dynamic"][0]["chunks"] / CHUNKS
        ratio = time["dynamic"] / time["static"]
        facts = (
            f"own time (s) per CPU {own}, work (CPU s) {work}, dynamic/static {ratio:.3f} (predicted"
            f" {PREDICTED_RATIO:.3f}, required < {REQUIRED_RATIO:.3f}), the fast worker's share of the dynamic"
            f" chunks {fast_share:.3f} (predicted {PREDICTED_FAST_SHARE:.3f}, required > {REQUIRED_FAST_SHARE:.3f}),"
            f" the share of its CPU each worker had {had},"
            f" wall (s) program { ({m: round(o['wall_ns'] / 1e9, 3) for m, o in program.items()}) }"
            f" agent { ({m: rep['target']['wall_s'] for m, (_, rep) in runs.items()}) }"
        )

        # The emulation: CPU 1 slowed (whatever other load adds, the stealer took its part), and by
        # taking time, not speed: a chunk costs the same CPU time on either CPU, which makes a
        # worker's CPU time its work (the static halves are equal work by construction).
        assert had["static"][1] <= SLOW_SPEED + EMULATION_SLACK, facts
        cost = chunk_cost_ratio(program["static"]["workers"])
        assert 0.9 < cost < 1.1, f"a chunk's CPU time on the slow CPU over the fast one: {cost:.3f}; {facts}"
        # Static: the slow worker's half holds up the join, W/(2s) (within 10%: the chunk cost).
        assert abs(time["static"] / (work["static"] / (2 * SLOW_SPEED)) - 1) < 0.1, facts
        assert own["static"][0] < 0.5 * own["static"][1], facts
        # Dynamic: no worker stopped while chunks were left (each found the queue empty after
        # every chunk had been taken), the fast worker took more, and the program took less time.
        dyn = program["dynamic"]["workers"]
        assert max(w["last_take_ns"] for w in dyn) <= min(w["finish_ns"] for w in dyn), f"{dyn}; {facts}"
        if had["dynamic"][0] < 1 - MAX_FAST_LOSS:
            raise Spoiled(facts)
        assert fast_share > REQUIRED_FAST_SHARE, facts
        assert ratio < REQUIRED_RATIO, facts
        return facts

    failures, spoiled = [], []
    for _ in range(ATTEMPTS):
        try:
            print(measure())
            return
        except AssertionError as error:
            failures.append(str(error))
        except Spoiled as load:
            spoiled.append(str(load))
    if failures:
        raise AssertionError(f"failed {len(failures)} times: " + " | ".join(failures + spoiled))
    pytest.skip(
        f"other programs took more than {MAX_FAST_LOSS} of the fast CPU in all {ATTEMPTS} attempts, so the machine"
        " was not the emulated one: " + " | ".join(spoiled)
    )
