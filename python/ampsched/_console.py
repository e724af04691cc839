"""Plain-text output for the command line: numbers, aligned tables and a progress bar.

Free of pandas and of the compiled engine so that the CLI starts fast and these parts
can be tested on their own.
"""

import math
import os
import sys


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


def format_table(headers, rows, same_decimals: bool = True) -> str:
    """An aligned text table; columns holding only numbers (or blanks) are right-aligned.
    With same_decimals, a column's floats share one number of decimals so that the points
    line up; a column of unlike quantities (metric, value) wants it off."""
    numeric = [all(row[i] is None or _is_number(row[i]) for row in rows) for i in range(len(headers))]
    decimals = []
    for i in range(len(headers)):
        sizes = [abs(row[i]) for row in rows if isinstance(row[i], float) and math.isfinite(row[i])]
        decimals.append(_decimals(max(sizes)) if same_decimals and numeric[i] and sizes else None)
    cells = [[format_value(v, d) for v, d in zip(row, decimals)] for row in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]

    def line(texts):
        padded = (t.rjust(w) if num else t.ljust(w) for t, w, num in zip(texts, widths, numeric))
        return "  ".join(padded).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(row) for row in cells)
    return "\n".join(out)


class ProgressBar:
    """A progress(done, total, label) callback drawing `[####----] 3/5 label` on one line.

    It draws only when the stream is a terminal: in a pipe, a log or CI, carriage
    returns would only be noise. The line is blanked when done == total (or on clear()),
    so that what follows starts on a clean line.
    """

    def __init__(self, stream=None, width: int = 20):
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self._shown = 0  # characters now on the line, so that a shorter redraw blanks them

    def __call__(self, done: int, total: int, label: str = "") -> None:
        if not self.enabled:
            return
        if total <= 0 or done >= total:
            self.clear()
            return
        filled = self.width * max(done, 0) // total
        text = f"[{'#' * filled}{'-' * (self.width - filled)}] {done}/{total} {label}"
        # A line that wraps cannot be rewritten with '\r', so never reach the last column.
        text = text[: self._columns() - 1]
        self.stream.write("\r" + text.ljust(self._shown))
        self.stream.flush()
        self._shown = len(text)

    def clear(self) -> None:
        if self.enabled and self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0

    def _columns(self) -> int:
        # The width of *this* stream's terminal: stdout may be redirected while stderr is not.
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return 80
