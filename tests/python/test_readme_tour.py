"""The README's five-minute tour: its Python policy is the example file, word for word, and it
does what the README says in the simulator (the fast cores go to the threads that ran longest
in the last quantum), with numbers derived by hand from the model."""

import os
import re

import pytest

import ampsched

pytestmark = pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
EXAMPLE = os.path.join("python", "ampsched", "examples", "busiest_fast.py")

# One fast core at 2 GHz and one slow at 1 GHz, CPI 1 and no memory stalls: a thread's time is
# its instructions over the clock. The default migration cost (20 us) applies.
MACHINE = """name = "one-fast-one-slow"
memory_latency_ns = 100.0
[[core_type]]
name = "fast"
count = 1
freq_ghz = 2.0
[[core_type]]
name = "slow"
count = 1
freq_ghz = 1.0
"""
# A CPU-bound thread (4e9 instructions: 2 s on the fast core) beside one that sleeps 50 ms and
# computes 1e6 instructions (1 ms on the slow core), 30 times.
WORKLOAD = """name = "busy-and-sleepy"
[[app]]
name = "busy"
threads = 1
[[app.phase]]
kind = "compute"
instructions = 4e9
[[app]]
name = "sleepy"
threads = 1
repeat = 30
[[app.phase]]
kind = "sleep"
seconds = 0.05
[[app.phase]]
kind = "compute"
instructions = 1e6
"""


def readme_blocks(language):
    with open(README, encoding="utf-8") as f:
        return re.findall(r"^```" + language + r"\n(.*?)^```$", f.read(), re.S | re.M)


def test_the_readme_policy_is_the_example_file_and_its_commands_name_it():
    with open(os.path.join(ROOT, EXAMPLE), encoding="utf-8") as f:
        example = f.read()
    assert example in readme_blocks("python"), "README.md's policy differs from " + EXAMPLE
    commands = "".join(readme_blocks("sh"))
    assert EXAMPLE + ":BusiestFast" in commands


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_tour_policy_gives_the_fast_core_to_the_busy_thread(tmp_path, seed):
    from ampsched.examples.busiest_fast import BusiestFast

    (tmp_path / "m.toml").write_text(MACHINE)
    (tmp_path / "w.toml").write_text(WORKLOAD)
    r = ampsched.run(str(tmp_path / "m.toml"), str(tmp_path / "w.toml"), BusiestFast(), seed=seed)
    apps = r.apps.set_index("name")
    # Before the first call (at 40 ms) both threads may run anywhere: the engine gives the busy
    # one either core. On the fast core it stays: 4e9 / 2 GHz = 2 s. On the slow one it runs
    # 40 ms (4e7 instructions), then moves (20 us) and runs the rest fast: 0.04 + 3.96e9 / 2e9
    # + 0.00002 = 2.02002 s.
    assert apps.loc["busy", "turnaround_s"] in (pytest.approx(2.0, abs=1e-9), pytest.approx(2.02002, abs=1e-9))
    # The sleeper first computes after its first 50 ms of sleep, by then pinned to the slow
    # core: never on the fast one, 30 x (0.05 + 1e6 / 1 GHz) = 1.53 s.
    assert apps.loc["sleepy", "fast_share"] == 0.0
    assert apps.loc["sleepy", "turnaround_s"] == pytest.approx(1.53, abs=1e-9)
