"""`ampsched sweep --backend ray`: real sweeps on Ray give the local backend's rows and bytes;
the errors (an address with the local backend, an address where no Ray answers, Ray missing)
are one line and exit status 2.

Ray starts twice, the least that covers both ways in: the Python API starting (and stopping) a
local Ray instance itself, and the CLI connecting by address to a cluster that is already
running (a child process of this test holds it). The first also takes the way of a cluster on
other machines, where the tasks send their tables back and the part files are written here.
"""

import os
import socket
import subprocess
import sys
import time

import pytest

import ampsched
from conftest import env_with_package
from test_cli import assert_one_line_error, run_module

if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)
pytest.importorskip("pyarrow")
ray = pytest.importorskip("ray")

import pandas as pd  # noqa: E402

# 2 machines x 2 workloads x 2 policies x 2 seeds from the catalog: 16 runs, under a second.
GRID = dict(machines="dvfs-2x,2fc-2sc-amd", workloads="demo,hh1", policies="rr,busyfcs", seeds="1-2")
CLI_GRID = [x for key, value in GRID.items() for x in (f"--{key}", value)]

# The cluster of test_cli_on_a_running_cluster: started by ray.init in a child, which prints
# its address and keeps it up until its stdin closes. Token authentication, on by default for
# a new local instance in Ray 2.60 (the version tested), is off for this throwaway cluster and
# its client alike, so that neither reads nor writes a token in the home directory.
CLUSTER = """import sys, ray
ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()
ray.shutdown()
"""
NO_AUTH = {"RAY_AUTH_MODE": "disabled"}


@pytest.fixture(scope="module")
def local_sweep(tmp_path_factory):
    """The local backend's frame and file bytes for GRID: what Ray must give."""
    path = tmp_path_factory.mktemp("local") / "local.parquet"
    df = ampsched.sweep(**GRID, jobs=2, output=path)
    assert len(df) == 16 and df["error"].isna().all()
    return df, path.read_bytes()


@pytest.fixture(scope="module")
def cluster():
    env = dict(env_with_package(), **NO_AUTH)
    proc = subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        address = proc.stdout.readline().strip()
        assert address, "the test's Ray cluster did not start"
        yield address
    finally:
        proc.stdin.close()  # the child shuts its Ray down and exits
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def assert_same_rows(got, expected):
    assert list(got.columns) == list(expected.columns) and len(got) == len(expected)
    for k in range(len(expected)):
        pd.testing.assert_series_equal(
            got.iloc[k], expected.iloc[k], check_exact=True, obj=f"row {k} {tuple(expected.iloc[k][:4])}"
        )
    pd.testing.assert_frame_equal(got.attrs["apps"], expected.attrs["apps"], check_exact=True)


@pytest.mark.slow  # a Ray instance's start-up and shut-down, ~24 s of make test; the backend stays tested there on a running cluster
def test_python_sweep_on_a_local_ray_instance(local_sweep, tmp_path, monkeypatch):
    from ampsched import ray_backend

    # As if the nodes were other machines: the part files are written by this process.
    monkeypatch.setattr(ray_backend, "_on_this_machine", lambda ray: False)
    expected, expected_bytes = local_sweep
    owned = not ray.is_initialized()  # else (another test's ray.init) the sweep uses that one
    out = tmp_path / "ray.parquet"
    started = time.monotonic()
    got = ampsched.sweep(**GRID, jobs=2, output=out, backend="ray")
    print(f"Ray start-up, 16 runs and shut-down: {time.monotonic() - started:.1f} s")
    assert_same_rows(got, expected)
    assert out.read_bytes() == expected_bytes
    assert not os.path.exists(f"{out}.parts")
    if owned:
        assert not ray.is_initialized()  # the instance it started is shut down


def test_cli_on_a_running_cluster(local_sweep, cluster, tmp_path):
    out = tmp_path / "cli.parquet"
    env = dict(env_with_package(), **NO_AUTH)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ampsched",
            "sweep",
            *CLI_GRID,
            "--backend",
            "ray",
            "--address",
            cluster,
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "16 runs, 0 failed" in proc.stderr
    assert out.read_bytes() == local_sweep[1]
    assert_same_rows(ampsched.read_sweep(out), local_sweep[0])


@pytest.mark.slow  # thesis-uf's quick version twice and a cluster's share of CPU: ~30 s of make test
def test_reproduce_on_a_running_cluster(cluster, tmp_path):
    # A reproduction's sweeps on Ray: the same document, byte for byte, as on the local backend.
    from ampsched import reproductions

    _, local_text = reproductions.run("thesis-uf", quick=True, jobs=2, output=None)
    env = dict(env_with_package(), **NO_AUTH)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ampsched",
            "reproduce",
            "thesis-uf",
            "--quick",
            "--backend",
            "ray",
            "--address",
            cluster,
            "--output",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "thesis-uf.md").read_text(encoding="utf-8") == local_text


def test_address_needs_the_ray_backend(tmp_path):
    out = tmp_path / "s.parquet"
    proc = run_module("sweep", *CLI_GRID, "--address", "127.0.0.1:6379", "--output", str(out))
    assert proc.returncode == 2
    assert "address: only for the ray backend" in assert_one_line_error(proc.stderr)
    assert not os.path.exists(out) and not os.path.exists(f"{out}.parts")
    with pytest.raises(ampsched.InputError, match="address: only for the ray backend"):
        ampsched.sweep(**GRID, address="127.0.0.1:6379")
    with pytest.raises(ampsched.InputError, match="backend: unknown backend 'spark'"):
        ampsched.sweep(**GRID, backend="spark")


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once the socket is closed


def test_unreachable_address_fails_fast(tmp_path):
    out = tmp_path / "s.parquet"
    started = time.monotonic()
    proc = run_module(
        "sweep", *CLI_GRID, "--backend", "ray", "--address", f"127.0.0.1:{_closed_port()}", "--output", str(out)
    )
    elapsed = time.monotonic() - started
    assert proc.returncode == 2
    assert "no Ray cluster answers at 127.0.0.1:" in assert_one_line_error(proc.stderr)
    assert elapsed < 20, elapsed  # ray.init alone would retry for minutes
    assert not os.path.exists(out) and not os.path.exists(f"{out}.parts")
    bad = run_module("sweep", *CLI_GRID, "--backend", "ray", "--address", "headnode", "--output", str(out))
    assert bad.returncode == 2 and "expected HOST:PORT" in assert_one_line_error(bad.stderr)


def test_an_address_that_accepts_but_never_answers(monkeypatch):
    # A port that takes connections but says nothing: the probe is killed after its time.
    from ampsched import ray_backend

    if ray.is_initialized():
        pytest.skip("this process is already connected to Ray")
    monkeypatch.setattr(ray_backend, "PROBE_TIMEOUT_S", 2.0)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        address = f"127.0.0.1:{server.getsockname()[1]}"
        started = time.monotonic()
        with pytest.raises(ampsched.InputError, match=f"no Ray cluster answered at {address} within 2 s"):
            ampsched.sweep(**GRID, backend="ray", address=address)
        assert time.monotonic() - started < 10
    assert not ray.is_initialized()


def test_without_ray_one_line_naming_the_extra(tmp_path):
    # A sitecustomize that makes `import ray` fail, as on an installation without the extra.
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text("import sys\nsys.modules['ray'] = None\n")
    env = env_with_package()
    env["PYTHONPATH"] = os.pathsep.join([str(hide), env["PYTHONPATH"]])
    out = tmp_path / "s.parquet"
    proc = subprocess.run(
        [sys.executable, "-m", "ampsched", "sweep", *CLI_GRID, "--backend", "ray", "--output", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Ray is not installed: pip install 'ampsched[ray]'" in assert_one_line_error(proc.stderr)
    assert not os.path.exists(out) and not os.path.exists(f"{out}.parts")


def test_a_local_ray_that_fails_to_start_is_one_line(monkeypatch, tmp_path):
    # What Ray's start-up raises when its processes die (seen under a memory limit: a bare
    # Exception, "The current node timed out during startup", after about 30 s).
    if ray.is_initialized():
        pytest.skip("this process is already connected to Ray")

    def fail(*args, **kwargs):
        raise Exception("The current node timed out during startup.")

    monkeypatch.setattr(ray, "init", fail)
    out = tmp_path / "s.parquet"
    with pytest.raises(
        ampsched.InputError,
        match="^backend ray: could not start a local Ray instance: The current node timed out during startup.$",
    ):
        ampsched.sweep(**GRID, backend="ray", output=out)
    assert not os.path.exists(out) and not os.path.exists(f"{out}.parts")


@pytest.mark.slow
def test_a_local_ray_under_a_memory_limit_is_one_line(tmp_path):
    # The real failure: Ray's processes cannot start under 2.5 GB of address space.
    out = tmp_path / "s.parquet"
    proc = subprocess.run(
        [
            "bash",
            "-c",
            'ulimit -v 2500000 && exec "$@"',
            "-",
            sys.executable,
            "-m",
            "ampsched",
            "sweep",
            *CLI_GRID,
            "--backend",
            "ray",
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env_with_package(),
        timeout=300,
    )
    assert proc.returncode == 2
    assert "backend ray: could not start a local Ray instance" in assert_one_line_error(proc.stderr)
