"""One claimed job, graded with the judge's own pipeline: ``run`` grades the public
cases, ``submit`` every case. The learner's report is ``Graded.report`` (hidden cases
reduced exactly as ``grader grade`` reduces them); instructors get
``Graded.full_report()``. Both are stored bounded (``report.stored``: values too large
to read become summaries). Reports come back from the database as JSON and are
rendered with the judge's formats."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .. import __version__
from ..common.verdicts import Verdict
from ..problem import Problem, ProblemError, find_problem
from ..report.model import CaseReport, CheckLine, Report
from ..report.stored import bound_report
from .jobs import Outcome

if TYPE_CHECKING:
    from ..sandbox.host import Sandbox


def submission_name(sub_id: str) -> str:
    return f"{sub_id}.py"


def feedback_for(enabled: bool):
    if not enabled:
        return None
    from ..judge.feedback import Feedback

    return Feedback(hints=True, counterexample=True)


def grade_problem(problem: Problem, kind: str, source: str, sub_id: str, sandbox: "Sandbox", feedback: bool,
                  strict: bool) -> Outcome:
    from ..judge.pipeline import grade
    from ..judge.submission import parse_source

    cases = problem.public_cases() if kind == "run" else None
    graded = grade(problem, parse_source(source, submission_name(sub_id)), sandbox, cases=cases,
                   feedback=feedback_for(feedback), strict=strict)
    report = graded.report
    inputs = {".".join(i.path): i.dtype or i.kind for i in problem.meta.inputs}
    outputs = {".".join(o.path): o.dtype for o in problem.meta.outputs}
    learner, full = (bound_report(r.to_json(), inputs, outputs) for r in (report, graded.full_report()))
    return Outcome(report.verdict, report.passed, report.total, learner, full, report.problem_version,
                   report.judge_version)


def ie_outcome(problem_id: str, kind: str, sub_id: str, message: str) -> Outcome:
    """An IE result written by the service itself (the grading kept dying, or the
    problem is gone): the same report shape as the judge's own IE."""
    from ..problem.catalogue import content_hash

    total, version = 0, ""
    try:
        problem = find_problem(problem_id)
        total = len(problem.public_cases() if kind == "run" else problem.cases)
        version = content_hash(problem)
    except (ProblemError, OSError):
        pass
    report = Report(problem=problem_id, submission=submission_name(sub_id), verdict=Verdict.IE.value,
                    verdict_title=Verdict.IE.title, reason="judge", message=message, total=total,
                    problem_version=version, judge_version=__version__)
    doc = report.to_json()
    return Outcome("IE", 0, total, doc, doc, version, __version__)


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
    from ..report.formats import FORMATS

    return FORMATS[fmt](report_from_json(data))
