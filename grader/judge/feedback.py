"""The feedback stage, after the verdict: what a learner can act on, for what costs
extra sandbox runs, within a time budget per grade.

- Misconception hints (``mistakes``): a failing output that matches a known mistake.
- Counterexample: when only hidden cases fail, a small input from the problem's
  generator on which the submission also fails, shrunk along the problem's dims
  and shown in full instead of the hidden case.
- Cost: compile and run time per case beside the reference's, from the same grade.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..common.verdicts import Verdict
from ..problem import Case, Problem
from ..problem.inputs import InputError, canonical, check_input, input_dims, resized
from ..problem.modules import generated_inputs
from ..report.model import CaseReport
from .mistakes import match_mistake, mistake_table
from .reference import reference_outputs
from .request import make_request
from .submission import load_submission
from .verdict import judge_case

COUNTEREXAMPLE_SEED = 7_340_033  # generator seed reserved for counterexamples
CANDIDATES = 16


@dataclass(frozen=True)
class Advice:
    """What feedback adds to a grade, kept apart from the cases' reports: the grade's
    first misconception hint, a counterexample, and per case id the hint its output
    matches and the reference's costs; ``hint_may_follow`` when no hint matched but some
    mistakes could not be consulted in time. [`on`][grader.judge.feedback.Advice.on] puts a
    case's part on a case report, learner's view or full."""

    hint: str | None = None
    counterexample: dict | None = None
    case_hints: dict[str, str] = field(default_factory=dict)
    reference_costs: dict[str, dict[str, float]] = field(default_factory=dict)
    hint_may_follow: bool = False

    def on(self, case: CaseReport) -> CaseReport:
        """``case`` with its hint and, beside its own cost, the reference's."""
        hint = self.case_hints.get(case.id, case.hint)
        ref = self.reference_costs.get(case.id)
        cost = {**case.cost, **ref} if case.cost is not None and ref is not None else case.cost
        return replace(case, hint=hint, cost=cost)


@dataclass
class Feedback:
    """What feedback a grade adds, within ``budget_seconds`` of extra sandbox work:
    feedback never holds a grade hostage. Hints come from the mistake table that
    ``grader warm`` or ``grader validate`` built ahead; missing entries are built
    while the budget lasts, and a hint that would need more time is left out."""

    hints: bool = True
    counterexample: bool = True
    cost: bool = False
    budget_seconds: float = 2.5

    def apply(self, problem: Problem, sub, judged: list, verdict: str, sandbox) -> Advice:
        """The grade's advice, for a grade whose overall ``verdict`` is known; the
        report is built from it after. ``judged`` is read, never changed."""
        deadline = time.monotonic() + self.budget_seconds
        hint, counterexample, case_hints, may_follow = None, None, {}, False
        failing = [j for j in judged if j.report.verdict == Verdict.WA.value and j.got is not None]
        if self.hints and failing:
            table = mistake_table(problem, sandbox, deadline)
            matched = ((j.case.id, match_mistake(problem, j.case, j.got, table)) for j in failing)
            case_hints = {cid: h for cid, h in matched if h}
            hint = next((case_hints[j.case.id] for j in judged if j.case.id in case_hints), None)
            may_follow = hint is None and not table.complete
        only_hidden = any(j.case.hidden and j.report.verdict not in ("AC", "--") for j in judged) and \
            not any(not j.case.hidden and j.report.verdict not in ("AC", "--") for j in judged)
        if self.counterexample and only_hidden and verdict in ("WA", "RE") and time.monotonic() < deadline:
            counterexample = find_counterexample(problem, sub, sandbox, deadline)
        costs = reference_costs(problem, judged, sandbox) if self.cost else {}
        return Advice(hint, counterexample, case_hints, costs, may_follow)


# ---------------------------------------------------------- counterexample

def find_counterexample(problem: Problem, sub, sandbox, deadline: float) -> dict | None:
    """A small generated input on which ``sub`` fails; never one equal to a hidden case."""
    if not problem.generator_path.is_file():
        return None
    secret = {canonical(problem.meta, c.input) for c in problem.cases if c.hidden}
    try:
        pool = generated_inputs(problem, CANDIDATES, COUNTEREXAMPLE_SEED)
    except Exception:
        return None
    candidates = [(cid, raw) for cid, raw in pool
                  if _valid(problem, raw) and canonical(problem.meta, raw) not in secret]
    candidates.sort(key=lambda item: _size(problem, item[1]))
    found = _first_failure(problem, sub, sandbox, candidates, deadline)
    while found is not None and time.monotonic() < deadline:
        smaller = [(f"shrunk_{i}", raw) for i, raw in enumerate(_shrinks(problem, found["input"]))
                   if canonical(problem.meta, raw) not in secret]
        better = _first_failure(problem, sub, sandbox, smaller, deadline) if smaller else None
        if better is None:
            break
        found = better
    return found


def _valid(problem: Problem, raw: Any) -> bool:
    try:
        check_input(problem.meta, raw)
        return True
    except InputError:
        return False


def _size(problem: Problem, raw: Any) -> int:
    return sum(input_dims(problem.meta, raw).values())


def _shrinks(problem: Problem, raw: Any) -> list[Any]:
    dims = input_dims(problem.meta, raw)
    out = []
    for dim, size in dims.items():
        lo = problem.meta.dims[dim][0]
        for smaller in sorted({lo, size // 2, size - 1}):
            if lo <= smaller < size:
                candidate = resized(problem.meta, raw, dim, smaller)
                if _valid(problem, candidate):
                    out.append(candidate)
    return out


def _first_failure(problem: Problem, sub, sandbox, candidates: list[tuple[str, Any]], deadline: float) -> dict | None:
    """The first candidate ``sub`` fails, within the budget: each sandbox run is killed
    when the deadline passes (so a submission cannot stretch feedback past it), and a
    run cut short that way shows nothing."""
    if not candidates or time.monotonic() >= deadline:
        return None
    try:
        expected = reference_outputs(problem, candidates, sandbox, deadline - time.monotonic()).expected
    except Exception:
        return None
    cases = [Case(cid, "public", Path(cid), raw, expected[cid]) for cid, raw in candidates if cid in expected]
    if not cases or time.monotonic() >= deadline:
        return None
    run = sandbox.run(replace(make_request(sub, problem, cases), wall_seconds=deadline - time.monotonic()))
    if run.judge_error or run.load_status != "ok" or run.over_budget:
        return None
    for case in cases:
        j = judge_case(problem, case, run.cases[case.id], problem.meta.limits.memory_mb, run.exit)
        if j.report.verdict not in ("AC", "--"):
            return {"input": case.input, "expected": case.expected, "got": j.got,
                    "message": f"{j.report.verdict} ({j.report.reason}): {j.report.message}"}
    return None


# -------------------------------------------------------------------- cost

def reference_costs(problem: Problem, judged: list, sandbox) -> dict[str, dict[str, float]]:
    """Per case id, the reference's compile and run times on the cases the submission's were measured on."""
    ref = load_submission(problem.reference_path)
    run = sandbox.run(make_request(ref, problem, [j.case for j in judged], cost=True))
    out = {}
    for j in judged:
        cr = run.cases.get(j.case.id)
        if j.report.cost is not None and cr is not None and cr.cost is not None:
            out[j.case.id] = {"ref_compile_ms": cr.cost.compile_ms, "ref_run_ms": cr.cost.run_ms}
    return out
