#!/usr/bin/env python3
"""Speedup factors of the catalog's programs under the miss-curve model, and the checks the
catalog's SPEC CPU2000/CPU2006 values are held to (issue 8, sections 1 and 3).

    python3 bench/catalog_curves.py                  # tables and checks for both program files
    python3 bench/catalog_curves.py --header spec2000 # only the table of catalog/programs/spec2000.toml's header

It reads the catalog's TOML files and nothing else, and applies the engine's model by hand
(README, "Programs"): per instruction, ns = cpi × cpi_scale / freq_ghz + mpki(capacity) / 1000 ×
memory_latency_ns, where mpki(capacity) interpolates the phase's `miss_curve` linearly in
log2(size) (the first value below the first size, the last above the last) and a flat `llc_mpki`
is a constant curve. A thread alone gets its whole LLC. Threads sharing an LLC divide it by
Chandra et al.'s Frequency-of-Access model ("Predicting inter-thread cache contention on a chip
multi-processor architecture", HPCA 2005): shares proportional to each thread's LLC access rate,
taken as (the curve's first value) / 1000 / (its solo ns per instruction on that core).

Approximations of this script (not of the engine): a program of several phases is treated in a
co-run as one thread with its phase-summed accesses and time (the engine follows phases); co-runs
are steady states (every thread runs all the time, as under constant load) with no migrations.
"""

import argparse
import math
import random
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "catalog"


# ---------------------------------------------------------------- model


def curve(phase):
    """(sizes, mpki) of a phase; a flat llc_mpki as a one-point curve."""
    if "miss_curve" in phase:
        c = phase["miss_curve"]
        return c["size_kb"], c["mpki"]
    return [1], [phase.get("llc_mpki", 0.0)]


def mpki_at(phase, cap_kb):
    sizes, vals = curve(phase)
    if cap_kb <= sizes[0]:
        return vals[0]
    if cap_kb >= sizes[-1]:
        return vals[-1]
    for i in range(len(sizes) - 1):
        if sizes[i] <= cap_kb <= sizes[i + 1]:
            t = (math.log2(cap_kb) - math.log2(sizes[i])) / (math.log2(sizes[i + 1]) - math.log2(sizes[i]))
            return vals[i] + t * (vals[i + 1] - vals[i])
    raise AssertionError


def cpi_on(phase, ctype):
    """The phase's CPI on a core type (docs/microarchitecture.md): a `cpi` table's entry for the core's
    `uarch` replaces cpi × cpi_scale; otherwise its `default` (else its lowest entry) × cpi_scale."""
    cpi = phase.get("cpi", 1.0)
    if not isinstance(cpi, dict):
        return cpi * ctype.get("cpi_scale", 1.0)
    if ctype.get("uarch") in cpi:
        return cpi[ctype["uarch"]]
    return cpi.get("default", min(cpi.values())) * ctype.get("cpi_scale", 1.0)


def ns_per_instr(phase, machine, ctype, cap_kb):
    overlap = min(phase.get("mlp", 1), ctype.get("max_mlp", 1))
    return (
        cpi_on(phase, ctype) / ctype["freq_ghz"]
        + mpki_at(phase, cap_kb) / 1000.0 * machine["memory_latency_ns"] / overlap
    )


def compute_phases(program):
    return [p for p in program["phase"] if p.get("kind", "compute") in ("compute", "serial", "critical")]


def prog_ns(program, machine, ctype, cap_kb):
    """Total ns of one solo run of the program (its compute phases) at a given LLC capacity."""
    return sum(p["instructions"] * ns_per_instr(p, machine, ctype, cap_kb) for p in compute_phases(program))


def prog_accesses(program):
    return sum(p["instructions"] * curve(p)[1][0] / 1000.0 for p in compute_phases(program))


def llc_of_core(machine, core):
    for llc in machine.get("llc", []):
        if core in expand(llc["cores"]):
            return llc
    return None


def expand(cores):
    if isinstance(cores, list):
        return cores
    out = []
    for part in str(cores).split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def type_cores(machine):
    """Core type of every core index, in the machine's order."""
    out = []
    for t in machine["core_type"]:
        out += [t] * t["count"]
    return out


def solo_cap(machine, type_index):
    """LLC size a lone thread gets on the first core of a type."""
    first = sum(t["count"] for t in machine["core_type"][:type_index])
    llc = llc_of_core(machine, first)
    return llc["size_kb"] if llc else 0


def sf(program, machine):
    fast, slow = machine["core_type"][0], machine["core_type"][-1]
    return prog_ns(program, machine, slow, solo_cap(machine, len(machine["core_type"]) - 1)) / prog_ns(
        program, machine, fast, solo_cap(machine, 0)
    )


def foa_shares(threads, machine, llc_kb):
    """threads: [(program, ctype)] running in one LLC -> capacity (KB) of each."""
    rates = [prog_accesses(p) / prog_ns(p, machine, t, llc_kb) for p, t in threads]
    total = sum(rates)
    if total == 0:
        return [llc_kb / len(threads)] * len(threads)
    return [llc_kb * r / total for r in rates]


def corun(machine, placement):
    """placement: {core index: program}. -> {core: (ns per run, capacity)} in steady state."""
    types = type_cores(machine)
    out = {}
    for llc in machine.get("llc", []):
        cores = [c for c in expand(llc["cores"]) if c in placement]
        if not cores:
            continue
        threads = [(placement[c], types[c]) for c in cores]
        caps = foa_shares(threads, machine, llc["size_kb"])
        for c, (p, t), cap in zip(cores, threads, caps):
            out[c] = (prog_ns(p, machine, t, cap), cap)
    return out


# ---------------------------------------------------------------- loading


def load_programs(name):
    data = tomllib.loads((CATALOG / "programs" / f"{name}.toml").read_text())
    for p in data["program"]:
        for i, ph in enumerate(p["phase"]):
            if "miss_curve" in ph:
                sizes, vals = curve(ph)
                where = f"{name}.toml, {p['name']} phase {i + 1}"
                assert len(sizes) == len(vals) > 0, f"{where}: size_kb and mpki differ in length"
                assert all(a < b for a, b in zip(sizes, sizes[1:])), f"{where}: sizes not increasing"
                assert all(v >= 0 for v in vals) and all(a >= b for a, b in zip(vals, vals[1:])), (
                    f"{where}: mpki negative or increasing"
                )
    return {p["name"]: p for p in data["program"]}


def load_machine(name):
    return tomllib.loads((CATALOG / "machines" / f"{name}.toml").read_text())


# ---------------------------------------------------------------- reports


# Further SF columns of a file's table: (heading, machine) per file. Kim & Huh's two platforms for the
# CPU2006 programs (their efficiency classes, Table 4; bench/kimhuh_efficiency.py runs them in the engine).
EXTRA = {"spec2006": [("SF kh", "kimhuh-2f4s"), ("SF xu3l", "odroid-xu3-lite")]}


def table(progs, amd, intel, wash, extra=()):
    """extra: (heading, machine) of further SF columns."""
    lines = [
        "program       SF amd  SF intel  SF wash  amd/2  intel/1.5  fast s  phases"
        + "".join(f"  {h:>8}" for h, _ in extra)
    ]
    for name, p in progs.items():
        a, i, w = sf(p, amd), sf(p, intel), sf(p, wash)
        fast_s = prog_ns(p, amd, amd["core_type"][0], solo_cap(amd, 0)) / 1e9
        lines.append(
            f"{name:<12} {a:7.3f} {i:9.3f} {w:8.3f} {a / 2.0:6.3f} {i / 1.5:10.3f} {fast_s:7.1f} {len(p['phase']):7d}"
            + "".join(f"  {sf(p, m):8.3f}" for _, m in extra)
        )
    return lines


SET1 = {  # Sáez thesis, Table 4.2a: the first two go to the fast cores (§4.3.4, "always the case")
    "hh1": ["sixtrack", "crafty", "mcf", "equake"],
    "hh2": ["gzip", "sixtrack", "mcf", "swim"],
    "hh3": ["mesa", "perlbmk", "equake", "swim"],
    "mh1": ["vortex", "twolf", "fma3d", "art"],
    "mh2": ["gap", "parser", "applu", "vpr"],
    "mh3": ["apsi", "ammp", "lucas", "mgrid"],
    "mh4": ["bzip2", "gcc", "wupwise", "art"],
}
SIX = ["art", "applu", "swim", "lucas", "mcf", "equake"]


def checks(progs, amd, intel):
    ok = True

    def say(cond, text):
        nonlocal ok
        ok &= bool(cond)
        print(("  ok    " if cond else "  FAIL  ") + text)

    for m in (amd, intel):
        print(f"First pair above second pair, {m['name']} (solo SF):")
        for w, apps in SET1.items():
            s = [sf(progs[a], m) for a in apps]
            line = f"{w}: " + ", ".join(f"{a} {v:.3f}" for a, v in zip(apps, s))
            if m is amd:
                say(min(s[:2]) > max(s[2:]), line)
            else:
                print(("  holds " if min(s[:2]) > max(s[2:]) else "  not   ") + line)
    print("Highly memory-intensive six lowest on 2fc-2sc-amd:")
    six_max = max(sf(progs[a], amd) for a in SIX)
    rest_min = min(sf(p, amd) for n, p in progs.items() if n not in SIX)
    say(six_max < rest_min, f"max of the six {six_max:.3f} < min of the rest {rest_min:.3f}")
    t, v = sf(progs["twolf"], amd), sf(progs["vortex"], amd)
    say(abs(t - v) < 0.02, f"twolf {t:.3f} ~ vortex {v:.3f}")
    more_cpu = [n for n, p in progs.items() if sf(p, intel) / 1.5 > sf(p, amd) / 2.0]
    frac = [n for n, p in progs.items() if (sf(p, intel) - 1) / 0.5 > (sf(p, amd) - 1) / 1.0]
    say(len(more_cpu) > len(progs) / 2, f"SF/SF_max higher on intel than amd: {len(more_cpu)} of {len(progs)}")
    print(
        f"  (stricter: (SF-1)/(SF_max-1), i.e. less time stalled on memory, higher on intel: {len(frac)} of {len(progs)};"
        f" not: {', '.join(n for n in progs if n not in frac)})"
    )
    return ok


def mh1x4(progs, m):
    """Best static on 4fc-12sc with MH1x4: 4 twolf vs 4 vortex on the fast chip (Sáez thesis §4.3.4, Fig. 4.4)."""
    names = ["vortex", "twolf", "fma3d", "art"]
    fast = [c for c in range(16) if c < 4]

    def run(fast_app, arrange):
        slow_threads = [n for n in names for _ in range(4) if n != fast_app]
        order = arrange(slow_threads)
        placement = {c: progs[fast_app] for c in fast}
        for i, n in enumerate(order):
            placement[4 + i] = progs[n]
        res = corun(m, placement)
        per_app = {}
        for c, (t, cap) in res.items():
            per_app.setdefault(placement[c]["name"], []).append((t, cap))
        return per_app

    def ratio(arrange_a, arrange_b, samples=1):
        tot_a, tot_b = {}, {}
        for s in range(samples):
            a, b = run("twolf", lambda x: arrange_a(x, s)), run("vortex", lambda x: arrange_b(x, s))
            for n in names:
                tot_a[n] = tot_a.get(n, 0) + sum(t for t, _ in a[n]) / 4
                tot_b[n] = tot_b.get(n, 0) + sum(t for t, _ in b[n]) / 4
        return (
            math.exp(sum(math.log(tot_b[n] / tot_a[n]) for n in names) / 4),
            run("twolf", lambda x: arrange_a(x, 0)),
            run("vortex", lambda x: arrange_b(x, 0)),
        )

    def spread(x, s):  # deal one per chip in turn
        return [x[i] for k in range(3) for i in range(k, 12, 3)]

    def fill(x, s):  # in listing order: each program fills a chip
        return x

    def shuffled(offset):
        def f(x, s):
            y = x[:]
            random.Random(s + offset).shuffle(y)
            return y

        return f

    print(
        "MH1x4 on 4fc-12sc: geometric mean over the 4 programs of (time with 4 vortex on the fast chip) /"
        " (time with 4 twolf there); the thesis: about 1.07 (§4.3.4)"
    )
    r, a, b = ratio(spread, spread)
    print(f"  slow threads dealt across the 3 slow chips: {r:.3f}")
    for label, res in (("4 twolf fast", a), ("4 vortex fast", b)):
        print(
            "    "
            + label
            + ": "
            + "; ".join(
                f"{n} {sum(t for t, _ in v) / len(v) / 1e9:.2f} s at {sum(c for _, c in v) / len(v):.0f} KB"
                for n, v in res.items()
            )
        )
    r, _, _ = ratio(shuffled(0), shuffled(10_000), samples=200)
    print(f"  slow threads in random order (mean of 200): {r:.3f}")
    r, _, _ = ratio(fill, fill)
    print(f"  slow threads filling chips in listing order (no program shares a chip with another): {r:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--header", choices=["spec2000", "spec2006"], help="print only that file's header table")
    args = ap.parse_args()
    amd, intel, wash = (load_machine(n) for n in ("2fc-2sc-amd", "2fc-2sc-intel", "wash-1b5s"))
    if args.header:
        extra = [(h, load_machine(m)) for h, m in EXTRA.get(args.header, [])]
        print("\n".join("# " + line for line in table(load_programs(args.header), amd, intel, wash, extra)))
        return 0
    ok = True
    for name in ("spec2000", "spec2006"):
        progs = load_programs(name)
        print(f"== catalog/programs/{name}.toml")
        print("\n".join(table(progs, amd, intel, wash, [(h, load_machine(m)) for h, m in EXTRA.get(name, [])])))
        if name == "spec2000":
            ok &= checks(progs, amd, intel)
            mh1x4(progs, load_machine("4fc-12sc"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
