"""Sweep throughput against single-run throughput (issue 11: a sweep of 10,000 small runs
should reach at least 90% of CPUs x single-run throughput).

The runs: 6 single-threaded apps (short compute phases of different CPI and miss rates) on
wash-2b4s (2 fast + 4 slow cores), under oblivious, static, rr, busyfcs and bound, with
seeds 1..N/5. Single-run throughput: the same runs one after another in this process (no
pool, no Parquet). Sweep throughput: what `ampsched sweep` does (run_sweep, jobs=CPUs,
output=FILE: start-up, batching, part files and the final Parquet file included), and
`ampsched.sweep()`, which also builds the DataFrame. Wall time on a shared machine varies run
to run: each sweep is compared with single-run rates measured just before and after it, and
the median over --repeat sweeps is reported. Because other processes may take CPUs from it, the
benchmark also reports the CPU efficiency, which load does not change: the CPU time the runs
take one after another over the CPU time of the whole sweep (this process and its workers).

usage: python bench/sweep_throughput.py [--runs 10000] [--jobs N] [--repeat 3]
"""

import argparse
import os
import resource
import tempfile
import time

import ampsched
from ampsched._sweep import run_sweep

POLICIES = ["oblivious", "static", "rr", "busyfcs", "bound"]
APPS = [(2e8, 0.8, 0.5), (2e8, 1.0, 2.0), (3e8, 1.2, 8.0), (1.5e8, 0.9, 1.0), (2.5e8, 1.5, 12.0), (2e8, 1.1, 4.0)]


def workload_text():
    parts = ['name = "six-small"\ndescription = "6 single-threaded apps, short: sweep throughput"\n']
    for i, (instructions, cpi, mpki) in enumerate(APPS):
        parts.append(
            f'[[app]]\nname = "a{i}"\n[[app.phase]]\nkind = "compute"\ninstructions = {instructions:g}\n'
            f"cpi = {cpi}\nllc_mpki = {mpki}\n"
        )
    return "".join(parts)


def single_rate(workload, seeds):
    """Runs per second of wall time and of CPU time, one after another in this process."""
    runs = [(p, s) for s in seeds for p in POLICIES]
    start, cpu = time.perf_counter(), time.process_time()
    for policy, seed in runs:
        ampsched._core.run("wash-2b4s", workload, policy, seed=seed, slice_ms=4.0, trace=None, timeline=False)
    return len(runs) / (time.perf_counter() - start), len(runs) / (time.process_time() - cpu)


def cpu_seconds():
    """CPU time of this process and of its finished children (the sweep's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(sweep_call, runs, repeat, single):
    """Per repeat: the single-run rate just before and just after a sweep (the machine's speed
    drifts by several percent from minute to minute on a shared host, so the sweep is compared
    with its neighbours), and the sweep's wall and CPU rates. Returns a list of (sweep wall
    rate, mean neighbouring single wall rate, sweep CPU rate, mean single CPU rate)."""
    out = []
    before = single()
    for i in range(repeat):
        start, cpu = time.perf_counter(), cpu_seconds()
        errors = sweep_call(i)
        wall, cpu = runs / (time.perf_counter() - start), runs / (cpu_seconds() - cpu)
        assert errors == 0, f"{errors} runs failed"
        after = single()
        out.append((wall, (before[0] + after[0]) / 2, cpu, (before[1] + after[1]) / 2))
        before = after
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    seeds = args.runs // len(POLICIES)
    runs = seeds * len(POLICIES)
    with tempfile.TemporaryDirectory() as tmp:
        workload = os.path.join(tmp, "six-small.toml")
        with open(workload, "w") as f:
            f.write(workload_text())
        grid = ("wash-2b4s", workload, POLICIES)

        def single():
            return single_rate(workload, range(1, 201))

        def cli(i):
            table, stats = run_sweep(
                *grid, seeds=f"1-{seeds}", jobs=args.jobs, output=os.path.join(tmp, f"c{i}.parquet")
            )
            return stats["failed"]

        def api(i):
            df = ampsched.sweep(*grid, seeds=f"1-{seeds}", jobs=args.jobs, output=os.path.join(tmp, f"a{i}.parquet"))
            return int(df["error"].notna().sum())

        cli(-1)  # the first sweep of a process also imports pyarrow and tqdm: not what is measured
        for name, call in (("ampsched sweep", cli), ("ampsched.sweep() with its DataFrame", api)):
            rows = measure(call, runs, args.repeat, single)
            ratios = sorted(wall / (args.jobs * one) for wall, one, _, _ in rows)
            efficiency = sorted(cpu / one_cpu for _, _, cpu, one_cpu in rows)
            median = ratios[len(ratios) // 2]
            print(
                f"{name}, {runs} runs on {args.jobs} jobs: {median * args.jobs * rows[0][1]:.0f} runs/s; "
                f"median {100 * median:.0f}% (best {100 * ratios[-1]:.0f}%) of {args.jobs} x the single-run rate "
                f"measured around it ({', '.join(f'{100 * r:.0f}%' for r in ratios)}); "
                f"CPU efficiency median {100 * efficiency[len(efficiency) // 2]:.0f}%"
            )


if __name__ == "__main__":
    main()
