"""BusiestFast: the threads that used the most CPU time in the last interval get the fast cores.

A first policy to copy, which works live as in the simulator. Where a policy that ranks threads
by age puts a program's main thread on the fast core (the oldest, and often idle: it started the
workers and waits for them, as xz's does), this one ranks them by what they did: every
QUANTUM_MS, the threads that ran most since the previous call take the fast cores, one thread a
core, and the others the slow cores, idle ones included (so that an idle thread that wakes up
does not take a fast core from a busy one until the next ranking).

    ampsched run --machine 1fc-3sc --workload hh1 --policy busiest_fast.py:BusiestFast
    ampsched agent --emulate small=1:0.5 --policy busiest_fast.py:BusiestFast -- xz -T2 -k big.tar

(the file is python/ampsched/examples/busiest_fast.py in the source tree). It reads only CPU
time per thread (`total_time_ns`), which the simulator and the agent both measure, so it needs
nothing (`needs` is empty) and runs on any machine. On a machine of one core type there is no
fast core to give: it decides nothing.
"""

import ampsched

# How often the ranking is made, ms: long enough that a thread's CPU time over it says what the
# thread does (tens of the agent's default 10 ms samples, several 4 ms slices of the simulator)
# rather than where it happened to be caught, short enough to follow a program's phases.
QUANTUM_MS = 100.0


class BusiestFast(ampsched.Policy):
    quantum_ms = QUANTUM_MS
    triggers = ()  # the quantum alone: a new thread has no CPU time to rank it by yet

    def __init__(self):
        self.seen_ns = {}  # thread -> its total CPU time at the previous call

    def decide(self, view):
        machine = view.machine
        fast = list(machine["fast_cores"])
        slow = [c for c in range(len(machine["cores"])) if c not in machine["fast_cores"]]
        if not fast or not slow:
            return None  # one core type: nothing to choose
        used = {}
        for t in view.live:
            total = view.thread(t).total_time_ns
            used[t] = total - self.seen_ns.get(t, 0)
            self.seen_ns[t] = total
        # Most CPU time first; a tie goes to the lower id, so that the same view gives the same
        # placement (the simulator's runs are deterministic, and so is this policy).
        ranked = sorted(used, key=lambda t: (-used[t], t))
        out = ampsched.Placement()
        for rank, t in enumerate(ranked):
            out.set(t, fast if rank < len(fast) and used[t] > 0 else slow)
        return out
