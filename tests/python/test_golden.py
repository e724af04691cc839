"""No refactoring may change a result. The key metrics of every run of the golden grid are those
of tests/golden/runs.tsv, and the whole `ampsched run --json` output of a sample of them is
byte-identical to when tests/golden/json.sha256.tsv was written (tests/golden/capture.py says
how to regenerate both after a deliberate change, and docs/testing.md what the files hold).
`make test` checks the quick grid (`capture.py --quick`: every thirteenth quick-eligible run);
`make test-all` every run of the snapshot."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import capture  # noqa: E402


def check(runs):
    diff, moved, _ = capture.check(runs)
    assert not diff, capture.summary(diff) + "\n(python tests/golden/capture.py --write after a deliberate change)"
    assert not moved, capture.summary(moved, "runs' JSON bytes changed")


def test_the_quick_grid_has_the_snapshot_metrics():
    pytest.importorskip("ampsched._core")
    runs = capture.quick_grid()
    # Every machine, workload and policy of the quick grid is in the sample, not a corner of it.
    eligible = capture.grid(quick=True)
    for part in range(3):
        assert {r[part] for r in runs} == {r[part] for r in eligible}
    check(runs)


@pytest.mark.slow
def test_every_run_of_the_snapshot_has_its_metrics():
    pytest.importorskip("ampsched._core")
    runs = sorted(capture.read_snapshot())
    assert len(runs) >= 16000
    check(runs)


# Written before the counter noise and the trained speedup model changed wash and pfs, and not
# rewritten since outside the quick grid: their former hashes were stale before the conversion.
STALE_IN_FORMER_FILE = {"wash", "pfs"}


@pytest.mark.slow
def test_every_run_not_yet_converted_has_its_former_json_hash():
    # The runs the conversion has not moved yet from the former file (capture.LEGACY), compared
    # there by their JSON hash.
    pytest.importorskip("ampsched._core")
    check(sorted(r for r in capture.read_legacy() if r[2] not in STALE_IN_FORMER_FILE))


@pytest.mark.slow
def test_the_stale_wash_and_pfs_rows_of_the_former_file():
    stale = [r for r in capture.read_legacy() if r[2] in STALE_IN_FORMER_FILE]
    if stale:
        pytest.skip(
            f"{len(stale):,} wash/pfs runs of the former hash file are stale (never rewritten after those "
            f"policies changed): `python tests/golden/capture.py --convert`, then `--write --policies "
            f"wash,pfs` (hours on 2 CPUs; docs/testing.md)"
        )


def test_the_json_sample_is_byte_identical():
    pytest.importorskip("ampsched._core")
    hashes = capture.read_hashes()
    # The sample goes through every policy, so a change outside the key metrics shows somewhere.
    assert {p for _, _, p in hashes} == set(capture.POLICIES) and len(hashes) >= 100
    check(sorted(hashes))


def test_the_failure_message_names_runs_and_metrics_and_counts_the_rest():
    snapshot = {("m", f"w{i:02}", "rr"): ("1.5", "2.0", "1.0", "0.5", "null", "3", "100") for i in range(25)}
    rows = [(key, fields, "") for key, fields in snapshot.items()]
    rows[0] = (rows[0][0], ("1.5", "2.0000000000000004", "1.0", "0.5", "null", "4", "100"), "")
    for i in range(1, 22):
        rows[i] = (rows[i][0], ("3.0",) + rows[i][1][1:], "")
    rows.append((("m", "new", "rr"), ("error: no such core",), ""))
    message = capture.summary(capture.differences(rows, snapshot))
    lines = message.splitlines()
    assert lines[0] == "23 runs changed:" and lines[-1] == "... and 3 more"
    # One ulp shows, with the metric's name; an integer, with its relative change.
    assert lines[1] == "m new rr: not in the snapshot (add it with --write)"
    assert lines[2] == "m w00 rr: antt 2.0 -> 2.0000000000000004 (+2.22e-16), migrations 3 -> 4 (+0.333)"
    assert lines[3] == "m w01 rr: makespan_s 1.5 -> 3.0 (+1)"
    assert len(lines) == 1 + capture.MAX_LISTED + 1


def test_the_snapshot_is_sorted_one_run_a_line_with_its_header():
    with open(capture.SNAPSHOT) as f:
        lines = f.read().splitlines()
    assert lines[0] == capture.HEADER
    keys = [tuple(line.split("\t")[:3]) for line in lines[1:]]
    assert keys == sorted(set(keys))
    for line in lines[1:]:
        fields = line.split("\t")[4:]
        assert len(fields) == len(capture.METRICS) or (len(fields) == 1 and fields[0].startswith(capture.ERROR)), line


def test_a_run_still_in_the_former_file_is_compared_without_the_keys_added_since():
    # The former file's hashes are of the JSON before idle_while_waiting_s: a run still there is
    # compared with today's JSON less that key, and with nothing else changed.
    import hashlib

    before = '{"migrations":80,"events":6135}'
    today = '{"migrations":80,"idle_while_waiting_s":0.25,"events":6135}'
    assert capture.legacy_sha256(today) == hashlib.sha256(before.encode()).hexdigest()
    assert capture.legacy_sha256(today.replace("6135", "6136")) != hashlib.sha256(before.encode()).hexdigest()
    key = ("m", "w", "p")
    rows = [(key, (), hashlib.sha256(today.encode()).hexdigest(), capture.legacy_sha256(today))]
    assert capture.hash_differences(rows, {}, {key: hashlib.sha256(before.encode()).hexdigest()}) == []
    assert len(capture.hash_differences(rows, {}, {key: "0" * 64})) == 1
