"""The mesh network alone from Python (docs/noc.md): ampsched.noc_traffic's latency-throughput
rows against the closed forms (zero-load latency at low load, saturation below the bisection
bound 4/k), determinism, the machine configuration's network options, and one-line errors."""

import pytest

import ampsched

pytest.importorskip("ampsched._core")

MESH_8X8 = """name = "mesh-8x8"
memory_latency_ns = 80
[[core_type]]
name = "c"
count = 64
freq_ghz = 2.0
[interconnect]
kind = "mesh"
width = 8
"""


@pytest.fixture
def mesh(tmp_path):
    path = tmp_path / "mesh.toml"
    path.write_text(MESH_8X8)
    return str(path)


def test_low_load_is_accepted_at_about_the_zero_load_latency(mesh):
    row = ampsched.noc_traffic(mesh, 0.02, cycles=10_000, seed=3)
    # Table 2's 8x8 mesh: mean uniform distance 5.25 hops, (5.25 + 1) x (2 + 1) + 8 - 1 cycles.
    assert row["zero_load_latency"] == pytest.approx(25.75)
    assert row["bisection_bound"] == pytest.approx(0.5)
    assert row["offered"] == pytest.approx(0.02, rel=0.15)
    assert row["accepted"] == pytest.approx(row["offered"], rel=0.05)
    assert row["mean_latency"] == pytest.approx(25.75, abs=1.5)
    assert set(row) >= {"machine", "pattern", "injection_rate", "offered", "accepted", "mean_latency", "packets"}


def test_overload_saturates_below_the_bisection_bound_and_same_seed_repeats(mesh):
    row = ampsched.noc_traffic(mesh, 1.0, cycles=3_000, seed=1)
    assert 0.25 < row["accepted"] <= 0.5
    assert row["mean_latency"] > 10 * row["zero_load_latency"]
    assert ampsched.noc_traffic(mesh, 1.0, cycles=3_000, seed=1) == row
    # OCOR changes nothing without lock packets but the random tie-breaks it never needs.
    assert ampsched.noc_traffic(f"{mesh}:arbitration=ocor", 1.0, cycles=3_000, seed=1)["accepted"] == row["accepted"]


@pytest.mark.parametrize(
    "machine, kwargs, message",
    [
        ("exynos5422", {}, "noc_traffic: machine: machine 'exynos5422' has no [interconnect]: no network to load"),
        (None, {"injection_rate": 0}, "noc_traffic: injection_rate: must be greater than 0 and at most 1"),
        (None, {"injection_rate": 1.5}, "noc_traffic: injection_rate: must be greater than 0 and at most 1"),
        (None, {"injection_rate": "x"}, "injection_rate: must be a number"),
        (None, {"cycles": 0}, "noc_traffic: cycles: must be from 1 to 100000000"),
        (None, {"cycles": -5}, "noc_traffic: cycles: must be a whole number"),
        (None, {"pattern": "transpose"}, "noc_traffic: pattern: 'transpose' is not a known pattern (uniform)"),
        (None, {"packet_flits": 0}, "noc_traffic: packet_flits: must be from 1 to 1024"),
        ("exynos5422:arbitration=ocor", {}, "the machine has no [interconnect], so no network to set"),
    ],
)
def test_bad_input_is_one_line(mesh, machine, kwargs, message):
    args = {"injection_rate": 0.1, "cycles": 100, **kwargs}
    with pytest.raises(ampsched.InputError) as e:
        ampsched.noc_traffic(machine or mesh, args.pop("injection_rate"), **args)
    assert message in str(e.value) and "\n" not in str(e.value)
