"""The queue spinlock over a mesh (docs/queue-spinlock.md) through the Python API and the command:
the per-app result fields and the run's `noc` counts, as DataFrame columns of run() and compare();
none of them on a machine without a network; the one-line error for a queue spinlock on such a
machine. crates/sim/tests/it/qspin.rs checks the numbers against the model."""

import pytest

import ampsched
from test_cli import assert_one_line_error, run_module

pytest.importorskip("ampsched._core")

# A 2×2 mesh of 2 GHz cores (Table 2's router, link and buffer defaults).
MESH = (
    'name = "mesh4"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = "c"\ncount = 4\nfreq_ghz = 2.0\n'
    '[interconnect]\nkind = "mesh"\nwidth = 2\n'
)
NO_MESH = 'name = "plain4"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = "c"\ncount = 4\nfreq_ghz = 2.0\n'
# Four threads on one queue spinlock, with L1D misses for background traffic.
LOCKS = """
[[app]]
name = "locks"
threads = 4
[[app.phase]]
kind = "critical"
lock = "l"
cs_instructions = 300
between_instructions = 3000
count = 5
l1d_mpki = 20
wait = "queue_spinlock"
"""
APP_FIELDS = ["coh_ns", "handoffs", "spin_acquisitions", "sleep_acquisitions", "spin_share", "cs_ns", "roi_ns"]
NOC_FIELDS = ["packets", "lock_packets", "wakeup_packets", "flits", "cycles", "injection_rate", "lock_injection_rate"]


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in [("mesh.toml", MESH), ("plain.toml", NO_MESH), ("locks.toml", LOCKS)]:
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


def test_run_gives_the_lock_and_network_columns(files):
    r = ampsched.run(files["mesh.toml"], files["locks.toml"], "oblivious")
    app = r.apps.iloc[0]
    for field in APP_FIELDS:
        assert field in r.apps.columns, field
    # 4 threads × 5 critical sections, each acquired once, spinning or after a sleep.
    assert app.spin_acquisitions + app.sleep_acquisitions == 20
    assert app.spin_share == pytest.approx(app.spin_acquisitions / 20)
    assert 0 < app.cs_ns < app.roi_ns and app.coh_ns >= 0
    assert app.roi_ns == pytest.approx(app.turnaround_s * 1e9)
    for field in NOC_FIELDS:
        assert f"noc.{field}" in r.summary.columns, field
    noc = r.raw["noc"]
    assert noc["lock_packets"] >= 20 and noc["packets"] > noc["lock_packets"], "background traffic and replies too"
    assert len(noc["node_injection_rate"]) == 4


def test_compare_gives_them_per_policy_and_per_app(files):
    df = ampsched.compare(files["mesh.toml"], files["locks.toml"], ["oblivious", "rr"])
    assert "noc.lock_packets" in df.columns and (df["noc.lock_packets"] > 0).all()
    apps = df.attrs["apps"]
    assert set(APP_FIELDS) <= set(apps.columns) and len(apps) == 2


def test_a_machine_without_a_network_has_none_of_them(files, tmp_path):
    spin = tmp_path / "spin.toml"
    spin.write_text(LOCKS.replace('"queue_spinlock"', '"spin"'))
    r = ampsched.run(files["plain.toml"], str(spin), "oblivious")
    assert "noc" not in r.raw and not any(c.startswith("noc.") for c in r.summary.columns)
    assert not set(APP_FIELDS) & set(r.apps.columns)


def test_a_queue_spinlock_needs_a_mesh(files):
    with pytest.raises(ampsched.InputError, match="has no \\[interconnect\\]"):
        ampsched.run(files["plain.toml"], files["locks.toml"], "oblivious")
    p = run_module("run", "--machine", files["plain.toml"], "--workload", files["locks.toml"], "--policy", "oblivious")
    assert p.returncode == 2
    line = assert_one_line_error(p.stderr)
    assert "locks.toml: wait:" in line and "plain.toml' has no [interconnect]" in line


def test_the_run_text_shows_the_lock_table(files):
    p = run_module("run", "--machine", files["mesh.toml"], "--workload", files["locks.toml"], "--policy", "oblivious")
    assert p.returncode == 0, p.stderr
    assert "coh_ns" in p.stdout and "spin_share" in p.stdout and "noc.lock_packets" in p.stdout
