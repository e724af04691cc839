"""Today's chips in the catalog (docs/todays-chips.md): each preset's totals against the public source its
header cites, written here as numbers read from that source, and checked through the engine's parse of the
shipped catalog (ampsched.catalog) and the file itself (for what the engine does not list: Linux CPU
numbers, LLC sizes). The mis-sorted machines report an order of capacities that differs from their cores'
true one. Parsing only, plus one short run of each machine."""

import os

import pytest

tomllib = pytest.importorskip("tomllib")
ampsched = pytest.importorskip("ampsched")

MACHINES = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "catalog", "machines")
KB_PER_MB = 1024
# Linux's SCHED_CAPACITY_SCALE (include/linux/sched.h).
CAPACITY_SCALE = 1024

# Per machine, from its cited source: the core types fastest first, each (name, hardware threads, threads
# per core, Linux CPUs), and the LLC sizes in MB in the file's order.
SOURCES = {
    # Intel Core i9-13900K specifications: 8 P-cores (HT) + 16 E-cores, 32 threads, 36 MB cache; P threads
    # first with siblings adjacent (Linux's numbering on Intel hybrids).
    "alder-lake-8p16e": ([("pcore", 16, 2, range(0, 16)), ("ecore", 16, 1, range(16, 32))], [36]),
    # Intel Core i7-13650HX specifications: 6P (HT) + 8E, 20 threads, 24 MB; lscpu in sched-ext/scx #1893.
    "raptor-lake-6p8e": ([("pcore", 12, 2, range(0, 12)), ("ecore", 8, 1, range(12, 20))], [24]),
    # Intel Core Ultra 7 155H specifications: 6P (HT) + 8E + 2 LP-E, 22 threads, 24 MB L3 (the LP E-cores
    # off it, 2 MB L2); CPU numbers from nviennot/core-to-core-latency #142 (one P-core at 0-1).
    "meteor-lake-6p8e2lp": (
        [
            ("pcore", 12, 2, [0, 1, *range(10, 20)]),
            ("ecore", 8, 1, range(2, 10)),
            ("lpecore", 2, 1, range(20, 22)),
        ],
        [24, 2],
    ),
    # Intel Core Ultra 7 258V specifications: 4P + 4 LP-E, no HT, 12 MB L3 (P-cores), 4 MB E-cluster L2.
    "lunar-lake-4p4lpe": ([("pcore", 4, 1, range(0, 4)), ("lpecore", 4, 1, range(4, 8))], [12, 4]),
    # Apple M1 (AnandTech): 4 Firestorm (12 MB L2) + 4 Icestorm (4 MB L2); t8103.dtsi lists Icestorm first.
    "apple-m-4p4e": ([("pcore", 4, 1, range(4, 8)), ("ecore", 4, 1, range(0, 4))], [12, 4]),
    # sm8650.dtsi: CPU 7 the X4, 2-4 and 5-6 the A720s' two frequency domains, 0-1 the A520s; 12 MB L3.
    "snapdragon-8g3": (
        [
            ("prime", 1, 1, [7]),
            ("perf-high", 3, 1, range(2, 5)),
            ("perf", 2, 1, range(5, 7)),
            ("efficiency", 2, 1, range(0, 2)),
        ],
        [12],
    ),
    # gs101.dtsi: CPUs 6-7 Cortex-X1, 4-5 Cortex-A76, 0-3 Cortex-A55; 4 MB DSU L3 (AnandTech).
    "pixel6": ([("prime", 2, 1, range(6, 8)), ("mid", 2, 1, range(4, 6)), ("little", 4, 1, range(0, 4))], [4]),
    # AMD Ryzen 9 7950X3D specifications: 16 cores, 32 threads, 96 + 32 MB L3; CPU N+16 is CPU N's sibling.
    # Fastest first: the 32 MB CCD1 (5.7 GHz) before the V-Cache CCD0.
    "ryzen-7950x3d": (
        [
            ("ccd1-freq", 16, 2, [c for i in range(8, 16) for c in (i, i + 16)]),
            ("ccd0-vcache", 16, 2, [c for i in range(8) for c in (i, i + 16)]),
        ],
        [96, 32],
    ),
    # ublue-os/bazzite #5122 (i5-14600K: P threads 0-11, E-cores 12-19) and Intel's specifications (24 MB).
    "hybrid-flat-capacity": ([("pcore", 12, 2, range(0, 12)), ("ecore", 8, 1, range(12, 20))], [24]),
}
SOURCES["pixel6-missorted"] = SOURCES["pixel6"]

# gs101.dtsi's capacity-dmips-mhz and highest OPP (MHz) per type, and the capacities Linux derives from
# them (drivers/base/arch_topology.c, topology_normalize_cpu_scale: dmips × MHz scaled so the largest is
# 1024, truncated): 1024/498/160, as scx_lavd printed them on a Pixel 6 (sched-ext/scx #1991).
PIXEL6_DMIPS_MHZ = {"prime": (1024, 2802), "mid": (620, 2253), "little": (250, 1803)}
PIXEL6_LINUX_CAPACITY = {"prime": 1024, "mid": 498, "little": 160}
# sm8650.dtsi's capacity-dmips-mhz per type, with each domain's top clock (MHz; Qualcomm's product brief and
# AnandTech's launch article), and the capacities Linux derives from them as for the Pixel 6.
SNAPDRAGON_8G3_DMIPS_MHZ = {
    "prime": (1894, 3300),
    "perf-high": (1792, 3150),
    "perf": (1792, 2960),
    "efficiency": (1024, 2270),
}
SNAPDRAGON_8G3_LINUX_CAPACITY = {"prime": 1024, "perf-high": 924, "perf": 869, "efficiency": 380}

# gs101.dtsi: each cluster's dynamic-power-coefficient and OPP table (MHz, µV). The kernel's energy model
# is C × mV² × MHz / 10^9 mW at each OPP, mV the OPP's µV / 1000 truncated (drivers/opp/of.c, `_get_power`).
PIXEL6_EM = {
    "prime": (
        650,
        [
            (500, 500000),
            (851, 556250),
            (984, 575000),
            (1106, 606250),
            (1277, 631250),
            (1426, 662500),
            (1582, 693750),
            (1745, 731250),
            (1826, 750000),
            (2048, 793750),
            (2188, 831250),
            (2252, 850000),
            (2401, 887500),
            (2507, 925000),
            (2630, 968750),
            (2704, 1000000),
            (2802, 1056250),
        ],
    ),
    "mid": (
        284,
        [
            (400, 506250),
            (553, 537500),
            (696, 562500),
            (799, 581250),
            (910, 606250),
            (1024, 625000),
            (1197, 662500),
            (1328, 687500),
            (1491, 731250),
            (1663, 775000),
            (1836, 818750),
            (1999, 868750),
            (2130, 918750),
            (2253, 968750),
        ],
    ),
    "little": (
        70,
        [
            (300, 537500),
            (574, 600000),
            (738, 618750),
            (930, 668750),
            (1098, 712500),
            (1197, 731250),
            (1328, 762500),
            (1401, 781250),
            (1598, 831250),
            (1704, 862500),
            (1803, 906250),
        ],
    ),
}
# The file rounds each power to 0.1 mW.
EM_ROUNDING_W = 0.00005

# The x86 files' power is an estimate that splits the vendor's package power limits over the cores with
# every hardware thread busy (each header says how): the uncore share the header assumes, then the package
# power at each DVFS level (base, then turbo) from the product specifications: Processor Base Power and
# Maximum Turbo Power (Intel), TDP (AMD, at base only: its boost clocks are per CCD, past the PPT with
# every core at them). The types the split covers (Meteor Lake's LP E-cores are derived from its E-cores).
PACKAGE_POWER = {
    "alder-lake-8p16e": (20, [125, 253], ["pcore", "ecore"]),
    "raptor-lake-6p8e": (10, [55, 157], ["pcore", "ecore"]),
    "hybrid-flat-capacity": (20, [125, 181], ["pcore", "ecore"]),
    "meteor-lake-6p8e2lp": (5, [28, 115], ["pcore", "ecore"]),
    "lunar-lake-4p4lpe": (5, [17, 37], ["pcore", "lpecore"]),
    "ryzen-7950x3d": (20, [120], ["ccd0-vcache", "ccd1-freq"]),
}
# Each thread's power is rounded to 0.01 W (0.05 W for the 7950X3D's), 32 threads at most.
PACKAGE_ROUNDING_W = 1.0


def _file(name):
    with open(os.path.join(MACHINES, f"{name}.toml"), "rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def parsed():
    """The engine's parse of the shipped catalog (ampsched.catalog), by machine name."""
    return {m["name"]: m for m in ampsched.catalog("machines")}


def _types(file):
    return {t["name"]: t for t in file["core_type"]}


def _true_capacity(file):
    """Each type's capacity from its clock and CPI (what the engine runs it at), 1024 for the fastest:
    the derivation of the machine format (docs/machines.md), independent of any reported `capacity`."""
    peak = {t["name"]: t["freq_ghz"] / t.get("cpi_scale", 1.0) for t in file["core_type"]}
    top = max(peak.values())
    return {n: round(p / top * CAPACITY_SCALE) for n, p in peak.items()}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_preset_has_its_sources_cores_threads_types_and_caches(name, parsed):
    types, llc_mb = SOURCES[name]
    file, engine = _file(name), parsed[name]
    by_name = _types(file)
    assert [t["name"] for t in engine["core_types"]] == [t["name"] for t in file["core_type"]]
    assert sorted(by_name) == sorted(t[0] for t in types)
    assert len(types) <= 4  # MAX_CORE_TYPES
    threads = sum(t[1] for t in types)
    assert engine["cores"] == threads
    engine_count = {t["name"]: t["count"] for t in engine["core_types"]}
    for type_name, count, smt, cpus in types:
        t = by_name[type_name]
        assert engine_count[type_name] == count, type_name
        assert t.get("smt", 1) == smt, type_name
        assert ("smt_sibling_speed" in t) == (smt == 2), type_name
        listed = t["cpus"]
        if isinstance(listed, str):
            listed = [c for part in listed.split(",") for c in _span(part)]
        assert list(listed) == list(cpus), type_name
    # Linux numbers every hardware thread once, 0 to N-1.
    assert sorted(c for t in types for c in t[3]) == list(range(threads))
    assert [llc["size_kb"] for llc in file["llc"]] == [mb * KB_PER_MB for mb in llc_mb]


def _span(part):
    lo, _, hi = part.partition("-")
    return range(int(lo), int(hi or lo) + 1)


@pytest.mark.parametrize("name", sorted(n for n in SOURCES if n not in ("pixel6-missorted", "hybrid-flat-capacity")))
def test_the_derived_capacity_order_is_the_sources_fastest_first(name, parsed):
    """Capacities strictly fall in the sources' order (Snapdragon's two A720 domains differ by their clock;
    the 7950X3D's CCDs by theirs, with the same cores); the reported capacity is the derived one."""
    order = [t[0] for t in SOURCES[name][0]]
    engine = {t["name"]: t["capacity"] for t in parsed[name]["core_types"]}
    capacities = [engine[n] for n in order]
    assert capacities[0] == CAPACITY_SCALE
    assert all(a > b for a, b in zip(capacities, capacities[1:])), capacities
    assert engine == _true_capacity(_file(name))


def _check_device_tree_capacities(name, dmips_mhz, linux_capacity, parsed):
    """Linux's capacities from the device tree's dmips and clocks are the source's; the file's clocks and
    cpi_scale reproduce them (the kernel truncates, the engine rounds: within one)."""
    top = max(d * mhz for d, mhz in dmips_mhz.values())
    assert {n: d * mhz * CAPACITY_SCALE // top for n, (d, mhz) in dmips_mhz.items()} == linux_capacity
    engine = {t["name"]: t["capacity"] for t in parsed[name]["core_types"]}
    assert all(abs(engine[n] - linux_capacity[n]) <= 1 for n in linux_capacity), engine
    types = _types(_file(name))
    top_dmips = max(d for d, _ in dmips_mhz.values())
    for n, (dmips, mhz) in dmips_mhz.items():
        assert types[n]["freq_ghz"] == mhz / 1000, n
        assert types[n]["cpi_scale"] == pytest.approx(top_dmips / dmips, abs=1e-4), n


def test_pixel6_capacities_are_the_device_trees_1024_498_160(parsed):
    _check_device_tree_capacities("pixel6", PIXEL6_DMIPS_MHZ, PIXEL6_LINUX_CAPACITY, parsed)


def test_snapdragon_8g3_capacities_are_the_device_trees(parsed):
    _check_device_tree_capacities("snapdragon-8g3", SNAPDRAGON_8G3_DMIPS_MHZ, SNAPDRAGON_8G3_LINUX_CAPACITY, parsed)


def test_pixel6_energy_model_is_the_kernels_from_the_device_tree():
    types = _types(_file("pixel6"))
    for n, (coefficient, opps) in PIXEL6_EM.items():
        t = types[n]
        assert t["freq_levels_ghz"] == [mhz / 1000 for mhz, _ in opps], n
        kernel_w = [coefficient * (uv // 1000) ** 2 * mhz / 1e9 / 1000 for mhz, uv in opps]
        assert t["power_levels_w"] == pytest.approx(kernel_w, abs=EM_ROUNDING_W), n
        assert t["power_active_w"] == t["power_levels_w"][-1]


def test_the_7950x3d_is_cache_asymmetric_not_core_asymmetric():
    ccd1, ccd0 = (_types(_file("ryzen-7950x3d"))[n] for n in ("ccd1-freq", "ccd0-vcache"))
    assert ccd1["cpi_scale"] == ccd0["cpi_scale"] and ccd1["uarch"] == ccd0["uarch"]
    assert ccd1["freq_ghz"] > ccd0["freq_ghz"]
    # The larger L3 is the slower CCD's: the first domain holds the ccd0-vcache type's cores (listed first).
    assert _file("ryzen-7950x3d")["core_type"][0]["name"] == "ccd0-vcache"


@pytest.mark.parametrize("name", sorted(PACKAGE_POWER))
def test_the_x86_power_estimates_add_up_to_the_package_power_limits(name):
    uncore, package, covered = PACKAGE_POWER[name]
    types = _types(_file(name))
    for level, watts in enumerate(package):
        busy = sum(types[n]["count"] * types[n]["power_levels_w"][level] for n in covered)
        assert uncore + busy == pytest.approx(watts, abs=PACKAGE_ROUNDING_W), (level, watts)


def test_pixel6_missorted_is_pixel6_with_the_reported_order_reversed(parsed):
    true_file, wrong_file = _file("pixel6"), _file("pixel6-missorted")
    strip = ("name", "description", "source")
    assert {k: v for k, v in wrong_file.items() if k not in strip + ("core_type",)} == {
        k: v for k, v in true_file.items() if k not in strip + ("core_type",)
    }
    assert [{k: v for k, v in t.items() if k != "capacity"} for t in wrong_file["core_type"]] == true_file["core_type"]
    true = {t["name"]: t["capacity"] for t in parsed["pixel6"]["core_types"]}
    reported = {t["name"]: t["capacity"] for t in parsed["pixel6-missorted"]["core_types"]}
    # The reported values are the device tree's three, permuted so that ranking by them gives scx_lavd's
    # pre-fix performance order (sched-ext/scx #1991: little cores, then the A76s, then the X1s).
    assert sorted(reported.values()) == sorted(PIXEL6_LINUX_CAPACITY.values())
    assert sorted(reported, key=reported.get, reverse=True) == ["little", "mid", "prime"]
    assert sorted(true, key=true.get, reverse=True) == ["prime", "mid", "little"]


def test_hybrid_flat_capacity_reports_1024_on_cores_that_differ(parsed):
    reported = {t["name"]: t["capacity"] for t in parsed["hybrid-flat-capacity"]["core_types"]}
    assert reported == {"pcore": CAPACITY_SCALE, "ecore": CAPACITY_SCALE}
    true = _true_capacity(_file("hybrid-flat-capacity"))
    assert true["pcore"] == CAPACITY_SCALE and true["ecore"] < CAPACITY_SCALE


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_preset_runs_a_small_workload(name):
    r = ampsched.run(name, "hh1", "static")
    row = r.summary.iloc[0]
    assert row["machine"] == name and row["makespan_s"] > 0
    # Every type gives a power, so the run reports energy.
    assert row["energy_j"] > 0
