"""What a newcomer meets first in the command line (issue 25): --version, progress of long runs
and the over-budget message's rate, tables within 100 columns, --help, compare --trace DIR,
--set on a catalog machine, and one wording for an unknown policy option across run, compare
and sweep."""

import io
import json
import os
import re
import sys

import pytest

import ampsched
from ampsched import cli
from ampsched._console import ProgressBar
from test_cli import assert_one_line_error, run_module

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

# A run of ~1.8 million events (0.1 ms slices; a few tenths of a second): long enough for the
# engine to report progress (every 16,384 events, at most every 50 ms), short enough for a test.
LONG_RUN = ("2fc-2sc-amd", "ch5-single-fftw", "rr")
LONG_RUN_SLICE_MS = 0.1


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_version_is_the_package_metadata(capsys):
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        version = tomllib.load(f)["project"]["version"]
    assert ampsched.__version__ == version
    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"ampsched {version}\n"


# ---- progress


def test_budget_note_hand_checked():
    message = "w.toml: the run of rr passed its budget: 1e6 events (--max-events) went by, stopped at t=1 s"
    default = cli.DEFAULTS["max_events"]
    assert default == 2e8  # the numbers below are derived for it
    # 1e6 events in 0.8 s: 1.25M events/s; the default 2e8 at that rate: 160 s, "3 min".
    assert cli.budget_note(message, 1_000_000, 0.8) == (
        message + " (at the 1.25M events/s measured, the default budget of 2e8 events would take about 3 min)"
    )
    # The default budget itself (used up in 100 s: 2M events/s): the rate, nothing to foretell.
    assert cli.budget_note(message, default, 100.0) == message + " (at the 2.00M events/s measured)"
    other = "w.toml: the run of rr passed its budget: 10 s of simulated time (--max-sim-s) went by"
    assert cli.budget_note(other, 1_000_000, 0.8) == other


def test_an_over_budget_run_says_the_rate_and_how_long_the_default_would_take():
    out = run_module("run", "--machine", LONG_RUN[0], "--workload", LONG_RUN[1], "--policy", LONG_RUN[2],
                     "--slice-ms", str(LONG_RUN_SLICE_MS), "--max-events", "1e5")  # fmt: skip
    assert out.returncode == 2
    line = assert_one_line_error(out.stderr)
    found = re.search(
        r"\(at the ([\d.]+)(k|M) events/s measured, the default budget of 2e8 events would take about (.+)\)$", line
    )
    assert found, line


def test_the_engine_reports_progress_during_a_run():
    calls = []
    ampsched.run(*LONG_RUN, slice_ms=LONG_RUN_SLICE_MS, progress=lambda *a: calls.append(a))
    assert calls, "a run of 1.8M events reports its progress"
    events = [e for _, e, _ in calls]
    assert events == sorted(events) and len(set(events)) == len(events)  # the command's events only grow
    assert all(budget == cli.DEFAULTS["max_events"] and 0 < e <= budget for _, e, budget in calls)
    assert all(sim_s >= 0 for sim_s, _, _ in calls)


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_drawn_on_a_terminal_only():
    # show_after_s=0: the bar as it is drawn after the wait, without waiting for it in a test.
    shown, hidden = FakeTerminal(), io.StringIO()
    for stream in (shown, hidden):
        bar = ProgressBar(stream, show_after_s=0)
        ampsched.run(*LONG_RUN, slice_ms=LONG_RUN_SLICE_MS, progress=bar.tick)
        bar.clear()
    assert hidden.getvalue() == ""
    assert "/200M" in shown.getvalue() and "s simulated" in shown.getvalue() and "ev/s" in shown.getvalue()


def test_a_short_command_in_a_pipe_prints_nothing_but_its_result():
    out = run_module("run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr")
    assert out.returncode == 0 and out.stderr == ""


# ---- tables


@pytest.mark.parametrize("kind", cli.KINDS)
def test_list_fits_100_columns_and_wide_does_not_cut(kind, capsys):
    assert cli.main(["list", kind]) == 0
    narrow = capsys.readouterr().out
    assert widest(narrow) <= cli.TABLE_WIDTH
    assert cli.main(["list", kind, "--wide"]) == 0
    wide = capsys.readouterr().out
    for entry in json.loads(ampsched.catalog(kind, as_json=True)):
        assert entry["description"] in wide  # whole, on one line
    if kind == "policies":
        assert widest(wide) > cli.TABLE_WIDTH  # the wrapping did something


def test_default_compare_fits_100_columns_and_wide_is_one_table(capsys):
    assert cli.main(["compare"]) == 0
    narrow = capsys.readouterr().out
    assert widest(narrow) <= cli.TABLE_WIDTH
    assert cli.main(["compare", "--wide"]) == 0
    wide = capsys.readouterr().out
    assert widest(wide) > cli.TABLE_WIDTH  # 178 columns in one table: the split did something
    assert narrow.count("policy  ") > wide.count("policy  ")  # the metrics table came in blocks
    for policy in ampsched.default_comparison()["policies"]:
        assert f"\n{policy} " in narrow


# ---- --help


def test_every_command_has_a_description_and_compare_names_its_demo():
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name, command in commands.items():
        assert command.description, name
    demo = ampsched.default_comparison()
    text = commands["compare"].format_help()
    assert f"--machine {demo['machine']}" in " ".join(text.split())


# ---- compare --trace DIR


def test_compare_writes_one_trace_per_policy_and_refuses_to_replace_them(tmp_path, capsys):
    argv = ["compare", "--machine", "dvfs-2x", "--workload", "demo", "--policies", "rr,rr:threshold_ms=20"]
    assert cli.main(argv + ["--trace", str(tmp_path)]) == 0
    names = sorted(os.listdir(tmp_path))
    assert names == ["rr.json", "rr_threshold_ms=20.json"]
    for name in names:
        with open(tmp_path / name) as f:
            assert json.load(f)["traceEvents"]
    before = (tmp_path / "rr.json").read_bytes()
    capsys.readouterr()
    assert cli.main(argv + ["--trace", str(tmp_path)]) == 2
    err = assert_one_line_error(capsys.readouterr().err)
    assert (
        err
        == f"ampsched: error: --trace: {tmp_path / 'rr.json'}: exists: give another directory, or --force to replace it"
    )
    assert (tmp_path / "rr.json").read_bytes() == before
    assert cli.main(argv + ["--trace", str(tmp_path), "--force"]) == 0  # same seed: same traces
    assert (tmp_path / "rr.json").read_bytes() == before
    assert cli.main(argv + ["--trace", str(tmp_path / "none")]) == 2
    assert "not a directory" in assert_one_line_error(capsys.readouterr().err)


# ---- --set


def test_set_changes_a_catalog_machine_and_its_shared_llc(capsys):
    argv = ["run", "--machine", "intel-8p8e", "--workload", "demo", "--policy", "rr", "--json"]
    assert cli.main(argv + ["--set", "pcore.count=6", "--set", "ecore.freq_ghz=2.0"]) == 0
    cores = json.loads(capsys.readouterr().out)["cores"]
    assert len(cores) == 6 + 8  # its one LLC, "0-15", follows: "0-13"
    assert [c["type"] for c in cores].count("pcore") == 6


@pytest.mark.parametrize(
    "edit,says",
    [
        ("big.count=6", "--set: big.count=6: no core type 'big' in this machine (its core types: pcore, ecore)"),
        ("pcore.count", "--set: pcore.count: expected TYPE.KEY=VALUE (e.g. pcore.count=6) or KEY=VALUE"),
        ("pcore.count=six", "--set: pcore.count=six: 'six' is not a TOML value"),
        # Checked as the file is: its errors name the file, the edit and the key.
        ("pcore.count=0", "catalog/machines/intel-8p8e.toml with --set pcore.count=0: core_type[0].count: must be"),
        ("pcore.cnt=6", "catalog/machines/intel-8p8e.toml with --set pcore.cnt=6: core_type[0].cnt: unknown key"),
    ],
)
def test_set_errors_are_one_line_naming_the_edit(edit, says, capsys):
    argv = ["run", "--machine", "intel-8p8e", "--workload", "demo", "--policy", "rr", "--set", edit]
    assert cli.main(argv) == 2
    assert assert_one_line_error(capsys.readouterr().err).startswith(f"ampsched: error: {says}")


# ---- one wording for an unknown option


def test_an_unknown_policy_option_is_worded_alike_by_run_compare_and_sweep(tmp_path, capsys):
    said = "unknown option 'quantum' (rr takes: quantum_ms, threshold_ms, prefer_local)"
    where = ["--machine", "dvfs-2x", "--workload", "demo"]
    for argv in (
        ["run", *where, "--policy", "rr:quantum=5"],
        ["compare", *where, "--policies", "rr:quantum=5,busyfcs"],
        ["sweep", "--machines", "dvfs-2x", "--workloads", "demo", "--policies", "rr:quantum=5",
         "--output", str(tmp_path / "s.parquet")],
    ):  # fmt: skip
        assert cli.main(argv) == 2, argv
        assert assert_one_line_error(capsys.readouterr().err).endswith(said), argv
