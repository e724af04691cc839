"""linux-capacity live (docs/policies/linux-capacity.md): the agent applies its wake-up/fork rule
through affinities. CPU 0 is big and CPU 1 emulated at half speed (capacity 512) by cycle
stealing, as in test_agent.py. A new thread's estimate is 512 (`post_init_entity_util_avg`: half
of an idle 1024 CPU), which fits only the big CPU (512 × 1280 < 1024 × 1024, 512 × 1280 ≥
512 × 1024), so linux-capacity moves a CPU-bound thread started on CPU 1 to CPU 0 at the agent's
first sample and keeps it there (on the biggest CPU it is never a misfit). The control,
`oblivious`, leaves it on CPU 1 where `taskset` started it: the program's samples see CPU 1.

Measured as test_agent.py measures: the program's own samples of sched_getcpu(), each standing for
the same work whatever the load (tests/agent/forkjoin.c with one thread and one serial section of
200 ms of work), and the agent's CPU-time accounting. About 0.6 s of CPU in all."""

import sys

import pytest

import ampsched
from test_agent import (
    IS_ROOT,
    TWO_CPUS,
    AGENT_INTERVAL_MS,
    REACTION_INTERVALS,
    agent_run,
    forkjoin_output,
    in_attempts,
    iters_per_ms,  # noqa: F401 (a fixture)
    main_thread,
    programs,  # noqa: F401 (a fixture)
)

pytestmark = [
    pytest.mark.skipif(ampsched._core is None, reason="the Rust engine is not built"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the agent is Linux-only"),
    pytest.mark.skipif(not IS_ROOT, reason="needs root (real-time cycle stealing, moving threads)"),
    pytest.mark.skipif(not TWO_CPUS, reason="names CPU 0 big and CPU 1 little: needs both"),
]

EMULATE = ["--emulate", "small=1:0.5"]


def test_linux_capacity_moves_a_new_heavy_thread_to_the_big_cpu_live(programs, iters_per_ms, tmp_path):  # noqa: F811
    args = ["taskset", "-c", "1", programs["forkjoin"], "1", "1", str(int(200 * iters_per_ms)), "0"]

    def measure():
        r_c, _, rep_c = agent_run(args, "linux-capacity", tmp_path / "c.json", *EMULATE)
        r_o, _, rep_o = agent_run(args, "oblivious", tmp_path / "o.json", *EMULATE)
        (cap, cap_sections), (_, obl_sections) = forkjoin_output(r_c.stdout), forkjoin_output(r_o.stdout)
        main = {"linux-capacity": main_thread(rep_c), "oblivious": main_thread(rep_o)}
        facts = f"linux-capacity: {cap_sections}; oblivious: {obl_sections}; agent: {main}"
        # The samples of a reaction's work (the agent's first sample and the move), + 1 for a partial one.
        reaction = REACTION_INTERVALS * AGENT_INTERVAL_MS * iters_per_ms / int(cap["sample_iters"]) + 1
        assert cap_sections[0]["off_cpu0"] <= reaction, facts
        assert obl_sections[0]["on_cpu0"] == 0, facts
        big, small = main["linux-capacity"]["time_s"]["big"], main["linux-capacity"]["time_s"]["small"]
        assert big > 4 * small, facts
        return facts

    print(in_attempts(measure))
