"""Policies that set up a paper's reference configurations, for reproductions. Given to
ampsched.sweep as "path/to/_policies.py:ClassName" (see `policy_spec`), so that the runs go
through the same sweep as every other.

SlowOnly is the "base" configuration of the Sáez thesis's speedups in ch. 6 (§6.1: "Tbase is
the completion time for the application in the 'base' configuration, where only slow cores are
used"): every thread may run on the slow cores only, the local scheduler places it among them.
"""

import os

import ampsched


def policy_spec(class_name: str) -> str:
    return f"{os.path.abspath(__file__)}:{class_name}"


class SlowOnly(ampsched.Policy):
    """Every thread, from its start, on the slowest cores (the last capacity level)."""

    quantum_ms = None
    triggers = ("start",)

    def decide(self, view):
        slow = view.machine["capacity_levels"][-1]["cores"]
        out = ampsched.Placement()
        out.set(view.trigger_thread, slow)
        return out
