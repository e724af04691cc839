"""The metrics ampsched reports, in one place.

The package docstring, the CLI tables and the HTML report (column order, which way is
better, glossary) all read this table, so a definition cannot drift between them.
"""

# name -> (which way is better, definition). The order is the column order of the tables.
METRICS = {
    "makespan_s": ("lower", "time from the start until the last app finishes, in seconds."),
    "antt": ("lower", "average normalized turnaround time: the mean slowdown over the apps."),
    "stp": (
        "higher",
        "system throughput: the sum over the apps of 1/slowdown, "
        "i.e. how many apps' worth of progress the machine makes at once.",
    ),
    "min_fairness": ("higher", "the smallest 1/slowdown over the apps: the progress of the worst-treated app."),
    "uniformity": (
        "higher",
        "1 - sigma/mu of 1/slowdown over the apps (coefficient of variation): 1 means every app is slowed down alike.",
    ),
    "unfairness": ("lower", "the largest slowdown divided by the smallest one (1 is perfectly fair)."),
    "energy_j": (
        "lower",
        "energy consumed by all the cores over the run, in joules (not modelled, null, on a "
        "machine that does not give every core type a power).",
    ),
    "edp": ("lower", "energy-delay product: energy_j x makespan_s."),
    "nj_per_instruction": (
        "lower",
        "energy per instruction retired, in nanojoules: energy_j over all the instructions the machine retired.",
    ),
    "instructions_per_s": ("higher", "throughput: instructions retired per second of the run."),
    "migrations": ("lower", "how many times a thread moved from one core to another."),
    "speedup_vs_baseline": (
        "higher",
        "geometric mean over the apps of the baseline's turnaround "
        "divided by this policy's turnaround (1.0 for the baseline itself).",
    ),
}

# The metrics that need the machine's power model. Where a core type gives no power
# (power_active_w, power_idle_w, power_levels_w) the engine reports them, and each core's energy_j,
# as null: not modelled, rather than a 0 that would look measured. Tables say so in words.
ENERGY_METRICS = ("energy_j", "edp", "nj_per_instruction")
NOT_MODELLED = "not modelled"
ENERGY_NOTE = (
    "energy_j, edp and nj_per_instruction are not modelled: the machine does not give a power "
    "(power_active_w, power_idle_w or power_levels_w) for every core type."
)


def energy_unmodelled(results) -> bool:
    """Whether any of these results has no energy (its machine has no power model)."""
    return any("energy_j" in r and r["energy_j"] is None for r in results)


def shown(result: dict, key: str):
    """A result's value for a table: "not modelled" for an energy metric the machine cannot give."""
    value = result.get(key)
    return NOT_MODELLED if value is None and key in ENERGY_METRICS and key in result else value


# Per-app quantities the metrics above are built from.
APP_TERMS = {
    "turnaround_s": "wall-clock time from an app's start to its end, in seconds.",
    "slowdown": "an app's turnaround divided by its turnaround alone on an all-fast machine "
    "with the same number of cores (1 means no slowdown).",
    "fast_share": "the share of the CPU time that was spent on fast cores.",
}


# Under constant load (the thesis's methodology: an app that finishes restarts until all have
# finished), the run lasts as long as the longest app, whose length the catalog invented: then
# makespan_s, energy_j and edp measure that invention, and the per-instruction and per-second
# metrics, and those built on slowdowns, are the meaningful ones.
CONSTANT_LOAD_NOTE = (
    "Under constant load (apps restart until every app has finished its runs), makespan_s, "
    "energy_j and edp follow the invented program lengths; compare policies by antt, stp, "
    "the fairness metrics, nj_per_instruction and instructions_per_s."
)


def glossary_text() -> str:
    """The definitions as plain text, one per line, for docstrings."""
    terms = {**APP_TERMS, **{name: text for name, (_, text) in METRICS.items()}}
    width = max(map(len, terms))
    return "\n".join(f"    {name.ljust(width)}  {text}" for name, text in terms.items())
