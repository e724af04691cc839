"""Policies written in Python: prototype a scheduler here, port it to Rust when it works.

    import ampsched
    from ampsched.examples.busiest_fast import BusiestFast  # the tour's policy: read its 19 lines

    ampsched.run("2fc-2sc-amd", "hh1", BusiestFast())
    ampsched.compare("2fc-2sc-amd", "hh1", ["oblivious", "rr", BusiestFast()])

and from the command line, a policy is `path/to/file.py:ClassName` wherever a spec goes:

    ampsched run --machine 2fc-2sc-amd --workload hh1 --policy python/ampsched/examples/busiest_fast.py:BusiestFast
    ampsched compare --policies oblivious,rr,python/ampsched/examples/busiest_fast.py:BusiestFast
    ampsched agent --policy python/ampsched/examples/busiest_fast.py:BusiestFast -- ./my_program

A policy is called like a Rust one (crates/model/src/view.rs has the contract): every
`quantum_ms` and on the per-thread events it lists in `triggers`. `decide(view)` reads the
`View` and returns a `Placement`, or None for no change. A run never changes the object you
pass: it runs a copy (copy.deepcopy), so that every run starts from the same state.

The view is a handle on the engine's view, read lazily: only what the policy asks for is
converted, so cost follows what a policy reads, not the number of threads. It is valid only
during the call (after it, any use raises); what it returns are copies. It has:

    now_ns, call, trigger ("quantum", "start", "exit", "block", "wake"), trigger_thread,
    live, changed (thread ids), thread_count, thread(id) (a Thread: id, app, group,
    index_in_group, kind, state, runnable, spinning, core, allowed, started_ns, per_type,
    fast_time_ns, total_time_ns, lock_wait_ns, waiting_for, lock_wait_caused_ns, spin_ns,
    migrations), interval(id), interval_start_ns, apps, cores, lock_edges, available,
    machine (core_types, cores, fast_cores, capacity_levels)

Iterate `live` or `changed`, never every id up to thread_count: exited threads stay in the
table. A field group the source does not measure reads as zero: declare it in `needs` (a
policy whose needs the simulator or the agent does not meet is refused before it runs).

An exception in `decide` (any BaseException but KeyboardInterrupt, which is raised again as
itself), a placement the machine cannot take, or a call still running after its limit (10 s in
the simulator; live, the agent's --decide-limit, 1 s by default: the call is interrupted,
whether it loops or sleeps) ends the run with an InputError naming the policy, the call and the
problem (from the CLI: one line, exit 2); the exception is chained as its __cause__. Live, the
agent stops at once: it restores every thread, sends the command SIGTERM and ends with the error.

Cost per call
-------------
Python policies are for prototyping: a call costs tens of microseconds where a Rust policy's
costs a few (the measured table is in docs/policy-interface.md, "Cost per call"; regenerate it
with `python bench/python_policy.py`). The extra cost follows what the policy reads: on a move,
busyfcs reads every runnable thread of the partition it takes from (view.thread), which is why
it grows with the thread count.

"""

import abc
import copy
import importlib.util
import operator
import os
import sys

__all__ = ["Policy", "Placement", "resolve", "label_of", "is_file_spec", "load"]

TRIGGERS = ("start", "exit", "block", "wake")


class Policy(abc.ABC):
    """A scheduler written in Python. Subclass it and define `decide` (a subclass without it
    cannot be made: Python says so when it is instantiated).

    Class attributes (read once, when a run starts):

    name        the label of its results ("policy" in the JSON); None (default): the class
                name. A policy given as "file.py:ClassName" is labelled by that text.
    quantum_ms  period of the periodic call ("quantum" trigger), in ms, 0.1 to 1e6 as for the
                Rust policies; None (default): the
                policy reacts to events only. The simulator skips the calls that fall while no
                thread runs or waits for a core: read elapsed time from the view's now_ns,
                never by counting calls.
    triggers    the per-thread events it is called for, among "start", "exit", "block",
                "wake"; default: all four. A policy with neither a quantum nor triggers is
                refused.
    needs       what it reads beyond thread states, affinities and CPU time, as names:
                "counters" (instructions, cycles, LLC misses), "locks" (lock waits and who
                caused them), "spin" (spin-wait time), "hints" (per-group program
                signatures), "wakeup" (the OS's wake-up path; never live), "simulator" (an
                oracle; never live). Default: none. Checked
                like a Rust policy's Signals, by the engine, which lists the known names.
    """

    name = None
    quantum_ms = None
    triggers = TRIGGERS
    needs = ()

    @abc.abstractmethod
    def decide(self, view):
        """Return an ampsched.Placement, or None for no change. `view` is valid only
        during this call."""


class Placement:
    """What a policy decides; anything not named keeps its current value (a thread's
    affinity is all cores until a decision names it). The last decision for a thread wins.
    Mirrors the Rust Placement; the engine checks every value against the machine."""

    __slots__ = ("affinity", "fast_share", "slice_ns", "weight", "frequency")

    def __init__(self):
        self.affinity = []
        self.fast_share = []
        self.slice_ns = []
        self.weight = []
        self.frequency = []

    def set(self, thread, cores):
        """Let `thread` run on `cores` (core ids) only."""
        self.affinity.append((operator.index(thread), tuple(map(operator.index, cores))))

    def set_fast_share(self, thread, share):
        """Alternate `thread` between its allowed fast and other cores so that `share`
        (0 to 1) of its CPU time is on fast cores; None ends a share."""
        self.fast_share.append((operator.index(thread), None if share is None else float(share)))

    def set_slice(self, thread, slice_ns):
        """The thread's time slice on the local scheduler, ns; None: the default."""
        self.slice_ns.append((operator.index(thread), None if slice_ns is None else operator.index(slice_ns)))

    def set_weight(self, thread, weight):
        """The thread's CFS weight (1024 = nice 0); None: its app's nice value's."""
        self.weight.append((operator.index(thread), None if weight is None else operator.index(weight)))

    def set_frequency(self, core_type, ghz):
        """Run core type `core_type` at `ghz`, one of the levels its machine declares."""
        self.frequency.append((operator.index(core_type), float(ghz)))

    def is_empty(self):
        return not (self.affinity or self.fast_share or self.slice_ns or self.weight or self.frequency)

    def __repr__(self):
        parts = [f"{k}={getattr(self, k)!r}" for k in self.__slots__ if getattr(self, k)]
        return f"Placement({', '.join(parts)})"


def _input_error(spec, message):
    from . import _require_core

    return _require_core().InputError(f"--policy: {spec}: {message}")


def label_of(policy) -> str:
    """The label a Policy object's results carry: its `name`, else its class name."""
    return policy.name if policy.name is not None else type(policy).__name__


def is_file_spec(text: str) -> bool:
    """True for "path/to/file.py:ClassName" (or a bare "file.py"), a Python policy."""
    return text.split(":", 1)[0].strip().endswith(".py")


def load(spec: str) -> Policy:
    """A new object of the class "path/to/file.py:ClassName" names. Every problem raises
    InputError with one line: the file is missing or does not load, the class is missing or
    is not an ampsched.Policy, or making it raises."""
    spec = spec.strip()
    path, _, class_name = (part.strip() for part in spec.partition(":"))
    if not class_name:
        raise _input_error(spec, f"name the policy class: {path}:ClassName")
    if not os.path.isfile(path):
        raise _input_error(spec, f"no such file: {path}")
    module_name = "_ampsched_policy_" + "".join(ch if ch.isalnum() else "_" for ch in os.path.abspath(path))
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module  # so that its classes can be copied and pickled
    try:
        module_spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise _input_error(spec, f"cannot load {path}: {type(error).__name__}: {error}") from error
    cls = getattr(module, class_name, None)
    if cls is None:
        found = sorted(
            n for n, v in vars(module).items() if isinstance(v, type) and issubclass(v, Policy) and v is not Policy
        )
        known = f" (its policies: {', '.join(found)})" if found else " (it defines no ampsched.Policy subclass)"
        raise _input_error(spec, f"{path} has no class {class_name}{known}")
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise _input_error(spec, f"{class_name} is not a subclass of ampsched.Policy")
    try:
        return cls()
    except Exception as error:
        raise _input_error(spec, f"{class_name}() raised {type(error).__name__}: {error}") from error


def resolve(policy):
    """(label, object) for the engine: a registered spec is (spec, None); a file spec is
    loaded; a Policy object is copied, so that the caller's is never changed by a run."""
    if isinstance(policy, Policy):
        label = label_of(policy)
        try:
            return label, copy.deepcopy(policy)
        except Exception as error:
            raise _input_error(label, f"cannot copy the policy for the run: {type(error).__name__}: {error}") from error
    if isinstance(policy, str):
        if is_file_spec(policy):
            return policy.strip(), load(policy)
        return policy, None
    raise _input_error(
        repr(policy),
        f"a policy is a spec string or an ampsched.Policy object, got an instance of {type(policy).__name__}",
    )
