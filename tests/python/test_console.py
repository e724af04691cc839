"""Number formatting, text tables and the progress bar."""

import io

from ampsched._console import ProgressBar, duration_text, format_table, format_value


def test_format_value():
    assert format_value(None) == "-"
    assert format_value(True) == "yes"
    assert format_value(120) == "120"
    assert format_value(1.4) == "1.400"
    assert format_value(250.04) == "250.0"
    assert format_value(30750.4) == "30750"
    assert format_value(float("nan")) == "nan"
    assert format_value("rr") == "rr"


def test_table_aligns_numbers_right_and_text_left():
    text = format_table(["policy", "antt", "migrations"], [["rr", 1.4, 120], ["fair:alpha=0.5", 12.25, None]])
    lines = text.splitlines()
    assert lines[0].split() == ["policy", "antt", "migrations"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert lines[2] == "rr               1.400         120"
    assert lines[3] == "fair:alpha=0.5  12.250           -"


def test_table_empty_rows():
    assert format_table(["a", "b"], []).splitlines() == ["a  b", "-  -"]


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_silent_when_not_a_terminal():
    stream = io.StringIO()
    bar = ProgressBar(stream, show_after_s=0)
    for done in range(4):
        bar(done, 3, "rr")
        bar.tick(1.5, 1000 * done, 10_000)
    bar.clear()
    assert stream.getvalue() == ""
    assert bar.events == 3000  # still counted, for the rate an over-budget error reports


def test_progress_waits_before_drawing_on_a_terminal():
    stream = FakeTerminal()
    bar = ProgressBar(stream)  # the default wait: a test's ticks come well before it
    bar(0, 2, "rr")
    bar.tick(1.0, 16384, 10_000_000)
    assert stream.getvalue() == ""


def test_progress_draws_and_clears_on_a_terminal():
    stream = FakeTerminal()
    bar = ProgressBar(stream, show_after_s=0)
    bar(0, 5, "rr:threshold_ms=50")
    bar.tick(2.5, 4000, 10_000)
    shown = stream.getvalue()
    # tqdm's bar of the events against the budget, labelled with the policy and which of the runs
    assert "rr:threshold_ms=50 (1/5)" in shown and "4.00k/10.0k" in shown and "2.5 s simulated" in shown
    bar(3, 5, "rr")
    bar.tick(7.25, 9000, 10_000)
    last = stream.getvalue().rsplit("\r", 1)[-1]
    assert "rr (4/5)" in last and "9.00k/10.0k" in last and "7.25 s simulated" in last
    bar(5, 5, "")
    assert stream.getvalue().endswith("\r")  # the line blanked (leave=False), the cursor at its start
    size = len(stream.getvalue())
    bar.clear()  # already clear: writes nothing more
    assert len(stream.getvalue()) == size


def test_duration_text():
    assert [duration_text(s) for s in (45, 160, 5400, 12 * 3600, 3 * 86400)] == [
        "45 s",
        "3 min",
        "1.5 h",
        "12.0 h",
        "3.0 days",
    ]


def test_a_wide_table_wraps_its_text_column():
    rows = [["rr", 1, "round robin over the fast cores, rotating every quantum"], ["busyfcs", 2, "busy fast cores"]]
    text = format_table(["name", "n", "description"], rows, width=40)
    # name 7 + n 1 + two gaps of 2: 28 columns are left for the description, 55 characters long,
    # wrapped at word ends within 28: "round robin over the fast" (25), "cores, rotating every" (21).
    assert text.splitlines() == [
        "name     n  description",
        "-------  -  ----------------------------",
        "rr       1  round robin over the fast",
        "            cores, rotating every",
        "            quantum",
        "busyfcs  2  busy fast cores",
    ]
    assert format_table(["name", "n", "description"], rows).splitlines()[2].endswith("every quantum")


def test_a_table_of_many_numbers_splits_into_blocks_each_naming_the_row():
    headers = ["policy"] + [f"metric{i}" for i in range(6)]
    text = format_table(headers, [["rr"] + [float(i) for i in range(6)]], width=40)
    # policy 6 + 2 + 4 x (7 + 2) = 44 > 40: three metrics (35 columns) per block.
    assert text.split("\n\n") == [
        "policy  metric0  metric1  metric2\n------  -------  -------  -------\nrr        0.000    1.000    2.000",
        "policy  metric3  metric4  metric5\n------  -------  -------  -------\nrr        3.000    4.000    5.000",
    ]
    assert max(len(line) for line in text.splitlines()) <= 40


def test_a_column_shares_its_decimals():
    lines = format_table(["core", "energy_j"], [[0, 100.0], [1, 40.0], [2, None]]).splitlines()
    assert lines[2:] == ["   0     100.0", "   1      40.0", "   2         -"]
