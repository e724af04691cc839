"""Every file ampsched writes is written whole, through a temporary file renamed over the target,
and never through a symlink or into a FIFO or device: such a target is refused in one line before
any work (docs: the guarantees page)."""

import os
import subprocess
import sys

import pytest

import ampsched
from conftest import env_with_package
from test_cli import assert_one_line_error, run_module

if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)

RUN = ["run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr"]
COMPARE = ["compare", "--machine", "dvfs-2x", "--workload", "demo", "--policies", "rr,busyfcs"]
OUTPUTS = [
    (RUN, "--trace"),
    (COMPARE, "--report"),
    (["topology", "--cores", "0-1"], "--save"),
    (["sweep", "--machines", "dvfs-2x", "--workloads", "demo", "--policies", "rr"], "--output"),
]


def _targets(tmp_path):
    """A symlink to a file of the user's, and a FIFO (opened for writing, it would block forever)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's")
    link = tmp_path / "link"
    link.symlink_to(victim)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return victim, {"link": (link, "is a symbolic link"), "fifo": (fifo, "not a regular file (a FIFO)")}


@pytest.mark.parametrize("command, option", OUTPUTS, ids=[o for _, o in OUTPUTS])
def test_a_symlink_or_fifo_output_is_refused_before_any_work(tmp_path, command, option):
    victim, targets = _targets(tmp_path)
    for path, message in targets.values():
        proc = run_module(*command, option, str(path))
        assert proc.returncode == 2
        assert f"{option}: {path}: {message}" in assert_one_line_error(proc.stderr)
    assert victim.read_text() == "the user's"
    assert (tmp_path / "fifo").is_fifo() and (tmp_path / "link").is_symlink()


def test_an_existing_regular_output_is_replaced_whole(tmp_path):
    # A report or trace is regenerated at will (unlike a sweep's results); written through a
    # temporary file renamed over it, with no temporary file left behind.
    report = tmp_path / "report.html"
    report.write_text("old")
    assert run_module(*COMPARE, "--report", str(report)).returncode == 0
    assert report.read_text().startswith("<!DOCTYPE html>")
    assert os.listdir(tmp_path) == ["report.html"]


def test_the_engine_refuses_a_symlink_trace_itself(tmp_path):
    # ampsched.run() hands the path to the engine, which writes the trace: same rule there.
    victim, targets = _targets(tmp_path)
    with pytest.raises(ampsched.InputError, match="is a symbolic link"):
        ampsched.run("dvfs-2x", "demo", "rr", trace=targets["link"][0])
    assert victim.read_text() == "the user's"
    trace = tmp_path / "t.json"
    ampsched.run("dvfs-2x", "demo", "rr", trace=trace)
    assert trace.read_text().startswith("{") and sorted(os.listdir(tmp_path)) == [
        "fifo",
        "link",
        "t.json",
        "victim.txt",
    ]


def test_write_report_refuses_a_symlink(tmp_path):
    victim, targets = _targets(tmp_path)
    raw = ampsched.compare("dvfs-2x", "demo", ["rr"]).attrs["raw"]
    with pytest.raises(ampsched.InputError, match="is a symbolic link"):
        ampsched.write_report(raw, targets["link"][0])
    assert victim.read_text() == "the user's"


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_reproduce_refuses_a_document_or_figure_it_would_write_through(tmp_path, kind):
    victim, targets = _targets(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    name = "thesis-uf.md" if kind == "fifo" else "thesis-uf-fig6-1.png"
    os.rename(targets[kind][0], out / name)
    proc = subprocess.run(
        [sys.executable, "-m", "ampsched", "reproduce", "thesis-uf", "--quick", "--output", str(out)],
        capture_output=True,
        text=True,
        env=env_with_package(),
        timeout=60,
    )
    assert proc.returncode == 2
    assert f"{out / name}: {targets[kind][1]}" in assert_one_line_error(proc.stderr)
    assert victim.read_text() == "the user's"
