"""BusyFcs in Python: never leave a fast core idle while a slow core runs a thread (Sáez
thesis, ch. 5 baseline "BusyFCs", after Balakrishnan et al.).

A port of the Rust `busyfcs` (crates/policy/src/thesis/busyfcs.rs) and of the core
partitions it uses (crates/policy/src/common/partition.rs), decision for decision, with
moves that target whole partitions: its results are byte-identical to those of
`busyfcs:prefer_local=false` (the Rust policy's topology-aware targets, on by default,
are not ported). Copy it as a start for a policy of your own:

    ampsched run --machine 2fc-2sc-amd --workload hh1 --policy busyfcs.py:BusyFcs

Threads start in the partition of lowest scaled load (thesis §2.3). Whenever a fast core
would idle (a thread blocked or exited there) and a slow-partition thread is runnable, that
thread moves to the fast partition at once: the one with the least fast-core time so far
(ties: lowest id), which spreads the fast cores over the threads. When woken threads
overload the fast partition while a slow core idles, the fast thread with the most
fast-core time moves back.
"""

import ampsched


class Partitions:
    """Sáez thesis, §2.3: threads are assigned to partitions of same-capacity cores, one per
    capacity level of the machine, fastest first; the local scheduler balances inside one.

    A thread's partition is read from its affinity in the view (what was really applied),
    overlaid by this call's decisions. The runnable threads of each partition are kept up to
    date from the view's `changed` list, so that a call costs O(changes)."""

    def __init__(self, machine):
        self.levels = [frozenset(level["cores"]) for level in machine["capacity_levels"]]
        self.level_cores = [sorted(level) for level in self.levels]
        self.runnable = [set() for _ in self.levels]
        self.level_of = {}  # thread -> its partition, or None while its affinity spans several
        self.counted = {}  # runnable thread -> the partition it is counted in
        self.synced_call = 0

    def load(self, level):
        return len(self.runnable[level])

    def ncores(self, level):
        return len(self.levels[level])

    def level_of_cores(self, cores):
        """The partition that holds every core of `cores`, if one does."""
        if not cores:
            return None
        return next((i for i, level in enumerate(self.levels) if level.issuperset(cores)), None)

    def sync(self, view):
        """Catch up with the threads that changed since the last call, or with every live
        thread if a call was missed."""
        call = view.call
        if call == self.synced_call:
            return
        if call == self.synced_call + 1:
            for t in view.changed:
                self.refresh(view.thread(t))
        else:
            self.runnable = [set() for _ in self.levels]
            self.level_of, self.counted = {}, {}
            for t in view.live:
                self.refresh(view.thread(t))
        self.synced_call = call

    def refresh(self, thread):
        level = None if thread.state == "exited" else self.level_of_cores(thread.allowed)
        self.level_of[thread.id] = level
        self.recount(thread.id, level if thread.runnable else None)

    def recount(self, t, level):
        old = self.counted.get(t)
        if old != level:
            if old is not None:
                self.runnable[old].discard(t)
            if level is not None:
                self.runnable[level].add(t)
            self.counted[t] = level

    def assign(self, view, t, level, out):
        """Put thread `t` in partition `level`."""
        if self.level_of.get(t) == level:
            return
        self.level_of[t] = level
        out.set(t, self.level_cores[level])
        if view.thread(t).runnable:
            self.recount(t, level)

    def place_new(self, view, t, out):
        """The partition of lowest scaled load ⌊runnable / (⌊P⌋ × cores)⌋, ties to the faster;
        ⌊P⌋ = 1, as on every machine of the thesis (fast/slow ratio ≤ 2)."""
        own = self.counted.get(t)
        level = min(range(len(self.levels)), key=lambda lv: ((self.load(lv) - (own == lv)) // self.ncores(lv), lv))
        self.assign(view, t, level, out)

    def keep_fast_busy(self, view, out, pick):
        """Up: while a partition has fewer runnable threads than cores and a slower one has
        runnable threads, the thread `pick` prefers moves up from the nearest such. Down:
        while a partition has more runnable threads than cores and a slower one has fewer,
        the thread `pick` prefers moves down to the nearest such."""
        n = len(self.levels)
        if n < 2:
            return
        for to in range(n - 1):
            while self.load(to) < self.ncores(to):
                source = next((lv for lv in range(to + 1, n) if self.load(lv) > 0), None)
                if source is None:
                    break
                self.assign(view, pick(view, self.runnable[source], up=True), to, out)
        for source in range(n - 1):
            while self.load(source) > self.ncores(source):
                to = next((lv for lv in range(source + 1, n) if self.load(lv) < self.ncores(lv)), None)
                if to is None:
                    break
                self.assign(view, pick(view, self.runnable[source], up=False), to, out)


class BusyFcs(ampsched.Policy):
    quantum_ms = None
    triggers = ("start", "exit", "block", "wake")

    def __init__(self):
        self.parts = None  # made at the first call, from the run's machine

    @staticmethod
    def pick(view, candidates, up):
        """Up: the least fast-core time, ties to the lowest id. Down: the most, ties to the
        lowest id."""
        threads = [view.thread(t) for t in candidates]
        if up:
            return min(threads, key=lambda th: (th.fast_time_ns, th.id)).id
        return max(threads, key=lambda th: (th.fast_time_ns, -th.id)).id

    def decide(self, view):
        if self.parts is None:
            self.parts = Partitions(view.machine)
        out = ampsched.Placement()
        self.parts.sync(view)
        if view.trigger == "start":
            self.parts.place_new(view, view.trigger_thread, out)
        self.parts.keep_fast_busy(view, out, self.pick)
        return out
