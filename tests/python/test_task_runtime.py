"""The task runtime through the package (docs/task-runtime.md): a task program in a workload file,
per-run options by workload name (`tasks:KEY=VALUE:WORKLOAD`), and their one-line errors. The
runtime's own behaviour (FIFO, CATS, stealing, main-thread placement, Eq. 4) is tested in the
engine: crates/sim/tests/it/task_runtime.rs."""

import pytest

import ampsched
from test_cli import assert_one_line_error, run_module

# Four cores at 1 GHz, CPI 1: an instruction is 1 ns.
MACHINE = """name = "four"
memory_latency_ns = 100
[[core_type]]
name = "c"
count = 4
freq_ghz = 1.0
"""

# Eight tasks of 1e8 instructions (0.1 s each) behind 1e7 of serial code (0.01 s); the runtime's
# own costs 0, so the times are exact.
WORKLOAD = """name = "ep-tasks"
[[app]]
name = "ep"
[app.runtime]
scheduler = "fifo"
create_instructions = 0
queue_op_instructions = 0
[[app.step]]
kind = "serial"
instructions = 1e7
[[app.step]]
kind = "tasks"
count = 8
instructions = 1e8
"""


def write(tmp_path, workload=WORKLOAD):
    m, w = tmp_path / "m.toml", tmp_path / "w.toml"
    m.write_text(MACHINE)
    w.write_text(workload)
    return str(m), str(w)


@pytest.mark.parametrize(
    "options, seconds",
    [
        # 0.01 s of serial code on the main thread, then 8 tasks over 4 threads: two rounds of
        # 0.1 s (equal tasks, equal cores): 0.21 s.
        ("", 0.21),
        ("tasks:scheduler=steal:", 0.21),
        # On a machine of one core type every core is a big one to CATS, and a big core retries
        # the empty critical queue 300 times (3,000 instructions, 3 µs) before it takes a
        # non-critical task: once per round.
        ("tasks:scheduler=cats:main=default:", 0.21 + 2 * 3e-6),
    ],
)
def test_a_task_program_runs_in_the_time_derived_by_hand(tmp_path, options, seconds):
    pytest.importorskip("ampsched._core")
    m, w = write(tmp_path)
    r = ampsched.run(m, options + w, "oblivious")
    assert r.raw["makespan_s"] == pytest.approx(seconds, rel=1e-9)
    assert r.raw["task_runtime"]["tasks"] == 8
    assert r.raw["task_runtime"]["idle_with_ready_s"] == 0


def test_a_run_without_a_task_program_has_no_task_runtime_key():
    pytest.importorskip("ampsched._core")
    assert "task_runtime" not in ampsched.run("dvfs-2x", "demo", "rr").raw


@pytest.mark.parametrize(
    "workload, says",
    [
        (
            "tasks:scheduler=lifo:{w}",
            "tasks:scheduler=lifo:{w}: scheduler: unknown scheduler 'lifo' (expected fifo, cats or steal)",
        ),
        ("tasks:main=medium:{w}", "main: unknown main placement 'medium' (expected default, big or little)"),
        (
            "tasks:scheduler=cats:immediate_successor=true:{w}",
            "immediate_successor: is an option of scheduler=fifo, not cats",
        ),
        ("tasks:scheduler=fifo", "workload: no workload after the options"),
        ("tasks:scheduler=cats:demo", "workload 'demo' has no task program"),
        ("tasks:speed=2:{w}", "speed: unknown option"),
    ],
)
def test_bad_run_options_are_one_line(tmp_path, workload, says):
    pytest.importorskip("ampsched._core")
    m, w = write(tmp_path)
    done = run_module("run", "--machine", m, "--workload", workload.format(w=w), "--policy", "rr")
    assert done.returncode == 2
    assert says.format(w=w) in assert_one_line_error(done.stderr)


def test_a_bad_key_in_the_file_is_one_line_naming_file_and_key(tmp_path):
    pytest.importorskip("ampsched._core")
    m, w = write(tmp_path, WORKLOAD.replace('scheduler = "fifo"', 'scheduler = "bf"'))
    done = run_module("run", "--machine", m, "--workload", w, "--policy", "rr")
    assert done.returncode == 2
    assert f"{w}: app[0].runtime.scheduler: unknown scheduler 'bf'" in assert_one_line_error(done.stderr)


def test_a_sweep_takes_task_options_in_its_workload_list(tmp_path):
    # Schedulers as a sweep axis: the workload names carry them; a bad one is refused before any
    # run, in one line.
    pytest.importorskip("ampsched._core")
    m, w = write(tmp_path)
    out = tmp_path / "o.parquet"
    names = f"tasks:scheduler=fifo:{w},tasks:scheduler=steal:{w}"
    done = run_module("sweep", "--machines", m, "--workloads", names, "--policies", "rr", "--output", str(out))
    assert done.returncode == 0, done.stderr
    pd = pytest.importorskip("pandas")
    rows = pd.read_parquet(out)
    assert sorted(rows["workload"]) == sorted(names.split(","))
    assert list(rows["makespan_s"]) == pytest.approx([0.21, 0.21], rel=1e-9)
    bad = run_module(
        "sweep",
        "--machines",
        m,
        "--workloads",
        f"tasks:scheduler=x:{w}",
        "--policies",
        "rr",
        "--output",
        str(out) + "2",
    )
    assert bad.returncode == 2
    assert "scheduler: unknown scheduler 'x'" in assert_one_line_error(bad.stderr)
