"""Properties over arbitrary input (hypothesis): splitting policy lists, the agent's exit status,
aligned tables, and the engine's policy spec parser."""

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ampsched
from ampsched import cli
from ampsched._console import format_table

# Derandomized: the same examples every run, so a pass or a failure is repeatable.
repeatable = settings(derandomize=True, deadline=None, database=None)


# ---- split_policies

spec_text = st.text(alphabet=st.characters(blacklist_characters=",", blacklist_categories=("Cs",)), min_size=1).filter(
    lambda s: s.strip()
)
padding = st.text(alphabet=" \t", max_size=3)


@repeatable
@given(st.lists(st.tuples(padding, spec_text, padding)), st.lists(st.integers(0, 10), max_size=4))
def test_split_policies_gives_back_the_specs_joined_with_commas(padded, empties):
    # Padding around a spec and empty entries anywhere are dropped; nothing else changes.
    entries = [f"{a}{s}{b}" for a, s, b in padded]
    for i in empties:
        entries.insert(min(i, len(entries)), " ")
    assert ampsched.split_policies(",".join(entries)) == [s.strip() for _, s, _ in padded]


# ---- agent_exit_status: what a shell would report for the command

SIGNALS = {"SIGHUP": 1, "SIGINT": 2, "SIGKILL": 9, "SIGSEGV": 11, "SIGTERM": 15, "SIGABRT": 6}


@repeatable
@given(
    st.integers(0, 255),
    st.one_of(st.none(), st.sampled_from(sorted(SIGNALS)), st.integers(1, 64).map("signal {}".format)),
)
def test_an_exit_code_is_the_status_whatever_stopped_the_agent(code, stopped_by):
    report = {"target": {"status": {"exit_code": code, "signal": None}}, "stopped_by": stopped_by}
    assert cli.agent_exit_status(report) == code


@repeatable
@given(
    st.one_of(
        st.sampled_from(sorted(SIGNALS)).map(lambda n: (n, SIGNALS[n])),
        st.integers(1, 64).map(lambda n: (f"signal {n}", n)),
    ),
    st.booleans(),
)
def test_a_signal_is_128_plus_its_number(signal, in_status):
    # Killed by the signal itself (the command's status), or the agent stopped by it before the
    # command had a status: either way 128 + N, as a shell says.
    name, number = signal
    if in_status:
        report = {"target": {"status": {"exit_code": None, "signal": name}}, "stopped_by": "target exited"}
    else:
        report = {"target": {"status": None}, "stopped_by": name}
    assert cli.agent_exit_status(report) == 128 + number


# ---- format_table: numeric columns line up on the decimal point

finite = st.floats(min_value=-1e7, max_value=1e7, allow_nan=False, allow_infinity=False)
word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-<>&", min_size=1, max_size=12)


@repeatable
@given(st.lists(st.tuples(word, finite, st.integers(-(10**6), 10**6)), min_size=1, max_size=12))
def test_table_columns_line_up_and_keep_their_values(rows):
    lines = format_table(["name", "value", "count"], [list(r) for r in rows]).splitlines()
    assert len(lines) == len(rows) + 2
    data = lines[2:]
    # Every float in the column has the same decimals (none from 10 000 up), so the points share
    # one position ...
    shown = [line.split()[1] for line in data]
    decimals = {len(v.split(".")[1]) if "." in v else 0 for v in shown}
    assert len(decimals) == 1, data
    decimals = decimals.pop()
    if decimals:
        assert len({line.rindex(".") for line in data}) == 1, data
    # ... and numbers are right-aligned: the integers all end at the end of the line.
    assert len({len(line) for line in data}) == 1, data
    for line, (name, value, count) in zip(data, rows):
        cells = line.split()
        assert cells[0] == name and int(cells[2]) == count
        # Rounded to the shown decimals, never otherwise changed.
        assert abs(float(cells[1]) - value) <= 0.5 * 10**-decimals + 1e-9 * abs(value)


# ---- the engine's policy spec parser

TINY_MACHINE = (
    'name = "tiny"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = "fast"\ncount = 1\n'
    'freq_ghz = 2.0\n[[core_type]]\nname = "slow"\ncount = 1\nfreq_ghz = 1.0\n'
)
# Two apps of 1 ms: even a policy called every nanosecond finishes at once.
TINY_WORKLOAD = (
    '[[app]]\nname = "a"\n[[app.phase]]\nkind = "compute"\ninstructions = 2e6\n'
    '[[app]]\nname = "b"\n[[app.phase]]\nkind = "compute"\ninstructions = 1e6\nllc_mpki = 5\n'
)

OPTION_NAMES = ["quantum_ms", "threshold_ms", "max_runs", "speed", ""]
VALUES = st.one_of(
    st.sampled_from(["1", "0", "-1", "nan", "inf", "1e9", "0.5", "", "x", "1e-300", " 2 "]), st.floats().map(repr)
)


@st.composite
def policy_specs(draw):
    """Mostly near-valid specs (a known name, known or unknown options, odd values), some junk."""
    name = draw(st.sampled_from(["rr", "busyfcs", "static", "oblivious", "best-static", "fair", " rr ", ""]))
    options = draw(st.one_of(st.just([]), st.lists(st.tuples(st.sampled_from(OPTION_NAMES), VALUES), max_size=2)))
    spec = name + "".join(f":{k}={v}" for k, v in options)
    return draw(st.one_of(st.just(spec), st.text(alphabet="rbusyfc:=._-0123456789 ", max_size=20)))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    if ampsched._core is None:
        pytest.skip("the Rust engine is not built")
    d = tmp_path_factory.mktemp("tiny")
    (d / "m.toml").write_text(TINY_MACHINE)
    (d / "w.toml").write_text(TINY_WORKLOAD)
    return str(d / "m.toml"), str(d / "w.toml")


@settings(repeatable, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(policy_specs())
def test_a_policy_spec_runs_or_is_an_input_error_naming_the_option(tiny, spec):
    machine, workload = tiny
    try:
        result = ampsched.run(machine, workload, spec)
    except ampsched.InputError as error:
        # A ValueError (the documented contract) that names the option and says what is wrong.
        assert isinstance(error, ValueError)
        assert re.match(r"--policy: .*\S", str(error), re.S), str(error)
        return
    # Accepted: the result names the spec canonically, and the canonical text means the same.
    canonical = result.raw["policy"]
    again = ampsched.run(machine, workload, canonical)
    assert again.raw["policy"] == canonical
    assert json.dumps(again.raw, sort_keys=True) == json.dumps(result.raw, sort_keys=True)
