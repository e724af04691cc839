#!/usr/bin/env python3
"""Fast-core efficiencies of Kim & Huh's SPEC CPU2006 programs on their two platforms, from the engine.

    .venv/bin/python bench/kimhuh_efficiency.py            # per-platform tables, class checks, each mix
    .venv/bin/python bench/kimhuh_efficiency.py --solo     # only the per-platform tables and checks

Kim & Huh ("Exploring the Design Space of Fair Scheduling Supports for Asymmetric Multicore Systems",
IEEE TC 2018, Table 4) name their mixes by the fast-core efficiency class of each program on each
platform: H(igh), M(edium), L(ow). Efficiency e = time on a slow core / time on a fast core. Here:

- solo: the program alone on the machine, bound to the first fast core (`bound:offset=0`) and then to
  the last slow core (`bound:offset=<last core>`), each run with its cluster's whole LLC;
- in a mix (as Fig. 4 measured it, "pinning each app to a fast or slow core within each mix"): the mix's
  first copy of the program bound to a fast core and then to a slow core by the rotations of
  `bound:offset=r`, the other apps bound to the other cores, all under constant load. The mix's
  e of a program is the mean over its copies of (its time in a rotation that binds it slow) / (its
  time in one that binds it fast), averaged over those rotations.

Every number is the engine's (`ampsched.run`); nothing is computed by hand here. The classes below
are the paper's (derived by matching each mix name's letters to its programs); tests/python/
test_catalog_kimhuh.py checks that they come out of the model.
"""

import argparse
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "catalog"

# Kim & Huh, Table 4: the efficiency class of each program per platform. Catalog names: bzip2, gcc and
# mcf are the CPU2006 programs bzip2_2006, gcc_2006, mcf_2006.
CLASSES = {
    "kimhuh-2f4s": {
        "H": ["povray", "namd", "bzip2_2006", "hmmer", "h264ref", "gamess", "gromacs", "gobmk"],
        "M": ["zeusmp", "gcc_2006", "leslie3d", "astar"],
        "L": ["soplex", "mcf_2006", "milc", "omnetpp", "GemsFDTD"],
    },
    "odroid-xu3-lite": {
        "H": ["gamess", "bwaves", "GemsFDTD", "hmmer"],
        "M": ["h264ref", "gromacs", "bzip2_2006"],
        "L": ["gobmk", "omnetpp", "astar", "sjeng"],
    },
}
MIX_PREFIX = {"kimhuh-2f4s": "kimhuh-emu-", "odroid-xu3-lite": "kimhuh-bl-"}
# milc's efficiency on the emulated AMP when co-running: 1.78 in LLL, 1.95 in HHL.b (Kim & Huh, Fig. 4, §7.1).
MILC_PAPER = {"kimhuh-emu-lll": 1.78, "kimhuh-emu-hhl-b": 1.95}


def _machine(name):
    return tomllib.loads((CATALOG / "machines" / f"{name}.toml").read_text())


def core_count(machine_name):
    return sum(t["count"] for t in _machine(machine_name)["core_type"])


def fast_count(machine_name):
    return _machine(machine_name)["core_type"][0]["count"]


def _turnarounds(machine, workload_path, offset):
    import ampsched

    res = ampsched.run(machine, str(workload_path), f"bound:offset={offset}")
    return {a["name"]: a["turnaround_s"] for a in res.raw["apps"]}


def solo_efficiency(machine, program):
    """(e, fast s, slow s) of `program` alone on `machine`, bound to a fast core then to a slow one."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "solo.toml"
        path.write_text(f'name = "solo"\n[[app]]\nname = "p"\nprogram = "{program}"\n')
        fast = _turnarounds(machine, path, 0)["p"]
        slow = _turnarounds(machine, path, core_count(machine) - 1)["p"]
    return slow / fast, fast, slow


def solo_table(machine):
    """{program: (class, e, fast s, slow s)} for the machine's classes."""
    out = {}
    for cls, progs in CLASSES[machine].items():
        for p in progs:
            out[p] = (cls,) + solo_efficiency(machine, p)
    return out


def class_order(table):
    """(holds, text): every H above every M above every L, with the margins."""
    by = {c: [e for cls, e, *_ in table.values() if cls == c] for c in "HML"}
    hm = min(by["H"]) - max(by["M"])
    ml = min(by["M"]) - max(by["L"])
    return hm > 0 and ml > 0, f"min H - max M = {hm:+.3f}, min M - max L = {ml:+.3f}"


def mix_efficiencies(machine, mix):
    """{app name: e} of each program of a catalog mix, bound within the mix (see the module's doc)."""
    path = CATALOG / "workloads" / f"{mix}.toml"
    n, nfast = core_count(machine), fast_count(machine)
    runs = [_turnarounds(machine, path, r) for r in range(n)]
    # Thread j (listing order, copies in turn) is on core (j + r) mod n in rotation r: fast when < nfast.
    names = list(runs[0])
    out = {}
    for j, name in enumerate(names):
        fast = [runs[r][name] for r in range(n) if (j + r) % n < nfast]
        slow = [runs[r][name] for r in range(n) if (j + r) % n >= nfast]
        out[name] = (sum(slow) / len(slow)) / (sum(fast) / len(fast))
    per_program = {}
    for name, e in out.items():
        per_program.setdefault(name.split("#")[0], []).append(e)
    return {p: sum(v) / len(v) for p, v in per_program.items()}


def mixes(machine):
    return sorted(p.stem for p in (CATALOG / "workloads").glob(MIX_PREFIX[machine] + "*.toml"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solo", action="store_true", help="only the solo tables and class checks")
    args = ap.parse_args()
    ok = True
    for machine in CLASSES:
        table = solo_table(machine)
        print(f"== {machine}: solo, bound, whole LLC (e = slow s / fast s)")
        print("program      class      e   fast s   slow s")
        for p, (cls, e, f, s) in sorted(table.items(), key=lambda kv: -kv[1][1]):
            print(f"{p:<12} {cls:>5} {e:6.3f} {f:8.2f} {s:8.2f}")
        holds, text = class_order(table)
        ok &= holds
        print(("classes hold: " if holds else "classes OVERLAP: ") + text)
        if args.solo:
            continue
        print(f"== {machine}: each mix, bound within the mix under constant load (mean over copies and rotations)")
        for mix in mixes(machine):
            effs = mix_efficiencies(machine, mix)
            print(f"{mix:<20} " + ", ".join(f"{p} {e:.3f}" for p, e in effs.items()))
            if mix in MILC_PAPER:
                print(f"{'':<20} milc {effs['milc']:.3f} (paper: {MILC_PAPER[mix]})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
