"""A learner's own input, as LeetCode's console runs one: the input is checked against the
problem's constraints, the reference and the submission each run on it in the sandbox,
and the parent compares the two outputs with the problem's own output checks.

It answers "what does my code return here, and what should it?", so it is never a
hidden case (the learner wrote it: it is shown in full) and the transform requirements
are left to Run and Submit: no dependence probe, no program-size measurement. A compile
error still ends it before anything runs, as in every grade."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..common.verdicts import Verdict
from ..problem import Case, Problem, ProblemError
from ..problem.catalogue import content_hash
from ..problem.inputs import check_input
from ..report.model import Report
from .reference import reference_outputs
from .request import make_request
from .results import lines
from .static_checks import static_stage
from .submission import ParsedSubmission
from .verdict import case_outcome, checks_outcome, first_failure, judge_case, load_outcome

if TYPE_CHECKING:
    from ..sandbox.host import Sandbox

CUSTOM_ID = "custom"  # the one case of a custom run


def custom_run(problem: Problem, sub: ParsedSubmission, raw_input: Any, sandbox: "Sandbox") -> Report:
    """``sub`` and the reference on ``raw_input``; the report's one case holds the input,
    the reference's output (``expected``), the submission's (``got``), the diff and what
    it printed. ``InputError`` for an input the constraints refuse."""
    check_input(problem.meta, raw_input)
    static = static_stage(sub, problem)
    base: dict[str, Any] = dict(problem=problem.id, submission=sub.path, static_checks=lines(static), total=1,
                                problem_version=content_hash(problem), judge_version=__version__,
                                suite=problem.suite)
    compile_error = checks_outcome([c for c in static if c.verdict == "CE"])
    if compile_error.verdict is not Verdict.AC:
        return Report(verdict=compile_error.verdict.value, verdict_title=compile_error.verdict.title,
                      reason=compile_error.reason, message=compile_error.message, **base)
    try:
        computed = reference_outputs(problem, [(CUSTOM_ID, raw_input)], sandbox)
    except ProblemError as exc:
        return _judge_fault(base, f"the reference cannot be run: {exc}")
    if CUSTOM_ID not in computed.expected:
        # Every input within the constraints is one the reference must handle.
        return _judge_fault(base, f"the reference fails on this input ({computed.problems.get(CUSTOM_ID, '')}); "
                                  "the problem's authors need to know")
    case = Case(CUSTOM_ID, "public", Path(CUSTOM_ID), raw_input, computed.expected[CUSTOM_ID])
    run = sandbox.run(replace(make_request(sub, problem, [case]), probe=False, size_inputs=[]))
    sandbox_info = {"layers": run.layers, "unavailable": run.unavailable}
    if run.judge_error:
        return _judge_fault({**base, "sandbox": sandbox_info}, run.judge_error)
    judged = judge_case(problem, case, run.cases[CUSTOM_ID], problem.meta.limits.memory_mb, run.exit, cost=True)
    overall = first_failure([load_outcome(problem, run.load_status, run.load_error), case_outcome(judged.report)])
    message = "your output matches the reference's on your input" if overall.verdict is Verdict.AC \
        else overall.message
    return Report(verdict=overall.verdict.value, verdict_title=overall.verdict.title, reason=overall.reason,
                  message=message, cases=[judged.report], passed=int(judged.report.verdict == "AC"),
                  sandbox=sandbox_info, stdout=run.load_stdout, **base)


def _judge_fault(base: dict, message: str) -> Report:
    return Report(verdict=Verdict.IE.value, verdict_title=Verdict.IE.title, reason="judge", message=message, **base)
