"""thesis-uf: the Utility Factor (Sáez thesis, ch. 6, §6.1) against the theoretical speedup of
BusyFCs it approximates and against simulated BusyFCs runs.

The thesis derives the speedup of a perfectly balanced parallel application under BusyFCs over
an all-slow execution (§6.1.1, Algorithm 6.1, Table 6.1, eq. 6.13), finds it too costly for an
OS to evaluate, and replaces it with the Utility Factor (§6.1.2, eq. 6.14). Fig. 6.1 compares
the two formulas on 2FC-8SC for SF_avg from 1.2 to 2.0; Fig. 6.2 compares UF with the speedup
observed under BusyFCs on 2FC-8SC. Neither figure's values survive in the text: the thesis
says only that UF "closely approximates" eq. 6.13 and "closely tracks" the observed speedup.
So the claims here are those words, with tolerances we chose (see TOLERANCE), and the shapes
the text states; our errors are given per point and on average.

Our runs: for each machine, thread count N and speedup factor SF, a synthetic application
whose N threads run K balanced compute phases separated by blocking barriers (the model's
application: §6.1.1, "k balanced parallel sections ... separated by global synchronization
points"), under `busyfcs` and under the all-slow base configuration (`SlowOnly`); our speedup
is T_base / T_busyfcs, as the thesis defines it (§6.1).
"""

import os

from . import Claim, Report
from ._format import judge, markdown_table, pct_of, verdict

TITLE = "Utility Factor against BusyFCs's speedup (Sáez thesis, ch. 6, Figs. 6.1 and 6.2)"
# The seed text has no title page; the thesis's Spanish summary names the university.
PAPER = "the Sáez thesis (Juan Carlos Sáez, PhD thesis, Universidad Complutense de Madrid: OS scheduling for asymmetric multicore processors)"
SUMMARY = """The Sáez thesis (ch. 6) schedules with the **Utility Factor** (eq. 6.14), a cheap approximation of
the speedup a parallel application gets from the fast cores under BusyFCs (eq. 6.13, from Algorithm 6.1). Its
Fig. 6.1 shows UF against eq. 6.13 on 2FC-8SC for SF_avg 1.2 to 2.0, and Fig. 6.2 UF against the speedup observed
under BusyFCs; it states only that UF "closely approximates" and "closely tracks" them. Here both formulas are
evaluated and held against simulated `busyfcs` runs of balanced parallel applications with 1 to 12 threads on
2FC-8SC, 1FC-12SC and 4FC-12SC (the thesis's ch. 6 layout, `4fc-12sc-mf`)."""

MACHINES = ("2fc-8sc", "1fc-12sc", "4fc-12sc-mf")
# Fig. 6.1: "hypothetical parallel applications whose SFavg ranges between 1.2 and 2.0 (a typical
# range in this configuration)" (§6.1.2); steps of 0.2 as the derived tables use.
SF_VALUES = (1.2, 1.4, 1.6, 1.8, 2.0)
THREADS = tuple(range(1, 13))
PHASE_INSTRUCTIONS = 2.0e9  # per thread and phase: ~0.9 s on a 2.2 GHz core, so that a 4 ms
# slice or a 50 µs migration is a small fraction of a phase
CPI = 1.0

FULL = {"sf": SF_VALUES, "threads": THREADS, "phases": 10, "seeds": "1-3"}
# The tests run this for every change: both ends of the SF range, every step of Algorithm 6.1's
# iteration count on 2FC-8SC up to its 8 slow cores and past them.
QUICK = {"sf": (1.2, 2.0), "threads": (1, 2, 3, 5, 8, 9, 12), "phases": 3, "seeds": "1"}

# "Closely approximates" / "closely tracks" (§6.1.2) in numbers, chosen before looking at any
# simulated point: the thesis calls its own worst gap between eq. 6.14 and eq. 6.13 close
# (6.25%, at SF 2.0 with one thread past the fast cores: 1.250 against 1.333), so "close" must
# admit at least that at single points; 10% per point leaves room for what a real (or
# simulated) run adds, and the mean bound keeps a systematic bias out.
POINT_TOLERANCE = 0.10
MEAN_TOLERANCE = 0.05
TOLERANCE = f"every point within {POINT_TOLERANCE:.0%}, mean within {MEAN_TOLERANCE:.0%}"
# A simulated speedup above eq. 6.13 (an upper bound: it ignores migrations) by more than what a
# run's time granularity allows: a 4 ms slice against a phase of 0.9 s or more (at most 0.5%).
BOUND_TOLERANCE = 0.01
# "The entire application would achieve the speedup of SFavg" with N <= NFC (§6.1.2).
SF_TOLERANCE = 0.01


# ---- the thesis's formulas


def iterations(n: int, nfc: int) -> int:
    """Iterations of Algorithm 6.1 for n threads on nfc fast cores: floor((n - 1) / nfc) + 1."""
    return (n - 1) // nfc + 1


def busyfcs_speedup(sf: float, n: int, nfc: int) -> float:
    """Eq. 6.13: SF / ((1 - 1/SF)^floor((n-1)/nfc) * (1 - SF) + SF)."""
    return sf / ((1 - 1 / sf) ** (iterations(n, nfc) - 1) * (1 - sf) + sf)


def utility_factor(sf: float, n: int, nfc: int) -> float:
    """Eq. 6.14: (SF - 1) / (floor((n-1)/nfc) + 1)^2 + 1."""
    return (sf - 1) / iterations(n, nfc) ** 2 + 1


# ---- the workloads


def calibrate(machine: str, workdir: str) -> dict:
    """The machine's time per instruction as the performance model gives it, measured by
    single-threaded runs: a fast and a slow core running CPI-1 compute without misses (a_fast,
    a_slow, ns) and the cost of one miss per kilo-instruction on the fast core (per_mpki, ns).
    The model's time per instruction is linear in the miss rate (cpi * cpi_scale / freq +
    mpki / 1000 * latency), so these three numbers give any SF (see `mpki_for`)."""
    import ampsched

    from ._policies import SlowOnly

    probe = 1.0e9
    times = {}
    for key, mpki, policy in (("fast", 0.0, "busyfcs"), ("slow", 0.0, SlowOnly()), ("miss", 10.0, "busyfcs")):
        path = os.path.join(workdir, f"probe-{os.path.basename(machine)}-{key}.toml")
        with open(path, "w") as f:
            f.write(workload_toml(f"probe-{key}", 1, 1, probe, mpki))
        # One thread starts in the fast partition under busyfcs (§2.3: ties go to fast) and stays.
        times[key] = ampsched.run(machine, path, policy).raw["makespan_s"] * 1e9 / probe
    return {"a_fast": times["fast"], "a_slow": times["slow"], "per_mpki": (times["miss"] - times["fast"]) / 10.0}


def mpki_for(sf: float, cal: dict) -> float:
    """The LLC miss rate that gives a single thread speedup factor `sf` on the calibrated
    machine: (a_slow + x m) / (a_fast + x m) = sf, m = per_mpki. Memory stalls do not scale with
    the clock, so misses lower SF from the compute ratio a_slow / a_fast (2 on these machines)."""
    top = cal["a_slow"] / cal["a_fast"]
    # The calibration runs time whole nanoseconds: the ratio is 2 to within 1e-8, not exactly.
    if not 1 < sf <= top * (1 + 1e-6):
        raise ValueError(f"SF {sf} is outside (1, {top:.3f}] on this machine")
    return max(0.0, (cal["a_slow"] - sf * cal["a_fast"]) / (cal["per_mpki"] * (sf - 1)))


def workload_toml(name: str, threads: int, phases: int, instructions: float, mpki: float) -> str:
    # A balanced parallel app as §6.1.1 assumes it: every thread retires the same instructions
    # in every phase, and the phases end at a barrier where early threads block (so BusyFCs
    # sees the fast core go idle and moves a slow thread there, Algorithm 6.1).
    return (
        f'name = "{name}"\n'
        f'description = "{threads} threads x {phases} balanced phases with barriers"\n'
        'source = "Sáez thesis, §6.1.1 (the perfectly balanced application of eq. 6.13)"\n'
        "constant_load = false\n\n"
        "[[app]]\n"
        'name = "parallel"\n'
        f"threads = {threads}\n"
        f"repeat = {phases}\n\n"
        "[[app.phase]]\n"
        'kind = "compute"\n'
        f"instructions = {instructions:.6e}\n"
        f"cpi = {CPI}\n"
        f"llc_mpki = {mpki:.9f}\n\n"
        "[[app.phase]]\n"
        'kind = "barrier"\n'
        'wait = "block"\n'
        'scope = "group"\n'
    )


# The control: 2fc-8sc (catalog/machines/2fc-8sc.toml) with a single memory node, so that a
# migration costs only its fixed 50 µs (the workloads' flat miss rates refill nothing). It
# separates what the thesis's model leaves out on purpose (migrations, §6.1.1) from the NUMA
# effect of the catalog machine. The test suite checks that it is the catalog file without
# its [[numa]] tables and remote latency.
CONTROL = "2fc-8sc-uma"
CONTROL_OF = "2fc-8sc"
CONTROL_TOML = """name = "2fc-8sc-uma"
description = "2fc-8sc with one memory node (control of the thesis-uf reproduction)"
source = "2fc-8sc without its NUMA nodes"
memory_latency_ns = 100.0

[[core_type]]
name = "fast"
count = 2
freq_ghz = 2.2
cpi_scale = 1.0
power_active_w = 20.0
power_idle_w = 5.6

[[core_type]]
name = "slow"
count = 8
freq_ghz = 1.1
cpi_scale = 1.0
power_active_w = 9.6
power_idle_w = 4.1

[[llc]]
size_kb = 2048
cores = "0-3"

[[llc]]
size_kb = 2048
cores = "4-7"

[[llc]]
size_kb = 2048
cores = "8-9"

[migration]
cost_us = 50.0
"""


def _nfc_nsc(machine: str) -> tuple:
    import json

    import ampsched

    if machine == CONTROL:
        machine = CONTROL_OF
    entry = next(m for m in json.loads(ampsched._require_core().list_catalog("machines")) if m["name"] == machine)
    fast, slow = entry["core_types"][0], entry["core_types"][-1]
    return fast["count"], slow["count"]


# ---- the runs and the claims


def measure(ctx, plan) -> list:
    """One row per (machine, SF, N): the simulated speedup (base time over BusyFCs time, both
    means over the seeds), eq. 6.13, UF and the relative errors."""
    from ._policies import SlowOnly, policy_spec

    slow_spec = policy_spec(SlowOnly.__name__)
    control = os.path.join(ctx.workdir, f"{CONTROL}.toml")
    with open(control, "w") as f:
        f.write(CONTROL_TOML)
    runs_on = {m: m for m in MACHINES}
    runs_on[CONTROL] = control
    files, meta = [], {}
    for machine in MACHINES + (CONTROL,):
        cal = calibrate(runs_on[machine], ctx.workdir)
        for sf in plan["sf"]:
            mpki = mpki_for(sf, cal)
            for n in plan["threads"]:
                path = os.path.join(ctx.workdir, f"uf-{machine}-sf{sf:.1f}-n{n}.toml")
                with open(path, "w") as f:
                    f.write(workload_toml(f"uf-sf{sf:.1f}-n{n}", n, plan["phases"], PHASE_INSTRUCTIONS, mpki))
                files.append((machine, path))
                meta[path] = (sf, n, mpki)
    rows = []
    for machine in MACHINES + (CONTROL,):
        paths = [p for m, p in files if m == machine]
        df = ctx.sweep([runs_on[machine]], paths, ["busyfcs", slow_spec], plan["seeds"])
        nfc, nsc = _nfc_nsc(machine)
        times = df.groupby(["workload", "policy"])["makespan_s"].mean()
        for path in paths:
            sf, n, mpki = meta[path]
            sim = times[(path, slow_spec)] / times[(path, "busyfcs")]
            model, uf = busyfcs_speedup(sf, n, nfc), utility_factor(sf, n, nfc)
            rows.append(
                {
                    "machine": machine,
                    "nfc": nfc,
                    "nsc": nsc,
                    "sf": sf,
                    "n": n,
                    "mpki": mpki,
                    "sim": sim,
                    "model": model,
                    "uf": uf,
                    "uf_vs_model": uf / model - 1,
                    "uf_vs_sim": uf / sim - 1,
                    "model_vs_sim": model / sim - 1,
                }
            )
    return rows


def _where(row) -> str:
    return f"N={row['n']}, SF={row['sf']:.1f}"


def _closeness(cid, source, claim, theirs, points, key, what, kind):
    """A "closely approximates" claim: |error| per point and on average against TOLERANCE."""
    errors = [abs(p[key]) for p in points]
    worst = max(points, key=lambda p: abs(p[key]))
    mean = sum(errors) / len(errors)
    ours = (
        f"{what}: mean abs. error {mean:.1%}, worst {worst[key] * 100:+.2f}% at {_where(worst)} ({len(points)} points)"
    )
    ok = max(errors) <= POINT_TOLERANCE and mean <= MEAN_TOLERANCE
    reason = (
        ""
        if ok
        else (f"the worst point is off by {abs(worst[key]):.2%} and the mean by {mean:.1%}, beyond {TOLERANCE}")
    )
    if not ok and worst.get("sim", 1) < 1:
        # The one cause the control isolates: on one memory node the simulation is eq. 6.13.
        reason = (
            f"at {_where(worst)} the simulated speedup is {worst['sim']:.3f}, below UF's floor of 1, because "
            f"BusyFCs moves memory-bound threads to cores away from their memory (remote misses), which "
            f"the model leaves out; on one memory node the gap goes (claim eq613-is-busyfcs-without-numa)"
        )
    return Claim(cid, source, claim, theirs, ours, TOLERANCE, verdict(ok), reason, kind)


def _label(machine: str) -> str:
    return machine.upper().replace("-MF", " (ch. 6 layout)")


def _figure_6_1(pts) -> Claim:
    """UF against eq. 6.13 on the machine of `pts` (its rows): Fig. 6.1 on 2FC-8SC, the text after
    eq. 6.14 on the others."""
    machine, nfc, nsc = pts[0]["machine"], pts[0]["nfc"], pts[0]["nsc"]
    label = _label(machine)
    # Fig. 6.1 is the two formulas alone: evaluated on the whole grid whatever the mode.
    analytic = [
        {"n": n, "sf": sf, "err": utility_factor(sf, n, nfc) / busyfcs_speedup(sf, n, nfc) - 1}
        for sf in SF_VALUES
        for n in range(1, nsc + 1)
    ]
    fig = "Fig. 6.1" if machine == "2fc-8sc" else 'text after eq. 6.14 ("our target asymmetric systems")'
    return _closeness(
        f"uf-vs-eq613-{machine}",
        f"§6.1.2, {fig}",
        f"UF (eq. 6.14) closely approximates BusyFCs's theoretical speedup (eq. 6.13) on {label}, N <= {nsc}",
        "closely approximates (no number)",
        analytic,
        "err",
        "UF vs eq. 6.13",
        # Two closed formulas evaluated side by side, no run: the claim follows from their
        # definitions (test_reproduce.py holds it).
        "by construction",
    )


def _eq_6_13_bound(pts) -> Claim:
    """Eq. 6.13 as an upper bound of the simulated speedup on the machine of `pts` (§6.1.1)."""
    machine, nsc = pts[0]["machine"], pts[0]["nsc"]
    label = _label(machine)
    within = [r for r in pts if r["n"] <= nsc]
    over = max(within, key=lambda r: r["sim"] / r["model"] - 1)
    excess = over["sim"] / over["model"] - 1
    mean = sum(abs(r["model_vs_sim"]) for r in within) / len(within)
    ok = excess <= BOUND_TOLERANCE
    return judge(
        f"eq613-bounds-busyfcs-{machine}",
        "§6.1.1 (before eq. 6.13)",
        f"eq. 6.13 is an upper bound of BusyFCs's speedup on {label} (it ignores migrations), N <= {nsc}",
        "simulated <= eq. 6.13",
        f"simulated over eq. 6.13 at most {excess * 100:+.2f}% ({_where(over)}); eq. 6.13 vs simulated: mean abs. error {mean:.1%}",
        f"simulated at most {BOUND_TOLERANCE:.0%} above eq. 6.13",
        ok,
        f"the simulated speedup exceeds eq. 6.13 by {excess:.1%} at {_where(over)}",
        kind="independent",
    )


def _figure_6_2(pts) -> Claim:
    """UF against the simulated BusyFCs speedup on the machine of `pts`: Fig. 6.2 on 2FC-8SC, the same
    comparison on the others."""
    machine, nsc = pts[0]["machine"], pts[0]["nsc"]
    label = _label(machine)
    within = [r for r in pts if r["n"] <= nsc]
    fig = "Fig. 6.2" if machine == "2fc-8sc" else "Fig. 6.2 (shown there on 2FC-8SC only)"
    return _closeness(
        f"uf-vs-busyfcs-{machine}",
        f"§6.1.2, {fig}",
        f"UF closely tracks the speedup observed under BusyFCs on {label}, N <= {nsc}",
        "closely tracks (no number)",
        within,
        "uf_vs_sim",
        "UF vs simulated",
        "independent",
    )


def _eq_6_13_without_numa(control) -> Claim:
    """Eq. 6.13 against the simulated speedup on the control machine, one memory node (§6.1.1)."""
    worst = max(control, key=lambda r: abs(r["model_vs_sim"]))
    ok = abs(worst["model_vs_sim"]) <= BOUND_TOLERANCE
    return judge(
        "eq613-is-busyfcs-without-numa",
        "§6.1.1, eq. 6.13",
        "eq. 6.13 is BusyFCs's speedup on a perfectly balanced application when migrations cost nothing but their fixed cost",
        "eq. 6.13",
        f"on {CONTROL} (2FC-8SC, one memory node): eq. 6.13 vs simulated, worst {worst['model_vs_sim'] * 100:+.2f}% "
        f"at {_where(worst)} ({len(control)} points)",
        f"within {BOUND_TOLERANCE:.0%}",
        ok,
        f"eq. 6.13 is off the simulated speedup by {abs(worst['model_vs_sim']):.1%} at {_where(worst)}",
        # The control removes all the formula leaves out (remote memory; a migration refills
        # nothing here), so what remains is Algorithm 6.1 run on the application eq. 6.13 was
        # derived for: a check of our BusyFCs against its definition, held by test_reproduce.py.
        kind="by construction",
    )


def _speedup_at_least_one(rows) -> Claim:
    """The lowest speedup is 1, UF's floor (§6.1.2, after eq. 6.14)."""
    within_all = [r for r in rows if r["n"] <= r["nsc"]]
    low = min(within_all, key=lambda r: r["sim"])
    ok = low["sim"] >= 1 - SF_TOLERANCE
    return judge(
        "speedup-at-least-one",
        "§6.1.2 (after eq. 6.14)",
        "the lowest attainable speedup is 1 (no speedup), so UF never goes below 1",
        ">= 1",
        f"lowest simulated speedup {low['sim']:.3f} ({low['machine']}, {_where(low)})",
        f"at least {1 - SF_TOLERANCE:.2f}",
        ok,
        f"BusyFCs moves memory-bound threads away from the chip holding their memory, and the remote "
        f"misses make them slower than in the all-slow base "
        f"({low['sim']:.3f} at {low['machine']}, {_where(low)})",
        kind="independent",
    )


def _beyond_nsc(rows) -> Claim:
    """UF with more threads than slow cores, outside the model (§6.1.1, second assumption)."""
    beyond = [r for r in rows if r["n"] > r["nsc"]]
    claim = _closeness(
        "uf-beyond-nsc-2fc-8sc",
        "§6.1.1 (second assumption)",
        "with more threads than slow cores (2FC-8SC, N > 8) the formula should remain accurate",
        "remains accurate (no number)",
        beyond,
        "uf_vs_sim",
        "UF vs simulated",
        "independent",
    )
    if claim.verdict != "reproduced":
        top = max(beyond, key=lambda r: r["sim"])
        claim.reason = (
            f"past 8 threads the all-slow base time-shares 8 slow cores while BusyFCs runs on 10, so "
            f"the speedup rises again (to {top['sim']:.3f} at {_where(top)}), which neither formula models"
        )
    return claim


def _speedup_is_sf_up_to_nfc(rows) -> Claim:
    """The speedup is SF_avg with no more threads than fast cores (§6.1.2, after eq. 6.14)."""
    upto = [r for r in rows if r["n"] <= r["nfc"]]
    worst = max(upto, key=lambda r: abs(r["sim"] / r["sf"] - 1))
    dev = worst["sim"] / worst["sf"] - 1
    ok = abs(dev) <= SF_TOLERANCE
    return judge(
        "speedup-is-sf-up-to-nfc",
        "§6.1.2 (after eq. 6.14)",
        "with no more threads than fast cores the application's speedup is SF_avg",
        "speedup = SF_avg",
        f"simulated / SF: worst {pct_of(dev)} ({worst['machine']}, {_where(worst)}; {len(upto)} points)",
        f"within {SF_TOLERANCE:.0%}",
        ok,
        f"the simulated speedup differs from SF by {abs(dev):.1%} at {worst['machine']}, {_where(worst)}",
        # The miss rate is solved (`calibrate`, `mpki_for`) so that one thread's fast/slow time
        # ratio is SF; with no more threads than fast cores each thread is that thread alone.
        # Held by test_reproduce.py.
        kind="by construction",
    )


def _speedup_falls_past_nfc(by_machine) -> Claim:
    """The speedup falls as the threads outnumber the fast cores (§6.1.1, second assumption)."""
    rises = []
    for machine in MACHINES:
        nsc = by_machine[machine][0]["nsc"]
        for sf in sorted({r["sf"] for r in by_machine[machine]}):
            series = sorted((r["n"], r["sim"]) for r in by_machine[machine] if r["sf"] == sf and r["n"] <= nsc)
            rises += [(machine, sf, b[0], b[1] / a[1] - 1) for a, b in zip(series, series[1:])]
    worst = max(rises, key=lambda x: x[3])
    ok = worst[3] <= SF_TOLERANCE
    return judge(
        "speedup-falls-past-nfc",
        "§6.1.1 (second assumption)",
        "as the thread count exceeds the fast cores the speedup decreases (it never rises with N)",
        "decreasing in N",
        f"largest rise from one simulated N to the next: {pct_of(worst[3])} "
        f"({worst[0]}, N={worst[2]}, SF={worst[1]:.1f})",
        f"no rise over {SF_TOLERANCE:.0%}",
        ok,
        f"the simulated speedup rises by {worst[3]:.1%} at {worst[0]}, N={worst[2]}, SF={worst[1]:.1f}",
        kind="independent",
    )


def claims(rows: list) -> list:
    """Every claim, one function per figure or statement of the thesis, in the document's order:
    per machine Fig. 6.1, the bound and Fig. 6.2, then the statements over every machine."""
    control = [r for r in rows if r["machine"] == CONTROL and r["n"] <= r["nsc"]]
    rows = [r for r in rows if r["machine"] != CONTROL]
    by_machine = {m: [r for r in rows if r["machine"] == m] for m in MACHINES}
    out = []
    for machine in MACHINES:
        pts = by_machine[machine]
        out += [_figure_6_1(pts), _eq_6_13_bound(pts), _figure_6_2(pts)]
    return out + [
        _eq_6_13_without_numa(control),
        _speedup_at_least_one(rows),
        _beyond_nsc(rows),
        _speedup_is_sf_up_to_nfc(rows),
        _speedup_falls_past_nfc(by_machine),
    ]


# ---- figures


def _panels(ncols, nrows=1):
    # A Figure of its own, not pyplot's: no global state (a caller's backend or open figures).
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3.0 * ncols, 2.8 * nrows))
    return fig, fig.subplots(nrows, ncols, sharey="row", squeeze=False)


def figure_6_1(ctx) -> None:
    nfc, nsc = _nfc_nsc("2fc-8sc")
    fig, axes = _panels(len(SF_VALUES))
    ns = list(range(1, nsc + 1))
    for ax, sf in zip(axes[0], SF_VALUES):
        ax.plot(ns, [busyfcs_speedup(sf, n, nfc) for n in ns], "o-", label="BusyFCs, eq. 6.13")
        ax.plot(ns, [utility_factor(sf, n, nfc) for n in ns], "s--", label="UF, eq. 6.14")
        ax.set_title(f"SF_avg = {sf:.1f}")
        ax.set_xlabel("threads")
        ax.set_xticks(ns)
    axes[0][0].set_ylabel("speedup over all-slow")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    ctx.figure(
        fig,
        "fig6-1",
        "Redraws the Sáez thesis's Fig. 6.1: the theoretical speedup of BusyFCs (eq. 6.13) "
        "and the Utility Factor (eq. 6.14) on 2FC-8SC for perfectly balanced applications of SF_avg 1.2 "
        "to 2.0, from our evaluation of both formulas.",
    )


def figure_6_2(ctx, rows, machines, stem, caption) -> None:
    sfs = sorted({r["sf"] for r in rows})
    fig, axes = _panels(len(sfs), len(machines))
    for i, machine in enumerate(machines):
        for ax, sf in zip(axes[i], sfs):
            pts = sorted((r for r in rows if r["machine"] == machine and r["sf"] == sf), key=lambda r: r["n"])
            ns = [r["n"] for r in pts]
            ax.plot(ns, [r["sim"] for r in pts], "o", label="BusyFCs, simulated")
            ax.plot(ns, [r["uf"] for r in pts], "s--", label="UF, eq. 6.14")
            ax.plot(ns, [r["model"] for r in pts], ":", color="gray", label="eq. 6.13")
            nsc = pts[0]["nsc"]
            if max(ns) > nsc:
                ax.axvline(nsc + 0.5, color="red", linewidth=0.8, linestyle="-.")
            ax.set_title(f"{machine}, SF_avg = {sf:.1f}", fontsize=9)
            ax.set_xlabel("threads")
            ax.set_xticks([n for n in ns if n == 1 or n % 2 == 0])
        axes[i][0].set_ylabel("speedup over all-slow")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    ctx.figure(fig, stem, caption)


def figure_errors(ctx, rows) -> None:
    """UF's relative error per point, against eq. 6.13 (top) and against the simulated speedup
    (bottom): one panel per machine, one line per SF."""
    fig, axes = _panels(len(MACHINES), 2)
    for j, machine in enumerate(MACHINES):
        pts = [r for r in rows if r["machine"] == machine]
        for sf in sorted({r["sf"] for r in pts}):
            series = sorted((r for r in pts if r["sf"] == sf), key=lambda r: r["n"])
            ns = [r["n"] for r in series]
            for i, key in enumerate(("uf_vs_model", "uf_vs_sim")):
                axes[i][j].plot(ns, [100 * r[key] for r in series], "o-", markersize=3, label=f"SF {sf:.1f}")
        nsc = pts[0]["nsc"]
        for i, against in enumerate(("eq. 6.13", "simulated")):
            ax = axes[i][j]
            ax.axhspan(-100 * POINT_TOLERANCE, 100 * POINT_TOLERANCE, color="green", alpha=0.08)
            if max(r["n"] for r in pts) > nsc:
                ax.axvline(nsc + 0.5, color="red", linewidth=0.8, linestyle="-.")
            ax.set_title(f"{machine}: UF vs {against}", fontsize=9)
            ax.set_xlabel("threads")
            ax.set_xticks(sorted({r["n"] for r in pts if r["n"] == 1 or r["n"] % 2 == 0}))
        axes[0][j].set_ylim(-15, 15)
    for i in range(2):
        axes[i][0].set_ylabel("UF error (%)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    ctx.figure(
        fig,
        "errors",
        "UF's relative error per point (ours; the Sáez thesis gives no numbers for Figs. 6.1 "
        "and 6.2): against eq. 6.13 (top) and against the simulated BusyFCs speedup (bottom); the shaded "
        "band is the per-point tolerance, right of the red line more threads than slow cores.",
    )


# ---- the document


def _points_table(rows, machine) -> str:
    pts = [r for r in rows if r["machine"] == machine]
    sfs = sorted({r["sf"] for r in pts})
    header = ["N"] + [f"SF {sf:.1f}: sim / eq. 6.13 / UF (UF err vs sim)" for sf in sfs]
    nsc = pts[0]["nsc"]
    rows = []
    for n in sorted({r["n"] for r in pts}):
        cells = [f"{n}{' (> NSC)' if n > nsc else ''}"]
        for sf in sfs:
            r = next(r for r in pts if r["n"] == n and r["sf"] == sf)
            cells.append(f"{r['sim']:.3f} / {r['model']:.3f} / {r['uf']:.3f} ({pct_of(r['uf_vs_sim'])})")
        rows.append(cells)
    return markdown_table(header, rows, "r" * len(header))


def build(ctx):
    plan = QUICK if ctx.quick else FULL
    rows = measure(ctx, plan)
    figure_6_1(ctx)
    figure_6_2(
        ctx,
        rows,
        ["2fc-8sc"],
        "fig6-2",
        "Redraws the Sáez thesis's Fig. 6.2 (UF against the speedup observed under BusyFCs on 2FC-8SC) "
        "with our simulated synthetic applications in place of SPEC OMP2001, NAS and MineBench; eq. 6.13 "
        "dotted; right of the red line there are more threads than slow cores, outside the model.",
    )
    figure_6_2(
        ctx,
        rows,
        ["1fc-12sc", "4fc-12sc-mf"],
        "fig6-2-more-machines",
        "The comparison of the Sáez thesis's Fig. 6.2 on the thesis's other ch. 6 configurations, 1FC-12SC "
        "and 4FC-12SC (not in the thesis): simulated BusyFCs speedup, UF and eq. 6.13.",
    )
    figure_errors(ctx, [r for r in rows if r["machine"] != CONTROL])
    example_sf, example_n = plan["sf"][0], plan["threads"][2]
    example = next(r for r in rows if r["machine"] == "2fc-8sc" and r["sf"] == example_sf and r["n"] == example_n)
    mpkis = "; ".join(
        f"{m}: "
        + ", ".join(
            f"SF {sf:.1f} -> {next(r['mpki'] for r in rows if r['machine'] == m and r['sf'] == sf):.3f}"
            for sf in plan["sf"]
        )
        for m in MACHINES
    )
    seeds = plan["seeds"]
    workloads = f"""Workloads: generated by this reproduction (`python/ampsched/reproductions/thesis_uf.py`, `workload_toml`), one per
machine, SF and thread count N: the perfectly balanced application of the thesis's model (§6.1.1), N threads
running {plan["phases"]} phases of {PHASE_INSTRUCTIONS:.0e} instructions each (CPI {CPI}), every phase ended by a blocking
barrier. SF is set by the phase's LLC miss rate: memory stalls do not scale with the clock (docs/model.md, "The
performance model"), so a miss rate lowers a thread's SF from the cores' compute ratio (2.0 here: fast cores run
at twice the slow cores' clock) to the target; the rate is solved from three single-threaded calibration runs
per machine (`calibrate`), and the tests check that one thread's simulated SF is the target. Miss rates (per
kilo-instruction): {mpkis}. The example for 2FC-8SC, SF {example_sf:.1f}, N={example_n}:

```toml
{workload_toml(f"uf-sf{example_sf:.1f}-n{example_n}", example_n, plan["phases"], PHASE_INSTRUCTIONS, example["mpki"]).strip()}
```

Control machine: `{CONTROL}`, generated by this reproduction: {CONTROL_OF} without its memory nodes (see Notes).

Policies: `busyfcs`, and the base configuration of the thesis's speedups, "where only slow cores are used"
(§6.1): `SlowOnly` in `python/ampsched/reproductions/_policies.py`, which confines every thread to the slow
cores. Our speedup is T_base / T_busyfcs (makespans, mean over seeds {seeds}); machine × SF × N × policy × seed
runs through `ampsched.sweep`."""
    own_gap = abs(utility_factor(2.0, 3, 2) / busyfcs_speedup(2.0, 3, 2) - 1)
    notes = f"""- **Model values chosen.** No model value was changed to match the thesis. The new machine `2fc-8sc`
  keeps AMD-8's clocks (2.2 / 1.1 GHz, Table 3.2) and chip (4 cores per 2 MB L3 and memory node); AMD-8 has 8 cores,
  so the thesis's ten cannot all be on it and the file says how we placed them. Memory latencies (100 ns local,
  115 ns remote) are the catalog's AMD values; the miss rates above follow from them and the target SF.
- **Why simulated points differ from eq. 6.13.** The model ignores migrations (§6.1.1: "the formula approximates
  an upper bound"); our runs pay each migration's cost (50 µs) and, on these NUMA machines, remote memory while a
  thread runs away from the chip it first ran on: a thread moved to a fast core on another chip has a lower SF
  there, the more so the more memory-bound it is (low SF). BusyFCs's choice of the slow thread to move (least
  fast-core time) spreads fast-core time over phases, where the model's slowest thread is the last one moved.
  The control machine `{CONTROL}` ({CONTROL_OF} with one memory node, generated by this reproduction) isolates the
  memory effect: there the simulated speedups are eq. 6.13's (claim `eq613-is-busyfcs-without-numa`). The thesis's
  BusyFCs is topology-aware (§5.2.4: it prefers a core in the thread's own LLC domain); ours is not, but on
  1FC-12SC the fast core is alone on its chip, so every move to it leaves the thread's memory node anyway.
- **More threads than slow cores.** The model assumes N <= NSC (§6.1.1). On 2FC-8SC, N = 9 to 12 is outside it:
  those points are shown (marked "> NSC") but kept out of the N <= NSC claims; the thesis's own remark that the
  formula "should remain accurate" there is the claim `uf-beyond-nsc-2fc-8sc`. The base configuration then
  time-shares the slow cores.
- **Tolerances** ("closely" in numbers, chosen before any simulated point was seen): {TOLERANCE}, because the
  thesis calls its own worst gap between eq. 6.14 and eq. 6.13 close ({own_gap:.2%}: UF {utility_factor(2.0, 3, 2):.3f}
  against {busyfcs_speedup(2.0, 3, 2):.3f} at SF 2.0 with one thread past two fast cores); eq. 6.13 as an upper bound
  holds if no simulated speedup exceeds it by over {BOUND_TOLERANCE:.0%} (a 4 ms slice against phases of about a
  second or more).
- **Figures' values.** The thesis gives no values for Fig. 6.1 or Fig. 6.2, only that UF closely approximates
  eq. 6.13 and closely tracks the observed speedup: our figures redraw them from our numbers."""
    sections = [
        (
            "Every point",
            "Per machine: rows N, columns SF; each cell is our simulated BusyFCs speedup / "
            "eq. 6.13 / UF, and UF's relative error against the simulated speedup.\n\n"
            + "\n\n".join(f"**{m}**\n\n{_points_table(rows, m)}" for m in MACHINES)
            + f"\n\n**{CONTROL}** (the control: {CONTROL_OF} with one memory node)\n\n{_points_table(rows, CONTROL)}",
        ),
        ("Notes", notes),
    ]
    return Report(claims=claims(rows), machines=list(MACHINES), workloads=workloads, sections=sections)
