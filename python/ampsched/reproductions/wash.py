"""wash: WASH's characterization of its Java programs and its scheduler comparison (Jibaja et al.,
"Portable Performance on Asymmetric Multicore Processors", CGO 2016: §3 and Figure 3; §7-§8).

The paper runs thirteen Java benchmarks plus a scaled variant (fourteen programs) on an AMD
Phenom II X6 whose cores are set to 2.8 GHz (big) or 0.8 GHz (small). §3 classifies them by how
they scale under Oblivious (the OS alone) on 1, 3 and 6 cores at both speeds, normalised to one
big core (Figure 3): scalable, non-scalable multithreaded, single-threaded. Our runs: the
catalog's program models (catalog/programs/dacapo.toml, workloads `dacapo-NAME`) on the machines
`phenom-{1,3,6}c-{2.8,0.8}` and `wash-1b5s`, `wash-2b4s`, all through `ampsched.sweep`.
"""

from . import Claim, Report, policy_roles
from ._format import (
    catalog_links,
    ci95,
    geomean,
    judge,
    judge_number,
    judge_numbers,
    markdown_table,
    pct,
    pct_change,
    verdict,
)

TITLE = (
    "WASH, bindVM, PFS and Oblivious on WASH's Java programs (Jibaja et al., CGO 2016, Figures 2, 3, 7, 8, 9, 10, 12)"
)
PAPER = "WASH (Ivan Jibaja, Ting Cao, Stephen M. Blackburn, Kathryn S. McKinley: Portable Performance on Asymmetric Multicore Processors, CGO 2016)"
SUMMARY = """WASH (Jibaja et al., CGO 2016) schedules the threads of a Java VM on an asymmetric multicore: it tells
application threads from the VM's (GC, JIT), classifies the application as single-threaded, scalable or
non-scalable from the time its threads wait on contended locks, and predicts each thread's big-core speedup from
hardware counters. Its §3 characterizes the fourteen benchmarks by their scalability under the OS alone
(Oblivious) on 1, 3 and 6 cores at 2.8 and 0.8 GHz (Figure 3), which gives the three groups every later figure
reports. Here: that characterization from our models of the fourteen programs (threads, lock contention, GC
and JIT threads as the paper describes them; everything it leaves open chosen and documented in the program
file), and what the paper states about Oblivious on its AMP configurations. Then the comparison of §7-§8: WASH against
Oblivious, bindVM (application threads on big cores, the VM's on small ones) and PFS (WASH without its
application-over-VM preference and lock prioritisation) on 1B5S, 2B4S and 3B3S (Figures 2, 7, 8, 9: time, average
power and energy normalised to Oblivious, per group and overall), beside an OS-scheduled eclipse (Figure 12), and with
the speedup model replaced by the second-best and the negated one (Figure 10), with
every number the paper's prose states beside ours."""

PROGRAMS = (
    "bloat",
    "chart",
    "fop",
    "jython",
    "luindex",
    "lusearch",
    "sunflow",
    "xalan",
    "spjbb",
    "avrora",
    "eclipse",
    "hsqldb",
    "pjbb2005",
    "pmd",
)
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
# Every number the paper states is judged by the one tolerance rule (`_format.judge_number`). The
# claims stated in words keep conditions chosen before any result: "the same" or "similar" within
# SAME_TOL%, "much better" at least MUCH_BETTER% lower.
SAME_TOL = 5.0
MUCH_BETTER = 5.0

# "ci_seeds": the seeds added to "seeds" for the spread of Oblivious, bindVM and WASH (§7: "the
# largest 95% confidence interval for time measurements with 20 invocations"): 20 runs in all.
FULL = {"seeds": "1-3", "ci_seeds": "4-20"}
# The quick version runs the same seeds for the means (claims near their line, such as
# fig2-pfs-dominated, must get the same verdict in both) and 5 runs in all for the spread, from
# which it estimates the interval of a mean of 20 (the claims say so).
QUICK = {"seeds": "1-3", "ci_seeds": "4-5"}
# The paper's invocations per scheduler for its intervals (§7).
CI_RUNS = 20
CI_ROLES = ("oblivious", "bindvm", "wash")
# The claims the quick version estimates from its fewer runs (the tests do not hold it to the
# full version's verdicts on them): the intervals (see `spread_claims`).
QUICK_ESTIMATES = tuple(f"ci-{role}-{which}" for role in CI_ROLES for which in ("largest", "average"))

# Role -> the registered policy that plays it (WASH §7: Oblivious is Linux CFS alone; bindVM binds
# application threads to big cores and the VM's to small ones; PFS is WASH without its
# application-over-VM preference and lock prioritisation, §3 and §8.5).
POLICIES = {"oblivious": "oblivious", "bindvm": "bindvm", "pfs": "pfs", "wash": "wash"}
LABEL = {"oblivious": "Oblivious", "bindvm": "bindVM", "pfs": "PFS", "wash": "WASH"}
AMP = ("wash-1b5s", "wash-2b4s", "wash-3b3s")
ONE_BIG = AMP[0]  # 1B5S, where the abstract's numbers and Figures 2, 10 and 12 are
CONFIG = {"wash-1b5s": "1B5S", "wash-2b4s": "2B4S", "wash-3b3s": "3B3S"}
GROUPS = {"single-threaded": PROGRAMS[:5], "scalable": PROGRAMS[5:9], "non-scalable": PROGRAMS[9:]}

missing_policies, check_policies = policy_roles("wash", POLICIES, "WASH, bindVM and PFS (WASH §7)")

# The roles run per managed runtime, as the paper runs them (one scheduler per JVM, a JVM per app):
# `scope=runtime`. Their default, scope=machine, decides for every managed app at once and binds
# no more threads to the big cores than there are, which moves these single-app results.
PER_RUNTIME = ("pfs", "wash")


def spec(policies, role, **options) -> str:
    """The spec that plays ROLE: its policy, per runtime where PER_RUNTIME says, with OPTIONS; the
    options in name order, the engine's canonical form, which a sweep's policy column reads."""
    if role in PER_RUNTIME:
        options["scope"] = "runtime"
    return policies[role] + "".join(f":{k}={v}" for k, v in sorted(options.items()))


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
    return {(m, w[len("dacapo-") :]): float(t) for (m, w), t in mean.items()}


def ideal_gain_one_more_big() -> float:
    """Capacity of 2B4S over 1B5S in big-core units (compute-bound threads: time ∝ 1/clock)."""
    return (2 * 2.8 + 4 * 0.8) / (1 * 2.8 + 5 * 0.8) - 1


# ---- the schedulers on 1B5S, 2B4S, 3B3S (Figures 2, 7, 9) and beside an adversary (Figure 12)


def compare(ctx, plan, policies) -> tuple:
    """({(machine, program, role): (time s, average power W, energy J)}, means over the seeds: the
    program alone (`dacapo-NAME`); time is its turnaround, power the run's energy over it;
    {(machine, program, role): [time s per seed]} for CI_ROLES over "seeds" and "ci_seeds")."""
    programs = [f"dacapo-{p}" for p in PROGRAMS]
    df = ctx.sweep(list(AMP), programs, [spec(policies, r) for r in POLICIES], plan["seeds"])
    more = ctx.sweep(list(AMP), programs, [spec(policies, r) for r in CI_ROLES], plan["ci_seeds"])
    role = {spec(policies, r): r for r in POLICIES}
    mean = df.groupby(["machine", "workload", "policy"])[["makespan_s", "energy_j"]].mean()
    res = {
        (m, w[len("dacapo-") :], role[p]): (r.makespan_s, r.energy_j / r.makespan_s, r.energy_j)
        for (m, w, p), r in mean.iterrows()
    }
    runs = {}
    for frame in (df, more):  # seeds, then ci_seeds
        for (m, w, p), g in frame.groupby(["machine", "workload", "policy"]):
            if role[p] in CI_ROLES:
                runs.setdefault((m, w[len("dacapo-") :], role[p]), []).extend(g.sort_values("seed")["makespan_s"])
    return res, runs


def adversary(ctx, plan, policies) -> dict:
    """{(program, role): the program's turnaround s beside an OS-scheduled eclipse} on 1B5S."""
    roles = ("oblivious", "bindvm", "wash")
    df = ctx.sweep(
        ["wash-1b5s"], [f"dacapo-adv-{p}" for p in PROGRAMS], [spec(policies, r) for r in roles], plan["seeds"]
    )
    role = {spec(policies, r): r for r in roles}
    apps = df.attrs["apps"]
    apps = apps[apps["app"] != "adversary"]
    mean = apps.groupby(["workload", "policy"])["turnaround_s"].mean()
    return {(w[len("dacapo-adv-") :], role[p]): float(t) for (w, p), t in mean.items()}


# ---- the speedup model's sensitivity (Figure 10, 1B5S)

# §8.4: WASH with its default model, a model on "the next best 4 different hardware performance
# counters" and one whose weights are "the additive inverse" of the default's.
MODELS = ("default", "second", "negated")


def sensitivity(ctx, plan, policies) -> dict:
    """{(program, model): mean turnaround s of WASH with that speedup model} on 1B5S."""
    specs = {spec(policies, "wash", model=m): m for m in MODELS}
    df = ctx.sweep(["wash-1b5s"], [f"dacapo-{p}" for p in PROGRAMS], list(specs), plan["seeds"])
    mean = df.groupby(["workload", "policy"])["makespan_s"].mean()
    return {(w[len("dacapo-") :], specs[p]): float(t) for (w, p), t in mean.items()}


def model_slowdown(sens, model) -> float:
    """WASH's time with `model` over its time with the default model, groups weighted equally
    (Figure 7's average)."""
    return geomean(geomean(sens[(p, model)] / sens[(p, "default")] for p in GROUPS[g]) for g in GROUPS)


METRICS = {"time": 0, "power": 1, "energy": 2}


def norm(res, m, p, role, metric) -> float:
    """A program's metric under `role` over Oblivious's on machine m (lower is better)."""
    i = METRICS[metric]
    return res[(m, p, role)][i] / res[(m, p, "oblivious")][i]


def group_mean(res, m, group, role, metric) -> float:
    return geomean(norm(res, m, p, role, metric) for p in GROUPS[group])


def overall(res, m, role, metric) -> float:
    """Figure 7's average: each group (single-threaded, scalable, non-scalable) weighted equally,
    the geometric mean of the three groups' geometric means."""
    return geomean(group_mean(res, m, g, role, metric) for g in GROUPS)


# ---- claims


def _name(p):
    return SHOWN.get(p, p)


def claims(table, amp) -> list:
    out = []
    wrong = [p for p in PROGRAMS if table[p]["class"] != PAPER_CLASS[p]]
    for cls, members in (
        ("scalable", PROGRAMS[5:9]),
        ("non-scalable", PROGRAMS[9:]),
        ("single-threaded", PROGRAMS[:5]),
    ):
        got = [p for p in PROGRAMS if table[p]["class"] == cls]
        out.append(
            judge(
                f"class-{cls}",
                "§3, Figure 3",
                f"The {cls} programs (Oblivious on 1, 3, 6 cores at 2.8 and 0.8 GHz, normalised to 1 big core)",
                ", ".join(_name(p) for p in members),
                ", ".join(_name(p) for p in got) or "none",
                "exact set",
                set(got) == set(members),
                f"misclassified: {', '.join(_name(p) for p in wrong)}",
                # dacapo.toml's models were built so that each program lands in its §3 class
                # (tests/python/test_dacapo.py checks it).
                kind="calibrated",
            )
        )
    st = [table[p]["big"][6] for p in PROGRAMS[:5]]
    out.append(
        judge(
            "st-improve-slightly",
            "§3",
            "Single-threaded programs improve slightly with more cores (the VM's threads)",
            "slightly faster",
            f"6 big cores: {min(st):.2f}-{max(st):.2f} of 1 big core's time",
            "between 0.6 and 0.98",
            all(0.6 < x < 0.98 for x in st),
            "the VM threads' share of the work differs from the paper's",
            # dacapo.toml chose the GC and JIT work so that the VM's threads "still make them
            # respond a little to more cores (§3)".
            kind="calibrated",
        )
    )
    av = table["avrora"]["big"]
    out.append(
        Claim(
            "avrora-3-slower-than-1",
            "§3",
            "avrora is slower on 3 big cores than on 1",
            "T3 > T1",
            f"T3/T1 = {av[3]:.2f}",
            "T3/T1 > 1",
            verdict(av[3] > 1),
            ""
            if av[3] > 1
            else "our lock hand-off costs nothing but the L2 refill of a migration: the model has no futex "
            "wake-up latency or cache-line transfer per hand-off, which is what makes fine-grained locking slower on more cores",
            # The model of avrora was built from its lock contention (Figure 4), not from this.
            "independent",
        )
    )
    ec = table["eclipse"]["big"]
    same = abs(ec[6] / ec[3] - 1) * 100
    out.append(
        judge(
            "eclipse-3-equals-6",
            "§3",
            "eclipse takes the same time on 3 and 6 cores",
            "T6 = T3",
            f"T6/T3 = {ec[6] / ec[3]:.2f}",
            f"within {SAME_TOL:g}%",
            same <= SAME_TOL,
            "JavaIndexing alone sets the time from 3 cores on; what 6 cores still gain is room for the collector's threads "
            "(concurrent Mark-Sweep, the paper's §7), which on 3 cores trace on the cores JavaIndexing's threads run on",
            # dacapo.toml built eclipse so that its time is JavaIndexing's, "the same on 3 and 6 cores".
            kind="calibrated",
        )
    )
    nj = table["pjbb2005"]["big"]
    out.append(
        judge(
            "nspjbb-not-scalable",
            "§3",
            "pjbb2005 does not scale in its default configuration; spjbb (10x transactions) scales to 6 cores",
            "nspjbb no, spjbb yes",
            f"3->6 cores: nspjbb {1 - nj[6] / nj[3]:.0%}, spjbb {1 - table['spjbb']['big'][6] / table['spjbb']['big'][3]:.0%} faster",
            "improves = half the ideal (25%)",
            not improves(nj[3], nj[6], 3, 6) and improves(table["spjbb"]["big"][3], table["spjbb"]["big"][6], 3, 6),
            "the setup's share differs",
            # dacapo.toml sized pjbb2005's serial setup and spjbb's transactions for this statement.
            kind="calibrated",
        )
    )
    gains = [amp[("wash-1b5s", p)] / amp[("wash-2b4s", p)] for p in PROGRAMS[5:9]]
    gain = (geomean(gains) - 1) * 100
    ideal = ideal_gain_one_more_big() * 100
    out.append(
        _near(
            "scalable-one-more-big",
            "§3",
            "Scalable programs under Oblivious gain from one small core swapped for a big one (1B5S -> 2B4S); ideal 41.6%",
            "+33% (ideal 41.6%)",
            f"+{gain:.1f}% (our machines' ideal, compute-bound: {ideal:.1f}%)",
            33,
            gain,
            f"our machines' ideal is {ideal:.1f}% (2B4S has {ideal:.1f}% more clock cycles than 1B5S; memory-bound threads gain "
            "less), not the paper's 41.6% (which implies a small core a fifth as fast as a big one); and our threads have fixed "
            "shares of the work, so each GC cycle waits for the last thread on a small core where a queue of work units would "
            "let the big cores take more of them",
            # dacapo.toml models a scalable program's work units as 24 threads (4 per core)
            # because with one thread per core "one more big core would gain almost nothing".
            kind="calibrated",
        )
    )
    return out


def _near(cid, source, claim, theirs, ours, value, ours_value, reason, bound=None, kind="independent"):
    """A percentage the paper states (`value`), held to the one rule against `ours_value`."""
    return judge_number(
        cid,
        source,
        claim,
        theirs,
        ours,
        value=value,
        ours_value=ours_value,
        unit="%",
        kind=kind,
        reason=reason,
        bound=bound,
    )


DIAGNOSTICS = {  # name -> (machine, workload, policy, group): that group's share of CPU time on big cores
    "st-obl-1b5s": ("wash-1b5s", "dacapo-bloat", "oblivious", "main"),
    "st-obl-2b4s": ("wash-2b4s", "dacapo-bloat", "oblivious", "main"),
    "sc-wash-gc": ("wash-1b5s", "dacapo-sunflow", "wash", "gc"),
    "sc-obl-gc": ("wash-1b5s", "dacapo-sunflow", "oblivious", "gc"),
    "sc-wash-jit": ("wash-1b5s", "dacapo-sunflow", "wash", "jit"),
    "sc-obl-jit": ("wash-1b5s", "dacapo-sunflow", "oblivious", "jit"),
    "ns-wash-2b4s": ("wash-2b4s", "dacapo-pmd", "wash", "worker"),
    "ns-bind-2b4s": ("wash-2b4s", "dacapo-pmd", "bindvm", "worker"),
    "ns-obl-3b3s": ("wash-3b3s", "dacapo-eclipse", "oblivious", "javaindexing"),
    "ns-wash-ji": ("wash-1b5s", "dacapo-eclipse", "wash", "javaindexing"),
    "adv-wash": ("wash-1b5s", "dacapo-adv-sunflow", "wash", "worker"),
    "adv-obl": ("wash-1b5s", "dacapo-adv-sunflow", "oblivious", "worker"),
}


def diagnostics(policies) -> dict:
    """The big-core shares the reasons quote: one run each (seed 1), per thread group."""
    import ampsched

    out = {}
    for name, (m, w, role, group) in DIAGNOSTICS.items():
        t = ampsched.run(m, w, spec(policies, role)).threads
        t = t[(t["group"] == group) & (t["app"] != "adversary")]
        out[name] = float(t["fast_s"].sum() / t["cpu_s"].sum())
    return out


def _figure_7(res, adv, diag, ov, g) -> list:
    """Time, energy and power over the three groups, and the abstract's numbers (Figure 7)."""
    out = []
    change = (ov[(ONE_BIG, "wash", "time")] - 1) * 100
    out.append(
        _near(
            "fig7-wash-vs-oblivious-1b5s",
            "§8, Figure 7",
            "WASH's geometric mean time against Oblivious (Linux) on 1B5S, groups weighted equally",
            "-27%",
            pct(change),
            -27,
            change,
            f"our Oblivious never runs a single-threaded program's main thread on a big core (bloat's: {diag['st-obl-1b5s']:.0%} of its CPU time on 1B5S, "
            f"{diag['st-obl-2b4s']:.0%} on 2B4S; the engine's CFS places a new thread by core order and balances load, not capacity), so WASH gains the whole "
            f"big/small difference there (single-threaded WASH/Oblivious {pct_change(g[(ONE_BIG, 'single-threaded', 'wash', 'time')])} time)",
        )
    )
    change_b = (ov[(ONE_BIG, "wash", "time")] / ov[(ONE_BIG, "bindvm", "time")] - 1) * 100
    out.append(
        _near(
            "fig7-wash-vs-bindvm-1b5s",
            "§8, Figure 7",
            "WASH's geometric mean time against bindVM on 1B5S, groups weighted equally",
            "about -5%",
            pct(change_b),
            -5,
            change_b,
            f"bindVM confines scalable programs' 24 application threads to the one big core (scalable bindVM/WASH "
            f"{pct_change(g[(ONE_BIG, 'scalable', 'bindvm', 'time')] / g[(ONE_BIG, 'scalable', 'wash', 'time')])} time, the paper's up to +36%)",
        )
    )
    e_obl = (1 - ov[(ONE_BIG, "wash", "energy")]) * 100
    e_bind = (1 - ov[(ONE_BIG, "wash", "energy")] / ov[(ONE_BIG, "bindvm", "energy")]) * 100
    out.append(
        _near(
            "fig7-wash-energy-1b5s",
            "Abstract, §8, Figure 7",
            "WASH's energy on 1B5S is lower than both bindVM's and Oblivious's (the abstract: 9% or more; the smaller of ours)",
            "> 14% lower than both",
            f"{e_obl:.1f}% below Oblivious, {e_bind:.1f}% below bindVM",
            14,
            min(e_obl, e_bind),
            "the energy follows the times above",
            bound="at least",
        )
    )
    p_low = all(ov[(m, "oblivious", "power")] <= min(ov[(m, r, "power")] for r in POLICIES) for m in AMP)
    p_gap = max(1 - ov[(m, "oblivious", "power")] / ov[(m, "wash", "power")] for m in AMP) * 100
    powers = ", ".join(
        f"{CONFIG[m]} Oblivious/WASH power {pct_change(ov[(m, 'oblivious', 'power')] / ov[(m, 'wash', 'power')])}"
        for m in AMP
    )
    out.append(
        judge(
            "fig7-oblivious-lowest-power",
            "§8, Figure 7",
            "Oblivious has the lowest power (of the four)",
            "lowest",
            f"{'lowest' if p_low else 'not the lowest'} on every configuration",
            "lowest on every configuration",
            p_low,
            "Oblivious leaves the big core to whichever thread CFS puts there, so its power is not always the lowest: "
            + powers,
            kind="independent",
        )
    )
    out.append(
        _near(
            "fig7-oblivious-power-gap",
            "§8, Figure 7",
            "Oblivious's power is up to 16% less than WASH's",
            "up to 16% below WASH",
            f"up to {p_gap:.1f}% below WASH",
            16,
            p_gap,
            f"Oblivious's power against WASH's: {powers}",
        )
    )
    worst = all(ov[(m, "oblivious", "time")] >= max(ov[(m, r, "time")] for r in ("bindvm", "wash")) for m in AMP)
    out.append(
        judge(
            "fig7-oblivious-worst-time",
            "§8, Figure 7",
            "Oblivious has the worst average time in every configuration (of Oblivious, bindVM, WASH)",
            "worst on 1B5S, 2B4S, 3B3S",
            ", ".join(
                f"{CONFIG[m]} bindVM {pct_change(ov[(m, 'bindvm', 'time')])}, WASH {pct_change(ov[(m, 'wash', 'time')])}"
                for m in AMP
            ),
            "Oblivious's time the highest",
            worst,
            "bindVM's penalty on scalable programs outweighs Oblivious's on the others in some configurations",
            kind="independent",
        )
    )
    e_up = max(ov[(m, "bindvm", "energy")] / ov[(m, "wash", "energy")] - 1 for m in AMP) * 100
    out.append(
        _near(
            "fig7-bindvm-energy",
            "§8, Figure 7",
            "bindVM uses up to 18% more energy than WASH",
            "up to +18%",
            f"up to {pct(e_up)}",
            18,
            e_up,
            f"follows bindVM's time on scalable programs (scalable bindVM/WASH energy on 1B5S {pct_change(g[(ONE_BIG, 'scalable', 'bindvm', 'energy')] / g[(ONE_BIG, 'scalable', 'wash', 'energy')])})",
        )
    )
    most_e = all(ov[(m, "oblivious", "energy")] >= max(ov[(m, r, "energy")] for r in ("bindvm", "wash")) for m in AMP)
    out.append(
        judge(
            "fig7-oblivious-most-energy",
            "§8, Figure 7",
            "Oblivious still consumes the most energy (of Oblivious, bindVM, WASH)",
            "the most energy",
            ", ".join(
                f"{CONFIG[m]} bindVM {pct_change(ov[(m, 'bindvm', 'energy')])}, WASH {pct_change(ov[(m, 'wash', 'energy')])}"
                for m in AMP
            ),
            "Oblivious's energy the highest on every configuration",
            most_e,
            "where bindVM uses more, its scalable programs (run on the big cores alone) cost it: "
            + ", ".join(
                f"{CONFIG[m]} scalable bindVM/Oblivious energy {pct_change(g[(m, 'scalable', 'bindvm', 'energy')])}"
                for m in AMP
                if ov[(m, "oblivious", "energy")] < ov[(m, "bindvm", "energy")]
            ),
            kind="independent",
        )
    )
    worst_bind = [
        m
        for m in AMP
        if ov[(m, "bindvm", "energy")] >= max(ov[(m, r, "energy")] for r in POLICIES)
        and ov[(m, "bindvm", "power")] >= max(ov[(m, r, "power")] for r in POLICIES)
    ]
    out.append(
        judge(
            "fig7-bindvm-worst-energy-power",
            "§8, Figure 7",
            "bindVM has the worst energy and power cost in all hardware settings (of the four)",
            "all three",
            f"worst in both on {', '.join(CONFIG[m] for m in worst_bind) or 'none'}; power "
            + ", ".join(f"{CONFIG[m]} {pct_change(ov[(m, 'bindvm', 'power')])}" for m in AMP),
            "worst in both on all three",
            len(worst_bind) == len(AMP),
            "the paper's text also has Oblivious consume the most energy; ours, the highest per configuration: "
            + ", ".join(
                f"{CONFIG[m]} energy {LABEL[max(POLICIES, key=lambda r: ov[(m, r, 'energy')])]}, power {LABEL[max(POLICIES, key=lambda r: ov[(m, r, 'power')])]}"
                for m in AMP
            ),
            kind="independent",
        )
    )
    pw = [ov[(m, "wash", "power")] / ov[(m, "bindvm", "power")] for m in AMP]
    out.append(
        judge(
            "fig7-wash-power-below-bindvm",
            "§8, Figure 7",
            "WASH's power is consistently lower than bindVM's",
            "lower on every configuration",
            ", ".join(f"{CONFIG[m]} {pct_change(x)}" for m, x in zip(AMP, pw)),
            "WASH/bindVM power < 1 on all",
            all(x < 1 for x in pw),
            f"on 1B5S bindVM runs scalable programs on the big core alone and leaves the five small cores idle (scalable bindVM/WASH power "
            f"{pct_change(g[(ONE_BIG, 'scalable', 'bindvm', 'power')] / g[(ONE_BIG, 'scalable', 'wash', 'power')])})",
            kind="independent",
        )
    )

    return out


def _figure_9a(res, adv, diag, ov, g) -> list:
    """Single-threaded programs (Figure 9a)."""
    out = []
    st = "single-threaded"
    t = min(g[(m, st, "wash", "time")] for m in AMP)
    out.append(
        _near(
            "fig9a-st-time",
            "§8.1, Figure 9(a)",
            "Single-threaded: WASH's time against Oblivious, the best configuration",
            "up to -44%",
            pct_change(t),
            -44,
            (t - 1) * 100,
            f"our Oblivious never runs the main thread on a big core (bloat: {diag['st-obl-1b5s']:.0%} on 1B5S, {diag['st-obl-2b4s']:.0%} on 2B4S), the "
            'paper\'s Linux some of the time ("likely to put the single application thread on a small core"), so WASH gains the whole big/small difference',
        )
    )
    e = min(g[(m, st, "wash", "energy")] for m in AMP)
    out.append(
        _near(
            "fig9a-st-energy",
            "§8.1, Figure 9(a)",
            "Single-threaded: WASH's energy against Oblivious",
            "-19%",
            pct_change(e),
            -19,
            (e - 1) * 100,
            f"our Oblivious never runs the main thread on a big core (bloat: {diag['st-obl-1b5s']:.0%} on 1B5S, {diag['st-obl-2b4s']:.0%} on 2B4S), the "
            'paper\'s Linux some of the time ("likely to put the single application thread on a small core"), so WASH gains the whole big/small difference',
        )
    )
    pw = max(g[(m, st, "wash", "power")] for m in AMP)
    out.append(
        _near(
            "fig9a-st-power",
            "§8.1, Figure 9(a)",
            "Single-threaded: WASH's power against Oblivious, up to",
            "up to +39%",
            pct_change(pw),
            39,
            (pw - 1) * 100,
            f"our Oblivious never runs the main thread on a big core (bloat: {diag['st-obl-1b5s']:.0%} on 1B5S, {diag['st-obl-2b4s']:.0%} on 2B4S), the "
            'paper\'s Linux some of the time ("likely to put the single application thread on a small core"), so WASH gains the whole big/small difference',
        )
    )
    sim = [g[(m, st, "wash", "time")] / g[(m, st, "bindvm", "time")] for m in AMP]
    out.append(
        judge(
            "fig9a-st-like-bindvm",
            "§8.1, Figure 9(a)",
            "Single-threaded: WASH and bindVM are very similar on all configurations",
            "similar",
            ", ".join(f"{CONFIG[m]} {pct_change(x)}" for m, x in zip(AMP, sim)),
            f"time within {SAME_TOL:g}%",
            all(abs(x - 1) * 100 <= SAME_TOL for x in sim),
            "see the time ratios shown",
            kind="independent",
        )
    )
    best = all(g[(m, st, "bindvm", "time")] <= min(g[(m, st, r, "time")] for r in ("oblivious", "pfs")) for m in AMP)
    out.append(
        judge(
            "fig3-bindvm-best-st",
            "§3",
            "bindVM is best for single-threaded programs on 1B5S, 2B4S and 3B3S (of Oblivious, PFS, bindVM)",
            "bindVM best",
            "bindVM best on all" if best else "not on all",
            "lowest time on each",
            best,
            "where bindVM is not the fastest (time over Oblivious's), "
            + ", ".join(
                f"{CONFIG[m]}: PFS {pct_change(g[(m, st, 'pfs', 'time')])}, bindVM {pct_change(g[(m, st, 'bindvm', 'time')])}"
                for m in AMP
                if g[(m, st, "bindvm", "time")] > min(g[(m, st, r, "time")] for r in ("oblivious", "pfs"))
            )
            + "; bindVM keeps the GC and JIT threads on the small cores even where big cores are free, PFS lets them use the free big cores",
            kind="independent",
        )
    )

    return out


def _figure_9b(res, adv, diag, ov, g) -> list:
    """Scalable programs (Figure 9b)."""
    out = []
    sc = "scalable"
    bt = max(g[(m, sc, "bindvm", "time")] / g[(m, sc, "wash", "time")] for m in AMP)
    out.append(
        _near(
            "fig9b-bindvm-time",
            "§8.2, Figure 9(b)",
            "Scalable: bindVM's time against WASH's, up to",
            "up to +36%",
            pct_change(bt),
            36,
            (bt - 1) * 100,
            "bindVM runs the 24 application threads on the big cores alone: on 1B5S one core does the work the others spread over six; the paper does not say why its bindVM lost at most 36%",
        )
    )
    be = max(g[(m, sc, "bindvm", "energy")] / g[(m, sc, "wash", "energy")] for m in AMP)
    out.append(
        _near(
            "fig9b-bindvm-energy",
            "§8.2, Figure 9(b)",
            "Scalable: bindVM's energy against WASH's, up to",
            "up to +50%",
            pct_change(be),
            50,
            (be - 1) * 100,
            "follows bindVM's time above",
        )
    )
    bp = max(g[(m, sc, "bindvm", "power")] / g[(m, sc, "wash", "power")] for m in AMP)
    out.append(
        _near(
            "fig9b-bindvm-power",
            "§8.2, Figure 9(b)",
            "Scalable: bindVM's power against WASH's, up to",
            "up to +15%",
            pct_change(bp),
            15,
            (bp - 1) * 100,
            "an idle small core draws 2.8 W against 4.8 W busy (the machine file), so the small cores bindVM leaves idle save little power",
        )
    )
    wo = geomean(g[(m, sc, "wash", "time")] for m in AMP)
    out.append(
        judge(
            "fig9b-wash-like-oblivious",
            "§8.2, Figure 9(b)",
            "Scalable: WASH and Oblivious are similar on average",
            "similar",
            pct_change(wo),
            f"within {SAME_TOL:g}%",
            abs(wo - 1) * 100 <= SAME_TOL,
            f"WASH keeps the VM's threads on the small cores when application threads outnumber the big ones, and our collections stop the world: "
            f"sunflow's GC threads run {diag['sc-wash-gc']:.0%} of their time on the big core under WASH against {diag['sc-obl-gc']:.0%} under Oblivious, its JIT "
            f"{diag['sc-wash-jit']:.0%} against {diag['sc-obl-jit']:.0%} (1B5S)",
            kind="independent",
        )
    )
    ob = g[(ONE_BIG, sc, "oblivious", "time")] / g[(ONE_BIG, sc, "bindvm", "time")]
    out.append(
        judge(
            "fig3-oblivious-best-scalable",
            "§3, Figure 2",
            "Scalable: Oblivious is much better than bindVM on 1B5S",
            "much better",
            f"Oblivious/bindVM time {pct_change(ob)}",
            f"at least {MUCH_BETTER:g}% lower",
            (1 - ob) * 100 >= MUCH_BETTER,
            "bindVM keeps the scalable threads on the big core",
            kind="independent",
        )
    )

    return out


def _figure_9c(res, adv, diag, ov, g) -> list:
    """Non-scalable programs (Figure 9c)."""
    out = []
    ns = "non-scalable"
    best = [m for m in AMP if g[(m, ns, "wash", "time")] <= min(g[(m, ns, r, "time")] for r in POLICIES)]
    out.append(
        judge(
            "fig9c-wash-best",
            "§8.3, Figure 9(c)",
            "Non-scalable: WASH is best on average",
            "best on every configuration",
            f"best on {', '.join(CONFIG[m] for m in best) or 'none'}; "
            + ", ".join(
                f"{CONFIG[m]} {LABEL[r]} {pct_change(g[(m, ns, r, 'time')])}" for m in AMP for r in ("bindvm", "wash")
            ),
            "lowest group time",
            len(best) == len(AMP),
            f"where bindVM is faster it gives every application thread the big cores; WASH binds only its execution and lock sets there: pmd's workers "
            f"run {diag['ns-wash-2b4s']:.0%} of their time on big cores under WASH against {diag['ns-bind-2b4s']:.0%} under bindVM on 2B4S",
            kind="independent",
        )
    )
    messy = (g[("wash-3b3s", ns, "wash", "time")] ** -1 - 1) * 100
    out.append(
        _near(
            "fig1-messy-3b3s",
            "Abstract, §1, Figure 1",
            "Non-scalable on 3B3S: WASH's performance over Oblivious (the baseline is not stated; Oblivious taken)",
            "+15%",
            pct(messy),
            15,
            messy,
            f"our Oblivious ignores core speed: on 3B3S eclipse's JavaIndexing thread, its critical path, runs {diag['ns-obl-3b3s']:.0%} of its time on big cores",
        )
    )
    duo = [(m, p, res[(m, p, "wash")][0] / res[(m, p, "bindvm")][0]) for m in AMP for p in ("eclipse", "hsqldb")]
    alike = [x for x in duo if abs(x[2] - 1) * 100 <= SAME_TOL]
    out.append(
        judge(
            "fig8-eclipse-hsqldb-like-bindvm",
            "§8.3, Figure 8",
            "eclipse and hsqldb: WASH and bindVM take similar time on most configurations",
            "similar on most",
            ", ".join(f"{CONFIG[m]} {_name(p)} {pct_change(x)}" for m, p, x in duo),
            f"within {SAME_TOL:g}% on at least 4 of 6",
            len(alike) >= 4,
            "WASH binds eclipse's Main (the lock holder) to the big core where its critical path is JavaIndexing; bindVM gives the "
            f"big cores to every application thread (eclipse's JavaIndexing on 1B5S: {diag['ns-wash-ji']:.0%} of its time on the big core under WASH)",
            kind="independent",
        )
    )
    trio = ("avrora", "pjbb2005", "pmd")
    faster = [p for p in trio if res[(ONE_BIG, p, "bindvm")][0] < res[(ONE_BIG, p, "wash")][0]]
    out.append(
        judge(
            "fig8-bindvm-faster-1b5s",
            "§8.3, Figure 8",
            "avrora, nspjbb, pmd: on 1B5S bindVM's time is lower than WASH's",
            "all three",
            ", ".join(
                f"{_name(p)} {pct_change(res[(ONE_BIG, p, 'bindvm')][0] / res[(ONE_BIG, p, 'wash')][0])}" for p in trio
            ),
            "bindVM/WASH time < 1 for all three",
            len(faster) == 3,
            "bindVM puts all of nspjbb's 9 application threads on the one big core, where WASH spreads the warehouses over all cores",
            kind="independent",
        )
    )
    eff = [(m, p) for m in AMP for p in trio if res[(m, p, "wash")][2] < res[(m, p, "bindvm")][2]]
    out.append(
        judge(
            "fig8-wash-energy-trio",
            "§8.3, Figure 8",
            "avrora, nspjbb, pmd: WASH uses less energy than bindVM on all configurations",
            "all 9",
            f"{len(eff)} of 9",
            "all 9",
            len(eff) == 9,
            "where WASH is slower than bindVM its energy is higher too: "
            + ", ".join(f"{CONFIG[m]} {_name(p)}" for m in AMP for p in trio if (m, p) not in eff),
            kind="independent",
        )
    )

    return out


def _figure_2(res, adv, diag, ov, g) -> list:
    """Oblivious, PFS and bindVM on 1B5S (Figure 2)."""
    out = []
    st, sc, ns = GROUPS
    seq = all(
        g[(ONE_BIG, grp, "bindvm", "time")] <= min(g[(ONE_BIG, grp, r, "time")] for r in ("oblivious", "pfs"))
        for grp in (st, ns)
    )
    out.append(
        judge(
            "fig2-bindvm-best",
            "§2, Figure 2",
            "On 1B5S bindVM is best on sequential and non-scalable programs (of Oblivious, PFS, bindVM)",
            "bindVM best on both",
            ", ".join(
                f"{grp}: "
                + ", ".join(f"{LABEL[r]} {pct_change(g[(ONE_BIG, grp, r, 'time')])}" for r in ("pfs", "bindvm"))
                for grp in (st, ns)
            ),
            "lowest time in both groups",
            seq,
            "see the group times",
            kind="independent",
        )
    )
    pfs = g[(ONE_BIG, sc, "pfs", "time")]
    out.append(
        judge(
            "fig2-pfs-like-oblivious-scalable",
            "§2, Figure 2",
            "On 1B5S Oblivious and PFS are essentially the same on scalable programs",
            "the same",
            f"PFS/Oblivious {pct_change(pfs)}",
            f"within {SAME_TOL:g}%",
            abs(pfs - 1) * 100 <= SAME_TOL,
            "PFS binds threads by their progress where CFS alone moves them",
            kind="independent",
        )
    )
    dom = all(
        min(g[(ONE_BIG, grp, "oblivious", "time")], g[(ONE_BIG, grp, "bindvm", "time")])
        <= g[(ONE_BIG, grp, "pfs", "time")]
        for grp in GROUPS
    )
    out.append(
        judge(
            "fig2-pfs-dominated",
            "§2, Figure 2",
            "Oblivious and bindVM dominate PFS (in every group one of them is at least as fast)",
            "dominated",
            "dominated" if dom else "not dominated",
            "in every group",
            dom,
            "PFS is the better in some group",
            kind="independent",
        )
    )

    return out


def _figure_12(res, adv, diag, ov, g) -> list:
    """An OS-scheduled eclipse beside each program on 1B5S (Figure 12)."""
    out = []
    ratio = {p: adv[(p, "wash")] / adv[(p, "oblivious")] for p in PROGRAMS}
    avg = (geomean(ratio.values()) ** -1 - 1) * 100
    out.append(
        _near(
            "fig12-wash-vs-oblivious",
            "Abstract, §8.6, Figure 12",
            "Beside an OS-scheduled eclipse on 1B5S: WASH's performance over Oblivious, average",
            "+27%",
            pct(avg),
            27,
            avg,
            f"as without the adversary (WASH's performance over Oblivious +{(ov[(ONE_BIG, 'wash', 'time')] ** -1 - 1) * 100:.0f}% on 1B5S): our Oblivious keeps single-threaded programs off the big core",
        )
    )
    worst = max(ratio, key=ratio.get)
    why = (
        f"our worst is {_name(worst)}, as without the adversary (WASH/Oblivious {pct_change(norm(res, ONE_BIG, worst, 'wash', 'time'))} alone on 1B5S; see the "
        f"scalable group: WASH keeps the GC and the JIT threads on small cores); beside eclipse sunflow's workers run {diag['adv-wash']:.0%} of "
        f"their time on the big core under WASH, {diag['adv-obl']:.0%} under Oblivious"
    )
    out.append(
        judge(
            "fig12-worst",
            "§8.6, Figure 12",
            "Beside eclipse: WASH's worst program against Oblivious is nspjbb",
            "nspjbb",
            _name(worst),
            "nspjbb",
            worst == "pjbb2005",
            why,
            kind="independent",
        )
    )
    out.append(
        _near(
            "fig12-worst-amount",
            "§8.6, Figure 12",
            "Beside eclipse: WASH's worst program is 7% slower than under Oblivious",
            "7% worse",
            f"{pct_change(ratio[worst])} ({_name(worst)})",
            7,
            (ratio[worst] - 1) * 100,
            why,
        )
    )
    fast = [p for p in PROGRAMS if ratio[p] <= 0.55]
    out.append(
        judge(
            "fig12-twice",
            "§8.6, Figure 12",
            "Beside eclipse: a number of programs are about 2x faster under WASH than Oblivious",
            "a number (several)",
            f"{len(fast)} at 1.8x or more" + (f" ({', '.join(_name(p) for p in fast)})" if fast else ""),
            "at least 2",
            len(fast) >= 2,
            "single-threaded programs are where WASH gains most, and they gain less than 1.8x here",
            kind="independent",
        )
    )
    worse = [
        p
        for p in ("pjbb2005", "spjbb")
        if adv[(p, "bindvm")] / adv[(p, "oblivious")] > norm(res, ONE_BIG, p, "bindvm", "time")
    ]
    out.append(
        judge(
            "fig12-bindvm-pjbb",
            "§8.6, Figure 12",
            "Beside eclipse, bindVM does worse (against Oblivious) on nspjbb and spjbb than without it",
            "worse on both",
            ", ".join(
                f"{_name(p)} {pct_change(adv[(p, 'bindvm')] / adv[(p, 'oblivious')])} vs alone {pct_change(norm(res, ONE_BIG, p, 'bindvm', 'time'))}"
                for p in ("pjbb2005", "spjbb")
            ),
            "worse on both",
            len(worse) == 2,
            "bindVM's warehouses share the big core with each other in both runs, and the adversary slows Oblivious's runs, whose warehouses share the small cores with it, by as much or more",
            kind="independent",
        )
    )
    return out


def _headline(res, adv, diag, ov, g) -> list:
    """The abstract's averages over prior work: §7's two baselines, Oblivious and bindVM, on the
    three configurations (the paper: "On a range of AMP configurations, WASH improves energy and
    performance over prior work: 9% average energy and 20% performance")."""
    pairs = [(m, base) for m in AMP for base in ("oblivious", "bindvm")]
    perf = {k: ov[(k[0], k[1], "time")] / ov[(k[0], "wash", "time")] for k in pairs}
    energy = {k: ov[(k[0], "wash", "energy")] / ov[(k[0], k[1], "energy")] for k in pairs}
    p_avg = (geomean(perf.values()) - 1) * 100
    e_avg = (1 - geomean(energy.values())) * 100
    each = {
        what: "; ".join(f"{CONFIG[m]} {LABEL[b]} {f(v)}" for (m, b), v in d.items())
        for what, d, f in (
            ("perf", perf, pct_change),
            ("energy", energy, lambda x: f"{(1 - x) * 100:.1f}%"),
        )
    }
    return [
        _near(
            "headline-performance-vs-prior-work",
            "Abstract, §1",
            "WASH's performance over prior work (§7's baselines Oblivious and bindVM), average over 1B5S, 2B4S and "
            "3B3S (geometric mean of the six ratios, groups weighted equally as in Figure 7)",
            "+20%",
            f"{pct(p_avg)} ({each['perf']})",
            20,
            p_avg,
            f"WASH's gains over the two baselines differ: {each['perf']}; over Oblivious they are its gain on the "
            "single-threaded programs (claim fig7-wash-vs-oblivious-1b5s), over bindVM its loss or gain on the "
            "non-scalable ones (claim fig9c-wash-best)",
        ),
        _near(
            "headline-energy-vs-prior-work",
            "Abstract, §1",
            "WASH's energy below prior work's (Oblivious and bindVM), average over 1B5S, 2B4S and 3B3S",
            "9% or more lower",
            f"{e_avg:.1f}% lower ({each['energy']})",
            9,
            e_avg,
            f"the energy follows the times: {each['energy']} lower than the baseline",
            bound="at least",
        ),
    ]


# §7: the 95% confidence intervals of time with 20 invocations, largest and average over the
# programs and configurations.
PAPER_CI = {"oblivious": (15.0, 5.4), "wash": (5.22, 1.7), "bindvm": (1.64, 0.72)}


def spread_claims(runs) -> list:
    """The paper's 95% confidence intervals of time (§7, Measurement Methodology) against ours,
    per scheduler: the largest and the average over the programs and configurations."""
    out = []
    for role, (largest, average) in PAPER_CI.items():
        cis = {(m, p): ci95(runs[(m, p, role)], CI_RUNS) for m in AMP for p in PROGRAMS}
        top = max(cis, key=cis.get)
        mean = sum(cis.values()) / len(cis)
        n = len(runs[(top[0], top[1], role)])
        times = runs[(top[0], top[1], role)]
        seeds = f"{n} seeds" + ("" if n == CI_RUNS else f", an estimate of the interval of {CI_RUNS} runs")
        reason = (
            f"{LABEL[role]}'s times of {_name(top[1])} on {CONFIG[top[0]]} range from {min(times):.2f} to "
            f"{max(times):.2f} s over the seeds (interval {cis[top]:.2f}%); a seed changes the simulator's choices "
            "(the local scheduler's placements, counter noise), where the paper's runs also vary in their GC and JIT "
            "triggers and the OS's timing"
        )
        src = "§7 (Measurement Methodology)"
        out += [
            _near(
                f"ci-{role}-largest",
                src,
                f"{LABEL[role]}'s largest 95% confidence interval of time with {CI_RUNS} invocations (programs and configurations)",
                f"{largest:g}%",
                f"{cis[top]:.2f}% ({_name(top[1])}, {CONFIG[top[0]]}; {seeds})",
                largest,
                cis[top],
                reason,
            ),
            _near(
                f"ci-{role}-average",
                src,
                f"{LABEL[role]}'s average 95% confidence interval of time with {CI_RUNS} invocations (programs and configurations)",
                f"{average:g}%",
                f"{mean:.2f}% ({len(cis)} programs x configurations; {seeds})",
                average,
                mean,
                reason,
            ),
        ]
    return out


def comparison_claims(res, adv, diag) -> list:
    """The schedulers compared, one function per figure of the paper, in the document's order.
    What they share: ov, each (machine, role, metric)'s mean normalised to Oblivious over the
    groups weighted equally (Figure 7's average); g, the same per group."""
    ov = {(m, r, k): overall(res, m, r, k) for m in AMP for r in POLICIES for k in METRICS}
    g = {
        (m, grp, r, k): group_mean(res, m, grp, r, k) for m in AMP for grp in GROUPS for r in POLICIES for k in METRICS
    }
    return (
        _figure_7(res, adv, diag, ov, g)
        + _figure_9a(res, adv, diag, ov, g)
        + _figure_9b(res, adv, diag, ov, g)
        + _figure_9c(res, adv, diag, ov, g)
        + _figure_2(res, adv, diag, ov, g)
        + _figure_12(res, adv, diag, ov, g)
        + _headline(res, adv, diag, ov, g)
    )


def sensitivity_claims(sens) -> list:
    reason = (
        "our WASH reads the predictor only to rank the execution set of a non-scalable app (ExecRank = "
        "big-core-equivalent progress x predicted speedup), and in our program models the threads that compete "
        "for the big cores differ far more in progress (eclipse's JavaIndexing, hsqldb's Main, the lock holders) "
        "than in speedup (1.7-3.3), so even negated weights leave the ranking, and the placements, as they were; "
        "the per-run prediction error does change (see tests: `wash:model=negated` errs several times more)"
    )
    second, negated = model_slowdown(sens, "second"), model_slowdown(sens, "negated")
    worst = max(PROGRAMS, key=lambda p: sens[(p, "negated")] / sens[(p, "default")])
    return [
        judge_numbers(
            "fig10-second-model",
            "§8.4, Figure 10",
            "WASH with the second-best model (the next best 4 different counters), 1B5S: time over the default model's",
            "+2-3%",
            f"{pct_change(second)}",
            values=(2, 3),
            ours_values=((second - 1) * 100,) * 2,
            unit="%",
            kind="independent",
            reason=reason,
            bounds=("at least", "at most"),
        ),
        _near(
            "fig10-negated-model",
            "§8.4, Figure 10",
            "WASH with the negated model (weights the additive inverse of the default's), 1B5S: time over the default model's",
            "+9%",
            f"{pct_change(negated)} (most: {_name(worst)} {pct_change(sens[(worst, 'negated')] / sens[(worst, 'default')])})",
            9,
            (negated - 1) * 100,
            reason,
        ),
    ]


# ---- figures


def figure_3(ctx, table):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.2))
    ax = fig.add_subplot(1, 1, 1)
    bars = [(s, n) for s in SPEEDS for n in CORES]
    width = 0.8 / len(bars)
    for i, (s, n) in enumerate(bars):
        xs = [j + (i - len(bars) / 2 + 0.5) * width for j in range(len(PROGRAMS))]
        ax.bar(
            xs,
            [table[p][s][n] for p in PROGRAMS],
            width,
            label=f"{n} core{'s' if n > 1 else ''} at {SPEEDS[s]} GHz",
            color=(("#08306b", "#2171b5", "#6baed6") if s == "big" else ("#7f2704", "#d94801", "#fd8d3c"))[
                CORES.index(n)
            ],
        )
    ax.set_xticks(range(len(PROGRAMS)))
    ax.set_xticklabels([f"{_name(p)}\n{table[p]['class']}" for p in PROGRAMS], fontsize=6.5)
    ax.set_ylabel("time / time on 1 big core (Oblivious)")
    ax.axhline(1.0, color="grey", lw=0.6)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    ctx.figure(
        fig,
        "fig3",
        "Redraws WASH's Figure 3: each program under Oblivious on 1, 3 and 6 cores at 2.8 GHz and at 0.8 GHz, "
        "normalised to 1 big core (lower is better), with the class it falls in; from our runs.",
    )


COLORS = {"oblivious": "#969696", "bindvm": "#6baed6", "pfs": "#fd8d3c", "wash": "#31a354"}


def figure_7_9(ctx, res):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 8.5))
    rows = [("overall", None)] + [(grp, grp) for grp in GROUPS]
    for i, (title, grp) in enumerate(rows):
        for j, metric in enumerate(METRICS):
            ax = fig.add_subplot(len(rows), len(METRICS), i * len(METRICS) + j + 1)
            roles = [r for r in POLICIES if r != "oblivious"]
            width = 0.8 / len(roles)
            for k, r in enumerate(roles):
                ys = [overall(res, m, r, metric) if grp is None else group_mean(res, m, grp, r, metric) for m in AMP]
                ax.bar(
                    [x + (k - len(roles) / 2 + 0.5) * width for x in range(len(AMP))],
                    ys,
                    width,
                    color=COLORS[r],
                    label=LABEL[r],
                )
            ax.axhline(1.0, color="grey", lw=0.6)
            ax.set_xticks(range(len(AMP)))
            ax.set_xticklabels([CONFIG[m] for m in AMP], fontsize=7)
            ax.set_title(f"{title}: {metric}", fontsize=8)
            ax.tick_params(labelsize=7)
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.tight_layout()
    ctx.figure(
        fig,
        "fig7-9",
        "Redraws WASH's Figures 7 and 9: time, average power and energy normalised to Oblivious (lower is better) of "
        "bindVM, PFS and WASH on 1B5S, 2B4S, 3B3S; top row the geometric mean with the three groups weighted equally (Figure 7), "
        "then each group's geometric mean (Figure 9a-c); from our runs.",
    )


def _program_bars(ctx, values, ylabel, stem, caption):
    """One bar per program and role (values: role -> [value per program]), normalised to Oblivious."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 3.6))
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / len(values)
    for k, (r, ys) in enumerate(values.items()):
        ax.bar(
            [x + (k - len(values) / 2 + 0.5) * width for x in range(len(PROGRAMS))],
            ys,
            width,
            color=COLORS[r],
            label=LABEL[r],
        )
    ax.axhline(1.0, color="grey", lw=0.6)
    ax.set_xticks(range(len(PROGRAMS)))
    ax.set_xticklabels([_name(p) for p in PROGRAMS], fontsize=7)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    fig.tight_layout()
    ctx.figure(fig, stem, caption)


def figure_2(ctx, res):
    _program_bars(
        ctx,
        {r: [norm(res, "wash-1b5s", p, r, "time") for p in PROGRAMS] for r in ("pfs", "bindvm", "wash")},
        "time / Oblivious, 1B5S",
        "fig2",
        "Redraws WASH's Figure 2 (with WASH added, as in Figure 8): each program's time on 1B5S "
        "under PFS, bindVM and WASH, normalised to Oblivious (lower is better); from our runs.",
    )


def figure_12(ctx, adv):
    _program_bars(
        ctx,
        {r: [adv[(p, r)] / adv[(p, "oblivious")] for p in PROGRAMS] for r in ("bindvm", "wash")},
        "time / Oblivious, 1B5S + eclipse",
        "fig12",
        "Redraws WASH's Figure 12: each program's time on 1B5S beside an "
        "OS-scheduled eclipse (all cores, no placement applies to it) under bindVM and WASH, normalised to Oblivious; from our runs.",
    )


def _compare_md(res) -> str:
    roles = [r for r in POLICIES if r != "oblivious"]
    rows = []
    for m in AMP:
        for grp in ("overall",) + tuple(GROUPS):
            for metric in METRICS:
                vals = [
                    overall(res, m, r, metric) if grp == "overall" else group_mean(res, m, grp, r, metric)
                    for r in roles
                ]
                rows.append([CONFIG[m], grp, metric, *(f"{v:.3f}" for v in vals)])
    return markdown_table(["config", "group", "metric", *(LABEL[r] for r in roles)], rows)


def _programs_md(res, adv) -> str:
    roles = [r for r in POLICIES if r != "oblivious"]
    header = ["program", *(f"{CONFIG[m]} {LABEL[r]}" for m in AMP for r in roles), "adversary bindVM", "adversary WASH"]
    rows = [
        [_name(p), *(f"{norm(res, m, p, r, 'time'):.2f}" for m in AMP for r in roles)]
        + [f"{adv[(p, r)] / adv[(p, 'oblivious')]:.2f}" for r in ("bindvm", "wash")]
        for p in PROGRAMS
    ]
    return markdown_table(header, rows)


def _table_md(table) -> str:
    header = ["program", "paper class", "ours", "app threads", "1 core s"]
    header += [f"{n}c {SPEEDS[s]} GHz" for s in SPEEDS for n in CORES]
    rows = []
    for p in PROGRAMS:
        r = table[p]
        rows.append(
            [_name(p), PAPER_CLASS[p], r["class"], str(r["app_threads"]), f"{r['seconds']:.2f}"]
            + [f"{r[s][n]:.2f}" for s in SPEEDS for n in CORES]
        )
    return markdown_table(header, rows)


def build(ctx):
    check_policies(POLICIES)
    return build_with(ctx, POLICIES)


def build_with(ctx, policies):
    plan = QUICK if ctx.quick else FULL
    table = characterize(ctx.sweep, seeds=plan["seeds"])
    amp = oblivious_amp(ctx, plan)
    res, runs = compare(ctx, plan, policies)
    ci_runs = len(next(iter(runs.values())))
    adv = adversary(ctx, plan, policies)
    sens = sensitivity(ctx, plan, policies)
    figure_3(ctx, table)
    figure_2(ctx, res)
    figure_7_9(ctx, res)
    figure_12(ctx, adv)
    links = catalog_links("workloads", (f"dacapo-{p}" for p in PROGRAMS))
    workloads = f"""Workloads: {links}, each one program of
[`catalog/programs/dacapo.toml`](../../catalog/programs/dacapo.toml) alone (its header gives what the paper reports
and what was chosen: threads, lock contention, GC every 8 or 128 MB with as many GC threads as cores, one JIT
thread, memory intensity), and [`dacapo-adv-NAME`](../../catalog/workloads/dacapo-adv-eclipse.toml): each beside
an eclipse left to the OS (`os_scheduled`, Figure 12), measuring the program only. Policies (paper name: ours):
{", ".join(f"{LABEL[r]}: `{policies[r]}`" for r in POLICIES)}; Oblivious is the local scheduler alone (Linux CFS in
the paper). Seeds {plan["seeds"]}; a time, power or energy is the mean over the seeds; power is a run's energy over its
time. Oblivious, bindVM and WASH also run seeds {plan["ci_seeds"]}, for their spread only (claims `ci-*`)."""
    notes = f"""- **Classes.** §3's definitions: scalable improves from 1 to 3 and from 3 to 6 cores; "improves" (the paper
  gives no threshold, chosen before any result) is a time at least {HALF_IDEAL:.0%} of the ideal reduction lower
  (1 -> 3 cores: 33%; 3 -> 6: 25%); single-threaded has one application thread. Judged at 2.8 GHz.
- **Tolerances.** Every number the paper states is judged by the one rule (docs/reproductions.md: within 25% of
  it or 1.5 points, the larger, same sign; "up to" the extreme of ours; "or more" a bound; a range, +2-3%, as its
  two ends). The claims stated in words keep conditions chosen before any result: "the same" or "similar" within
  {SAME_TOL:g}%, "much better" at least {MUCH_BETTER:g}% lower.
- **Model values chosen.** No model value was changed to meet a claim; the program models are chosen from what
  the paper says of each program (the file's header), its §3 classes among them: the claims about what they
  were built for are calibrated (listed above), not evidence.
- **Confidence intervals.** §7's 95% intervals of a mean of {CI_RUNS} invocations, per program and configuration,
  relative to the mean: ours are Student's t (0.975, {CI_RUNS - 1} degrees of freedom) times the standard deviation
  of the times over {ci_runs} seeds, over the square root of {CI_RUNS}, over their mean{"" if ci_runs == CI_RUNS else f" (an estimate from {ci_runs} seeds of the interval {CI_RUNS} runs would give)"}.
  A seed changes the simulator's choices (the local scheduler's placements, counter noise), not the programs.
- **Averages.** Figure 7's "each benchmark group weighted equally": the geometric mean of the three groups'
  geometric means of the programs' ratios to Oblivious. "Up to" claims take the extreme over 1B5S, 2B4S, 3B3S.
- **Speedup models** (Figure 10): `wash` predicts speedups with the PCA + regression model trained leaving the
  program out (`catalog/models/wash-speedup.toml`, `make speedup-model`); the simulator's counters carry its
  seeded 2% measurement noise. Figure 10's study runs `wash:model=default|second|negated` on 1B5S.
- **Not here.** Figure 11 (WASH without parts) has no number in the text; Figures 4-6 (lock ratios, model events, model fit) are
  the programs' and model's inputs, not results; nor the intervals of Oblivious's 60 invocations."""
    sections = [
        (
            "Every program",
            "Oblivious; time normalised to 1 big core (phenom-1c-2.8); `1 core s`: seconds on 1 big core.\n\n"
            + _table_md(table),
        ),
        ("The schedulers by group", "Ratios to Oblivious (lower is better).\n\n" + _compare_md(res)),
        (
            "The schedulers by program",
            "Time over Oblivious's, each program alone and beside the eclipse adversary (1B5S).\n\n"
            + _programs_md(res, adv),
        ),
        ("Notes", notes),
    ]
    machines = [machine(n, s) for s in SPEEDS for n in CORES] + list(AMP)
    return Report(
        claims=claims(table, amp)
        + comparison_claims(res, adv, diagnostics(policies))
        + sensitivity_claims(sens)
        + spread_claims(runs),
        machines=machines,
        workloads=workloads,
        sections=sections,
    )
