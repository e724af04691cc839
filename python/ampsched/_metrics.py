"""The metrics ampsched reports, in one place.

The package docstring, the CLI tables and the HTML report (column order, which way is
better, glossary) all read this table, so a definition cannot drift between them.
"""

# name -> (which way is better, definition). The order is the column order of the tables: ANTT
# first, which means something under constant load too (makespan there is the longest program's
# invented length, CONSTANT_LOAD_NOTE).
METRICS = {
    "antt": ("lower", "average normalized turnaround time: the mean slowdown over the apps."),
    "makespan_s": ("lower", "time from the start until the last app finishes, in seconds."),
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
    "idle_while_waiting_s": (
        "lower",
        "core-seconds during which a core sat idle while some runnable thread waited for a core "
        "(at any moment, at most as many cores as threads wait; whatever the threads' affinities, "
        "so a policy that binds threads away from idle cores shows here).",
    ),
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


# A policy is flagged where its cores sat idle while threads waited for more than this share of
# the run's core-time (cores x makespan_s). 10%, from the demo (`ampsched compare`, hh1 on
# 2fc-2sc-amd): policies that leave placement to the local scheduler stay at 0; those that bind
# some threads pay its delays (an idle core pulls a queued thread only at its next balance, and
# never a running one): ipc-driven 1.6%, machine-wide WASH 5.7%; a policy whose affinities strand
# threads beside idle cores is far above: bindVM 50%, WASH per runtime (scope=runtime) 75%.
IDLE_FLAG_SHARE = 0.10


def idle_share(result: dict):
    """The share of the run's core-time (cores x makespan) during which a core sat idle while a
    thread waited for one; None where the result does not say."""
    idle, makespan, cores = result.get("idle_while_waiting_s"), result.get("makespan_s"), result.get("cores")
    if idle is None or not makespan or not cores:
        return None
    return idle / (len(cores) * makespan)


def _placements(result: dict) -> tuple:
    """What makes two results the same schedule: every app's turnaround, every thread's CPU time
    and time on fast cores."""
    apps = tuple(a.get("turnaround_s") for a in result.get("apps", []))
    threads = tuple((t.get("cpu_s"), t.get("fast_s")) for t in result.get("threads", []))
    return apps, threads


def same_as(results: list) -> list:
    """Per result, the policy of the first earlier result with identical per-app and per-thread
    results (the same placements on this workload), else None."""
    seen, out = {}, []
    for r in results:
        key = _placements(r)
        out.append(seen.get(key))
        seen.setdefault(key, r.get("policy"))
    return out


def compare_notes(results: list) -> list:
    """The notes under a comparison: policies left out (they cannot run this workload), rows
    identical to an earlier one and why, and policies that left cores idle while threads waited."""
    notes = []
    for left in (results[0].get("left_out") or []) if results else []:
        notes.append(f"{left.get('policy')} left out: it cannot run this workload ({left.get('why')})")
    for r, first in zip(results, same_as(results)):
        if first is not None:
            notes.append(
                f"{r.get('policy')}: same placements as {first} on this workload "
                "(every app's turnaround and every thread's CPU and fast-core time are equal)"
            )
    for r in results:
        share = idle_share(r)
        if share is not None and share > IDLE_FLAG_SHARE:
            notes.append(
                f"{r.get('policy')}: cores sat idle while threads waited for {share:.0%} of the core-time "
                f"(idle_while_waiting_s {r['idle_while_waiting_s']:.1f}; flagged above {IDLE_FLAG_SHARE:.0%})"
            )
    return notes
