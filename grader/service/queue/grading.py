"""One claimed job, graded with the judge's own pipeline: ``run`` grades the public
cases, ``submit`` every case. The learner's report is ``Graded.report`` (hidden cases
reduced exactly as ``grader grade`` reduces them); instructors get
``Graded.full_report()``. Both are stored bounded (``report.stored``: values too large
to read become summaries). Reports come back from the database as JSON and are
rendered with the judge's formats."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ... import __version__
from ...common.verdicts import Verdict
from ...problem import Problem, ProblemError, find_problem
from ...report.model import CaseReport, CheckLine, Report
from ...report.stored import bound_report
from .jobs import ClaimResult

if TYPE_CHECKING:
    from ...sandbox.host import Sandbox


def submission_name(sub_id: str) -> str:
    return f"{sub_id}.py"


def feedback_for(enabled: bool):
    if not enabled:
        return None
    from ...judge.feedback import Feedback

    return Feedback(hints=True, counterexample=True)


def grade_problem(problem: Problem, kind: str, source: str, sub_id: str, sandbox: "Sandbox", feedback: bool,
                  strict: bool, custom_input: Any = None) -> ClaimResult:
    from ...judge.pipeline import grade
    from ...judge.submission import parse_source

    sub = parse_source(source, submission_name(sub_id))
    if kind == "custom":
        return _custom(problem, sub, custom_input, sandbox)
    cases = problem.public_cases() if kind == "run" else None
    # Costs are free (the child times every compile): the panel shows compile and run apart.
    graded = grade(problem, sub, sandbox, cases=cases, feedback=feedback_for(feedback), strict=strict, costs=True)
    return _outcome(problem, graded.report, graded.full_report())


def _custom(problem: Problem, sub, raw_input: Any, sandbox: "Sandbox") -> ClaimResult:
    from ...judge.custom import custom_run
    from ...problem.inputs import InputError

    try:
        report = custom_run(problem, sub, raw_input, sandbox)
    except InputError as exc:  # the problem changed since the input was admitted
        report = Report(problem=problem.id, submission=sub.path, verdict=Verdict.IE.value,
                        verdict_title=Verdict.IE.title, reason="judge", total=1, judge_version=__version__,
                        message=f"the problem's constraints changed since this input was sent: {exc}")
    return _outcome(problem, report, report)


def _outcome(problem: Problem, report: Report, full: Report) -> ClaimResult:
    inputs = {".".join(i.path): i.dtype or i.kind for i in problem.meta.inputs}
    outputs = {".".join(o.path): o.dtype for o in problem.meta.outputs}
    learner, stored_full = (bound_report(r.to_json(), inputs, outputs) for r in (report, full))
    return ClaimResult(report.verdict, report.passed, report.total, learner, stored_full, report.problem_version,
                   report.judge_version)


def ie_outcome(problem_id: str, kind: str, sub_id: str, message: str) -> ClaimResult:
    """An IE result written by the service itself (the grading kept dying, or the
    problem is gone): the same report shape as the judge's own IE."""
    from ...problem.catalogue import content_hash

    total, version = 0, ""
    try:
        problem = find_problem(problem_id)
        total = {"run": len(problem.public_cases()), "custom": 1}.get(kind, len(problem.cases))
        version = content_hash(problem)
    except (ProblemError, OSError):
        pass
    report = Report(problem=problem_id, submission=submission_name(sub_id), verdict=Verdict.IE.value,
                    verdict_title=Verdict.IE.title, reason="judge", message=message, total=total,
                    problem_version=version, judge_version=__version__)
    doc = report.to_json()
    return ClaimResult("IE", 0, total, doc, doc, version, __version__)


def _known(cls, data: dict) -> dict:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def report_from_json(data: dict) -> Report:
    """A stored report back into the typed report the formats render."""
    fields = _known(Report, data)
    fields["static_checks"] = [CheckLine(**_known(CheckLine, c)) for c in data.get("static_checks", [])]
    fields["runtime_checks"] = [CheckLine(**_known(CheckLine, c)) for c in data.get("runtime_checks", [])]
    fields["cases"] = [CaseReport(**_known(CaseReport, c)) for c in data.get("cases", [])]
    return Report(**fields)


FORMAT_TYPES = {"json": "application/json", "junit": "application/xml", "gradescope": "application/json",
                "markdown": "text/markdown; charset=utf-8", "text": "text/plain; charset=utf-8"}


def render(data: dict, fmt: str) -> str:
    from ...report.formats import FORMATS

    return FORMATS[fmt](report_from_json(data))
