"""Live comparisons: one command run several times under each of several policies
(`ampsched agent --policies a,b --repeat N -- CMD`, `ampsched.agent_compare`).

The runs are interleaved: round r (counted from 0) runs every policy once, in the order given
rotated left by r (policies a,b,c: round 0 runs a b c, round 1 b c a, round 2 c a b). Whatever
drifts over the comparison (a machine warming up, another tenant's load) then falls on every
policy alike, and no policy always runs first after another's (a cold cache, a page cache filled
by the one before).

The functions here are pure (of the agent's reports): the front runs the agent, these order the
runs, turn each report into a row and summarize the rows per policy.
"""

import math
import os
import re

# Runs per policy unless told: the fewest that give a spread and a middle run (the median of
# three is the one neither fast nor slow outlier).
DEFAULT_REPEAT = 3

# What a run's report file name keeps of its policy spec; the rest becomes "_" (a spec may hold
# "/" and ":", as "dir/file.py:Class" does).
_NAME_SAFE = re.compile(r"[^A-Za-z0-9_.=-]+")


def schedule(policies: list, repeat: int) -> list:
    """(round, policy index) of every run, in the order they run (see the module's doc)."""
    k = len(policies)
    return [(r, (r + i) % k) for r in range(repeat) for i in range(k)]


def report_name(run: int, round_: int, label: str) -> str:
    """The file name of a run's report: its number in the comparison (from 1, so that a
    listing sorts in run order), its round and its policy."""
    return f"run{run + 1:03d}-round{round_ + 1}-{_NAME_SAFE.sub('_', label).strip('_') or 'policy'}.json"


def core_types(report: dict) -> list:
    return [t.get("name") for t in (report.get("machine") or {}).get("core_types", [])]


def run_row(run: int, round_: int, label: str, report: dict, path=None) -> dict:
    """One run as a row: what it was, its wall time, and the target threads' CPU time per
    core type (`cpu_<type>_s`: the sum over every thread the agent saw of its time there)."""
    target = report.get("target") or {}
    status = target.get("status") or {}
    row = {
        "run": run + 1,
        "round": round_ + 1,
        "policy": label,
        "wall_s": target.get("wall_s"),
    }
    for name in core_types(report):
        row[f"cpu_{name}_s"] = sum((t.get("time_s") or {}).get(name, 0.0) for t in report.get("threads", []))
    row.update(
        {
            "exit_code": status.get("exit_code"),
            "signal": status.get("signal") or None,
            "decisions": report.get("decisions"),
            "migrations": report.get("migrations"),
            "samples": (report.get("agent") or {}).get("samples"),
            "report": path,
        }
    )
    return row


def measures(rows: list) -> list:
    """The columns summarized: wall time and CPU time per core type, in the rows' order."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    return [k for k in keys if k == "wall_s" or (k.startswith("cpu_") and k.endswith("_s"))]


def spread(values: list) -> dict:
    """Mean, sample standard deviation (n - 1 in the denominator: the runs are a sample of what
    the policy does; None for a single run, which has no spread), min and max."""
    values = [v for v in values if v is not None]
    n = len(values)
    if n == 0:
        return {"mean": None, "sd": None, "min": None, "max": None}
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    return {"mean": mean, "sd": sd, "min": min(values), "max": max(values)}


def summarize(rows: list, labels: list) -> list:
    """Per policy, in the order given: its runs, and for each measure its mean, sd, min and max
    (keys `wall_s_mean`, `wall_s_sd`, ...)."""
    out = []
    for label in labels:
        mine = [r for r in rows if r["policy"] == label]
        entry = {"policy": label, "runs": len(mine), "failed": sum(1 for r in mine if not succeeded(r))}
        for m in measures(rows):
            for stat, value in spread([r.get(m) for r in mine]).items():
                entry[f"{m}_{stat}"] = value
        out.append(entry)
    return out


def succeeded(row: dict) -> bool:
    return row.get("exit_code") == 0


def existing_reports(folder: str, names: list) -> list:
    """Of the report files a comparison would write in `folder`, those already there (as
    anything: a symlink or a directory of that name is refused too)."""
    return [n for n in names if os.path.lexists(os.path.join(folder, n))]
