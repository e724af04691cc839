"""Plain-text output for the command line: numbers, aligned tables and compare's progress bar.

Free of pandas and of the compiled engine so that the CLI starts fast and these parts
can be tested on their own.
"""

import math
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
    """A progress(done, total, label) callback for the engine's compare: a tqdm bar (the one
    progress bar library of the package: sweeps use it too) with the policy being run as its
    label.

    It draws only when the stream is a terminal: in a pipe, a log or CI, carriage returns
    would only be noise. The bar is removed when done == total (or on clear()), so that what
    follows starts on a clean line. tqdm is imported on first use, so that the CLI starts fast.
    """

    def __init__(self, stream=None):
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self._bar = None

    def __call__(self, done: int, total: int, label: str = "") -> None:
        if not self.enabled:
            return
        if total <= 0 or done >= total:
            self.clear()
            return
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=label, file=self.stream, unit="run", leave=False, dynamic_ncols=True)
        self._bar.n = max(done, 0)
        self._bar.set_description_str(label)  # redraws: a call per run of a policy, a few per compare

    def clear(self) -> None:
        if self._bar is not None:
            self._bar.close()  # leave=False: tqdm blanks its line
            self._bar = None
