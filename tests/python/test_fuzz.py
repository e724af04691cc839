"""Issue 10: no input may crash, hang or silently lie.

Hostile variants of the catalog's machine and workload files and hostile command-line options
(fuzz_inputs.py makes them) each run the CLI in a child with a time bound and a memory limit,
and must end in exit 0 (with valid, finite JSON when --json asks for it) or exit 2 with one
line on stderr naming the problem. Bad Python API calls must raise InputError (TypeError is
also accepted where the argument's Python type itself is wrong), in a child too, so that an
abort fails one test instead of killing pytest.

Environment:
    AMPSCHED_FUZZ_CASES   how many cases (default 300; e.g. 5000 for a long run)
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

CASES = int(os.environ.get("AMPSCHED_FUZZ_CASES", "300"))
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
            warnings.warn(f"{o.case.label} took {o.seconds:.1f} s: ampsched "
                          f"{' '.join(os.fsdecode(a)[:80] for a in o.argv)} ({'; '.join(o.case.mutations)})")

    failing = [o for o in outcomes if o.problem]
    if failing:
        kept = fuzz.keep_failures(outcomes, str(tmp_path))
        kinds = {}
        for o in failing:
            kinds.setdefault(fuzz.signature(o), []).append(o.case.index)
        summary = "\n".join(f"{len(ix):4d}  {sig}   e.g. cases {ix[:5]}"
                            for sig, ix in sorted(kinds.items(), key=lambda kv: -len(kv[1])))
        details = "\n\n".join(fuzz.describe(o, kept[o.case.index]) for o in failing[:SHOWN])
        pytest.fail(f"{len(failing)} of {len(cases)} hostile inputs (seed {SEED}) did not end in exit 0 or "
                    f"exit 2 with one error line; the inputs are kept under {os.path.dirname(next(iter(kept.values())))}\n"
                    f"{summary}\n\n{details}", pytrace=False)


# ---- the Python API
#
# Each call: (the code, what it must raise). A wrong value of the right type is the user's
# input, so InputError; a wrong Python type may raise TypeError, as Python functions do (the API
# turns some into InputError itself: a seed or policy of any type).
INPUT = ("InputError",)
INPUT_OR_TYPE = ("InputError", "TypeError")
API_CALLS = [
    ('run("dvfs-2x", "demo", "rr", seed=-1)', INPUT),
    ('run("dvfs-2x", "demo", "rr", seed=2 ** 64)', INPUT),
    ('run("dvfs-2x", "demo", "rr", seed=2 ** 2000)', INPUT),
    ('run("dvfs-2x", "demo", "rr", seed=1.5)', INPUT_OR_TYPE),
    ('run("dvfs-2x", "demo", "rr", seed="1")', INPUT_OR_TYPE),
    ('run("dvfs-2x", "demo", "rr", slice_ms=-1)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=0)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=float("nan"))', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=float("inf"))', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=1e308)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=1e-7)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms=2 ** 2000)', INPUT),
    ('run("dvfs-2x", "demo", "rr", slice_ms="4")', INPUT_OR_TYPE),
    ('run(123, "demo", "rr")', INPUT_OR_TYPE),
    ('run(None, "demo", "rr")', INPUT_OR_TYPE),
    ('run("dvfs-2x", b"demo", "rr")', INPUT_OR_TYPE),
    ('run("", "demo", "rr")', INPUT),
    ('run("/dev/zero", "demo", "rr")', INPUT),
    ('run("dvfs-2x", "a" * 5000, "rr")', INPUT),
    # A file name that is not UTF-8, as os.listdir() hands it on (a lone surrogate).
    ('run("dvfs-2x\\udcff", "demo", "rr")', INPUT),
    ('run("dvfs-2x", "demo", None)', INPUT_OR_TYPE),
    ('run("dvfs-2x", "demo", 5)', INPUT_OR_TYPE),
    ('run("dvfs-2x", "demo", "")', INPUT),
    ('run("dvfs-2x", "demo", "no-such-policy")', INPUT),
    ('run("dvfs-2x", "demo", "rr:quantum_ms=1e-7")', INPUT),
    ('run("dvfs-2x", "demo", "rr:quantum_ms=1e308")', INPUT),
    ('run("dvfs-2x", "demo", "rr:threshold_ms=nan")', INPUT),
    ('run("dvfs-2x", "demo", "bound:offset=-1")', INPUT),
    ('run("dvfs-2x", "demo", "bound:offset=99999999999999999999")', INPUT),
    ('run("dvfs-2x", "demo", "/nonexistent/x.py:Policy")', INPUT),
    ('run("dvfs-2x", "demo", "rr", trace="/")', INPUT),
    ('run("dvfs-2x", "demo", "rr", trace=5)', INPUT_OR_TYPE),
    ('run("dvfs-2x", "demo", "rr", timeline="yes")', INPUT_OR_TYPE),
    ('compare("dvfs-2x", "demo", [])', INPUT),
    ('compare("dvfs-2x", "demo", " , ")', INPUT),
    ('compare("dvfs-2x", "demo", None)', INPUT_OR_TYPE),
    ('compare("dvfs-2x", "demo", 5)', INPUT_OR_TYPE),
    ('compare("dvfs-2x", "demo", [1, 2])', INPUT_OR_TYPE),
    ('compare("dvfs-2x", "demo", ["rr", "no-such-policy"])', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], baseline="no-such-policy")', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], baseline=5)', INPUT_OR_TYPE),
    ('compare("dvfs-2x", "demo", ["rr"], seed=-1)', INPUT),
    ('compare("dvfs-2x", "demo", ["rr"], slice_ms=float("inf"))', INPUT),
]

# The child prints the class of what the call raised ("OK" if nothing), and nothing else.
API_CHILD = textwrap.dedent("""
    import sys
    import ampsched
    from ampsched import run, compare
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
        done = subprocess.run([sys.executable, "-c", API_CHILD, call], capture_output=True, text=True, env=env,
                              timeout=fuzz.TIMEOUT_S, preexec_fn=fuzz.limit_child)
    except subprocess.TimeoutExpired:
        pytest.fail(f"ampsched.{call}: no end within {fuzz.TIMEOUT_S:g} s")
    assert done.returncode == 0, f"ampsched.{call}: the child ended with status {done.returncode}:\n{done.stderr}"
    raised = done.stdout.strip()
    assert raised in expected, f"ampsched.{call} raised {raised}, expected {' or '.join(expected)}"
