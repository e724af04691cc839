"""wash: WASH's characterization of its Java programs and its scheduler comparison (Jibaja et al.,
"Portable Performance on Asymmetric Multicore Processors", CGO 2016: §3 and Figure 3; §7-§8).

The paper runs thirteen Java benchmarks plus a scaled variant (fourteen programs) on an AMD
Phenom II X6 whose cores are set to 2.8 GHz (big) or 0.8 GHz (small). §3 classifies them by how
they scale under Oblivious (the OS alone) on 1, 3 and 6 cores at both speeds, normalised to one
big core (Figure 3): scalable, non-scalable multithreaded, single-threaded. Our runs: the
catalog's program models (catalog/programs/dacapo.toml, workloads `dacapo-NAME`) on the machines
`phenom-{1,3,6}c-{2.8,0.8}` and `wash-1b5s`, `wash-2b4s`, all through `ampsched.sweep`.
"""

import math

from . import Claim, Report

TITLE = "WASH's Java programs: scalability classes and Oblivious on AMP configurations (Jibaja et al., CGO 2016, §3, Figure 3)"
PAPER = "WASH (Ivan Jibaja, Ting Cao, Stephen M. Blackburn, Kathryn S. McKinley: Portable Performance on Asymmetric Multicore Processors, CGO 2016)"
SUMMARY = """WASH (Jibaja et al., CGO 2016) schedules the threads of a Java VM on an asymmetric multicore: it tells
application threads from the VM's (GC, JIT), classifies the application as single-threaded, scalable or
non-scalable from the time its threads wait on contended locks, and predicts each thread's big-core speedup from
hardware counters. Its §3 characterizes the fourteen benchmarks by their scalability under the OS alone
(Oblivious) on 1, 3 and 6 cores at 2.8 and 0.8 GHz (Figure 3), which gives the three groups every later figure
reports. Here: that characterization from our models of the fourteen programs (threads, lock contention, GC
and JIT threads as the paper describes them; everything it leaves open chosen and documented in the program
file), and what the paper states about Oblivious on its AMP configurations."""

PROGRAMS = ("bloat", "chart", "fop", "jython", "luindex",
            "lusearch", "sunflow", "xalan", "spjbb",
            "avrora", "eclipse", "hsqldb", "pjbb2005", "pmd")
# §3 (and §5 of the paper's text, by elimination for the single-threaded ones).
PAPER_CLASS = {p: "single-threaded" for p in PROGRAMS[:5]}
PAPER_CLASS.update({p: "scalable" for p in PROGRAMS[5:9]})
PAPER_CLASS.update({p: "non-scalable" for p in PROGRAMS[9:]})
# The paper calls pjbb2005 in its default configuration "nspjbb".
SHOWN = {"pjbb2005": "nspjbb (pjbb2005)"}
CORES = (1, 3, 6)
SPEEDS = {"big": "2.8", "small": "0.8"}

# "Improves" (§3's scalable: "improves from 1 to 3 and from 3 to 6 cores"), chosen before any
# of our results: the time falls by at least half the ideal reduction, 1 - old/new cores
# (1 -> 3: 67%, so 33%; 3 -> 6: 50%, so 25%). The paper gives no threshold.
HALF_IDEAL = 0.5
# A percentage the paper states holds within GAIN_TOL points (its programs' lengths and miss
# rates are not given; ours are chosen in the program file); "the same" within SAME_TOL.
GAIN_TOL = 5.0
SAME_TOL = 5.0

FULL = {"seeds": "1-3"}
QUICK = {"seeds": "1"}


def machine(n: int, speed: str) -> str:
    return f"phenom-{n}c-{SPEEDS[speed]}"


def improves(before: float, after: float, n0: int, n1: int) -> bool:
    return 1 - after / before >= HALF_IDEAL * (1 - n0 / n1)


def classify(app_threads: int, big: dict) -> str:
    """§3's classes: one application thread -> single-threaded; improving from 1 to 3 and from 3
    to 6 big cores -> scalable; otherwise non-scalable (multithreaded, not consistently better)."""
    if app_threads == 1:
        return "single-threaded"
    if improves(big[1], big[3], 1, 3) and improves(big[3], big[6], 3, 6):
        return "scalable"
    return "non-scalable"


def app_threads(program: str) -> int:
    """The program's application threads of one run on 6 cores (short-lived ones included)."""
    import ampsched

    t = ampsched.run(machine(6, "big"), f"dacapo-{program}", "oblivious").threads
    return int((t["kind"] == "app").sum())


def characterize(sweep, seeds="1", jobs=None) -> dict:
    """{program: {"class", "app_threads", "big": {cores: time / time on 1 big core}, "small": {...}}}
    from Oblivious on the six §3 machines. `sweep`: ampsched.sweep or a Context's."""
    machines = [machine(n, s) for s in SPEEDS for n in CORES]
    kwargs = {"progress": False, "jobs": jobs} if jobs is not None else {}
    df = sweep(machines, [f"dacapo-{p}" for p in PROGRAMS], ["oblivious"], seeds=seeds, **kwargs)
    apps = df.attrs["apps"]
    mean = apps.groupby(["machine", "workload"])["turnaround_s"].mean()
    out = {}
    for p in PROGRAMS:
        base = mean[(machine(1, "big"), f"dacapo-{p}")]
        row = {s: {n: float(mean[(machine(n, s), f"dacapo-{p}")] / base) for n in CORES} for s in SPEEDS}
        row["seconds"] = float(base)
        row["app_threads"] = app_threads(p)
        row["class"] = classify(row["app_threads"], row["big"])
        out[p] = row
    return out


# ---- Oblivious on the AMP configurations

def oblivious_amp(ctx, plan) -> dict:
    """{(machine, program): mean turnaround s} under Oblivious on 1B5S and 2B4S."""
    df = ctx.sweep(["wash-1b5s", "wash-2b4s"], [f"dacapo-{p}" for p in PROGRAMS], ["oblivious"], plan["seeds"])
    mean = df.attrs["apps"].groupby(["machine", "workload"])["turnaround_s"].mean()
    return {(m, w[len("dacapo-"):]): float(t) for (m, w), t in mean.items()}


def _geo(xs) -> float:
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def ideal_gain_one_more_big() -> float:
    """Capacity of 2B4S over 1B5S in big-core units (compute-bound threads: time ∝ 1/clock)."""
    return (2 * 2.8 + 4 * 0.8) / (1 * 2.8 + 5 * 0.8) - 1


# ---- claims

def _claim(cid, source, claim, theirs, ours, tolerance, ok, reason):
    return Claim(cid, source, claim, theirs, ours, tolerance, "reproduced" if ok else "differs", "" if ok else reason)


def _name(p):
    return SHOWN.get(p, p)


def claims(table, amp) -> list:
    out = []
    wrong = [p for p in PROGRAMS if table[p]["class"] != PAPER_CLASS[p]]
    for cls, members in (("scalable", PROGRAMS[5:9]), ("non-scalable", PROGRAMS[9:]), ("single-threaded", PROGRAMS[:5])):
        got = [p for p in PROGRAMS if table[p]["class"] == cls]
        out.append(_claim(
            f"class-{cls}", "§3, Figure 3", f"The {cls} programs (Oblivious on 1, 3, 6 cores at 2.8 and 0.8 GHz, normalised to 1 big core)",
            ", ".join(_name(p) for p in members), ", ".join(_name(p) for p in got) or "none", "exact set",
            set(got) == set(members), f"misclassified: {', '.join(_name(p) for p in wrong)}"))
    st = [table[p]["big"][6] for p in PROGRAMS[:5]]
    out.append(_claim(
        "st-improve-slightly", "§3", "Single-threaded programs improve slightly with more cores (the VM's threads)",
        "slightly faster", f"6 big cores: {min(st):.2f}-{max(st):.2f} of 1 big core's time", "between 0.6 and 0.98",
        all(0.6 < x < 0.98 for x in st), "the VM threads' share of the work differs from the paper's"))
    av = table["avrora"]["big"]
    out.append(Claim(
        "avrora-3-slower-than-1", "§3", "avrora is slower on 3 big cores than on 1", "T3 > T1",
        f"T3/T1 = {av[3]:.2f}", "T3/T1 > 1", "reproduced" if av[3] > 1 else "differs",
        "" if av[3] > 1 else "our lock hand-off costs nothing but the L2 refill of a migration: the model has no futex "
        "wake-up latency or cache-line transfer per hand-off, which is what makes fine-grained locking slower on more cores"))
    ec = table["eclipse"]["big"]
    same = abs(ec[6] / ec[3] - 1) * 100
    out.append(_claim(
        "eclipse-3-equals-6", "§3", "eclipse takes the same time on 3 and 6 cores", "T6 = T3",
        f"T6/T3 = {ec[6] / ec[3]:.2f}", f"within {SAME_TOL:g}%", same <= SAME_TOL,
        "JavaIndexing alone sets the time from 3 cores on; what 6 cores still gain is the stop-the-world collections, "
        "whose work as many GC threads as cores share (the paper's concurrent collector would not stop JavaIndexing)"))
    nj = table["pjbb2005"]["big"]
    out.append(_claim(
        "nspjbb-not-scalable", "§3", "pjbb2005 does not scale in its default configuration; spjbb (10x transactions) scales to 6 cores",
        "nspjbb no, spjbb yes", f"3->6 cores: nspjbb {1 - nj[6] / nj[3]:.0%}, spjbb {1 - table['spjbb']['big'][6] / table['spjbb']['big'][3]:.0%} faster",
        "improves = half the ideal (25%)", not improves(nj[3], nj[6], 3, 6) and improves(table["spjbb"]["big"][3], table["spjbb"]["big"][6], 3, 6),
        "the setup's share differs"))
    gains = [amp[("wash-1b5s", p)] / amp[("wash-2b4s", p)] for p in PROGRAMS[5:9]]
    gain = (_geo(gains) - 1) * 100
    ideal = ideal_gain_one_more_big() * 100
    out.append(_claim(
        "scalable-one-more-big", "§3", "Scalable programs under Oblivious gain from one small core swapped for a big one (1B5S -> 2B4S); ideal 41.6%",
        "+33% (ideal 41.6%)", f"+{gain:.1f}% (our machines' ideal, compute-bound: {ideal:.1f}%)", f"within {GAIN_TOL:g} points",
        abs(gain - 33) <= GAIN_TOL,
        f"our machines' ideal is {ideal:.1f}% (2B4S has {ideal:.1f}% more clock cycles than 1B5S; memory-bound threads gain "
        "less), not the paper's 41.6% (which implies a small core a fifth as fast as a big one); and our threads have fixed "
        "shares of the work, so each GC cycle waits for the last thread on a small core where a queue of work units would "
        "let the big cores take more of them"))
    return out


# ---- figures

def figure_3(ctx, table):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.2))
    ax = fig.add_subplot(1, 1, 1)
    bars = [(s, n) for s in SPEEDS for n in CORES]
    width = 0.8 / len(bars)
    for i, (s, n) in enumerate(bars):
        xs = [j + (i - len(bars) / 2 + 0.5) * width for j in range(len(PROGRAMS))]
        ax.bar(xs, [table[p][s][n] for p in PROGRAMS], width, label=f"{n} core{'s' if n > 1 else ''} at {SPEEDS[s]} GHz",
               color=(("#08306b", "#2171b5", "#6baed6") if s == "big" else ("#7f2704", "#d94801", "#fd8d3c"))[CORES.index(n)])
    ax.set_xticks(range(len(PROGRAMS)))
    ax.set_xticklabels([f"{_name(p)}\n{table[p]['class']}" for p in PROGRAMS], fontsize=6.5)
    ax.set_ylabel("time / time on 1 big core (Oblivious)")
    ax.axhline(1.0, color="grey", lw=0.6)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    ctx.figure(fig, "fig3", "Redraws WASH's Figure 3: each program under Oblivious on 1, 3 and 6 cores at 2.8 GHz and at 0.8 GHz, "
               "normalised to 1 big core (lower is better), with the class it falls in; from our runs.")


def _table_md(table) -> str:
    rows = ["| program | paper class | ours | app threads | 1 core s | " + " | ".join(f"{n}c {SPEEDS[s]} GHz" for s in SPEEDS for n in CORES) + " |",
            "|---|---|---|---|---|" + "---|" * 6]
    for p in PROGRAMS:
        r = table[p]
        rows.append(f"| {_name(p)} | {PAPER_CLASS[p]} | {r['class']} | {r['app_threads']} | {r['seconds']:.2f} | "
                    + " | ".join(f"{r[s][n]:.2f}" for s in SPEEDS for n in CORES) + " |")
    return "\n".join(rows)


def build(ctx):
    plan = QUICK if ctx.quick else FULL
    table = characterize(ctx.sweep, seeds=plan["seeds"])
    amp = oblivious_amp(ctx, plan)
    figure_3(ctx, table)
    links = ", ".join(f"[`dacapo-{p}`](../../catalog/workloads/dacapo-{p}.toml)" for p in PROGRAMS)
    workloads = f"""Workloads: {links}, each one program of
[`catalog/programs/dacapo.toml`](../../catalog/programs/dacapo.toml) alone (its header gives what the paper reports
and what was chosen: threads, lock contention, GC every 8 or 128 MB with as many GC threads as cores, one JIT
thread, memory intensity). Policy: `oblivious` (the local scheduler alone: Linux CFS in the paper). Seeds
{plan['seeds']}; a time is the mean over the seeds."""
    notes = f"""- **Classes.** §3's definitions: scalable improves from 1 to 3 and from 3 to 6 cores; "improves" (the paper
  gives no threshold, chosen before any result) is a time at least {HALF_IDEAL:.0%} of the ideal reduction lower
  (1 -> 3 cores: 33%; 3 -> 6: 25%); single-threaded has one application thread. Judged at 2.8 GHz.
- **Tolerances** (chosen before any result): a percentage the paper states within {GAIN_TOL:g} points; "the same"
  within {SAME_TOL:g}%.
- **Model values chosen.** No model value was changed to meet a claim; the program models are chosen from what
  the paper says of each program (the file's header).
- **Not here yet.** The comparison of WASH with bindVM, PFS and Oblivious (Figures 2, 7-12) needs the `wash`,
  `bindvm` and `pfs` policies."""
    sections = [("Every program", "Oblivious; time normalised to 1 big core (phenom-1c-2.8); `1 core s`: seconds on 1 big core.\n\n" + _table_md(table)),
                ("Notes", notes)]
    machines = [machine(n, s) for s in SPEEDS for n in CORES] + ["wash-1b5s", "wash-2b4s"]
    return Report(claims=claims(table, amp), machines=machines, workloads=workloads, sections=sections)
