"""What a sweep guarantees about its results (docs: sweeps.md, "What a sweep guarantees"):
an existing result file is never replaced without --force, nor a damaged part file trusted on
--resume, a dead worker or a hostile sweep file ends in one line, and the file is the same
bytes as an uninterrupted sweep's."""

import os
import random

import pytest

import ampsched
from test_cli import assert_one_line_error, run_module
from test_sweep import GRID, _sweep_file, _write_ipc

if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)

import pyarrow.parquet as pq  # noqa: E402

SMALL = ["--machines", "dvfs-2x", "--workloads", "demo", "--policies", "rr", "--seeds", "1"]


def _refused(*args):
    proc = run_module("sweep", *args)
    assert proc.returncode == 2, proc.stderr
    return assert_one_line_error(proc.stderr)


def test_an_existing_result_is_refused_unless_resume_or_force(tmp_path):
    out = tmp_path / "ref.parquet"
    _sweep_file(out, 2)
    before = out.read_bytes()
    message = _refused(*SMALL, "--output", str(out))
    assert "exists (12 rows from an earlier sweep)" in message and "--resume" in message and "--force" in message
    assert out.read_bytes() == before  # untouched
    assert "give one" in _refused(*SMALL, "--output", str(out), "--resume", "--force")
    with pytest.raises(ampsched.InputError, match="exists"):
        ampsched.sweep("dvfs-2x", "demo", "rr", output=out)
    assert out.read_bytes() == before
    # --force replaces it with this grid's one row
    assert run_module("sweep", *SMALL, "--output", str(out), "--force").returncode == 0
    assert pq.read_table(out).num_rows == 1
    # --resume adds to it: the 12 of the grid, the forced row among them
    assert _sweep_file(out, 2, resume=True).returncode == 0
    assert pq.read_table(out).num_rows == 12


def test_an_interrupted_forced_sweep_resumes_without_the_file_it_replaces(tmp_path):
    out, fresh = tmp_path / "s.parquet", tmp_path / "fresh.parquet"
    _sweep_file(out, 2)  # the old result: 12 rows of GRID
    assert run_module("sweep", *SMALL, "--output", str(fresh)).returncode == 0
    # What a --force sweep of SMALL killed before its end leaves: its marker, no part yet.
    parts = tmp_path / "s.parquet.parts"
    parts.mkdir()
    (parts / "REPLACES_OUTPUT").touch()
    assert run_module("sweep", *SMALL, "--output", str(out), "--resume").returncode == 0
    assert out.read_bytes() == fresh.read_bytes()  # none of the replaced file's 12 rows came back


def _parts_of(full, parts):
    """Part files holding `full`'s rows 0-4 and 6-7 (what a killed sweep leaves)."""
    table = pq.read_table(full)
    parts.mkdir()
    return [
        _write_ipc(table.slice(0, 5), parts / "part-a.arrow"),
        _write_ipc(table.slice(6, 2), parts / "part-b.arrow"),
    ]


def test_a_damaged_part_file_is_run_again(tmp_path):
    full = tmp_path / "full.parquet"
    _sweep_file(full, 1)
    # Single-bit flips at random places, each on a fresh copy: three in make test (each a sweep of its
    # own, ~3 s), six in make test-all.
    for trial in range(6 if os.environ.get("AMPSCHED_TEST_ALL") == "1" else 3):
        out = tmp_path / f"s{trial}.parquet"
        damaged, _ = _parts_of(full, tmp_path / f"s{trial}.parquet.parts")
        data = bytearray(open(damaged, "rb").read())
        rng = random.Random(trial)
        bit = rng.randrange(len(data) * 8)
        data[bit // 8] ^= 1 << (bit % 8)
        with open(damaged, "wb") as f:
            f.write(data)
        proc = _sweep_file(out, 2, resume=True)
        assert "damaged part file, its bytes do not match its checksum: removed; its runs run again" in proc.stderr
        assert "Traceback" not in proc.stderr
        assert "10 runs, 0 failed" in proc.stderr and "2 kept from before" in proc.stderr
        assert out.read_bytes() == full.read_bytes()


def test_a_part_file_without_its_checksum_is_run_again(tmp_path):
    full, out = tmp_path / "full.parquet", tmp_path / "s.parquet"
    _sweep_file(full, 1)
    kept, legacy = _parts_of(full, tmp_path / "s.parquet.parts")
    os.rename(legacy, tmp_path / "s.parquet.parts" / "part-b.arrow")  # a name this version did not write
    proc = _sweep_file(out, 2, resume=True)
    assert "no checksum in its name" in proc.stderr and "7 runs, 0 failed" in proc.stderr
    assert out.read_bytes() == full.read_bytes()


def test_a_damaged_result_file_is_refused_not_resumed(tmp_path):
    out = tmp_path / "s.parquet"
    _sweep_file(out, 1)
    data = bytearray(out.read_bytes())
    data[len(b"PAR1") + 40] ^= 0x04  # inside the first data page, which carries a CRC
    out.write_bytes(data)
    message = _refused(*GRID, "--output", str(out), "--resume")
    assert "not a sweep file" in message


EXITS = """
import os
import ampsched


class Exits(ampsched.Policy):
    quantum_ms = 10

    def decide(self, view):
        os._exit(0)
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_policy_that_ends_its_worker_is_one_line(tmp_path, jobs):
    policy = tmp_path / "exits.py"
    policy.write_text(EXITS)
    out = tmp_path / "s.parquet"
    proc = run_module(
        "sweep",
        "--machines",
        "dvfs-2x",
        "--workloads",
        "demo",
        "--policies",
        f"{policy}:Exits",
        "--output",
        str(out),
        "--jobs",
        jobs,
    )
    assert proc.returncode == 2
    # The sweep said its size before starting; then the failure is one line.
    said, _, error = proc.stderr.partition("\n")
    assert said == "ampsched: sweep: 1 machine × 1 workload × 1 policy variant × 1 seed = 1 runs"
    message = assert_one_line_error(error)
    assert "a worker process died while running the run dvfs-2x demo" in message and "seed 1" in message
    assert "--resume continues" in message


def test_a_sweep_file_nested_too_deep_is_one_line(tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("machines = " + "[" * 1000 + "]" * 1000 + "\n")
    assert "nested too deep" in _refused(str(deep), "--output", str(tmp_path / "o.parquet"))
