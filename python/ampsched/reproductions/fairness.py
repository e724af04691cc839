"""fairness: Kim & Huh's fair scheduling on asymmetric multicores ("Exploring the Design Space of Fair Scheduling
Supports for Asymmetric Multicore Systems", IEEE Transactions on Computers 2018): every number the paper states
outside its §4 design-space study (which `fairness-study` reproduces).

Two parts:

- the ideal model (§5, Figs. 2 and 3): the share model (`ampsched.fairness`, the Rust model the policies use) on
  every six-app mix, with repetition, of the emulated platform's programs, their efficiencies the engine's (each
  program's solo instruction rate on a fast core over a slow one, as the runs below report them);
- the engine (§7, Figs. 5-12): the 14 six-app mixes of the emulated AMP (`kimhuh-2f4s`, online efficiency
  estimation) and the 9 four-app mixes of big.LITTLE (`odroid-xu3-lite`, offline efficiencies and fixed shares, as
  §7.1 ran it) under max-perf, max-fair and Table 5's grid of min-fair, uni-fair, sim-fair and combined-fair under
  the three bases (462 and 297 experiments), and the prior schedulers Table 2 only describes.
"""

import itertools
import math
import random
import time

from . import Claim, Report, policy_roles
from ._format import catalog_links, judge, judge_number, judge_numbers, markdown_table, pct_change

TITLE = (
    "Fair scheduling on asymmetric multicores: max-perf, max-fair, min-fair, uni-fair, sim-fair, combined-fair "
    "(Kim & Huh, IEEE TC 2018, §5, §7, Figs. 2, 3, 5-12)"
)
PAPER = (
    "Kim & Huh (Changdae Kim, Jaehyuk Huh: Exploring the Design Space of Fair Scheduling Supports for Asymmetric "
    "Multicore Systems, IEEE Transactions on Computers 2018)"
)
SUMMARY = """Kim & Huh (IEEE TC 2018) schedule threads on an asymmetric multicore by their fast-core shares: max-fair gives
every thread the same slowdown or speedup from a base performance (fair share, slow cores only or fast cores only),
max-perf gives the fast cores to the most efficient threads, and between them min-fair guarantees a minimum of
normalised performance (minF), uni-fair a uniformity (1 - sigma/mu), sim-fair shares fast cores among threads of similar
efficiency and combined-fair does all three; efficiencies are measured online by making every thread run on both core
types in every 2 s interval. Here: the paper's ideal-model claims from our share model (§5, Figs. 2-3, including its
sensitivity to 10% estimation error), then its platform results from the engine on Table 4's mixes (§7, Figs. 5-12):
max-perf's gains, the targets met, the throughput given up, the estimation error and the scheduler's cost, with
Table 5's grid of parameters under the three bases. The §4 design-space study is `fairness-study`."""

EMU, BL = "kimhuh-2f4s", "odroid-xu3-lite"
MACHINES = (EMU, BL)
PLATFORM = {EMU: "emulated AMP", BL: "big.LITTLE"}
# Table 4, in its order (the catalog's workload is PREFIX + the key).
MIXES = {
    EMU: {
        "hhh": "HHH",
        "mmm": "MMM",
        "lll": "LLL",
        "same": "SAME",
        "mll": "MLL",
        "mml": "MML",
        "hmm": "HMM",
        "hhm": "HHM",
        "hml-a": "HML.a",
        "hml-b": "HML.b",
        "hhl-a": "HHL.a",
        "hhl-b": "HHL.b",
        "hll-a": "HLL.a",
        "hll-b": "HLL.b",
    },
    BL: {
        "hh": "HH",
        "mm": "MM",
        "ll": "LL",
        "mla": "MLa",
        "mlb": "MLb",
        "hm-a": "HM.a",
        "hm-b": "HM.b",
        "hl-a": "HL.a",
        "hl-b": "HL.b",
    },
}
PREFIX = {EMU: "kimhuh-emu-", BL: "kimhuh-bl-"}
# The quick version's mixes: every big.LITTLE mix (four apps: cheap) and ten of the emulated AMP's, the first six
# (whose losses §7.3 states) and one of each pair of the others; about four fifths of the runs. Fewer mixes move the
# claims that are extremes or shares over the mixes across the one rule's edge (a third of the runs did: Fig. 10's
# share above 98% on big.LITTLE, Fig. 11's ordering), and the full version costs only about 30 s of CPU.
QUICK_MIXES = {
    EMU: ("hhh", "mmm", "lll", "same", "mll", "mml", "hmm", "hml-a", "hhl-a", "hll-b"),
    BL: tuple(MIXES[BL]),
}
# Same-efficiency mixes (§7.2: "no noticeable throughput gain" under max-perf), SAME apart (+4.3%), and big.LITTLE's
# HM.a apart ("slightly lower" than max-fair); the other mixes are the diverse ones (+3-13%).
SAME_CLASS = {EMU: ("hhh", "mmm", "lll"), BL: ("hh", "mm", "ll")}
SAME_MIX = "same"
HM_A = "hm-a"
# Fig. 7's "first six mixes (HHH ... MML)", whose min-fair losses are "mostly smaller than 2 percent".
FIRST_SIX = tuple(MIXES[EMU])[:6]

BASES = ("fair", "slow", "fast")
# Table 5: per base, sim-fair's similarities, min-fair's minF targets and uni-fair's uniformity targets; the starred
# values (combined-fair's) are STARRED_*. Combined-fair runs with every uniformity target.
SIMILARITIES = (0.2, 0.5)
MIN_TARGETS = {"fair": (0.85, 0.90, 0.95), "fast": (0.40, 0.50, 0.60), "slow": (1.20, 1.40, 1.60)}
UNI_TARGETS = (0.70, 0.80, 0.90)
STARRED_SIMILARITY = 0.2
STARRED_MIN = {"fair": 0.85, "fast": 0.40, "slow": 1.40}
# Table 5's experiments per platform: 11 configurations per base x 3 bases x the mixes (§7.1: 462 and 297).
PAPER_EXPERIMENTS = {EMU: 462, BL: 297}

# The policies this reproduction runs (role -> registered policy).
POLICIES = {
    "max-perf": "max-perf",
    "max-fair": "max-fair",
    "min-fair": "min-fair",
    "uni-fair": "uni-fair",
    "sim-fair": "sim-fair",
    "combined-fair": "combined-fair",
    "scaled-lb": "scaled-lb",
    "r-fair": "r-fair",
    "guaranteed-fairness": "guaranteed-fairness",
}
missing_policies, check_policies = policy_roles("fairness", POLICIES, "Kim & Huh's policies and Table 2's")
# Table 2's prior schedulers, run on the emulated AMP with their defaults (the paper gives no numbers for them).
PRIOR = ("scaled-lb", "r-fair", "guaranteed-fairness")
SEED = 1

# Fig. 5: HML.b and HLL.b on the emulated AMP, three runs each of unaware (the local scheduler alone), static (three
# mappings: the rotations of `bound:offset`, each putting a different pair of apps on the fast cores) and max-fair.
FIG5_MIXES = ("hml-b", "hll-b")
FIG5_SEEDS = (1, 2, 3)
FIG5_POLICIES = {"unaware": ["oblivious"], "static": [f"bound:offset={k}" for k in (0, 2, 4)], "max-fair": None}

# ---- the ideal model (§5, Figs. 2-3)

FAST_CORES = {EMU: 2, BL: 2}
IDEAL_APPS = 6  # Fig. 2's mixes: six apps on 2 fast + 4 slow cores
# Fig. 2's targets: min-fair 80% and 90%, uni-fair 70% and 85% (fair-share base).
IDEAL_MIN = (0.80, 0.90)
IDEAL_UNI = (0.70, 0.85)
# §5.5: "5-20% error was injected"; the claims are for 10%. Our reading, chosen before any result: each estimate off
# by exactly 10%, its sign drawn at random per app and mix (seeded), the shares decided on the estimates and the
# outcome computed with the true efficiencies.
INJECTED_ERROR = 0.10
ERROR_SEED = 2018
# The quick version evaluates every QUICK_STRIDE-th mix of the ideal model.
QUICK_STRIDE = 40
# "Similar to max-perf" (Fig. 2's min-fair 80%), chosen before any result: the median over mixes of min-fair's
# throughput within 2% of max-perf's.
SIMILAR = 0.02

# The claims the quick version judges over fewer mixes and that its means can move across their condition (the tests
# do not hold it to the full version's verdicts on them): Fig. 11's ordering, a mean over ten emulated mixes instead of
# fourteen, reorders two neighbouring targets of one series.
QUICK_ESTIMATES = ("throughput-achievement-falls",)

# ---- conditions for claims stated in words, chosen before any result

# "No noticeable throughput gain": below 1%.
NOTICEABLE = 1.0
# "Without any significant effect on the overall throughput": within 2% of max-perf's.
SIGNIFICANT = 2.0
# Fig. 10: the share of experiments "achieving more than 98% of the target".
ACHIEVED = 0.98
# Fig. 11: mixes where max-perf gains less than this over max-fair (under the base) are left out of the throughput
# achievement (a ratio to a gain of nothing is noise); the section says which.
MIN_GAIN = 0.01
# The scheduler's cost: CPU time per decision, best of COST_REPEATS batches of COST_CALLS calls.
COST_CALLS = 200
COST_REPEATS = 5
# The paper's algorithm-cost figure: combined-fair with uniformity 90%, 180 threads (§7.5).
COST_THREADS = 180


def spec(machine, name, **options) -> str:
    """A policy's spec on MACHINE, options in name order; on big.LITTLE the share policies read the offline
    efficiencies (§7.1: the PMU was not fully supported there, efficiencies were profiled offline)."""
    if machine == BL and name not in ("scaled-lb",):
        options["efficiency"] = "offline"
    return name + "".join(f":{k}={_value(v)}" for k, v in sorted(options.items()))


def _value(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def experiments(machine) -> list:
    """Table 5's grid on MACHINE: (kind, base, parameter label, spec), 11 per base."""
    out = []
    for base in BASES:
        for s in SIMILARITIES:
            out.append(("sim-fair", base, f"similarity {s:g}", spec(machine, "sim-fair", base=base, similarity=s)))
        for t in MIN_TARGETS[base]:
            out.append(("min-fair", base, f"minF {t:.0%}", spec(machine, "min-fair", base=base, target=t)))
        for u in UNI_TARGETS:
            out.append(("uni-fair", base, f"uniformity {u:.0%}", spec(machine, "uni-fair", base=base, target=u)))
        for u in UNI_TARGETS:
            out.append(
                (
                    "combined-fair",
                    base,
                    f"combined U {u:.0%}",
                    spec(
                        machine,
                        "combined-fair",
                        base=base,
                        similarity=STARRED_SIMILARITY,
                        min_target=STARRED_MIN[base],
                        uni_target=u,
                    ),
                )
            )
    return out


def baselines(machine) -> dict:
    """{"max-perf": spec, ("max-fair", base): spec}."""
    out = {"max-perf": spec(machine, "max-perf")}
    for base in BASES:
        out[("max-fair", base)] = spec(machine, "max-fair", base=base)
    return out


def _core():
    import ampsched

    return ampsched._require_core()


def system(ts) -> tuple:
    """(throughput, minF, uniformity) of per-app throughputs, as the model computes them."""
    return _core().fairness_metrics([float(t) for t in ts])


# ---- the engine's runs


class Runs:
    """One platform's runs: per (spec, mix) each app's turnaround, solo time and true efficiency."""

    def __init__(self, machine, df):
        self.machine = machine
        apps = df.attrs["apps"]
        self.apps = {}
        for (policy, workload), g in apps.groupby(["policy", "workload"], sort=True):
            self.apps[(policy, workload)] = g.sort_values("app").reset_index(drop=True)
        self.runs = {(r.policy, r.workload): r for r in df.itertuples()}

    def times(self, policy, mix) -> dict:
        g = self.apps[(policy, PREFIX[self.machine] + mix)]
        return dict(zip(g["app"], g["turnaround_s"]))

    def base_time(self, mix, base) -> dict:
        """Each app's time at its base performance: fair share, its time under max-fair (fair base), the paper's
        normalisation (Fig. 5); fast only, its solo time on a fast core with the whole LLC; slow only, that times its
        true efficiency (its solo time on a slow core). The paper pinned each app in the mix to a core of the type
        instead (§7.1), so its fast- and slow-only bases include the mix's cache sharing and ours do not."""
        if base == "fair":
            return self.times(spec(self.machine, "max-fair", base="fair"), mix)
        g = self.apps[(spec(self.machine, "max-fair", base=base), PREFIX[self.machine] + mix)]
        solo = dict(zip(g["app"], g["solo_s"]))
        if base == "fast":
            return solo
        return {a: solo[a] * e for a, e in zip(g["app"], g["efficiency_true"])}

    def t(self, policy, mix, base) -> list:
        """Each app's throughput T_i = base time / time (§2.4), in app order."""
        times, ref = self.times(policy, mix), self.base_time(mix, base)
        return [ref[a] / times[a] for a in sorted(times)]

    def metrics(self, policy, mix, base) -> tuple:
        return system(self.t(policy, mix, base))


def run_platforms(ctx, mixes) -> dict:
    runs = {}
    for machine in MACHINES:
        specs = [e[3] for e in experiments(machine)] + list(baselines(machine).values())
        if machine == EMU:
            specs += list(PRIOR)
        workloads = [PREFIX[machine] + m for m in mixes[machine]]
        runs[machine] = Runs(machine, ctx.sweep([machine], workloads, sorted(set(specs)), [SEED]))
    return runs


def evaluate(runs, mixes) -> dict:
    """Per platform: the baselines' metrics per (base, mix) and every experiment's metrics and achievements."""
    out = {}
    for machine, r in runs.items():
        base_specs = baselines(machine)
        perf, fair = {}, {}
        for base in BASES:
            for mix in mixes[machine]:
                perf[(base, mix)] = r.metrics(base_specs["max-perf"], mix, base)
                fair[(base, mix)] = r.metrics(base_specs[("max-fair", base)], mix, base)
        rows = []
        for kind, base, label, s in experiments(machine):
            for mix in mixes[machine]:
                m = r.metrics(s, mix, base)
                mf, mp = fair[(base, mix)], perf[(base, mix)]
                achievements = []
                target = _target(s)
                if kind == "min-fair":
                    achievements.append(m[1] / min(target["target"], mf[1]))
                elif kind == "uni-fair":
                    achievements.append(m[2] / min(target["target"], mf[2]))
                elif kind == "combined-fair":
                    achievements.append(m[1] / min(target["min_target"], mf[1]))
                    achievements.append(m[2] / min(target["uni_target"], mf[2]))
                gain = mp[0] - mf[0]
                rows.append(
                    dict(
                        kind=kind,
                        base=base,
                        label=label,
                        spec=s,
                        mix=mix,
                        metrics=m,
                        achievements=achievements,
                        # §7.4's throughput achievement, (T - T_max-fair) / (T_max-perf - T_max-fair).
                        throughput_achievement=(m[0] - mf[0]) / gain if gain >= MIN_GAIN else math.nan,
                    )
                )
        out[machine] = dict(perf=perf, fair=fair, rows=rows)
    return out


def _target(s) -> dict:
    return {k: float(v) for k, v in (p.split("=") for p in s.split(":")[1:]) if k.endswith("target")}


# ---- the ideal model


def program_efficiencies(runs) -> dict:
    """{program: true efficiency} on the emulated AMP, from the apps of its max-fair runs (solo profiles)."""
    r = runs[EMU]
    out = {}
    for (policy, _), g in r.apps.items():
        if policy != spec(EMU, "max-fair", base="fair"):
            continue
        for app, e in zip(g["app"], g["efficiency_true"]):
            out[app.split("#")[0]] = float(e)
    return dict(sorted(out.items()))


def ideal(efficiencies, quick) -> dict:
    """Every six-app mix (with repetition) of the programs: the fair-share metrics of max-perf, min-fair, uni-fair and
    sim-fair, and of min-fair and uni-fair decided on estimates INJECTED_ERROR off."""
    core = _core()
    names = sorted(efficiencies)
    mixes = list(itertools.combinations_with_replacement(names, IDEAL_APPS))
    if quick:
        mixes = mixes[::QUICK_STRIDE]
    rng = random.Random(ERROR_SEED)
    c = [1.0] * IDEAL_APPS
    configs = {"max-perf": {}, "max-fair": {}}
    configs.update({f"min-fair {t:.0%}": {"policy": "min-fair", "target": t} for t in IDEAL_MIN})
    configs.update({f"uni-fair {u:.0%}": {"policy": "uni-fair", "target": u} for u in IDEAL_UNI})
    configs.update({f"sim-fair {s:g}": {"policy": "sim-fair", "similarity": s} for s in SIMILARITIES})
    noisy = [k for k in configs if k.startswith(("min-fair", "uni-fair"))]
    out = {k: [] for k in configs}
    out.update({f"{k}, {INJECTED_ERROR:.0%} error": [] for k in noisy})
    for mix in mixes:
        e = [efficiencies[n] for n in mix]
        est = [x * (1 + INJECTED_ERROR * rng.choice((-1, 1))) for x in e]
        for label, kw in configs.items():
            kw = {"policy": label, **kw}
            res = core.fairness_shares(e, c, FAST_CORES[EMU], "fair", **kw)
            out[label].append(res[3:6])
            if label in noisy:
                res = core.fairness_shares(est, c, FAST_CORES[EMU], "fair", e_true=e, **kw)
                out[f"{label}, {INJECTED_ERROR:.0%} error"].append(res[3:6])
    return {"mixes": len(mixes), "of": math.comb(len(names) + IDEAL_APPS - 1, IDEAL_APPS), "programs": names, **out}


def ideal_claims(model) -> list:
    claims = []
    n = f"{model['mixes']:,} mixes"
    worst_min = {t: min(m[1] for m in model[f"min-fair {t:.0%}"]) for t in IDEAL_MIN}
    ok = all(worst_min[t] >= t - 1e-9 for t in IDEAL_MIN)
    claims.append(
        judge(
            "ideal-min-fair-meets-targets",
            "§5.1, Fig. 2a/2d/2g",
            "In the ideal model min-fair(80%) and min-fair(90%) always meet their minF",
            "always",
            f"lowest minF over {n}: " + ", ".join(f"{worst_min[t]:.3f} at {t:.0%}" for t in IDEAL_MIN),
            "minF >= target in every mix",
            ok,
            "a mix misses its target",
            kind="by construction",
        )
    )
    ratios = sorted(a[0] / p[0] for a, p in zip(model["min-fair 80%"], model["max-perf"]))
    median = ratios[len(ratios) // 2]
    claims.append(
        judge(
            "ideal-min-fair-80-throughput",
            "§5.1, Fig. 2a",
            "min-fair(80%) reaches a throughput similar to max-perf's",
            "similar",
            f"median min-fair(80%) / max-perf throughput {median:.3f} over {n}",
            f"median within {SIMILAR:.0%} of max-perf",
            median >= 1 - SIMILAR,
            f"min-fair(80%) gives up {1 - median:.1%} of max-perf's throughput in the median mix",
            kind="independent",
        )
    )
    worst_uni = {u: min(m[2] for m in model[f"uni-fair {u:.0%}"]) for u in IDEAL_UNI}
    claims.append(
        judge(
            "ideal-uni-fair-meets-targets",
            "§5.2, Fig. 2b/2e/2h",
            "In the ideal model uni-fair(70%) and uni-fair(85%) meet their uniformity targets",
            "always",
            f"lowest uniformity over {n}: " + ", ".join(f"{worst_uni[u]:.3f} at {u:.0%}" for u in IDEAL_UNI),
            "uniformity >= target in every mix",
            all(worst_uni[u] >= u - 1e-9 for u in IDEAL_UNI),
            "a mix misses its target",
            kind="by construction",
        )
    )
    err = f"{INJECTED_ERROR:.0%} error"
    broken_min = max(max(0.0, (t - m[1]) / t) for t in IDEAL_MIN for m in model[f"min-fair {t:.0%}, {err}"]) * 100
    broken_uni = max(max(0.0, (u - m[2]) / u) for u in IDEAL_UNI for m in model[f"uni-fair {u:.0%}, {err}"]) * 100
    for cid, what, theirs, ours, fig in (
        ("ideal-error-min-fair", "min-fair's minF guarantee", 3.4, broken_min, "min-fair 80% and 90%"),
        ("ideal-error-uni-fair", "uni-fair's uniformity guarantee", 5.6, broken_uni, "uni-fair 70% and 85%"),
    ):
        claims.append(
            judge_number(
                cid,
                "§5.5, Fig. 3",
                f"With 10% error injected in the efficiencies, {what} is broken by up to {theirs}%",
                f"up to {theirs}%",
                f"up to {ours:.1f}% below the target ({fig}, {n}, each estimate 10% off)",
                value=theirs,
                ours_value=ours,
                unit="%",
                kind="independent",
                reason="the paper does not say how its error was drawn nor over which mixes; ours: each estimate "
                "exactly 10% off with a random sign, over the emulated platform's programs",
            )
        )
    return claims


# ---- the engine's claims


def _mix_name(machine, mix) -> str:
    return f"{MIXES[machine][mix]}{'' if machine == EMU else ' (big.LITTLE)'}"


def _gain(ev, machine, mix) -> float:
    """max-perf's system throughput over max-fair's under the fair-share base, in %."""
    return (ev[machine]["perf"][("fair", mix)][0] - 1) * 100


def platform_claims(ev, runs, mixes, quick) -> list:
    claims = []
    grid = {m: len(experiments(m)) * len(mixes[m]) for m in MACHINES}
    full = {m: len(experiments(m)) * len(MIXES[m]) for m in MACHINES}
    claims.append(
        judge(
            "table5-experiments",
            "Table 5, §7.1",
            "Table 5's parameters make 462 experiments on the emulated AMP and 297 on big.LITTLE",
            "462 and 297",
            f"{full[EMU]} and {full[BL]}" + (f" (the quick version runs {grid[EMU]} and {grid[BL]})" if quick else ""),
            "equal",
            full[EMU] == PAPER_EXPERIMENTS[EMU] and full[BL] == PAPER_EXPERIMENTS[BL],
            "the grid differs from Table 5",
            kind="by construction",
        )
    )
    # Fig. 6: max-perf over max-fair.
    same = {(m, x): _gain(ev, m, x) for m in MACHINES for x in SAME_CLASS[m] if x in mixes[m]}
    noticed = [k for k, g in same.items() if g >= NOTICEABLE]
    claims.append(
        judge(
            "max-perf-same-class",
            "§7.2, Fig. 6",
            "max-perf gives no noticeable throughput gain on the same-efficiency mixes (HHH, MMM, LLL; HH, MM, LL)",
            "no noticeable gain",
            "gains " + ", ".join(f"{_mix_name(*k)} {pct_change(1 + g / 100)}" for k, g in same.items()),
            f"every gain below {NOTICEABLE:g}%",
            not noticed,
            "max-perf gains on "
            + ", ".join(_mix_name(*k) for k in noticed)
            + ": the two programs of the same class differ enough in efficiency in our catalog for max-perf to gain",
            kind="independent",
        )
    )
    diverse = [
        (m, x)
        for m in MACHINES
        for x in mixes[m]
        if x not in SAME_CLASS[m] and x != SAME_MIX and not (m == BL and x == HM_A)
    ]
    gains = {(m, x): _gain(ev, m, x) for m, x in diverse}
    low, high = min(gains, key=gains.get), max(gains, key=gains.get)
    lo, hi = gains[low], gains[high]
    claims.append(
        judge_numbers(
            "max-perf-diverse",
            "§7.2, Fig. 6",
            "max-perf raises system throughput by 3-13% on the diverse mixes",
            "+3% to +13%",
            f"{pct_change(1 + lo / 100)} ({_mix_name(*low)}) to {pct_change(1 + hi / 100)} ({_mix_name(*high)}) over "
            f"{len(gains)} mixes of both platforms",
            values=(3.0, 13.0),
            ours_values=(lo, hi),
            bounds=("at least", "at most"),
            unit="%",
            kind="independent",
            reason=f"max-perf gains only {pct_change(1 + lo / 100)} on {_mix_name(*low)}: its programs' efficiencies "
            "are closer together in our catalog than the mix's classes suggest",
        )
    )
    if SAME_MIX in mixes[EMU]:
        g = _gain(ev, EMU, SAME_MIX)
        claims.append(
            judge_number(
                "max-perf-same",
                "§7.2, Fig. 6",
                "max-perf gains 4.3% on SAME (gcc x 6), from gcc's phases of differing efficiency",
                "+4.3%",
                pct_change(1 + g / 100),
                value=4.3,
                ours_value=g,
                unit="%",
                kind="independent",
                reason="max-perf gains less from our gcc's phases than the paper's: its phases differ less in "
                "efficiency, or the six copies run them more in step",
            )
        )
    if HM_A in mixes[BL]:
        g = _gain(ev, BL, HM_A)
        claims.append(
            judge(
                "max-perf-hm-a",
                "§7.2, Fig. 6",
                "On big.LITTLE, max-perf is slightly below max-fair on HM.a (GemsFDTD x 2 bound to one L2 cluster)",
                "slightly lower",
                pct_change(1 + g / 100),
                "below 0",
                g < 0,
                "max-perf gains on HM.a: in our model the two GemsFDTD copies bound to the A15 cluster keep more of "
                "their fast-core speedup than the cluster's shared L2 costs them",
                kind="independent",
            )
        )
    # §7.3: max-perf's minF on the emulated AMP ("degrades minimum fairness up to 60 percent").
    worst = min(ev[EMU]["perf"][("fair", x)][1] for x in mixes[EMU])
    claims.append(
        judge_number(
            "max-perf-minf-degradation",
            "§5.1, §7.3, Fig. 7",
            "On the emulated AMP, max-perf degrades minimum fairness by up to 60%",
            "up to 60%",
            f"up to {(1 - worst) * 100:.0f}% (lowest minF {worst:.2f})",
            value=60.0,
            ours_value=(1 - worst) * 100,
            unit="%",
            kind="independent",
            reason="the paper's wording is ambiguous (degrade by 60% or to 60%, §9 of our notes) and its Fig. 1 gives "
            "0.54 as the lowest minF of any mix; ours reads it as minF = 1 - 0.6",
        )
    )
    # Fig. 7: min-fair's throughput cost against max-perf, fair-share base.
    losses = {}
    for row in ev[EMU]["rows"]:
        if row["kind"] == "min-fair" and row["base"] == "fair":
            mp = ev[EMU]["perf"][("fair", row["mix"])][0]
            losses.setdefault(row["mix"] in FIRST_SIX, []).append((1 - row["metrics"][0] / mp) * 100)
    first, rest = losses.get(True, []), losses.get(False, [])
    small = sum(x < 2 for x in first)
    claims.append(
        judge(
            "min-fair-loss-first-six",
            "§7.3, Fig. 7",
            "min-fair (85/90/95%) loses mostly less than 2% throughput against max-perf on the first six mixes (HHH-MML)",
            "mostly < 2%",
            f"{small} of {len(first)} below 2% (largest {max(first):.1f}%)",
            "more than half below 2%",
            2 * small > len(first),
            "min-fair gives up more throughput on these mixes",
            kind="independent",
        )
    )
    claims.append(
        judge_number(
            "min-fair-loss-rest",
            "§7.3, Fig. 7",
            "On the other mixes (H and L apps together) min-fair loses up to 6% throughput against max-perf",
            "up to 6%",
            f"up to {max(rest):.1f}%",
            value=6.0,
            ours_value=max(rest),
            unit="%",
            kind="independent",
            reason="the required shares of our L programs cost a different part of the H programs' gain",
        )
    )
    # Fig. 9: sim-fair.
    sims = [r for r in ev[EMU]["rows"] if r["kind"] == "sim-fair" and r["base"] == "fair"]
    moved = [r for r in sims if abs(r["metrics"][0] / ev[EMU]["perf"][("fair", r["mix"])][0] - 1) * 100 > SIGNIFICANT]
    lower_u = [r for r in sims if r["metrics"][2] < ev[EMU]["perf"][("fair", r["mix"])][2] - 1e-9]
    claims.append(
        judge(
            "sim-fair-effect",
            "§7.3, Fig. 9",
            "sim-fair improves uniformity without any significant effect on throughput, except for two cases",
            "two exceptions",
            f"throughput moved by more than {SIGNIFICANT:g}% in {len(moved)} of {len(sims)} cases; uniformity "
            f"below max-perf's in {len(lower_u)}",
            f"at most two cases beyond {SIGNIFICANT:g}% and uniformity never below max-perf's",
            len(moved) <= 2 and not lower_u,
            "throughput moves in "
            + ", ".join(f"{MIXES[EMU][r['mix']]} at {r['label'].split()[-1]}" for r in moved)
            + "; uniformity falls below max-perf's in "
            + ", ".join(f"{MIXES[EMU][r['mix']]} at {r['label'].split()[-1]}" for r in lower_u)
            + " (online estimates regroup near-equal efficiencies from interval to interval)",
            kind="independent",
        )
    )

    # Fig. 10: target achievement.
    def achievements(machine, bases=BASES):
        return [a for r in ev[machine]["rows"] if r["base"] in bases for a in r["achievements"]]

    for cid, machine, bases, worst_paper, share_paper, what in (
        ("achievement-emulated", EMU, BASES, 95.0, 97.0, "the emulated AMP"),
        ("achievement-big-little", BL, BASES, 88.0, 87.0, "big.LITTLE (all bases)"),
        ("achievement-big-little-fair", BL, ("fair",), 93.0, 97.0, "big.LITTLE, fair-share base"),
    ):
        a = achievements(machine, bases)
        w, share = min(a) * 100, sum(x > ACHIEVED for x in a) / len(a) * 100
        low = min(
            (r for r in ev[machine]["rows"] if r["base"] in bases and r["achievements"]),
            key=lambda r: min(r["achievements"]),
        )
        where = f"{low['kind']} {low['label']} under the {low['base']} base on {MIXES[machine][low['mix']]}"
        claims.append(
            judge_number(
                f"{cid}-worst",
                "§7.4, Fig. 10",
                f"Fairness targets are met with a worst-case achievement of {worst_paper:g}% on {what}",
                f"{worst_paper:g}%",
                f"{w:.1f}% over {len(a)} target checks ({where})",
                value=worst_paper,
                ours_value=w,
                unit="%",
                kind="independent",
                reason=f"our worst case is {where}; the Target achievement section gives each base's and policy's",
            )
        )
        claims.append(
            judge_number(
                f"{cid}-above-98",
                "§7.4, Fig. 10",
                f"{share_paper:g}% of the experiments on {what} achieve more than 98% of their target",
                f"{share_paper:g}%",
                f"{share:.0f}%",
                value=share_paper,
                ours_value=share,
                unit="%",
                kind="independent",
                reason=f"{100 - share:.0f}% of our target checks end below {ACHIEVED:.0%} of the target, most under the "
                "fast- and slow-only bases (the paper's explanation of its own big.LITTLE values, §7.4: a base "
                "measured apart from the mix leaves out its cache sharing)",
            )
        )

    # Fig. 11: throughput achievement.
    def mean_ta(machine, kind, base, label):
        xs = [
            r["throughput_achievement"]
            for r in ev[machine]["rows"]
            if (r["kind"], r["base"], r["label"]) == (kind, base, label) and not math.isnan(r["throughput_achievement"])
        ]
        return sum(xs) / len(xs) if xs else math.nan

    for cid, claim, theirs, kind, label, values in (
        (
            "throughput-achievement-minf-85",
            "min-fair 85% with the fair-share base loses about 35% of max-perf's throughput gain",
            "about 35%",
            "min-fair",
            "minF 85%",
            (35.0,),
        ),
        (
            "throughput-achievement-uni-70",
            "uni-fair 70% with the fair-share base loses 30-40% of max-perf's throughput gain",
            "30-40%",
            "uni-fair",
            "uniformity 70%",
            (30.0, 40.0),
        ),
    ):
        ta = mean_ta(EMU, kind, "fair", label)
        if math.isnan(ta):
            claims.append(
                Claim(
                    cid,
                    "§7.4, Fig. 11",
                    claim,
                    theirs,
                    f"no mix where max-perf gains {MIN_GAIN:.0%} or more over max-fair",
                    "-",
                    "not comparable",
                    "max-perf gains nothing over max-fair on our emulated AMP's mixes (see max-perf-diverse), so "
                    "there is no gain to keep",
                    "independent",
                )
            )
            continue
        loss = (1 - ta) * 100
        claims.append(
            judge_numbers(
                cid,
                "§7.4, Fig. 11",
                claim,
                theirs,
                f"{loss:.0f}% (emulated AMP, mean over the mixes where max-perf gains)",
                values=values,
                ours_values=(loss,) * len(values),
                bounds=None if len(values) == 1 else ("at least", "at most"),
                unit="%",
                kind="independent",
                reason=f"our {kind} keeps {ta:.0%} of max-perf's gain over max-fair on the mixes where max-perf gains, "
                "more than the paper's; the cause is not measured here",
            )
        )
    falls, rising = [], []
    for machine in MACHINES:
        for base in BASES:
            for kind, labels in (
                ("min-fair", [f"minF {t:.0%}" for t in MIN_TARGETS[base]]),
                ("uni-fair", [f"uniformity {u:.0%}" for u in UNI_TARGETS]),
            ):
                v = [mean_ta(machine, kind, base, lab) for lab in labels]
                if not any(math.isnan(x) for x in v):
                    ok = all(a >= b - 1e-9 for a, b in zip(v, v[1:]))
                    falls.append(ok)
                    if not ok:
                        rising.append(f"{kind} under the {base} base on {PLATFORM[machine]}")
    claims.append(
        judge(
            "throughput-achievement-falls",
            "§7.4, Fig. 11",
            "Higher fairness targets consistently lower the throughput achievement",
            "consistently",
            f"non-increasing in {sum(falls)} of {len(falls)} (platform, base, policy) series"
            + (" (the quick version's mixes)" if quick else ""),
            "every series non-increasing",
            all(falls),
            "a higher target gives a higher mean throughput achievement for " + ", ".join(rising),
            kind="independent",
        )
    )
    # §7.5: estimation error (online, emulated AMP, under max-fair and max-perf).
    errors = {}
    for policy, s in (("max-fair", spec(EMU, "max-fair", base="fair")), ("max-perf", spec(EMU, "max-perf"))):
        for mix in mixes[EMU]:
            g = runs[EMU].apps[(s, PREFIX[EMU] + mix)]
            for app, x in zip(g["app"], g["efficiency_error"]):
                errors[(policy, MIXES[EMU][mix], app)] = float(x) * 100
    mean_err = sum(errors.values()) / len(errors)
    worst = max(errors, key=errors.get)
    max_err = errors[worst]
    for cid, what, theirs, ours in (
        ("estimation-error-mean", "average", 2.54, mean_err),
        ("estimation-error-max", "maximum", 8.82, max_err),
    ):
        claims.append(
            judge_number(
                cid,
                "§7.5, Fig. 12",
                f"The online efficiency estimate's {what} error against the pinned runs is {theirs}%",
                f"{theirs}%",
                f"{ours:.2f}% over {len(errors)} apps (max-fair and max-perf runs)",
                value=theirs,
                ours_value=ours,
                unit="%",
                kind="independent",
                reason=f"the largest error is {worst[2]}'s in {worst[1]} under {worst[0]} ({max_err:.1f}%): an app "
                "whose fast or slow side is its exploration minimum is estimated from little time, and our estimate is "
                "compared with the solo efficiency, which the mix's cache sharing moves",
            )
        )
    return claims


def cost_claims() -> list:
    """The scheduler's cost: CPU time of one decision of the share rule (the model's combined-fair, uniformity 90%,
    the paper's costliest), measured here as best-of batches of thread CPU time and shown as a bound rounded up to a
    power of ten, so that the document does not change from run to run."""
    core = _core()

    def per_call(n):
        e = [1.5 + 2.0 * i / max(1, n - 1) for i in range(n)]
        c = [1.0] * n
        fast = max(1, n // 3)
        best = math.inf
        for _ in range(COST_REPEATS):
            t = time.thread_time_ns()
            for _ in range(COST_CALLS):
                core.fairness_shares(
                    e, c, fast, "fair", "combined-fair", similarity=0.2, min_target=0.85, uni_target=0.9
                )
            best = min(best, (time.thread_time_ns() - t) / COST_CALLS / 1e6)
        return best

    def bound(ms):
        return 10 ** math.ceil(math.log10(max(ms, 1e-4)))

    six, many = bound(per_call(6)), bound(per_call(COST_THREADS))
    return [
        judge_number(
            "scheduler-cost-interval",
            "§7.5",
            "The scheduler uses less than 0.53 ms of CPU per 2 s interval (estimation, policy and system calls)",
            "< 0.53 ms",
            f"under {six:g} ms per decision (6 apps; the share rule through Python, the simulator's estimation is "
            "per event)",
            value=0.53,
            ours_value=six,
            unit="",
            bound="at most",
            kind="independent",
            reason="our decision costs more than the paper's whole interval",
        ),
        judge_number(
            "scheduler-cost-180",
            "§7.5, Fig. 14",
            "combined-fair (uniformity 90%) computes its shares in less than 710 us for 180 threads (on a 0.8 GHz core)",
            "< 0.71 ms",
            f"under {many:g} ms ({COST_THREADS} threads, this machine's CPU, through Python)",
            value=0.71,
            ours_value=many,
            unit="",
            bound="at most",
            kind="independent",
            reason="our rule costs more at 180 threads (sim-fair's grouping is quadratic in the threads)",
        ),
    ]


# ---- Fig. 5: unaware, static and max-fair


def fig5(ctx) -> dict:
    """{scheduler: {mix: [per-app T of each run]}}, T against max-fair's seed-1 run (the paper's normalisation)."""
    fair = spec(EMU, "max-fair", base="fair")
    specs = sorted({fair, "oblivious", *FIG5_POLICIES["static"]})
    df = ctx.sweep([EMU], [PREFIX[EMU] + m for m in FIG5_MIXES], specs, list(FIG5_SEEDS))
    apps = df.attrs["apps"]
    times = {
        key: dict(zip(g["app"], g["turnaround_s"]))
        for key, g in apps.groupby(["policy", "workload", "seed"], sort=True)
    }
    out = {}
    for label, policies in FIG5_POLICIES.items():
        for mix in FIG5_MIXES:
            w = PREFIX[EMU] + mix
            ref = times[(fair, w, FIG5_SEEDS[0])]
            runs = out.setdefault(label, {}).setdefault(mix, [])
            for p in policies or [fair]:
                for seed in FIG5_SEEDS:
                    t = times[(p, w, seed)]
                    runs.append([ref[a] / t[a] for a in sorted(ref)])
    return out


def fig5_claims(f5) -> list:
    fair = [x for mix in FIG5_MIXES for run in f5["max-fair"][mix] for x in run]
    off = max(abs(x - 1) for x in fair) * 100

    def spread(label):
        # Per app, the range of its T over the runs; the largest over the apps and mixes.
        return max(
            max(run[i] for run in f5[label][mix]) - min(run[i] for run in f5[label][mix])
            for mix in FIG5_MIXES
            for i in range(len(f5[label][mix][0]))
        )

    unaware, static = spread("unaware"), spread("static")
    mixes = " and ".join(MIXES[EMU][m] for m in FIG5_MIXES)
    return [
        judge(
            "fig5-max-fair-steady",
            "§7.2, Fig. 5",
            "max-fair gives every app about its base (1) in every run, without any significant random effect",
            "about 1",
            f"every app within {off:.1f}% of 1 over {len(FIG5_SEEDS)} runs ({mixes})",
            f"within {SIGNIFICANT:g}%",
            off <= SIGNIFICANT,
            "max-fair's runs differ from each other: the seeds change the local scheduler's choices",
            kind="independent",
        ),
        judge(
            "fig5-unaware-static-vary",
            "§7.2, Fig. 5",
            "unaware varies from run to run and static with the mapping, much more than max-fair",
            "high variance",
            f"largest range of an app's T: unaware {unaware:.2f}, static {static:.2f}, max-fair {spread('max-fair'):.2f}",
            "unaware's and static's ranges each at least twice max-fair's",
            unaware >= 2 * spread("max-fair") and static >= 2 * spread("max-fair"),
            "unaware's or static's per-app throughputs vary less than twice max-fair's across the runs",
            kind="independent",
        ),
    ]


def fig5_figure(ctx, f5):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 3.8))
    axes = fig.subplots(1, len(FIG5_MIXES), sharey=True)
    for ax, mix in zip(axes, FIG5_MIXES):
        for j, label in enumerate(FIG5_POLICIES):
            for k, run in enumerate(f5[label][mix]):
                xs = [i + (j - 1) * 0.27 + (k - len(f5[label][mix]) / 2) * 0.025 for i in range(len(run))]
                ax.scatter(xs, run, s=10, color=f"C{j}", label=label if k == 0 else None)
        ax.set_xticks(range(len(f5["max-fair"][mix][0])))
        ax.set_xticklabels([f"app {i + 1}" for i in range(len(f5["max-fair"][mix][0]))])
        ax.set_title(MIXES[EMU][mix])
        ax.axhline(1.0, color="black", linewidth=0.6)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("T (normalised to max-fair)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    ctx.figure(
        fig,
        "fig5-baselines",
        "Fig. 5 redrawn (emulated AMP): each app's throughput under unaware (3 seeds), static (3 mappings x 3 seeds) and "
        "max-fair (3 seeds), normalised to max-fair's first run",
    )


# ---- figures


def _bars(ctx, stem, caption, machine, mixes, series, metric_names=("throughput", "minF", "uniformity")):
    """Grouped bars per mix: `series` {label: {mix: (T, minF, U)}}, one panel per metric."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 7.5))
    axes = fig.subplots(len(metric_names), 1, sharex=True)
    labels = list(series)
    width = 0.8 / len(labels)
    xs = range(len(mixes))
    for k, (ax, name) in enumerate(zip(axes, metric_names)):
        for j, label in enumerate(labels):
            ax.bar(
                [x + (j - (len(labels) - 1) / 2) * width for x in xs],
                [series[label][m][k] for m in mixes],
                width,
                label=label,
            )
        ax.set_ylabel(name)
        ax.axhline(1.0, color="black", linewidth=0.6)
        ax.grid(axis="y", alpha=0.3)
    axes[-1].set_xticks(list(xs))
    axes[-1].set_xticklabels([MIXES[machine][m] for m in mixes], rotation=45, ha="right")
    axes[0].legend(ncol=min(len(labels), 4), fontsize=8)
    fig.tight_layout()
    ctx.figure(fig, stem, caption)


def figures(ctx, ev, runs, model, mixes):
    from matplotlib.figure import Figure

    # Fig. 2: the ideal model's CDFs.
    fig = Figure(figsize=(12, 3.8))
    axes = fig.subplots(1, 3)
    for k, name in enumerate(("throughput", "minF", "uniformity")):
        for label in (
            ["max-perf"]
            + [f"min-fair {t:.0%}" for t in IDEAL_MIN]
            + [f"uni-fair {u:.0%}" for u in IDEAL_UNI]
            + [f"sim-fair {s:g}" for s in SIMILARITIES]
        ):
            v = sorted(m[k] for m in model[label])
            axes[k].plot(v, [(i + 1) / len(v) for i in range(len(v))], label=label)
        axes[k].set_xlabel(name)
        axes[k].grid(alpha=0.3)
    axes[0].set_ylabel("fraction of mixes")
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    ctx.figure(
        fig,
        "fig2-ideal",
        f"Fig. 2 redrawn: CDFs over {model['mixes']:,} six-app mixes of the ideal model (fair-share base, 2 fast + 4 slow"
        " cores, the emulated platform's program efficiencies)",
    )
    # Fig. 3: with injected error.
    fig = Figure(figsize=(9, 3.8))
    axes = fig.subplots(1, 2)
    for ax, (k, labels) in zip(
        axes, ((1, [f"min-fair {t:.0%}" for t in IDEAL_MIN]), (2, [f"uni-fair {u:.0%}" for u in IDEAL_UNI]))
    ):
        for label in labels:
            for suffix, style in (("", "-"), (f", {INJECTED_ERROR:.0%} error", "--")):
                v = sorted(m[k] for m in model[label + suffix])
                ax.plot(v, [(i + 1) / len(v) for i in range(len(v))], style, label=label + suffix)
        ax.set_xlabel("minF" if k == 1 else "uniformity")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("fraction of mixes")
    fig.tight_layout()
    ctx.figure(fig, "fig3-error", "Fig. 3 redrawn: the ideal model with each efficiency estimate 10% off (dashed)")
    # Fig. 6: max-perf per mix, both platforms (fair-share base).
    for machine in MACHINES:
        _bars(
            ctx,
            f"fig6-max-perf-{'emulated' if machine == EMU else 'big-little'}",
            f"Fig. 6 redrawn ({PLATFORM[machine]}): max-perf's throughput, minF and uniformity per mix, normalised to "
            "max-fair (fair-share base)",
            machine,
            mixes[machine],
            {"max-perf": {m: ev[machine]["perf"][("fair", m)] for m in mixes[machine]}},
        )
    # Figs. 7-9: min-fair, uni-fair, sim-fair per mix on the emulated AMP (fair-share base).
    for fig_no, kind in ((7, "min-fair"), (8, "uni-fair"), (9, "sim-fair")):
        series = {"max-perf": {m: ev[EMU]["perf"][("fair", m)] for m in mixes[EMU]}}
        for r in ev[EMU]["rows"]:
            if r["kind"] == kind and r["base"] == "fair":
                series.setdefault(f"{kind} {r['label']}", {})[r["mix"]] = r["metrics"]
        _bars(
            ctx,
            f"fig{fig_no}-{kind}",
            f"Fig. {fig_no} redrawn (emulated AMP): {kind} per mix against max-perf, normalised to max-fair (fair-share "
            "base)",
            EMU,
            mixes[EMU],
            series,
        )
    # Fig. 10: CDF of target achievement.
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for machine in MACHINES:
        a = sorted(x for r in ev[machine]["rows"] for x in r["achievements"])
        ax.plot(a, [(i + 1) / len(a) for i in range(len(a))], label=PLATFORM[machine])
    ax.axvline(ACHIEVED, color="grey", linestyle=":")
    ax.set_xlabel("fairness target achievement")
    ax.set_ylabel("fraction of target checks")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    ctx.figure(
        fig,
        "fig10-achievement",
        "Fig. 10 redrawn: CDF of fairness target achievement (min-fair, uni-fair, combined-fair's two targets; every "
        "base)",
    )
    # Fig. 11: throughput achievement per parameter and base.
    fig = Figure(figsize=(12, 6.5))
    axes = fig.subplots(2, 1)
    for ax, machine in zip(axes, MACHINES):
        labels, values = [], []
        for kind, base, label, _ in experiments(machine):
            if kind == "sim-fair":
                continue
            xs = [
                r["throughput_achievement"]
                for r in ev[machine]["rows"]
                if (r["kind"], r["base"], r["label"]) == (kind, base, label)
                and not math.isnan(r["throughput_achievement"])
            ]
            labels.append(f"{base}: {label if kind != 'uni-fair' else 'U ' + label.split()[-1]}")
            values.append(sum(xs) / len(xs) if xs else math.nan)
        ax.bar(range(len(values)), values)
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel(f"throughput achievement\n({PLATFORM[machine]})")
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    ctx.figure(
        fig,
        "fig11-throughput-achievement",
        "Fig. 11 redrawn: throughput achievement (share of max-perf's gain over max-fair kept), mean over mixes, per "
        "parameter and base",
    )
    # Fig. 12: estimation error per mix.
    fig = Figure(figsize=(10, 3.6))
    ax = fig.subplots()
    for j, (label, s) in enumerate(
        (("max-fair", spec(EMU, "max-fair", base="fair")), ("max-perf", spec(EMU, "max-perf")))
    ):
        vals = [runs[EMU].runs[(s, PREFIX[EMU] + m)].efficiency_error * 100 for m in mixes[EMU]]
        ax.bar([x + (j - 0.5) * 0.4 for x in range(len(vals))], vals, 0.4, label=label)
    ax.set_xticks(range(len(mixes[EMU])))
    ax.set_xticklabels([MIXES[EMU][m] for m in mixes[EMU]], rotation=45, ha="right")
    ax.set_ylabel("mean estimation error (%)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    ctx.figure(
        fig, "fig12-estimation-error", "Fig. 12 redrawn (emulated AMP): the online estimate's mean error per mix"
    )


# ---- sections


def _left_out(ev) -> str:
    """The mixes Fig. 11's means leave out under the fair-share base, per platform."""
    parts = []
    for machine in MACHINES:
        mixes = sorted({m for (base, m), v in ev[machine]["perf"].items() if base == "fair" and v[0] - 1 < MIN_GAIN})
        names = ", ".join(MIXES[machine][m] for m in MIXES[machine] if m in mixes) or "none"
        parts.append(f"{PLATFORM[machine]} {names}")
    return "; ".join(parts)


def achievement_section(ev) -> str:
    rows = []
    for machine in MACHINES:
        worst = {}
        for r in ev[machine]["rows"]:
            for a in r["achievements"]:
                key = (r["base"], r["kind"])
                if key not in worst or a < worst[key][0]:
                    worst[key] = (a, r)
        for (base, kind), (a, r) in sorted(worst.items()):
            rows.append([PLATFORM[machine], base, kind, f"{a:.1%}", r["label"], MIXES[machine][r["mix"]]])
    return (
        "Target achievement (§7.4) = value / min(target, the value under max-fair with the same base). The fair-share "
        "base normalises each app to its time under max-fair (so max-fair's values are 1); the fast-only base to its "
        "solo time on a fast core, the slow-only base to that times its efficiency (solo, whole LLC; the paper pinned "
        "the apps within the mix instead, which §7.4 names as the cause of its lower big.LITTLE values). The worst case "
        "per platform, base and policy:\n\n"
        + markdown_table(["platform", "base", "policy", "worst", "parameter", "mix"], rows, "lllrll")
    )


def prior_section(runs, mixes) -> str:
    r = runs[EMU]
    rows = []
    for name in ("max-perf",) + PRIOR:
        s = spec(EMU, name) if name == "max-perf" else name
        ms = [r.metrics(s, m, "fair") for m in mixes[EMU]]
        rows.append(
            [
                name,
                f"{sum(m[0] for m in ms) / len(ms):.3f}",
                f"{min(m[1] for m in ms):.3f}",
                f"{sum(m[1] for m in ms) / len(ms):.3f}",
                f"{sum(m[2] for m in ms) / len(ms):.3f}",
            ]
        )
    return (
        "Table 2 compares scaled load balancing (Li et al.), R%-fair (Kwon et al.) and guaranteed fairness (Van "
        "Craeynest et al.) only in words. Measured here on the emulated AMP's mixes with their defaults "
        "(`ampsched list policies`), against max-fair under the fair-share base:\n\n"
        + markdown_table(["policy", "mean throughput", "lowest minF", "mean minF", "mean uniformity"], rows, "lrrrr")
    )


def build(ctx):
    check_policies(POLICIES)
    mixes = QUICK_MIXES if ctx.quick else {m: tuple(MIXES[m]) for m in MACHINES}
    runs = run_platforms(ctx, mixes)
    ev = evaluate(runs, mixes)
    efficiencies = program_efficiencies(runs)
    model = ideal(efficiencies, ctx.quick)
    f5 = fig5(ctx)
    fig5_figure(ctx, f5)
    figures(ctx, ev, runs, model, mixes)
    claims = ideal_claims(model) + fig5_claims(f5) + platform_claims(ev, runs, mixes, ctx.quick) + cost_claims()
    links = {m: catalog_links("workloads", (PREFIX[m] + x for x in mixes[m])) for m in MACHINES}
    workloads = f"""Table 4's mixes: on `{EMU}` {links[EMU]}; on `{BL}` {links[BL]}. Each letter is two copies of one SPEC
CPU2006 program ([`catalog/programs/spec2006.toml`](../../catalog/programs/spec2006.toml); SAME is six copies of gcc), one
app per core, each app's first completion measured (docs/kimhuh-catalog.md). Seed {SEED}, one run per experiment as in
the paper. On the emulated AMP the policies estimate efficiencies online (`efficiency=online`, forced exploration); on
big.LITTLE they read the offline solo profiles (`efficiency=offline`), as §7.1 ran it.

The ideal model (Figs. 2, 3): {model["mixes"]:,} of the {model["of"]:,} six-app mixes with repetition of the
{len(model["programs"])} programs of the emulated platform's mixes, with their true (solo) efficiencies on `{EMU}`
({", ".join(f"{n} {efficiencies[n]:.2f}" for n in model["programs"])}), 2 fast + 4 slow cores, c = 1, fair-share base.
The paper's Fig. 2 used its 376,740 gem5 mixes of 23 programs (`fairness-study`)."""
    notes = f"""- **Experiments.** Table 5 per base: sim-fair at similarity 0.2 and 0.5, min-fair at the base's three minF
  targets, uni-fair at 70/80/90% uniformity, combined-fair (similarity 0.2, the base's starred minF) at 70/80/90%;
  plus max-perf, max-fair under each base and, on the emulated AMP, Table 2's prior schedulers.
- **Bases of the measured throughputs.** Fair share: each app's time under max-fair (the paper's normalisation,
  Fig. 5); fast only: its solo time on a fast core; slow only: that times its true efficiency.
- **Conditions chosen before any result** for the claims stated in words: "no noticeable gain" below {NOTICEABLE:g}%;
  "no significant effect" within {SIGNIFICANT:g}%; "similar to max-perf" a median within {SIMILAR:.0%}; Fig. 10's
  "achieving" above {ACHIEVED:.0%} of the target. Every number the paper states is judged by the one rule
  (docs/reproductions.md); a range (3-13%) holds each end as a bound.
- **Throughput achievement** (Fig. 11): (T - T_max-fair) / (T_max-perf - T_max-fair) under the experiment's base;
  mixes where max-perf gains less than {MIN_GAIN:.0%} over max-fair are left out (under the fair-share base:
  {_left_out(ev)}).
- **Injected error** (Fig. 3): each estimate exactly {INJECTED_ERROR:.0%} off, its sign random (seed {ERROR_SEED}); the
  shares are decided on the estimates, T computed with the true efficiencies; "broken by x%" is the largest shortfall
  below the target, relative to it.
- **Scheduler cost.** The share rule's CPU time per decision, measured here through Python (an upper bound of the
  rule's own cost), shown rounded up to a power of ten so that the document does not change between runs. Our
  estimation is per event in the simulator (no system calls), so the paper's 0.53 ms covers more than ours.
- **Not here.** Fig. 1 and Table 3 (the §4 design-space study: `fairness-study`); Fig. 4 (the programs'
  efficiencies per mix: docs/kimhuh-catalog.md and bench/kimhuh_efficiency.py); Fig. 13 (the interval's trade-off:
  no number stated); the 2% overhead of max-fair with estimation against native Linux on symmetric cores (Fig. 14):
  on a symmetric machine every core is fast to the engine, so max-fair has no share to enforce and nothing to
  explore, and the simulator charges no CPU for the policy's mechanism, so the runs equal `oblivious`'s by
  construction; the multithreaded prototype (Fig. 15, §7.6): not run."""
    sections = [
        ("Target achievement", achievement_section(ev)),
        ("Table 2's prior schedulers, measured", prior_section(runs, mixes)),
        ("Notes", notes),
    ]
    return Report(claims=claims, machines=list(MACHINES), workloads=workloads, sections=sections)
