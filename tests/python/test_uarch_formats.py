"""The machine and workload keys of docs/microarchitecture.md through the package: a core type's
`uarch` and `max_mlp`, a phase's `cpi` table and `mlp`, their numbers (derived by hand from the
model) and their one-line errors."""

import pytest

import ampsched
from test_cli import assert_one_line_error, run_module

# One core at 1 GHz (cpi_scale 1.5, a Cortex-A7-like little core that overlaps up to 4 misses),
# memory 100 ns.
MACHINE = """name = "one"
memory_latency_ns = 100
[[core_type]]
name = "little"
count = 1
freq_ghz = 1.0
cpi_scale = 1.5
uarch = "cortex-a7"
max_mlp = 4
"""


def workload(phase_keys):
    return f"""[[app]]
name = "a"
[[app.phase]]
kind = "compute"
instructions = 1e9
llc_mpki = 10
{phase_keys}
"""


def write(tmp_path, phase_keys, machine=MACHINE):
    m, w = tmp_path / "m.toml", tmp_path / "w.toml"
    m.write_text(machine)
    w.write_text(workload(phase_keys))
    return str(m), str(w)


@pytest.mark.parametrize(
    "phase_keys, seconds",
    [
        # 1.0 × 1.5 / 1 GHz + 10 / 1000 × 100 ns = 2.5 ns an instruction: the former model.
        ("cpi = 1.0", 2.5),
        # The table's CPI on the A7 replaces cpi × cpi_scale: 2.2 + 1.0.
        ('cpi = { "cortex-a15" = 1.0, "cortex-a7" = 2.2 }', 3.2),
        # A table that does not name the A7 uses its default, scaled: 1.2 × 1.5 + 1.0.
        ('cpi = { "cortex-a15" = 1.0, default = 1.2 }', 2.8),
        # Misses overlap min(mlp, max_mlp): 1.5 + 1.0 / 2, then capped by the core's 4.
        ("cpi = 1.0\nmlp = 2", 2.0),
        ("cpi = 1.0\nmlp = 8", 1.75),
    ],
)
def test_a_lone_thread_takes_the_model_time(tmp_path, phase_keys, seconds):
    pytest.importorskip("ampsched._core")
    m, w = write(tmp_path, phase_keys)
    r = ampsched.run(m, w, "oblivious")
    assert r.raw["makespan_s"] == pytest.approx(seconds, rel=1e-9)


def test_without_the_core_keys_an_mlp_changes_nothing(tmp_path):
    # A core that gives no max_mlp is in order: the phase's mlp cannot overlap anything.
    pytest.importorskip("ampsched._core")
    plain = MACHINE.replace("max_mlp = 4\n", "")
    m, w = write(tmp_path, "cpi = 1.0\nmlp = 8", machine=plain)
    assert ampsched.run(m, w, "oblivious").raw["makespan_s"] == pytest.approx(2.5, rel=1e-9)


def test_a_core_type_the_table_does_not_cover_is_one_line_naming_file_and_key(tmp_path):
    pytest.importorskip("ampsched._core")
    m, w = write(tmp_path, 'cpi = { "cortex-a15" = 1.0 }')
    done = run_module("run", "--machine", m, "--workload", w, "--policy", "rr")
    assert done.returncode == 2
    line = assert_one_line_error(done.stderr)
    assert f"{w}: app[0].phase[0].cpi: core type 'little' of machine 'one' is a cortex-a7" in line
    assert "add it or a `default` entry" in line


@pytest.mark.parametrize(
    "where, keys, says",
    [
        ("workload", "cpi = {}", "app[0].phase[0].cpi: expected a number or a table of numbers by name"),
        ("workload", 'cpi = { "cortex-a7" = 0 }', "app[0].phase[0].cpi.cortex-a7: must be from 0.01 to 1000, got 0"),
        ("workload", "mlp = 0.5", "app[0].phase[0].mlp: must be from 1 to 1024, got 0.5"),
        ("machine", "max_mlp = 2000", "core_type[0].max_mlp: must be from 1 to 1024, got 2000"),
        ("machine", 'uarch = "default"', "core_type[0].uarch: 'default' is reserved"),
    ],
)
def test_bad_values_are_one_line_naming_file_and_key(tmp_path, where, keys, says):
    pytest.importorskip("ampsched._core")
    if where == "workload":
        m, w = write(tmp_path, keys)
        bad = w
    else:
        m, w = write(
            tmp_path,
            "cpi = 1.0",
            machine=MACHINE.replace("max_mlp = 4\n", "").replace('uarch = "cortex-a7"\n', "") + keys + "\n",
        )
        bad = m
    done = run_module("run", "--machine", m, "--workload", w, "--policy", "rr")
    assert done.returncode == 2
    assert f"{bad}: {says}" in assert_one_line_error(done.stderr)
