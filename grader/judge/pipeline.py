"""The grading pipeline, stage by stage:
problem -> submission -> static checks -> sandbox run -> runtime checks ->
output checks -> verdict -> (feedback) -> report."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .. import __version__
from ..common.verdicts import Verdict
from ..problem import Case, Problem
from ..problem.catalogue import content_hash
from ..report.model import Report, hidden_view
from ..sandbox.request import RunResult
from .request import PROBE_CASES, make_request
from .results import lines
from .runtime_checks import check_runtime, dependence_settled
from .static_checks import static_stage
from .submission import Submission
from .verdict import (
    case_outcome,
    checks_outcome,
    first_failure,
    judge_case,
    load_outcome,
)

if TYPE_CHECKING:
    from ..sandbox.host import Sandbox
    from .feedback import Feedback


@dataclass
class Graded:
    report: Report  # hidden cases reduced: what a learner may see
    run: RunResult | None
    excess: dict[str, float] | None = None  # case id -> worst error / tolerance (cases that got that far)
    judged: list[Judged] = field(default_factory=list)

    def full_report(self) -> Report:
        """The report with hidden cases in full (inputs, expected, got): for instructors
        and authors only, never for the learner who submitted."""
        if not self.judged:
            return self.report
        return replace(self.report, cases=[j.report for j in self.judged])


def _probe_more(sub: Submission, problem: Problem, cases: list[Case], run: RunResult, sandbox: "Sandbox",
                strict: bool) -> None:
    """Rerun the dependence probe on more cases, in a fresh child. Only a probe that
    ran as a second module (the submission could not be jitted, or caches its own
    jit) covered a single case, and only an inconclusive one pays for this."""
    clean = [c for c in cases if run.cases[c.id].status == "ok"][:PROBE_CASES]
    if len(clean) <= len(run.probes):
        return
    again = sandbox.run(replace(make_request(sub, problem, clean, strict=strict), size_probe=[],
                                probe_cases=PROBE_CASES))
    if again.judge_error is None:
        run.probes = again.probes


def grade(problem: Problem, sub: Submission, sandbox: "Sandbox", cases: list[Case] | None = None,
          feedback: "Feedback | None" = None, strict: bool = False) -> Graded:
    """Grade ``sub``. ``feedback`` adds what costs extra sandbox runs: misconception
    hints, a public counterexample for hidden failures, compile/run costs."""
    cases = problem.cases if cases is None else cases
    static = static_stage(sub, problem)
    base = dict(problem=problem.id, submission=sub.path, static_checks=lines(static), total=len(cases),
                problem_version=content_hash(problem), judge_version=__version__)
    pre = first_failure([checks_outcome([c for c in static if c.verdict == "CE"]),
                         checks_outcome([c for c in static if c.verdict == "RJ"])])
    if pre.verdict is not Verdict.AC:
        return Graded(Report(verdict=pre.verdict.value, verdict_title=pre.verdict.title, reason=pre.reason,
                             message=pre.message, **base), None)

    request = make_request(sub, problem, cases, cost=bool(feedback and feedback.cost), strict=strict)
    run = sandbox.run(request)
    sandbox_info = {"layers": run.layers, "unavailable": run.unavailable}
    if strict and run.unavailable:
        run.judge_error = ("strict sandbox: refusing to grade without every layer; unavailable: " +
                           ", ".join(f"{k} ({v})" for k, v in run.unavailable.items()))
    if run.judge_error:
        return Graded(Report(verdict="IE", verdict_title=Verdict.IE.title, reason="judge", message=run.judge_error,
                             sandbox=sandbox_info, **base), run)
    # Runtime requirements are judged on evidence from runs that completed; a submission
    # that crashes on every case is told about the crash, not about its transforms.
    completed = any(c.status == "ok" for c in run.cases.values())
    if completed and request.probe and not dependence_settled(run, problem.meta.requirements):
        _probe_more(sub, problem, cases, run, sandbox, strict)
    runtime = check_runtime(run, problem.meta.requirements) if completed else []
    judged = [judge_case(problem, c, run.cases[c.id], problem.meta.limits.memory_mb, run.exit) for c in cases]
    excess = {j.case.id: j.excess for j in judged if j.excess is not None}
    load = load_outcome(problem, run.load_status, run.load_error)
    public_view = [hidden_view(j.report) if j.case.hidden else j.report for j in judged]
    overall = first_failure([load, checks_outcome(runtime), *map(case_outcome, public_view)])
    passed = sum(1 for j in judged if j.report.verdict == Verdict.AC.value)
    report = Report(verdict=overall.verdict.value, verdict_title=overall.verdict.title, reason=overall.reason,
                    message=overall.message, runtime_checks=lines(runtime), passed=passed,
                    sandbox=sandbox_info, stdout=run.load_stdout, **base)
    if feedback is not None and overall.verdict is not Verdict.IE:
        feedback.apply(problem, sub, judged, report, sandbox)
    # Feedback may have added hints; reduce hidden cases again (see report.model.hidden_view).
    report.cases = [hidden_view(j.report) if j.case.hidden else j.report for j in judged]
    return Graded(report, run, excess, judged)
