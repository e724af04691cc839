"""Policies that set up a paper's reference configurations, for reproductions. Given to
ampsched.sweep as "path/to/_policies.py:ClassName" (see `policy_spec`), so that the runs go
through the same sweep as every other.

SlowOnly is the "base" configuration of the Sáez thesis's speedups in ch. 6 (§6.1: "Tbase is
the completion time for the application in the 'base' configuration, where only slow cores are
used"): every thread may run on the slow cores only, the local scheduler places it among them.
TwolfOnFast and VortexOnFast are the two fixed assignments of MH1 x4 on 4FC-12SC the thesis
compares in ch. 4 (thesis-ch4).
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


class _ProgramOnFast(ampsched.Policy):
    """A fixed assignment decided at each thread's start: every copy of PROGRAM on the fast
    cores, the other apps on the slow ones (the local scheduler places them within). The Sáez
    thesis's MH1 x4 on 4FC-12SC (§4.3.4, Fig. 4.4b): best static put the 4 twolfs on the
    isolated fast chip, HASS-S the 4 vortexes, 7% apart because of cache sharing."""

    program = None
    quantum_ms = None
    triggers = ("start",)

    def decide(self, view):
        fast = view.machine["fast_cores"]
        slow = [c for c in range(len(view.machine["cores"])) if c not in fast]
        t = view.thread(view.trigger_thread)
        name = view.apps[t.app]["name"].split("#")[0]  # copies are named PROGRAM#k
        out = ampsched.Placement()
        out.set(t.id, fast if name == self.program else slow)
        return out


class TwolfOnFast(_ProgramOnFast):
    program = "twolf"


class VortexOnFast(_ProgramOnFast):
    program = "vortex"
