"""Chapter 4 of the Sáez thesis, held against ampsched: every number of the README's table
"Held against the thesis, chapter 4", recomputed.

    python bench/thesis_ch4.py            # all of it (a few minutes on 2 CPUs)
    python bench/thesis_ch4.py --quick    # 2FC-2SC only
    python bench/thesis_ch4.py --markdown # the README table

The thesis's metrics (§4.3.3, §4.3.4):
- default metric, per app: its completion time bound to a fast core and bound to a slow core,
  averaged; here the mean over the rotations bound:offset=0..cores-1, which binds each app once
  to every core, so the average weights fast and slow by their core counts (1:3 on 4FC-12SC).
- a workload's gain over default: 1 - the geometric mean over its apps of T_policy / T_default.
- HAFS (`rr`) overhead against ideal round robin: T_HAFS / T_idealRR per app, ideal RR being
  the app's bound-fast and bound-slow rates combined in proportion to the core counts with no
  migration cost: 1 / T_ideal = α / T_fast + (1 - α) / T_slow, α = fast cores / all cores.
- best static: the oracle `best-static`, which searches the fixed assignments (geometric mean).
"""

import argparse
import math
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

import ampsched


def app_times(machine, workload, policy):
    """Per app name: (mean turnaround s, fast-core share)."""
    apps = ampsched.run(machine, workload, policy).apps
    return {row["name"]: (row["turnaround_s"], row["fast_share"]) for _, row in apps.iterrows()}


def ncores(machine):
    return len(ampsched.run(machine, "demo", "oblivious").cores)


def jobs(tasks):
    """Run (machine, workload, policy) tasks on every CPU, results in order."""
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(_task, tasks))


def _task(t):
    return app_times(*t)


class Study:
    """The bound rotations and the policies' runs of one machine and workload."""

    def __init__(self, machine, workload, policies, cores, fast_cores):
        self.machine, self.workload, self.policies = machine, workload, policies
        self.cores, self.alpha = cores, fast_cores / cores
        self.tasks = [(machine, workload, f"bound:offset={r}") for r in range(cores)]
        self.tasks += [(machine, workload, p) for p in policies]

    def take(self, results):
        bound, rest = results[:self.cores], results[self.cores:]
        names = list(bound[0])
        self.default = {a: sum(b[a][0] for b in bound) / len(bound) for a in names}
        fast = {a: [b[a][0] for b in bound if b[a][1] > 0.5] for a in names}
        slow = {a: [b[a][0] for b in bound if b[a][1] <= 0.5] for a in names}
        self.ideal = {}
        for a in names:
            tf, ts = sum(fast[a]) / len(fast[a]), sum(slow[a]) / len(slow[a])
            self.ideal[a] = 1.0 / (self.alpha / tf + (1 - self.alpha) / ts)
        self.runs = dict(zip(self.policies, rest))

    def gain(self, policy):
        """1 - geometric mean of T_policy / T_default."""
        r = self.runs[policy]
        logs = [math.log(r[a][0] / self.default[a]) for a in self.default]
        return 1 - math.exp(sum(logs) / len(logs))

    def overheads(self, policy="rr"):
        """Per app: T_policy / T_idealRR - 1."""
        r = self.runs[policy]
        return {a: r[a][0] / self.ideal[a] - 1 for a in self.ideal}


class AppsOnFast(ampsched.Policy):
    """A fixed assignment: the threads of the apps named `on_fast` (copies included) on the fast
    cores, the others on the slow ones."""

    triggers = ("start",)

    def __init__(self, on_fast):
        self.on_fast = on_fast
        self.name = f"{on_fast}-on-fast"

    def decide(self, view):
        fast = view.machine["fast_cores"]
        slow = [c for c in range(len(view.machine["cores"])) if c not in fast]
        t = view.thread(view.trigger_thread)
        name = view.apps[t.app]["name"].split("#")[0]
        out = ampsched.Placement()
        out.set(t.id, fast if name == self.on_fast else slow)
        return out


def geomean_slowdown(machine, workload, policy):
    apps = ampsched.run(machine, workload, policy).apps
    return math.exp(sum(math.log(x) for x in apps["slowdown"]) / len(apps))


def more_cpu_bound_on_intel():
    """Programs whose share of time not stalled on memory, (SF - 1) / (SF_max - 1), is higher on
    2fc-2sc-intel (4 MB LLC) than on 2fc-2sc-amd (2 MB), by the catalog's own calculator."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import catalog_curves as cc

    progs = cc.load_programs("spec2000")
    amd, intel = cc.load_machine("2fc-2sc-amd"), cc.load_machine("2fc-2sc-intel")
    n = sum((cc.sf(p, intel) - 1) / 0.5 > (cc.sf(p, amd) - 1) / 1.0 for p in progs.values())
    return n, len(progs)


def mgrid_copies(n):
    text = f'name = "mgrid-x{n}"\nconstant_load = true\n[[app]]\nname = "mgrid"\nprogram = "mgrid"\ncopies = {n}\nruns = 3\n'
    f = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    f.write(text)
    f.close()
    return f.name


def pct(x):
    return f"{100 * x:+.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the 2FC-2SC machines only")
    ap.add_argument("--markdown", action="store_true", help="print the README table")
    args = ap.parse_args()

    set1 = ["hh1", "hh2", "hh3", "mh1", "mh2", "mh3", "mh4"]
    studies = {}
    for m in ["2fc-2sc-amd", "2fc-2sc-intel"]:
        for w in set1:
            studies[(m, w)] = Study(m, w, ["best-static", "rr"], 4, 2)
    mgrid = {n: mgrid_copies(n) for n in (3, 4)}
    if not args.quick:
        for w in ["hh1-x4", "mh1-x4"]:
            studies[("4fc-12sc", w)] = Study("4fc-12sc", w, ["rr"], 16, 4)
        for i in range(4, 9):
            studies[("4fc-12sc", f"w{i}")] = Study("4fc-12sc", f"w{i}", ["rr"], 16, 4)
    tasks = [t for s in studies.values() for t in s.tasks]
    tasks += [("2fc-2sc-amd", mgrid[n], "rr") for n in (3, 4)]
    if not args.quick:
        tasks.append(("4fc-12sc", "mh1-x4", "best-static"))
    results = jobs(tasks)
    i = 0
    for s in studies.values():
        s.take(results[i:i + len(s.tasks)])
        i += len(s.tasks)
    share = {n: results[i + k] for k, n in enumerate((3, 4))}
    i += 2

    rows = []  # (configuration, quantity, thesis, before, ours)
    amd = [studies[("2fc-2sc-amd", w)] for w in set1]
    intel = [studies[("2fc-2sc-intel", w)] for w in set1]
    bs = {s.workload: s.gain("best-static") for s in amd}
    rows.append(("2FC-2SC-A", "best static over Default, HH1", "12.5%", "13.7%", pct(bs["hh1"])))
    rows.append(("2FC-2SC-A", "best static over Default, HH2 / HH3", "10% / 11%", "", f"{pct(bs['hh2'])} / {pct(bs['hh3'])}"))
    rows.append(("2FC-2SC-A", "best static over Default, MH1-MH4", "10 / 8 / 6 / 8%", "",
                 " / ".join(pct(bs[w]) for w in ["mh1", "mh2", "mh3", "mh4"])))
    hafs_amd = sum(s.gain("rr") for s in amd) / len(amd)
    hafs_intel = sum(s.gain("rr") for s in intel) / len(intel)
    rows.append(("2FC-2SC-A / -B", "HAFS over Default, mean of set #1", "+5% / +2%", "+6.0% / +1.5%", f"{pct(hafs_amd)} / {pct(hafs_intel)}"))
    mg = [sum(v[1] for v in share[n].values()) / len(share[n]) for n in (3, 4)]
    rows.append(("2FC-2SC-A", "HAFS fast-core share, 3 / 4 copies of mgrid", "~66% / 50%", "66.7% / 50%",
                 f"{100 * mg[0]:.1f}% / {100 * mg[1]:.1f}%"))
    n, total = more_cpu_bound_on_intel()
    rows.append(("2FC-2SC-A vs -B", "SPEC CPU2000 programs less memory-bound with Intel's 4 MB LLC", "most", "0 of 24", f"{n} of {total}"))
    over = [o for s in amd for o in s.overheads().values()]
    rows.append(("2FC-2SC-A", "HAFS overhead over ideal RR, max over apps", "up to 6%", "0.2-0.4%", pct(max(over))))
    if not args.quick:
        x4 = studies[("4fc-12sc", "mh1-x4")]
        o = x4.overheads()
        tw = [v for a, v in o.items() if a.startswith("twolf")]
        others = [v for a, v in o.items() if not a.startswith("twolf")]
        o2 = list(studies[("4fc-12sc", "hh1-x4")].overheads().values())
        rows.append(("4FC-12SC", "HAFS overhead over ideal RR, twolf (MH1x4)", "25%", "0.2-0.4%", pct(sum(tw) / len(tw))))
        rows.append(("4FC-12SC", "HAFS overhead over ideal RR, other apps (MH1x4, HH1x4)", "5-10%", "0.2-0.4%",
                     f"{pct(min(others + o2))} to {pct(max(others + o2))}"))
        s1 = [studies[("4fc-12sc", w)].gain("rr") for w in ["hh1-x4", "mh1-x4"]]
        rows.append(("4FC-12SC", "HAFS over Default, set #1 x4 (HH1, MH1)", "breaks even", "does not", " / ".join(pct(g) for g in s1)))
        ws = [studies[("4fc-12sc", f"w{k}")].gain("rr") for k in range(4, 9)]
        rows.append(("4FC-12SC", "HAFS over Default, W4-W8", "down to -7%", "+3.3 to +4.4%", f"{pct(min(ws))} to {pct(max(ws))}"))
        oracle = results[i]
        fast = sorted({a.split("#")[0] for a, (_, f) in oracle.items() if f > 0.5})
        rows.append(("4FC-12SC", "best static's fast chip on MH1x4", "twolf x4", "twolf x4", " + ".join(fast) + " x4"))
        ratio = geomean_slowdown("4fc-12sc", "mh1-x4", AppsOnFast("vortex")) / geomean_slowdown("4fc-12sc", "mh1-x4", AppsOnFast("twolf"))
        rows.append(("4FC-12SC", "MH1x4: twolf on the fast chip better than vortex by", "7%", "0.8%", pct(ratio - 1)))

    if args.markdown:
        print("| configuration | quantity | thesis | ours before | ours now |")
        print("|---|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        width = max(len(r[1]) for r in rows)
        for r in rows:
            print(f"{r[0]:<15} {r[1]:<{width}}  thesis {r[2]:<16} before {r[3]:<14} now {r[4]}")
    for f in mgrid.values():
        os.unlink(f)


if __name__ == "__main__":
    sys.exit(main())
