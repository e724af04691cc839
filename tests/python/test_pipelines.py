"""Pipelines (docs/pipelines.md) through the command and the Python API: stages run by thread pools
between bounded queues, as the pthreads versions of PARSEC's bodytrack, dedup and ferret. Makespans
derived by hand from the model (at CPI 1 without misses on a 1 GHz core, 1e6 instructions take 1 ms);
crates/sim/tests/it/pipelines.rs has the engine's finer cases."""

import json

import pytest

import ampsched
from test_cli import assert_one_line_error, run_module

pytest.importorskip("ampsched._core")

# Four 1 GHz cores, one for each thread of the pipelines below: no thread waits for a core.
FOUR_CORES = 'name = "four"\nmemory_latency_ns = 100.0\n[[core_type]]\nname = "c"\ncount = 4\nfreq_ghz = 1.0\n'


def three_stages(pool, items=10, capacity=100):
    """A source of 1 ms items, a middle stage of `pool` threads at 3 ms an item, a last stage at 1 ms."""
    return f"""
[[app]]
name = "p"
[[app.queue]]
name = "q1"
capacity = {capacity}
[[app.queue]]
name = "q2"
capacity = {capacity}
[[app.group]]
name = "read"
count = 1
[[app.group.phase]]
kind = "stage"
output = "q1"
items = {items}
instructions = 1e6
[[app.group]]
name = "work"
count = {pool}
[[app.group.phase]]
kind = "stage"
input = "q1"
output = "q2"
instructions = 3e6
[[app.group]]
name = "write"
count = 1
[[app.group.phase]]
kind = "stage"
input = "q2"
ordered = true
instructions = 1e6
"""


@pytest.fixture
def four_cores(tmp_path):
    path = tmp_path / "four.toml"
    path.write_text(FOUR_CORES)
    return str(path)


def makespan_s(machine, text, tmp_path, policy="oblivious"):
    path = tmp_path / "w.toml"
    path.write_text(text)
    return float(ampsched.run(machine, str(path), policy).summary["makespan_s"].iloc[0])


def test_three_stages_take_fill_plus_items_times_the_bottleneck_plus_drain(four_cores, tmp_path):
    # Item i leaves the source at i + 1 ms, the 3 ms stage at 4 + 3i, the last at 5 + 3i: ten
    # items, 1 + 10 × 3 + 1 = 32 ms.
    assert makespan_s(four_cores, three_stages(pool=1), tmp_path) == pytest.approx(0.032, abs=1e-9)


def test_a_pool_of_two_in_the_slow_stage_halves_its_part(four_cores, tmp_path):
    # The pool's threads take items in turn: item 2k leaves the slow stage at 4 + 3k, item 2k + 1
    # at 5 + 3k; the last (9) is written from 17 to 18 ms: 1 + 30 / 2 + 1 + 1.
    assert makespan_s(four_cores, three_stages(pool=2), tmp_path) == pytest.approx(0.018, abs=1e-9)


def test_a_bounded_queue_changes_when_the_source_is_done_not_the_bottleneck(four_cores, tmp_path):
    # Capacity 1 holds the source back, but the 3 ms stage sets the pace either way.
    assert makespan_s(four_cores, three_stages(pool=1, capacity=1), tmp_path) == pytest.approx(0.032, abs=1e-9)


def test_on_exynos5422_a_pool_balances_load_where_equal_parts_wait_for_the_little_cores(tmp_path):
    # The paper's §V: the pipeline programs "balance load and improve as little cores are added".
    # 160 items of 1.6e6 instructions: 1 ms on a Cortex-A15 (1.6 GHz, CPI 1), 3 ms on a Cortex-A7
    # (0.8 GHz, CPI 1.5: the catalog machine's cpi_scale). Eight threads, one per core under
    # `oblivious`. Equal parts (20 items each): the A7s need 60 ms. A pool: the cores retire
    # 4 + 4/3 items a ms, so 160 items take 30 ms (plus the source's 1 µs a item and the last item).
    pool = """
[[app]]
name = "pool"
[[app.queue]]
name = "q"
capacity = 16
[[app.group]]
name = "source"
count = 1
[[app.group.phase]]
kind = "stage"
output = "q"
items = 160
instructions = 1.6e3
[[app.group]]
name = "workers"
count = "cores"
[[app.group.phase]]
kind = "stage"
input = "q"
instructions = 1.6e6
"""
    equal = f"""
[[app]]
name = "equal"
[[app.group]]
name = "workers"
count = "cores"
work = "shared"
[[app.group.phase]]
kind = "compute"
instructions = {160 * 1.6e6}
"""
    static = makespan_s("exynos5422", equal, tmp_path)
    dynamic = makespan_s("exynos5422", pool, tmp_path)
    assert static == pytest.approx(0.060, rel=1e-3)
    assert 0.030 <= dynamic <= 0.032, dynamic


def test_same_seed_same_bytes(four_cores, tmp_path):
    path = tmp_path / "w.toml"
    path.write_text(three_stages(pool=3, items=40, capacity=2).replace("count = 1\n", "count = 2\n", 1))
    outs = [
        run_module("run", "--machine", four_cores, "--workload", str(path), "--policy", "rr", "--json", "--seed", "3")
        for _ in range(2)
    ]
    assert outs[0].returncode == 0, outs[0].stderr
    assert outs[0].stdout == outs[1].stdout
    assert json.loads(outs[0].stdout)["makespan_s"] > 0


def _replace(old, new):
    def change(text):
        assert old in text
        return text.replace(old, new, 1)

    return change


def _writers(count):
    """The last group (the ordered writer) with `count` threads."""

    def change(text):
        head, _, tail = text.rpartition("count = 1\n")
        return f"{head}count = {count}\n{tail}"

    return change


# Two stages each waiting for the other's items.
CYCLE = "".join(
    f'[[app.queue]]\nname = "{q}"\ncapacity = 1\n[[app.group]]\nname = "{g}"\n'
    f'[[app.group.phase]]\nkind = "stage"\ninput = "{q}"\noutput = "{out}"\ninstructions = 1e6\n'
    for q, g, out in (("x", "a", "y"), ("y", "b", "x"))
).replace("[[app.queue]]", '[[app]]\nname = "c"\n[[app.queue]]', 1)

BAD = [
    # (how three_stages(1) is broken, the key the message names, what it says)
    (_replace('output = "q1"\n', ""), "app[0].queue", "queue 'q1' has no producer"),
    (_replace('input = "q2"\nordered = true\n', "items = 4\n"), "app[0].queue", "queue 'q2' has no consumer"),
    (_replace("capacity = 100\n", "capacity = 0\n"), "capacity", "must be a whole number from 1 to 1048576, got 0"),
    (_replace('input = "q1"\n', 'input = "q9"\n'), "input", "unknown queue 'q9' (declared: q1, q2)"),
    (_replace("items = 10\n", ""), "items", "missing"),
    (_replace('input = "q1"\n', 'input = "q1"\nitems = 3\n'), "items", "only a stage without input"),
    (_writers(2), "app[0].group", "runs an ordered stage with more than one thread"),
    (lambda _: CYCLE, "app[0].queue", "queues x, y form a cycle"),
]


@pytest.mark.parametrize("change, key, says", BAD, ids=[b[2] for b in BAD])
def test_bad_pipelines_are_one_line_naming_file_and_key(tmp_path, four_cores, change, key, says):
    path = tmp_path / "bad.toml"
    path.write_text(change(three_stages(pool=1)))
    done = run_module("run", "--machine", four_cores, "--workload", str(path), "--policy", "rr")
    assert done.returncode == 2
    line = assert_one_line_error(done.stderr)
    assert str(path) in line and key in line and says in line, line


def test_a_pipeline_that_cannot_finish_is_reported_not_hung(tmp_path, four_cores):
    # One thread fills a queue of one before it empties it: its second put waits forever.
    path = tmp_path / "stuck.toml"
    path.write_text(
        '[[app]]\nname = "p"\n[[app.queue]]\nname = "q"\ncapacity = 1\n[[app.group]]\nname = "main"\n'
        '[[app.group.phase]]\nkind = "stage"\noutput = "q"\nitems = 3\ninstructions = 1e6\n'
        '[[app.group.phase]]\nkind = "stage"\ninput = "q"\ninstructions = 1e6\n'
    )
    done = run_module("run", "--machine", four_cores, "--workload", str(path), "--policy", "oblivious")
    assert done.returncode == 2
    line = assert_one_line_error(done.stderr)
    assert "the workload can never finish" in line and "room in queue 'q' (full: 1 items)" in line, line
