"""The thesis-ch5 reproduction: its quick version (the longest of all: in a module of its own, so
that `make test`'s other pytest worker runs it beside test_reproduce.py's) and its generated
machines and workloads."""

import math

import pytest

import ampsched

if ampsched._core is None:
    pytest.skip("the engine is not built", allow_module_level=True)
pytest.importorskip("matplotlib")

from ampsched.reproductions._policies import SlowOnly  # noqa: E402
from test_reproduce import check_quick, quick_run  # noqa: E402


def test_the_quick_reproduction(tmp_path_factory):
    check_quick("thesis-ch5", quick_run("thesis-ch5", 2, tmp_path_factory))


# ---- thesis-ch5: the generated machines and workloads

from ampsched.reproductions import thesis_ch5  # noqa: E402


@pytest.mark.parametrize("machine", ["1fc-12sc", "1fc-3sc", "4fc-12sc-mf"])
def test_the_all_slow_machine_runs_its_fast_type_at_the_slow_clock(machine, tmp_path):
    """§5.2.4's measurement: the fast type keeps its capacity (BusyFCs puts a lone thread on
    it: fast share 1) but runs at the slow clock, so the thread takes exactly as long as on a
    slow core of the catalog machine (gamess: CI, alone, no cache or memory contention)."""
    import tomllib

    path = tmp_path / "m.toml"
    path.write_text(thesis_ch5.all_slow_toml(machine))
    variant = tomllib.loads(path.read_text())
    catalog = tomllib.loads(thesis_ch5.catalog_text("machines", machine))
    fast, slow = variant["core_type"][0], variant["core_type"][-1]
    assert fast["freq_ghz"] == catalog["core_type"][0]["freq_ghz"] and fast["start_freq_ghz"] == slow["freq_ghz"]
    # Nothing else differs from the catalog file.
    for key in ("name", "core_type"):
        variant.pop(key), catalog.pop(key)
    assert variant == catalog
    one = tmp_path / "one.toml"
    one.write_text('name = "one"\n[[app]]\nname = "gamess"\nprogram = "gamess"\n')
    believed = ampsched.run(str(path), str(one), "busyfcs")
    assert believed.threads["fast_share"].iloc[0] == 1.0
    slow_only = ampsched.run(machine, str(one), SlowOnly())
    assert math.isclose(believed.raw["makespan_s"], slow_only.raw["makespan_s"], rel_tol=1e-9)
    fast_run = ampsched.run(machine, str(one), "busyfcs")
    assert believed.raw["makespan_s"] > 1.9 * fast_run.raw["makespan_s"]  # gamess's SF is about 2


def test_a_wait_variant_with_the_programs_own_wait_is_the_catalog_app(tmp_path):
    """wait_workload_toml rewrites only the waits: with the program's own spin limit (2e7
    iterations) it runs exactly as the app that names the program."""
    prog = thesis_ch5.programs()["semphy"]
    own = next(p["spin_limit_iterations"] for p in prog["phase"] if "wait" in p)
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text(thesis_ch5.wait_workload_toml(prog, 13, "own", own))
    b.write_text(thesis_ch5.single_toml("semphy", 13))
    ra, rb = (ampsched.run("1fc-12sc", str(p), "pa", seed=1).raw for p in (a, b))
    assert ra["makespan_s"] == rb["makespan_s"] and ra["migrations"] == rb["migrations"]


def test_wait_modes_rewrite_every_wait_and_nothing_else():
    phase = {"kind": "serial", "instructions": 1e6, "wait": "spin_then_block", "spin_limit_iterations": 2e7}
    assert thesis_ch5.with_wait(phase, "spin") == {"kind": "serial", "instructions": 1e6, "wait": "spin"}
    assert thesis_ch5.with_wait(phase, "block") == {"kind": "serial", "instructions": 1e6, "wait": "block"}
    assert thesis_ch5.with_wait(phase, 1e6) == dict(phase, spin_limit_iterations=1e6)
    assert thesis_ch5.with_wait({"kind": "compute", "instructions": 1.0}, "spin") == {
        "kind": "compute",
        "instructions": 1.0,
    }


def test_the_uma_control_is_the_machine_without_its_memory_nodes():
    import tomllib

    for machine in ("1fc-12sc", "4fc-12sc-mf"):
        catalog = tomllib.loads(thesis_ch5.catalog_text("machines", machine))
        uma = tomllib.loads(thesis_ch5.uma_toml(thesis_ch5.catalog_text("machines", machine), "x"))
        assert uma["name"] == "x" and "numa" not in uma and "remote_memory_latency_ns" not in uma
        for key in ("name", "numa", "remote_memory_latency_ns"):
            catalog.pop(key)
        uma.pop("name")
        assert uma == catalog


def test_pa_rtx_spin_thresholds_are_the_iterations_at_the_slow_clock():
    # 1K iterations × 10 cycles / 1.15 GHz = 8.696 µs; 1M = 8696 µs.
    assert thesis_ch5.rtx_option(1e3) == "spin_threshold_us=8.696"
    assert thesis_ch5.rtx_option(1e6) == "spin_threshold_us=8696"


def test_amdahl_by_hand():
    # 45% serial at SF 1.93: 1 / (0.55 + 0.45 / 1.93) = 1.2767...
    assert math.isclose(thesis_ch5.amdahl(0.45, 1.93), 100 * (1 / (0.55 + 0.45 / 1.93) - 1))
    # The thesis's Amdahl example (50% serial, 2x fast core: 25% less time) is a speedup of 1 / 0.75.
    assert math.isclose(thesis_ch5.amdahl(0.5, 2.0), 100 / 3)


def test_the_boost_sweep_holds_the_thesis_boost():
    # The thesis's boost is in the sweep, and is what `pa` runs by default (its runs are the main ones).
    assert thesis_ch5.THESIS_BOOST in thesis_ch5.BOOST_TICKS
    assert ampsched.list_policies().set_index("name").loc["pa", "options"]["boost_ticks"] == thesis_ch5.THESIS_BOOST


def test_catalog_text_names_what_is_wrong():
    core = ampsched._require_core()
    assert core.catalog_text("machines", "1fc-3sc").count('name = "1fc-3sc"') == 1
    with pytest.raises(ampsched._core.InputError, match='no machines file "nope" in the catalog'):
        core.catalog_text("machines", "nope")
    with pytest.raises(ampsched._core.InputError, match='kind "cpus" is not'):
        core.catalog_text("cpus", "x")
