"""Kim & Huh's catalog ("Exploring the Design Space of Fair Scheduling Supports for Asymmetric Multicore
Systems", IEEE TC 2018): the mixes of Table 4 as printed, and the H/M/L efficiency classes those mixes
are named by coming out of the engine's model on both platforms (kimhuh-2f4s, the emulated AMP;
odroid-xu3-lite, big.LITTLE). The efficiencies are measured by bench/kimhuh_efficiency.py, which runs
the engine; a few are also derived here by hand from the catalog's values."""

import math
import os
import sys

import pytest

tomllib = pytest.importorskip("tomllib")
ampsched = pytest.importorskip("ampsched")

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
CATALOG = os.path.join(REPO, "catalog")
sys.path.insert(0, os.path.join(REPO, "bench"))
import kimhuh_efficiency as kh  # noqa: E402

# Table 4 as printed (the paper's spellings "games" and "hammer" are gamess and hmmer): mix -> programs,
# each twice except SAME (six gcc).
TABLE_4_EMU = {
    "HHH": "povray namd bzip2",
    "MMM": "zeusmp gcc leslie3d",
    "LLL": "soplex mcf milc",
    "SAME": "gcc",
    "MLL": "gcc omnetpp mcf",
    "MML": "gcc leslie3d milc",
    "HMM": "povray gcc leslie3d",
    "HHM": "namd hmmer gcc",
    "HML.a": "namd gcc soplex",
    "HML.b": "h264ref astar omnetpp",
    "HHL.a": "namd hmmer soplex",
    "HHL.b": "gamess gromacs milc",
    "HLL.a": "hmmer mcf milc",
    "HLL.b": "gobmk GemsFDTD mcf",
}
TABLE_4_BL = {
    "HH": "gamess bwaves",
    "MM": "h264ref gromacs",
    "LL": "gobmk omnetpp",
    "MLa": "bzip2 astar",
    "MLb": "gromacs sjeng",
    "HM.a": "GemsFDTD h264ref",
    "HM.b": "hmmer gromacs",
    "HL.a": "GemsFDTD omnetpp",
    "HL.b": "bwaves gobmk",
}
CATALOG_NAME = {"bzip2": "bzip2_2006", "gcc": "gcc_2006", "mcf": "mcf_2006"}


def _load(kind, name):
    with open(os.path.join(CATALOG, kind, f"{name}.toml"), "rb") as f:
        return tomllib.load(f)


@pytest.mark.parametrize(
    "prefix,table,machine",
    [("kimhuh-emu-", TABLE_4_EMU, "kimhuh-2f4s"), ("kimhuh-bl-", TABLE_4_BL, "odroid-xu3-lite")],
)
def test_the_mixes_are_table_4_one_app_a_core_first_run_measured(prefix, table, machine):
    files = sorted(f for f in os.listdir(os.path.join(CATALOG, "workloads")) if f.startswith(prefix))
    assert len(files) == len(table)
    cores = kh.core_count(machine)
    for mix, programs in table.items():
        w = _load("workloads", prefix + mix.lower().replace(".", "-"))
        want = [CATALOG_NAME.get(p, p) for p in programs.split()]
        assert [a["program"] for a in w["app"]] == want, mix
        assert sum(a["copies"] for a in w["app"]) == cores, mix
        assert all(a["copies"] == (6 if mix == "SAME" else 2) for a in w["app"]), mix
        # The paper re-runs every app until each has finished once and uses the first run.
        assert w["constant_load"] is True and all(a["runs"] == 1 for a in w["app"]), mix
        assert f"for {machine}" in w["description"], mix
        # Each letter of the name is the class of the program in its place (SAME aside).
        if mix != "SAME":
            letters = [c for c in mix.split(".")[0] if c in "HML"]
            for letter, program in zip(letters, want):
                assert program in kh.CLASSES[machine][letter], (mix, program)


@pytest.fixture(scope="module")
def solo():
    return {m: kh.solo_table(m) for m in kh.CLASSES}


@pytest.mark.parametrize("machine", list(kh.CLASSES))
def test_every_h_above_every_m_above_every_l_solo(solo, machine):
    """Solo, bound, whole LLC: every program of a higher class has a higher efficiency. On
    kimhuh-2f4s the closest pair is leslie3d (M) over omnetpp (L), by 0.007 (spec2006.toml's header)."""
    table = solo[machine]
    assert sorted(table) == sorted(p for ps in kh.CLASSES[machine].values() for p in ps)
    holds, text = kh.class_order(table)
    assert holds, f"{machine}: {text}"


def test_the_engine_gives_the_hand_derived_efficiencies(solo):
    """Per instruction, ns = CPI on the core / GHz + mpki at the LLC it gets / 1000 × latency / min(mlp,
    max_mlp) (docs/microarchitecture.md), from the values in the catalog files."""
    xu3 = solo["odroid-xu3-lite"]
    # gamess: cpi A15 0.6, A7 1.248; mpki 0.03 at the A15's 2 MB, 0.066 at the A7's 512 KB; 120 ns.
    fast = 0.6 / 1.8 + 0.03 / 1000 * 120
    slow = 1.248 / 1.3 + 0.066 / 1000 * 120
    assert xu3["gamess"][1] == pytest.approx(slow / fast, rel=1e-3)  # 2.873
    # bwaves: cpi 0.8 / 1.472, mpki 3.2 / 3.52, mlp 4 (the A15 holds 6, the A7 1).
    fast = 0.8 / 1.8 + 3.2 / 1000 * 120 / 4
    slow = 1.472 / 1.3 + 3.52 / 1000 * 120 / 1
    assert xu3["bwaves"][1] == pytest.approx(slow / fast, rel=1e-3)  # 2.877
    # Without its MLP bwaves would be low class: below gobmk (L).
    assert (slow / (0.8 / 1.8 + 3.2 / 1000 * 120)) < xu3["gobmk"][1]
    # kimhuh-2f4s: same microarchitecture, 2.8/0.8 GHz, 75 ns, 6 MB. povray: cpi 0.8, mpki at 6 MB
    # between 0.024 (4 MB) and 0.02 (8 MB), log2-linear: 0.024 - 0.004 × log2(1.5).
    m = 0.024 - 0.004 * math.log2(1.5)
    fast = 0.8 / 2.8 + m / 1000 * 75
    slow = 0.8 / 0.8 + m / 1000 * 75
    assert solo["kimhuh-2f4s"]["povray"][1] == pytest.approx(slow / fast, rel=1e-3)  # 3.486


def test_milc_within_its_mixes_against_fig_4(solo):
    """Kim & Huh measured milc's efficiency at 1.78 in LLL and 1.95 in HHL.b (Fig. 4): lower among
    memory-intensive co-runners. The model gives the same direction, but a smaller effect (2.03 and
    2.04, from 2.04 solo): milc streams (its miss curve is flat), so a smaller LLC share adds few
    misses, and kimhuh-2f4s models no bandwidth queueing (the paper gives no bandwidth; even the
    Phenom II's dual-channel DDR3-1333, 21.3 GB/s, moves these efficiencies by under 0.002). So the
    tolerance: within 15% of the paper's value in each mix."""
    lll = kh.mix_efficiencies("kimhuh-2f4s", "kimhuh-emu-lll")["milc"]
    hhlb = kh.mix_efficiencies("kimhuh-2f4s", "kimhuh-emu-hhl-b")["milc"]
    assert lll < hhlb
    assert lll == pytest.approx(kh.MILC_PAPER["kimhuh-emu-lll"], rel=0.15)
    assert hhlb == pytest.approx(kh.MILC_PAPER["kimhuh-emu-hhl-b"], rel=0.15)
    # And it stays a low-class program within each mix.
    assert lll < min(solo["kimhuh-2f4s"][p][1] for p in kh.CLASSES["kimhuh-2f4s"]["M"])


# Within a six-app mix astar gets about a sixth of the 6 MB L3, short of the knee that makes it medium
# solo (spec2006.toml's header), so in HML.b it falls just below omnetpp. Making it medium there too
# would take misses below its 2 MB values, that is, moving it on the Sáez thesis's 2 MB machines, where
# it is memory-intensive like omnetpp.
IN_MIX_EXCEPTIONS = {("kimhuh-emu-hml-b", "astar", "omnetpp")}


@pytest.mark.parametrize("machine", list(kh.CLASSES))
def test_within_each_mix_a_higher_class_has_the_higher_efficiency(machine):
    """Bound within the mix under constant load, as Fig. 4 measured it."""
    rank = {p.split("_")[0]: "HML".index(c) for c, ps in kh.CLASSES[machine].items() for p in ps}
    seen = set()
    for mix in kh.mixes(machine):
        effs = kh.mix_efficiencies(machine, mix)
        for a, ea in effs.items():
            for b, eb in effs.items():
                if rank[a] < rank[b]:
                    if (mix, a, b) in IN_MIX_EXCEPTIONS:
                        seen.add((mix, a, b))
                        assert ea < eb
                    else:
                        assert ea > eb, (mix, a, ea, b, eb)
    assert seen == {x for x in IN_MIX_EXCEPTIONS if x[0].startswith(kh.MIX_PREFIX[machine])}
