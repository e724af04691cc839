"""The live agent's own CPU cost with many target threads (issue: <1% of a core at 1 000 sleeping
threads, 40 ms interval; keeps its interval at 10 000).

For N in 100, 1 000, 10 000: start tests/agent/sleepers.c with N threads sleeping on a condition
variable, attach `ampsched agent --policy P --interval 40 --pid PID` once it has started them, stop
the agent with SIGINT after T seconds, and read its JSON report. The agent's CPU time is its loop
thread's own (CLOCK_THREAD_CPUTIME_ID), so Python's start-up is not counted. Two runs, T = 4 s and
T = 14 s, separate the one-time cost (finding N threads) from the steady cost per second:
steady share = (cpu(14) - cpu(4)) / 10 s.

usage: python bench/agent_overhead.py [--policy oblivious] [--threads 100,1000,10000]
Needs root only for policies that move threads of other users; runs as any user otherwise.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from sleepers import build_sleepers


def attach(exe, n, seconds, policy, interval, tmp):
    target = subprocess.Popen([exe, str(n), str(seconds + 60)], stdout=subprocess.PIPE, text=True)
    try:
        started = int(target.stdout.readline().split()[1])
        out = os.path.join(tmp, "report.json")
        agent = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ampsched",
                "agent",
                "--policy",
                policy,
                "--interval",
                str(interval),
                "--output",
                out,
                "--pid",
                str(target.pid),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(seconds)
        agent.send_signal(signal.SIGINT)
        _, err = agent.communicate(timeout=120)
        if agent.returncode != 128 + signal.SIGINT:
            raise SystemExit(f"agent failed ({agent.returncode}): {err}")
        with open(out) as f:
            return started, json.load(f)
    finally:
        target.kill()
        target.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="oblivious")
    ap.add_argument("--interval", type=float, default=40.0)
    ap.add_argument("--threads", default="100,1000,10000")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_sleepers(tmp)
        print(f"policy {args.policy}, interval {args.interval} ms")
        print(
            f"{'threads':>8} {'seen':>6} {'first sample ms':>16} {'mean sample ms':>15} {'late':>5} "
            f"{'share 4 s':>10} {'steady share':>13}"
        )
        for n in (int(x) for x in args.threads.split(",")):
            short_n, short = attach(exe, n, 4, args.policy, args.interval, tmp)
            _, long = attach(exe, n, 14, args.policy, args.interval, tmp)
            a, b = short["agent"], long["agent"]
            steady = (b["cpu_s"] - a["cpu_s"]) / (b["samples"] - a["samples"]) * (1000 / args.interval)
            print(
                f"{n:>8} {len(long['threads']):>6} {b['max_sample_ms']:>16.1f} {b['mean_sample_ms']:>15.3f} "
                f"{b['late_samples']:>5} {100 * a['cpu_share']:>9.3f}% {100 * steady:>12.3f}%"
            )


if __name__ == "__main__":
    main()
