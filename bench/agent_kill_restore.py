"""How soon the agent's guardian puts target threads back after the agent is killed (issue 10 §4).

For N in 4, 1 000, 5 000: start tests/agent/sleepers.c with N threads, attach
`ampsched agent --policy static --interval 40 --pid PID` (static pins each thread to one CPU),
wait until every thread is pinned, SIGKILL the agent, and time from its reaping until every
thread has its original affinity again (polled every millisecond, so the figure is a bound
within about a millisecond). Needs at least 2 CPUs.

usage: python bench/agent_kill_restore.py [--threads 4,1000,5000]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

from sleepers import build_sleepers

POLL_S = 0.001


def affinities(pid):
    out = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            out.append(os.sched_getaffinity(int(tid)))
        except OSError:
            pass  # exited meanwhile
    return out


def measure(exe, n):
    target = subprocess.Popen([exe, str(n), "600"], stdout=subprocess.PIPE, text=True)
    try:
        target.stdout.readline()  # "started N"
        original = os.sched_getaffinity(target.pid)
        agent = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ampsched",
                "agent",
                "--policy",
                "static",
                "--interval",
                "40",
                "--pid",
                str(target.pid),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while not all(len(a) == 1 for a in affinities(target.pid)):
            time.sleep(0.01)
        agent.kill()
        agent.wait()
        reaped = time.monotonic()
        while not all(a == original for a in affinities(target.pid)):
            time.sleep(POLL_S)
        return time.monotonic() - reaped
    finally:
        target.kill()
        target.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="4,1000,5000")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_sleepers(tmp)
        for n in (int(x) for x in args.threads.split(",")):
            print(
                f"{n:6d} threads: original affinities back {1000 * measure(exe, n):.1f} ms after the agent was reaped"
            )


if __name__ == "__main__":
    main()
