"""What recording costs a program that synchronises often: tests/agent/prodcons.c (a bounded queue
behind one mutex and two condition variables) run under `ampsched agent` (the preload library
without the event log) and under `ampsched record` (with it), alternately, ROUNDS times. The
program's own CPU time (its threads' CLOCK_THREAD_CPUTIME_ID, which it prints) is compared, not
its wall time: the machine may be shared. The extra CPU time over the recording's events is the
cost of one event as the program pays it.

usage: .venv/bin/python bench/record_overhead.py [ROUNDS]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from ampsched import _core

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "tests", "agent", "prodcons.c")
# 2 producers, 2 consumers, 20 000 items each, a queue of 4, 2 000 loop iterations per item on each
# side: about 0.3 s of CPU and 100 000 events or more (the queue is small, so both sides wait often).
PRODCONS_ARGS = ["2", "2", "20000", "4", "2000", "2000"]
INTERVAL_MS = 40.0


def program_cpu_ns(path):
    with open(path) as f:
        d = json.load(f)
    return d["main"]["cpu_ns"] + sum(t["cpu_ns"] for t in d["threads"])


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("record_overhead: needs a C compiler")
    with tempfile.TemporaryDirectory() as tmp:
        exe, out = os.path.join(tmp, "prodcons"), os.path.join(tmp, "prodcons.json")
        subprocess.run([cc, "-O2", "-pthread", "-o", exe, SOURCE], check=True)
        command = [exe, *PRODCONS_ARGS, out]
        for _ in range(rounds):
            _core.agent("oblivious", command, [], INTERVAL_MS, status=False)
            plain = program_cpu_ns(out)
            raw, _report = _core.record(command, [], interval_ms=INTERVAL_MS, status=False)
            recorded = program_cpu_ns(out)
            r = json.loads(raw)
            events = len(r["events"])
            print(
                f"agent: CPU {plain / 1e6:.1f} ms | record: CPU {recorded / 1e6:.1f} ms, {events} events, "
                f"{r['events_lost']} lost: {(recorded - plain) / max(events, 1):.0f} ns of CPU per event"
            )


if __name__ == "__main__":
    main()
