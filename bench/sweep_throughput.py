"""Sweep throughput against single-run throughput (issue 11: a sweep of 10,000 small runs
should reach at least 90% of CPUs x single-run throughput).

The runs: 6 single-threaded apps (short compute phases of different CPI and miss rates) on
wash-2b4s (2 fast + 4 slow cores), under oblivious, static, rr, busyfcs and bound, with
seeds 1..N/5. Single-run throughput: the same runs one after another in this process (no
pool, no Parquet). Sweep throughput: `ampsched.sweep(..., jobs=CPUs, output=FILE)`, start-up,
batching and the Parquet file included. Wall time on a shared machine varies run to run:
report the best of --repeat.

usage: python bench/sweep_throughput.py [--runs 10000] [--jobs N] [--repeat 2]
"""

import argparse
import os
import tempfile
import time

import ampsched

POLICIES = ["oblivious", "static", "rr", "busyfcs", "bound"]
APPS = [(2e8, 0.8, 0.5), (2e8, 1.0, 2.0), (3e8, 1.2, 8.0), (1.5e8, 0.9, 1.0), (2.5e8, 1.5, 12.0), (2e8, 1.1, 4.0)]


def workload_text():
    parts = ['name = "six-small"\ndescription = "6 single-threaded apps, short: sweep throughput"\n']
    for i, (instructions, cpi, mpki) in enumerate(APPS):
        parts.append(f'[[app]]\nname = "a{i}"\n[[app.phase]]\nkind = "compute"\ninstructions = {instructions:g}\n'
                     f'cpi = {cpi}\nllc_mpki = {mpki}\n')
    return "".join(parts)


def single_rate(workload, seeds):
    """Runs per second, one after another in this process."""
    runs = [(p, s) for s in seeds for p in POLICIES]
    start = time.perf_counter()
    for policy, seed in runs:
        ampsched._core.run("wash-2b4s", workload, policy, seed=seed, slice_ms=4.0, trace=None, timeline=False)
    return len(runs) / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    seeds = args.runs // len(POLICIES)
    with tempfile.TemporaryDirectory() as tmp:
        workload = os.path.join(tmp, "six-small.toml")
        with open(workload, "w") as f:
            f.write(workload_text())
        single = max(single_rate(workload, range(1, 101)) for _ in range(args.repeat))
        best = 0.0
        for i in range(args.repeat):
            out = os.path.join(tmp, f"s{i}.parquet")
            start = time.perf_counter()
            df = ampsched.sweep("wash-2b4s", workload, POLICIES, seeds=f"1-{seeds}", jobs=args.jobs, output=out)
            best = max(best, len(df) / (time.perf_counter() - start))
            assert df["error"].isna().all(), df[df["error"].notna()].head()
    print(f"single run: {single:.0f} runs/s; sweep of {seeds * len(POLICIES)} runs on {args.jobs} jobs: "
          f"{best:.0f} runs/s = {100 * best / (args.jobs * single):.0f}% of {args.jobs} x single")


if __name__ == "__main__":
    main()
