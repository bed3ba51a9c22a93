"""The grading pipeline, stage by stage, in the order ``_grade`` runs them:
problem -> submission -> static checks -> sandbox run -> output checks (each case,
``judge_case``) -> runtime checks -> verdict -> (feedback) -> report.

A ``CE`` or ``RJ`` from the static checks ends the grade before anything runs. Runtime
requirements are judged only on evidence from runs that completed, after the cases'
output checks (the dependence probe once every case passed). [`grade`][grader.judge.pipeline.grade]
always returns a report."""
from __future__ import annotations

import sys
import time
import traceback
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..common.verdicts import Verdict
from ..problem import Case, Problem, ProblemError
from ..problem.catalogue import content_hash
from ..problem.suite import SuiteError, refuse_stripped
from ..report.model import Report
from ..sandbox.request import RunResult
from . import probe_table
from .probe_checks import missing_evidence
from .request import make_request
from .results import lines
from .runtime_checks import check_runtime
from .static_checks import static_stage
from .submission import ParsedSubmission
from .verdict import (
    Judged,
    case_outcome,
    checks_outcome,
    ended_by,
    first_failure,
    judge_case,
    load_outcome,
)

if TYPE_CHECKING:
    from ..sandbox.host import Sandbox
    from .feedback import Advice, Feedback


@dataclass
class Graded:
    """The outcome of one grade.

    Attributes:
        report: the report with hidden cases reduced: what a learner may see, and what
            `grader grade` prints.
        run: what the sandbox returned (`None` when the grade ended before the run).
        excess: per case id, the worst error as a fraction of the tolerance (for the
            cases that got that far): what `grader validate` warns about.
        judged: each case's verdict with its full report (hidden data included).
        advice: what feedback added (`None` without feedback): the report's cases carry
            it, and so does the full report.
        seconds: wall seconds per stage of this grade, in the judge: static, plan (the
            probe table and its plan), sandbox (the run; `run.seconds` splits it by the
            child's phases), checks (output and runtime checks, verdict), feedback, report.
    """

    report: Report  # hidden cases reduced: what a learner may see
    run: RunResult | None
    excess: dict[str, float] | None = None  # case id -> worst error / tolerance (cases that got that far)
    judged: list[Judged] = field(default_factory=list)
    advice: "Advice | None" = None
    seconds: dict[str, float] = field(default_factory=dict)

    def full_report(self) -> Report:
        """The report with hidden cases in full (inputs, expected, got): for instructors
        and authors only, never for the learner who submitted."""
        if not self.judged:
            return self.report
        advice = self.advice
        return replace(self.report, cases=[advice.on(j.report) if advice else j.report for j in self.judged])


def grade(problem: Problem, sub: ParsedSubmission, sandbox: "Sandbox", cases: list[Case] | None = None,
          feedback: "Feedback | None" = None, strict: bool = False, every_perturbation: bool = False,
          costs: bool = False) -> Graded:
    """Grade ``sub``. ``feedback`` adds what costs extra sandbox runs: misconception
    hints, a public counterexample for hidden failures, the reference's compile/run costs.
    ``costs`` puts each case's own compile and run times on the report (they are measured
    in every grade; feedback's ``cost`` implies them).
    ``every_perturbation`` probes under every perturbation of the problem's table instead
    of one drawn at random (``validate`` does, for the files that must be accepted). Always
    returns a report: a failure of the judge's own code is IE, never an exception.
    A problem installed without its hidden cases (``problem.suite.stripped``) and given no
    drawn suite is IE when every case is asked for: its public cases alone are no grade."""
    if cases is None:  # a grade of chosen cases (a Run's public ones) says what it graded
        try:
            refuse_stripped(problem)
        except SuiteError as exc:
            return Graded(Report(problem=problem.id, submission=sub.path, verdict="IE", verdict_title=Verdict.IE.title,
                                 reason="judge", message=str(exc), judge_version=__version__), None)
    try:
        return _grade(problem, sub, sandbox, problem.cases if cases is None else cases, feedback, strict,
                      every_perturbation, costs)
    except Exception as exc:  # the judge's fault; the type only, since details may echo hidden data
        traceback.print_exc(file=sys.stderr)
        return Graded(Report(problem=problem.id, submission=sub.path, verdict="IE", verdict_title=Verdict.IE.title,
                             reason="judge", message=f"the judge failed while grading ({type(exc).__name__}); "
                             f"this is not the submission's fault", judge_version=__version__), None)


def _grade(problem: Problem, sub: ParsedSubmission, sandbox: "Sandbox", cases: list[Case],
           feedback: "Feedback | None", strict: bool, every_perturbation: bool, costs: bool) -> Graded:
    clock = _Stopwatch()
    static = static_stage(sub, problem)
    base: dict[str, Any] = dict(problem=problem.id, submission=sub.path, static_checks=lines(static), total=len(cases),
                problem_version=content_hash(problem), judge_version=__version__, suite=problem.suite)
    pre = first_failure([checks_outcome([c for c in static if c.verdict == "CE"]),
                         checks_outcome([c for c in static if c.verdict == "RJ"])])
    clock.lap("static")
    if pre.verdict is not Verdict.AC:
        return Graded(Report(verdict=pre.verdict.value, verdict_title=pre.verdict.title, reason=pre.reason,
                             message=pre.message, **base), None, seconds=clock.seconds)

    request = make_request(sub, problem, cases, cost=costs or bool(feedback and feedback.cost), strict=strict)
    table, plan = None, []
    if request.probe:
        try:
            table = probe_table.get(problem, sandbox)
        except ProblemError as exc:
            return Graded(Report(verdict="IE", verdict_title=Verdict.IE.title, reason="judge",
                                 message=f"the dependence probe cannot be prepared: {exc}", **base), None)
        plan = table.plan({c.id for c in cases}, problem.meta.requirements.depends, every_perturbation)
        request = replace(request, probe_ids=table.case_ids(plan), probe_perturbations=table.drawn(plan))
    clock.lap("plan")
    run = sandbox.run(request)  # the host refuses a strict request in a weaker sandbox (judge_error)
    clock.lap("sandbox")
    sandbox_info = {"layers": run.layers, "unavailable": run.unavailable}
    if run.judge_error:
        return Graded(Report(verdict="IE", verdict_title=Verdict.IE.title, reason="judge", message=run.judge_error,
                             sandbox=sandbox_info, **base), run, seconds=clock.seconds)
    judged = [judge_case(problem, c, run.cases[c.id], problem.meta.limits.memory_mb, run.exit, request.cost)
              for c in cases]
    excess = {j.case.id: j.excess for j in judged if j.excess is not None}
    load = load_outcome(problem, run.load_status, run.load_error)
    # Runtime requirements are judged on evidence from runs that completed; a submission
    # that crashes on every case is told about the crash, not about its transforms.
    # A case that ended the process (a limit, a crash) took everything the child sends
    # after the cases with it: those rules fail with that case's verdict, as consequences.
    completed = any(c.status == "ok" for c in run.cases.values())
    all_passed = all(j.report.verdict == Verdict.AC.value for j in judged)
    runtime = check_runtime(run, problem, (table, plan), all_passed, ended_by(run, judged)) if completed else []
    ended = [missing_evidence(run, phase, "complete run") for phase in run.phase_failures]
    views = [j.view() for j in judged]  # the one place hidden cases are reduced
    overall = first_failure([load, checks_outcome(runtime), checks_outcome(ended), *map(case_outcome, views)])
    passed = sum(1 for j in judged if j.report.verdict == Verdict.AC.value)
    clock.lap("checks")
    advice = feedback.apply(problem, sub, judged, overall.verdict.value, sandbox) \
        if feedback is not None and overall.verdict is not Verdict.IE else None
    clock.lap("feedback")
    report = Report(verdict=overall.verdict.value, verdict_title=overall.verdict.title, reason=overall.reason,
                    message=overall.message, runtime_checks=lines(runtime), passed=passed,
                    sandbox=sandbox_info, stdout=run.load_stdout, hint=advice.hint if advice else None,
                    counterexample=advice.counterexample if advice else None,
                    hint_may_follow=advice.hint_may_follow if advice else False,
                    cases=[advice.on(v) for v in views] if advice else views, **base)
    clock.lap("report")
    return Graded(report, run, excess, judged, advice, clock.seconds)


class _Stopwatch:
    """Wall seconds per stage: each ``lap`` charges the time since the last to its stage."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - self.last
        self.last = now
