"""Cost per policy call of a Python policy against the Rust one it ports.

The Python port of busyfcs (python/ampsched/examples/busyfcs.py) and the Rust busyfcs make
the same decisions (tests/python/test_python_policy.py checks their results are
byte-identical), so the difference in wall time is the cost of calling Python. For each
scenario, one `compare` runs both alternately (solo references are computed once, in a
warm-up run, and excluded); a run's wall time is the time between the progress callbacks
around it, divided by its policy_calls; it includes the simulation between calls. "Python
extra" is the difference: what calling Python costs per call. Best of N (the machine is
shared: the best run is the least disturbed). Each is measured twice: by wall time, as asked,
and by the CPU time of the thread that runs the simulation and the policy (`time.thread_time`),
which other processes on a shared machine do not inflate.

Scenarios: 4fc-12sc x w1 (16 single-threaded apps), and 4fc-12sc x a fork-join app of
each of THREADS threads, written here (every serial phase blocks and wakes all of them: many calls,
each with many changed threads).

usage: python bench/python_policy.py [--repeat 10] [--threads 256,1024]
"""

import argparse
import json
import os
import sys
import tempfile
import time

import ampsched
from ampsched.examples.busyfcs import BusyFcs

FORKJOIN = """name = "forkjoin-{n}"
description = "one fork-join app of {n} threads (5 x parallel + serial phase, blocking waits)"
source = "synthetic (bench/python_policy.py)"
constant_load = false

[[app]]
name = "forkjoin"
threads = {n}
repeat = 5

[[app.phase]]
kind = "compute"
instructions = 2.0e8
cpi = 0.8
llc_mpki = 0.3

[[app.phase]]
kind = "serial"
instructions = 1.0e8
cpi = 0.8
llc_mpki = 0.3
wait = "block"
scope = "group"
"""


def per_call_us(machine, workload, repeat, clock):
    """(Rust µs per call, Python µs per call, policy calls) for busyfcs on one scenario."""
    core = ampsched._require_core()
    label, obj = ampsched.policy.resolve(BusyFcs())
    labels = ["busyfcs"] + ["busyfcs", label] * repeat
    objects = [None] + [None, obj] * repeat
    stamps = []
    text = core.compare(
        machine, workload, labels, progress=lambda done, total, lab: stamps.append(clock()), policy_objects=objects
    )
    results = json.loads(text)
    times = [b - a for a, b in zip(stamps, stamps[1:])]
    rust = [t / r["policy_calls"] for t, r in zip(times, results) if r["policy"] == "busyfcs"][1:]  # [0]: warm-up
    python = [t / r["policy_calls"] for t, r in zip(times, results) if r["policy"] == label]
    calls = results[1]["policy_calls"]
    assert all(r["policy_calls"] == calls for r in results), "the port must make the same calls"
    return min(rust) * 1e6, min(python) * 1e6, calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--threads", default="256,1024", help="thread counts of the fork-join app (comma-separated)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [("4fc-12sc", "w1", "w1")]
        for n in (int(t) for t in args.threads.split(",")):
            path = os.path.join(tmp, f"forkjoin-{n}.toml")
            with open(path, "w") as f:
                f.write(FORKJOIN.format(n=n))
            rows.append(("4fc-12sc", path, f"forkjoin-{n}"))
        print(
            f"{'machine':10} {'workload':15} {'calls':>7}  {'clock':5} {'Rust us/call':>13} {'Python us/call':>15} "
            f"{'Python extra':>13}"
        )
        for machine, workload, name in rows:
            for clock_name, clock in (("wall", time.perf_counter), ("CPU", time.thread_time)):
                rust, python, calls = per_call_us(machine, workload, args.repeat, clock)
                print(
                    f"{machine:10} {name:15} {calls:7d}  {clock_name:5} {rust:13.1f} {python:15.1f} {python - rust:13.1f}"
                )
                sys.stdout.flush()


if __name__ == "__main__":
    main()
