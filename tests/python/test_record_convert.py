"""`_core.record_convert`: a raw recording's JSON as a workload file and its summary.

The conversion itself is tested on hand-made recordings in Rust (crates/agent/tests/it/record_convert.rs);
here, the binding: its result, its defaults, and its one-line errors.
"""

import json

import pytest

import ampsched

pytestmark = pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built")

MACHINE = 'name = "one"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = "fast"\ncount = 1\nfreq_ghz = 2.0\n'


def raw(**changes):
    """One thread that ran 10 ms of CPU time, sampled at 10 and 20 ms, off the CPU 10 ms between."""
    samples = [
        {
            "t_ns": t,
            "cpu_ns": c,
            "runq_ns": 0,
            "cpu_ns_per_type": [c],
            "instructions": None,
            "cycles": None,
            "llc_misses": None,
            "state": "S",
        }
        for t, c in [(10_000_000, 5_000_000), (20_000_000, 10_000_000)]
    ]
    rec = {
        "version": 1,
        "command": None,
        "machine_toml": MACHINE,
        "policy": "static",
        "interval_ns": 10_000_000,
        "wall_ns": 20_000_000,
        "exit_status": 0,
        "counters": False,
        "events_logged": False,
        "events_lost": 0,
        "incomplete": None,
        "work_per_cpu_s": [1.0],
        "threads": [
            {
                "tid": 7,
                "pid": 7,
                "comm": "prog",
                "parent": None,
                "first_seen_ns": 0,
                "exit_ns": 20_000_000,
                "samples": samples,
            }
        ],
        "events": [],
    }
    rec.update(changes)
    return json.dumps(rec)


def test_a_recording_converts_to_a_workload_and_its_summary():
    toml, summary = ampsched._core.record_convert(raw(), name="prog")
    summary = json.loads(summary)
    # 10 ms at 2 GHz, CPI 1, as two computes around two 5 ms sleeps (one per interval, each
    # placed in the middle of its interval's work): 2.5 ms, sleep, 5 ms, sleep, 2.5 ms.
    assert summary["threads"] == 1 and summary["phases"] == 5, summary
    assert summary["inferred"]["sleeps"] == 2 and summary["measured"]["cpu_ns"] == 10_000_000
    assert 'name = "prog"' in toml and "instructions = 10000000" in toml and "seconds = 0.005" in toml
    assert toml == ampsched._core.record_convert(raw(), name="prog")[0]
    defaults = json.loads(ampsched._core.defaults())
    assert defaults["record_max_phases"] == 10_000 and defaults["record_min_block_ns"] == 1_000_000


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "raw recording: invalid JSON: EOF while parsing an object at line 1 column 1"),
        (
            raw(version=2),
            "raw recording: version: 2 is not the version this ampsched reads (1): record again with this version",
        ),
        ("{}", "raw recording: version: missing (not a raw recording of ampsched record)"),
        (raw(threads=[]), "recording: threads: no threads were recorded: nothing to replay"),
        (
            raw(events_lost=4),
            "recording: events_lost: a partial recording (4 events lost): convert it only knowingly (accept lost events), and the file will say it is partial",
        ),
    ],
)
def test_bad_recordings_raise_one_line_input_errors(text, message):
    with pytest.raises(ampsched._core.InputError) as info:
        ampsched._core.record_convert(text)
    assert str(info.value) == message


def test_a_partial_recording_accepted_says_so():
    toml, summary = ampsched._core.record_convert(raw(events_lost=4), accept_lost_events=True)
    assert "# PARTIAL RECORDING (4 events lost)" in toml
    assert json.loads(summary)["partial"] == "4 events lost"
