"""The design-space study's cost (issue 27 §7: Kim & Huh's 376,740 mixes in under 5 minutes on a
2-core machine), and its rows from a local Ray instance against the local backend's, byte for byte.

1. Per-mix cost: the study's mixes run in this process through the engine's batch path
   (`_core.run_mix_rows`: one call, machine and catalog read once, solo runs made once per
   program), CPU time per mix after a warm-up call; no pool, no Parquet.
2. For each backend asked for: `ampsched sweep` of the mixes (run_sweep with an output file: the
   grid's check, start-up, batching, part files and the final Parquet file included), its wall time
   and, for the local backend, its CPU time (this process and its workers). Ray's workers are not
   this process's children, so only its wall time is measured.
3. The Parquet files of the backends compared byte for byte.

usage: python bench/fairness_study.py [--stride 1] [--jobs 2] [--backends local,ray] [--sample 3000]
(--stride K: every K-th mix, as the reproduction's quick version does with 53.)
"""

import argparse
import os
import resource
import tempfile
import time

import ampsched
from ampsched._sweep import run_sweep
from ampsched.reproductions import fairness_study as study

SETTINGS = dict(slice_ms=ampsched.defaults()["slice_ms"], max_sim_s=1e6, max_events=int(2e8), counter_noise=0.0)


def cpu_seconds():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def per_mix_cost(names, sample):
    """CPU seconds per mix of one batch call of `sample` mixes (after a warm-up call of the same
    mixes' first 50, so that both make their solo runs once)."""
    core = ampsched._core
    d = ampsched.defaults()
    call = lambda mixes: core.run_mix_rows(  # noqa: E731
        study.MACHINE,
        mixes,
        study.POLICY,
        study.SEED,
        d["slice_ms"],
        d["max_sim_s"],
        int(d["max_events"]),
        d["counter_noise"],
    )
    picked = names[:: max(1, len(names) // sample)][:sample]
    call(picked[:50])
    start = time.process_time()
    call(picked)
    return (time.process_time() - start) / len(picked), len(picked)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stride", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--backends", default="local,ray")
    parser.add_argument("--sample", type=int, default=3000)
    args = parser.parse_args()
    names = [study.mix_name(m) for m in study.all_mixes()[:: args.stride]]
    print(
        f"{len(names):,} mixes on {study.MACHINE} under {study.POLICY}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
    )
    cost, count = per_mix_cost(names, args.sample)
    print(f"per mix (engine, batch path, in process): {cost * 1e3:.3f} ms CPU (over {count:,} mixes)")
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for backend in args.backends.split(","):
            path = os.path.join(tmp, f"{backend}.parquet")
            cpu, start = cpu_seconds(), time.perf_counter()
            run_sweep(
                [study.MACHINE], names, [study.POLICY], seeds=[study.SEED], jobs=args.jobs, output=path,
                backend=backend, progress=False, max_runs=None,
            )  # fmt: skip
            wall = time.perf_counter() - start
            used = f", CPU {cpu_seconds() - cpu:.1f} s" if backend == "local" else " (Ray workers' CPU not counted)"
            print(
                f"sweep, backend {backend}, {args.jobs} jobs: wall {wall:.1f} s{used}; load now {os.getloadavg()[0]:.1f}"
            )
            with open(path, "rb") as f:
                files[backend] = f.read()
        if len(files) > 1:
            first = next(iter(files.values()))
            same = all(data == first for data in files.values())
            print(
                f"Parquet files of {', '.join(files)}: {'byte-identical' if same else 'DIFFER'} ({len(first):,} bytes)"
            )
    full = len(study.all_mixes())
    for nodes in (1, 4, 16, 64):
        print(
            f"estimate, {nodes} node(s) of 2 CPUs: {full * cost / (2 * nodes):.1f} s of simulation for all {full:,} mixes"
        )


if __name__ == "__main__":
    main()
