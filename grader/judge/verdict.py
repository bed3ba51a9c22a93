"""The verdict stage. A case's verdict comes from how its run ended and from the
first output check that failed; the submission's verdict is the first failure in
a fixed order: compile, static requirements, loading, runtime requirements, then
the cases (public first)."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..common.verdicts import Verdict
from ..problem import Case, Problem
from ..problem.inputs import input_dims
from ..report.model import CaseReport, hidden_view
from ..sandbox.outcome import ErrorInfo
from ..sandbox.request import CaseRun, RunResult
from ..sandbox.wire import to_plain
from .output_checks import CheckContext, Mismatch, run_checks, tree_diff
from .results import CheckResult

# How a run ended -> (verdict, reason) before any output check.
RUN_STATUS = {
    "error": (Verdict.RE, "exception"),
    "crash": (Verdict.RE, "crash"),
    "mle": (Verdict.MLE, "memory"),
    "ole": (Verdict.OLE, "output_size"),
    "timeout": (Verdict.TLE, "time"),
    "bad_output": (Verdict.WA, "type"),
    "no_entry": (Verdict.CE, "no_entry"),
}


# Statuses the judge's side gives the case that was running when the process ended
# (the child reports "mle" and "ole" itself too, and then goes on to the next case).
_ENDS_PROCESS = ("timeout", "mle", "ole", "crash")
_HOW_IT_ENDED = {Verdict.TLE: "was ended by the time limit", Verdict.MLE: "was ended by the memory limit",
                 Verdict.OLE: "was ended by the output limit"}


@dataclass(frozen=True)
class Ending:
    """The case whose run ended the sandboxed process, in the words a learner may see:
    its verdict, and where it happened ("a hidden case", never a hidden id)."""

    verdict: Verdict
    reason: str
    where: str

    def consequence(self, what: str) -> str:
        how = _HOW_IT_ENDED.get(self.verdict, "crashed")
        return f"the sandboxed process {how} on {self.where}, so the judge has no {what}"


def ended_by(run: RunResult, judged: list["Judged"]) -> Ending | None:
    """The case during which the process ended, if one did. Everything the child sends
    after the cases (the runtime record, the probe reruns) then never came, and the rules
    that need it fail with this case's verdict: the limit is the cause, the missing
    evidence its consequence. None when a phase owns the failure, or nothing says why."""
    if run.complete or run.phase_failures or run.runtime is not None:
        return None
    ran = [j for j in judged if run.cases[j.case.id].status != "not_run"]
    if not ran or run.cases[ran[-1].case.id].status not in _ENDS_PROCESS:
        return None
    last = ran[-1]
    return Ending(Verdict(last.report.verdict), last.report.reason,
                  "a hidden case" if last.case.hidden else f"case {last.case.id}")


@dataclass(frozen=True)
class Ruling:
    verdict: Verdict
    reason: str = ""
    message: str = ""


def first_failure(outcomes: list[Ruling]) -> Ruling:
    for outcome in outcomes:
        if outcome.verdict is not Verdict.AC:
            return outcome
    return Ruling(Verdict.AC)


@dataclass
class Judged:
    """One case after the output checks, before hidden cases are reduced for the report."""

    case: Case
    report: CaseReport
    excess: float | None  # worst error as a fraction of the tolerance, when the values were compared
    got: Any  # the output as plain JSON-able data, when the run produced one

    def view(self) -> CaseReport:
        """What the learner may see of this case: a hidden one reduced (see
        [`hidden_view`][grader.report.model.hidden_view]), a public one in full."""
        return hidden_view(self.report) if self.case.hidden else self.report


def judge_case(problem: Problem, case: Case, run: CaseRun, memory_mb: int, exit_info: dict,
               cost: bool = False) -> Judged:
    """The case's verdict and report; ``cost``: its compile and run times on the report."""
    meta = problem.meta
    got = None
    finding: Mismatch | None = None
    worst = None
    if run.status == "ok":
        ctx = CheckContext.for_case(problem, case, run.output, run.args_after)
        finding = run_checks(ctx, meta.output_checks)
        worst = ctx.worst or None
        got = to_plain(run.output)
        outcome = Ruling(Verdict.WA, finding.reason, finding.message) if finding else Ruling(Verdict.AC, "", "passed")
    elif run.status == "not_run":
        outcome = Ruling(Verdict.AC, "not_run", "not run (an earlier case failed)")
    else:
        status = run.status
        if status == "crash" and exit_info.get("maxrss_kb", 0) * 1024 >= 0.8 * (memory_mb << 20):
            status = "mle"
        verdict, reason = RUN_STATUS.get(status, (Verdict.RE, "crash"))
        err = run.error
        where = f" (line {err.line})" if err and err.line else ""
        message = {"timeout": f"no result within {meta.limits.time_seconds:g} s",
                   "mle": f"memory limit of {meta.limits.memory_mb} MB exceeded",
                   "ole": f"output larger than {meta.limits.output_kb} KB"}.get(status, "")
        outcome = Ruling(verdict, reason,
                         message or ((err.message if err else "") + where) or f"process ended ({exit_info})")
    report = CaseReport(case.id, case.visibility, outcome.verdict.value if run.status != "not_run" else "--",
                        outcome.reason, outcome.message, run.time_ms)
    report.input, report.expected, report.got, report.worst = case.input, case.expected, got, worst
    report.stdout = run.stdout or None
    if finding and finding.reason in ("structure", "type", "dtype", "shape"):
        report.diff = tree_diff(meta, input_dims(meta, case.input), run.output)
    if finding and finding.reason == "nan":
        report.worst = finding.detail
    report.cost = asdict(run.cost) if cost and run.cost else None
    return Judged(case, report, worst.get("excess") if worst else None, got)


def case_outcome(c: CaseReport) -> Ruling:
    """A case that never ran is not a pass: in run order it follows the case whose
    failure ended the process, which therefore decides first."""
    if c.verdict == Verdict.AC.value:
        return Ruling(Verdict.AC)
    if c.verdict == "--":
        return Ruling(Verdict.RE, "not_run", f"case {c.id}: not run (the process ended before it)")
    return Ruling(Verdict(c.verdict), c.reason, f"case {c.id}: {c.message}")


def checks_outcome(checks: list[CheckResult]) -> Ruling:
    for c in checks:
        if not c.passed:
            default = {"RJ": "requirement", "CE": "compile", "IE": "judge"}.get(c.verdict, "crash")
            return Ruling(Verdict(c.verdict), c.reason or default, c.message)
    return Ruling(Verdict.AC)


def load_outcome(problem: Problem, status: str, error: ErrorInfo | None) -> Ruling:
    """How loading the module ended, as a ruling."""
    if status == "ok":
        return Ruling(Verdict.AC)
    verdict, reason = RUN_STATUS.get(status, (Verdict.RE, "crash"))
    msg = {"no_entry": f"the module defines no callable '{problem.meta.entry.name}'",
           "timeout": f"loading the module took longer than {problem.meta.limits.load_seconds:g} s"}.get(
        status, f"while loading the module: {error.message if error else status}"
        + (f" (line {error.line})" if error and error.line else ""))
    return Ruling(verdict, reason, msg)
