"""Kim & Huh's share-level model of fair scheduling on asymmetric multicores, for instant what-if
analysis ("Exploring the Design Space of Fair Scheduling Supports for Asymmetric Multicore
Systems", IEEE Trans. Computers 2018, §2-§5).

    import ampsched.fairness as fair
    df = fair.shares(e=[3.3, 3.2, 2.6, 2.1, 1.8, 1.7], policy="min-fair", target=0.85)
    df                       # per thread: e, c, f (fast share), s (slow share), perf_base, T
    df.attrs                 # throughput, min_fairness, uniformity, alpha, and the inputs
    fair.metrics(e=[...], policy="uni-fair", target=0.8)    # the same metrics as a dict
    fair.compare(e=[...])    # one row per policy of the paper, with its metrics

A thread with fast share f and total share c (cores' worth of CPU) runs at e·f + (c − f)
slow-core units; T is that over its base performance (base "fair": an equal share of fast and
slow cores; "slow": always on slow cores; "fast": always on fast cores). The model lives in
Rust (ampsched_policy::fairness::model), where the policies use it too; this module only wraps
it. docs/fairness-model.md gives the formulas and the choices made where the paper is ambiguous.
"""

import math

import pandas as pd

#: The paper's policies, in its order (`compare`'s rows).
POLICIES = ("max-perf", "max-fair", "min-fair", "uni-fair", "sim-fair", "combined-fair")

#: The bases, as `base=` names them: fair share, slow only, fast only (§2.2).
BASES = ("fair", "slow", "fast")

#: The per-thread columns of `shares`.
COLUMNS = ["e", "c", "f", "s", "perf_base", "T"]


def _core():
    from . import _require_core

    return _require_core()


def _numbers(name: str, values) -> list:
    """A list of floats from a sequence of numbers, or InputError naming `name`."""
    error = _core().InputError
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise error(f"ampsched.fairness: {name}: must be a list of numbers, got {values!r}")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
            raise error(f"ampsched.fairness: {name}[{i}]: must be a number, got {v!r}")
        out.append(float(v))
    return out


def _number(name: str, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise _core().InputError(f"ampsched.fairness: {name}: must be a number, got {value!r}")
    return float(value)


def _evaluate(e, base, policy, target, c, fast_cores, similarity, min_target, uni_target, form, safe, e_true=None):
    e = _numbers("e", e)
    e_true = None if e_true is None else _numbers("e_true", e_true)
    c = [1.0] * len(e) if c is None else _numbers("c", c)
    if not isinstance(base, str) or not isinstance(policy, str) or not isinstance(form, str):
        raise _core().InputError(
            f"ampsched.fairness: base, policy and form must be names, got {base!r}, {policy!r}, {form!r}"
        )
    raw = _core().fairness_shares(
        e,
        c,
        _number("fast_cores", fast_cores),
        base,
        policy,
        form=form,
        target=_number("target", target),
        similarity=_number("similarity", similarity),
        min_target=_number("min_target", min_target),
        uni_target=_number("uni_target", uni_target),
        safe=bool(safe),
        e_true=e_true,
    )
    f, perf_base, t, throughput, min_fairness, uniformity, alpha = raw
    frame = pd.DataFrame(
        {"e": e, "c": c, "f": f, "s": [ci - fi for ci, fi in zip(c, f)], "perf_base": perf_base, "T": t},
        columns=COLUMNS,
    )
    frame.index.name = "thread"
    summary = {
        "throughput": throughput,
        "min_fairness": min_fairness,
        "uniformity": uniformity,
        "alpha": math.nan if alpha is None else alpha,
    }
    return frame, summary


def shares(
    e,
    base: str = "fair",
    policy: str = "max-fair",
    target=None,
    c=None,
    fast_cores=2,
    similarity=None,
    min_target=None,
    uni_target=None,
    form: str = "normalised",
    safe: bool = True,
    e_true=None,
) -> pd.DataFrame:
    """The shares a policy of the paper gives a mix, and each thread's throughput.

    Args:
        e: each thread's fast-core efficiency (IPS on a fast core / IPS on a slow core), > 0.
        base: "fair" (fair share), "slow" (slow only) or "fast" (fast only): what T is relative to.
        policy: "max-perf", "max-fair", "min-fair", "uni-fair", "sim-fair" or "combined-fair".
        target: min-fair's minimum T (a fraction: 0.85; above 1 under the slow base, e.g. 1.4);
            uni-fair's uniformity (0.8); for sim-fair, a min-fair target its groups must keep
            (the safe variant; none: the paper's plain averaging).
        c: each thread's total share in cores (default 1 each: one thread per core, the paper's
            experiments).
        fast_cores: the number of fast cores F (the paper's emulated AMP has 2).
        similarity: sim-fair's and combined-fair's efficiency difference within which threads
            share equally (default 0.2, Table 5's value for combined-fair).
        min_target, uni_target: combined-fair's minF and uniformity targets.
        form: "normalised" (default) or "printed": max-fair's slow-only formula, the one that
            solves the paper's condition or the one it prints (they differ only for unequal c).
        safe: combined-fair keeps every thread at its min-fair required share through sim-fair
            (the paper's plain averaging can take one below it); False for the paper's.
        e_true: the efficiencies the outcome is computed with when `e` are estimates (the shares
            are decided on `e`, perf_base and T come from `e_true`: §5.5's sensitivity study).

    Returns:
        A DataFrame indexed by thread with columns e, c, f, s (fast and slow shares), perf_base
        (the base performance in slow-core units) and T; `attrs` holds throughput (mean T),
        min_fairness (min T), uniformity (1 − σ/μ, population σ), alpha (uni-fair's and
        combined-fair's blend of the throughput-oriented shares with max-fair; NaN for the other
        policies) and the inputs (base, policy, fast_cores and the parameters given).

    Raises:
        InputError: an unknown base, policy or form, a parameter the policy does not take or
            lacks, an efficiency or share that is not > 0, mismatched lengths, a target out of
            range; one line naming it.
    """
    frame, summary = _evaluate(
        e, base, policy, target, c, fast_cores, similarity, min_target, uni_target, form, safe, e_true
    )
    frame.attrs.update(summary)
    given = {"target": target, "similarity": similarity, "min_target": min_target, "uni_target": uni_target}
    frame.attrs.update(
        {
            "base": base,
            "policy": policy,
            "fast_cores": float(fast_cores),
            **{k: v for k, v in given.items() if v is not None},
        }
    )
    return frame


def metrics(
    e,
    base: str = "fair",
    policy: str = "max-fair",
    target=None,
    c=None,
    fast_cores=2,
    similarity=None,
    min_target=None,
    uni_target=None,
    form: str = "normalised",
    safe: bool = True,
    e_true=None,
) -> dict:
    """The system metrics of `shares` with the same arguments, as a dict: throughput, min_fairness,
    uniformity, alpha (NaN where the policy has none)."""
    return _evaluate(e, base, policy, target, c, fast_cores, similarity, min_target, uni_target, form, safe, e_true)[1]


def compare(
    e, base: str = "fair", c=None, fast_cores=2, min_target=None, uni_target=None, similarity=None
) -> pd.DataFrame:
    """Every policy of the paper on one mix: a row per policy (max-perf, max-fair, min-fair,
    uni-fair, sim-fair, combined-fair) with throughput, min_fairness, uniformity and alpha.

    min_target defaults to Table 5's value marked for combined-fair under the base (0.85 fair,
    1.4 slow, 0.4 fast) and uni_target to 0.8 (the middle of Table 5's 0.7/0.8/0.9)."""
    min_target = _DEFAULT_MIN_TARGET.get(base, 0.85) if min_target is None else min_target
    uni_target = 0.8 if uni_target is None else uni_target
    params = {
        "max-perf": {},
        "max-fair": {},
        "min-fair": {"target": min_target},
        "uni-fair": {"target": uni_target},
        "sim-fair": {"similarity": similarity},
        "combined-fair": {"similarity": similarity, "min_target": min_target, "uni_target": uni_target},
    }
    rows = []
    for policy in POLICIES:
        m = metrics(e, base=base, policy=policy, c=c, fast_cores=fast_cores, **params[policy])
        rows.append({"policy": policy, **m})
    return pd.DataFrame(rows).set_index("policy")


#: Table 5's minF target marked (*) for combined-fair, per base.
_DEFAULT_MIN_TARGET = {"fair": 0.85, "slow": 1.4, "fast": 0.4}
