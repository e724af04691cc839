"""What the reproductions share to compute and show their numbers: the geometric mean, signed
percentages and points, a claim judged by a condition, links to the catalog and the markdown
tables of their documents.

One place for them, so that every document writes a percentage, a verdict or a table the same
way. Tables are our own writer, not pandas' DataFrame.to_markdown: that needs the tabulate
package, which is not a dependency of ampsched, and pads the cells into aligned columns, which
would rewrite every committed document.
"""

import statistics

from . import UNCLASSIFIED, Claim


def geomean(xs) -> float:
    """The geometric mean of positive numbers (any iterable): the papers' mean of normalised
    times and speedups. statistics.geometric_mean: exp of the mean of the logs, summed with
    fsum (so the same whatever the order). A zero, a negative or no value is an error (a time or
    a ratio of times is never zero: one is a bug upstream), as statistics says before Python
    3.13, which returns 0 for a zero."""
    xs = list(xs)
    if not xs or min(xs) <= 0:
        raise ValueError(f"geometric mean of {xs!r}: it needs at least one value, every one positive")
    return statistics.geometric_mean(xs)


def pct(x: float) -> str:
    """A value already in percent, signed with one decimal: 12.34 -> "+12.3%"."""
    return f"{x:+.1f}%"


def pct_of(fraction: float) -> str:
    """A fraction as a signed percentage with one decimal: 0.1234 -> "+12.3%"."""
    return pct(fraction * 100)


def pct_change(ratio: float) -> str:
    """A ratio (new over old) as the change it is, in percent: 1.05 -> "+5.0%", 0.9 -> "-10.0%"."""
    return pct((ratio - 1) * 100)


def points(x: float) -> str:
    """A number of percentage points: 1 -> "1 point", 2.5 -> "2.5 points"."""
    return f"{x:g} point{'' if x == 1 else 's'}"


def verdict(ok: bool) -> str:
    """A claim's verdict when its condition is met or not ("not comparable" is said outright)."""
    return "reproduced" if ok else "differs"


def judge(cid, source, claim, theirs, ours, tolerance, ok, reason, kind=UNCLASSIFIED) -> Claim:
    """A claim reproduced when `ok`, else differing for `reason` (kept only then: a reproduced
    claim carries none); `kind`, one of EVIDENCE. For a claim whose paper states a number, use
    `judge_number`: the one tolerance rule judges it."""
    return Claim(cid, source, claim, theirs, ours, tolerance, verdict(ok), "" if ok else reason, kind)


# ---- the one tolerance rule, for every claim whose paper states a number
#
# A claim's number is reproduced when ours is within 25% of theirs or within 1.5 percentage
# points, whichever is larger, and on the same side of zero (a stated gain is not reproduced by
# a loss, however small). The floor is for small numbers: 25% of a 2% gain is 0.5 points, less
# than a run-to-run spread. A bound ("at most 6%") is held to the same allowance on its one side.
# Units:
# - "%": percentages and percentage points (a gain of 12.5% is 12.5);
# - "x": a ratio (a speedup, an SF), judged on its gain over 1 in percent (2.2 is +120%), so
#   that 1.05 and 1.02 compare as the 5% and 2% gains they are;
# - "": any other quantity (ms, W, a count): 25% of it, no floor.
RELATIVE_TOLERANCE = 0.25
FLOOR_POINTS = 1.5
UNITS = ("%", "x", "")
# Rounding slack: a number exactly at the allowance's edge agrees whatever the float error of
# converting it (1.9 as a ratio is a gain of 89.99999999999999 points).
_EDGE = 1e-9
BOUNDS = (None, "at most", "at least")


def _as_points(x: float, unit: str) -> float:
    if unit not in UNITS:
        raise ValueError(f"tolerance rule: unit {unit!r} is not one of {UNITS}")
    return (x - 1) * 100 if unit == "x" else x


def allowance(theirs: float, unit: str = "%") -> float:
    """How far ours may be from `theirs` (in points for "%" and "x", in the unit otherwise)."""
    t = _as_points(theirs, unit)
    return max(RELATIVE_TOLERANCE * abs(t), FLOOR_POINTS if unit else 0.0)


def agrees(theirs: float, ours: float, unit: str = "%", bound=None) -> bool:
    """Whether `ours` reproduces `theirs` by the one rule (`bound`: None, "at most" or "at least")."""
    if bound not in BOUNDS:
        raise ValueError(f"tolerance rule: bound {bound!r} is not one of {BOUNDS}")
    t, o, a = _as_points(theirs, unit), _as_points(ours, unit), allowance(theirs, unit)
    if bound == "at most":
        return o <= t + a + _EDGE
    same_side = t == 0 or (o > 0) == (t > 0)
    if bound == "at least":
        return o >= t - a - _EDGE and same_side
    return abs(o - t) <= a + _EDGE and same_side


def rule_text(theirs: float, unit: str = "%", bound=None) -> str:
    """The tolerance cell of a claim judged by the rule: the allowance it gives `theirs`."""
    a = allowance(theirs, unit)
    amount = f"{a:.3g} points" if unit else f"{a:.3g}"
    if bound is None:
        return f"rule: within {amount} of theirs, same sign"
    return f"rule: {bound} theirs {'+' if bound == 'at most' else '-'} {amount}" + (
        ", same sign" if bound == "at least" else ""
    )


def judge_number(cid, source, claim, theirs, ours, *, value, ours_value, unit, kind, reason, bound=None) -> Claim:
    """A claim whose paper states a number (`value`; `theirs` as the paper words it), held to
    the one rule against `ours_value` (`ours` as shown), in `unit`; `kind`, one of EVIDENCE."""
    ok = agrees(value, ours_value, unit, bound)
    return Claim(
        cid, source, claim, theirs, ours, rule_text(value, unit, bound), verdict(ok), "" if ok else reason, kind, True
    )


def judge_numbers(cid, source, claim, theirs, ours, *, values, ours_values, unit, kind, reason, bounds=None) -> Claim:
    """A claim whose paper states several numbers (four workloads' gains; a range's two ends, with
    `bounds` ("at least", "at most")): each of `values` held to the one rule against the same place
    of `ours_values`, reproduced when every one agrees; `bounds`, one per value (default none)."""
    bounds = (None,) * len(values) if bounds is None else tuple(bounds)
    if not len(values) == len(ours_values) == len(bounds):
        raise ValueError(f"claim {cid}: {len(values)} values, {len(ours_values)} of ours, {len(bounds)} bounds")
    ok = all(agrees(v, o, unit, b) for v, o, b in zip(values, ours_values, bounds))
    rules = "; ".join(dict.fromkeys(rule_text(v, unit, b).removeprefix("rule: ") for v, b in zip(values, bounds)))
    return Claim(
        cid, source, claim, theirs, ours, f"rule, each: {rules}", verdict(ok), "" if ok else reason, kind, True
    )


# Student's t distribution's 0.975 quantiles for 1 to 30 degrees of freedom (NIST/SEMATECH
# e-Handbook of Statistical Methods, §1.3.6.7.2, "Critical values of the Student's t
# distribution"): the half-width of a two-sided 95% confidence interval of a mean, in standard errors.
T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def ci95(xs, runs=None) -> float:
    """The half-width of the 95% confidence interval of the mean of `runs` runs (default: as many
    as `xs`), relative to the mean, in %: t(0.975, runs - 1) * s / sqrt(runs) / mean, s the sample
    standard deviation of `xs` (with fewer values than runs, an estimate of the runs' spread)."""
    xs = list(xs)
    runs = len(xs) if runs is None else runs
    if len(xs) < 2 or not 2 <= runs <= len(T_975) + 1:
        raise ValueError(f"ci95: {len(xs)} values for {runs} runs (2 or more values, 2 to {len(T_975) + 1} runs)")
    return 100.0 * T_975[runs - 2] * statistics.stdev(xs) / runs**0.5 / statistics.fmean(xs)


# ---- spread: the papers' "the observed variance was small in most cases"


def seed_spreads(apps) -> dict:
    """{(machine, workload, policy, app): the relative standard deviation of the app's completion
    time over the seeds, %} from a sweep's per-app table (df.attrs["apps"]): the sample standard
    deviation over the mean. A case run with fewer than two seeds has no spread and is left out."""
    keys = ["machine", "workload", "policy", "app"]
    g = apps.groupby(keys)["turnaround_s"]
    cv = (100.0 * g.std(ddof=1) / g.mean()).dropna()
    return {k: float(v) for k, v in cv.items()}


def judge_spread(cid, source, claim, theirs, spreads, below, label, kind, reason) -> Claim:
    """A paper's "the observed variance was small in most cases" against `spreads` (from
    `seed_spreads`): reproduced when more than half of the cases have a spread below `below`
    percent; `label(key)` names a case; `reason`, the measured cause should it differ (may be empty).
    No case (one seed) is not comparable: no spread is measured."""
    if not spreads:
        return Claim(
            cid,
            source,
            claim,
            theirs,
            "one seed: no spread",
            "-",
            "not comparable",
            "one seed: no spread to measure",
            kind,
        )
    small = sum(v < below for v in spreads.values())
    worst = max(spreads, key=spreads.get)
    ours = (
        f"{small} of {len(spreads)} app x scheduler x workload cases below {below:g}%; median "
        f"{statistics.median(spreads.values()):.2f}%, largest {spreads[worst]:.1f}% ({label(worst)})"
    )
    why = f"the spread is {below:g}% or more in {len(spreads) - small} of {len(spreads)} cases" + (
        f": {reason}" if reason else ""
    )
    return judge(
        cid, source, claim, theirs, ours, f"below {below:g}% in more than half", 2 * small > len(spreads), why, kind
    )


# ---- a parameter the paper swept: "we picked the value that delivered the best overall performance"


def overall_gain(pairs) -> float:
    """The geometric mean over workloads of each one's speedup (the geometric mean over its apps
    of T_base / T), minus 1, in %; `pairs`: one (base {app: time}, {app: time}) per workload."""
    return 100.0 * (geomean(geomean(base[a] / t[a] for a in base) for base, t in pairs) - 1)


def judge_best_of_sweep(cid, source, claim, theirs, gains, chosen, what, kind, reason) -> Claim:
    """A paper's "we swept the parameter and chose `chosen`" against `gains` (value -> our overall
    gain, %): reproduced when `chosen`'s gain is the best, or within the one rule's allowance of
    the best (the best taken as theirs). `what` says what the gains are; `reason(best)`, the
    measured cause should it differ."""
    best = max(gains, key=gains.get)
    ours = f"{what}: " + ", ".join(f"{v} {pct(g)}" for v, g in gains.items()) + f"; best {best}"
    tolerance = (
        f"{chosen} the best, or within the one rule's allowance of the best ({allowance(gains[best]):.3g} points)"
    )
    why = f"{best} gives {pct(gains[best])} against {chosen}'s {pct(gains[chosen])}: {reason(best)}"
    return judge(cid, source, claim, theirs, ours, tolerance, agrees(gains[best], gains[chosen]), why, kind)


def catalog_link(kind: str, name: str) -> str:
    """A markdown link to catalog file KIND/NAME.toml, relative to docs/reproduction/, where
    `make reproduce` writes: the link works on a forge and in a checkout alike, and the text does
    not depend on the output directory."""
    return f"[`{name}`](../../catalog/{kind}/{name}.toml)"


def catalog_links(kind: str, names) -> str:
    """Links to catalog files KIND/NAME.toml, comma-separated."""
    return ", ".join(catalog_link(kind, name) for name in names)


# Markdown column alignment: "l" the default (text), "r" right (numbers).
_RULE = {"l": "---", "r": "---:"}


def markdown_table(header, rows, align=None) -> str:
    """A markdown table: `header` and each of `rows` a sequence of cell texts, `align` one
    letter per column ("l" or "r", default all "l"). No padding: the cells as given, between
    "| " and " |", one row a line (`read_claims` reads the claims table back by that layout)."""
    align = align or "l" * len(header)
    if len(align) != len(header) or any(len(row) != len(header) for row in rows):
        widths = sorted({len(row) for row in rows})
        raise ValueError(f"markdown table: {len(header)} columns, {len(align)} alignments, rows of {widths} cells")
    lines = ["| " + " | ".join(header) + " |", "|" + "".join(_RULE[a] + "|" for a in align)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
