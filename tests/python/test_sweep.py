"""`ampsched sweep` and ampsched.sweep(): grid checks, the table, failures, resume, determinism."""

import os
import subprocess
import sys

import pytest

import ampsched
from conftest import env_with_package, sigint_as_in_a_terminal
from test_cli import assert_one_line_error, run_module

pytest.importorskip("pyarrow")
if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

GRID = ["--machines", "dvfs-2x", "--workloads", "demo,forkjoin", "--policies", "rr,busyfcs", "--seeds", "1-3"]

# best-static searches at most 16 threads: this workload is one it cannot run.
WIDE = """name = "wide"
description = "17 threads"
[[app]]
name = "par"
threads = 17
[[app.phase]]
kind = "compute"
instructions = 1.0e7
cpi = 1.0
"""


@pytest.mark.parametrize(
    "args, message",
    [
        (["--machines", "nope"], "machines: 'nope' is neither a catalog machine nor a file"),
        (["--workloads", "nope"], "workloads: 'nope' is neither"),
        (["--policies", "xx"], "unknown policy 'xx'"),
        (
            ["--policies", "rr:foo=1"],
            "rr:foo=1': unknown option 'foo' (rr takes: quantum_ms, threshold_ms, prefer_local)",
        ),
        (["--machines", ","], "machines: empty"),
        (["--seeds", "5-1"], "--seeds: the range 5-1 is empty"),
        (["--seeds", "0-4999999", "--workloads", "demo,forkjoin,locks"], "over 10,000,000: confirm with --yes"),
        (["--jobs", "0"], "--jobs: must be a whole number of at least 1"),
    ],
)
def test_bad_grids_one_line_exit_2(tmp_path, args, message):
    out = tmp_path / "s.parquet"
    base = dict(zip(GRID[::2], GRID[1::2]))
    base.update(zip(args[::2], args[1::2]))
    argv = ["sweep"] + [x for kv in base.items() for x in kv] + ["--output", str(out)]
    proc = run_module(*argv)
    assert proc.returncode == 2
    assert message in assert_one_line_error(proc.stderr)
    assert not os.path.exists(out) and not os.path.exists(f"{out}.parts")  # nothing ran


def test_frame_columns_rows_and_apps():
    df = ampsched.sweep("dvfs-2x", "demo,forkjoin", ["rr", "busyfcs"], seeds="1-3", jobs=1)
    assert len(df) == 12
    assert list(df.columns[:7]) == ["machine", "workload", "policy", "seed", "machine_path", "workload_path", "error"]
    one = ampsched.run("dvfs-2x", "demo", "rr", seed=2).summary.iloc[0]
    # every scalar metric of `run --json`, with the same values
    row = df[(df.workload == "demo") & (df.policy == "rr") & (df.seed == 2)].iloc[0]
    for key, value in one.items():
        assert row[key] == value, key
    assert df["error"].isna().all() and df.attrs["sweep"]["ran"] == 12
    apps = df.attrs["apps"]
    assert list(apps.columns[:7]) == ["machine", "workload", "policy", "seed", "machine_path", "workload_path", "app"]
    assert len(apps) == 6 * (5 + 2)  # demo has 5 apps, forkjoin 2; 6 runs each


def test_failed_run_recorded_and_exit_1(tmp_path):
    wide = tmp_path / "wide.toml"
    wide.write_text(WIDE)
    out = tmp_path / "s.parquet"
    proc = run_module(
        "sweep",
        "--machines",
        "dvfs-2x",
        "--workloads",
        f"demo,{wide}",
        "--policies",
        "rr,best-static",
        "--output",
        str(out),
        "--jobs",
        "2",
    )
    assert proc.returncode == 1, proc.stderr
    assert "4 runs, 1 failed" in proc.stderr and "Traceback" not in proc.stderr
    df = ampsched.read_sweep(out)
    failed = df[df["error"].notna()]
    assert len(df) == 4 and len(failed) == 1
    assert failed.iloc[0]["policy"] == "best-static" and "at most 16 threads" in failed.iloc[0]["error"]
    assert df[df["error"].isna()]["makespan_s"].notna().all()


def _sweep_file(path, jobs, resume=False):
    proc = run_module("sweep", *GRID, "--output", str(path), "--jobs", str(jobs), *(["--resume"] if resume else []))
    assert proc.returncode == 0, proc.stderr
    return proc


def test_same_bytes_whatever_the_job_count(tmp_path):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    _sweep_file(a, 1)
    _sweep_file(b, 2)
    assert a.read_bytes() == b.read_bytes()
    assert not os.path.exists(f"{a}.parts")
    df = ampsched.read_sweep(a)
    assert list(df[["machine", "workload", "policy", "seed"]].itertuples(index=False)) == sorted(
        df[["machine", "workload", "policy", "seed"]].itertuples(index=False)
    )


def test_resume_after_deleting_rows(tmp_path):
    full, out = tmp_path / "full.parquet", tmp_path / "s.parquet"
    _sweep_file(full, 2)
    table = pq.read_table(full)
    pq.write_table(table.slice(0, 5), out)  # 7 of 12 runs lost
    proc = _sweep_file(out, 2, resume=True)
    assert "7 runs, 0 failed" in proc.stderr and "5 kept from before" in proc.stderr
    assert out.read_bytes() == full.read_bytes()


def _write_ipc(table, path):
    """A part file as a sweep writes it: Arrow IPC, named part-ID.SHA256.arrow."""
    import hashlib

    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    data = sink.getvalue().to_pybytes()
    stem = str(path)[: -len(".arrow")]
    final = f"{stem}.{hashlib.sha256(data).hexdigest()}.arrow"
    with open(final, "wb") as f:
        f.write(data)
    return final


def test_resume_after_a_killed_sweep(tmp_path):
    # What SIGKILL leaves: whole part files, a half-written .tmp, no FILE.parquet.
    full, out = tmp_path / "full.parquet", tmp_path / "s.parquet"
    _sweep_file(full, 1)
    table = pq.read_table(full)
    parts = tmp_path / "s.parquet.parts"
    parts.mkdir()
    _write_ipc(table.slice(0, 3), parts / "part-a.arrow")
    _write_ipc(table.slice(6, 2), parts / "part-b.arrow")
    (parts / "part-c.arrow.tmp").write_bytes(b"ARROW1 cut short")
    refused = run_module("sweep", *GRID, "--output", str(out))
    assert refused.returncode == 2 and "--resume" in assert_one_line_error(refused.stderr)
    proc = _sweep_file(out, 2, resume=True)
    assert "7 runs" in proc.stderr
    assert out.read_bytes() == full.read_bytes()
    assert not parts.exists()


def _children(pid):
    """The pids whose parent is `pid` (Linux /proc)."""
    out = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == str(pid):
            out.append(int(name))
    return out


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


KILL_GRID = [
    "--machines",
    "dvfs-2x",
    "--workloads",
    "demo,forkjoin",
    "--policies",
    "rr,busyfcs",
    "--seeds",
    "1-250",
    "--jobs",
    "2",
]


@pytest.fixture(scope="module")
def uninterrupted_sweep(tmp_path_factory):
    """The bytes of KILL_GRID's sweep run to the end, made once for both signals."""
    full = tmp_path_factory.mktemp("uninterrupted") / "full.parquet"
    assert run_module("sweep", *KILL_GRID, "--output", str(full)).returncode == 0
    return full.read_bytes()


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
@pytest.mark.parametrize("sig", ["SIGINT", "SIGKILL"])
def test_a_real_kill_loses_only_batches_in_flight(tmp_path, sig, uninterrupted_sweep):
    # A real sweep stopped part-way: Ctrl-C says so (status 130); SIGKILL leaves no worker
    # behind; either way --resume finishes it into the same bytes as an uninterrupted sweep.
    import signal
    import subprocess
    import sys

    from conftest import env_with_package, wait_for

    out = tmp_path / "s.parquet"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ampsched", "sweep", *KILL_GRID, "--output", str(out)],
        stderr=subprocess.PIPE,
        text=True,
        env=env_with_package(),
        preexec_fn=sigint_as_in_a_terminal,
    )
    parts = tmp_path / "s.parquet.parts"
    wait_for(lambda: parts.is_dir() and any(n.endswith(".arrow") for n in os.listdir(parts)), 120, "a part file")
    workers = _children(proc.pid)
    proc.send_signal(getattr(signal, sig))
    stderr = proc.communicate(timeout=60)[1]
    if sig == "SIGINT":
        assert proc.returncode == 130 and stderr.strip().splitlines()[-1] == "ampsched: interrupted", stderr
    wait_for(lambda: not any(_alive(w) for w in workers), 30, "the workers to exit")
    assert not out.exists() and any(n.endswith(".arrow") for n in os.listdir(parts))
    resumed = run_module("sweep", *KILL_GRID, "--output", str(out), "--resume")
    assert resumed.returncode == 0 and "kept from before" in resumed.stderr, resumed.stderr
    assert out.read_bytes() == uninterrupted_sweep


def test_python_jobs_1_and_2_frames_equal():
    one = ampsched.sweep("dvfs-2x", ["demo"], "rr,oblivious", seeds=[3, 1, 2], jobs=1)
    two = ampsched.sweep("dvfs-2x", ["demo"], "rr,oblivious", seeds=[3, 1, 2], jobs=2)
    assert one.equals(two) and one.attrs["apps"].equals(two.attrs["apps"])
    assert list(one["seed"]) == [1, 2, 3, 1, 2, 3]


SWEEP_FILE = """machines = "dvfs-2x"
workloads = ["demo", "forkjoin"]
policies = ["rr", "busyfcs"]
seeds = "1-2"
output = "{out}"

[[override]]
workloads = ["forkjoin"]
slice_ms = 8

[[override]]          # the first override's slice, then this one's budget: both apply
workloads = ["forkjoin"]
policies = ["rr"]
max_sim_s = 1e5

[[override]]
workloads = ["demo"]
policies = ["busyfcs"]
seeds = [2]
skip = true

[[override]]          # after the skip, matching the skipped run too: it stays skipped
workloads = ["demo"]
max_events = 5e8
"""


def test_sweep_file_overrides_and_skip(tmp_path):
    out = tmp_path / "s.parquet"
    spec = tmp_path / "s.toml"
    spec.write_text(SWEEP_FILE.format(out=out))
    proc = run_module("sweep", str(spec), "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    df = ampsched.read_sweep(out)
    assert len(df) == 2 * 2 * 2 - 1  # demo x busyfcs x seed 2 skipped
    settings = {
        (r.workload, r.policy, r.seed): (r.slice_ms, r.max_sim_s, r.max_events) for r in df.itertuples(index=False)
    }
    default_events = ampsched.defaults()["max_events"]
    assert settings[("demo", "rr", 1)] == (4.0, 1e7, 500_000_000)
    assert settings[("forkjoin", "busyfcs", 2)] == (8.0, 1e7, default_events)
    assert settings[("forkjoin", "rr", 1)] == (8.0, 1e5, default_events)
    assert ("demo", "busyfcs", 2) not in settings
    # The override's slice is the one the engine ran with: the same metrics as a single run.
    one = ampsched.run("dvfs-2x", "forkjoin", "rr", seed=1, slice_ms=8).summary.iloc[0]
    row = df[(df.workload == "forkjoin") & (df.policy == "rr") & (df.seed == 1)].iloc[0]
    assert row["makespan_s"] == one["makespan_s"] and row["migrations"] == one["migrations"]
    # Options on the command line win over the file's keys; overrides still apply on top.
    df2 = ampsched.sweep(file=spec, output=tmp_path / "s2.parquet", seeds=[1], slice_ms=2)
    assert sorted(set(zip(df2.workload, df2.slice_ms))) == [("demo", 2.0), ("forkjoin", 8.0)]


@pytest.mark.parametrize(
    "body, message",
    [
        ("machines = 3", "s.toml: machines: expected a string or a list of strings, got int"),
        ("bogus = 1", "s.toml: unknown key 'bogus'"),
        ("machines = 'nope'", "s.toml: machines: 'nope' is neither a catalog machine nor a file"),
        ("[[override]]\nworkloads = ['w9']\nslice_ms = 2", "s.toml: override 1: workloads: 'w9' is not in the grid's"),
        ("[[override]]\nslice_ms = 0.001", "s.toml: override 1: slice_ms: must be from 0.1 to 100 ms"),
        ("[[override]]\nworkloads = ['demo']", "s.toml: override 1: changes nothing"),
        ("[[override]]\nskip = true\nslice_ms = 2", "s.toml: override 1: skip = true and settings"),
        ("[[override]]\nskip = true", "the overrides skip every run"),
        ("slice_ms = 'x'", "s.toml: slice_ms: must be a number, got 'x'"),
        ("max_events = 0", "s.toml: max_events: must be a whole number from 1 to 1e13"),
        ("x = [", "s.toml: not valid TOML"),
    ],
)
def test_bad_sweep_files_one_line_exit_2(tmp_path, body, message):
    spec = tmp_path / "s.toml"
    base = {"machines": "machines = 'dvfs-2x'", "workloads": "workloads = 'demo'", "policies": "policies = 'rr'"}
    lines = [v for k, v in base.items() if not body.startswith(k)]
    # Keys before tables: TOML puts every key after [[override]] into the override.
    spec.write_text("\n".join(lines + [f"output = '{tmp_path / 'o.parquet'}'", body]) + "\n")
    proc = run_module("sweep", str(spec))
    assert proc.returncode == 2, proc.stderr
    assert message in assert_one_line_error(proc.stderr)
    assert not os.path.exists(tmp_path / "o.parquet")


def test_resume_reruns_failed_runs_and_changed_slices(tmp_path):
    out = tmp_path / "s.parquet"
    grid = ["--machines", "dvfs-2x", "--workloads", "demo", "--policies", "rr", "--seeds", "1-2", "--output", str(out)]
    # A budget too small for seed 1 and 2: both fail; raised on resume, both run again.
    assert run_module("sweep", *grid, "--max-events", "100").returncode == 1
    assert ampsched.read_sweep(out)["error"].str.contains("100 events (--max-events) went by", regex=False).all()
    proc = run_module("sweep", *grid, "--resume")
    assert proc.returncode == 0 and "2 runs, 0 failed" in proc.stderr, proc.stderr
    # Same slice: kept. Another slice: the stored rows are not the runs asked for.
    assert "0 runs, 0 failed" in run_module("sweep", *grid, "--resume").stderr
    proc = run_module("sweep", *grid, "--resume", "--slice-ms", "8")
    assert "2 runs, 0 failed" in proc.stderr
    assert list(ampsched.read_sweep(out)["slice_ms"]) == [8.0, 8.0]


def test_verify_same_and_changed(tmp_path):
    out = tmp_path / "s.parquet"
    _sweep_file(out, 2)
    proc = run_module("sweep", "--verify", str(out), "--sample", "5")
    assert proc.returncode == 0 and "5 runs of" in proc.stderr and "5 identical, 0 differ" in proc.stderr, proc.stderr
    # A result that no longer comes out of the engine: the row's makespan is one ulp off.
    table = pq.read_table(out)
    column = table.column("makespan_s").to_pylist()
    import math

    column = [math.nextafter(v, math.inf) for v in column]
    pq.write_table(
        table.set_column(table.schema.get_field_index("makespan_s"), "makespan_s", __import__("pyarrow").array(column)),
        out,
    )
    proc = run_module("sweep", "--verify", str(out), "--sample", "3")
    assert proc.returncode == 1, proc.stderr
    assert "differs in makespan_s" in proc.stderr and "0 identical, 3 differ" in proc.stderr
    df = ampsched.verify_sweep(out, sample=100, jobs=1)  # more than the rows: all of them
    assert len(df) == 12 and not df["identical"].any() and set(df["differences"]) == {"makespan_s"}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--verify", "nope.parquet"], "nope.parquet: cannot read: no such file"),
        (
            ["--verify", "x.parquet", "--seeds", "1"],
            "--verify: re-runs FILE's own runs with their own settings: give it without --seeds",
        ),
        (
            ["--machines", "dvfs-2x", "--workloads", "demo", "--policies", "rr"],
            "--output: required without a sweep file",
        ),
    ],
)
def test_verify_and_missing_options_errors(tmp_path, args, message):
    proc = run_module("sweep", *args)
    assert proc.returncode == 2
    assert message in assert_one_line_error(proc.stderr)


# ---- inputs a sweep must refuse before it runs anything (found by trying to break it)

SMALL = ["--machines", "dvfs-2x", "--workloads", "demo", "--policies", "rr"]


def _refused(*args, timeout=120):
    proc = subprocess.run(
        [sys.executable, "-m", "ampsched", "sweep", *args],
        capture_output=True,
        text=True,
        env=env_with_package(),
        timeout=timeout,
    )
    assert proc.returncode == 2, proc.stderr
    return assert_one_line_error(proc.stderr)


def test_outputs_it_must_not_replace(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "not a regular file" in _refused(*SMALL, "--output", str(fifo))
    assert fifo.is_fifo()  # a device or a pipe stays what it was (a rename would make it a file)
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    assert "exists and is not a sweep file" in _refused(*SMALL, "--output", str(notes))
    assert notes.read_text() == "mine"
    spec = tmp_path / "s.toml"
    spec.write_text(f"machines = 'dvfs-2x'\nworkloads = 'demo'\npolicies = 'rr'\noutput = '{spec}'\n")
    assert "is the sweep file itself" in _refused(str(spec))
    assert "exists and is not a sweep file" in _refused(*SMALL, "--output", str(spec), "--resume")


def test_a_sweep_file_that_is_not_a_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)  # reading it would block forever
    assert "s.toml: not a regular file" in _refused(str(fifo), "--output", str(tmp_path / "o.parquet"), timeout=60)


def test_two_sweeps_on_one_output(tmp_path):
    import fcntl

    out = tmp_path / "s.parquet"
    with open(f"{out}.lock", "w") as lock:  # what a running sweep holds
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert "another sweep is writing" in _refused(*SMALL, "--output", str(out))
    assert run_module("sweep", *SMALL, "--output", str(out)).returncode == 0
    assert not os.path.exists(f"{out}.lock")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--jobs", "100000"], "jobs: at most"),
        (["--seeds", "0-99999999999", "--yes"], "seeds: over 10,000,000 seeds"),
        (["--policies", "rr:threshold_ms=abc"], "threshold_ms"),
        (["--policies", "rr:threshold_ms=-5"], "threshold_ms"),
        (["--sample", "3"], "--sample: only with --verify"),
    ],
)
def test_more_bad_grids(tmp_path, args, message):
    base = dict(zip(SMALL[::2], SMALL[1::2]))
    base.update(zip(args[::2], [a for a in args[1::2]]))
    argv = [x for kv in base.items() for x in kv if x != ""]
    if args[0] == "--seeds" and "--yes" in args:
        argv = [x for x in argv if x != "--yes"] + ["--yes"]
    assert message in _refused(*argv, "--output", str(tmp_path / "o.parquet"))
    assert not os.path.exists(tmp_path / "o.parquet")


def test_a_bad_workload_file_fails_before_any_run(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'name = "x\xff"\n')
    assert "bad.toml: line 1: not UTF-8" in _refused(
        "--machines",
        "dvfs-2x",
        "--workloads",
        f"demo,{bad}",
        "--policies",
        "rr",
        "--output",
        str(tmp_path / "o.parquet"),
    )


@pytest.mark.parametrize(
    "body, message",
    [
        ("seeds = 1.5", "seeds: expected a whole number"),
        ("[[override]]\nseeds = 1.5\nslice_ms = 2", "override 1: seeds: expected a whole number"),
        ("[[override]]\nseeds = {a = 1}\nslice_ms = 2", "override 1: seeds: expected a whole number"),
    ],
)
def test_bad_seeds_in_a_sweep_file(tmp_path, body, message):
    spec = tmp_path / "s.toml"
    spec.write_text("machines = 'dvfs-2x'\nworkloads = 'demo'\npolicies = 'rr'\n" + body + "\n")
    assert message in _refused(str(spec), "--output", str(tmp_path / "o.parquet"))


def test_seed_lists_with_ranges_and_a_byte_order_mark(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_bytes(b"\xef\xbb\xbfmachines = 'dvfs-2x'\nworkloads = 'demo'\npolicies = 'rr'\nseeds = ['1-2', 5]\n")
    df = ampsched.sweep(file=spec, jobs=1)
    assert list(df["seed"]) == [1, 2, 5]


def test_files_that_are_not_sweeps(tmp_path):
    not_sweep = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), not_sweep)
    assert "is not a sweep file (no column 'machine')" in _refused(*SMALL, "--output", str(not_sweep), "--resume")
    assert "not a sweep file (no column 'machine')" in _refused("--verify", str(not_sweep))
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"PAR1xx")
    assert "not a sweep file (not a readable Parquet file" in _refused("--verify", str(junk))
    out = tmp_path / "s.parquet"
    assert run_module("sweep", *SMALL, "--output", str(out)).returncode == 0
    table = pq.read_table(out)
    negative = table.set_column(table.schema.get_field_index("seed"), "seed", pa.array([-1], pa.int64()))
    pq.write_table(negative, tmp_path / "neg.parquet")
    assert "not a sweep file" in _refused("--verify", str(tmp_path / "neg.parquet"))
    with pytest.raises(ampsched.InputError, match="not a sweep file"):
        ampsched.read_sweep(not_sweep)
    with pytest.raises(ampsched.InputError, match="resume: needs an output file"):
        ampsched.sweep("dvfs-2x", "demo", "rr", resume=True)


def test_the_schema_does_not_depend_on_the_results(tmp_path):
    ok, failed = tmp_path / "ok.parquet", tmp_path / "failed.parquet"
    assert run_module("sweep", *SMALL, "--output", str(ok)).returncode == 0
    assert run_module("sweep", *SMALL, "--max-events", "10", "--output", str(failed)).returncode == 1
    a, b = pq.read_schema(ok), pq.read_schema(failed)
    for name in ["machine", "workload", "policy", "seed", "error", "slice_ms", "max_sim_s", "max_events"]:
        assert a.field(name).type == b.field(name).type, name
    assert str(a.field("error").type) == "string" and str(a.field("seed").type) == "uint64"
    for metric in ("makespan_s", "antt", "stp", "energy_j", "migrations"):
        assert metric in b.names  # null where no run gave it
    both = pa.concat_tables([pq.read_table(ok), pq.read_table(failed)], promote_options="permissive")
    assert both.num_rows == 2
