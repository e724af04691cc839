"""Issue 10: no input may crash, hang or silently lie.

Hostile variants of the catalog's machine and workload files and hostile command-line options,
and hostile sweep files, damaged part files of a killed sweep, Python policies that hang, raise
BaseExceptions or end their process, and outputs that are FIFOs or symlinks (fuzz_inputs.py
makes them) each run the CLI in a child with a time bound and a memory limit, and must end in
exit 0 (with valid, finite JSON when --json asks for it) or exit 2 with one line on stderr
naming the problem (a sweep may end in exit 1 with its summary line when runs failed and were
recorded); a resumed sweep must give the uninterrupted sweep's bytes, and a symlink's target or
a FIFO must never be written. Bad Python API calls must raise InputError, whatever the wrong
value or type, in a child too, so that an abort fails one test instead of killing pytest.
`make test` runs 140 cases; `make test-all` runs 3,000.

Environment:
    AMPSCHED_FUZZ_CASES   how many cases (default 140; e.g. 5000 for a long run)
    AMPSCHED_FUZZ_SEED    the seed (default 0); case i of seed s is the same on every run
    AMPSCHED_FUZZ_ONLY    comma-separated case indices: rerun just those (a failure names them)
    AMPSCHED_FUZZ_JOBS    children at a time (default 2)
    AMPSCHED_FUZZ_TIMEOUT seconds a case may take (default 20)
"""

import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import fuzz_inputs as fuzz

CASES = int(os.environ.get("AMPSCHED_FUZZ_CASES", "140"))
SEED = int(os.environ.get("AMPSCHED_FUZZ_SEED", "0"))
ONLY = [int(i) for i in os.environ.get("AMPSCHED_FUZZ_ONLY", "").split(",") if i.strip()]
JOBS = int(os.environ.get("AMPSCHED_FUZZ_JOBS", "2"))
SHOWN = 12  # failures described in full; the rest are counted by kind


def test_hostile_inputs_end_in_exit_0_or_one_error_line(tmp_path):
    pytest.importorskip("ampsched._core")
    cases, command, env = fuzz.generate(SEED, CASES, ONLY)
    outcomes = fuzz.run_cases(cases, str(tmp_path), command, env, jobs=JOBS)

    for o in outcomes:
        if not o.problem and o.seconds > fuzz.SLOW_S:
            # Passing, but a bound is missing or loose: a user would wait this long for an answer.
            warnings.warn(
                f"{o.case.label} took {o.seconds:.1f} s: ampsched "
                f"{' '.join(os.fsdecode(a)[:80] for a in o.argv)} ({'; '.join(o.case.mutations)})"
            )

    failing = [o for o in outcomes if o.problem]
    if failing:
        kept = fuzz.keep_failures(outcomes, str(tmp_path))
        kinds = {}
        for o in failing:
            kinds.setdefault(fuzz.signature(o), []).append(o.case.index)
        summary = "\n".join(
            f"{len(ix):4d}  {sig}   e.g. cases {ix[:5]}"
            for sig, ix in sorted(kinds.items(), key=lambda kv: -len(kv[1]))
        )
        details = "\n\n".join(fuzz.describe(o, kept[o.case.index]) for o in failing[:SHOWN])
        pytest.fail(
            f"{len(failing)} of {len(cases)} hostile inputs (seed {SEED}) did not end in exit 0 or "
            f"exit 2 with one error line; the inputs are kept under {os.path.dirname(next(iter(kept.values())))}\n"
            f"{summary}\n\n{details}",
            pytrace=False,
        )


# ---- the Python API
#
# Each call: (the code, what it must raise). A wrong value and a wrong Python type alike are
# the user's input: InputError, one type for all bad input (it is a ValueError).
INPUT = ("InputError",)
API_CALLS = [
    ('run("dvfs-2x", "demo", "rr", seed=-1)', INPUT),
    ('run("dvfs-2x", "demo", "rr", seed=2 ** 64)', INPUT),
    ('run("dvfs-2x", "demo", "rr", seed=2 ** 2000)', INPUT),
    ('run("dvfs-2x", "demo", "rr", seed=1.5)', INPUT),
    ('run("dvfs-2x", "demo", "rr", seed="1")', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=-1)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=0)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=float("nan"))', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=float("inf"))', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=1e308)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=1e-7)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=2 ** 2000)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms="4")', INPUT),
    ('run(123, "demo", "rr")', INPUT),
    ('run(None, "demo", "rr")', INPUT),
    ('run("dvfs-2x", b"demo", "rr")', INPUT),
    ('run("", "demo", "rr")', INPUT),
    ('run("/dev/zero", "demo", "rr")', INPUT),
    ('run("dvfs-2x", "a" * 5000, "rr")', INPUT),
    # A file name that is not UTF-8, as os.listdir() hands it on (a lone surrogate).
    ('run("dvfs-2x\\udcff", "demo", "rr")', INPUT),
    ('run("dvfs-2x", "demo", None)', INPUT),
    ('run("dvfs-2x", "demo", 5)', INPUT),
    ('run("dvfs-2x", "demo", "")', INPUT),
    ('run("dvfs-2x", "demo", "no-such-policy")', INPUT),
    ('run("dvfs-2x", "demo", "rr:quantum_ms=1e-7")', INPUT),
    ('run("dvfs-2x", "demo", "rr:quantum_ms=1e308")', INPUT),
    ('run("dvfs-2x", "demo", "rr:threshold_ms=nan")', INPUT),
    ('run("dvfs-2x", "demo", "bound:offset=-1")', INPUT),
    ('run("dvfs-2x", "demo", "bound:offset=99999999999999999999")', INPUT),
    ('run("dvfs-2x", "demo", "/nonexistent/x.py:Policy")', INPUT),
    ('run("dvfs-2x", "demo", "rr", trace="/")', INPUT),
    ('run("dvfs-2x", "demo", "rr", trace=5)', INPUT),
    ('run("dvfs-2x", "demo", "rr", timeline="yes")', INPUT),
    ('compare("dvfs-2x", "demo", [])', INPUT),
    ('compare("dvfs-2x", "demo", " , ")', INPUT),
    ('compare("dvfs-2x", "demo", None)', INPUT),
    ('compare("dvfs-2x", "demo", 5)', INPUT),
    ('compare("dvfs-2x", "demo", [1, 2])', INPUT),
    ('compare("dvfs-2x", "demo", ["rr", "no-such-policy"])', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], baseline="no-such-policy")', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], baseline=5)', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], seed=-1)', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], slice_ms=float("inf"))', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], timeline=1)', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], progress="x")', INPUT),
    ('sweep(5, "demo", "rr")', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", output=5)', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", file=5)', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", overrides=5)', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", overrides=[5])', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", max_runs="x")', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", progress="x")', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", resume="yes")', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", force=1)', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", jobs="2")', INPUT),
    ('sweep("dvfs-2x", "demo", "rr", backend=5)', INPUT),
    ("reproduce(5)", INPUT),
    ('reproduce("no-such")', INPUT),
    ('reproduce("thesis-uf", quick="x")', INPUT),
    ('reproduce("thesis-uf", output=5)', INPUT),
    ("read_sweep(5)", INPUT),
    ('read_sweep("/nonexistent")', INPUT),
    ("verify_sweep(5)", INPUT),
    ('write_report(5, "r.html")', INPUT),
    ('write_report([], "r.html")', INPUT),
    ("write_report([{}], 5)", INPUT),
    ("results_frame(5)", INPUT),
    # The network alone (docs/noc.md): a machine without one, and every argument wrong.
    ('ampsched.noc_traffic("exynos5422", 0.1)', INPUT),
    ("ampsched.noc_traffic(5, 0.1)", INPUT),
    ('ampsched.noc_traffic("exynos5422:arbitration=ocor", 0.1)', INPUT),
    ('ampsched.noc_traffic("exynos5422", float("nan"))', INPUT),
    ('ampsched.noc_traffic("exynos5422", "0.1")', INPUT),
    ('ampsched.noc_traffic("exynos5422", 2 ** 2000)', INPUT),
    ('ampsched.noc_traffic("exynos5422", 0.1, cycles=2 ** 64)', INPUT),
    ('ampsched.noc_traffic("exynos5422", 0.1, cycles=1.5)', INPUT),
    ('ampsched.noc_traffic("exynos5422", 0.1, cycles=-1)', INPUT),
    ('ampsched.noc_traffic("exynos5422", 0.1, seed=-1)', INPUT),
    ('ampsched.noc_traffic("exynos5422", 0.1, pattern=5)', INPUT),
    ('ampsched.noc_traffic("exynos5422", 0.1, warmup="x")', INPUT),
    ('ampsched.noc_traffic("exynos5422", 0.1, packet_flits=2 ** 70)', INPUT),
]

# The child prints the class of what the call raised ("OK" if nothing), and nothing else.
API_CHILD = textwrap.dedent("""
    import sys
    import ampsched
    from ampsched import compare, read_sweep, reproduce, results_frame, run, sweep, verify_sweep, write_report
    try:
        exec(sys.argv[1])
    except BaseException as error:
        print(type(error).__name__)
    else:
        print("OK")
""")


@pytest.mark.parametrize("call, expected", API_CALLS, ids=[c for c, _ in API_CALLS])
def test_bad_api_call_raises_input_error(call, expected):
    pytest.importorskip("ampsched._core")
    command, env = fuzz.engine_command()
    try:
        done = subprocess.run(
            [sys.executable, "-c", API_CHILD, call],
            capture_output=True,
            text=True,
            env=env,
            timeout=fuzz.TIMEOUT_S,
            preexec_fn=fuzz.limit_child,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"ampsched.{call}: no end within {fuzz.TIMEOUT_S:g} s")
    assert done.returncode == 0, f"ampsched.{call}: the child ended with status {done.returncode}:\n{done.stderr}"
    raised = done.stdout.strip()
    assert raised in expected, f"ampsched.{call} raised {raised}, expected {' or '.join(expected)}"


def test_the_cases_of_make_test_reach_the_newest_formats():
    # Each kind of input added last (a machine's network, a queue spinlock, a network run option,
    # SMT and the reported capacity, uclamp, a recorded program's synchronisation) is among the cases `make test`
    # runs, not only among test-all's 3,000.
    cases, _, _ = fuzz.generate(SEED, CASES, ONLY)
    mutations = [" ".join(c.mutations) for c in cases]
    for what in ("interconnect", "a queue spinlock", "priority_levels", "(smt, ", "uclamp", "recorded program"):
        assert ONLY or any(what in m for m in mutations), f"no case of the {CASES} mutates {what!r}"
