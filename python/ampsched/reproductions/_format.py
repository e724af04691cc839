"""What the reproductions share to compute and show their numbers: the geometric mean, signed
percentages and points, a claim judged by a condition, links to the catalog and the markdown
tables of their documents.

One place for them, so that every document writes a percentage, a verdict or a table the same
way. Tables are our own writer, not pandas' DataFrame.to_markdown: that needs the tabulate
package, which is not a dependency of ampsched, and pads the cells into aligned columns, which
would rewrite every committed document.
"""

import statistics

from . import Claim


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


def judge(cid, source, claim, theirs, ours, tolerance, ok, reason) -> Claim:
    """A claim reproduced when `ok`, else differing for `reason` (kept only then: a reproduced
    claim carries none)."""
    return Claim(cid, source, claim, theirs, ours, tolerance, verdict(ok), "" if ok else reason)


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
