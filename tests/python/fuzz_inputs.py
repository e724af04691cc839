"""Hostile inputs for the `ampsched` command (issue 10: no input may crash, hang or silently lie).

A deterministic, seeded mutator over the catalog's machine and workload files and over the
command-line options, and a runner that checks how each case ends: exit status 0, or exit
status 2 with one line naming the problem, within a time bound, under a memory limit, never
killed by a signal. tests/python/test_fuzz.py runs it under pytest; run alone,

    python tests/python/fuzz_inputs.py --cases 3000 [--seed S] [--only 12,40]

prints the failing cases grouped by what went wrong, for triage.

Case i of seed s draws from its own random.Random("ampsched-fuzz:s:i"), so one case is
reproduced without generating the others, and adding a mutation kind changes no other seed's
stream more than the choice lists do.
"""

import argparse
import copy
import difflib
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir, "catalog"))

# The machine running the tests is shared: generous, and a hang still ends. AMPSCHED_FUZZ_TIMEOUT
# shortens it for a long triage run, where most of the time goes to hangs.
TIMEOUT_S = float(os.environ.get("AMPSCHED_FUZZ_TIMEOUT", "20"))
SLOW_S = 5.0  # a case slower than this is reported (not failed): a bound is missing somewhere
# Every case runs with this event budget (--max-events): what bounds a run's wall time is the
# budget, and the default (2e8, seconds to minutes) would let a hostile `runs = 100000` use the
# whole time bound. 3e6 events take at most a few seconds even where the shared-LLC model is
# slowest (~1 M events/s on a loaded machine); a case that needs more ends in the budget's
# one-line error, which is a clean end too.
CASE_MAX_EVENTS = "3e6"
MEMORY_BYTES = 4 << 30  # RLIMIT_AS: a runaway allocation aborts the child, not the machine

# Small machines and quick workloads to pair with a mutated file of the other kind, so that a
# case's time goes to the mutation, not to simulating a big catalog mix.
SMALL_MACHINES = ["dvfs-2x", "2fc-2sc-amd", "2fc-2sc-intel", "1fc-3sc"]
QUICK_WORKLOADS = ["demo", "forkjoin", "locks", "java-like"]
# Policies cheap enough to run on any case. best-static simulates its candidates and `default`
# every rotation; they get the quick pairs only.
CHEAP_POLICIES = ["oblivious", "static", "rr", "busyfcs", "bound"]
# Machine configurations by online core counts (docs/power.md): valid ones and every way to get one wrong.
MACHINE_CONFIGS = [
    "exynos5422:big=4:little=1",
    "exynos5422:big=0",
    "exynos5422:little=0",
    "exynos5422:big=0:little=0",
    "exynos5422:huge=1",
    "exynos5422:big=9",
    "exynos5422:big",
    "exynos5422:",
    "exynos5422:big=-1",
    "exynos5422:big=1e99",
    "exynos5422:big=99999999999999999999999",
    "exynos5422:big=1:big=2",
    "exynos5422::big=1",
    # The network options (docs/noc.md): refused on a machine without [interconnect], checked
    # on the catalog's meshes.
    "exynos5422:arbitration=ocor",
    "exynos5422:priority_levels=4",
    "noc-mesh-16:arbitration=ocor",
    "noc-mesh-16:arbitration=ocor:priority_levels=1",
    "noc-mesh-16:priority_levels=128:progress_levels=64",
    "noc-mesh-16:priority_levels=0",
    "noc-mesh-16:priority_levels=129",
    "noc-mesh-16:priority_levels=1e9",
    "noc-mesh-16:progress_levels=-1",
    "noc-mesh-16:arbitration=",
    "noc-mesh-16:arbitration=fifo",
    "noc-mesh-16:alpha=4:arbitration=ocor",
    "dvfs-2x:fast=1",
    "nosuch:big=1",
    ":big=1",
]
# --power-trace intervals (s): the paper's, and out of range or not numbers.
POWER_TRACES = ["0.27", "0.001", "0", "-1", "nan", "inf", "1e-9", "1e300", "two"]
COSTLY_POLICIES = ["best-static", "default"]

NAN, INF = float("nan"), float("inf")
INTEGERS = [0, -1, 2**63 - 1, 2**63, 2**64, 4294967295, 4294967296, 8192, 8193, 65536, 10**6, 10**9, 10**13]
FLOATS = [
    0.0,
    -0.0,
    -1.0,
    -1.5,
    0.5,
    1e-7,
    1e-11,
    5e-324,
    1e308,
    1e13,
    1e19,
    float(2**63),
    float(2**64),
    4294967295.0,
    1e6,
    1e9,
    NAN,
    INF,
    -INF,
]
NUMBERS = INTEGERS + FLOATS
LONG = "x" * 10_000
STRINGS = [
    "",
    " ",
    LONG,
    "a\tb\x01\x7f",
    "\u00e9\u4e2d\U0001f600",
    "4",
    "true",
    "fast",
    "default",
    "gzip",
    "../../etc/passwd",
    "a" * 300,
]
CORE_LISTS = [
    "0-1000000000000",
    "1000000000000",
    "0-18446744073709551616",
    "5-2",
    "",
    " ",
    "0,,1",
    "0-",
    "-1",
    "a-b",
    "0-8191",
    "0-8192",
    "0-3,0-3",
    "0-0x10",
    [0, 0],
    [-1],
    [2**63],
    [1e9],
    [0.5],
    ["0"],
    [],
    list(range(300)),
    [0] * 20_000,
]
WRONG_TYPES = ["x", "", True, False, [], [1, 2], [[]], {}, {"a": 1}, ["a", 1]]
ENUMS = {
    "kind": [
        "compute",
        "serial",
        "barrier",
        "critical",
        "sleep",
        "app",
        "runtime",
        "",
        "Compute",
        "loop",
        "stage",
        "tasks",
        "pipeline",
        "taskwait",
        "mesh",
        "torus",
        # A recorded program's synchronisation (docs/workloads.md).
        "spawn",
        "join",
        "sem_post",
        "sem_wait",
    ],
    "wait": ["block", "spin", "spin_then_block", "queue_spinlock", "", "forever"],
    "scope": ["group", "app", "", "machine"],
    # A group's start (docs/workloads.md, recorded programs' synchronisation).
    "start": ["at_start", "spawned", "", "Spawned", "later"],
    "baseline": ["default", "", "rr", "oblivious", "best"],
    "program": ["gzip", "mcf", "", "no-such-program", "../gzip", "gzip\u0000"],
    "lock": ["", "queue", LONG],
    # A stage's queues (docs/pipelines.md): the names _m_pipeline declares, one it does not, none.
    "input": ["q1", "q2", "", "no-such-queue", LONG],
    "output": ["q1", "q2", "", "no-such-queue", LONG],
    # A core type's microarchitecture: the catalog's, the reserved `default`, none, too long.
    "uarch": ["cortex-a15", "cortex-a7", "golden-cove", "default", "", " ", LONG[:65], "\u00e9"],
    # The task runtime (docs/task-runtime.md).
    "scheduler": ["fifo", "cats", "steal", "", "FIFO", "bf"],
    "main": ["default", "big", "little", "", "medium"],
    "after": ["none", "all", "same", "", "any"],
    "arbitration": ["round_robin", "ocor", "", "OCOR", "round-robin", "priority"],
    # A queue spinlock's retry (docs/queue-spinlock.md).
    "spin": ["ttas", "tas", "", "TTAS", "mcs"],
}
# The task runtime's tables (docs/task-runtime.md): steps of each kind with hostile counts and
# dependences (same across different widths, all on the first block), pipelines without or with
# too many stages, and runtime options out of range or contradictory.
TASK_STEPS = [
    [],
    [{}],
    [{"kind": "tasks", "count": 4, "instructions": 1e6}],
    [{"kind": "tasks", "count": 0, "instructions": 1e6}],
    [{"kind": "tasks", "count": 4, "instructions": 1e6, "after": "all"}],
    [
        {"kind": "tasks", "count": 4, "instructions": 1e6},
        {"kind": "tasks", "count": 3, "instructions": 1e6, "after": "same"},
    ],
    [{"kind": "tasks", "count": 10**6, "instructions": 1e3}, {"kind": "tasks", "count": 10**6, "instructions": 1e3}]
    * 3,
    [{"kind": "pipeline", "items": 8, "stage": []}],
    [{"kind": "pipeline", "items": 8, "stage": [{"instructions": 1e5, "ordered": True}] * 65}],
    [{"kind": "pipeline", "items": 8, "stage": [{"io_s": 1e-3, "ordered": True}, {"instructions": 1e5}]}],
    [{"kind": "serial", "instructions": 1e6}, {"kind": "taskwait"}],
    [{"kind": "tasks", "count": 2, "io_s": 0}],
    [{"instructions": 1e6}],
]
RUNTIME_TABLES = [
    {},
    {"scheduler": "cats", "immediate_successor": True},
    {"scheduler": "steal", "main": "big"},
    {"main": "little", "queue_op_instructions": 1e10},
    {"create_instructions": -1},
    {"scheduler": 1},
    "fifo",
]
# A phase's `cpi` as a table per microarchitecture (docs/microarchitecture.md): empty, only a
# default, names the catalog's machines lack (a run on them is refused by file and key), bad values
# and names, nesting, too many entries.
CPI_TABLES = [
    {},
    {"default": 1.0},
    {"cortex-a15": 1.1, "cortex-a7": 2.0},
    {"cortex-a15": 1.1, "default": 1.5},
    {"no-such-uarch": 1.0},
    {"cortex-a15": NAN},
    {"cortex-a7": -1.0},
    {"cortex-a7": 1e308},
    {"cortex-a7": "fast"},
    {"": 1.0},
    {LONG[:65]: 1.0},
    {"a": {"b": 1.0}},
    {f"u{i}": 1.0 for i in range(65)},
]
MISS_CURVES = [
    {},
    {"size_kb": [], "mpki": []},
    {"size_kb": [256, 1024], "mpki": [5]},
    {"size_kb": [1024, 256], "mpki": [5, 1]},
    {"size_kb": [0, 256], "mpki": [5, 1]},
    {"size_kb": [256, 256], "mpki": [5, 1]},
    {"size_kb": [-256, 1024], "mpki": [5, 1]},
    {"size_kb": [256, 1e308], "mpki": [1e308, 0]},
    {"size_kb": [256, NAN], "mpki": [1, 1]},
    {"size_kb": [5e-324, 1], "mpki": [1, -1]},
    {"size_kb": list(range(1, 100_001)), "mpki": [1] * 100_000},
]
# `[memory]` tables: missing bandwidth, out of range, the bounds themselves (a saturating 0.01 GB/s
# with 1024-byte lines must still end), wrong types.
MEMORY_TABLES = [
    {},
    {"line_bytes": 64},
    {"bandwidth_gbps": 0.0},
    {"bandwidth_gbps": 0.01, "line_bytes": 1024},
    {"bandwidth_gbps": 1e5, "line_bytes": 8},
    {"bandwidth_gbps": 0.5},
    {"bandwidth_gbps": NAN},
    {"bandwidth_gbps": 10.0, "line_bytes": 7},
    {"bandwidth_gbps": 10.0, "channels": 2},
    {"bandwidth_gbps": "fast"},
]
# `[interconnect]` tables (docs/noc.md): valid for the small machines' 4 cores, and every way to
# get one wrong (the core count, a missing kind, bounds and beyond, unknown nodes, wrong types).
INTERCONNECT_TABLES = [
    {},
    {"kind": "mesh", "width": 2},
    {"kind": "mesh", "width": 2, "height": 2, "arbitration": "ocor", "priority_levels": 128, "progress_levels": 64},
    {"kind": "mesh", "width": 4, "height": 1, "router_stages": 16, "link_cycles": 16, "vcs": 1, "vc_buffer_flits": 1},
    {"kind": "mesh", "width": 2, "flit_bytes": 1, "line_bytes": 1024, "memory_controllers": [0, 3]},
    {"kind": "mesh", "width": 2, "clock_ghz": 0.01},
    {"kind": "mesh", "width": 8},
    {"kind": "mesh", "width": 90, "height": 90},
    {"kind": "mesh", "width": 0},
    {"kind": "mesh", "width": 2, "height": 2**63},
    {"kind": "torus", "width": 2},
    {"width": 2},
    {"kind": "mesh", "width": 2, "memory_controllers": [4]},
    {"kind": "mesh", "width": 2, "memory_controllers": []},
    {"kind": "mesh", "width": 2, "memory_controllers": [1, 1]},
    {"kind": "mesh", "width": 2, "memory_controllers": "0-8192"},
    {"kind": "mesh", "width": 2, "flit_bytes": 256, "line_bytes": 8},
    {"kind": "mesh", "width": 2, "vcs": 17},
    {"kind": "mesh", "width": 2, "priority_levels": 0},
    {"kind": "mesh", "width": 2, "arbitration": "OCOR"},
    {"kind": "mesh", "width": 2, "clock_ghz": NAN},
    {"kind": "mesh", "width": 2.0},
    {"kind": "mesh", "width": "2"},
    [{"kind": "mesh", "width": 2}],
]
LEVELS = [[], [0], [0.0, 1.0], [2.0, 1.0], [1.0, 1.0], [NAN], [1e308], [5e-324, 1.0], [-1.0, 1.0], [1.0] * 10_000]
# The keys of each table, as docs/machines.md and docs/workloads.md give them, by the table's name (its last key
# in the document; "" for the top of a file): a hostile value is injected where the key is read,
# else the unknown key masks it. A phase's keys are the union over its kinds.
TABLE_KEYS = {
    "machine": [
        "name",
        "memory_latency_ns",
        "remote_memory_latency_ns",
        "lock_wake_us",
        "migration",
        "memory",
        "llc",
        "numa",
        "core_type",
        "rail",
        "interconnect",
    ],
    "core_type": [
        "name",
        "count",
        "freq_ghz",
        "cpi_scale",
        "uarch",
        "max_mlp",
        "power_active_w",
        "power_idle_w",
        "freq_levels_ghz",
        "start_freq_ghz",
        "power_levels_w",
        "cpus",
        "rail",
        # SMT and the reported capacity (docs/smt.md)
        "smt",
        "smt_sibling_speed",
        "capacity",
    ],
    "rail": ["name", "static_w", "memory", "pj_per_byte"],
    "interconnect": [
        "kind",
        "width",
        "height",
        "router_stages",
        "link_cycles",
        "vcs",
        "vc_buffer_flits",
        "flit_bytes",
        "line_bytes",
        "clock_ghz",
        "memory_controllers",
        "arbitration",
        "priority_levels",
        "progress_levels",
    ],
    "llc": ["size_kb", "cores"],
    "numa": ["cores"],
    "migration": ["cost_us"],
    "memory": ["bandwidth_gbps", "line_bytes"],
    "workload": ["name", "constant_load", "baseline", "app"],
    "app": [
        "name",
        "program",
        "runs",
        "arrival_s",
        "priority",
        "copies",
        "threads",
        "repeat",
        "phase",
        "group",
        "signature",
        "workers",
        "queue",
        "runtime",
        "step",
        "uclamp_min",
        "uclamp_max",
        "semaphore",
    ],
    "group": [
        "name",
        "count",
        "kind",
        "repeat",
        "phase",
        "program",
        "signature",
        "workers",
        "work",
        "uclamp_min",
        "uclamp_max",
        "start",
    ],
    "queue": ["name", "capacity"],
    "semaphore": ["name", "initial"],
    "phase": [
        "kind",
        "instructions",
        "cpi",
        "mlp",
        "llc_mpki",
        "miss_curve",
        "footprint_kb",
        "wait",
        "spin_limit_us",
        "spin_limit_iterations",
        "scope",
        "lock",
        "cs_instructions",
        "between_instructions",
        "count",
        "seconds",
        "input",
        "output",
        "items",
        "ordered",
        "io_seconds",
        # A critical phase's queue spinlock (docs/queue-spinlock.md).
        "max_spin",
        "relax_cycles",
        "sleep_prep_us",
        "wakeup_us",
        "home",
        "spin",
        # A recorded program's synchronisation (docs/workloads.md).
        "group",
        "semaphore",
        "barrier",
        "parties",
    ],
    # The task runtime (docs/task-runtime.md): an app's or program's options and steps.
    "runtime": ["scheduler", "immediate_successor", "main", "create_instructions", "queue_op_instructions"],
    "step": [
        "kind",
        "instructions",
        "count",
        "items",
        "after",
        "io_s",
        "cpi",
        "mlp",
        "llc_mpki",
        "miss_curve",
        "stage",
    ],
    "stage": ["instructions", "io_s", "ordered", "cpi", "llc_mpki"],
    "signature": ["cpi", "llc_mpki", "miss_curve"],
    "miss_curve": ["size_kb", "mpki"],
    "sweep": [
        "machines",
        "workloads",
        "policies",
        "seeds",
        "slice_ms",
        "max_sim_s",
        "max_events",
        "output",
        "override",
    ],
    "override": ["machines", "workloads", "policies", "seeds", "slice_ms", "max_sim_s", "max_events", "skip"],
}
WHOLE_KEYS = {
    "count",
    # A group's utilisation clamps (docs/workloads.md), 0..=1024
    "uclamp_min",
    "uclamp_max",
    # A named barrier's parties, a semaphore's initial count (docs/workloads.md)
    "parties",
    "initial",
    "copies",
    "threads",
    "runs",
    "repeat",
    "priority",
    "size_kb",
    "offset",
    "items",
    "capacity",
    "smt",
    # A critical phase's queue spinlock (docs/queue-spinlock.md)
    "max_spin",
    "relax_cycles",
    "home",
    # [interconnect]'s whole numbers (docs/noc.md)
    "width",
    "height",
    "router_stages",
    "link_cycles",
    "vcs",
    "vc_buffer_flits",
    "flit_bytes",
    "line_bytes",
    "priority_levels",
    "progress_levels",
}
VOCABULARY = sorted({k for keys in TABLE_KEYS.values() for k in keys})
UNKNOWN_KEYS = ["colour", "Name", "freq_Ghz", "count ", "x-y", "\u00e9", "", LONG[:200]]

SLICES = [
    "0",
    "-1",
    "1e-7",
    "0.1",
    "0.0999",
    "100",
    "100.0001",
    "1e308",
    "1e-400",
    "nan",
    "inf",
    "-inf",
    "0x10",
    "",
    " 4",
    "4_0",
    "1e13",
    "5e-324",
    "\u0664",
]
# Budgets a user might mistype; the valid ones are small, so none outlives the time bound.
BUDGETS = [["--max-sim-s", v] for v in ["0", "-1", "1e308", "nan", "inf", "2e9", "1e-300", "1", "x"]] + [
    ["--max-events", v] for v in ["0", "-1", "1.5", "1e308", "nan", "1e14", "18446744073709551616", "1", "x"]
]
SEEDS = ["-1", str(2**64), str(2**64 - 1), str(2**63), "0", "1e3", "", "007", "9" * 400, "0x10"]
# Bytes: not UTF-8, as a file name on Linux may be (Python hands them on as lone surrogates).
PATHS = [
    b"\xff",
    b"/tmp/m\xff.toml",
    "",
    "/",
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/proc/self/mem",
    "/nonexistent/m.toml",
    "a" * 5000,
    "catalog/machines",
    "dvfs-2x.toml",
    "DVFS-2X",
    "dvfs-2x ",
    "../dvfs-2x",
    "-",
    "\u00e9",
    # Mixes of catalog programs (runner::mix): bad options, windows past a program's end, the
    # most programs and one more, a whole program.
    "mix:",
    "mix:+",
    "mix:skip=nan:instructions=1e8:lbm",
    "mix:instructions=inf:lbm",
    "mix:skip=1e15:instructions=1e15:lbm",
    "mix:skip=-1:instructions=1e8:lbm",
    "mix:instructions=1e8:lbm:lbm",
    "mix:instructions=1e6:" + "+".join(["hmmer"] * 1024),
    "mix:instructions=1e6:" + "+".join(["hmmer"] * 1025),
    "mix:skip=1e9:instructions=1e7:lbm+gamess+mcf_2006",
    # Task-runtime options for a run (runner::task_options): unknown keys and values, no workload,
    # a workload without a task program, nesting.
    "tasks:",
    "tasks:scheduler=cats",
    "tasks:scheduler=lifo:demo",
    "tasks:main=medium:demo",
    "tasks:create_instructions=nan:demo",
    "tasks:scheduler=cats:demo",
    "tasks:scheduler=steal:tasks:main=big:demo",
    "mix:skip=1e9:instructions=1e7:lbm+swaptions",
]
OUTPUTS = [b"t\xff.json", "", "/", "/proc/version", "/nonexistent/dir/t.json", "/dev/full", "a" * 5000 + ".json"]
# A sweep file's grid values: names, lists, nestings, ranges a careless file holds.
GRID_VALUES = [
    "",
    ",",
    "dvfs-2x,dvfs-2x",
    ["dvfs-2x", "dvfs-2x"],
    [["dvfs-2x"]],
    [[[[[]]]]],
    ["rr", 5],
    [True],
    "1-0",
    "0-18446744073709551615",
    "1-100000000000",
    [-1],
    [2**64],
    [1.5],
    ["1-3", 2],
    "rr,no-such",
    "rr:threshold_ms=nan",
    "out.parquet",
    "/dev/null",
    "/",
    "s.toml",
    "out.parquet.parts",
    LONG[:300],
]


# ---- TOML out: the mutated documents are written back (tomllib reads only)


def _key(k):
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else _string(k)


def _string(s):
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)  # beyond i64 this is no TOML integer: a parse error, also a case
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML for {type(v).__name__}")


def _is_table_array(v):
    return isinstance(v, list) and v and all(isinstance(x, dict) for x in v)


def dump_toml(doc: dict) -> str:
    """`doc` as TOML: plain values first, then sub-tables and arrays of tables by full path."""
    out = []

    def table(d, path, header):
        if header:
            out.append(header)
        for k, v in d.items():
            if not (isinstance(v, dict) or _is_table_array(v)):
                out.append(f"{_key(k)} = {_value(v)}\n")
        for k, v in d.items():
            dotted = ".".join(_key(p) for p in path + [k])
            if isinstance(v, dict):
                table(v, path + [k], f"\n[{dotted}]\n")
            elif _is_table_array(v):
                for item in v:
                    table(item, path + [k], f"\n[[{dotted}]]\n")

    table(doc, [], None)
    return "".join(out)


# ---- mutations


def _slots(node, path=()):
    """Every (container, key, path) of a parsed document: each table key and each array item."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in list(items):
        yield node, k, path + (k,)
        yield from _slots(v, path + (k,))


def _tables(node, path=()):
    if isinstance(node, dict):
        yield node, path
    for container, k, p in _slots(node, path):
        if isinstance(container[k], dict):
            yield container[k], p


def show_path(path):
    """app[2].phase[0].cpi, the engine's own spelling of a key's place."""
    text = ""
    for p in path:
        text += f"[{p}]" if isinstance(p, int) else (("." if text else "") + p)
    return text or "(top)"


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def hostile_value(rng, key):
    """A value for `key` that a careless reader would mishandle."""
    if key in ("machines", "workloads", "policies", "seeds", "output") and rng.random() < 0.6:
        return copy.deepcopy(rng.choice(GRID_VALUES))
    if key in ("cores", "cpus"):
        return copy.deepcopy(rng.choice(CORE_LISTS))
    if key in ENUMS and rng.random() < 0.5:
        return rng.choice(ENUMS[key])
    if key == "miss_curve":
        return copy.deepcopy(rng.choice(MISS_CURVES))
    if key == "cpi" and rng.random() < 0.4:
        return copy.deepcopy(rng.choice(CPI_TABLES))
    if key in ("freq_levels_ghz", "power_levels_w"):
        return list(rng.choice(LEVELS))
    if key in ("phase", "group", "app", "core_type", "llc", "numa", "queue"):
        return rng.choice([[], [{}], [{"name": "x"}], [{"kind": "compute"}], [{"name": "q1", "capacity": 0}], {}, "x"])
    if key in ("step", "stage"):
        return copy.deepcopy(rng.choice(TASK_STEPS))
    if key == "runtime":
        return copy.deepcopy(rng.choice(RUNTIME_TABLES))
    if key in ("signature", "migration"):
        return rng.choice([{}, {"cpi": NAN}, {"cpi": 1.0, "llc_mpki": -1.0}, {"cost_us": 1e308}, {"cost_us": -1}])
    if key == "memory":
        return rng.choice(MEMORY_TABLES)
    if key == "interconnect":
        return copy.deepcopy(rng.choice(INTERCONNECT_TABLES))
    if key == "memory_controllers":
        return copy.deepcopy(rng.choice(CORE_LISTS + [[0], [2**63], [-1], [0, 0]]))
    roll = rng.random()
    if roll < 0.6:
        return rng.choice(INTEGERS if key in WHOLE_KEYS else FLOATS)
    if roll < 0.7:
        return rng.choice(NUMBERS)
    if roll < 0.85:
        return copy.deepcopy(rng.choice(WRONG_TYPES))
    return rng.choice(STRINGS)


def _m_number(rng, doc, role):
    slots = [s for s in _slots(doc) if _is_number(s[0][s[1]])]
    if not slots:
        return None
    container, k, path = rng.choice(slots)
    old = container[k]
    # Mostly of the same type, so that "expected an integer" does not stand in front of the check
    # of the value; a plausible-looking scale error now and then rather than a landmark value.
    same = INTEGERS if isinstance(old, int) else FLOATS
    roll = rng.random()
    if roll < 0.2:
        new = (
            old * 10 ** rng.choice([3, 6, 9, 12, 15])
            if isinstance(old, int)
            else old * 10.0 ** rng.choice([-12, -9, -6, 6, 9, 12, 15])
        )
    else:
        new = rng.choice(same if roll < 0.9 else NUMBERS)
    container[k] = new
    return f"{show_path(path)} = {_value(new)} (was {_value(old)})"


def _m_type(rng, doc, role):
    container, k, path = rng.choice(list(_slots(doc)))
    container[k] = new = copy.deepcopy(rng.choice(WRONG_TYPES + STRINGS[:3] + [0, -1, 1e308, NAN]))
    return f"{show_path(path)} = {_value(new)[:80]} (wrong type)"


def _m_string(rng, doc, role):
    slots = [s for s in _slots(doc) if isinstance(s[0][s[1]], str)]
    if not slots:
        return None
    container, k, path = rng.choice(slots)
    container[k] = new = (
        hostile_value(rng, k) if isinstance(k, str) and (k in ENUMS or k in ("cores", "cpus")) else rng.choice(STRINGS)
    )
    return f"{show_path(path)} = {_value(new)[:80]}"


def _m_cores(rng, doc, role):
    slots = [s for s in _slots(doc) if s[1] in ("cores", "cpus")]
    if not slots:
        return None
    container, k, path = rng.choice(slots)
    container[k] = new = copy.deepcopy(rng.choice(CORE_LISTS))
    return f"{show_path(path)} = {_value(new)[:80]}"


def _m_delete(rng, doc, role):
    container, k, path = rng.choice(list(_slots(doc)))
    del container[k]
    return f"deleted {show_path(path)}"


def _m_duplicate(rng, doc, role):
    """Repeat an entry of an array of tables: alike (duplicate names) or renamed (a big input)."""
    slots = [s for s in _slots(doc) if _is_table_array(s[0][s[1]])]
    if not slots:
        return None
    container, k, path = rng.choice(slots)
    array = container[k]
    entry = rng.randrange(len(array))
    times = rng.choice([1, 1, 2, 10, 100, 1000])
    renamed = rng.random() < 0.5 and "name" in array[entry]
    for n in range(times):
        clone = copy.deepcopy(array[entry])
        if renamed:
            clone["name"] = f"{clone['name']}-dup{n}"
        array.append(clone)
    return f"{show_path(path)}[{entry}] repeated {times}x{' renamed' if renamed else ''}"


def _m_empty(rng, doc, role):
    slots = [s for s in _slots(doc) if isinstance(s[0][s[1]], (list, dict))]
    if not slots:
        return None
    container, k, path = rng.choice(slots)
    container[k] = type(container[k])()
    return f"{show_path(path)} emptied"


def _m_unknown(rng, doc, role):
    table, path = rng.choice(list(_tables(doc)))
    key, value = rng.choice(UNKNOWN_KEYS), rng.choice([1, "x", True, [1]])
    if key in table:
        return None
    table[key] = value
    return f"{show_path(path + (key,))} = {_value(value)} (unknown key)"


def _table_name(path, role):
    names = [p for p in path if isinstance(p, str)]
    return names[-1] if names else role


def _m_inject(rng, doc, role):
    table, path = rng.choice(list(_tables(doc)))
    # Mostly a key this table reads; now and then one that belongs elsewhere.
    known = TABLE_KEYS.get(_table_name(path, role))
    key = rng.choice(known if known and rng.random() < 0.85 else VOCABULARY)
    table[key] = value = hostile_value(rng, key)
    return f"{show_path(path + (key,))} = {_value(value)[:80]} (injected)"


def _m_uarch(rng, doc, role):
    """The keys of docs/microarchitecture.md where they belong: a phase's `cpi` turned into a table
    (valid for the catalog's microarchitectures, not covering a machine's core types, or hostile),
    a phase's `mlp`, a core type's `uarch` or `max_mlp`."""
    phases = [(t, p) for t, p in _tables(doc) if _table_name(p, role) == "phase" or "kind" in t]
    types = [(t, p) for t, p in _tables(doc) if _table_name(p, role) == "core_type"]
    if not phases and not types:
        return None
    if types and (not phases or rng.random() < 0.4):
        table, path = rng.choice(types)
        key = rng.choice(["uarch", "max_mlp"])
        table[key] = value = hostile_value(rng, key) if rng.random() < 0.5 else rng.choice(["cortex-a7", 1, 4, 16.5])
    else:
        table, path = rng.choice(phases)
        key = rng.choice(["cpi", "cpi", "mlp"])
        value = copy.deepcopy(rng.choice(CPI_TABLES)) if key == "cpi" else hostile_value(rng, key)
        table[key] = value = value if rng.random() < 0.7 else rng.choice([1, 2.5, 8])
    return f"{show_path(path + (key,))} = {_value(value)[:80]} (microarchitecture)"


def _m_interconnect(rng, doc, role):
    """A machine's `[interconnect]` (docs/noc.md): a mesh fitting its cores (valid, so that the
    rest of the run goes on with a network), one of INTERCONNECT_TABLES, or a valid mesh with one
    key made hostile."""
    if role != "machine":
        return None
    cores = sum(
        t.get("count", 0) for t in doc.get("core_type", []) if isinstance(t, dict) and isinstance(t.get("count"), int)
    )
    roll = rng.random()
    if roll < 0.3 and 0 < cores <= 8100:
        width = next((w for w in (8, 4, 2, 1) if cores % w == 0 and cores // w <= 90), 1)
        table = {"kind": "mesh", "width": width, "height": cores // width}
        table["arbitration"] = rng.choice(["round_robin", "ocor"])
    elif roll < 0.6:
        table = copy.deepcopy(rng.choice(INTERCONNECT_TABLES))
    else:
        table = {"kind": "mesh", "width": 2}
        key = rng.choice(TABLE_KEYS["interconnect"])
        table[key] = hostile_value(rng, key)
    doc["interconnect"] = table
    return f"interconnect = {_value(table)[:80]} (network)"


def _m_smt(rng, doc, role):
    """A core type's SMT and reported capacity (docs/smt.md): valid (two-way SMT on an even count,
    a capacity in range), or broken the ways the format refuses: a count that is not a multiple of
    smt, smt_sibling_speed without smt (or smt without it), either out of range, a capacity out of
    1..1024."""
    types = [(t, p) for t, p in _tables(doc) if _table_name(p, role) == "core_type"]
    if role != "machine" or not types:
        return None
    table, path = rng.choice(types)
    count = table.get("count") if isinstance(table.get("count"), int) else 2
    breakage = rng.choice(
        ["none", "none", "odd count", "speed without smt", "smt without speed", "smt", "speed", "capacity"]
    )
    if breakage == "none":
        if count % 2 == 0:
            table.update(smt=2, smt_sibling_speed=rng.choice([0.1, 0.5, 0.62, 1.0]))
        table["capacity"] = rng.choice([1, 160, 512, 1024])
    elif breakage == "odd count":
        table.update(count=count | 1, smt=2, smt_sibling_speed=0.6)
    elif breakage == "speed without smt":
        table.pop("smt", None)
        table["smt_sibling_speed"] = 0.6
    elif breakage == "smt without speed":
        table.pop("smt_sibling_speed", None)
        table.update(count=count + count % 2, smt=2)
    elif breakage == "smt":
        table.update(smt=rng.choice([0, 3, 8, -1, 2**64, 1.5, 2.0, "2", True]), smt_sibling_speed=0.6)
    elif breakage == "speed":
        table.update(count=count + count % 2, smt=2, smt_sibling_speed=rng.choice([0, 0.05, 1.01, 2, -0.5, NAN, "0.6"]))
    else:
        table["capacity"] = rng.choice([0, 1025, -1, 2**32, 1.5, 1024.0, NAN, "1024"])
    shown = {k: table[k] for k in ("count", "smt", "smt_sibling_speed", "capacity") if k in table}
    return f"{show_path(path)} = {_value(shown)[:80]} (smt, {breakage} broken)"


def _pipeline(rng):
    """A three-stage pipeline app (docs/pipelines.md): a source, a pool, an ordered sink, two
    queues; its numbers now and then hostile."""

    def pick(valid, hostile):
        return rng.choice(hostile) if rng.random() < 0.25 else rng.choice(valid)

    def stage(**keys):
        return {"kind": "stage", "instructions": pick([1e5, 1e6], [0, -1, NAN, 1e16, "x"]), **keys}

    return {
        "name": "pipeline-fuzz",
        "queue": [
            {"name": "q1", "capacity": pick([1, 4, 2**20], [0, -1, 2**20 + 1, 1.5, NAN, "x", 2**64])},
            {"name": "q2", "capacity": pick([1, 16], [0, 2**31])},
        ],
        "group": [
            {
                "name": "read",
                "count": 1,
                "phase": [stage(output="q1", items=pick([1, 50], [0, 10**9 + 1, 1e9, -3, "x"]))],
            },
            {
                "name": "pool",
                "count": pick([2, "cores"], [0, "all", 2**18 + 1]),
                "phase": [stage(input="q1", output="q2", wait=pick(["block", "spin"], ["x", "spin_then_block"]))],
            },
            {
                "name": "write",
                "count": 1,
                "phase": [
                    stage(input="q2", ordered=pick([True, False], ["yes", 1]), io_seconds=pick([1e-5], [0, -1, 1e7]))
                ],
            },
        ],
    }


def _m_pipeline(rng, doc, role):
    """A pipeline app added to a workload, then (mostly) broken the ways docs/pipelines.md refuses: a
    queue without producer or consumer, two stages at one end, a cycle, an unknown name, items on a
    later stage, an ordered pool, a repeat that does not divide the items."""
    if role != "workload" or not isinstance(doc.get("app"), list):
        return None
    app = _pipeline(rng)
    read, pool, write = (g["phase"][0] for g in app["group"])
    breakage = rng.choice(
        [
            "none",
            "no producer",
            "no consumer",
            "two consumers",
            "cycle",
            "unknown queue",
            "items later",
            "no items",
            "ordered pool",
            "repeat",
            "self loop",
            "queues in a program-less simple app",
        ]
    )
    if breakage == "no producer":
        del read["output"]
    elif breakage == "no consumer":
        del write["input"]
    elif breakage == "two consumers":
        app["group"].append(copy.deepcopy(app["group"][2]) | {"name": "write2"})
    elif breakage == "cycle":
        read.update(input="q2")
        del read["items"]
    elif breakage == "unknown queue":
        pool["output"] = "q3"
    elif breakage == "items later":
        pool["items"] = 5
    elif breakage == "no items":
        del read["items"]
    elif breakage == "ordered pool":
        pool["ordered"] = True
    elif breakage == "repeat":
        app["group"][1]["repeat"] = 7
    elif breakage == "self loop":
        pool["output"] = "q1"
    elif breakage == "queues in a program-less simple app":
        app = {"name": "pipeline-fuzz", "threads": 2, "queue": app["queue"], "phase": [read, write]}
    doc["app"].append(app)
    return f"app[{len(doc['app']) - 1}] = a pipeline, {breakage} broken"


def _m_queue_spinlock(rng, doc, role):
    """A critical phase turned into a queue spinlock (docs/queue-spinlock.md), its keys valid or
    hostile: on a machine without a mesh a one-line error naming the machine, on a mesh a run."""
    if role != "workload" or not isinstance(doc.get("app"), list):
        return None
    critical = [(t, p) for t, p in _tables(doc) if t.get("kind") == "critical"]
    if not critical:
        # Most catalog workloads name programs, whose critical phases are not in the file: a
        # lock-bound app is added, as a queue spinlock's program has one (catalog/programs/nocbench.toml).
        phase = {"kind": "critical", "lock": "fuzz", "cs_instructions": 1000, "between_instructions": 10000}
        phase.update({"count": 2, "cpi": 1.0, "llc_mpki": 0.5})
        doc["app"].append({"name": "locks-fuzz", "threads": 4, "phase": [phase]})
        critical = [(phase, ("app", len(doc["app"]) - 1, "phase", 0))]
    table, path = rng.choice(critical)
    table["wait"] = rng.choice(["queue_spinlock"] * 4 + ["spin"])
    valid = {
        "max_spin": [1, 16, 128],
        "relax_cycles": [0, 10],
        "sleep_prep_us": [0, 1.5],
        "wakeup_us": [0, 5.0],
        "home": [0, 3, 63],
        "spin": ["ttas", "tas"],
    }
    for key in rng.sample(sorted(valid), rng.randint(1, 3)):
        table[key] = rng.choice(valid[key]) if rng.random() < 0.6 else hostile_value(rng, key)
    return f"{show_path(path)} = a queue spinlock ({', '.join(f'{k}={_value(table[k])[:20]}' for k in valid if k in table)})"


def _m_uclamp(rng, doc, role):
    """An app's or group's utilisation clamps (docs/workloads.md), valid or hostile: 0..=1024, min
    <= max, whole numbers; with [[app.group]] only per group."""
    if role != "workload" or not isinstance(doc.get("app"), list) or not doc["app"]:
        return None
    i = rng.randrange(len(doc["app"]))
    app = doc["app"][i]
    if not isinstance(app, dict):
        return None
    groups = app.get("group") if isinstance(app.get("group"), list) else None
    table, path = app, ("app", i)
    if groups and rng.random() < 0.8 and isinstance(groups[0], dict):
        j = rng.randrange(len(groups))
        if isinstance(groups[j], dict):
            table, path = groups[j], ("app", i, "group", j)
    valid = [0, 100, 512, 700, 1024]
    for key in rng.sample(["uclamp_min", "uclamp_max"], rng.randint(1, 2)):
        table[key] = (
            rng.choice(valid) if rng.random() < 0.6 else rng.choice([1025, -1, 0.5, "big", hostile_value(rng, key)])
        )
    return f"{show_path(path)} = uclamp ({', '.join(f'{k}={_value(table[k])[:20]}' for k in ('uclamp_min', 'uclamp_max') if k in table)})"


def _recorded_sync(rng):
    """A recorded program's app (docs/workloads.md, recorded programs' synchronisation): main
    spawns a worker, hands it two items through a semaphore, meets it at a named barrier and joins
    it; its numbers now and then hostile (seldom: each of its eight picks could, and the breakage
    _m_recorded_sync chooses must be what most cases meet first)."""

    def pick(valid, hostile):
        return rng.choice(hostile) if rng.random() < 0.04 else rng.choice(valid)

    def compute():
        return {"kind": "compute", "instructions": pick([1e5, 1e6], [0, -1, NAN, 1e16, "x"])}

    def barrier():
        return {"kind": "barrier", "barrier": "b", "parties": 2}

    wait = pick(["block", "spin", "spin_then_block"], ["", "forever", "queue_spinlock"])
    join = {"kind": "join", "group": "worker", "wait": wait}
    if wait == "spin_then_block":
        join["spin_limit_us"] = pick([10, 100], [0, -1, 1e7])
    main = [compute(), {"kind": "spawn", "group": "worker"}, compute()]
    main += [{"kind": "sem_post", "semaphore": "items", "count": pick([2], [0, -2, 2**31, 1.5])}, barrier(), join]
    worker = [{"kind": "sem_wait", "semaphore": "items"}, compute(), {"kind": "sem_wait", "semaphore": "items"}]
    worker += [barrier()]
    return {
        "name": "recorded-fuzz",
        "semaphore": [{"name": "items", "initial": pick([0, 1], [-1, 2**31, 0.5, "x"])}],
        "group": [
            {"name": "main", "count": 1, "phase": main},
            {"name": "worker", "start": pick(["spawned"], ["later", "", 1]), "phase": worker},
        ],
    }


def _m_recorded_sync(rng, doc, role):
    """A recorded program's app added to a workload, then (mostly) broken the ways
    docs/workloads.md refuses at reading (an unknown group, a spawned group spawned never or
    twice, a spawn in a repeated or many-threaded group, parties that disagree, a barrier with a
    scope too, a join of itself, a semaphore waited for but never posted, a spawn cycle, the
    phases in an app without groups) or at run (a semaphore posted too few times: a deadlock)."""
    if role != "workload" or not isinstance(doc.get("app"), list):
        return None
    app = _recorded_sync(rng)
    main, worker = (g["phase"] for g in app["group"])
    breakage = rng.choice(
        [
            "none",
            "none",
            "unknown group",
            "never spawned",
            "spawned twice",
            "spawn repeated",
            "spawn by three",
            "parties disagree",
            "barrier and scope",
            "join itself",
            "never posted",
            "unused semaphore",
            "spawn cycle",
            "no groups",
            "posted too few (deadlock)",
        ]
    )
    if breakage == "unknown group":
        main[1]["group"] = "nobody"
    elif breakage == "never spawned":
        del main[1]
    elif breakage == "spawned twice":
        main.insert(2, {"kind": "spawn", "group": "worker"})
    elif breakage == "spawn repeated":
        app["group"][0]["repeat"] = 2
    elif breakage == "spawn by three":
        app["group"][0]["count"] = 3
    elif breakage == "parties disagree":
        worker[-1]["parties"] = 3
    elif breakage == "barrier and scope":
        worker[-1]["scope"] = "app"
    elif breakage == "join itself":
        main[-1]["group"] = "main"
    elif breakage == "never posted":
        main[3] = {"kind": "compute", "instructions": 1e5}
        app["semaphore"][0]["initial"] = 0
    elif breakage == "unused semaphore":
        app["semaphore"][0]["name"] = "spare"
    elif breakage == "spawn cycle":
        worker.append({"kind": "spawn", "group": "helper"})
        app["group"][1]["start"] = "spawned"
        helper = [{"kind": "compute", "instructions": 1e5}, {"kind": "spawn", "group": "worker"}]
        app["group"].append({"name": "helper", "start": "spawned", "phase": helper})
        del main[1]
    elif breakage == "no groups":
        app = {"name": "recorded-fuzz", "threads": 2, "phase": worker}
    elif breakage == "posted too few (deadlock)":
        main[3]["count"] = 1
        app["semaphore"][0]["initial"] = 0
    doc["app"].append(app)
    return f"app[{len(doc['app']) - 1}] = a recorded program's synchronisation, {breakage} broken"


DOC_MUTATIONS = [
    (_m_recorded_sync, 12),
    (_m_uclamp, 6),
    (_m_pipeline, 5),
    (_m_queue_spinlock, 4),
    (_m_interconnect, 5),
    (_m_uarch, 6),
    (_m_smt, 12),
    (_m_number, 30),
    (_m_type, 10),
    (_m_string, 8),
    (_m_cores, 6),
    (_m_delete, 10),
    (_m_duplicate, 8),
    (_m_empty, 5),
    (_m_unknown, 5),
    (_m_inject, 18),
]


def _t_truncate(rng, data):
    cut = rng.randrange(len(data) + 1) if data else 0
    return data[:cut], f"truncated at byte {cut} of {len(data)}"


def _t_empty(rng, data):
    return rng.choice([b"", b"\n", b"   \n\t\n", b"# only a comment\n"]), "emptied"


def _t_bad_utf8(rng, data):
    at = rng.randrange(len(data) + 1)
    junk = rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"])
    return data[:at] + junk + data[at:], f"invalid UTF-8 {junk!r} at byte {at}"


def _t_nul(rng, data):
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\x00" + data[at:], f"NUL at byte {at}"


def _t_dup_line(rng, data):
    lines = data.splitlines(keepends=True)
    keyed = [i for i, line in enumerate(lines) if re.match(rb"\s*[A-Za-z_]+\s*=", line)]
    if not keyed:
        return None
    i = rng.choice(keyed)
    lines.insert(i + 1, lines[i] if lines[i].endswith(b"\n") else lines[i] + b"\n")
    return b"".join(lines), f"line {i + 1} repeated (a duplicate key)"


def _t_bytes(rng, data):
    if not data:
        return None
    at = rng.randrange(len(data))
    new = rng.randrange(256)
    return data[:at] + bytes([new]) + data[at + 1 :], f"byte {at} set to {new:#04x}"


def _t_framing(rng, data):
    choice = rng.choice(["bom", "crlf", "cr"])
    if choice == "bom":
        return b"\xef\xbb\xbf" + data, "a UTF-8 byte order mark in front"
    return data.replace(b"\n", b"\r\n" if choice == "crlf" else b"\r"), f"line ends {choice.upper()}"


def _t_huge(rng, data):
    # Just past the 16 MiB limit docs/cli.md promises, or a huge comment just under it.
    size = rng.choice([16 << 20, (16 << 20) + 1])
    return data + b"\n#" + b"x" * (size - len(data) - 2), f"padded to {size} bytes with a comment"


def _t_deep(rng, data):
    # Arrays nested past what a recursive parser takes (tomllib: ~1000 deep).
    depth = rng.choice([100, 500, 1000, 5000])
    return data + f"\nzz = {'[' * depth}{']' * depth}\n".encode(), f"an array nested {depth} deep"


TEXT_MUTATIONS = [
    (_t_truncate, 10),
    (_t_empty, 4),
    (_t_bad_utf8, 8),
    (_t_nul, 3),
    (_t_dup_line, 5),
    (_t_bytes, 8),
    (_t_framing, 3),
    (_t_huge, 1),
    (_t_deep, 2),
]


def _pick(rng, weighted):
    return rng.choices([f for f, _ in weighted], weights=[w for _, w in weighted])[0]


def mutate_file(rng, raw: bytes, role):
    """The file's hostile variant and what was done to it."""
    done = []
    data = raw
    if rng.random() < 0.7:  # structural: parse, change, write back (comments go)
        doc = tomllib.loads(raw.decode("utf-8"))
        for _ in range(rng.choice([1, 1, 1, 1, 1, 1, 2, 3])):  # one, mostly: a first error masks the next
            for _attempt in range(20):
                what = _pick(rng, DOC_MUTATIONS)(rng, doc, role)
                if what:
                    done.append(what)
                    break
        data = dump_toml(doc).encode("utf-8")
    if not done or rng.random() < 0.15:  # textual, on the original text or the rewritten one
        for _attempt in range(20):
            changed = _pick(rng, TEXT_MUTATIONS)(rng, data)
            if changed:
                data, what = changed
                done.append(what)
                break
    return data, done


# ---- policy specs


def hostile_policy(rng, policies):
    """A policy spec from `policies` ({name: {option: default}}) with a hostile option, or junk."""
    roll = rng.random()
    if roll < 0.2:
        return rng.choice(
            [
                "",
                ":",
                "::",
                "no-such-policy",
                "rr:",
                "rr::",
                "rr:=",
                "rr:=5",
                "rr:threshold_ms",
                "rr:threshold_ms=1:threshold_ms=2",
                "RR",
                " rr",
                "rr ",
                "rr,busyfcs",
                LONG,
                "rr:" + ":".join(f"k{i}=1" for i in range(1000)),
                "nonexistent.py:Policy",
                "/dev/null:Policy",
                "catalog/machines/dvfs-2x.toml:X",
                ".py:",
                "x.py",
            ]
        )
    name = rng.choice(sorted(policies))
    options = sorted(policies[name])
    if roll < 0.3 or not options:
        key = rng.choice(["no_such_option", "", "quantum ms", LONG[:100]])
    else:
        key = rng.choice(options)
    value = rng.choice(SLICES + SEEDS + ["true", "false", "yes", "fast", "", "1,2", "0-3", "1e-7", "\udcff"])
    # As bytes, so that a lone surrogate reaches the CLI as the invalid UTF-8 it stands for.
    return os.fsencode(f"{name}:{key}={value}")


# ---- cases


@dataclass
class Case:
    seed: int
    index: int
    argv: list  # str or bytes; "{machine}", "{workload}", "{sweep}" stand for the case's files
    files: dict = field(default_factory=dict)  # role -> bytes (written as ROLE.toml)
    bases: dict = field(default_factory=dict)  # role -> catalog file the variant came from (None: none)
    mutations: list = field(default_factory=list)
    # The surfaces beyond the engine's inputs (sweep files, part files, Python policies, outputs):
    extra: dict = field(default_factory=dict)  # relative path -> bytes, written as they are
    setup: list = field(default_factory=list)  # ("fifo", path) | ("symlink", path, target) | ("dir", path)
    unchanged: dict = field(default_factory=dict)  # relative path -> the bytes it must still hold
    fifos: list = field(default_factory=list)  # paths that must still be FIFOs afterwards
    failed_runs_ok: bool = False  # a sweep: exit 1 with its summary line (runs failed, recorded) is an end too

    @property
    def label(self):
        return f"seed {self.seed} case {self.index}"


def catalog_files():
    """{"machine": {name: path}, "workload": {name: path}} from the catalog."""
    found = {}
    for role, folder in (("machine", "machines"), ("workload", "workloads")):
        directory = os.path.join(CATALOG, folder)
        found[role] = {f[:-5]: os.path.join(directory, f) for f in sorted(os.listdir(directory)) if f.endswith(".toml")}
    return found


def make_case(seed, index, catalog, policies, resume=None):
    rng = random.Random(f"ampsched-fuzz:{seed}:{index}")
    target = rng.choices(
        ["machine", "workload", "options", "both", "sweep", "resume", "policy", "output"],
        weights=[30, 30, 14, 5, 7, 4, 6, 4],
    )[0]
    case = Case(seed, index, [])
    if target in SURFACES:
        SURFACES[target](rng, case, resume)
        return case
    mutated = {"machine": target in ("machine", "both"), "workload": target in ("workload", "both")}
    # The mutated file comes from anywhere in the catalog; its partner is small and quick.
    machine = rng.choice(sorted(catalog["machine"]) if mutated["machine"] else SMALL_MACHINES)
    workload = rng.choice(sorted(catalog["workload"]) if mutated["workload"] else QUICK_WORKLOADS)
    quick = machine in SMALL_MACHINES and workload in QUICK_WORKLOADS
    args = {}
    for role, name in (("machine", machine), ("workload", workload)):
        if mutated[role]:
            with open(catalog[role][name], "rb") as f:
                data, done = mutate_file(rng, f.read(), role)
            case.files[role], case.bases[role] = data, name
            case.mutations += [f"{role} {name}: {d}" for d in done]
            args[role] = "{" + role + "}"
        else:
            args[role] = name

    policy_names = CHEAP_POLICIES + (COSTLY_POLICIES if quick else [])
    command = "compare" if rng.random() < 0.2 else "run"
    options = []
    if command == "run":
        policy = rng.choice(policy_names)
        options += ["--policy", policy]
    else:
        chosen = rng.sample(CHEAP_POLICIES, 2)
        options += ["--policies", ",".join(chosen)]
        # The workload's own baseline (the thesis ones name "default": every rotation runs) only
        # on quick pairs; else one of the policies, so no big default metric is computed.
        if not quick or rng.random() < 0.5:
            options += ["--baseline", rng.choice(chosen)]
    if rng.random() < 0.5:
        options.append("--json")
    options += ["--max-events", CASE_MAX_EVENTS]

    if target == "options":
        for _ in range(rng.choice([1, 1, 2])):
            option = rng.choice(
                ["slice", "seed", "policy", "policy", "machine", "workload", "output", "baseline", "budget", "power"]
            )
            if option == "power":
                if command == "run":
                    value = ["--power-trace", rng.choice(POWER_TRACES)]
                else:
                    args["machine"] = rng.choice(MACHINE_CONFIGS)
                    case.mutations.append(f"--machine {args['machine']!r}")
                    continue
            elif option == "budget":
                value = rng.choice(BUDGETS)
            elif option == "slice":
                value = ["--slice-ms", rng.choice(SLICES)]
            elif option == "seed":
                value = ["--seed", rng.choice(SEEDS)]
            elif option == "policy":
                spec = hostile_policy(rng, policies)
                value = ["--policy", spec] if command == "run" else ["--policies", spec]
            elif option == "baseline" and command == "compare":
                value = ["--baseline", hostile_policy(rng, policies)]
            elif option in ("machine", "workload"):
                args[option] = rng.choice(PATHS)
                case.mutations.append(f"--{option} {args[option][:80]!r}")
                continue
            else:
                value = ["--trace" if command == "run" else "--report", rng.choice(OUTPUTS)]
            options += value  # a repeated option: argparse takes the last, as it would from a user
            case.mutations.append(f"{value[0]} {value[1][:80]!r}")
    case.argv = [command, "--machine", args["machine"], "--workload", args["workload"]] + options
    return case


def materialize(case, directory):
    """Write the case's files into `directory` and make its FIFOs and links; the argv that runs them."""
    for role, data in case.files.items():
        with open(os.path.join(directory, f"{role}.toml"), "wb") as f:
            f.write(data)
    for path, data in case.extra.items():
        os.makedirs(os.path.dirname(os.path.join(directory, path)), exist_ok=True)
        with open(os.path.join(directory, path), "wb") as f:
            f.write(data)
    for kind, path, *target in case.setup:
        full = os.path.join(directory, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if kind == "fifo":
            os.mkfifo(full)
        elif kind == "dir":
            os.makedirs(full, exist_ok=True)
        else:
            os.symlink(target[0] if os.path.isabs(target[0]) else os.path.join(directory, target[0]), full)
    return _argv_in(case, directory)


def _argv_in(case, directory):
    """The case's argv with its files in `directory` (where it ran, or where it is kept)."""
    roles = {"{" + role + "}" for role in case.files}
    return [os.path.join(directory, f"{a[1:-1]}.toml") if isinstance(a, str) and a in roles else a for a in case.argv]


# ---- beyond the engine's inputs: sweep files, damaged part files, Python policies, outputs
#
# Each makes a case of its own kind. The expected end is the same (exit 0, or exit 2 with one
# line; a sweep may also end in exit 1 with its summary line when runs failed and were recorded),
# plus what must hold of files afterwards: a resumed sweep gives the uninterrupted sweep's bytes,
# a symlink's target and a FIFO are never written.

SWEEP_BASE = """machines = ["dvfs-2x"]
workloads = ["demo", "forkjoin"]
policies = ["rr", "busyfcs"]
seeds = "1-2"
max_events = 3e6
output = "out.parquet"

[[override]]
workloads = ["forkjoin"]
slice_ms = 8

[[override]]
policies = ["busyfcs"]
seeds = [2]
skip = true
"""
# The grid of the resume cases: its uninterrupted sweep is made once per fuzz run (reference_sweep).
RESUME_GRID = [
    "--machines",
    "dvfs-2x",
    "--workloads",
    "demo,forkjoin",
    "--policies",
    "rr,busyfcs",
    "--seeds",
    "1-3",
    "--max-events",
    CASE_MAX_EVENTS,
]
SMALL_SWEEP = ["--machines", "dvfs-2x", "--workloads", "demo", "--policies", "rr", "--max-events", CASE_MAX_EVENTS]


def _sweep_file_case(rng, case, _resume):
    data, done = mutate_file(rng, SWEEP_BASE.encode(), "sweep")
    case.files["sweep"], case.bases["sweep"] = data, None
    case.mutations += [f"sweep file: {d}" for d in done]
    case.argv = ["sweep", "{sweep}"] + rng.choice([[], ["--jobs", "1"], ["--jobs", "2"], ["--resume"], ["--force"]])
    case.failed_runs_ok = True


def reference_sweep(command, env):
    """(table, bytes) of RESUME_GRID's uninterrupted sweep: what every resume case must end with."""
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory(prefix="ampsched-fuzz-reference-") as directory:
        out = os.path.join(directory, "ref.parquet")
        subprocess.run(
            command + ["sweep", *RESUME_GRID, "--output", out, "--jobs", "1"],
            env=env,
            check=True,
            capture_output=True,
            timeout=300,
        )
        with open(out, "rb") as f:
            return pq.read_table(out), f.read()


def _ipc(table):
    import hashlib

    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    data = sink.getvalue().to_pybytes()
    return data, hashlib.sha256(data).hexdigest()


def _resume_case(rng, case, resume):
    """What a killed sweep leaves (part files of some of its rows, maybe a half-written .tmp, maybe
    the final file written but its parts not yet removed), damaged: --resume must give the
    uninterrupted sweep's bytes."""
    import pyarrow.parquet as pq

    table, reference = resume
    rows = table.num_rows
    cuts = sorted(rng.sample(range(1, rows), rng.randrange(1, 4)))
    pieces = [(a, b) for a, b in zip([0] + cuts, cuts + [rows]) if rng.random() < 0.7]
    parts = []
    for n, (a, b) in enumerate(pieces):
        data, digest = _ipc(table.slice(a, b - a))
        parts.append([f"out.parquet.parts/part-{n}.{digest}.arrow", data])
    for _ in range(rng.choice([1, 1, 2])):
        damage = rng.choice(["bit", "byte", "truncate", "no-checksum", "junk", "tmp", "empty", "delete", "final"])
        if damage in ("bit", "byte", "truncate", "no-checksum", "empty", "delete") and not parts:
            damage = "junk"
        if damage in ("bit", "byte", "truncate", "empty"):
            part = rng.choice(parts)
            data = bytearray(part[1])
            if not data:  # already emptied by an earlier damage
                continue
            at = rng.randrange(len(data))
            if damage == "bit":
                data[at] ^= 1 << rng.randrange(8)
            elif damage == "byte":
                data[at] = (data[at] + rng.randrange(1, 256)) % 256
            part[1] = bytes(data[:at]) if damage == "truncate" else b"" if damage == "empty" else bytes(data)
            case.mutations.append(f"{part[0]}: {damage} at byte {at}")
        elif damage == "no-checksum":
            part = rng.choice(parts)
            part[0] = re.sub(r"\.[0-9a-f]{64}\.arrow$", ".arrow", part[0])
            case.mutations.append(f"{part[0]}: renamed without its checksum")
        elif damage == "delete":
            part = parts.pop(rng.randrange(len(parts)))
            case.mutations.append(f"{part[0]}: deleted")
        elif damage == "junk":
            name = f"out.parquet.parts/part-j.{'0' * 64}.arrow"
            parts.append([name, bytes(rng.randrange(256) for _ in range(rng.choice([0, 8, 300])))])
            case.mutations.append(f"{name}: junk")
        elif damage == "tmp":
            name = "out.parquet.parts/part-t.arrow.tmp"
            parts.append([name, b"ARROW1" + bytes(rng.randrange(256) for _ in range(50))])
            case.mutations.append(f"{name}: a half-written part")
        else:  # killed between writing the final file and removing the parts: a part of its rows written
            import io

            a = rng.randrange(rows)
            sink = io.BytesIO()
            pq.write_table(table.slice(0, a + 1), sink)
            case.extra["out.parquet"] = sink.getvalue()
            case.mutations.append(f"out.parquet: its first {a + 1} rows")
    case.extra.update((name, data) for name, data in parts)
    if not parts:
        case.setup.append(("dir", "out.parquet.parts"))
    case.argv = ["sweep", *RESUME_GRID, "--output", "out.parquet", "--resume", "--jobs", rng.choice(["1", "2"])]
    case.unchanged["out.parquet"] = reference  # checked after exit 0: the uninterrupted sweep's bytes


# A policy's `decide`, after `after` calls: each a way a user's code goes wrong.
POLICY_BEHAVIOURS = {
    "sleeps": "time.sleep(1e6)",
    "spins": "while True:\n                pass",
    "system-exit": "raise SystemExit(0)",
    "base-exception": "raise Mine('a BaseException of its own')",
    "generator-exit": "raise GeneratorExit()",
    "recursion": "f = lambda: f()\n            f()",
    "memory": "bytearray(1 << 40)",
    "bad-placement": "p = ampsched.Placement()\n            p.set(10 ** 9, [0])\n            return p",
    "returns-junk": "return 'fast please'",
    # These end the process that runs the policy: in a sweep that is a worker; run and compare
    # run the policy in their own process (a policy is the user's code), so only sweeps get them.
    "exits": "os._exit(0)",
    "exits-3": "os._exit(3)",
    "killed": "os.kill(os.getpid(), signal.SIGKILL)",
}
PROCESS_ENDING = {"exits", "exits-3", "killed"}
POLICY_SOURCE = """import os
import signal
import time

import ampsched


class Mine(BaseException):
    pass


class P(ampsched.Policy):
    quantum_ms = {quantum}
    calls = 0

    def decide(self, view):
        self.calls += 1
        if self.calls > {after}:
            {body}
"""


def _policy_case(rng, case, _resume):
    behaviour = rng.choice(sorted(POLICY_BEHAVIOURS))
    after, quantum = rng.choice([0, 0, 1, 5]), rng.choice([1, 10, 1e-9, 0.05])
    case.extra["policy.py"] = POLICY_SOURCE.format(
        quantum=quantum, after=after, body=POLICY_BEHAVIOURS[behaviour]
    ).encode()
    case.mutations.append(f"policy.py: decide {behaviour} after {after} calls (quantum_ms {quantum})")
    command = "sweep" if behaviour in PROCESS_ENDING else rng.choice(["run", "compare", "sweep"])
    spec = "policy.py:P"
    if command == "run":
        case.argv = ["run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", spec]
    elif command == "compare":
        case.argv = ["compare", "--machine", "dvfs-2x", "--workload", "demo", "--policies", f"rr,{spec}"]
    else:
        case.argv = [
            "sweep",
            "--machines",
            "dvfs-2x",
            "--workloads",
            "demo",
            "--policies",
            f"rr,{spec}",
            "--output",
            "out.parquet",
            "--jobs",
            rng.choice(["1", "2"]),
        ]
        case.failed_runs_ok = True
    case.argv += ["--max-events", CASE_MAX_EVENTS]


OUTPUT_COMMANDS = {
    "run": (
        ["run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr", "--max-events", CASE_MAX_EVENTS],
        "--trace",
    ),
    "compare": (
        [
            "compare",
            "--machine",
            "dvfs-2x",
            "--workload",
            "demo",
            "--policies",
            "rr,busyfcs",
            "--max-events",
            CASE_MAX_EVENTS,
        ],
        "--report",
    ),
    "topology": (["topology", "--cores", "0-1"], "--save"),
    "sweep": (["sweep", *SMALL_SWEEP], "--output"),
}


def _output_case(rng, case, _resume):
    """An output that must not be written through: a FIFO, a symlink (to a file of the user's, to
    nowhere, to a directory), a directory."""
    case.extra["victim.txt"] = b"the user's own file\n"
    case.unchanged["victim.txt"] = case.extra["victim.txt"]
    command = rng.choice(sorted(OUTPUT_COMMANDS) + ["reproduce"])
    if command == "reproduce":
        name = rng.choice(["d/thesis-uf.md", "d/thesis-uf-fig6-1.png"])
        argv = ["reproduce", "thesis-uf", "--quick", "--output", "d"]
    else:
        name = "out.x"
        argv, option = OUTPUT_COMMANDS[command]
        argv = argv + [option, name] + (rng.choice([[], ["--force"], ["--resume"]]) if command == "sweep" else [])
    kind = rng.choice(["fifo", "symlink", "dangling", "dir-link", "dir"])
    if kind == "fifo":
        case.setup.append(("fifo", name))
        case.fifos.append(name)
    elif kind == "symlink":
        case.setup.append(("symlink", name, "victim.txt"))
    elif kind == "dangling":
        case.setup.append(("symlink", name, "nowhere/at/all"))
    elif kind == "dir-link":
        case.setup.append(("dir", "somedir"))
        case.setup.append(("symlink", name, "somedir"))
    else:
        case.setup.append(("dir", name))
    case.mutations.append(f"{' '.join(argv[:2])}: {name} is a {kind}")
    case.argv = argv


SURFACES = {"sweep": _sweep_file_case, "resume": _resume_case, "policy": _policy_case, "output": _output_case}


# ---- running and judging


@dataclass
class Outcome:
    case: Case
    argv: list
    returncode: int = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False
    problem: str = None  # None: the case ended as issue 10 asks


def limit_child():
    # Runs in the child between fork and exec (a single-threaded parent: see run_cases).
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


CRASH_MARKS = [
    "Traceback",
    "panicked",
    "memory allocation",
    "RUST_BACKTRACE",
    "Segmentation",
    "core dumped",
    "fatal runtime error",
]
# Every error, argparse's own included (the CLI's parser prints them as one line too).
ONE_LINE = re.compile(r"ampsched: error: \S.{4,}")


def _finite_numbers(value, path="result"):
    """Where the JSON holds a number that is not finite or a null metric (serde writes NaN as null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return path
    if isinstance(value, dict):
        for k, v in value.items():
            bad = _finite_numbers(v, f"{path}.{k}")
            if bad:
                return bad
    if isinstance(value, list):
        for i, v in enumerate(value[:10_000]):
            bad = _finite_numbers(v, f"{path}[{i}]")
            if bad:
                return bad
    return None


def check_files(case, directory):
    """What the case did to files it must not change, or None."""
    for path, data in case.unchanged.items():
        full = os.path.join(directory, path)
        try:
            with open(full, "rb") as f:
                now = f.read()
        except OSError as error:
            return f"{path} is gone ({error.strerror})"
        if now != data:
            return f"{path} changed ({len(data)} bytes before, {len(now)} after)"
    for path in case.fifos:
        if not os.path.exists(os.path.join(directory, path)) or not stat.S_ISFIFO(
            os.lstat(os.path.join(directory, path)).st_mode
        ):
            return f"the FIFO {path} was replaced"
    return None


def judge(outcome):
    """What is wrong with how the case ended, or None."""
    o = outcome
    if o.timed_out:
        return f"no end within {TIMEOUT_S:g} s (killed)"
    if o.returncode < 0:
        return f"killed by {signal.Signals(-o.returncode).name}"
    for mark in CRASH_MARKS:
        if mark in o.stderr:
            return f"crash text {mark!r} on stderr"
    err = o.stderr.strip("\n")
    if o.returncode == 0:
        if "error" in err:
            return "exit 0 with an error on stderr"
        if "--json" in o.argv:
            try:
                parsed = json.loads(o.stdout, parse_constant=lambda c: float(c))
            except ValueError as error:
                return f"exit 0 but --json printed no JSON ({error})"
            bad = _finite_numbers(parsed)
            if bad:
                return f"exit 0 with a non-finite number at {bad}"
        return None
    if (
        o.returncode == 1
        and o.case.failed_runs_ok
        and re.fullmatch(r"(.*\n)?ampsched: sweep: \d+ runs, [1-9]\d* failed, .*", err, re.S)
        and "error" not in err.lower()
    ):
        return None  # a sweep whose failed runs are recorded in its file, and said in its last line
    if o.returncode != 2:
        return f"exit status {o.returncode}"
    if o.stdout.strip():
        return "exit 2 with output on stdout"
    # A sweep that started says first how many runs it makes (its count line); an error after
    # that is still the one error line.
    if o.case.failed_runs_ok:
        err = re.sub(r"\Aampsched: sweep: [^\n]* = \d+ runs?\n", "", err)
    if ONE_LINE.fullmatch(err):
        return None
    lines = err.splitlines()
    return f"exit 2 but stderr is {len(lines)} lines, not one 'ampsched: error: ...' line"


def engine_command():
    """How to start the CLI: this interpreter's `-m ampsched`, with its ampsched importable."""
    from conftest import env_with_package

    env = env_with_package()
    env.pop("RUST_BACKTRACE", None)  # a panic must show as what a user sees
    return [sys.executable, "-m", "ampsched"], env


def list_policies(command, env):
    done = subprocess.run(
        command + ["list", "policies", "--json"], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    return {p["name"]: p.get("options") or {} for p in json.loads(done.stdout)}


def run_cases(cases, workdir, command, env, jobs=2, progress=None):
    """Run every case, `jobs` at a time. One thread polls the children (preexec_fn is safe only
    without other threads), and output goes to files, so a big --json never blocks on a pipe."""
    pending = list(reversed(cases))
    running = {}
    outcomes = []
    while pending or running:
        while pending and len(running) < jobs:
            case = pending.pop()
            directory = os.path.join(workdir, f"case-{case.index}")
            os.makedirs(directory, exist_ok=True)
            argv = materialize(case, directory)
            out = open(os.path.join(directory, "stdout"), "wb")
            err = open(os.path.join(directory, "stderr"), "wb")
            proc = subprocess.Popen(
                command + argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=env,
                cwd=directory,
                preexec_fn=limit_child,
                start_new_session=True,
            )
            running[proc] = (Outcome(case, argv), time.monotonic(), out, err, directory)
        time.sleep(0.01)
        for proc in list(running):
            outcome, start, out, err, directory = running[proc]
            elapsed = time.monotonic() - start
            if proc.poll() is None:
                if elapsed <= TIMEOUT_S:
                    continue
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                outcome.timed_out = True
            del running[proc]
            out.close()
            err.close()
            outcome.returncode, outcome.seconds = proc.returncode, elapsed
            outcome.stdout = _read(os.path.join(directory, "stdout"))  # whole: --json is parsed
            outcome.stderr = _read(os.path.join(directory, "stderr"), limit=1 << 20)
            outcome.problem = judge(outcome) or check_files(outcome.case, directory)
            if outcome.problem is None:
                shutil.rmtree(directory, ignore_errors=True)  # keep the disk to the failures
            outcomes.append(outcome)
            if progress:
                progress(outcome)
    return sorted(outcomes, key=lambda o: o.case.index)


def _read(path, limit=-1):
    with open(path, "rb") as f:
        return f.read(limit).decode("utf-8", "replace")


def generate(seed, count, only=None):
    """The cases of one run: `count` from `seed`, or just the indices in `only`."""
    command, env = engine_command()
    catalog = catalog_files()
    policies = list_policies(command, env)
    indices = only if only else range(count)
    resume = reference_sweep(command, env)
    return [make_case(seed, i, catalog, policies, resume) for i in indices], command, env


# ---- reporting


def _diff(case, role, limit=30):
    data = case.files[role]
    if len(data) > 200_000 or b"\x00" in data:
        return f"    ({len(data)} bytes; see the file)"
    with open(catalog_files()[role][case.bases[role]], "rb") as f:
        original = f.read()
    after = data.decode("utf-8", "replace").splitlines()
    # Against the catalog file as written (a textual mutation) or as rewritten without its
    # comments (a structural one): the shorter diff is the one that shows just the mutation.
    diffs = []
    for before in (original.decode("utf-8"), dump_toml(tomllib.loads(original.decode("utf-8")))):
        diffs.append(
            [
                line[:160]
                for line in difflib.unified_diff(before.splitlines(), after, "catalog", "case", lineterm="", n=1)
            ]
        )
    lines = min(diffs, key=len)
    more = f"\n    ... {len(lines) - limit} more diff lines" if len(lines) > limit else ""
    return "\n".join("    " + line for line in lines[:limit]) + more


def describe(outcome, directory=None):
    """A failing case: how to reproduce it, what was mutated, what happened."""
    case = outcome.case
    lines = [
        f"{case.label}: {outcome.problem} ({outcome.seconds:.1f} s)",
        f"  reproduce: AMPSCHED_FUZZ_SEED={case.seed} AMPSCHED_FUZZ_ONLY={case.index} pytest test_fuzz.py, "
        f"or python tests/python/fuzz_inputs.py --seed {case.seed} --only {case.index}",
    ]
    argv = [os.fsdecode(a) for a in (_argv_in(case, directory) if directory else outcome.argv)]
    shown = [_shell_quote(a if len(a) < 120 else a[:100] + f"...({len(a)} chars)") for a in argv]
    lines.append("  command: ampsched " + " ".join(shown))
    if directory:
        lines.append(f"  files: {directory}")
    lines += [f"  mutation: {m}" for m in case.mutations]
    lines += ["  stderr: " + line[:300] for line in outcome.stderr.strip().splitlines()[-6:]]
    for role in case.files:
        if case.bases.get(role) is None:
            lines.append(f"  {role} file: {case.files[role][:300]!r}")
            continue
        lines.append(f"  {role} file vs catalog/{role}s/{case.bases[role]}.toml:")
        lines.append(_diff(case, role))
    return "\n".join(lines)


def keep_failures(outcomes, workdir):
    """Copy each failing case's files to a directory that outlives the test's temporary one."""
    failing = [o for o in outcomes if o.problem]
    if not failing:
        return {}
    keep = tempfile.mkdtemp(prefix="ampsched-fuzz-failures-")
    kept = {}
    for o in failing:
        target = os.path.join(keep, f"seed{o.case.seed}-case{o.case.index}")
        shutil.copytree(os.path.join(workdir, f"case-{o.case.index}"), target)
        with open(os.path.join(target, "command"), "w") as f:
            argv = ["ampsched"] + _argv_in(o.case, target)
            f.buffer.write(b" ".join(os.fsencode(_shell_quote(os.fsdecode(a))) for a in argv) + b"\n")
        kept[o.case.index] = target
    return kept


def _shell_quote(text):
    # shlex.quote, but bytes that are not UTF-8 (lone surrogates here) as $'\xNN'.
    if all(not 0xDC80 <= ord(c) <= 0xDCFF for c in text):
        return shlex.quote(text)
    return (
        "$'"
        + "".join(
            f"\\x{ord(c) - 0xDC00:02x}"
            if 0xDC80 <= ord(c) <= 0xDCFF
            else "\\'"
            if c == "'"
            else "\\\\"
            if c == "\\"
            else c
            for c in text
        )
        + "'"
    )


def signature(outcome):
    """Failures alike for triage: what was mutated (key, with indices and values dropped) and how it ended."""
    what = []
    for m in outcome.case.mutations:
        m = re.sub(r"\[\d+\]", "[]", m)
        m = re.sub(r"byte \d+( of \d+)?", "byte N", m)
        what.append(m.split(" = ")[0] + (" (value)" if " = " in m else ""))
    problem = re.sub(r"\d+(\.\d+)? s", "N s", outcome.problem)
    return problem + " <- " + "; ".join(what)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="comma-separated case indices")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", metavar="FILE", help="also write every failure to FILE as JSON")
    args = parser.parse_args(argv)
    only = [int(i) for i in args.only.split(",")] if args.only else None
    cases, command, env = generate(args.seed, args.cases, only)
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="ampsched-fuzz-")

    def tick(o):
        if o.problem:
            print(f"FAIL {o.case.label}: {o.problem}", file=sys.stderr, flush=True)

    outcomes = run_cases(cases, workdir, command, env, jobs=args.jobs, progress=tick)
    kept = keep_failures(outcomes, workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    failing = [o for o in outcomes if o.problem]
    for o in failing:
        print(describe(o, kept.get(o.case.index)) + "\n")
    groups = {}
    for o in failing:
        groups.setdefault(signature(o), []).append(o.case.index)
    print(f"{len(cases)} cases, {len(failing)} failing, {time.monotonic() - started:.0f} s")
    for sig, indices in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(indices):5d}  {sig}   e.g. {indices[:5]}")
    slow = [o for o in outcomes if not o.problem and o.seconds > SLOW_S]
    for o in slow:
        print(f"slow: {o.case.label} {o.seconds:.1f} s: {'; '.join(o.case.mutations)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                [
                    {
                        "index": o.case.index,
                        "problem": o.problem,
                        "seconds": o.seconds,
                        "argv": [os.fsdecode(a) for a in o.argv],
                        "mutations": o.case.mutations,
                        "stderr": o.stderr[-2000:],
                        "kept": kept.get(o.case.index),
                    }
                    for o in failing + slow
                ],
                f,
                indent=1,
            )
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
