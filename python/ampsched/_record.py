"""`ampsched record`'s parts that need no engine: the recorded result, the rule for partial
recordings, and the summary's text.

The live run and the conversion are the engine's (`_core.record`: the agent with the preload
library's event log, returning the raw recording; `_core.record_convert`: the raw recording to
workload TOML and a summary of what was measured and what inferred). What is decided here:

- a partial recording (the agent stopped early, threads past its tables, events the log lost) is
  never written as if whole: it is refused, naming why, unless the user accepts it
  (`--accept-partial`); the converter's comment block then says it is partial and why, so that
  no reader of the workload takes it for a whole run;
- the raw recording, when asked for (`--raw`), is written before the conversion, whatever the
  conversion then says: a live run cannot be made again, and the raw file is what was measured.
"""

import json
import os
import shlex

DEFAULT_OUTPUT = "recorded.toml"
# The policy a recording runs under unless told: the "oblivious placement" (asymmetry-
# unaware load balancing, Linux's own), so that the recording is of the program as it runs
# untouched; another policy is for a recording to be compared with a live run under it.
DEFAULT_POLICY = "oblivious"


class Recorded:
    """What `ampsched.record` returns: `toml`, the workload file's text (as written to the
    output); `summary`, the converter's summary (dict: threads, phases, what was measured and
    inferred, the compression error, notes); `raw`, the raw recording (JSON text, what `--raw`
    writes); `report`, the agent's report of the recording run (dict; None for a conversion of a
    raw file); `partial`, why the recording is partial (None when whole); `output`, the file
    written (None if none)."""

    def __init__(self, toml, summary, raw, report=None, partial=None, output=None):
        self.toml, self.summary, self.raw, self.report = toml, summary, raw, report
        self.partial, self.output = partial, output

    def __repr__(self):
        s = self.summary
        return (
            f"Recorded(threads={s.get('threads')}, phases={s.get('phases')}, "
            f"partial={self.partial!r}, output={self.output!r})"
        )


# A command that exits with a failure status within this many of the agent's sampling intervals
# failed "at once": the agent saw it start, not run (a usage error, a missing file). Its recording
# would be a workload of nothing; it is refused rather than written. A command that fails later
# is recorded (the file states its exit status), as a program that exits non-zero by design is.
AT_ONCE_INTERVALS = 2


def failed_at_once(raw: dict):
    """Why the raw recording `raw` (parsed) is of a command that failed at once (see
    AT_ONCE_INTERVALS), one phrase; None otherwise."""
    status, wall, interval = raw.get("exit_status", 0), raw.get("wall_ns", 0), raw.get("interval_ns", 0)
    if status == 0 or wall >= AT_ONCE_INTERVALS * interval:
        return None
    return (
        f"the command failed at once (exit status {status} after {wall / 1e6:.1f} ms, within "
        f"{AT_ONCE_INTERVALS} sampling intervals): nothing to record"
    )


def partial_reason(raw: dict):
    """Why the raw recording `raw` (parsed) is partial, one phrase; None when it is whole."""
    reasons = []
    if raw.get("incomplete"):
        reasons.append(str(raw["incomplete"]))
    lost = raw.get("events_lost") or 0
    if lost:
        reasons.append(f"{lost} synchronisation event{'s' if lost != 1 else ''} lost by the event log")
    return "; ".join(reasons) or None


def summary_lines(summary: dict, output, replay: str) -> list:
    """The short summary `ampsched record` prints on stderr: threads and phases, what was
    measured and what inferred (the converter's counts), the compression error, the converter's
    notes, and the command that replays the file."""
    lines = [f"ampsched record: {summary.get('threads', '?')} threads, {summary.get('phases', '?')} phases"]
    for key in ("measured", "inferred"):
        counts = summary.get(key) or {}
        shown = [_count_text(k, v) for k, v in counts.items() if v]
        if shown:
            lines.append(f"  {key}: " + ", ".join(shown))
    e = summary.get("error") or {}
    if e:
        lines.append(
            f"  compression: {e.get('phases_before')} phases to {e.get('phases_after')}, merged values within "
            f"{_percent(e.get('value'))} of those they replaced; each thread's total instructions within "
            f"{_percent(e.get('compute'))}, its total sleep within {_percent(e.get('wait'))}"
        )
    for note in summary.get("notes") or []:
        lines.append(f"  note: {note}")
    if output is not None:
        lines.append(f"  written to {output}; replay it with:")
        lines.append(f"    {replay}")
    return lines


def _count_text(key: str, value) -> str:
    if key.endswith("_ns") and isinstance(value, (int, float)):
        return f"{value / 1e9:.3f} s {key[: -len('_ns')].replace('_', ' ')}"
    return f"{value} {key.replace('_', ' ')}"


def _percent(x) -> str:
    return f"{100 * x:.2f}%" if isinstance(x, (int, float)) else "?"


def replay_command(output: str, machine: str, policy: str) -> str:
    """The `ampsched run` that replays workload `output` on `machine` under `policy`."""
    return " ".join(
        shlex.quote(a) for a in ("ampsched", "run", "--workload", output, "--machine", machine, "--policy", policy)
    )


def load_raw(path: str) -> str:
    """The raw recording in file `path` (what `--raw` wrote), as text, checked to be a JSON
    object; InputError naming the file otherwise (the converter checks its fields)."""
    from ._files import input_error

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise input_error(f"--from-raw: {path}: not UTF-8 text (not a raw recording)") from None
    except OSError as error:
        raise input_error(f"--from-raw: {path}: {error.strerror or error}") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise input_error(f"--from-raw: {path}: line {error.lineno}: not JSON: {error.msg}") from None
    if not isinstance(value, dict):
        raise input_error(f"--from-raw: {path}: not a raw recording (a JSON object)")
    return text


def default_name(output) -> str:
    """The workload's name: the output file's name without its extension ("recorded")."""
    if output is None:
        return "recorded"
    return os.path.splitext(os.path.basename(os.fspath(output)))[0] or "recorded"
