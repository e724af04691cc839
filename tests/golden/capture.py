"""Golden outputs: the sha256 of `ampsched run --json` for every catalog machine x workload x
policy below, with seed 1 and the default slice. A refactoring must leave every one unchanged;
a change of the model that moves results regenerates the file on purpose:

    python tests/golden/capture.py --write     # after a deliberate change of results
    python tests/golden/capture.py             # check; exit 1 and list what differs
    python tests/golden/capture.py --quick     # check the quick part of the grid (make test)
    python tests/golden/capture.py --write --workloads java-like   # rewrite only these rows
    python tests/golden/capture.py --write --machines 2fc-8sc      # add a new machine's rows
    python tests/golden/capture.py --write --policies hass-s        # add a new policy's rows

`--quick` checks the workloads of at most QUICK_THREADS threads on every machine, and the
larger ones (the 16-app sets of the thesis's 4FC-12SC) only where they have a core per thread,
as the thesis ran them, and without the oracle; WASH's Section-3 machines only with the Java
workloads and the WASH family only on the WASH machines and Java workloads: 900 runs in half a minute, where the whole
grid takes over an hour on 2 CPUs (best-static simulates 64 candidate assignments of a 16-app
constant-load workload, and a 16-app workload on a 4-core machine runs four times as long).
"""
import argparse
import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "run_json.sha256.tsv")
# The baselines, then the schedulers of the Sáez thesis, chapters 4, 5 and 6 (their defaults).
POLICIES = ["oblivious", "static", "rr", "busyfcs", "best-static", "hass-s", "hass-d", "ipc-driven", "static-ipc-driven",
            "pa", "mintlp", "pa-rtx", "sfd", "camp", "pa-uf", "wash", "bindvm", "pfs"]
QUICK_THREADS = 8
# The quick grid's other limits, to keep it to a few minutes on 2 CPUs: WASH's Section-3 machines
# (one core type each: the characterization) only with the Java workloads; the WASH family only on
# the WASH machines and the Java workloads. The whole grid checks the rest.
SECTION3_MACHINES = ("phenom-",)
WASH_MACHINES = ("wash-",)
JAVA_WORKLOADS = ("dacapo-",)
WASH_FAMILY = {"wash", "bindvm", "pfs"}


def one(job):
    import ampsched
    machine, workload, policy = job
    try:
        text = ampsched._core.run(machine, workload, policy, seed=1, slice_ms=4.0, trace=None, timeline=False)
    except Exception as error:  # an error is an output too: it must stay the same
        text = f"ERROR {error}"
    return machine, workload, policy, hashlib.sha256(text.encode()).hexdigest()


def current(jobs=None, quick=False, only=None, machines_only=None, policies_only=None):
    import ampsched
    core = ampsched._core
    machines = json.loads(core.list_catalog("machines"))
    workloads = json.loads(core.list_catalog("workloads"))

    def in_quick(m, w, p):
        if m["name"].startswith(SECTION3_MACHINES) and not w["name"].startswith(JAVA_WORKLOADS):
            return False
        if p in WASH_FAMILY and not (m["name"].startswith(WASH_MACHINES) or w["name"].startswith(JAVA_WORKLOADS)):
            return False
        return w["threads"] <= QUICK_THREADS or (w["threads"] == m["cores"] and p != "best-static")

    grid = [(m["name"], w["name"], p) for m in machines for w in workloads for p in POLICIES
            if (not quick or in_quick(m, w, p)) and (only is None or w["name"] in only)
            and (machines_only is None or m["name"] in machines_only)
            and (policies_only is None or p in policies_only)]
    with ProcessPoolExecutor(jobs or os.cpu_count()) as pool:
        return list(pool.map(one, grid, chunksize=4))


def read_golden():
    with open(GOLDEN) as f:
        return {tuple(line.split("\t")[:3]): line.split("\t")[3].strip() for line in f if line.strip()}


def differences(rows, quick=False):
    """The runs whose output is not the golden one; with `quick`, only among the runs made."""
    golden = read_golden()
    now = {(m, w, p): h for m, w, p, h in rows}
    keys = set(now) if quick else set(golden) | set(now)
    return sorted(k for k in keys if golden.get(k) != now.get(k))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the golden file from this build")
    parser.add_argument("--quick", action="store_true", help="check the quick part of the grid (see above)")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--workloads", help="only these workloads (comma-separated); with --write, "
                        "their rows are rewritten and the others kept")
    parser.add_argument("--machines", help="only these machines (comma-separated), as --workloads")
    parser.add_argument("--policies", help="only these policies (comma-separated), as --workloads")
    args = parser.parse_args()
    if args.write and args.quick:
        parser.error("--write needs every run: leave out --quick")
    only = None if args.workloads is None else set(args.workloads.split(","))
    machines = None if args.machines is None else set(args.machines.split(","))
    policies = None if args.policies is None else set(args.policies.split(","))
    unknown = sorted(policies - set(POLICIES)) if policies else []
    if unknown:
        parser.error(f"not in the golden grid: {', '.join(unknown)} (add them to POLICIES)")
    rows = current(args.jobs, args.quick, only, machines, policies)
    partial = only is not None or machines is not None or policies is not None
    if args.write:
        # A partial rewrite keeps the other rows, and every row its place in the grid's order.
        table = {} if not partial else read_golden()
        table.update({(m, w, p): h for m, w, p, h in rows})
        with open(GOLDEN, "w") as f:
            f.writelines(f"{m}\t{w}\t{p}\t{h}\n" for (m, w, p), h in table.items())
        print(f"wrote {len(rows)} hashes to {GOLDEN}")
        return 0
    diff = differences(rows, args.quick or partial)
    for key in diff:
        print("differs:", " ".join(key))
    print(f"{len(rows) - len(diff)} of {len(rows)} outputs identical")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
