"""Number formatting, text tables and the progress bar."""

import io

from ampsched._console import ProgressBar, format_table, format_value


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
    bar = ProgressBar(stream)
    for done in range(4):
        bar(done, 3, "rr")
    bar.clear()
    assert stream.getvalue() == ""


def test_progress_draws_and_clears_on_a_terminal():
    stream = FakeTerminal()
    bar = ProgressBar(stream)
    bar(0, 5, "rr:threshold_ms=50")
    bar(3, 5, "rr")
    shown = stream.getvalue()
    assert "rr:threshold_ms=50" in shown and "0/5" in shown  # tqdm's bar, labelled with the policy
    assert "3/5" in shown.rsplit("\r", 1)[-1] and "rr" in shown.rsplit("\r", 1)[-1]
    bar(5, 5, "")
    assert stream.getvalue().endswith("\r")  # the line blanked (leave=False), the cursor at its start
    size = len(stream.getvalue())
    bar.clear()  # already clear: writes nothing more
    assert len(stream.getvalue()) == size


def test_a_column_shares_its_decimals():
    lines = format_table(["core", "energy_j"], [[0, 100.0], [1, 40.0], [2, None]]).splitlines()
    assert lines[2:] == ["   0     100.0", "   1      40.0", "   2         -"]
