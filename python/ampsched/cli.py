"""The `ampsched` command: list the catalog, run one policy, compare several.

Errors in what the user gave (the engine's InputError, bad paths, bad values, and argparse's
own: a bad option value, a missing argument) end in one line `ampsched: error: ...` on stderr
and exit status 2, never a traceback: the user has nothing to debug, only something to fix.
A traceback is kept for real bugs. Ctrl-C (also during a simulation) ends in one line
`ampsched: interrupted` and exit status 130.
"""

import argparse
import json
import math
import os
import signal
import sys
import textwrap
import time

import ampsched
from ._agent_compare import DEFAULT_REPEAT, measures
from ._console import ProgressBar, duration_text, format_table
from . import _record
from ._files import check_output, write_atomically
from ._metrics import ENERGY_NOTE, METRICS, NOT_MODELLED, compare_notes, energy_unmodelled, shown
from .report import render_report
from ._sweep import BACKENDS, MAX_RUNS, VERIFY_SAMPLE, load_file, parse_seeds, run_sweep

KINDS = ("machines", "workloads", "policies", "programs")
# The width the tables of list, run and compare keep within unless --wide: a terminal's 80 to 100
# columns; wider tables wrap their texts, then split into blocks of columns (_console.format_table).
TABLE_WIDTH = 100
REPRODUCTION_DIR = os.path.join("docs", "reproduction")
QUICK_REPRODUCTION_DIR = os.path.join("out", "reproduction-quick")
DEFAULTS = ampsched.defaults()  # defined once, in the engine


class UsageError(Exception):
    """Bad input found by the CLI itself; reported like the engine's InputError."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors as one line like every other error of the CLI, naming the
    option (argparse would print the whole usage first: five lines for `agent`). Exit status 2."""

    def error(self, message):
        # argparse says "argument --interval: ..." (or "argument --pid/-p: ..."): name the option alone.
        if message.startswith("argument "):
            message = message[len("argument ") :]
        _error(message)
        sys.exit(2)


# ---- argument types: the parser turns their errors into one line naming the option, exit 2


def _seed(text: str) -> int:
    # ASCII digits only: int() would also take ' 5', '+5', '1_0' and other scripts' digits ('١'),
    # so two spellings of a seed would name one run.
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2^64-1 in digits 0-9, got {text!r}")
    value = int(text, 10)
    if value >= 2**64:  # the engine takes a u64; outside it PyO3 would raise OverflowError
        raise argparse.ArgumentTypeError(f"must be between 0 and 2^64-1: {text}")
    return value


def _pid(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a process id: {text!r}") from None
    if not 0 < value < 2**31:
        raise argparse.ArgumentTypeError(f"not a process id: {text}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def _positive_float(text: str) -> float:
    value = _number(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number: {text}")
    return value


def _event_budget(text: str) -> int:
    # 1e9 and 1000000000 alike: budgets are easier to give in exponent form. The engine checks
    # the range too (limits::MAX_EVENTS); here it is said before anything runs.
    value = _number(text)
    if not (math.isfinite(value) and value.is_integer() and 1 <= value <= 1e13):
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 1e13, got {text}")
    return int(value)


def _ms_between(low_key: str, high_key: str):
    """The type of an option in ms whose range is the engine's defaults' `low_key` to `high_key`.
    The engine checks the range too; here the error comes before anything starts."""

    def parse(text: str) -> float:
        low, high = DEFAULTS[low_key], DEFAULTS[high_key]
        value = _number(text)
        if not low <= value <= high:  # also refuses nan
            raise argparse.ArgumentTypeError(
                f"must be between {low:.0f} and {high:.0f} ms (1 ms to 1 hour), got {text}"
            )
        return value

    return parse


_interval = _ms_between("agent_interval_min_ms", "agent_interval_max_ms")
_decide_limit = _ms_between("decide_limit_min_ms", "decide_limit_max_ms")


def _seeds(text: str) -> list:
    try:
        return parse_seeds(text)
    except ValueError as error:  # InputError included; argparse names the option
        raise argparse.ArgumentTypeError(str(error).removeprefix("seeds: ")) from None


def _jobs(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return int(text)


def _add_wide(p):
    p.add_argument(
        "--wide",
        action="store_true",
        help=f"tables as wide as they need (default: within {TABLE_WIDTH} columns, long texts wrapped)",
    )


def _add_machine_set(p):
    p.add_argument(
        "--set",
        action="append",
        default=[],
        dest="machine_set",
        metavar="TYPE.KEY=VALUE",
        help="change the machine before it is read, checked as its file is: a core type's key "
        "(pcore.count=6, ecore.freq_ghz=2.0) or a top-level one (memory_latency_ns=100); repeatable",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ampsched",  # not "__main__.py" under `python -m ampsched`
        description="Schedule threads on asymmetric multicore processors: simulate and compare policies.",
    )
    parser.add_argument("--version", action="version", version=f"ampsched {ampsched.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("list", help="list catalog machines, workloads, policies or programs")
    p.add_argument("kind", choices=KINDS)
    p.add_argument("--json", action="store_true", help="print the engine's JSON list (with sources) and nothing else")
    _add_wide(p)
    p.set_defaults(handler=_cmd_list)

    def counter_noise(p, with_defaults=True):
        p.add_argument(
            "--counter-noise",
            type=_number,
            default=DEFAULTS["counter_noise"] if with_defaults else None,
            metavar="SIGMA",
            help=f"relative standard deviation of the simulator's noise on the counters policies "
            f"read, 0 = exact (default {DEFAULTS['counter_noise']:g}; results stay exact)",
        )

    def common(p, seed=True, with_defaults=True):
        # Without defaults (a sweep), an option not given leaves the value to the sweep file.
        default = DEFAULTS if with_defaults else {}
        if seed:
            p.add_argument(
                "--seed", type=_seed, default=DEFAULTS["seed"], help=f"random seed (default {DEFAULTS['seed']})"
            )
        p.add_argument(
            "--slice-ms",
            type=_positive_float,
            default=default.get("slice_ms"),
            metavar="MS",
            help=f"scheduling time slice in milliseconds (default {DEFAULTS['slice_ms']:g})",
        )
        p.add_argument(
            "--max-sim-s",
            type=_positive_float,
            default=default.get("max_sim_s"),
            metavar="S",
            help=f"simulated-time budget of a run in seconds: a run still going past it is an "
            f"error (default {DEFAULTS['max_sim_s']:g})",
        )
        p.add_argument(
            "--max-events",
            type=_event_budget,
            default=default.get("max_events"),
            metavar="N",
            help=f"event budget, which bounds wall time: one budget for every simulation a command "
            f"makes (solo references, profiling runs, best-static's candidates, each policy of a "
            f"compare), each drawing what the earlier ones left; a sweep gives it to each of its "
            f"runs (default {DEFAULTS['max_events']:g})",
        )
        if seed:
            p.add_argument("--json", action="store_true", help="print the engine's JSON result and nothing else")

    p = sub.add_parser("run", help="simulate a workload on a machine under one policy")
    p.add_argument("--machine", required=True, metavar="M", help="catalog name or TOML file")
    p.add_argument("--workload", required=True, metavar="W", help="catalog name or TOML file")
    p.add_argument(
        "--policy",
        required=True,
        metavar="P",
        help='policy spec "name[:key=value...]", or a Python policy "file.py:ClassName"',
    )
    _add_machine_set(p)
    common(p)
    counter_noise(p)
    p.add_argument("--trace", metavar="FILE", help="also write a Chrome/Perfetto trace JSON to FILE")
    p.add_argument(
        "--power-trace",
        type=_number,
        metavar="S",
        help="with --json: also record each power rail's power by windows of S seconds (the "
        "big.LITTLE paper's daemon: 0.27) in the result's power_trace (docs/power.md)",
    )
    _add_wide(p)
    p.set_defaults(handler=_cmd_run)

    p = sub.add_parser(
        "compare",
        help="simulate several policies and compare them (with no arguments: the built-in demo)",
        description=f"Simulate several policies on one machine and workload and compare them: metrics "
        f"per policy, slowdown per app. With no arguments, the built-in demo: {_demo_text()}; an "
        f"option given replaces only its part of it.",
    )
    p.add_argument("--machine", metavar="M", help="catalog name or TOML file")
    p.add_argument("--workload", metavar="W", help="catalog name or TOML file")
    p.add_argument(
        "--policies", metavar="P1,P2,...", help='comma-separated policy specs (a Python policy: "file.py:ClassName")'
    )
    p.add_argument(
        "--baseline",
        metavar="P",
        help="policy the speedups are relative to, or 'default' (the Saez thesis's default metric, "
        "from bound runs); default: the workload's `baseline` key, else the first policy",
    )
    _add_machine_set(p)
    common(p)
    counter_noise(p)
    p.add_argument("--report", metavar="FILE", help="also write a self-contained HTML report to FILE")
    p.add_argument(
        "--trace",
        metavar="DIR",
        help="also write one Chrome/Perfetto trace per policy into the directory DIR, as POLICY.json",
    )
    p.add_argument("--force", action="store_true", help="with --trace: replace trace files already in DIR")
    _add_wide(p)
    p.set_defaults(handler=_cmd_compare)

    p = sub.add_parser(
        "sweep",
        help="run every combination of machines, workloads, policies and seeds into one Parquet table",
        description="Run a grid given by the options or a sweep file (TOML: the same keys, "
        "plus [[override]] tables giving some runs other settings or skipping "
        "them; options given on the command line win over the file's). "
        "With --verify FILE, re-run a sample of FILE's runs instead and "
        "check that every value comes out bit for bit the same.",
    )
    p.add_argument(
        "file",
        nargs="?",
        metavar="SWEEP.toml",
        help="a sweep file (paths in it are relative to the current directory, as on the command line)",
    )
    p.add_argument("--machines", metavar="M1,M2,...", help="catalog names or TOML files")
    p.add_argument("--workloads", metavar="W1,W2,...", help="catalog names or TOML files")
    p.add_argument(
        "--policies",
        metavar="P1,P2,...",
        help='comma-separated policy specs (a Python policy: "file.py:ClassName"); a grid over a '
        "policy's options, 'rr:threshold_ms=25|50:quantum_ms=5|10', runs each combination",
    )
    p.add_argument(
        "--seeds",
        type=_seeds,
        metavar="1-5",
        help=f"seeds: N, LOW-HIGH or a comma-separated list of them (default {DEFAULTS['seed']})",
    )
    common(p, seed=False, with_defaults=False)
    counter_noise(p, with_defaults=False)
    p.add_argument(
        "--jobs",
        type=_jobs,
        metavar="N",
        help="batches run at once: worker processes, or Ray tasks (default: all CPUs; with ray, the cluster's)",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where runs go: local worker processes (default), or Ray tasks (needs pip install 'ampsched[ray]')",
    )
    p.add_argument(
        "--address",
        metavar="ADDR",
        help="with --backend ray: the running Ray cluster, HOST:PORT of its head (default: start a local Ray)",
    )
    p.add_argument(
        "--output",
        metavar="FILE.parquet",
        help="the Parquet table, one row per run (written as runs finish, in FILE.parts/ until the "
        "end); required unless the sweep file names it",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the successful runs FILE (or an interrupted sweep's FILE.parts/) has and run only the others",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing FILE (without it, or --resume, an existing FILE is refused)",
    )
    p.add_argument("--yes", action="store_true", help=f"run a grid of over {MAX_RUNS:,} runs")
    p.add_argument(
        "--verify",
        metavar="FILE.parquet",
        help="re-run a sample of the runs of FILE with their own settings and compare bit for bit",
    )
    p.add_argument(
        "--sample",
        type=_jobs,
        metavar="N",
        default=VERIFY_SAMPLE,
        help=f"with --verify: how many runs, spread evenly over the file (default {VERIFY_SAMPLE})",
    )
    p.set_defaults(handler=_cmd_sweep)

    p = sub.add_parser(
        "plot",
        help="draw a sweep's metric against a parameter: one line per policy, seeds as a band",
        description="Draw metric Y of a sweep's Parquet file against parameter X (a column, or an option "
        "of its policy specs such as threshold_ms): one line per value of --hue, each point the mean "
        "over its seeds, the band their min-max. Failed runs are left out.",
    )
    p.add_argument("input", nargs="+", metavar="FILE.parquet", help="a sweep's output (several: drawn as one table)")
    p.add_argument("--x", required=True, metavar="KEY", help="the parameter: a column or a policy option")
    p.add_argument("--y", required=True, metavar="METRIC", help="the metric, e.g. makespan_s or antt")
    p.add_argument("--hue", default="policy", metavar="KEY", help="one line per value of KEY (default policy)")
    p.add_argument("--out", metavar="FILE.png", help="the PNG to write (default: FILE-Y-vs-X.png beside FILE)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.set_defaults(handler=_cmd_plot)

    p = sub.add_parser(
        "reproduce",
        help="reproduce a paper's claims: writes docs/reproduction/NAME.md with the claims table and figures",
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the reproduction (see --list)")
    p.add_argument("--list", action="store_true", help="list the reproductions and exit")
    p.add_argument(
        "--quick", action="store_true", help="the reduced version the tests run (fewer points, shorter runs)"
    )
    p.add_argument("--jobs", type=_jobs, metavar="N", help="worker processes of its sweeps (default: all CPUs)")
    p.add_argument("--backend", choices=BACKENDS, default="local", help="where its sweeps run (as for sweep)")
    p.add_argument("--address", metavar="ADDR", help="with --backend ray: a running Ray cluster (as for sweep)")
    p.add_argument(
        "--output",
        metavar="DIR",
        help=f"where NAME.md and its PNGs go (default {REPRODUCTION_DIR}; with --quick "
        f"{QUICK_REPRODUCTION_DIR}, so that a quick run never replaces the committed document)",
    )
    p.set_defaults(handler=_cmd_reproduce)

    p = sub.add_parser("topology", help="show this machine's core types, capacities and LLC domains")
    p.add_argument(
        "--cores", metavar="SPEC", help="name the core types yourself, fastest first: big=0-3,small=4-7[:SPEED]"
    )
    p.add_argument("--emulate", metavar="SPEC", help="the topology `agent --emulate SPEC` would make, e.g. small=1:0.5")
    p.add_argument("--save", metavar="FILE", help="write it as a machine TOML for the simulator")
    p.add_argument("--name", default="detected", help="machine name in the saved file (default: detected)")
    p.add_argument("--json", action="store_true", help="print the topology as JSON and nothing else")
    p.set_defaults(handler=_cmd_topology)

    p = sub.add_parser(
        "agent",
        help="run a policy live on real threads: ampsched agent --policy P -- CMD ARGS...",
        description="Launch CMD (or attach to --pid), follow its threads and child processes, and "
        "apply the policy's placements with sched_setaffinity. Every affinity is restored "
        "when the agent ends, by a guardian process if the agent is killed. The exit status "
        "is the command's.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--policy",
        metavar="P",
        help='policy spec "name[:key=value...]", or a Python policy "file.py:ClassName"',
    )
    which.add_argument(
        "--policies",
        metavar="P1,P2,...",
        help="compare policies live: run the command --repeat times under each, interleaved, and print "
        "wall and CPU time per core type (mean, sample sd, min-max); not with --pid",
    )
    p.add_argument(
        "--repeat",
        type=_jobs,  # a whole number of at least 1
        metavar="N",
        help=f"with --policies: runs of the command per policy (default {DEFAULT_REPEAT})",
    )
    p.add_argument(
        "--interval",
        type=_interval,
        default=DEFAULTS["agent_interval_ms"],
        metavar="MS",
        help=f"sampling interval in milliseconds, {DEFAULTS['agent_interval_min_ms']:g} to "
        f"{DEFAULTS['agent_interval_max_ms']:g} (default {DEFAULTS['agent_interval_ms']:g})",
    )
    p.add_argument(
        "--emulate",
        metavar="SPEC",
        help="make CPUs slow by cycle stealing, e.g. small=1:0.5 (CPU 1 at half speed); needs root",
    )
    p.add_argument(
        "--emulate-period",
        type=_positive_float,
        default=DEFAULTS["emulate_period_ms"],
        metavar="MS",
        help=f"cycle-stealing period in milliseconds (default {DEFAULTS['emulate_period_ms']:g})",
    )
    p.add_argument("--cores", metavar="SPEC", help="name the core types yourself: big=0-3,small=4-7[:SPEED]")
    p.add_argument("--machine", metavar="M", help="a machine TOML whose core types list their `cpus`")
    p.add_argument(
        "--pid",
        type=_pid,
        action="append",
        default=[],
        metavar="PID",
        help="attach to a running process instead of launching one (repeatable)",
    )
    p.add_argument("--no-locks", action="store_true", help="do not inject the lock-insight preload library")
    p.add_argument(
        "--until-tree-exits",
        action="store_true",
        help="when the command exits, go on scheduling the processes it started until they have all "
        "exited (default: end with the command, restoring those left running)",
    )
    p.add_argument(
        "--seed",
        type=_seed,
        default=DEFAULTS["seed"],
        help=f"seed the policy sees for its arbitrary choices, as in the simulator (default {DEFAULTS['seed']})",
    )
    p.add_argument(
        "--runtime-threads",
        metavar="PATTERNS",
        help="comma-separated shell-style globs on thread names (as Linux cuts them, 15 bytes) that "
        "mark a managed runtime's helper threads (GC, JIT, ...), e.g. 'GC*,C2 CompilerThre*'; "
        "the other threads are the application's (default: HotSpot's and OpenJ9's helper "
        "names, listed in docs/agent.md)",
    )
    p.add_argument(
        "--decide-limit",
        type=_decide_limit,
        default=DEFAULTS["decide_limit_ms"],
        metavar="MS",
        help=f"how long a Python policy's decide may run before the agent stops it, restores every "
        f"thread and ends with an error (default {DEFAULTS['decide_limit_ms']:g})",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the JSON report on stdout at the end (after the command's own output)",
    )
    p.add_argument(
        "--output",
        metavar="FILE",
        help="write the JSON report to FILE (a new file; an existing one only with --force); with "
        "--policies a directory DIR for every run's report",
    )
    p.add_argument(
        "--trace",
        metavar="FILE",
        help="write what ran where, sampled at each interval, as a Chrome/Perfetto trace in the format of "
        "`ampsched run --trace` (a new file; an existing one only with --force)",
    )
    p.add_argument(
        "--force", action="store_true", help="with --output or --trace: replace an existing FILE (or DIR's reports)"
    )
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS", help="the command to launch")
    p.set_defaults(handler=_cmd_agent)

    p = sub.add_parser(
        "record",
        help="record a real program with the agent into a workload file the simulator replays",
        description="Launch CMD (or attach to --pid) under the live agent, record its threads (creation, CPU "
        "time, blocking, lock and condition-variable waits, joins, exit) and write them as a workload file: "
        "`ampsched run --workload FILE --machine M --policy P` replays it on any machine under any policy. "
        "What was measured and what inferred (barriers, compression) is said in the file and on stderr "
        "(docs/record.md).",
    )
    p.add_argument(
        "--output",
        default=_record.DEFAULT_OUTPUT,
        metavar="FILE",
        help=f"the workload file to write (default {_record.DEFAULT_OUTPUT}; a new file, an existing one only "
        "with --force)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing --output, --raw or --save-machine file")
    p.add_argument(
        "--policy",
        default=_record.DEFAULT_POLICY,
        metavar="P",
        help=f"the policy the recording run is placed by (default {_record.DEFAULT_POLICY}: the program as "
        "Linux runs it)",
    )
    p.add_argument(
        "--interval",
        type=_interval,
        default=DEFAULTS["agent_interval_ms"],
        metavar="MS",
        help=f"the agent's sampling interval in milliseconds (default {DEFAULTS['agent_interval_ms']:g})",
    )
    machine = p.add_mutually_exclusive_group()
    machine.add_argument("--emulate", metavar="SPEC", help="make CPUs slow by cycle stealing, e.g. small=1:0.5 (root)")
    machine.add_argument("--cores", metavar="SPEC", help="name the core types yourself: big=0-3,small=4-7[:SPEED]")
    machine.add_argument("--machine", metavar="M", help="a machine TOML whose core types list their `cpus`")
    p.add_argument(
        "--seed", type=_seed, default=DEFAULTS["seed"], help=f"the policy's seed (default {DEFAULTS['seed']})"
    )
    p.add_argument(
        "--keep-command",
        action="store_true",
        help="keep the command line in the file (default: no argument or environment is kept)",
    )
    p.add_argument(
        "--max-phases",
        type=_jobs,  # a whole number of at least 1
        metavar="N",
        help="the file's size bound, in phases over all threads; past it phases are merged into repeats "
        f"and the error that cost is stated (default {DEFAULTS['record_max_phases']:,})",
    )
    p.add_argument("--raw", metavar="FILE", help="also write the raw recording (JSON: what was measured) to FILE")
    p.add_argument(
        "--from-raw",
        metavar="FILE",
        help="convert a raw recording written earlier with --raw instead of running anything",
    )
    p.add_argument(
        "--save-machine",
        metavar="FILE",
        help="also write the machine the recording ran on as a machine TOML (what `topology --save` writes)",
    )
    p.add_argument(
        "--accept-partial",
        action="store_true",
        help="write a partial recording (the agent stopped early, events lost), marked partial in the file; "
        "by default it is refused",
    )
    p.add_argument("--pid", type=_pid, metavar="PID", help="attach to a running process instead of launching one")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS", help="the command to record")
    p.set_defaults(handler=_cmd_record)
    # `COMMAND --help` starts with what the command does: its line in `ampsched --help` unless it has more.
    for action in sub._choices_actions:
        command = sub.choices[action.dest]
        if command.description is None:
            command.description = action.help[0].upper() + action.help[1:] + "."
    return parser


def _demo_text() -> str:
    try:
        demo = ampsched.default_comparison()
    except ImportError:  # the engine is not built: --help still answers
        return "a catalog machine, workload and policies"
    return f"--machine {demo['machine']} --workload {demo['workload']} --policies {','.join(demo['policies'])}"


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)  # usage errors: one line (`_Parser`), exit status 2
    try:
        _check_text_options(args)
        return args.handler(args)
    except KeyboardInterrupt:
        # The user asked to stop (Ctrl-C stops a simulation too): one line saying why the
        # output ends here, no traceback, and the shells' 128 + SIGINT.
        print("ampsched: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`ampsched list policies | head`); silence the final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (UsageError, OSError, ampsched.InputError) as error:
        _error(error)
        return 2
    except ImportError as error:  # the engine is not built: not the user's input, status 1
        _error(error)
        return 1


def _check_text_options(args) -> None:
    # A Linux file name may hold bytes that are not UTF-8; Python passes them on as lone
    # surrogates, which the engine (UTF-8 throughout) cannot take: say so, naming the option.
    for name, value in vars(args).items():
        if isinstance(value, str) and name != "command":
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                shown = value.encode("utf-8", "surrogateescape")[:80]
                raise UsageError(f"--{name.replace('_', '-')}: not UTF-8 text: {shown!r}") from None


def _error(error: BaseException) -> None:
    # The contract is one line: fold any newline the message may carry.
    message = " ".join(str(error).split("\n")) or type(error).__name__
    print(f"ampsched: error: {message}", file=sys.stderr)


def _check_output_path(option: str, path) -> None:
    # Checked before simulating, so a typo (or a FIFO, a symlink: see _files) does not cost a whole run.
    if path is not None:
        check_output(option, path)


def _write_output(option: str, path, data) -> None:
    """Writes `data` to `path` (atomically, never through a symlink: _files), with a failure
    named by its option (a path can pass the early check and still refuse writing, as a
    read-only directory does)."""
    try:
        write_atomically(path, data, option=option)
    except OSError as error:
        raise UsageError(f"{option}: {path}: {error.strerror or error}") from None


# ---- commands


def _width(args):
    return None if args.wide else TABLE_WIDTH


def _cmd_list(args) -> int:
    text = ampsched.catalog(args.kind, as_json=True)
    print(text if args.json else format_catalog(args.kind, json.loads(text), width=_width(args)))
    return 0


def _with_progress(args, simulate):
    """`simulate(bar)` with a progress bar on stderr (a terminal only, after a few seconds), and an
    event budget's error told the rate measured and how long the budget would take."""
    bar = ProgressBar()
    try:
        return simulate(bar)
    except ampsched.InputError as error:
        raise UsageError(budget_note(str(error), args.max_events, time.monotonic() - bar.started)) from None
    finally:
        bar.clear()  # also on an error or Ctrl-C, so that the message starts on a clean line


def budget_note(message: str, max_events: int, elapsed_s: float) -> str:
    """An over-budget error of the event budget, with the rate measured (the budget was used up
    in `elapsed_s`) and, for a budget below the default, how long the default would take at
    that rate; any other message as it is."""
    if "events (--max-events" not in message or elapsed_s <= 0:
        return message
    rate = max_events / elapsed_s
    default = DEFAULTS["max_events"]
    note = f" (at the {_rate_text(rate)} events/s measured"
    if max_events < default:
        budget = f"{default:.3g}".replace("e+0", "e").replace("e+", "e")  # 2e8, as the options are given
        note += f", the default budget of {budget} events would take about {duration_text(default / rate)}"
    return message + note + ")"


def _rate_text(rate: float) -> str:
    return f"{rate / 1e6:.2f}M" if rate >= 1e6 else f"{rate / 1e3:.1f}k" if rate >= 1e3 else f"{rate:.0f}"


def _cmd_run(args) -> int:
    _check_output_path("--trace", args.trace)
    result = _with_progress(
        args,
        lambda bar: ampsched.run(
            args.machine,
            args.workload,
            args.policy,
            seed=args.seed,
            slice_ms=args.slice_ms,
            trace=args.trace,
            max_sim_s=args.max_sim_s,
            max_events=args.max_events,
            counter_noise=args.counter_noise,
            machine_set=args.machine_set,
            progress=bar.tick,
            power_trace=args.power_trace,
        ),
    )
    print(result.json if args.json else format_run(result.raw, width=_width(args)))
    return 0


def _cmd_compare(args) -> int:
    _check_output_path("--report", args.report)
    policies = None if args.policies is None else ampsched.split_policies(args.policies)
    if policies == []:
        raise UsageError(f"--policies: no policy spec in {args.policies!r}")
    machine, workload = args.machine, args.workload
    if machine is None or workload is None or policies is None:
        # Fill in only what is missing, so `compare --policies rr,fair` uses the demo machine.
        default = ampsched.default_comparison()
        if machine is not None and workload is None:
            # Chosen for the user, who named a machine: say so, the demo workload may not suit it.
            print(
                f"ampsched: no --workload given: comparing on the demo workload {default['workload']}", file=sys.stderr
            )
        machine = default["machine"] if machine is None else machine
        workload = default["workload"] if workload is None else workload
        policies = default["policies"] if policies is None else policies
    if args.force and args.trace is None:
        raise UsageError("--force: only with --trace DIR")
    frame = _with_progress(
        args,
        lambda bar: ampsched.compare(
            machine,
            workload,
            policies,
            baseline=args.baseline,
            seed=args.seed,
            slice_ms=args.slice_ms,
            timeline=args.report is not None,
            progress=bar,
            max_sim_s=args.max_sim_s,
            max_events=args.max_events,
            counter_noise=args.counter_noise,
            machine_set=args.machine_set,
            trace_dir=args.trace,
            replace_traces=args.force,
        ),
    )
    results, text = frame.attrs["raw"], frame.attrs["json"]
    if args.report is not None:
        _write_output("--report", args.report, render_report(results))
        print(f"ampsched: report written to {args.report}", file=sys.stderr)  # stdout may be --json
    print(text if args.json else format_compare(results, width=_width(args)))
    return 0


def _cmd_sweep(args) -> int:
    if args.verify is not None:
        return _cmd_verify(args)
    if args.sample != VERIFY_SAMPLE:
        raise UsageError("--sample: only with --verify FILE")
    if args.file is None:
        for option in ("machines", "workloads", "policies", "output"):
            if getattr(args, option) is None:
                raise UsageError(f"--{option}: required without a sweep file")
    if args.output is None and "output" not in load_file(args.file):
        raise UsageError(f"--output: required: {args.file} names no output")
    _check_output_path("--output", args.output if args.output is not None else load_file(args.file)["output"])
    policies = None if args.policies is None else ampsched.split_policies(args.policies)
    # The table, not a DataFrame: the file is the product, and building the frame (per-app
    # rows parsed from JSON) would cost the CLI time for nothing.
    table, stats = run_sweep(
        args.machines,
        args.workloads,
        policies,
        seeds=args.seeds,
        jobs=args.jobs,
        output=args.output,
        resume=args.resume,
        slice_ms=args.slice_ms,
        max_sim_s=args.max_sim_s,
        max_events=args.max_events,
        max_runs=None if args.yes else MAX_RUNS,
        file=args.file,
        backend=args.backend,
        address=args.address,
        force=args.force,
        counter_noise=args.counter_noise,
        announce=lambda text: print(f"ampsched: sweep: {text}", file=sys.stderr),
    )
    print(format_sweep(stats, table.num_rows, stats["output"]), file=sys.stderr)
    # Failed runs are in the file, but a script must notice them without reading it.
    return 1 if table.column("error").null_count < table.num_rows else 0


def _cmd_plot(args) -> int:
    out = args.out
    if out is None:
        out = f"{os.path.splitext(args.input[0])[0]}-{args.y}-vs-{args.x}.png"
    ampsched.plot(args.input, args.x, args.y, hue=args.hue, out=out, force=args.force)
    print(f"ampsched: plot written to {out}", file=sys.stderr)
    return 0


def _cmd_verify(args) -> int:
    grid = [
        f"--{k}"
        for k in (
            "machines",
            "workloads",
            "policies",
            "seeds",
            "output",
            "slice_ms",
            "max_sim_s",
            "max_events",
            "counter_noise",
            "address",
        )
        if getattr(args, k) is not None
    ]
    if args.backend != "local":  # a sample of a few runs: a Ray start-up would cost more than it saves
        grid.append("--backend")
    if args.file is not None or grid or args.resume or args.force:
        given = grid[0] if grid else "--resume" if args.resume else "--force" if args.force else "a sweep file"
        raise UsageError(f"--verify: re-runs FILE's own runs with their own settings: give it without {given}")
    df = ampsched.verify_sweep(args.verify, sample=args.sample, jobs=args.jobs)
    differ = df[~df["identical"]]
    for row in differ.head(10).itertuples(index=False):
        print(
            f"ampsched: verify: {row.machine} {row.workload} {row.policy} seed {row.seed}: "
            f"differs in {row.differences}",
            file=sys.stderr,
        )
    print(
        f"ampsched: verify: {len(df)} runs of {args.verify} re-run, "
        f"{len(df) - len(differ)} identical, {len(differ)} differ",
        file=sys.stderr,
    )
    return 1 if len(differ) else 0


def _cmd_reproduce(args) -> int:
    from . import reproductions

    if args.list:
        if args.name is not None:
            raise UsageError("reproduce: give either --list or NAME, not both")
        print(format_table(["name", "reproduces"], [list(row) for row in reproductions.listing()]))
        return 0
    if args.name is None:
        raise UsageError("reproduce: name a reproduction (see `ampsched reproduce --list`)")
    output = args.output if args.output is not None else QUICK_REPRODUCTION_DIR if args.quick else REPRODUCTION_DIR
    if output == "":
        raise UsageError("--output: the path is empty")
    try:
        claims, _ = reproductions.run(
            args.name, quick=args.quick, jobs=args.jobs, output=output, backend=args.backend, address=args.address
        )
    except reproductions.ReproductionError as error:
        raise UsageError(str(error)) from None
    counts = claims["verdict"].value_counts()
    summary = ", ".join(f"{counts.get(v, 0)} {v}" for v in reproductions.VERDICTS)
    print(
        f"ampsched: reproduce {args.name}: {len(claims)} claims ({summary}); "
        f"written to {os.path.join(output, args.name + '.md')}",
        file=sys.stderr,
    )
    return 0


def format_sweep(stats: dict, rows: int, output: str) -> str:
    """The one line `ampsched sweep` ends with."""
    seconds = stats["seconds"]
    rate = stats["ran"] / seconds if seconds > 0 else 0.0
    kept = f", {stats['skipped']} kept from before" if stats["skipped"] else ""
    return (
        f"ampsched: sweep: {stats['ran']} runs, {stats['failed']} failed, {seconds:.1f} s, {rate:.1f} runs/s"
        f"{kept}; {rows} rows in {output}"
    )


def _cmd_topology(args) -> int:
    _check_output_path("--save", args.save)
    topo = ampsched.topology(cores=args.cores, emulate=args.emulate, name=args.name)
    if args.save is not None:
        _write_output("--save", args.save, topo["machine_toml"])
        print(f"ampsched: machine file written to {args.save}", file=sys.stderr)
    if args.json:
        print(json.dumps({k: v for k, v in topo.items() if k != "machine_toml"}, indent=2))
    else:
        print(format_topology(topo))
    return 0


def _cmd_agent(args) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if args.policies is not None or args.repeat is not None:
        return _agent_compare(args, command)
    if bool(command) == bool(args.pid):
        raise UsageError("agent: give either a command after -- or --pid PID (not both)")
    if args.force and args.output is None and args.trace is None:
        raise UsageError("--force: only with --output FILE or --trace FILE")
    for option, path in (("--output", args.output), ("--trace", args.trace)):
        _check_output_path(option, path)
        _check_report_file(option, path, args.force)
    try:
        report = ampsched.agent(args.policy, command, args.pid, trace=args.trace, **_agent_options(args))
    except RuntimeError as error:  # something failed under the agent; its affinities are restored
        _error(error)
        return 1
    if args.output is not None:
        _write_output("--output", args.output, json.dumps(report, indent=1) + "\n")
    _print_notes([report])
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_agent(report), file=sys.stderr)
    return agent_exit_status(report)


def _cmd_record(args) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    given = [
        what for what, there in (("a command", command), ("--pid", args.pid), ("--from-raw", args.from_raw)) if there
    ]
    if len(given) != 1:
        raise UsageError(
            "record: give either a command after --, --pid PID or --from-raw FILE"
            + (f" (not {' and '.join(given)})" if given else "")
        )
    if args.from_raw is not None and (args.emulate or args.cores or args.machine):
        raise UsageError(
            "--from-raw: the raw recording names its machine; --emulate, --cores, --machine are for a live run"
        )
    # Every output checked before the live run: a run cannot be made again for a typo.
    paths = {}
    for option, path in (("--output", args.output), ("--raw", args.raw), ("--save-machine", args.save_machine)):
        _check_output_path(option, path)
        _check_report_file(option, path, args.force)
        if path is not None:
            same = [o for o, p in paths.items() if os.path.abspath(p) == os.path.abspath(path)]
            if same:
                raise UsageError(f"{option}: {path}: the same file as {same[0]}")
            paths[option] = path
    try:
        recorded = ampsched.record(
            command=command or None,
            pid=args.pid,
            output=args.output,
            force=args.force,
            policy=args.policy,
            interval_ms=args.interval,
            emulate=args.emulate,
            cores=args.cores,
            machine=args.machine,
            seed=args.seed,
            keep_command=args.keep_command,
            max_phases=args.max_phases,
            raw=args.raw,
            accept_partial=args.accept_partial,
            from_raw=args.from_raw,
        )
    except RuntimeError as error:  # something failed under the agent; its affinities are restored
        _error(error)
        return 1
    if args.save_machine is not None:
        _write_output("--save-machine", args.save_machine, json.loads(recorded.raw)["machine_toml"])
    if recorded.report is not None:
        _print_notes([recorded.report])
    if recorded.partial is not None:
        print(f"ampsched record: note: the recording is partial: {recorded.partial}", file=sys.stderr)
    status = json.loads(recorded.raw).get("exit_status", 0)
    if status != 0:
        print(f"ampsched record: note: the command exited with status {status}; its run is recorded", file=sys.stderr)
    machine = args.machine or args.save_machine
    replay = _record.replay_command(args.output, machine or "MACHINE.toml", args.policy)
    for line in _record.summary_lines(recorded.summary, args.output, replay):
        print(line, file=sys.stderr)
    if machine is None:
        spec = f" --emulate {args.emulate}" if args.emulate else f" --cores {args.cores}" if args.cores else ""
        print(
            f"    (MACHINE.toml: the machine it ran on: --save-machine FILE writes it, or `ampsched topology{spec} "
            "--save MACHINE.toml`)",
            file=sys.stderr,
        )
    # The command's exit status, as `agent` gives it (a conversion of a raw file: 0).
    return status if args.from_raw is None else 0


def _print_notes(reports: list) -> None:
    """The reports' notes on stderr, each once (a comparison's runs share most): said rather than
    left in the JSON, as "the policy had nothing to do" would be behind a silent 0 decisions."""
    for note in dict.fromkeys(n for r in reports for n in r.get("notes", [])):
        print(f"ampsched agent: note: {note}", file=sys.stderr)


def _agent_options(args) -> dict:
    """ampsched.agent's keywords from the agent subcommand's options."""
    return dict(
        interval_ms=args.interval,
        emulate=args.emulate,
        emulate_period_ms=args.emulate_period,
        cores=args.cores,
        machine=args.machine,
        locks=not args.no_locks,
        status=True,
        seed=args.seed,
        until_tree_exits=args.until_tree_exits,
        runtime_threads=args.runtime_threads,
        decide_limit_ms=args.decide_limit,
    )


def _agent_compare(args, command) -> int:
    """`agent --policies a,b --repeat N -- CMD`: the comparison's table on stderr (stdout is the
    command's), its runs and summary as JSON on stdout with --json. The exit status is the
    first failed run's (as `agent` gives it), else 0."""
    if args.policies is None:
        raise UsageError("--repeat: only with --policies P1,P2,...")
    if args.pid:
        raise UsageError("--pid: a comparison (--policies) launches its command; give it after --")
    if not command:
        raise UsageError("--policies: give the command to compare them on after --")
    if args.trace is not None:
        raise UsageError("--trace: one run's; trace a policy's run with --policy P")
    if args.force and args.output is None:
        raise UsageError("--force: only with --output DIR")
    policies = ampsched.split_policies(args.policies)
    repeat = DEFAULT_REPEAT if args.repeat is None else args.repeat
    total = len(policies) * repeat

    def on_run(row, report):
        print(
            f"ampsched agent: run {row['run']}/{total} (round {row['round']}): {row['policy']}: "
            f"{row['wall_s']:.2f} s, exit {agent_exit_status(report)}",
            file=sys.stderr,
        )

    try:
        result = ampsched.agent_compare(
            policies,
            command,
            repeat=repeat,
            output=args.output,
            force=args.force,
            on_run=on_run,
            **_agent_options(args),
        )
    except RuntimeError as error:  # failed under the agent; the reports of the runs before are kept
        _error(error)
        return 1
    _print_notes(result.reports)
    if args.json:
        print(json.dumps(result.raw, indent=1))
    else:
        print(format_agent_compare(result.raw), file=sys.stderr)
    failed = [agent_exit_status(r) for r in result.reports if agent_exit_status(r) != 0]
    return failed[0] if failed else 0


def _check_report_file(option: str, path, force: bool) -> None:
    """Refuses, before the agent starts the command, an existing report unless `force`: a live
    run's report cannot be made again. (What is never written, a symlink or a FIFO, is refused
    by _check_output_path.)"""
    if path is not None and os.path.lexists(path) and not force:
        raise UsageError(f"{option}: {path} exists: give another name, or --force to replace it")


def agent_exit_status(report: dict) -> int:
    """The command's exit status, as a shell reports it; 128 + N when a signal stopped it or the agent."""
    status = (report.get("target") or {}).get("status") or {}
    if status.get("exit_code") is not None:
        return int(status["exit_code"])
    sig = status.get("signal") or report.get("stopped_by")
    if isinstance(sig, str):
        if sig in signal.Signals.__members__:
            return 128 + signal.Signals[sig].value
        if sig.startswith("signal "):
            return 128 + int(sig.split()[1])
    return 0


# ---- text output (pure functions of the engine's JSON, tested without it)


def _options_text(options: dict) -> str:
    # key=value as a policy spec takes them, so that the text can be pasted back.
    return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in options.items()) or "-"


def _core_types_text(types: list) -> str:
    return (
        " + ".join(f"{t.get('count')}x {t.get('name')} {t.get('freq_ghz')} GHz cap {t.get('capacity')}" for t in types)
        or "-"
    )


def format_catalog(kind: str, entries: list, width=None) -> str:
    """The `ampsched list KIND` table. Sources are long citations that would make every row
    wrap, so they are left to `ampsched list KIND --json`."""
    extra = {
        "machines": (["cores", "core types"], lambda e: [e.get("cores"), _core_types_text(e.get("core_types") or [])]),
        "workloads": (["apps", "threads"], lambda e: [e.get("apps"), e.get("threads")]),
        "policies": (
            ["live", "needs", "options"],
            lambda e: [e.get("live"), ",".join(e.get("needs") or []) or "-", _options_text(e.get("options") or {})],
        ),
        "programs": ([], lambda e: []),
    }[kind]
    headers = ["name"] + extra[0] + ["description"]
    rows = [[e.get("name")] + extra[1](e) + [e.get("description")] for e in entries]
    return format_table(headers, rows, width=width)


def _heading(r: dict, *keys) -> str:
    return " | ".join(f"slice {r[k]} ms" if k == "slice_ms" else f"{k} {r[k]}" for k in keys if r.get(k) is not None)


def format_topology(t: dict) -> str:
    """The `ampsched topology` text."""
    types = format_table(
        ["core type", "cpus", "capacity", "max_freq_khz"],
        [[c.get("name"), c.get("cpus"), c.get("capacity"), c.get("max_freq_khz")] for c in t.get("core_types", [])],
    )
    llcs = format_table(
        ["llc", "cpus", "size_kb"],
        [[i, llc.get("cpus"), llc.get("size_kb")] for i, llc in enumerate(t.get("llcs", []))],
    )
    lines = [f"core types from: {t.get('source')}", types, llcs] + [f"note: {n}" for n in t.get("notes", [])]
    return "\n\n".join(lines)


def format_agent(r: dict) -> str:
    """The summary `ampsched agent` prints on stderr at the end (stdout is the command's)."""
    agent = r.get("agent", {})
    types = [c["name"] for c in (r.get("machine") or {}).get("core_types", [])]
    rows = [
        [t.get("tid"), t.get("comm"), t.get("kind")]
        + [(t.get("time_s") or {}).get(n) for n in types]
        + [t.get("migrations"), t.get("decisions"), t.get("lock_wait_s"), t.get("lock_wait_caused_s")]
        for t in r.get("threads", [])
    ]
    head = (
        f"ampsched agent: policy {r.get('policy')} | {r.get('stopped_by')} after "
        f"{(r.get('target') or {}).get('wall_s', 0):.2f} s | {agent.get('samples')} samples, "
        f"{r.get('decisions')} decisions, {r.get('migrations')} migrations | agent CPU "
        f"{agent.get('cpu_s', 0):.3f} s ({100 * agent.get('cpu_share', 0):.2f}%)"
    )
    # Where the policy's speedups came from: "core type alone: no hardware counters" tells a user
    # that it could not tell threads apart by how much a fast core helps them.
    speedup = f"speedup: {r.get('speedup')} | counters: {r.get('counters')}"
    if "progress rate" in str(r.get("speedup")):
        # Efficiencies from CPU-time progress rates: what they are worth here (emulated or not).
        speedup += f" | progress rate: {r.get('progress_rate')}"
    shown = rows[:20]
    table = format_table(
        ["tid", "thread", "kind"]
        + [f"{n}_s" for n in types]
        + ["migrations", "decisions", "lock_wait_s", "lock_caused_s"],
        shown,
    )
    more = [f"... and {len(rows) - len(shown)} more threads (--json has them all)"] if len(rows) > len(shown) else []
    left = (r.get("target") or {}).get("processes_left_running") or []
    if left:
        names = ", ".join(f"{p.get('pid')} ({p.get('command')})" for p in left)
        more.append(f"left running, with their affinities restored: {names}")
    return "\n".join([head, speedup, table] + more)


def format_agent_compare(raw: dict) -> str:
    """The `agent --policies` table: per policy and measure (wall time, CPU time per core type),
    the mean, sample sd, min and max over the policy's runs."""
    summary, rows = raw.get("summary", []), raw.get("runs", [])
    stats = ("mean", "sd", "min", "max")
    table = [
        [e.get("policy"), e.get("runs"), e.get("failed"), m] + [e.get(f"{m}_{k}") for k in stats]
        for e in summary
        for m in measures(rows)
    ]
    reports = [r.get("report") for r in rows if r.get("report")]
    notes = ["sd: sample standard deviation (n - 1) over the runs; cpu_TYPE_s: the command's CPU time on TYPE"]
    if reports:
        notes.append(f"reports: {len(reports)} files in {os.path.dirname(reports[0]) or '.'}")
    return "\n".join([format_table(["policy", "runs", "failed", "measure", *stats], table)] + notes)


# A fairness policy's efficiency estimator against the solo profiling runs (Kim & Huh, IEEE TC
# 2018, §7.5), in the runs that have one: the run's mean, max and per-interval error, and per app
# its estimate, true efficiency and errors (docs/policies/fairness.md, "The estimation-error report").
EFFICIENCY_ERROR = ("efficiency_error", "efficiency_error_max", "efficiency_interval_error")
EFFICIENCY_APP_KEYS = ("efficiency_estimate", "efficiency_true", "efficiency_error", "efficiency_interval_error")
# A run on a machine with a mesh (docs/queue-spinlock.md): per app its queue spinlocks, per run
# the network's counts.
QSPIN_APP_KEYS = ("coh_ns", "handoffs", "spin_acquisitions", "sleep_acquisitions", "spin_share", "cs_ns", "roi_ns")
NOC_KEYS = (
    "packets",
    "lock_packets",
    "wakeup_packets",
    "flits",
    "cycles",
    "injection_rate",
    "lock_injection_rate",
    "latency",
    "latency_lock",
)


def format_run(r: dict, width=None) -> str:
    """The `ampsched run` text: the metrics, then per-app and per-core tables."""
    metrics = [m for m in list(METRICS) + ["events", "policy_calls", *EFFICIENCY_ERROR] if m in r]
    app_keys = ["threads", "runs", "turnaround_s", "solo_s", "slowdown", "fast_share"]
    app_keys += [k for k in EFFICIENCY_APP_KEYS if any(k in a for a in r.get("apps", []))]
    apps = [[a.get("name")] + [a.get(k) for k in app_keys] for a in r.get("apps", [])]
    cores = [[c.get("id"), c.get("type"), c.get("busy_s"), shown(c, "energy_j")] for c in r.get("cores", [])]
    rows = [[m, shown(r, m)] for m in metrics]
    if "avg_power_w" in r:  # a machine with power rails (docs/power.md): the mean power and each rail's energy
        rows.append(["avg_power_w", NOT_MODELLED if r["avg_power_w"] is None else r["avg_power_w"]])
        rows += [[f"rail_energy_j.{rail}", joules] for rail, joules in (r.get("rail_energy_j") or {}).items()]
    rows += [[f"noc.{k}", r["noc"].get(k)] for k in NOC_KEYS if "noc" in r]
    qspin = [[a.get("name")] + [a.get(k) for k in QSPIN_APP_KEYS] for a in r.get("apps", []) if "coh_ns" in a]
    return "\n\n".join(
        [
            _heading(r, "policy", "machine", "workload", "seed", "slice_ms"),
            format_table(["metric", "value"], rows, same_decimals=False),
            format_table(["app"] + app_keys, apps, width=width),
        ]
        + ([format_table(["app", *QSPIN_APP_KEYS], qspin, width=width)] if qspin else [])
        + [format_table(["core", "type", "busy_s", "energy_j"], cores, width=width)]
        + ([f"note: {ENERGY_NOTE}"] if energy_unmodelled([r]) else [])
    )


def _note(text: str, width=None) -> str:
    """A note under a table, wrapped to `width` (None: one line), its later lines indented."""
    line = f"note: {text}"
    return line if width is None else textwrap.fill(line, width, subsequent_indent="  ", break_on_hyphens=False)


def format_compare(results: list, width=None) -> str:
    """The `ampsched compare` text: metrics per policy, then slowdown per app and policy."""
    if not results:
        return "no results"
    metrics = [m for m in METRICS if any(m in r for r in results)]
    headers = ["policy"] + ["speedup" if m == "speedup_vs_baseline" else m for m in metrics]
    table = format_table(headers, [[r.get("policy")] + [shown(r, m) for m in metrics] for r in results], width=width)
    notes = ([ENERGY_NOTE] if energy_unmodelled(results) else []) + compare_notes(results)
    table += "".join("\n" + _note(n, width) for n in notes)
    apps = list(dict.fromkeys(a.get("name") for r in results for a in r.get("apps", [])))
    slowdown = [{a.get("name"): a.get("slowdown") for a in r.get("apps", [])} for r in results]
    per_app = format_table(
        ["app"] + [r.get("policy") for r in results],
        [[app] + [s.get(app) for s in slowdown] for app in apps],
        width=width,
    )
    return "\n\n".join(
        [
            _heading(results[0], "machine", "workload", "seed", "slice_ms", "baseline"),
            table,
            "slowdown per app",
            per_app,
        ]
    )
