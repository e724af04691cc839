import ampsched


class BusiestFast(ampsched.Policy):
    """Every 40 ms, the threads that ran longest in the last 40 ms get the fast cores."""

    quantum_ms = 40
    triggers = ()  # the periodic call only

    def decide(self, view):
        fast = view.machine["fast_cores"]
        slow = [c["id"] for c in view.machine["cores"] if not c["fast"]] or fast
        ran_ns = {t: sum(c["time_ns"] for c in view.interval(t)) for t in view.live}
        busiest = set(sorted(view.live, key=lambda t: -ran_ns[t])[: len(fast)])
        out = ampsched.Placement()
        for t in view.live:
            out.set(t, fast if t in busiest else slow)
        return out
