"""`ampsched._core.record`, the live side of `ampsched record` (the Python API and CLI over it are
tests/python/test_record.py's): the raw recording and the agent's report of a real program
(tests/agent/handoff.c, whose synchronisation is known; crates/agent/tests/record_run.rs checks it
event by event), and the one-line errors of recordings that cannot be made.
"""

import json
import os
import sys

import pytest
from conftest import build_programs

import ampsched

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

pytestmark = [
    pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the agent is Linux-only"),
]


@pytest.fixture(scope="module")
def handoff(tmp_path_factory):
    return build_programs(tmp_path_factory, "handoff")["handoff"]


@pytest.mark.skipif(not IS_ROOT, reason="needs root (--emulate's real-time cycle stealing)")
def test_a_recording_on_an_emulated_machine_has_its_machine_threads_and_events(handoff):
    raw, report = ampsched._core.record(
        [handoff, "2", "100000"], [], interval_ms=5.0, emulate="small=1:0.5", status=False, keep_command=True
    )
    r = json.loads(raw)
    assert report["policy"] == "oblivious" and report["stopped_by"] == "target exited"
    assert r["command"] == [handoff, "2", "100000"]
    assert r["incomplete"] is None and r["events_logged"] and r["events_lost"] == 0
    # Two core types, both full-speed work per CPU-second (the emulator steals time, it does not
    # slow the clock), and the machine file the simulator reads.
    assert r["work_per_cpu_s"] == [1.0, 1.0]
    assert 'name = "recorded"' in r["machine_toml"] and r["machine_toml"].count("[[core_type]]") == 2
    threads = {t["comm"]: t for t in r["threads"]}
    assert {"giver", "taker"} <= set(threads)
    main = r["threads"][0]["tid"]
    assert threads["giver"]["parent"] == main and threads["taker"]["parent"] == main
    kinds = [e["kind"] for e in r["events"]]
    assert kinds.count("create") == 2 and kinds.count("join") == 2
    assert kinds.count("mutex_wait") == 2 and kinds.count("cond_wait") == 2 and kinds.count("cond_signal") == 2


def test_a_command_that_cannot_run_and_a_process_that_does_not_exist_are_one_line():
    with pytest.raises(ampsched._core.InputError, match=r"^--: /nonexistent: cannot run the command"):
        ampsched._core.record(["/nonexistent"], [], status=False)
    with pytest.raises(ampsched._core.InputError, match=r"^--pid: 4194305: no such process"):
        ampsched._core.record([], [4194305], status=False)  # above Linux's largest pid (PID_MAX_LIMIT)
