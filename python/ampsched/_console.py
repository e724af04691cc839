"""Plain-text output for the command line: numbers, aligned tables and compare's progress bar.

Free of pandas and of the compiled engine so that the CLI starts fast and these parts
can be tested on their own.
"""

import math
import sys
import textwrap
import time


def _decimals(size: float) -> int:
    # Fewer decimals as numbers grow: 1.234, 250.0, 30750, all of similar width.
    return 3 if size < 100 else 1 if size < 10_000 else 0


def format_value(value, decimals=None) -> str:
    """A cell's text; floats get `decimals` decimals, or as many as their size calls for."""
    if value is None:
        return "-"
    if isinstance(value, bool):  # before int: bool is an int subclass
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if decimals is None:
            decimals = _decimals(abs(value))
        return f"{value:.{decimals}f}"
    return str(value)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# A text column narrower than this is not wrapped further: a description in lines of a few words
# is harder to read than a table split into blocks.
MIN_WRAPPED = 24
GAP = 2  # spaces between columns


def format_table(headers, rows, same_decimals: bool = True, width=None) -> str:
    """An aligned text table; columns holding only numbers (or blanks) are right-aligned.
    With same_decimals, a column's floats share one number of decimals so that the points
    line up; a column of unlike quantities (metric, value) wants it off.

    With `width`, the table keeps within that many columns: its widest text columns are wrapped
    (down to MIN_WRAPPED), and if that is not enough, the columns are split into blocks one
    under the other, each starting with the first column (the row's name)."""
    numeric = [all(row[i] is None or _is_number(row[i]) for row in rows) for i in range(len(headers))]
    decimals = []
    for i in range(len(headers)):
        sizes = [abs(row[i]) for row in rows if isinstance(row[i], float) and math.isfinite(row[i])]
        decimals.append(_decimals(max(sizes)) if same_decimals and numeric[i] and sizes else None)
    cells = [[format_value(v, d) for v, d in zip(row, decimals)] for row in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
    if width is not None:
        # Wrap the widest text column first, a little at a time, until the table fits.
        while sum(widths) + GAP * (len(widths) - 1) > width:
            texts = [i for i in range(len(widths)) if not numeric[i] and widths[i] > MIN_WRAPPED]
            if not texts:
                break
            i = max(texts, key=lambda j: widths[j])
            excess = sum(widths) + GAP * (len(widths) - 1) - width
            widths[i] = max(MIN_WRAPPED, widths[i] - excess, len(headers[i]))
    blocks = [list(range(len(headers)))]
    if width is not None and len(headers) > 1:
        blocks, block = [], [0]
        for i in range(1, len(headers)):
            if len(block) > 1 and sum(widths[j] for j in block + [i]) + GAP * len(block) > width:
                blocks.append(block)
                block = [0]
            block.append(i)
        blocks.append(block)
    return "\n\n".join(_block(headers, cells, numeric, widths, block) for block in blocks)


def _block(headers, cells, numeric, widths, columns) -> str:
    """The lines of `columns` of a table, a cell longer than its column wrapped onto more lines."""

    def lines(texts):
        parts = [
            textwrap.wrap(texts[i], widths[i]) or [""] if len(texts[i]) > widths[i] else [texts[i]] for i in columns
        ]
        out = []
        for k in range(max(len(p) for p in parts)):
            padded = []
            for p, i in zip(parts, columns):
                t = p[k] if k < len(p) else ""
                padded.append(t.rjust(widths[i]) if numeric[i] else t.ljust(widths[i]))
            out.append((" " * GAP).join(padded).rstrip())
        return out

    out = lines(headers) + lines(["-" * w for w in widths])
    for row in cells:
        out.extend(lines(row))
    return "\n".join(out)


# A run or compare shorter than this shows nothing: a bar that flashes for a second is noise, and
# a newcomer waiting longer wants to see that something is running (issue 25: a run of 15 minutes
# showed no sign of life).
SHOW_AFTER_S = 2.0


def duration_text(seconds: float) -> str:
    """A wall time as a person reads it: 45 s, 12 min, 3.5 h, 2.1 days."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


class ProgressBar:
    """The progress of a run or compare on stderr: a tqdm bar (the one progress bar library of
    the package: sweeps use it too) of the events used against the event budget, with the
    simulated time, the rate and, in a compare, the policy being run.

    The engine calls tick(sim_s, events, max_events) a few times a second during its runs, and
    a compare calls the bar itself, progress(done, total, label), before each policy's. It draws
    only when the stream is a terminal (in a pipe, a log or CI, carriage returns would only be
    noise) and once `show_after_s` have passed. The bar is removed when done == total (or on
    clear()), so that what follows starts on a clean line. tqdm is imported on first use, so
    that the CLI starts fast. rate() is the events per second measured, drawn or not.
    """

    def __init__(self, stream=None, show_after_s: float = SHOW_AFTER_S):
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self.show_after_s = show_after_s
        self.started = time.monotonic()
        self.label = ""
        self.events = 0
        self._bar = None

    def __call__(self, done: int, total: int, label: str = "") -> None:
        if total <= 0 or done >= total:
            self.clear()
            return
        self.label = f"{label} ({done + 1}/{total})"
        if self._bar is not None:
            self._bar.set_description_str(self.label)

    def tick(self, sim_s: float, events: int, max_events: int) -> None:
        self.events = events
        if not self.enabled or time.monotonic() - self.started < self.show_after_s:
            return
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(
                total=max_events,
                desc=self.label,
                file=self.stream,
                unit="ev",
                unit_scale=True,
                leave=False,
                dynamic_ncols=True,
            )
        self._bar.n = min(events, max_events)
        self._bar.set_postfix_str(f"{sim_s:.3g} s simulated")  # redraws (tqdm's own rate limit)

    def rate(self):
        """Events per second so far, or None before any was counted."""
        elapsed = time.monotonic() - self.started
        return self.events / elapsed if self.events and elapsed > 0 else None

    def clear(self) -> None:
        if self._bar is not None:
            self._bar.close()  # leave=False: tqdm blanks its line
            self._bar = None
