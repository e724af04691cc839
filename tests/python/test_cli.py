"""The `ampsched` command: text output on sample results, and its error handling."""

import json
import subprocess
import sys

import pytest

import ampsched
from ampsched import cli
from conftest import HOSTILE, env_with_package


def run_module(*args):
    """`python -m ampsched ARGS` in a child, with this test run's ampsched importable."""
    return subprocess.run(
        [sys.executable, "-m", "ampsched", *args], capture_output=True, text=True, env=env_with_package(), timeout=600
    )


def assert_one_line_error(stderr):
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ampsched: error: "), stderr
    return lines[0]


# ---- text output


def test_format_compare(sample_results):
    text = cli.format_compare(sample_results)
    lines = text.splitlines()
    assert lines[0] == "machine dvfs-2x | workload demo | seed 7 | slice 4.0 ms | baseline rr"
    header = lines[2].split()
    # ANTT first: it means something under constant load, where makespan does not.
    assert header[:3] == ["policy", "antt", "makespan_s"] and header[-1] == "speedup"
    assert lines[4].split()[:3] == ["rr", "1.400", "12.000"]
    assert "slowdown per app" in lines
    assert lines[-1].split() == [HOSTILE, "1.600", "1.300"]


def test_format_run(sample_results):
    text = cli.format_run(sample_results[0])
    assert text.splitlines()[0].startswith("policy rr | machine dvfs-2x")
    assert "policy_calls" in text and "turnaround_s" in text and "busy_s" in text
    # unlike metrics in one column keep their own decimals
    assert "antt                  1.400" in text and "edp                  3000.0" in text


@pytest.mark.parametrize(
    "kind, entry, expected",
    [
        (
            "machines",
            {
                "name": "m",
                "description": "d",
                "source": "builtin",
                "cores": 4,
                "core_types": [
                    {"name": "big", "count": 2, "freq_ghz": 3.0, "capacity": 1.0},
                    {"name": "little", "count": 2, "freq_ghz": 1.2, "capacity": 0.4},
                ],
            },
            "2x big 3.0 GHz cap 1.0 + 2x little 1.2 GHz cap 0.4",
        ),
        ("workloads", {"name": "w", "description": "d", "source": "builtin", "apps": 3, "threads": 9}, "9"),
        (
            "policies",
            {
                "name": "rr",
                "description": "d",
                "source": "builtin",
                "needs": ["counters", "locks"],
                "options": {"threshold_ms": 50, "strict": True, "mode": "fast"},
            },
            "threshold_ms=50 strict=true mode=fast",
        ),
        (
            "programs",
            {"name": "gzip", "description": "compressor", "source": "catalog/programs/gzip.toml"},
            "compressor",
        ),
    ],
)
def test_format_catalog(kind, entry, expected):
    lines = cli.format_catalog(kind, [entry, dict(entry, name="longer-name")]).splitlines()
    assert lines[0].startswith("name ") and lines[0].rstrip().endswith("description")
    assert expected in lines[2]
    # aligned: the second column starts at the same place on every row
    starts = {len(line) - len(line[len(line.split()[0]) :].lstrip()) for line in lines[2:]}
    assert len(starts) == 1


# ---- errors without the engine


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["bogus"],
        ["list", "nothing"],
        ["run", "--machine", "m", "--workload", "w", "--policy", "p", "--seed", "-1"],
        ["run", "--machine", "m", "--workload", "w", "--policy", "p", "--seed", "x"],
        ["run", "--machine", "m", "--workload", "w", "--policy", "p", "--seed", " 5"],
        ["run", "--machine", "m", "--workload", "w", "--policy", "p", "--seed", "\u0661"],
        ["run", "--machine", "m", "--workload", "w", "--policy", "p", "--seed", "+5"],
        ["run", "--machine", "m", "--workload", "w", "--policy", "p", "--seed", str(2**64)],
        ["run", "--machine", "m", "--workload", "w", "--policy", "p", "--slice-ms", "0"],
        ["run", "--machine", "m", "--workload", "w", "--policy", "p", "--slice-ms", "nan"],
        ["run", "--machine", "m"],
        ["agent", "--policy", "p", "--interval", "-1", "--", "true"],
        ["agent", "--policy", "p", "--interval", "1e14", "--", "true"],
        ["agent", "--policy", "p", "--interval", "x", "--", "true"],
        ["agent", "--policy", "p", "--pid", "0"],
        ["agent", "--policy", "p", "--seed", "x", "--", "true"],
        ["agent", "--", "true"],
    ],
)
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    # One line, like every other error of the CLI, naming the option when there is one.
    line = assert_one_line_error(capsys.readouterr().err)
    options = [a for a in argv if a.startswith("--") and a != "--"]
    if options and "required" not in line:
        assert line.startswith(f"ampsched: error: {options[-1]}: "), line


def test_report_in_missing_directory(tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "report.html"
    assert cli.main(["compare", "--report", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert_one_line_error(captured.err)
    assert "--report" in captured.err


def test_report_path_is_a_directory(tmp_path, capsys):
    assert cli.main(["compare", "--report", str(tmp_path)]) == 2
    assert_one_line_error(capsys.readouterr().err)


def test_empty_policy_list(capsys):
    assert cli.main(["compare", "--policies", " , "]) == 2
    assert_one_line_error(capsys.readouterr().err)


def test_keyboard_interrupt_is_quiet(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_list", interrupted)
    assert cli.main(["list", "machines"]) == 130
    assert capsys.readouterr() == ("", "ampsched: interrupted\n")


def test_python_dash_m_help():
    done = run_module("--help")
    assert done.returncode == 0
    assert "usage: ampsched" in done.stdout and "compare" in done.stdout


def test_missing_engine_is_reported(monkeypatch, capsys):
    # As a checkout without the compiled engine sees it, whether or not it is built here.
    missing = ImportError("No module named 'ampsched._core'", name="ampsched._core")
    monkeypatch.setattr(ampsched, "_core", None)
    monkeypatch.setattr(ampsched, "_core_error", missing)
    assert cli.main(["list", "machines"]) == 1
    err = capsys.readouterr().err
    assert_one_line_error(err)
    assert "ampsched._core" in err


# ---- with the engine


def test_unknown_machine_with_engine():
    pytest.importorskip("ampsched._core")
    done = run_module("run", "--machine", "nonexistent", "--workload", "demo", "--policy", "rr")
    assert done.returncode == 2
    assert done.stdout == ""
    assert_one_line_error(done.stderr)


def test_unknown_policy_with_engine(capsys):
    core = pytest.importorskip("ampsched._core")
    default = json.loads(core.default_compare())
    code = cli.main(
        ["run", "--machine", default["machine"], "--workload", default["workload"], "--policy", "no-such-policy"]
    )
    assert code == 2
    assert_one_line_error(capsys.readouterr().err)


def test_run_and_compare_json_with_engine(tmp_path, capsys):
    core = pytest.importorskip("ampsched._core")
    default = json.loads(core.default_compare())
    policy = default["policies"][0]
    assert (
        cli.main(
            ["run", "--machine", default["machine"], "--workload", default["workload"], "--policy", policy, "--json"]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["policy"] == policy and "makespan_s" in result

    report = tmp_path / "r.html"
    assert cli.main(["compare", "--json", "--report", str(report)]) == 0
    captured = capsys.readouterr()
    results = json.loads(captured.out)  # stdout is the JSON and nothing else
    # hh1 names the default metric as its baseline: it comes last, as a row of its own.
    assert [r["policy"] for r in results] == default["policies"] + ["default"]
    assert all(r["baseline"] == "default" for r in results)
    assert all("timeline" in r for r in results)  # --report asks for timelines
    assert "<svg" in report.read_text(encoding="utf-8")
    # stderr is not a terminal here: no progress bar, only the note about the report
    assert captured.err.strip() == f"ampsched: report written to {report}"


@pytest.mark.parametrize("kind", cli.KINDS)
def test_list_with_engine(kind, capsys):
    pytest.importorskip("ampsched._core")
    assert cli.main(["list", kind]) == 0
    assert capsys.readouterr().out.startswith("name ")
    assert cli.main(["list", kind, "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert entries and all({"name", "description", "source"} <= set(e) for e in entries)


def test_same_seed_is_byte_identical_across_processes(tmp_path):
    pytest.importorskip("ampsched._core")
    outs = []
    for i in range(2):
        trace = tmp_path / f"t{i}.json"
        done = run_module(
            "run",
            "--machine",
            "dvfs-2x",
            "--workload",
            "demo",
            "--policy",
            "rr",
            "--seed",
            "3",
            "--json",
            "--trace",
            str(trace),
        )
        assert done.returncode == 0, done.stderr
        outs.append((done.stdout, trace.read_bytes()))
    assert outs[0] == outs[1]
    json.loads(outs[0][1])  # the trace is valid JSON


def test_bad_workload_file_names_file_and_key(tmp_path):
    pytest.importorskip("ampsched._core")
    bad = tmp_path / "bad.toml"
    bad.write_text('[[app]]\nname = "a"\nthreads = -1\nprogram = "gzip"\n')
    done = run_module("run", "--machine", "dvfs-2x", "--workload", str(bad), "--policy", "rr")
    assert done.returncode == 2
    assert_one_line_error(done.stderr)
    assert f"{bad}: app[0].threads: must be a whole number from 1 to 262144, got -1" in done.stderr


def test_unfinishable_workload_is_reported_not_hung(tmp_path):
    pytest.importorskip("ampsched._core")
    w = tmp_path / "stuck.toml"
    w.write_text(
        '[[app]]\nname = "x"\n[[app.group]]\nname = "main"\n[[app.group.phase]]\nkind = "compute"\n'
        'instructions = 1e6\n[[app.group]]\nname = "workers"\ncount = 2\n[[app.group.phase]]\n'
        'kind = "barrier"\nscope = "app"\nwait = "spin"\n'
    )
    done = run_module("run", "--machine", "dvfs-2x", "--workload", str(w), "--policy", "oblivious")
    assert done.returncode == 2
    assert_one_line_error(done.stderr)
    # Named by its file, as every other problem with the input is.
    assert (
        f"ampsched: error: {w}: the workload can never finish" in done.stderr and "waits for a barrier" in done.stderr
    )


def test_compare_default_baseline_is_seed_independent():
    pytest.importorskip("ampsched._core")
    rows = []
    for seed in ("1", "5"):
        done = run_module(
            "compare", "--machine", "2fc-2sc-amd", "--workload", "hh1", "--policies", "static", "--seed", seed, "--json"
        )
        assert done.returncode == 0, done.stderr
        rows.append({r["policy"]: r for r in json.loads(done.stdout)})
    a, b = rows
    assert a["default"]["apps"] == b["default"]["apps"] and a["default"]["makespan_s"] == b["default"]["makespan_s"]
    assert a["default"]["speedup_vs_baseline"] == 1.0 and a["static"]["baseline"] == "default"
    # An explicit baseline overrides the workload's.
    done = run_module(
        "compare",
        "--machine",
        "2fc-2sc-amd",
        "--workload",
        "hh1",
        "--policies",
        "static",
        "--baseline",
        "static",
        "--json",
    )
    assert [r["policy"] for r in json.loads(done.stdout)] == ["static"]


def test_bad_workload_baseline_names_file_and_key(tmp_path):
    pytest.importorskip("ampsched._core")
    bad = tmp_path / "bad.toml"
    bad.write_text('baseline = "best"\n[[app]]\nname = "a"\nprogram = "gzip"\n')
    done = run_module("compare", "--machine", "dvfs-2x", "--workload", str(bad), "--policies", "rr")
    assert done.returncode == 2
    assert_one_line_error(done.stderr)
    assert f"{bad}: baseline: unknown baseline 'best' (known: default)" in done.stderr


def test_an_empty_report_path_is_named(capsys):
    assert cli.main(["compare", "--report", ""]) == 2
    err = capsys.readouterr().err
    assert_one_line_error(err)
    assert "--report: the path is empty" in err


def test_a_report_path_that_refuses_writing_is_named(capsys):
    # /proc/version passes the early checks (a file in an existing directory) and refuses the write.
    argv = [
        "compare",
        "--machine",
        "dvfs-2x",
        "--workload",
        "demo",
        "--policies",
        "oblivious",
        "--report",
        "/proc/version",
    ]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert_one_line_error(err)
    assert err.startswith("ampsched: error: --report: /proc/version: ")


# ---- issue 10: budgets, and arguments the engine cannot take


def test_a_run_past_its_budget_is_one_line_naming_the_file_and_option():
    done = run_module("run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr", "--max-sim-s", "1")
    assert done.returncode == 2
    line = assert_one_line_error(done.stderr)
    # The error names the simulation that passed the budget: the first solo reference here.
    assert line.startswith(
        "ampsched: error: catalog/workloads/demo.toml: the solo reference run of cpu-bound passed "
        "its budget: 1 s of simulated time (--max-sim-s) went by, stopped at t=1.000000 s with 1 of "
        "1 apps unfinished ('cpu-bound')"
    ), line
    done = run_module(
        "compare", "--machine", "dvfs-2x", "--workload", "demo", "--policies", "rr,static", "--max-events", "1e2"
    )
    assert done.returncode == 2 and "100 events (--max-events)" in assert_one_line_error(done.stderr)


@pytest.mark.parametrize(
    "option,value,says",
    [
        (
            "--max-events",
            "18446744073709551616",
            "--max-events: must be a whole number from 1 to 1e13, got 18446744073709551616",
        ),
        ("--max-events", "1e14", "--max-events: must be a whole number from 1 to 1e13, got 1e14"),
        ("--max-sim-s", "2e9", "--max-sim-s: must be greater than 0 and at most 1e9 s, got 2e9"),
    ],
)
def test_a_budget_out_of_range_is_one_line(option, value, says):
    done = run_module("run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr", option, value)
    assert done.returncode == 2 and says in assert_one_line_error(done.stderr)


def test_an_argument_that_is_not_utf8_is_one_line_not_a_traceback():
    # A Linux file name may hold any bytes; Python hands them on as surrogates.
    done = subprocess.run(
        [sys.executable, "-m", "ampsched", "run", "--machine", b"m\xff.toml", "--workload", "demo", "--policy", "rr"],
        capture_output=True,
        env=env_with_package(),
        timeout=600,
    )
    assert done.returncode == 2
    assert assert_one_line_error(done.stderr.decode()) == "ampsched: error: --machine: not UTF-8 text: b'm\\xff.toml'"


# ---- issue 23: energy without a power model; one event budget for a whole command

NO_POWER = (
    'memory_latency_ns = 100\n[[core_type]]\nname = "big"\ncount = 2\nfreq_ghz = 2.6\n'
    '[[core_type]]\nname = "small"\ncount = 2\nfreq_ghz = 1.3\ncpi_scale = 1.5\n'
)
ENERGY = ("energy_j", "edp", "nj_per_instruction")
NOTE = (
    "note: energy_j, edp and nj_per_instruction are not modelled: the machine does not give a power "
    "(power_active_w, power_idle_w or power_levels_w) for every core type."
)


def test_energy_on_a_machine_without_power_keys_is_not_modelled_never_zero(tmp_path):
    machine = tmp_path / "no-power.toml"
    machine.write_text(NO_POWER)
    done = run_module("run", "--machine", str(machine), "--workload", "demo", "--policy", "rr", "--json")
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    assert [r[m] for m in ENERGY] == [None, None, None] and r["instructions_per_s"] > 0
    assert [c["energy_j"] for c in r["cores"]] == [None] * 4
    text = cli.format_run(r)
    metric_rows = [line.split(None, 1) for line in text.splitlines() if line.split()[:1] in ([m] for m in ENERGY)]
    assert metric_rows == [[m, "not modelled"] for m in ENERGY], text
    assert text.splitlines()[-1] == NOTE
    assert all(line.endswith("not modelled") for line in text.splitlines() if line.startswith(("0 ", "3 ")))
    done = run_module("compare", "--machine", str(machine), "--workload", "demo", "--policies", "rr,static", "--wide")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert NOTE in lines and all(
        line.count("not modelled") == 3 for line in lines if line.startswith(("rr ", "static "))
    )
    html = ampsched.report.render_report([r])
    assert NOTE[len("note: ") :] in html and html.count(">not modelled</td>") == 3
    # A machine with power keys keeps its numbers, and no note.
    r = json.loads(run_module("run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr", "--json").stdout)
    assert all(isinstance(r[m], float) and r[m] > 0 for m in ENERGY) and NOTE not in cli.format_run(r)


def test_energy_not_modelled_is_nan_in_the_dataframes(tmp_path):
    machine = tmp_path / "no-power.toml"
    machine.write_text(NO_POWER)
    r = ampsched.run(str(machine), "demo", "rr")
    for m in ENERGY:
        assert r.summary[m].dtype == "float64" and r.summary[m].isna().all()
    assert r.cores["energy_j"].dtype == "float64" and r.cores["energy_j"].isna().all()
    df = ampsched.compare(str(machine), "demo", ["rr", "static"])
    assert df["energy_j"].dtype == "float64" and df["energy_j"].isna().all()


def test_the_event_budget_is_one_for_the_whole_command_and_its_error_names_the_run():
    # As many events as the run of rr takes alone: its solo references take some first, and
    # the run of rr, left the rest, passes the budget (each simulation had the whole budget before).
    r = json.loads(run_module("run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr", "--json").stdout)
    done = run_module(
        "run", "--machine", "dvfs-2x", "--workload", "demo", "--policy", "rr", "--max-events", str(r["events"])
    )
    assert done.returncode == 2
    line = assert_one_line_error(done.stderr)
    assert line.startswith(
        f"ampsched: error: catalog/workloads/demo.toml: the run of rr passed its budget: {r['events']} "
        "events (--max-events, one budget for every simulation of the command) went by, "
    ), line
    assert "of them in its earlier simulations" in line


def _identical_to(result: dict, policy: str) -> dict:
    """A copy of `result` under another policy's name: the same placements."""
    return dict(result, policy=policy)


def test_compare_notes_rows_identical_to_an_earlier_one(sample_results):
    # The third row repeats the first's per-app and per-thread results: a note names the first.
    rows = sample_results + [_identical_to(sample_results[0], "rr-copy")]
    text = cli.format_compare(rows)
    assert "note: rr-copy: same placements as rr on this workload" in text
    assert ampsched.same_as(rows) == [None, None, "rr"]
    # One thread's fast-core time differs: not the same placements, no note.
    other = _identical_to(sample_results[0], "rr-moved")
    other["threads"] = [dict(other["threads"][0], fast_s=4.0)]
    assert "same placements" not in cli.format_compare(sample_results + [other])


def test_compare_flags_idleness_above_the_threshold(sample_results):
    # 2 cores x makespan 12 s = 24 core-seconds: 2.4 is 10% (not above), 2.5 is 10.4% (flagged).
    from ampsched._metrics import IDLE_FLAG_SHARE

    assert IDLE_FLAG_SHARE == 0.10
    below = [dict(r, idle_while_waiting_s=2.4 if r["policy"] == "rr" else 0.0) for r in sample_results]
    assert sample_results[0]["makespan_s"] == 12.0 and "sat idle" not in cli.format_compare(below)
    above = [dict(r, idle_while_waiting_s=2.5 if r["policy"] == "rr" else 0.0) for r in sample_results]
    text = cli.format_compare(above)
    assert "note: rr: cores sat idle while threads waited for 10% of the core-time" in text
    assert text.count("sat idle") == 1


def test_compare_names_a_policy_left_out(sample_results):
    rows = [
        dict(r, left_out=[{"policy": "best-static", "why": "the oracle searches at most 16 threads"}])
        for r in sample_results
    ]
    assert "note: best-static left out: it cannot run this workload (the oracle searches at most 16 threads" in (
        cli.format_compare(rows)
    )


def test_compare_leaves_out_best_static_above_16_threads_with_engine():
    # dacapo-adv-hsqldb has more than 16 threads: best-static cannot run it, the others do.
    df = ampsched.compare("wash-1b5s", "dacapo-adv-hsqldb", ["oblivious", "best-static"])
    assert list(df.index) == ["oblivious"]
    [left] = df.attrs["left_out"]
    assert left["policy"] == "best-static"
    assert left["why"].startswith("the oracle searches at most 16 threads; workload 'dacapo-adv-hsqldb' has ")
    assert "same_as" in df.columns and df.loc["oblivious", "idle_while_waiting_s"] >= 0


def test_compare_with_only_a_machine_says_which_workload_it_chose(capsys):
    assert cli.main(["compare", "--machine", "2fc-2sc-amd", "--policies", "static", "--json"]) == 0
    chosen = ampsched.default_comparison()["workload"]
    assert f"no --workload given: comparing on the demo workload {chosen}" in capsys.readouterr().err
