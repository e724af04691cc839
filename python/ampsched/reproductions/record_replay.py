"""record-replay: `ampsched record`'s validation, programs recorded live and replayed in the
simulator, against live runs (issue 31's "Validation").

On this machine, two CPUs with CPU 1 slowed to half speed by the agent's cycle stealing
(`--emulate small=1:0.5`): each program is recorded RECORDINGS times under `static` (`ampsched
record --policy static`), each recording is replayed in the simulator on the machine file of the same
emulated CPUs (the one `ampsched topology --emulate small=1:0.5 --save` writes, which the
recording names) under `static`, `busyfcs` and `rr`, and each replay is compared with live runs
of the program under the same policy (`ampsched agent --policy P --emulate small=1:0.5`):

- the program's wall time: the replay's against the median of LIVE_REPEATS live runs (the
  agent's report's wall time, as the recording's), whose spread (min to max) is stated;
- under `static` also each thread's CPU time, as work: live, the agent's CPU time (on the
  emulated slow CPU the stealer takes time, it does not slow the clock, so a CPU-second there is
  a full-speed CPU-second of work); replayed, the simulated time on the fast core plus the time
  on the slow core times its speed (SLOW_SPEED).

The issue's target is wall time within 10% for CPU-bound and lock-bound programs; each claim is
judged by the project's one tolerance rule on that number (an "at most 10%" allowing 2.5 points)
and states its error as measured, so the 10% itself can be read off. Claims under `static`,
the policy the recording ran under, are checks of the record-and-replay loop (the workload was
made from such a run: "calibrated"); under `busyfcs` and `rr` they are independent: the
recording never saw those policies.

Live runs are measured, not simulated: the document's numbers change from one build to the next
(the other reproductions' are byte-identical), and the machine's load is stated with them. The
live runs of one program alternate the policies round by round (as `agent --policies` does), so
a drift in the machine's load falls on every policy alike, and run at the highest normal
priority in a session of their own (as the agent's live tests run what they time).

Needs root (the emulation's cycle stealing) and a C compiler (tests/agent/barrier.c and
prodcons.c, built here); pigz and xz where installed (a program missing is "not comparable",
said so). Run from the repository root (the test programs' sources are read from tests/agent/).
"""

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from ampsched._live import high_priority
from . import Claim, Report, ReproductionError
from ._format import judge_number, markdown_table, pct

TITLE = "Programs recorded live, replayed in the simulator, against live runs (ampsched record)"
PAPER = (
    "ampsched's issue 31, `ampsched record`: record a real program with the agent, replay it on machines "
    "that do not exist (its Validation section states the target: wall time within 10%)"
)
SUMMARY = """Each program is recorded by `ampsched record` under `static` on this machine's two CPUs, CPU 1
slowed to half speed by cycle stealing (three recordings, each one live run); each workload file is replayed by the
simulator on the machine file of those two CPUs under `static`, `busyfcs` and `rr`, and each replay is compared
with live runs of the program under the same policy, a claim judged on the median recording. Under `static` the replay is a check of the record-and-replay loop (the recording is of a `static`
run); under `busyfcs` and `rr` it predicts a run the recording never saw. **The live numbers are measurements on a
shared machine**: this document changes with every build, and states the machine's load and the live runs'
spread."""

EMULATE = "small=1:0.5"
# The emulated slow CPU's speed (EMULATE's ":0.5"): a simulated second on it is half a second of work.
SLOW_SPEED = 0.5
RECORD_POLICY = "static"
POLICIES = ("static", "busyfcs", "rr")
# Live runs per program and policy; the median is compared (the "repeat each live run").
LIVE_REPEATS = 3
# Recordings per program (the quick version: one): each is one live run, and what the converter
# infers from its samples varies from one to the next; each is replayed, the median judged.
RECORDINGS = 3
# The target: the replayed wall time within 10% of the live one.
TARGET_PCT = 10.0
# A thread's CPU time is compared when it carries at least this share of the program's: the
# main thread of barrier or prodcons only starts and joins, and a relative error of its few
# milliseconds says nothing.
THREAD_SHARE = 0.05
# The agent's sampling interval for the recording and the live runs (ms): the recording's
# resolution of CPU time and blocking; 10 ms as the live tests' (the default is 100 ms).
INTERVAL_MS = 10
SEED = 1
# How long one live run may take before the harness gives up on it (a hung program): far past
# the programs' 1-2 s, on a loaded machine.
RUN_TIMEOUT_S = 300

# The programs, full and quick version: name -> (kind, arguments). The C programs' iteration
# counts are about 1 M per ms on this machine's CPUs (a 64-bit LCG step per ns); sizes are
# chosen for 1 to 2 s a run under the emulation.
PIGZ_MB, XZ_MB = 96, 32
PROGRAMS = {
    "pigz": ("CPU-bound", None),
    "xz": ("CPU-bound", None),
    # 3 workers over 2 CPUs: 20 rounds of 15 ms of work, the barrier, then 1.5 ms under the one mutex.
    "barrier": ("lock-bound", ["3", "20", "15000000", "1500000"]),
    # 2 producers, 2 consumers, 200 items each producer, a queue of 4: 2 ms to make an item, 2 ms to use it.
    "prodcons": ("lock-bound", ["2", "2", "200", "4", "2000000", "2000000"]),
}
QUICK_PROGRAM = "barrier"
QUICK_ARGS = ["3", "10", "15000000", "1500000"]


def _repository_file(*parts) -> str:
    """A file of the repository (the test programs' sources): from the current directory, the
    repository root `make reproduce` runs in, else from this package's place in a source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    for root in (os.getcwd(), os.path.join(here, os.pardir, os.pardir, os.pardir)):
        path = os.path.join(root, *parts)
        if os.path.isfile(path):
            return os.path.normpath(path)
    raise ReproductionError(
        f"reproduce record-replay: {'/'.join(parts)} not found: run it from the repository's root directory"
    )


def _ampsched(args, what) -> None:
    """`python -m ampsched ARGS` at high priority, its stdout (the program's output) dropped; a
    failure is an error naming WHAT and the command's last line on stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "ampsched", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=high_priority,
        timeout=RUN_TIMEOUT_S,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        raise ReproductionError(f"reproduce record-replay: {what} failed (exit {done.returncode}): {last}")


def _generated_text(path: str, megabytes: int) -> None:
    """A file of `megabytes` MB of text of fixed content (the same bytes on every machine): words
    of a seeded generator, lines of twelve, compressible as prose is (pigz and xz have work of a
    real kind, not a run of one byte)."""
    import random

    r = random.Random(31)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(r.choice(letters) for _ in range(r.randint(2, 9))) for _ in range(5000)]
    block = "".join(" ".join(r.choice(words) for _ in range(12)) + "\n" for _ in range(20000)).encode()
    # Blocks shifted by a seeded word each time, so the file does not repeat a block verbatim
    # (a window of the compressor's size would find it whole).
    size = megabytes * 1_000_000
    with open(path, "wb") as f:
        written = 0
        while written < size:
            part = (r.choice(words) + " ").encode() + block
            f.write(part[: size - written])
            written += len(part)


def _commands(workdir: str, quick: bool) -> dict:
    """name -> (kind, the command to run, or the reason it cannot be run here)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    out = {}
    names = [QUICK_PROGRAM] if quick else list(PROGRAMS)
    for name in names:
        kind, args = PROGRAMS[name]
        if name in ("barrier", "prodcons"):
            if cc is None:
                out[name] = (kind, "no C compiler (cc) to build it")
                continue
            exe = os.path.join(workdir, name)
            source = _repository_file("tests", "agent", f"{name}.c")
            subprocess.run([cc, "-O2", "-pthread", "-o", exe, source], check=True)
            out[name] = (kind, [exe] + (QUICK_ARGS if quick else args))
        elif shutil.which(name) is None:
            out[name] = (kind, f"{name} is not installed")
        else:
            data = os.path.join(workdir, f"{name}-input.txt")
            _generated_text(data, PIGZ_MB if name == "pigz" else XZ_MB)
            if name == "pigz":
                out[name] = (kind, ["pigz", "-p", "2", "-c", data])
            else:
                # Blocks of 2 MiB, so that xz's two threads have blocks to share (its default
                # block, three times the dictionary, would make a file this size one block).
                out[name] = (kind, ["xz", "-T2", "-1", "--block-size=2MiB", "-c", data])
    return out


def _live_run(report: dict) -> dict:
    """What one live run gives, from its agent report: wall (s), each thread's CPU time as work
    (s, see the module's doc) in creation order, the agent's migrations."""
    threads = sorted(report["threads"], key=lambda t: t["tid"])
    return {
        "wall": report["target"]["wall_s"],
        "work": [sum(t["time_s"].values()) for t in threads],
        "migrations": report["migrations"],
    }


def _replay(machine: str, workload: str, policy: str) -> dict:
    """The simulator's replay, as `_live_run` gives a live run: wall (s), each thread's work (s)
    in the file's order, migrations."""
    import ampsched

    r = ampsched.run(machine, workload, policy, seed=SEED)
    threads = r.threads.sort_values("id")
    work = threads["fast_s"] + (threads["cpu_s"] - threads["fast_s"]) * SLOW_SPEED
    return {"wall": float(r.raw["makespan_s"]), "work": [float(w) for w in work], "migrations": r.raw["migrations"]}


def _busiest_share(work: list) -> float:
    """The share of the program's CPU time the busiest thread did: how the work was split."""
    return max(work) / sum(work) if sum(work) > 0 else 0.0


def _load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def _measure(name: str, command: list, workdir: str, policies, recordings: int) -> dict:
    """Record `command` `recordings` times, replay each recording under each policy, and run it
    live LIVE_REPEATS times under each (rounds of every policy, rotated): the numbers of one
    program. A recording is one live run, and what the converter infers from its samples varies
    from one to the next: each recording is replayed, and its replays are reported apart."""
    common = ["--emulate", EMULATE, "--interval", str(INTERVAL_MS), "--seed", str(SEED)]
    recorded = []
    live = {p: [] for p in policies}
    report_path = os.path.join(workdir, f"{name}-live.json")

    def record(k):
        workload = os.path.join(workdir, f"{name}-{k}.toml")
        machine = os.path.join(workdir, f"{name}-{k}-machine.toml")
        raw = os.path.join(workdir, f"{name}-{k}-raw.json")
        _ampsched(
            ["record", "--policy", RECORD_POLICY, *common, "--output", workload, "--raw", raw]
            + ["--save-machine", machine, "--force", "--", *command],
            f"recording {name}",
        )
        with open(raw, encoding="utf-8") as f:
            wall = json.load(f)["wall_ns"] / 1e9
        replays = {}
        for p in policies:
            try:
                replays[p] = _replay(machine, workload, p)
            except ValueError as error:  # InputError: the engine refused the recorded file, or it deadlocked
                replays[p] = " ".join(str(error).replace(workload, f"{name}.toml").replace("|", "/").split())
        recorded.append({"wall": wall, "replays": replays, "inferred": _inferred_waits(raw, workload)})

    def live_round(r):
        for i in range(len(policies)):
            p = policies[(i + r) % len(policies)]
            _ampsched(
                ["agent", "--policy", p, *common, "--output", report_path, "--force", "--", *command],
                f"{name} live under {p}",
            )
            with open(report_path, encoding="utf-8") as f:
                report = json.load(f)
            live[p].append(_live_run(report))

    # Recordings and live rounds alternate, so that a change of the shared machine's load over
    # the minutes a program takes falls on both alike (all recordings first made them slower
    # than the live runs after them: xz's by 18% in one run).
    for k in range(max(recordings, LIVE_REPEATS)):
        if k < recordings:
            record(k)
        if k < LIVE_REPEATS:
            live_round(k)
    return {"recordings": recorded, "live": live}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _inferred_waits(raw: str, workload: str) -> str:
    """What the recording's replay waits on that was inferred, not measured: its barriers and
    their meetings (the converter's summary, from the raw recording again) and its sleeps, with
    their time in all (from the workload file), as a phrase; "" when there are none."""
    import tomllib

    import ampsched

    counts = ampsched.record(from_raw=raw).summary.get("inferred", {})
    with open(workload, "rb") as f:
        groups = tomllib.load(f)["app"][0]["group"]
    sleep_s = sum(g.get("repeat", 1) * sum(p.get("seconds", 0.0) for p in g["phase"]) for g in groups)
    parts = []
    if counts.get("barriers"):
        parts.append(
            f"{_count(counts['barriers'], 'barrier')} ({_count(counts.get('barrier_instances', 0), 'meeting')})"
        )
    if counts.get("sleeps"):
        parts.append(f"{_count(counts['sleeps'], 'sleep')} ({sleep_s:.3f} s over the threads)")
    return " and ".join(parts)


def _thread_error(replayed: list, runs: list):
    """(largest relative error of a thread's CPU time, threads compared, total's error) of a
    replay against live runs, threads matched in creation order, each live thread's median over
    the runs; threads below THREAD_SHARE of the live total left out. None when the runs saw a
    different number of threads than the replay has (nothing to match them by)."""
    if {len(run["work"]) for run in runs} != {len(replayed)}:
        return None
    live = [statistics.median(run["work"][i] for run in runs) for i in range(len(replayed))]
    total = sum(live)
    errors = [abs(s / t - 1) for s, t in zip(replayed, live) if t >= THREAD_SHARE * total]
    return max(errors), len(errors), sum(replayed) / total - 1


# A difference the reasons name as a cause: the busiest thread's share of the CPU time, live
# against replayed, by this many points or more (the programs' own run-to-run spread of it is a
# point or two); migrations, live against replayed, by this factor or more.
SHARE_POINTS = 5.0
MIGRATION_FACTOR = 3.0


def _reason(
    name, policy, live_share, replay_share, live_migrations, replay_migrations, static_error, inferred, recording
) -> str:
    """Why a wall-time claim differs, from what was measured (never a number copied by hand):
    the split of the work between the threads (a program that shares its work dynamically
    keeps the recorded split in the replay), the migrations, and the replay's error under the
    recording's own policy (what the loop itself loses)."""
    causes = []
    if recording is not None:
        # (recording wall, the live median under the recording's policy, the replay's wall under it)
        rec_wall, live_static, replay_static = recording
        if abs(rec_wall / live_static - 1) * 100 >= TARGET_PCT / 2:
            causes.append(
                f"the recording run itself took {rec_wall:.3f} s, {pct(100 * (rec_wall / live_static - 1))} off the "
                f"live runs under {RECORD_POLICY} (its replay under {RECORD_POLICY} is "
                f"{pct(100 * (replay_static / rec_wall - 1))} off it): the run recorded was not a typical one"
            )
    if abs(live_share - replay_share) * 100 >= SHARE_POINTS:
        causes.append(
            f"the work is split differently: live under {policy} the busiest thread did {live_share:.0%} of the "
            f"CPU time, the replay keeps the recorded {replay_share:.0%} (a program that hands its work to whichever "
            "thread is free splits it by the cores' speeds; a recording fixes each thread's share)"
        )
    low, high = sorted((live_migrations, replay_migrations))
    if high >= MIGRATION_FACTOR * max(low, 1):
        causes.append(f"migrations: {live_migrations:g} a live run (median), {replay_migrations:g} in the replay")
    if static_error is not None and policy != RECORD_POLICY:
        causes.append(f"the replay under {RECORD_POLICY} itself is {pct(static_error)} off its live runs")
    if inferred:
        causes.append(f"the replay waits at what the converter inferred from the samples: {inferred}")
    if not causes:
        return "no difference in the work's split or the migrations measured, and no inferred wait: not explained"
    return "; ".join(causes)


def _claims(name, kind, m, policies) -> tuple:
    """The program's claims (wall time under each policy; per-thread CPU time under static) and
    its rows of the validation table. A claim is judged on the median recording: the recordings
    ordered by the size of their replay's error, a replay that failed counting as the worst."""
    claims, rows = [], []
    static_error, static_run = None, None
    recorded_wall = statistics.median(r["wall"] for r in m["recordings"])
    for p in policies:
        runs = m["live"][p]
        walls = [run["wall"] for run in runs]
        live = statistics.median(walls)
        spread = f"{min(walls):.2f}-{max(walls):.2f} s"
        live_share = statistics.median(_busiest_share(run["work"]) for run in runs)
        live_migrations = statistics.median(run["migrations"] for run in runs)
        row = [name, kind, p, f"{recorded_wall:.3f}", f"{live:.3f}", spread]
        outcomes = [(r, r["replays"][p]) for r in m["recordings"]]
        errors = [None if isinstance(rep, str) else 100 * (rep["wall"] / live - 1) for _, rep in outcomes]
        each = ", ".join("failed" if e is None else pct(e) for e in errors)
        ranked = sorted(range(len(outcomes)), key=lambda k: math.inf if errors[k] is None else abs(errors[k]))
        median = ranked[(len(ranked) - 1) // 2]
        recording, replay = outcomes[median]
        failures = [rep for _, rep in outcomes if isinstance(rep, str)]
        if isinstance(replay, str):
            claims += _failed_replay(name, kind, p, replay, live, spread, len(failures), len(outcomes))
            rows.append(row + ["failed", "-", each, f"{live_share:.0%} / -", f"{live_migrations:g} / -", "-"])
            continue
        error = errors[median]
        if p == RECORD_POLICY:
            static_error = error
        replay_share = _busiest_share(replay["work"])
        if p == RECORD_POLICY:
            static_run = (recording["wall"], live, replay["wall"])
        reason = _reason(
            name,
            p,
            live_share,
            replay_share,
            live_migrations,
            replay["migrations"],
            static_error,
            recording["inferred"],
            static_run,
        )
        if failures:
            reason += f"; {len(failures)} of the {len(outcomes)} recordings did not replay: {_cut(failures[0])}"
        claims.append(
            judge_number(
                f"{name}-{p}-wall",
                "Validation",
                f"{name} ({kind}) recorded under {RECORD_POLICY}, replayed under {p}: the wall time of a live run "
                f"under {p}",
                f"within {TARGET_PCT:g}%",
                f"{pct(error)}, the median recording's (each: {each}; replay {replay['wall']:.3f} s, live median "
                f"{live:.3f} s of {len(walls)}, {spread})",
                value=TARGET_PCT,
                ours_value=abs(error),
                unit="%",
                kind="calibrated" if p == RECORD_POLICY else "independent",
                bound="at most",
                reason=reason,
            )
        )
        threads = "-"
        if p == RECORD_POLICY:
            found = _thread_error(replay["work"], runs)
            claim = f"{name}: each thread's CPU time (as work), replayed under {p}, against live runs"
            if found is None:
                counts = sorted({len(run["work"]) for run in runs})
                claims.append(
                    Claim(
                        f"{name}-{p}-thread-cpu",
                        "Validation",
                        claim,
                        f"within {TARGET_PCT:g}%",
                        f"replay {len(replay['work'])} threads, live runs {counts}",
                        "-",
                        "not comparable",
                        "the live runs do not create as many threads as the recorded one: nothing to match them by",
                        "calibrated",
                    )
                )
            else:
                worst, compared, total = found
                threads = f"{pct(100 * worst)} worst of {compared}, total {pct(100 * total)}"
                claims.append(
                    judge_number(
                        f"{name}-{p}-thread-cpu",
                        "Validation",
                        claim,
                        f"within {TARGET_PCT:g}%",
                        f"largest error {pct(100 * worst)} over the {compared} threads of {THREAD_SHARE:.0%} of the "
                        f"CPU time or more (the median recording); total {pct(100 * total)}",
                        value=TARGET_PCT,
                        ours_value=100 * worst,
                        unit="%",
                        kind="calibrated",
                        bound="at most",
                        reason="a thread's CPU time is its recorded work: the live runs' own spread, or work the "
                        "recording missed (below the converter's 1 ms or between samples)",
                    )
                )
        rows.append(
            row
            + [
                f"{replay['wall']:.3f}",
                pct(error),
                each,
                f"{live_share:.0%} / {replay_share:.0%}",
                f"{live_migrations:g} / {replay['migrations']}",
                threads,
            ]
        )
    return claims, rows


# How much of the engine's error a claim's reason quotes (a deadlock's message names every
# waiting thread).
ERROR_CHARS = 400


def _cut(error: str) -> str:
    return error if len(error) <= ERROR_CHARS else error[:ERROR_CHARS] + "..."


def _failed_replay(name, kind, policy, error, live, spread, failed, recordings) -> list:
    """The claims of a program whose median recording the simulator refused or could not finish
    (`failed` of its `recordings` did not replay): they differ, the engine's error their reason
    (the recorded file is what the feature made)."""
    why = f"{failed} of the {recordings} recordings did not replay: {_cut(error)}"
    ids = [f"{name}-{policy}-wall"] + ([f"{name}-{policy}-thread-cpu"] if policy == RECORD_POLICY else [])
    return [
        Claim(
            cid,
            "Validation",
            f"{name} ({kind}) recorded under {RECORD_POLICY}, replayed under {policy}: against live runs",
            f"within {TARGET_PCT:g}%",
            f"no replay (live median {live:.3f} s, {spread})",
            "-",
            "differs",
            why,
            "calibrated" if policy == RECORD_POLICY else "independent",
        )
        for cid in ids
    ]


def _not_comparable(name, kind, why, policies) -> list:
    return [
        Claim(
            f"{name}-{p}-wall",
            "Validation",
            f"{name} ({kind}) recorded under {RECORD_POLICY}, replayed under {p}: the wall time of a live run",
            f"within {TARGET_PCT:g}%",
            "not run",
            "-",
            "not comparable",
            f"not run on this machine: {why}",
            "calibrated" if p == RECORD_POLICY else "independent",
        )
        for p in policies
    ]


def build(ctx) -> Report:
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        raise ReproductionError(
            "reproduce record-replay: needs root (the emulated slow CPU's cycle stealing and the agent's placements)"
        )
    policies = (RECORD_POLICY,) if ctx.quick else POLICIES
    load_before = _load()
    workdir = tempfile.mkdtemp(prefix="programs-", dir=ctx.workdir)
    commands = _commands(workdir, ctx.quick)
    recordings = 1 if ctx.quick else RECORDINGS
    claims, rows, shown, inferred = [], [], [], []
    for name, (kind, command) in commands.items():
        if isinstance(command, str):
            claims += _not_comparable(name, kind, command, policies)
            continue
        m = _measure(name, command, workdir, policies, recordings)
        c, r = _claims(name, kind, m, policies)
        claims += c
        rows += r
        shown.append((name, command))
        inferred.append(f"- `{name}`: " + "; ".join(r["inferred"] or "none" for r in m["recordings"]) + ".")
    load_after = _load()
    table = markdown_table(
        [
            "program",
            "kind",
            "policy",
            "recorded wall s",
            "live wall s (median)",
            "live spread",
            "replayed wall s",
            "error",
        ]
        + ["each recording's error", "busiest thread live / replay", "migrations live / replay", "thread CPU"],
        rows,
        "lllrrrrrrrrl",
    )
    return Report(
        claims=claims,
        machines=[],
        workloads=_workloads_text(list(commands)),
        sections=[
            (
                "Validation table",
                "<!-- --8<-- [start:table] -->\n"
                + table
                + f"\n\nEach program is recorded {recordings} time{'s' if recordings > 1 else ''} (under "
                f"{RECORD_POLICY}); recorded: the recording runs' wall time (median). Error: the replayed wall time "
                "over the live runs' median, minus 1, of the median recording (the recordings ordered by the size "
                "of their error, a replay that failed the worst); each recording's: all of them. Busiest thread: its share "
                f"of the program's CPU time (live, the median of the runs), how the work was split between the "
                f"threads. Migrations: the agent's (median) and the simulator's. Thread CPU (under "
                f"{RECORD_POLICY}): the largest error of a thread's CPU time as work, over the threads of "
                f"{THREAD_SHARE:.0%} of the CPU time or more, and the error of the total. The issue's target is "
                f"{TARGET_PCT:g}%.\n\nWhat each recording's replay waits at that the converter inferred from "
                "the samples (barriers the library does not log, pthread barriers being measured; sleeps: "
                "off-CPU stretches no event explains):\n\n" + "\n".join(inferred) + "\n<!-- --8<-- [end:table] -->",
            ),
            (
                "The machine",
                f"{os.cpu_count()} CPUs, CPU 1 slowed to {SLOW_SPEED:g} of its speed by the agent's cycle stealing "
                f"(`--emulate {EMULATE}`); load average (1, 5, 15 min) {load_before} before the runs and "
                f"{load_after} after. {LIVE_REPEATS} live run{'s' if LIVE_REPEATS > 1 else ''} per program and "
                f"policy, at nice -20 in a session of their own, the policies alternated round by round.",
            ),
            ("Commands", _commands_text(shown, workdir)),
        ],
    )


def _shown_command(command: list, workdir: str) -> str:
    return " ".join("./" + os.path.relpath(a, workdir) if a.startswith(workdir) else a for a in command)


# What each program is, for the document.
DESCRIPTIONS = {
    "pigz": f"compresses a generated text file of fixed content ({PIGZ_MB} MB, words of a seeded generator) with "
    "two threads, to /dev/null",
    "xz": f"compresses a {XZ_MB} MB file of the same kind with two threads (`-T2 -1`, blocks of 2 MiB)",
    "barrier": "`tests/agent/barrier.c`: workers computing, then a pthread barrier, then a critical section on one "
    "shared mutex, each round",
    "prodcons": "`tests/agent/prodcons.c`: producers and consumers over a bounded queue (one mutex, two condition "
    "variables)",
}


def _workloads_text(names) -> str:
    lines = ["The programs (their workload files are recorded by each build, not committed):", ""]
    return "\n".join(lines + [f"- `{name}`: {DESCRIPTIONS[name]}." for name in names])


def _commands_text(shown, workdir) -> str:
    common = f"--emulate {EMULATE} --interval {INTERVAL_MS} --seed {SEED}"
    lines = ["Per program (`CMD` below), what this reproduction runs:", "", "```sh"]
    lines += [
        f"ampsched record --policy {RECORD_POLICY} {common} --output W.toml --raw W.json --save-machine M.toml -- CMD",
        "ampsched run --workload W.toml --machine M.toml --policy P          # P: static, busyfcs, rr",
        f"ampsched agent --policy P {common} -- CMD                           # {LIVE_REPEATS} times each",
        "```",
        "",
        "The commands:",
        "",
        "```sh",
    ]
    lines += [f"{name}: {_shown_command(command, workdir)}" for name, command in shown]
    lines += ["```"]
    return "\n".join(lines)
