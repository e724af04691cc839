#!/usr/bin/env python3
"""Writes catalog/programs/parsec.toml: the nine PARSEC programs of the big.LITTLE paper
("Exploiting Asymmetric Multi-Core Processors with Flexible System Software", §IV, Table I) as
program models, each in the versions the paper runs (§IV.A), and catalog/workloads/parsec-*.toml,
one workload per program running it alone:
- parsec-NAME: the pthreads code, static threading (threads = "cores", the work split at the
  application level: equal shares and barriers, or pools of threads taking items from queues);
- parsec-NAME-tasks: the task code (PARSECSs) on the engine's task runtime (docs/task-runtime.md);
- parsec-NAME-serial: the serial code, one thread, no synchronisation (Eq. 1's baseline).

Run it from the repository root after changing a value: `python3 catalog/programs/parsec.py`.
tests/python/test_parsec_catalog.py checks that the committed files are what this writes, that
every version retires the same work, and that the one-core big/little ratios on `exynos5422` come
out of the engine as Table I states them (they are calibrated: the A7's CPI is solved for them).
The values and why each is chosen are in HEADER below (copied into the TOML file).
"""

import functools
import math
import pathlib
import textwrap
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
MACHINE = HERE.parent / "machines" / "exynos5422.toml"  # the paper's board: the calibration's machine
G = 1e9  # instructions

# Table I's one-core performance ratio big/little (A15 at 1.6 GHz over A7 at 0.8 GHz), the
# calibration's target: the paper's mean, 2.96, is these nine's arithmetic mean (26.63 / 9).
TABLE_I = {
    "blackscholes": 2.18,
    "bodytrack": 4.16,
    "canneal": 1.73,
    "dedup": 2.67,
    "facesim": 3.40,
    "ferret": 3.59,
    "fluidanimate": 2.64,
    "streamcluster": 3.48,
    "swaptions": 2.78,
}
NAMES = tuple(TABLE_I)

# What each program computes (Table I's description) and the paper's characterisation it follows
# (§IV, §V), for the workloads' comments.
WHAT = {
    "blackscholes": "prices a portfolio of European options with the Black-Scholes formula",
    "bodytrack": "tracks a marker-less human body through 4 cameras' image sequences with a particle filter",
    "canneal": "simulated cache-aware annealing to minimise a chip's routing cost",
    "dedup": "compresses a data stream by global deduplication and local compression",
    "facesim": "animates a face model from muscle activations (finite elements)",
    "ferret": "content-based similarity search of images",
    "fluidanimate": "simulates an incompressible fluid (smoothed particle hydrodynamics)",
    "streamcluster": "online clustering of a stream of points",
    "swaptions": "prices a portfolio of swaptions (Heath-Jarrow-Morton, Monte Carlo)",
}
CHARACTERISATION = {
    "blackscholes": "Data-parallel, equal work per thread; ratio 2.18, one of the two below 2.5 (§IV).",
    "bodytrack": "Pipeline with application-level load balancing; ratio 4.16, the highest: it benefits from out-of-order execution (§IV).",
    "canneal": "Memory-intensive, unstructured; ratio 1.73, the lowest; does not reach its ideal speedup (§IV, §V.B).",
    "dedup": "Pipeline with an I/O stage whose core type changes its performance drastically (§IV, §V.B); ratio 2.67.",
    "facesim": "Data-parallel with frequent barriers followed by short sequential phases (§IV, §V.D); ratio 3.40.",
    "ferret": "Pipeline with application-level load balancing (§IV); ratio 3.59.",
    "fluidanimate": "Data-parallel with barriers, equal work per thread (§IV); ratio 2.64.",
    "streamcluster": "Data-parallel with barriers; 5 blocks of points, 5 phases in its power trace (§V.C); ratio 3.48.",
    "swaptions": "Data-parallel, equal work per thread (§IV); ratio 2.78.",
}

# The miss curve's cache sizes (KB): a quarter of the A7's L2 (what a thread gets of it with four
# threads on the cluster), the A7's L2, the A15's L2. Flat beyond its ends.
CURVE_KB = (128, 512, 2048)


class Profile:
    """A program's compute profile, shared by all its versions and phases: the CPI on the A15
    (chosen), LLC misses per 1000 instructions at CURVE_KB, the misses outstanding at once where
    the core can overlap them (mlp), the data a migration to the other cluster refills
    (footprint_kb), and why. The CPI on the A7 is solved (`a7_cpi`) so that one thread alone
    runs TABLE_I's ratio faster on a big core than on a little one."""

    def __init__(self, a15_cpi, mpki, mlp, footprint_kb, why):
        self.a15_cpi, self.mpki, self.mlp, self.footprint_kb, self.why = a15_cpi, mpki, mlp, footprint_kb, why


PROFILES = {
    # Black-Scholes formula per option: exp, log, sqrt and divisions in dependence chains that an
    # out-of-order core cannot overlap much (long-latency VFP operations on both cores), the
    # options streamed once per run (few misses, prefetchable: mlp 4). Table I's 2.18 leaves the
    # A7 nearly the A15's speed per cycle: the lowest compute-bound ratio of the nine.
    "blackscholes": Profile(1.0, (0.3, 0.3, 0.3), 4, 256, "FP dependence chains, streamed options"),
    # Particle filter over 4 camera images per frame: independent particles give the A15's
    # out-of-order core much to overlap (§IV: bodytrack "benefits from out-of-order execution and
    # more in-flight instructions", the highest ratio); a frame's images and edge maps (4 x 640 x
    # 480 bytes, ~1.2 MB) fit the A15's 2 MB L2 but not the A7's 512 KB.
    "bodytrack": Profile(0.8, (4.0, 2.0, 0.5), 2, 1536, "out-of-order friendly; a frame fits 2 MB, not 512 KB"),
    # Simulated annealing over a netlist of 2.5 M elements (hundreds of MB): random element swaps
    # whose cost follows each element's nets, dependent loads that miss at any L2 size (mlp 1);
    # §IV: "memory-intensive", the lowest ratio; §V.B: it does not reach its ideal speedup.
    "canneal": Profile(1.2, (16.0, 14.0, 12.0), 1, 65536, "pointer chasing over a netlist far larger than any L2"),
    # Rabin fingerprinting, SHA-1 and zlib compression of chunks (integer code), a global hash
    # table of chunks that misses moderately.
    "dedup": Profile(1.0, (4.0, 3.0, 2.0), 2, 4096, "integer hashing and compression, a large chunk table"),
    # Finite-element face mesh (372,126 tetrahedra), conjugate-gradient solves over a sparse matrix:
    # floating point with indexed loads the A15 overlaps (mlp 3).
    "facesim": Profile(0.9, (6.0, 4.0, 3.0), 3, 8192, "sparse FP solver over a large mesh"),
    # Image segmentation, feature extraction and earth mover's distance ranking: compute-heavy,
    # a moderate working set per query.
    "ferret": Profile(0.9, (3.0, 1.5, 0.8), 2, 2048, "compute-heavy similarity search"),
    # SPH fluid: per cell, loops over the neighbour cells' particles (indexed, partly dependent).
    "fluidanimate": Profile(1.0, (5.0, 3.0, 1.5), 2, 4096, "neighbour-cell particle loops"),
    # Distance computations streaming each block's 200,000 points (128 floats each, ~100 MB):
    # nearly flat misses, independent and prefetchable, which the A15 overlaps (mlp 4) and the
    # in-order A7 pays one by one: a high ratio (3.48) despite the misses.
    "streamcluster": Profile(0.9, (6.0, 5.0, 4.0), 4, 1024, "streaming points: misses the A15 overlaps"),
    # Monte Carlo HJM paths per swaption: floating point on a small working set.
    "swaptions": Profile(0.9, (0.2, 0.2, 0.2), 1, 256, "FP Monte Carlo, small working set"),
}

# The A7's CPI is written with this many significant digits: enough that rounding moves a ratio
# by less than 0.1%.
A7_CPI_DIGITS = 4
# Where the A7's CPI is looked for: the range a phase's CPI may take (docs/microarchitecture.md).
A7_CPI_RANGE = (0.01, 1000.0)

# One run's size (chosen): every program's total work is the instructions its serial code retires
# in SERIAL_BIG_S seconds alone on one A15 of exynos5422. The paper's native inputs run minutes
# (streamcluster 312-374 s on 4+4, §V.C); these run seconds, so that the reproduction's ~250 runs
# are cheap. Each program's structure (frames, steps, blocks) is scaled as STRUCTURE says.
SERIAL_BIG_S = 4.0

# The barrier programs' pthreads structure (chosen: PARSEC's pthreads sources give the shape, the native
# counts are scaled down as the comments say; the shares of the work between phases are kept):
# a list of (kind, share of the total work) per repetition, repeated `repeat` times.
#   "par": every thread does an equal part, then all meet at a barrier (a join at the end);
#   "seq": one thread (the first) works while the others wait, then all go on.
WAIT = "block"  # pthread barriers and condition variables put a waiting thread to sleep


class Structure:
    def __init__(self, repeat, steps, what):
        self.repeat, self.steps, self.what = repeat, steps, what


# streamcluster's serial part per block (chosen): the main thread's shuffle and its choice of
# facilities between the parallel gain computations, small beside them.
STREAMCLUSTER_SERIAL = 0.01
# facesim's serial share (chosen): §IV, "frequent barriers followed by short sequential phases";
# spread over every iteration of every frame.
FACESIM_SERIAL = 0.05
# fluidanimate's five kernels per frame and their shares of a frame's work (chosen: the force
# computation dominates, then densities): rebuild grid, densities, forces, collisions, advance.
FLUIDANIMATE_KERNELS = (0.05, 0.30, 0.55, 0.05, 0.05)

# The native counts scaled down (chosen): 6,000 temperature steps (Table I) to 60; 100 frames
# (Table I) to 10, each 8 solver iterations; 500 frames (Table I) to 20; 5 blocks of points kept
# (§V.C: 5 phases in the power trace), each 20 gain computations.
CANNEAL_STEPS = 60
FACESIM_FRAMES = 10
FACESIM_ITERATIONS = FACESIM_FRAMES * 8
FLUIDANIMATE_FRAMES = 20
STREAMCLUSTER_BLOCKS = 5
STREAMCLUSTER_GAINS = 20

STRUCTURE = {
    # One parallel region: each thread prices its equal slice of the options (PARSEC's
    # blackscholes repeats it NUM_RUNS times inside the thread, with no barrier), then the join.
    "blackscholes": Structure(1, [("par", 1.0)], "one parallel loop over equal slices of the options, then the join"),
    # Equal swaps per thread per temperature step, a barrier between steps.
    "canneal": Structure(CANNEAL_STEPS, [("par", 1 / CANNEAL_STEPS)],
                         f"{CANNEAL_STEPS} temperature steps (6,000 natively), equal swaps per thread, a barrier after each"),
    # Per solver iteration a short serial part, then an equal parallel part over the mesh
    # partitions and a barrier.
    "facesim": Structure(FACESIM_ITERATIONS, [("seq", FACESIM_SERIAL / FACESIM_ITERATIONS), ("par", (1 - FACESIM_SERIAL) / FACESIM_ITERATIONS)],
                         f"{FACESIM_FRAMES} frames (100 natively) x {FACESIM_ITERATIONS // FACESIM_FRAMES} iterations: a short serial part, "
                         "then equal partitions and a barrier"),
    # Per frame five kernels over equal grid partitions, each followed by a barrier.
    "fluidanimate": Structure(FLUIDANIMATE_FRAMES, [("par", s / FLUIDANIMATE_FRAMES) for s in FLUIDANIMATE_KERNELS],
                              f"{FLUIDANIMATE_FRAMES} frames (500 natively) x 5 kernels over equal partitions, a barrier after each"),
    # Per block a short serial part, then parallel gain computations over equal slices of the
    # points, a barrier after each.
    "streamcluster": Structure(STREAMCLUSTER_BLOCKS, [("seq", STREAMCLUSTER_SERIAL / STREAMCLUSTER_BLOCKS)]
                               + [("par", (1 - STREAMCLUSTER_SERIAL) / STREAMCLUSTER_BLOCKS / STREAMCLUSTER_GAINS)] * STREAMCLUSTER_GAINS,
                               f"{STREAMCLUSTER_BLOCKS} blocks (as natively) x (a short serial part + {STREAMCLUSTER_GAINS} parallel steps over equal slices, a barrier after each)"),
    # 128 swaptions split equally over the threads (PARSEC gives the last thread the remainder of
    # 128 / threads; here the split is even), then the join.
    "swaptions": Structure(1, [("par", 1.0)], "one parallel loop over equal shares of the 128 swaptions, then the join"),
}


# The pipelines (bodytrack, dedup, ferret): PARSEC's pthreads codes balance their own load, a
# pool of threads per stage taking items from bounded queues (docs/pipelines.md), so a thread on a
# big core takes more items than one on a little core (§IV: "application-level load balancing").
#
# bodytrack: a main thread and a pool of workers (PARSEC bodytrack's pthreads version: n workers +
# the main thread). Per frame the main thread loads the 4 cameras' images and hands the pool 6
# parallel rounds (the images' edge maps, then the particle weights of each of the 5 annealing
# layers, Table I), each split in items the workers take as they come free (a ticket dispenser),
# with a short serial part of the main's (resampling, the pose estimate) before each round.
BODYTRACK_FRAMES = 26        # 261 frames natively (Table I), 1/10
BODYTRACK_ROUNDS = 6         # edge maps + 5 annealing layers per frame
BODYTRACK_ITEMS = 32         # pieces of a round's work (chosen: 125 of the 4,000 particles each)
BODYTRACK_SERIAL = 0.06      # the main thread's share of the work (chosen)
HANDOFF_INSTRUCTIONS = 1e4   # handing out or collecting one item (a queue operation, chosen)
# dedup: Fragment (1 thread, reads the input) -> FragmentRefine, Deduplicate, Compress (a pool of
# "cores" threads each) -> Reorder (1 thread, writes the output in the input's order): 3n + 2
# threads, as PARSEC dedup's encoder. One item per MB of the paper's 351 MB input (the engine's
# stages pass each item on whole: the refined chunks and the duplicates that skip compression are
# averaged into the per-item work). The stages' shares of the work (chosen: compression dominates);
# the first and last stage run on one thread, so on a little core they can bound the pipeline
# (§IV: dedup's performance "drastically changes" with the core type that runs the I/O).
DEDUP_ITEMS = 351
DEDUP_STAGES = (("fragment", 1, 0.10), ("refine", "cores", 0.12), ("deduplicate", "cores", 0.17),
                ("compress", "cores", 0.55), ("reorder", 1, 0.06))
DEDUP_QUEUE = 1 << 20        # PARSEC dedup's queues (QUEUE_SIZE, as docs/pipelines.md reads it): never full here
DEDUP_READ_S = 0.08          # the run's reading of the input, off the CPU (chosen: 2% of the serial big-core run)
DEDUP_WRITE_S = 0.04         # and writing the output (1%)
# ferret: load (1 thread, reads the query images) -> segment, extract, vectorize, rank (a pool each)
# -> output (1 thread): 4n + 2 threads, as PARSEC ferret's pthreads version. 3,500 queries natively
# (Table I), 350 here. Shares (chosen: ranking against the image database dominates).
FERRET_ITEMS = 350
FERRET_STAGES = (("load", 1, 0.04), ("segment", "cores", 0.22), ("extract", "cores", 0.08),
                 ("vectorize", "cores", 0.08), ("rank", "cores", 0.56), ("output", 1, 0.02))
FERRET_QUEUE = 25            # PARSEC ferret's queue depth (src/ferret-pthreads.c, DEFAULT_DEPTH)
# Time off the CPU per program, (reading, writing) seconds over a run: the serial code does it too.
IO_S = {"dedup": (DEDUP_READ_S, DEDUP_WRITE_S)}


# The task versions (PARSECSs, the OpenMP 4.0 / OmpSs codes the paper runs, §IV.A): the same work
# and the same serial parts, the barriers replaced by dependences where the structure allows
# (rule 1), the application's thread pools and queues removed (rule 2: a pipeline's items become
# chains of tasks, one per stage), run by the engine's task runtime (docs/task-runtime.md) with
# its FIFO scheduler, the paper's. PARSECSs's block sizes are not public (the paper does not give
# them either, §7 of its summary): the tasks per block below are CHOSEN, for cheap runs with
# tasks in the hundreds to low thousands per run, and a task a few ms long on a big core
# (creating one costs the main thread ~3 us), several per core and block so that the dynamic
# queue can balance big and little cores. Change them here; the work per task follows.
TASKS = {
    "blackscholes": 64,    # blocks of options per run of the pricing loop
    "bodytrack": BODYTRACK_ITEMS,  # pieces of a round, as the pthreads version's
    "canneal": 16,         # blocks of swaps per temperature step
    "facesim": 16,         # mesh partitions per solver iteration
    "fluidanimate": 16,    # grid blocks per kernel
    "streamcluster": 16,   # blocks of points per gain computation
    "swaptions": 128,      # one task per swaption (PARSEC's unit of work)
}
BLACKSCHOLES_RUNS = 10     # runs of the pricing loop (NUM_RUNS = 100 natively), a taskwait after each
SCHEDULER = "fifo"         # the paper's runtime: one shared FIFO ready queue (§III.D)


@functools.cache
def machine():
    """exynos5422's cores and memory, as the engine reads them."""
    m = tomllib.loads(MACHINE.read_text(encoding="utf-8"))
    types = {t["name"]: t for t in m["core_type"]}
    llc = {t: next(c["size_kb"] for c in m["llc"] if int(c["cores"].split("-")[0]) == first)
           for t, first in (("big", 0), ("little", types["big"]["count"]))}
    return m, types, llc


def mpki_at(p, size_kb):
    """The miss curve at an LLC capacity, as the engine reads it: linear in log2(size), flat
    beyond its ends."""
    xs = [math.log2(s) for s in CURVE_KB]
    x = min(max(math.log2(size_kb), xs[0]), xs[-1])
    for i in range(len(xs) - 1):
        if x <= xs[i + 1]:
            t = (x - xs[i]) / (xs[i + 1] - xs[i])
            return p.mpki[i] + t * (p.mpki[i + 1] - p.mpki[i])
    return p.mpki[-1]


def ns_per_instruction(cpi, freq_ghz, mpki, overlap, m):
    """One thread alone on a core (docs/microarchitecture.md, docs/memory-bandwidth.md):
    x = CPI / f + mpki / 1000 × (L + W(ρ)) / overlap, with the M/D/1 wait W(ρ) = ρS / (2(1 − ρ)) of
    the controller at its own demand ρ = (mpki / 1000 / x) × line / bandwidth, a fixed point found
    by bisection (x grows with ρ, the demand falls with x)."""
    latency, bw = m["memory_latency_ns"], m["memory"]["bandwidth_gbps"]
    line = m["memory"].get("line_bytes", 64)
    service = line / bw
    per_miss = mpki / 1000.0 / overlap

    def x_at(rho):
        return cpi / freq_ghz + per_miss * (latency + rho * service / (2 * (1 - rho)))

    lo, hi = 0.0, 1.0
    for _ in range(200):
        rho = (lo + hi) / 2
        if (mpki / 1000.0 / x_at(rho)) * line / bw > rho:
            lo = rho
        else:
            hi = rho
    return x_at(lo)


def io_seconds(name):
    return sum(IO_S.get(name, (0.0, 0.0)))


def times(name, cpi7):
    """ns per instruction of the profile alone on one A15 and on one A7 (with the A7 CPI given)."""
    m, types, llc = machine()
    p, big, little = PROFILES[name], types["big"], types["little"]
    t_big = ns_per_instruction(p.a15_cpi, big["freq_ghz"], mpki_at(p, llc["big"]), min(p.mlp, big.get("max_mlp", 1)), m)
    t_little = ns_per_instruction(cpi7, little["freq_ghz"], mpki_at(p, llc["little"]), min(p.mlp, little.get("max_mlp", 1)), m)
    return t_big, t_little


def total_instructions(name):
    """The compute work of one run: what the serial code retires in SERIAL_BIG_S seconds alone
    on one A15, its I/O apart; three significant digits."""
    t_big, _ = times(name, PROFILES[name].a15_cpi)
    return float(f"{(SERIAL_BIG_S - io_seconds(name)) / (t_big * 1e-9):.3g}")


@functools.cache
def a7_cpi(name):
    """The A7's CPI that makes the serial code's one-core time ratio little/big Table I's (its
    I/O counted on both), rounded to A7_CPI_DIGITS."""
    w, io = total_instructions(name), io_seconds(name)
    t_big, _ = times(name, 1.0)
    target = (TABLE_I[name] * (io + w * t_big * 1e-9) - io) / (w * 1e-9)
    lo, hi = A7_CPI_RANGE
    if not times(name, lo)[1] < target < times(name, hi)[1]:
        raise SystemExit(f"parsec.py: {name}: no A7 CPI in {lo}-{hi} gives Table I's ratio {TABLE_I[name]} with this profile")
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if times(name, mid)[1] < target else (lo, mid)
    return float(f"{lo:.{A7_CPI_DIGITS}g}")


def model_ratio(name):
    """The serial code's one-core ratio little/big the model gives with the written A7 CPI, and
    the ns per instruction on each."""
    w, io = total_instructions(name), io_seconds(name)
    t_big, t_little = times(name, a7_cpi(name))
    return (io + w * t_little * 1e-9) / (io + w * t_big * 1e-9), t_big, t_little


def compute_keys(name, instructions):
    """A phase's work and profile keys, in the order they are written."""
    p = PROFILES[name]
    return {
        "instructions": instructions,
        # default: the A15 as the reference big core, as the SPEC CPU2006 tables do, so that the
        # programs run on every machine (cpi x cpi_scale where the core names neither).
        "cpi": {"cortex-a15": p.a15_cpi, "cortex-a7": a7_cpi(name), "default": p.a15_cpi},
        "mlp": p.mlp,
        "miss_curve": {"size_kb": list(CURVE_KB), "mpki": list(p.mpki)},
        "footprint_kb": p.footprint_kb,
    }


class Program:
    def __init__(self, name, version, suite, source, groups, queues=()):
        self.name, self.version, self.suite, self.source = name, version, suite, source
        self.groups, self.queues = groups, list(queues)
        self.steps, self.repeat = [], 1  # a task program's (docs/task-runtime.md)


def sig(x):
    """Instructions written to 6 significant digits."""
    return float(f"{x:.6g}")


def serial_program(name):
    """The serial code: one thread retires the whole work, no synchronisation; its I/O (dedup's
    reading and writing) off the CPU before and after."""
    read, write = IO_S.get(name, (0.0, 0.0))
    phases = [{"kind": "sleep", "seconds": read}] if read else []
    phases.append({"kind": "compute", **compute_keys(name, total_instructions(name))})
    phases += [{"kind": "sleep", "seconds": write}] if write else []
    groups = [("main", 1, {}, phases)]
    return Program(f"parsec-{name}-serial", "serial", "PARSEC 3.0 (serial)", "the serial code, Eq. 1's baseline", groups)


def barrier_program(name):
    """Static threading with barriers: as many threads as cores, the work split equally at
    every step."""
    s = STRUCTURE[name]
    total = total_instructions(name)
    phases = []
    for kind, share in s.steps:
        if kind == "par":
            phases += [{"kind": "compute", **compute_keys(name, sig(share * total))}, {"kind": "barrier", "wait": WAIT}]
        else:
            phases.append({"kind": "serial", **compute_keys(name, sig(share * total)), "wait": WAIT})
    extra = {"work": "shared"}
    if s.repeat > 1:
        extra["repeat"] = s.repeat
    return Program(f"parsec-{name}", "pthreads", "PARSEC 3.0 (pthreads)", s.what, [("worker", "cores", extra, phases)])


def stage(name, per_item, **keys):
    """A stage phase: `keys` (input, output, items, io_seconds, ordered) then the profile."""
    return {"kind": "stage", **keys, **compute_keys(name, sig(per_item)), "wait": WAIT}


def bodytrack_program():
    name = "bodytrack"
    total = total_instructions(name)
    rounds = BODYTRACK_FRAMES * BODYTRACK_ROUNDS
    per_item = (1 - BODYTRACK_SERIAL) * total / rounds / BODYTRACK_ITEMS
    main_serial = BODYTRACK_SERIAL * total / rounds - 2 * BODYTRACK_ITEMS * HANDOFF_INSTRUCTIONS
    main = [{"kind": "compute", **compute_keys(name, sig(main_serial))},
            stage(name, HANDOFF_INSTRUCTIONS, output="work", items=BODYTRACK_ITEMS),
            stage(name, HANDOFF_INSTRUCTIONS, input="done")]
    workers = [stage(name, per_item, input="work", output="done")]
    groups = [("main", 1, {"repeat": rounds}, main), ("worker", "cores", {"repeat": rounds}, workers)]
    queues = [("work", BODYTRACK_ITEMS), ("done", BODYTRACK_ITEMS)]
    what = (f"a main thread and a pool of workers; {BODYTRACK_FRAMES} frames (261 natively) x {BODYTRACK_ROUNDS} rounds "
            f"(edge maps, 5 annealing layers), each a short serial part of the main's, then {BODYTRACK_ITEMS} pieces the workers take as they come free")
    return Program(f"parsec-{name}", "pthreads", "PARSEC 3.0 (pthreads)", what, groups, queues)


def pipeline_program(name, stages, items, capacity, io, what):
    """A linear pipeline: stage k's group takes from queue k-1 and puts in queue k; the first
    makes `items` items, reading (io[0] over the run) before each, the last writes (io[1]) and
    keeps the input's order when it is one thread (dedup's Reorder)."""
    total = total_instructions(name)
    groups, queues = [], []
    for k, (stage_name, count, share) in enumerate(stages):
        keys = {}
        if k > 0:
            keys["input"] = queues[-1][0]
        if k < len(stages) - 1:
            queues.append((f"{stage_name}-out", capacity))
            keys["output"] = queues[-1][0]
        else:
            if name == "dedup":
                keys["ordered"] = True
        if k == 0:
            keys["items"] = items
        seconds = io[0] if k == 0 else io[1] if k == len(stages) - 1 else 0.0
        if seconds:
            keys["io_seconds"] = seconds / items
        groups.append((stage_name, count, {}, [stage(name, share * total / items, **keys)]))
    return Program(f"parsec-{name}", "pthreads", "PARSEC 3.0 (pthreads)", what, groups, queues)


def dedup_program():
    what = ("a pipeline of 5 stages, 3n+2 threads: Fragment (1 thread, reads) -> FragmentRefine, Deduplicate, Compress "
            f"(a pool each) -> Reorder (1 thread, writes in order); {DEDUP_ITEMS} items, one per MB of the 351 MB input")
    return pipeline_program("dedup", DEDUP_STAGES, DEDUP_ITEMS, DEDUP_QUEUE, IO_S["dedup"], what)


def ferret_program():
    what = ("a pipeline of 6 stages, 4n+2 threads: load (1 thread) -> segment, extract, vectorize, rank (a pool each) "
            f"-> output (1 thread); {FERRET_ITEMS} queries (3,500 natively), queues of {FERRET_QUEUE}")
    return pipeline_program("ferret", FERRET_STAGES, FERRET_ITEMS, FERRET_QUEUE, (0.0, 0.0), what)


PTHREADS = {"bodytrack": bodytrack_program, "dedup": dedup_program, "ferret": ferret_program}


def task_program(name):
    """The task version: steps the main thread goes through (docs/task-runtime.md)."""
    total = total_instructions(name)
    n = TASKS.get(name)
    steps, repeat = [], 1

    def tasks(count, share, after):
        return {"kind": "tasks", "count": count, "after": after, **compute_keys(name, sig(share * total / count))}

    def serial(share):
        return {"kind": "serial", **compute_keys(name, sig(share * total))}

    taskwait = {"kind": "taskwait"}
    if name == "blackscholes":
        # Each run of the pricing loop ends with a taskwait (the main thread waits for the run's
        # blocks: §V.D's blackscholes, whose pinned main thread "sits idle" waiting for its core).
        repeat = BLACKSCHOLES_RUNS
        steps = [tasks(n, 1 / repeat, "none"), taskwait]
        what = f"{repeat} runs of the pricing loop, each {n} blocks of options and a taskwait"
    elif name == "swaptions":
        steps = [tasks(n, 1.0, "none"), taskwait]
        what = f"{n} independent tasks (one per swaption), a taskwait at the end"
    elif name == "canneal":
        # A temperature step's swaps read the netlist the previous step left: after all of them.
        repeat = STRUCTURE[name].repeat
        steps = [tasks(n, 1 / repeat, "all")]
        what = f"{repeat} temperature steps x {n} blocks of swaps, each step's after all of the previous step's (the barrier as a join)"
    elif name == "facesim":
        # The short sequential phases stay on the main thread (§V.D: they make facesim prefer a
        # main thread on a big core), so each iteration ends with a taskwait.
        repeat = STRUCTURE[name].repeat
        steps = [serial(FACESIM_SERIAL / repeat), tasks(n, (1 - FACESIM_SERIAL) / repeat, "none"), taskwait]
        what = f"{repeat} solver iterations: the main thread's short serial part, {n} partition tasks, a taskwait"
    elif name == "fluidanimate":
        # Per frame the grid rebuild needs every particle (after all: a join); each later kernel's
        # block i needs block i of the kernel before (after same: the neighbouring blocks' halos
        # are not modelled).
        repeat = STRUCTURE[name].repeat
        steps = [tasks(n, k / repeat, "all" if i == 0 else "same") for i, k in enumerate(FLUIDANIMATE_KERNELS)]
        what = f"{repeat} frames x 5 kernels of {n} blocks: the grid rebuild after all of the previous frame, each later kernel's block after the same block of the kernel before"
    elif name == "streamcluster":
        # Per block of points: the main thread's serial part after a taskwait, then 20 gain
        # computations, each a reduction the next reads: after all.
        repeat = STRUCTURE[name].repeat
        par = [share for kind, share in STRUCTURE[name].steps if kind == "par"]
        steps = [taskwait, serial(STREAMCLUSTER_SERIAL / repeat)] + [tasks(n, share, "all") for share in par]
        what = f"{repeat} blocks: a taskwait and the main thread's serial part, then {len(par)} gain computations of {n} tasks, each after all of the one before"
    elif name == "bodytrack":
        # Per round the serial part (resampling) becomes a task after all of the round's
        # pieces, and the next round's pieces after it: barriers as joins, no thread pool.
        repeat = BODYTRACK_FRAMES * BODYTRACK_ROUNDS
        piece = (1 - BODYTRACK_SERIAL) / repeat
        steps = [tasks(1, BODYTRACK_SERIAL / repeat, "all"), tasks(n, piece, "all")]
        what = (f"{BODYTRACK_FRAMES} frames x {BODYTRACK_ROUNDS} rounds: the round's serial part as one task, then {n} pieces after it, "
                "the next serial part after all of them (frames do not overlap: a block depends on the one before only)")
    else:
        # dedup, ferret: the pipeline's items as chains of tasks, one per stage; the first and last
        # stages in order (ordered: each item's after the previous item's).
        stages_of, items = {"dedup": (DEDUP_STAGES, DEDUP_ITEMS), "ferret": (FERRET_STAGES, FERRET_ITEMS)}[name]
        read, write = IO_S.get(name, (0.0, 0.0))
        stages = []
        for k, (_, count, share) in enumerate(stages_of):
            st = {"ordered": count == 1, **compute_keys(name, sig(share * total / items))}
            seconds = read if k == 0 else write if k == len(stages_of) - 1 else 0.0
            if seconds:
                st["io_s"] = seconds / items
            stages.append(st)
        steps = [{"kind": "pipeline", "items": items, "after": "none", "stages": stages}]
        what = (f"a pipeline of {items} items x {len(stages)} stage tasks, the one-thread stages ordered"
                + ("; the first reads and the last writes, blocking their worker" if read else ""))
    prog = Program(f"parsec-{name}-tasks", "tasks", "PARSEC 3.0 (PARSECSs task version)", what, [])
    prog.steps, prog.repeat = steps, repeat
    return prog


def programs():
    out = []
    for name in NAMES:
        out.append(barrier_program(name) if name in STRUCTURE else PTHREADS[name]())
        out.append(task_program(name))
        out.append(serial_program(name))
    return out


def work(p):
    """The instructions a program retires in one run, from what it writes, whatever its thread
    count: a compute phase of a group of several threads is shared (the group's total), a serial
    phase is one thread's, and a pipeline's items pass every stage once."""
    total = stage_work(p) + p.repeat * sum(step_work(st) for st in p.steps)
    for group, count, extra, phases in p.groups:
        for ph in phases:
            if ph["kind"] == "compute" and count != 1 and extra.get("work") != "shared":
                raise SystemExit(f"parsec.py: program {p.name}: group {group} computes per thread; its work would grow with the cores")
            if ph["kind"] in ("compute", "serial"):
                total += extra.get("repeat", 1) * ph["instructions"]
    return total


def step_work(step):
    """A task program's step: its tasks' instructions (a pipeline's items through every stage)."""
    if step["kind"] == "tasks":
        return step["count"] * step["instructions"]
    if step["kind"] == "pipeline":
        return step["items"] * sum(st["instructions"] for st in step["stages"])
    return step.get("instructions", 0.0)


def stage_work(p):
    """A pipeline's stage instructions: each stage handles every item the first stage makes
    (over the run, the first stage's items times its group's repeat)."""
    made = 0
    for _, _, extra, phases in p.groups:
        for ph in phases:
            if ph["kind"] == "stage" and "items" in ph:
                made += ph["items"] * extra.get("repeat", 1)
    return sum(made * ph["instructions"] for _, _, _, phases in p.groups for ph in phases if ph["kind"] == "stage")


def fmt(v):
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}".replace("e+0", "e").replace("e+", "e")
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f'{k if k.isidentifier() else fmt(k)} = {fmt(x)}' for k, x in v.items()) + " }"
    return str(v)


def groups_toml(p, table):
    """A program's queues and groups as TOML lines, under `[[TABLE.queue]]`, `[[TABLE.group]]`."""
    lines = []
    for name, capacity in p.queues:
        lines += [f"[[{table}.queue]]", f'name = "{name}"', f"capacity = {capacity}"]
    if p.queues:
        lines.append("")
    for name, count, extra, phases in p.groups:
        lines += [f"[[{table}.group]]", f'name = "{name}"', f"count = {fmt(count)}", 'kind = "app"']
        lines += [f"{k} = {fmt(v)}" for k, v in extra.items()]
        for ph in phases:
            lines.append(f"[[{table}.group.phase]]")
            lines += [f"{k} = {fmt(v)}" for k, v in ph.items()]
        lines.append("")
    return lines


HEADER = """\
# The nine PARSEC programs of the big.LITTLE paper ("Exploiting Asymmetric Multi-Core Processors with
# Flexible System Software", §IV, Table I): blackscholes, bodytrack, canneal, dedup, facesim, ferret,
# fluidanimate, streamcluster, swaptions. GENERATED by catalog/programs/parsec.py (edit the values there
# and rerun it). Versions (§IV.A): parsec-NAME (the pthreads code, static threading: its threads'
# counts are "cores", the work split at the application level), parsec-NAME-tasks (the PARSECSs task
# code on the engine's task runtime, docs/task-runtime.md), parsec-NAME-serial (the serial code, one
# thread: Eq. 1's baseline). All three retire the same work. Workloads of the same names run one of
# them alone. Machine: exynos5422 (the paper's Odroid-XU3). See docs/parsec-catalog.md.
#
# CALIBRATED: Table I's one-core performance ratios big/little (A15 at 1.6 GHz over A7 at 0.8 GHz) are
# an input of these models, not a prediction. Per program one compute profile, shared by every phase,
# stage and task of every version: the A15's CPI, a miss curve (LLC misses per 1000 instructions at
# 128 KB, 512 KB and 2 MB), the misses outstanding at once (mlp; the A15 holds up to 6, the in-order A7
# one) and the footprint a cross-cluster migration refills are CHOSEN from the paper's characterisation
# (§IV: canneal memory-intensive, bodytrack benefiting from out-of-order execution, blackscholes and
# canneal the two below 2.5) and the programs' published structure; the A7's CPI is then SOLVED so that
# the serial code alone on one core of exynos5422 (its 2 MB / 512 KB L2s, 120 ns memory, 14.9 GB/s
# bandwidth model; dedup's I/O counted on both) runs Table I's ratio. tests/python/test_parsec_catalog.py
# runs every serial program on exynos5422:big=1:little=0 and :big=0:little=1 and checks the engine
# gives Table I. No public per-program CPI or miss rate of these programs on the A15/A7 was found. In
# this model the ratio is at most 2 x (A7 CPI / A15 CPI) (memory stalls only lower it: the A7 overlaps
# no misses and has the smaller L2), so Table I's low ratios need an A7 nearly as fast per cycle as the
# A15: blackscholes 1.08, fluidanimate 1.22, dedup 1.33 (the column "A7/A15 cpi" below); the board may
# also have run its A15s below 1.6 GHz (thermal limits), which the paper does not report and the model
# does not have. The cpi tables' `default` is the A15's CPI (the reference big core): on a machine
# whose cores name neither microarchitecture the programs run at cpi x cpi_scale.
#
# Run size (chosen): each program's work is what its serial code retires in 4 s alone on one A15
# (parsec.py's SERIAL_BIG_S); the paper's native runs take minutes (streamcluster 312-374 s on 4+4,
# §V.C), so the work is scaled down by two orders of magnitude. Counts of frames, steps and queries are scaled
# as each program's source line says, keeping the shares of the work between phases and stages.
#
# Static threading (the paper's §IV.A: the OS may not migrate threads across clusters; a policy such
# as cluster-bound does that): the barrier programs give each thread an equal share (work = "shared")
# and meet at blocking barriers, so on an asymmetric machine the big cores wait for the little ones;
# the pipelines (bodytrack, dedup, ferret) are pools of threads taking items from bounded queues
# (docs/pipelines.md), which balance their own load. Task versions: the barriers become dependences
# where the structure allows, the pools and queues become chains of tasks (§IV.A's two rules); the
# tasks per block are chosen (parsec.py's TASKS: PARSECSs's block sizes are not public).
#
# Table (ratio: the model's one-core time on an A7 over an A15, serial code; mem: the share of the
# one-core time spent on misses; Ginstr: the total work; threads: the pthreads version's on n cores;
# tasks: the task version's per run):
"""


def table(progs):
    rows = ["# program        Table I  model   A15 cpi  A7 cpi  A7/A15 cpi  mpki 128K/512K/2M  mlp  footprint KB  mem A15  mem A7  Ginstr  threads  tasks  why"]
    by_name = {p.name: p for p in progs}
    m, types, llc = machine()
    for name in NAMES:
        p = PROFILES[name]
        r, t_big, t_little = model_ratio(name)
        c7 = a7_cpi(name)
        mem_big = 1 - p.a15_cpi / types["big"]["freq_ghz"] / t_big
        mem_little = 1 - c7 / types["little"]["freq_ghz"] / t_little
        curve = "/".join(f"{x:g}" for x in p.mpki)
        rows.append(f"# {name:<14} {TABLE_I[name]:7.2f}  {r:5.3f}  {p.a15_cpi:7.2f}  {c7:6.3f}  {c7 / p.a15_cpi:10.2f}  "
                    f"{curve:<17}  {p.mlp:3d}  {p.footprint_kb:12d}  {mem_big:7.0%}  {mem_little:6.0%}  {total_instructions(name) / G:6.2f}  "
                    f"{threads(by_name[f'parsec-{name}']):<7}  {tasks_per_run(by_name[f'parsec-{name}-tasks']):5d}  {p.why}")
    mean = sum(model_ratio(n)[0] for n in NAMES) / len(NAMES)
    rows.append(f"# mean           {sum(TABLE_I.values()) / len(TABLE_I):7.2f}  {mean:5.3f}")
    return "\n".join(rows)


def threads(p):
    """A pthreads program's thread count on n cores, as a formula."""
    fixed = sum(c for _, c, _, _ in p.groups if c != "cores")
    pools = sum(1 for _, c, _, _ in p.groups if c == "cores")
    return ("n" if pools == 1 else f"{pools}n") + (f"+{fixed}" if fixed else "")


def tasks_per_run(p):
    """A task program's tasks in one run (a pipeline's: one per item and stage)."""
    per = sum(st["count"] if st["kind"] == "tasks" else st["items"] * len(st["stages"]) if st["kind"] == "pipeline" else 0 for st in p.steps)
    return per * p.repeat


def render(progs):
    """The text of catalog/programs/parsec.toml."""
    # docs/parsec-catalog.md includes the table (between the --8<-- markers)
    lines = [HEADER.rstrip("\n"), "#", "# --8<-- [start:profiles]", table(progs), "# --8<-- [end:profiles]", ""]
    for p in progs:
        base = p.name.removeprefix("parsec-").removesuffix("-serial").removesuffix("-tasks")
        lines += ["[[program]]", f'name = "{p.name}"', f'suite = "{p.suite}"',
                  f'source = "big.LITTLE paper (Exploiting Asymmetric Multi-Core Processors with Flexible System Software), §IV, Table I '
                  f'(ratio {TABLE_I[base]:.2f}, calibrated); {p.version}: {p.source}"', ""]
        lines += groups_toml(p, "program") if p.groups else steps_toml(p, "program")
    return "\n".join(lines)


def steps_toml(p, table):
    """A task program's repeat, runtime and steps as TOML lines."""
    lines = [f"repeat = {p.repeat}"] if p.repeat > 1 else []
    lines += [f"[{table}.runtime]", f'scheduler = "{SCHEDULER}"']
    for step in p.steps:
        lines.append(f"[[{table}.step]]")
        lines += [f"{k} = {fmt(v)}" for k, v in step.items() if k != "stages"]
        for st in step.get("stages", []):
            lines.append(f"[[{table}.step.stage]]")
            lines += [f"{k} = {fmt(v)}" for k, v in st.items()]
    lines.append("")
    return lines


WORKLOADS = HERE.parent / "workloads"


def workloads(progs):
    """{file name: text} of the workloads that run one program alone, one per program."""
    out = {}
    for p in progs:
        base = p.name.removeprefix("parsec-").removesuffix("-serial").removesuffix("-tasks")
        comment = f"{base} ({p.version}) alone: {WHAT[base]}. {CHARACTERISATION[base]} The {p.version} version: {p.source}."
        out[f"{p.name}.toml"] = "\n".join([
            *textwrap.wrap(comment, 100, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False),
            "# GENERATED by catalog/programs/parsec.py with the program (catalog/programs/parsec.toml).",
            f'name = "{p.name}"',
            f'description = "PARSEC {base} ({p.version}) alone, as the big.LITTLE paper runs it"',
            'source = "big.LITTLE paper (Exploiting Asymmetric Multi-Core Processors with Flexible System Software), §IV, Table I"',
            "",
            "[[app]]",
            f'name = "{base}"',
            f'program = "{p.name}"',
            "",
        ])
    return out


def main():
    progs = programs()
    (HERE / "parsec.toml").write_text(render(progs), encoding="utf-8")
    for name, text in workloads(progs).items():
        (WORKLOADS / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
