"""Golden results: what `ampsched run --json` gives, seed 1 and the default slice, for every run
(catalog machine x workload x policy) of the golden grid, kept in two files:

- runs.tsv, the snapshot a reviewer reads: one run a line, sorted, with its key metrics as text
  (the columns below; an error is an output too and is kept as its message). A change of
  results shows in `git diff` as the runs that moved and by how much.
- json.sha256.tsv, the determinism guarantee: the sha256 of the whole JSON output (every app,
  thread and core, not only the key metrics) of a sample of the runs, which must stay
  byte-identical.

A refactoring leaves both unchanged; a change of the model that moves results rewrites them on
purpose, and the commit's diff of runs.tsv shows what moved:

    python tests/golden/capture.py --quick     # check the quick grid and the JSON sample (make test)
    python tests/golden/capture.py             # check every run of the snapshot (make test-all)
    python tests/golden/capture.py --write     # after a deliberate change of results: rewrite both
    python tests/golden/capture.py --write --workloads java-like   # rewrite only these runs
    python tests/golden/capture.py --write --machines 2fc-8sc      # add a new machine's runs
    python tests/golden/capture.py --write --policies hass-s        # add a new policy's runs
    python tests/golden/capture.py --write --listed --policies hass-s   # rewrite only the runs listed
    python tests/golden/capture.py --convert   # move runs of the former hash file here (LEGACY)
    python tests/golden/capture.py --hashes    # after a change of every run's JSON that moves no
                                               # metric (a new key): rewrite the JSON sample's hashes

A check exits 1 and names the runs and metrics that changed (the first MAX_LISTED, then a count).

The grid. `--quick` checks every QUICK_STRIDE-th run (in machine, workload, policy order) of the
quick-eligible runs: the workloads of at most QUICK_THREADS threads on every machine, and the
larger ones (the 16-app sets of the thesis's 4FC-12SC) only where they have a core per thread, as
the thesis ran them, and without the oracle; WASH's Section-3 machines only with the Java
workloads and the WASH family only on the WASH machines and Java workloads. The stride is prime
to the number of policies, so consecutive picks go through every policy and every machine and
workload is checked: 776 runs in about 15 s. The whole check runs every run the snapshot
and the former file (LEGACY) list (30,147; over an hour on 2 CPUs: best-static simulates 64
candidate assignments of a 16-app constant-load workload, and a 16-app workload on a 4-core
machine runs four times as long). The catalog's whole product is larger: the runs of WASH's
Section-3 machines and of the Java workloads outside the quick-eligible grid were captured only
in part (the check counts the missing; `--write --machines ...` adds them).

Precision. Every number is written as Python's repr: the shortest decimal that reads back as the
same double (the digits `ampsched run --json` prints too), so a value a reviewer reads is short,
and a change of one ulp still changes the text. Integers as integers, an energy the machine does
not model as `null`.
"""

import argparse
import hashlib
import json
import re
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SNAPSHOT = os.path.join(HERE, "runs.tsv")
JSON_HASHES = os.path.join(HERE, "json.sha256.tsv")
# The former golden file: the sha256 of each run's whole JSON, one run a line (machine, workload,
# policy, hash), before runs.tsv. `--convert` moves its runs into runs.tsv: it computes each run
# once, checks its JSON's hash against this file and writes its metrics; the runs that match
# leave the file, which is removed when none is left. Until then the whole check compares the
# runs still in it by their hash, so no run goes unchecked meanwhile.
LEGACY = os.path.join(HERE, "run_json.sha256.tsv")
# The keys a run's JSON gained after the former file was written: its hashes are of the JSON
# without them, so a run still in it is compared with its JSON less these (`legacy_sha256`).
ADDED_SINCE_LEGACY = re.compile(r'"idle_while_waiting_s":[^,}]*,')
SEED = 1
SLICE_MS = 4.0
# The key metrics of a run (their meaning: ampsched/_metrics.py), in the snapshot's column order.
METRICS = ("makespan_s", "antt", "stp", "min_fairness", "energy_j", "migrations", "events")
HEADER = "\t".join(("# machine", "workload", "policy", "seed") + METRICS)
ERROR = "error: "  # an error's single field after the seed: its message
# The baselines, then the schedulers of the Sáez thesis, chapters 4, 5 and 6 (their defaults).
POLICIES = [
    "oblivious",
    "static",
    "rr",
    "busyfcs",
    "best-static",
    "hass-s",
    "hass-d",
    "ipc-driven",
    "static-ipc-driven",
    "pa",
    "mintlp",
    "pa-rtx",
    "sfd",
    "camp",
    "pa-uf",
    "wash",
    "bindvm",
    "pfs",
    "max-perf",
    "max-fair",
    "min-fair",
    "uni-fair",
    "sim-fair",
    "combined-fair",
    "scaled-lb",
    "r-fair",
    "guaranteed-fairness",
    "gts",
    "cluster-switch",
    "iks",
    "cluster-bound",
]
QUICK_THREADS = 8
# The quick grid's other limits: WASH's Section-3 machines (one core type each: the
# characterization) only with the Java workloads; the WASH family only on the WASH machines and
# the Java workloads. The whole check covers the rest.
SECTION3_MACHINES = ("phenom-",)
WASH_MACHINES = ("wash-",)
JAVA_WORKLOADS = ("dacapo-",)
WASH_FAMILY = {"wash", "bindvm", "pfs"}
# Kim & Huh's fairness family (and the prior schedulers it is measured against) runs on the
# machines of their paper only (kimhuh-2f4s, kimhuh-gem5-2f4s, odroid-xu3-lite), in the quick grid
# and the whole one alike: its policies share the daemon and the engine's share enforcement, which
# these machines' runs already exercise on every workload, and on all 24 machines the family would
# add some 40,000 runs to the snapshot for no path the others miss.
FAIRNESS_FAMILY = set(POLICIES[POLICIES.index("max-perf") : POLICIES.index("gts")])  # nine of POLICIES
FAIRNESS_MACHINES = ("kimhuh-", "odroid-")
# The big.LITTLE family (the OS schedulers of the big.LITTLE paper's Section III and its Static
# threading) runs on the two big.LITTLE boards only, for the same reason: its local schedulers
# see every workload there, and elsewhere they would add thousands of runs for no new path.
BIGLITTLE_FAMILY = set(POLICIES[POLICIES.index("gts") :])  # the last four of POLICIES
BIGLITTLE_MACHINES = ("exynos5422", "odroid-")
# Issue 29's NoC machines and programs (catalog noc-*: a mesh network, queue spinlocks) are outside the
# grid, so it stays the runs it was: a noc-* workload needs a noc-* machine, and their runs are checked
# by tests/python/test_nocbench_catalog.py and the noc-locks reproduction.
NOC = "noc-"
# Issue 30's machines of today's chips (docs/todays-chips.md) are outside the grid too, so it stays the runs
# it was (with them the quick grid would grow from ~800 runs to ~3,000): their parsing and a run of each
# are checked by tests/python/test_todays_chips.py, their results by the todays-schedulers reproduction.
# Their user-case workloads (catalog today-*) likewise: they are the reproduction's.
TODAYS_WORKLOADS = "today-"
TODAYS_CHIPS = {
    "alder-lake-8p16e",
    "raptor-lake-6p8e",
    "meteor-lake-6p8e2lp",
    "lunar-lake-4p4lpe",
    "apple-m-4p4e",
    "snapdragon-8g3",
    "pixel6",
    "ryzen-7950x3d",
    "pixel6-missorted",
    "hybrid-flat-capacity",
}
# `make test` checks every QUICK_STRIDE-th quick-eligible run: a thirteenth (about 15 s on 2 CPUs
# beside other jobs) keeps the Python tests within their share of the 10 minutes; 13 is prime to
# len(POLICIES) = 31, so the picks rotate through the policies.
QUICK_STRIDE = 13
# The JSON sample: every HASH_STRIDE-th quick-eligible run (about a hundred, a few seconds), chosen
# when the whole snapshot is written and then fixed by json.sha256.tsv itself.
HASH_STRIDE = 97
MAX_LISTED = 20  # a failure lists this many changed runs, then counts the rest


def fmt(value):
    """A metric as the snapshot writes it (see Precision above)."""
    if value is None:
        return "null"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def snapshot_fields(result=None, error=None):
    """A run's fields in the snapshot: its metrics (`result`, the parsed JSON) as text, or an
    error's message as one field (on one line, without tabs)."""
    if error is not None:
        return (ERROR + " ".join(str(error).split()),)
    return tuple(fmt(result[name]) for name in METRICS)


def legacy_sha256(text):
    """The sha256 the former file holds for a run whose JSON is `text` today."""
    return hashlib.sha256(ADDED_SINCE_LEGACY.sub("", text, count=1).encode()).hexdigest()


def one(job):
    """(key, fields, sha256 of the JSON, the former file's form of it: `legacy_sha256`) of one run."""
    import ampsched

    machine, workload, policy = job
    try:
        text = ampsched._core.run(machine, workload, policy, seed=SEED, slice_ms=SLICE_MS, trace=None, timeline=False)
    except Exception as error:  # an error is an output too: it must stay the same
        text = f"ERROR {error}"
        row = snapshot_fields(error=error)
    else:
        row = snapshot_fields(json.loads(text))
    return job, row, hashlib.sha256(text.encode()).hexdigest(), legacy_sha256(text)


def grid(quick=False):
    """The catalog's runs, in machine, workload, policy order; with `quick`, only the
    quick-eligible ones (see above: before the stride)."""
    import ampsched

    core = ampsched._core
    machines = json.loads(core.list_catalog("machines"))
    workloads = json.loads(core.list_catalog("workloads"))

    def quick_eligible(m, w, p):
        if m["name"].startswith(SECTION3_MACHINES) and not w["name"].startswith(JAVA_WORKLOADS):
            return False
        if p in WASH_FAMILY and not (m["name"].startswith(WASH_MACHINES) or w["name"].startswith(JAVA_WORKLOADS)):
            return False
        return w["threads"] <= QUICK_THREADS or (w["threads"] == m["cores"] and p != "best-static")

    def in_grid(m, p):
        if p in FAIRNESS_FAMILY:
            return m["name"].startswith(FAIRNESS_MACHINES)
        return p not in BIGLITTLE_FAMILY or m["name"].startswith(BIGLITTLE_MACHINES)

    return [
        (m["name"], w["name"], p)
        for m in machines
        if not m["name"].startswith(NOC) and m["name"] not in TODAYS_CHIPS
        for w in workloads
        if not w["name"].startswith((NOC, TODAYS_WORKLOADS))
        for p in POLICIES
        if in_grid(m, p) and (not quick or quick_eligible(m, w, p))
    ]


def quick_grid():
    """The runs `make test` checks (see QUICK_STRIDE)."""
    return grid(quick=True)[::QUICK_STRIDE]


def hash_sample():
    """The runs whose JSON bytes a whole --write records (see HASH_STRIDE)."""
    return grid(quick=True)[::HASH_STRIDE]


def compute(jobs_list, jobs=None):
    """[(key, fields, sha256)] of these runs, on `jobs` processes (default: every CPU)."""
    with ProcessPoolExecutor(jobs or os.cpu_count()) as pool:
        return list(pool.map(one, jobs_list, chunksize=4))


def select(runs, workloads=None, machines=None, policies=None):
    return [
        (m, w, p)
        for m, w, p in runs
        if (workloads is None or w in workloads)
        and (machines is None or m in machines)
        and (policies is None or p in policies)
    ]


# ---- the files


def read_snapshot(path=SNAPSHOT):
    """{(machine, workload, policy): fields} of runs.tsv (seed SEED on every line)."""
    table = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            machine, workload, policy, seed, *fields = line.rstrip("\n").split("\t")
            assert seed == str(SEED), f"{path}: {machine} {workload} {policy}: seed {seed}, not {SEED}"
            table[(machine, workload, policy)] = tuple(fields)
    return table


def write_snapshot(table, path=SNAPSHOT):
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        f.writelines("\t".join((*key, str(SEED), *table[key])) + "\n" for key in sorted(table))


def read_hashes(path=JSON_HASHES):
    """{(machine, workload, policy): sha256 of its JSON} of json.sha256.tsv."""
    with open(path) as f:
        return {
            tuple(line.split("\t")[:3]): line.split("\t")[4].strip()
            for line in f
            if line.strip() and not line.startswith("#")
        }


def write_hashes(table, path=JSON_HASHES):
    with open(path, "w") as f:
        f.write("# machine\tworkload\tpolicy\tseed\tsha256 of `ampsched run --json`\n")
        f.writelines(f"{m}\t{w}\t{p}\t{SEED}\t{table[(m, w, p)]}\n" for m, w, p in sorted(table))


def read_legacy(path=LEGACY):
    """{(machine, workload, policy): sha256} of the former golden file ({} once it is gone)."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {tuple(line.split("\t")[:3]): line.split("\t")[3].strip() for line in f if line.strip()}


def write_legacy(table, path=LEGACY):
    if not table:  # every run converted: the former file goes
        if os.path.exists(path):
            os.remove(path)
        return
    with open(path, "w") as f:
        f.writelines(f"{m}\t{w}\t{p}\t{h}\n" for (m, w, p), h in table.items())


def convert(rows):
    """Moves the runs among `rows` whose JSON hash is the former file's into the snapshot;
    returns (the keys moved, the keys whose hash differs, which stay in the former file)."""
    legacy = read_legacy()
    snapshot = read_snapshot() if os.path.exists(SNAPSHOT) else {}
    same = [(key, row) for key, row, _, old in rows if legacy.get(key) == old]
    differ = [key for key, _, _, old in rows if key in legacy and legacy[key] != old]
    snapshot.update(same)
    for key, _ in same:
        del legacy[key]
    write_snapshot(snapshot)
    write_legacy(legacy)
    return [key for key, _ in same], differ


# ---- what changed


def _change(name, old, new):
    try:
        a, b = float(old), float(new)
        relative = f" ({(b - a) / abs(a):+.3g})" if math.isfinite(a) and a != 0.0 else ""
    except ValueError:
        relative = ""
    return f"{name} {old} -> {new}{relative}"


def differences(rows, snapshot=None):
    """One line per run whose metrics are not the snapshot's, naming the run and the metrics
    that changed, among the runs made."""
    snapshot = read_snapshot() if snapshot is None else snapshot
    out = []
    for key, fields, *_ in sorted(rows):
        run = " ".join(key)
        old = snapshot.get(key)
        if old is None:
            out.append(f"{run}: not in the snapshot (add it with --write)")
        elif old != fields:
            if len(old) == len(fields) == len(METRICS):
                changed = [_change(n, a, b) for n, a, b in zip(METRICS, old, fields) if a != b]
            else:  # an error appeared or went away
                changed = [f"{' '.join(old)} -> {' '.join(fields)}"]
            out.append(f"{run}: {', '.join(changed)}")
    return out


def hash_differences(rows, hashes=None, legacy=None):
    """One line per run whose JSON bytes are not the recorded ones: those of the JSON sample
    (`hashes`), or for a run still in the former file (`legacy`), the former file's form of them."""
    hashes = read_hashes() if hashes is None else hashes
    legacy = {} if legacy is None else legacy
    out = []
    for key, _, sha, *old in sorted(rows):
        recorded, now = (hashes[key], sha) if key in hashes else (legacy.get(key), old[0] if old else sha)
        if recorded is not None and recorded != now:
            out.append(f"{' '.join(key)}: the JSON output changed (sha256 {recorded[:12]}... -> {now[:12]}...)")
    return out


def check(runs, jobs=None):
    """Runs `runs` and compares them with the files: (the runs whose metrics changed, the runs
    whose JSON bytes changed, (how many were compared by metrics, how many by bytes)). A run
    still in the former file is compared by its hash there, every other by its metrics, and the
    JSON sample's by their bytes too."""
    legacy, hashes = read_legacy(), read_hashes()
    rows = compute(runs, jobs)
    by_metrics = [row for row in rows if row[0] not in legacy]
    counts = (len(by_metrics), sum(row[0] in hashes or row[0] in legacy for row in rows))
    return differences(by_metrics), hash_differences(rows, hashes, legacy), counts


def summary(lines, what="runs changed"):
    """The failure message: the first MAX_LISTED lines, then how many more."""
    shown = lines[:MAX_LISTED]
    more = f"\n... and {len(lines) - MAX_LISTED} more" if len(lines) > MAX_LISTED else ""
    return f"{len(lines)} {what}:\n" + "\n".join(shown) + more


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the snapshot and the JSON hashes from this build")
    parser.add_argument("--quick", action="store_true", help="check the quick grid (see above)")
    parser.add_argument(
        "--convert",
        action="store_true",
        help="move the runs of the former file, "
        "run_json.sha256.tsv, into runs.tsv where their JSON hash still matches (see LEGACY)",
    )
    parser.add_argument(
        "--hashes",
        action="store_true",
        help="rewrite only the JSON sample's hashes, after checking that no metric of its runs moved",
    )
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument(
        "--workloads",
        help="only these workloads (comma-separated); with --write, their runs are rewritten and the others kept",
    )
    parser.add_argument("--machines", help="only these machines (comma-separated), as --workloads")
    parser.add_argument("--policies", help="only these policies (comma-separated), as --workloads")
    parser.add_argument(
        "--listed",
        action="store_true",
        help="with a partial --write: only the runs the snapshot or the former file list (not the rest of the catalog's grid)",
    )
    args = parser.parse_args()
    if args.write and args.quick:
        parser.error("--write needs every run: leave out --quick")
    if args.convert and (args.write or args.quick):
        parser.error("--convert goes alone (with --machines, --workloads, --policies, --jobs)")
    workloads = None if args.workloads is None else set(args.workloads.split(","))
    machines = None if args.machines is None else set(args.machines.split(","))
    policies = None if args.policies is None else set(args.policies.split(","))
    unknown = sorted(policies - set(POLICIES)) if policies else []
    if unknown:
        parser.error(f"not in the golden grid: {', '.join(unknown)} (add them to POLICIES)")
    partial = workloads is not None or machines is not None or policies is not None
    if args.listed and not (args.write and partial):
        parser.error("--listed goes with a partial --write (--machines, --workloads or --policies)")
    snapshot = read_snapshot() if os.path.exists(SNAPSHOT) else {}
    hashes = read_hashes() if os.path.exists(JSON_HASHES) else {}
    legacy = read_legacy()

    if args.hashes:
        rows = compute(sorted(hashes), args.jobs)
        diff = differences(rows, snapshot)
        if diff:
            print(summary(diff) + "\n(the metrics moved: that is a change of results, for --write)")
            return 1
        write_hashes({key: sha for key, _, sha, _ in rows})
        print(f"{len(rows)} runs with the snapshot's metrics; their JSON hashes rewritten in {JSON_HASHES}")
        return 0

    if args.convert:
        moved, differ = convert(compute(select(list(legacy), workloads, machines, policies), args.jobs))
        if differ:
            print(summary([" ".join(key) for key in differ], "runs' JSON differs from the former file (kept in it)"))
        print(f"{len(moved)} runs identical, moved to {SNAPSHOT}; {len(legacy) - len(moved)} left in {LEGACY}")
        return 1 if differ else 0

    if args.write:
        # A partial rewrite computes the chosen runs of the catalog's grid and keeps the others;
        # a whole one rewrites every run the snapshot lists and picks the JSON sample anew.
        listed = sorted(set(snapshot) | set(legacy))
        todo = (
            select(listed if args.listed else grid(), workloads, machines, policies)
            if partial
            else sorted(set(snapshot) | set(legacy) | set(hash_sample()))
        )
        rows = compute(todo, args.jobs)
        table = dict(snapshot) if partial else {}
        table.update({key: fields for key, fields, *_ in rows})
        write_snapshot(table)
        # A partial write keeps the sample and adds its picks among the runs written (a new
        # policy's, machine's or workload's runs join the sample this way).
        sample = set(hashes) | (set(hash_sample()) & set(todo)) if partial else set(hash_sample())
        new_hashes = {key: h for key, h in hashes.items() if partial}
        new_hashes.update({key: sha for key, _, sha, _ in rows if key in sample})
        write_hashes(new_hashes)
        if legacy:  # a run written anew supersedes its former hash
            write_legacy({key: h for key, h in legacy.items() if key not in table})
        print(
            f"wrote {len(rows)} runs to {SNAPSHOT} ({len(table)} in all) and "
            f"{len(new_hashes)} JSON hashes to {JSON_HASHES}"
        )
        return 0

    # The JSON sample's runs are in the snapshot too: their metrics are checked with the others.
    todo = set(quick_grid()) if args.quick else set(snapshot) | set(legacy)
    diff, moved, counts = check(select(sorted(todo | set(hashes)), workloads, machines, policies), args.jobs)
    if diff:
        print(summary(diff))
    if moved:
        print(summary(moved, "runs' JSON bytes changed"))
    if not args.quick and not partial:
        missing = len(set(grid()) - set(snapshot) - set(legacy))
        if missing:
            print(f"{missing} runs of the catalog's grid are not in the snapshot (see the docstring)")
    (by_metrics, by_bytes), changed = counts, len(moved)
    print(
        f"{by_metrics - len(diff)} of {by_metrics} runs with the snapshot's metrics; "
        f"{by_bytes - changed} of {by_bytes} JSON outputs identical"
    )
    return 1 if diff or moved else 0


if __name__ == "__main__":
    sys.exit(main())
