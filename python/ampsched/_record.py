"""`ampsched record`'s parts that need no engine: the recorded result, the rule for partial
recordings, the header a partial workload file opens with, and the summary's text.

The live run and the conversion are the engine's (`_core.record`: the agent with the preload
library's event log, returning the raw recording; `_core.record_convert`: the raw recording to
workload TOML and a summary of what was measured and what inferred). What is decided here:

- a partial recording (the agent stopped early, threads past its tables, events the log lost) is
  never written as if whole: it is refused, naming why, unless the user accepts it
  (`--accept-partial`); the file written then opens with a comment block saying it is partial
  and why, so that no reader of the workload takes it for a whole run;
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
# The first line of a partial workload file's header (tests and readers look for it).
PARTIAL_MARK = "# PARTIAL RECORDING"


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


def partial_reason(raw: dict):
    """Why the raw recording `raw` (parsed) is partial, one phrase; None when it is whole."""
    reasons = []
    if raw.get("incomplete"):
        reasons.append(str(raw["incomplete"]))
    lost = raw.get("events_lost") or 0
    if lost:
        reasons.append(f"{lost} synchronisation event{'s' if lost != 1 else ''} lost by the event log")
    return "; ".join(reasons) or None


def partial_header(reason: str) -> str:
    """The comment block a partial workload file opens with (before the converter's own)."""
    return (
        f"{PARTIAL_MARK} (written with --accept-partial): {' '.join(reason.split())}.\n"
        "# It replays only what was recorded; its threads' work and waits past that are missing.\n"
    )


def summary_lines(summary: dict, output, replay: str) -> list:
    """The short summary `ampsched record` prints on stderr: threads and phases, what was
    measured and what inferred (per kind, as the converter counts them), the compression error,
    the converter's notes, and the command that replays the file."""
    lines = [f"ampsched record: {summary.get('threads', '?')} threads, {summary.get('phases', '?')} phases"]
    for key in ("measured", "inferred"):
        counts = summary.get(key)
        if isinstance(counts, dict) and counts:
            lines.append(f"  {key}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()))
        elif counts:
            lines.append(f"  {key}: {counts}")
    error = summary.get("compression_error")
    if error is not None:
        lines.append(f"  compression error: {_error_text(error)}")
    for note in summary.get("notes") or []:
        lines.append(f"  note: {note}")
    if output is not None:
        lines.append(f"  written to {output}; replay it with:")
        lines.append(f"    {replay}")
    return lines


def _error_text(error) -> str:
    if isinstance(error, (int, float)):
        return f"{100 * error:.2f}% of the recorded CPU time"
    if isinstance(error, dict):
        return ", ".join(f"{k} {_error_text(v) if isinstance(v, (int, float)) else v}" for k, v in error.items())
    return str(error)


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
