"""Cost per policy call of a Python policy against the Rust one it ports.

The Python port of busyfcs (python/ampsched/examples/busyfcs.py) and the Rust busyfcs make
the same decisions (tests/python/test_python_policy.py checks their results are
byte-identical), so the difference in wall time is the cost of calling Python. For each
scenario, one `compare` runs both alternately (solo references are computed once, in a
warm-up run, and excluded); a run's wall time is the time between the progress callbacks
around it, divided by its policy_calls. Best of N (the machine is shared: the best run is
the least disturbed).

Scenarios: 4fc-12sc x w1 (16 single-threaded apps), and 4fc-12sc x a fork-join app of
THREADS threads written here (every serial phase blocks and wakes all of them: many calls,
each with many changed threads).

usage: python bench/python_policy.py [--repeat 3] [--threads 256]
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


def per_call_us(machine, workload, repeat):
    """(Rust µs per call, Python µs per call, policy calls) for busyfcs on one scenario."""
    core = ampsched._require_core()
    label, obj = ampsched.policy.resolve(BusyFcs())
    labels = ["busyfcs"] + ["busyfcs", label] * repeat
    objects = [None] + [None, obj] * repeat
    stamps = []
    text = core.compare(machine, workload, labels, progress=lambda done, total, lab: stamps.append(time.perf_counter()),
                        policy_objects=objects)
    results = json.loads(text)
    walls = [b - a for a, b in zip(stamps, stamps[1:])]
    rust = [w / r["policy_calls"] for w, r in zip(walls, results) if r["policy"] == "busyfcs"][1:]  # [0]: warm-up
    python = [w / r["policy_calls"] for w, r in zip(walls, results) if r["policy"] == label]
    calls = results[1]["policy_calls"]
    assert all(r["policy_calls"] == calls for r in results), "the port must make the same calls"
    return min(rust) * 1e6, min(python) * 1e6, calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=256)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        many = os.path.join(tmp, f"forkjoin-{args.threads}.toml")
        with open(many, "w") as f:
            f.write(FORKJOIN.format(n=args.threads))
        rows = [("4fc-12sc", "w1", "w1"), ("4fc-12sc", many, f"forkjoin-{args.threads}")]
        print(f"{'machine':10} {'workload':15} {'calls':>7} {'Rust us/call':>13} {'Python us/call':>15} {'ratio':>6}")
        for machine, workload, name in rows:
            rust, python, calls = per_call_us(machine, workload, args.repeat)
            print(f"{machine:10} {name:15} {calls:7d} {rust:13.2f} {python:15.2f} {python / rust:6.1f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
