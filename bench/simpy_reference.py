"""The reference scenario of `make bench` written in SimPy, the discrete-event library most of
our users know: how much a general-purpose DES costs per event where ampsched's engine is
specialised.

Matched to the Rust benchmark (crates/runner/src/bin/bench.rs): 16 cores, 4 fast at 2 GHz and
12 slow at 1 GHz; 16 apps x 4 threads, each retiring 1.8e11 instructions at CPI 1 (no LLC
misses, so MPKI 0 and time per instruction = CPI / frequency); a 4 ms time slice, round robin
among the threads of a core; threads spread over cores as they start (4 per core), as the
oblivious scheduler's first placement does. Each thread is a SimPy process that asks its core
(a `simpy.Resource` of capacity 1) for a slice, holds it for the slice or its remaining work,
and releases it; a slice is one event, as a slice switch is one core event in ampsched.

The model does less than ampsched does per event (no accounting per core type, no policy, no
load balancing, no migrations), so the comparison favours SimPy.

    .venv/bin/pip install simpy            # once; not a dependency of ampsched
    .venv/bin/python bench/simpy_reference.py [--fraction F]

`--fraction F` simulates that fraction of each thread's work (default 1: the whole ~584 s);
the rate per slice barely depends on it, so `--fraction 0.05` is a quick estimate. It prints
slices, simulated seconds, CPU seconds (this process), slices per second and ns per slice.
"""

import argparse
import time

import simpy

FAST, SLOW = 4, 12
FREQ_GHZ = [2.0] * FAST + [1.0] * SLOW
THREADS = 64
INSTRUCTIONS = 1.8e11
CPI = 1.0
SLICE_NS = 4_000_000


def thread(env, core, remaining_ns, counter):
    while remaining_ns > 0:
        with core.request() as slot:
            yield slot
            run = min(SLICE_NS, remaining_ns)
            yield env.timeout(run)
            remaining_ns -= run
            counter[0] += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fraction", type=float, default=1.0, help="fraction of each thread's work to simulate")
    args = ap.parse_args()
    env = simpy.Environment()
    cores = [simpy.Resource(env, capacity=1) for _ in FREQ_GHZ]
    slices = [0]
    for t in range(THREADS):
        c = t % len(cores)
        work_ns = int(INSTRUCTIONS * args.fraction * CPI / FREQ_GHZ[c])
        env.process(thread(env, cores[c], work_ns, slices))
    t0 = time.process_time()
    env.run()
    cpu = time.process_time() - t0
    print(
        f"slices {slices[0]}, simulated {env.now / 1e9:.1f} s, CPU {cpu:.2f} s, "
        f"{slices[0] / cpu:,.0f} slices/s, {cpu * 1e9 / slices[0]:.0f} ns per slice"
    )


if __name__ == "__main__":
    main()
