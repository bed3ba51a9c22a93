"""The runtime checks stage: requirement checks on what the submission did while it ran.

The child records which watched callables were invoked and how the traced
functions nested (``instrument``), and whether the entry ran under jax.jit. Here,
in the trusted judge, that record is held against the problem's
``[requirements]``. Evidence that is missing (the record never came back, the
child died collecting it, a case ended the process before it) fails every rule that
needs it: never a pass.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from ..problem import Case, Problem, Requirements
from ..problem.inputs import InputError, input_dims
from ..sandbox.messages import JitReport
from ..sandbox.request import RunResult
from .probe_checks import MEASURED, check_dependence, check_vectorized, missing_evidence
from .request import measured_case
from .results import CheckResult

if TYPE_CHECKING:
    from .probe_table import ProbeTable
    from .verdict import Ending

# The dependence probe as the pipeline planned it: the table, and per perturbation applied
# its index in the table with the cases rerun under it.
Probe = tuple["ProbeTable | None", list[tuple[int, tuple[str, ...]]]]


def _is_subsequence(needle: tuple[str, ...], hay: tuple[str, ...]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


def _lines(calls: Mapping[str, tuple[int, ...]], name: str) -> str:
    lines = calls.get(name, ())
    return f" (called at line {', '.join(map(str, lines[:5]))})" if lines else ""


def check_runtime(run: RunResult, problem: Problem, probe: Probe | None = None,
                  all_passed: bool = False, ending: "Ending | None" = None) -> list[CheckResult]:
    """Every runtime rule of the problem, judged on the run's evidence. The dependence
    probe, ``(table, [(perturbation index, case ids), ...])``, is judged only when every case passed:
    it tells a decoy from honest code, and a submission with a failing case is told
    about that case instead. ``ending``: the case that ended the process, if one did
    (see ``verdict.ended_by``)."""
    req = problem.meta.requirements
    results = check_record(run, req, ending)
    results += check_vectorized(run, req, frozenset(c.id for c in problem.cases if c.hidden), ending,
                                other_dims(problem, [c for c in problem.cases if c.id in run.cases]))
    if all_passed and probe is not None:
        table, plan = probe
        results += check_dependence(run, problem, table, plan, ending)
    return results


def other_dims(problem: Problem, cases: list[Case]) -> dict[str, tuple]:
    """Per graded case (and ``MEASURED``: the one the size measurement starts from), the
    sizes of the dims that the vectorized rule is not about."""
    meta = problem.meta
    if not meta.requirements.vectorized:
        return {}
    rest = [d for d in meta.dims if d not in meta.requirements.vectorized]

    def key(case: Case) -> tuple:
        try:
            dims = input_dims(meta, case.input)
        except InputError:
            return ()
        return tuple(dims.get(d) for d in rest)

    out = {c.id: key(c) for c in cases}
    first = measured_case(cases)
    if first is not None:
        out[MEASURED] = key(first)
    return out


def _rule_names(req: Requirements) -> list[str]:
    return ([f"calls {name}" for name in req.calls] + [" of ".join(rule) for rule in req.nest]
            + [f"never calls {name}" for name in req.forbid] + (["traced under jax.jit"] if req.traced else []))


def check_record(run: RunResult, req: Requirements, ending: "Ending | None" = None) -> list[CheckResult]:
    if not (req.calls or req.nest or req.forbid or req.traced):
        return []
    if run.runtime is None:  # every rule that needs the record fails, each under its own name
        return [missing_evidence(run, "runtime", "record of the transforms it ran", ending, name)
                for name in _rule_names(req)]
    # The record was checked, shape and bounds, when the host decoded it (messages.RuntimeRecord).
    calls, nests, overflow = run.runtime.calls, run.runtime.nests, run.runtime.overflow
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
        elif overflow:
            msg = (f"the code nested transforms in more ways than the judge records, and {outer}({inner}(...)) "
                   f"was not among those recorded")
        elif outer in calls:
            msg = (f"{outer} was called{_lines(calls, outer)} but never on a function that calls {inner}; "
                   f"expected {outer}({inner}(...))")
        else:
            msg = f"expected {outer} applied to a function built with {inner}; {outer} was never called"
        results.append(CheckResult(f"{' of '.join(rule)}", ok, msg))
    for name in req.forbid:
        ok = name not in calls
        detail = "not called" if ok else f"{name} was called{_lines(calls, name)}; it is not allowed here"
        results.append(CheckResult(f"never calls {name}", ok, detail))
    results.extend(_traced(run.runtime.jit, req))
    return results


def _traced(jit: JitReport, req: Requirements) -> list[CheckResult]:
    """The entry ran under jax.jit on every case: no Python branching on traced values,
    no conversion of a traced argument to a Python number. (The judge traces and compiles
    each input signature once and runs that program for every case of it, so a program
    cannot be traced again for a value.)"""
    if not req.traced:
        return []
    name = "traced under jax.jit"
    if jit.mode != "jit":
        why = jit.broke or "no record of how the function ran"
        return [CheckResult(name, False, f"the function could not run under jax.jit with traced arguments ({why}); "
                            f"use lax.cond, jnp.where or lax.fori_loop instead of Python control flow on values")]
    return [CheckResult(name, True, "ran under jax.jit with traced arguments on every case")]
