"""Stage 4c: requirement checks on what the submission did while it ran.

The child records which watched callables were invoked and how the traced
functions nested (``instrument``); the dependence probe reran cases with the
inner transform's results perturbed. Here, in the trusted judge, those records are
held against the problem's ``[requirements]``.
"""
from __future__ import annotations

import numpy as np

from ..common.trees import get_path
from ..problem import Requirements
from ..sandbox.request import RunResult
from ..sandbox.wire import Leaf
from .results import CheckResult


def _is_subsequence(needle: tuple[str, ...], hay: list[str]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


def _lines(calls: dict, name: str) -> str:
    lines = [line for line in calls.get(name, []) if type(line) is int]
    return f" (called at line {', '.join(map(str, lines[:5]))})" if lines else ""


def check_runtime(run: RunResult, req: Requirements) -> list[CheckResult]:
    if run.runtime is None:
        return []
    calls = run.runtime.get("calls", {}) if isinstance(run.runtime.get("calls"), dict) else {}
    nests = [list(map(str, n)) for n in run.runtime.get("nests", []) if isinstance(n, list)]
    results: list[CheckResult] = []
    ran = {name for stack in nests for name in stack}  # traced functions that really executed
    for name in req.calls:
        ok = name in calls or name in ran
        results.append(CheckResult(
            f"calls {name}", ok, f"{name} was called{_lines(calls, name)}" if ok else
            f"{name} is in the code but was never called while it ran (dead code, or an unused helper?)"))
    for rule in req.nest:
        ok = any(_is_subsequence(tuple(rule), stack) for stack in nests)
        outer, inner = rule[0], rule[-1]
        if ok:
            msg = f"{outer} was applied to a function that calls {inner}"
        elif outer in calls:
            msg = (f"{outer} was called{_lines(calls, outer)} but never on a function that calls {inner}; "
                   f"expected {outer}({inner}(...))")
        else:
            msg = f"expected {outer} applied to a function built with {inner}; {outer} was never called"
        results.append(CheckResult(f"{' of '.join(rule)}", ok, msg))
    for name in req.forbid:
        ok = name not in calls
        results.append(CheckResult(f"never calls {name}", ok,
                                   "not called" if ok else f"{name} was called{_lines(calls, name)}; it is not allowed here"))
    results.extend(_dependence(run, req))
    results.extend(_vectorized(run, req))
    results.extend(_traced(run, req))
    return results


def _traced(run: RunResult, req: Requirements) -> list[CheckResult]:
    """The entry ran under jax.jit on every case, traced once per input shape: no Python
    branching on traced values, no conversion of a traced argument to a Python number."""
    if not req.traced:
        return []
    jit = run.runtime.get("jit") or {}
    name = "traced under jax.jit"
    if jit.get("mode") != "jit":
        why = jit.get("broke") or "no record of how the function ran"
        return [CheckResult(name, False, f"the function could not run under jax.jit with traced arguments ({why}); "
                            f"use lax.cond, jnp.where or lax.fori_loop instead of Python control flow on values")]
    traces, shapes = jit.get("traces"), jit.get("signatures")
    if traces is None or shapes is None:
        return [CheckResult(name, False, "no record of how often the function was traced")]
    if traces > shapes:
        return [CheckResult(name, False, f"the function was traced {traces} times for {shapes} input shape(s): "
                            f"it retraces on values that should stay traced")]
    return [CheckResult(name, True, f"one trace per input shape ({traces} for {shapes})")]


def _vectorized(run: RunResult, req: Requirements) -> list[CheckResult]:
    if not req.vectorized or len(run.sizes) < 2:
        return []
    dims = "/".join(req.vectorized)
    (small, large) = run.sizes[:2]
    if small["eqns"] is None or large["eqns"] is None:
        return [CheckResult("vectorized", True, f"could not trace the function to measure it "
                            f"({small.get('error') or large.get('error')}); not judged")]
    ok = large["eqns"] <= small["eqns"]
    sizes = f"{small['eqns']} operations at {dims}={small['size']}, {large['eqns']} at {dims}={large['size']}"
    return [CheckResult("vectorized", ok, f"the traced program does not grow with {dims} ({sizes})" if ok else
                        f"the traced program grows with {dims} ({sizes}): a Python loop over {dims}? "
                        f"Express it with a transform so that one program serves every size")]


def dependence_settled(run: RunResult, req: Requirements) -> bool:
    """False when the probes so far leave a required output unchanged: more cases may
    show that it does depend on the transform after all."""
    return all(c.passed for c in _dependence(run, req))


def _dependence(run: RunResult, req: Requirements) -> list[CheckResult]:
    if not req.depends or not req.poison:
        return []
    source = "(".join(req.poison) + "(...)" + ")" * (len(req.poison) - 1)
    pairs = [(p, run.cases.get(p.id)) for p in run.probes]
    pairs = [(p, base) for p, base in pairs if base is not None and base.status == "ok"]
    if not pairs:
        return []  # nothing ran cleanly to compare; the case verdicts speak instead
    if any(p.status != "ok" for p, _ in pairs):
        return [CheckResult("results come from the transforms", True,
                            f"perturbing {source} changed the outcome of a case")]
    # An output counts as derived when it moves on at least one probed case.
    unchanged = [d for d in req.depends if all(_same_leaf(base.output, p.output, d) for p, base in pairs)]
    ok = not unchanged
    return [CheckResult(
        "results come from the transforms", ok,
        f"every required output depends on {source}" if ok else
        f"{', '.join(repr(u) for u in unchanged)} did not change when the result of {source} was "
        f"perturbed: the output is computed some other way, and the transform call is a decoy")]


def _same_leaf(a_tree, b_tree, dotted_path: str) -> bool:
    path = tuple(dotted_path.split("."))
    a, b = get_path(a_tree, path, None), get_path(b_tree, path, None)
    return isinstance(a, Leaf) and isinstance(b, Leaf) and a.array.shape == b.array.shape and \
        np.array_equal(a.array, b.array, equal_nan=True)
