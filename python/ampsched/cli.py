"""The `ampsched` command: list the catalog, run one policy, compare several.

Errors in what the user gave (the engine's InputError, bad paths, bad values) end in one
line `ampsched: error: ...` on stderr and exit status 2, never a traceback: the user has
nothing to debug, only something to fix. A traceback is kept for real bugs.
"""

import argparse
import json
import math
import os
import sys

import ampsched
from ._console import ProgressBar, format_table
from ._metrics import METRICS
from .report import write_report

KINDS = ("machines", "workloads", "policies", "programs")


class UsageError(Exception):
    """Bad input found by the CLI itself; reported like the engine's InputError."""


# ---- argument types: argparse turns their errors into its usual usage message, exit 2

def _seed(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value < 2 ** 64:  # the engine takes a u64; outside it PyO3 would raise OverflowError
        raise argparse.ArgumentTypeError(f"must be between 0 and 2^64-1: {text}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number: {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ampsched",  # not "__main__.py" under `python -m ampsched`
        description="Schedule threads on asymmetric multicore processors: simulate and compare policies.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("list", help="list catalog machines, workloads, policies or programs")
    p.add_argument("kind", choices=KINDS)
    p.add_argument("--json", action="store_true", help="print the engine's JSON list (with sources) and nothing else")
    p.set_defaults(handler=_cmd_list)

    def common(p):
        p.add_argument("--seed", type=_seed, default=1, help="random seed (default 1)")
        p.add_argument("--slice-ms", type=_positive_float, default=4.0, metavar="MS",
                       help="scheduling time slice in milliseconds (default 4)")
        p.add_argument("--json", action="store_true", help="print the engine's JSON result and nothing else")

    p = sub.add_parser("run", help="simulate a workload on a machine under one policy")
    p.add_argument("--machine", required=True, metavar="M", help="catalog name or TOML file")
    p.add_argument("--workload", required=True, metavar="W", help="catalog name or TOML file")
    p.add_argument("--policy", required=True, metavar="P", help='policy spec "name[:key=value...]"')
    common(p)
    p.add_argument("--trace", metavar="FILE", help="also write a Chrome/Perfetto trace JSON to FILE")
    p.set_defaults(handler=_cmd_run)

    p = sub.add_parser("compare", help="simulate several policies and compare them "
                                       "(with no arguments: the built-in demo)")
    p.add_argument("--machine", metavar="M", help="catalog name or TOML file")
    p.add_argument("--workload", metavar="W", help="catalog name or TOML file")
    p.add_argument("--policies", metavar="P1,P2,...", help="comma-separated policy specs")
    p.add_argument("--baseline", metavar="P", help="policy the speedups are relative to (default: the first)")
    common(p)
    p.add_argument("--report", metavar="FILE", help="also write a self-contained HTML report to FILE")
    p.set_defaults(handler=_cmd_compare)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)  # usage errors: argparse prints them and exits 2
    input_errors = (UsageError, OSError) + ((ampsched._core.InputError,) if ampsched._core else ())
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        return 130  # the user asked to stop: no traceback, the usual 128 + SIGINT
    except BrokenPipeError:
        # The reader went away (`ampsched list policies | head`); silence the final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except input_errors as error:
        _error(error)
        return 2
    except ImportError as error:  # the engine is not built: not the user's input, status 1
        _error(error)
        return 1


def _error(error: BaseException) -> None:
    # The contract is one line: fold any newline the message may carry.
    message = " ".join(str(error).split("\n")) or type(error).__name__
    print(f"ampsched: error: {message}", file=sys.stderr)


def _check_output_path(option: str, path) -> None:
    # Checked before simulating, so a typo does not cost a whole run.
    if path is None:
        return
    if os.path.isdir(path):
        raise UsageError(f"{option}: {path}: is a directory")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{option}: {path}: directory {folder} does not exist")


# ---- commands

def _cmd_list(args) -> int:
    text = ampsched._require_core().list_catalog(args.kind)
    print(text if args.json else format_catalog(args.kind, json.loads(text)))
    return 0


def _cmd_run(args) -> int:
    _check_output_path("--trace", args.trace)
    core = ampsched._require_core()
    text = core.run(args.machine, args.workload, args.policy, seed=args.seed,
                    slice_ms=args.slice_ms, trace=args.trace, timeline=False)
    print(text if args.json else format_run(json.loads(text)))
    return 0


def _cmd_compare(args) -> int:
    _check_output_path("--report", args.report)
    policies = None if args.policies is None else ampsched.split_policies(args.policies)
    if policies == []:
        raise UsageError(f"--policies: no policy spec in {args.policies!r}")
    core = ampsched._require_core()
    machine, workload = args.machine, args.workload
    if machine is None or workload is None or policies is None:
        # Fill in only what is missing, so `compare --policies rr,fair` uses the demo machine.
        default = json.loads(core.default_compare())
        machine = default["machine"] if machine is None else machine
        workload = default["workload"] if workload is None else workload
        policies = default["policies"] if policies is None else policies
    bar = ProgressBar()
    try:
        text = core.compare(machine, workload, policies, baseline=args.baseline, seed=args.seed,
                            slice_ms=args.slice_ms, timeline=args.report is not None, progress=bar)
    finally:
        bar.clear()  # also on an error or Ctrl-C, so that the message starts on a clean line
    results = json.loads(text)
    if args.report is not None:
        write_report(results, args.report)
        print(f"ampsched: report written to {args.report}", file=sys.stderr)  # stdout may be --json
    print(text if args.json else format_compare(results))
    return 0


# ---- text output (pure functions of the engine's JSON, tested without it)

def _options_text(options: dict) -> str:
    # key=value as a policy spec takes them, so that the text can be pasted back.
    return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in options.items()) or "-"


def _core_types_text(types: list) -> str:
    return " + ".join(f"{t.get('count')}x {t.get('name')} {t.get('freq_ghz')} GHz cap {t.get('capacity')}"
                      for t in types) or "-"


def format_catalog(kind: str, entries: list) -> str:
    """The `ampsched list KIND` table. Sources are long citations that would make every row
    wrap, so they are left to `ampsched list KIND --json`."""
    extra = {
        "machines": (["cores", "core types"], lambda e: [e.get("cores"), _core_types_text(e.get("core_types") or [])]),
        "workloads": (["apps", "threads"], lambda e: [e.get("apps"), e.get("threads")]),
        "policies": (["needs", "options"], lambda e: [e.get("needs"), _options_text(e.get("options") or {})]),
        "programs": ([], lambda e: []),
    }[kind]
    headers = ["name"] + extra[0] + ["description"]
    rows = [[e.get("name")] + extra[1](e) + [e.get("description")] for e in entries]
    return format_table(headers, rows)


def _heading(r: dict, *keys) -> str:
    return " | ".join(f"slice {r[k]} ms" if k == "slice_ms" else f"{k} {r[k]}"
                      for k in keys if r.get(k) is not None)


def format_run(r: dict) -> str:
    """The `ampsched run` text: the metrics, then per-app and per-core tables."""
    metrics = [m for m in list(METRICS) + ["events", "policy_calls"] if m in r]
    app_keys = ["threads", "runs", "turnaround_s", "solo_s", "slowdown", "fast_share"]
    apps = [[a.get("name")] + [a.get(k) for k in app_keys] for a in r.get("apps", [])]
    cores = [[c.get("id"), c.get("type"), c.get("busy_s"), c.get("energy_j")] for c in r.get("cores", [])]
    return "\n\n".join([
        _heading(r, "policy", "machine", "workload", "seed", "slice_ms"),
        format_table(["metric", "value"], [[m, r[m]] for m in metrics], same_decimals=False),
        format_table(["app"] + app_keys, apps),
        format_table(["core", "type", "busy_s", "energy_j"], cores),
    ])


def format_compare(results: list) -> str:
    """The `ampsched compare` text: metrics per policy, then slowdown per app and policy."""
    if not results:
        return "no results"
    metrics = [m for m in METRICS if any(m in r for r in results)]
    headers = ["policy"] + ["speedup" if m == "speedup_vs_baseline" else m for m in metrics]
    table = format_table(headers, [[r.get("policy")] + [r.get(m) for m in metrics] for r in results])
    apps = list(dict.fromkeys(a.get("name") for r in results for a in r.get("apps", [])))
    slowdown = [{a.get("name"): a.get("slowdown") for a in r.get("apps", [])} for r in results]
    per_app = format_table(["app"] + [r.get("policy") for r in results],
                           [[app] + [s.get(app) for s in slowdown] for app in apps])
    return "\n\n".join([_heading(results[0], "machine", "workload", "seed", "slice_ms", "baseline"),
                        table, "slowdown per app", per_app])
