"""The last stage: the verdict report, as typed data.

Hidden cases are reduced here, in one place, to id, verdict, reason code and
a stock sentence: never their inputs, expected values, or what the submission
printed or raised on them.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ..common.jsonsafe import json_safe
from ..common.verdicts import Visibility

# The only words a hidden case may carry, keyed by reason code.
HIDDEN_MESSAGES = {
    "": "passed", "value": "wrong value", "nan": "output holds NaN or infinity", "dtype": "wrong dtype",
    "shape": "wrong shape", "structure": "wrong output structure", "type": "wrong output type",
    "exception": "runtime error", "crash": "the process crashed", "memory": "memory limit exceeded",
    "time": "time limit exceeded", "output_size": "output limit exceeded", "not_run": "not run",
}


@dataclass
class CheckLine:
    """One static or runtime check: its name, whether it passed, and the judge's message."""

    name: str
    passed: bool
    message: str


@dataclass
class CaseReport:
    """One case's result. A hidden case (``visibility == "hidden"``) carries only its id,
    verdict, reason code, a stock message, its time and, when feedback found them, a
    misconception hint and its cost: ``input``, ``expected``, ``got``, ``worst``, ``diff``
    and ``stdout`` stay ``None`` (see [`hidden_view`][grader.report.model.hidden_view])."""

    id: str
    visibility: Visibility
    verdict: str
    reason: str
    message: str
    time_ms: float | None
    input: Any = None
    expected: Any = None
    got: Any = None
    worst: dict | None = None
    diff: list[list[str]] | None = None  # rows of (path, expected, got) for a structure/shape/dtype mismatch
    stdout: str | None = None
    hint: str | None = None  # the misconception this output matches, if any
    cost: dict | None = None  # compile and run times beside the reference's


# What a report without a hint says when ``hint_may_follow`` (text format).
HINT_MAY_FOLLOW = ("no hint yet: the judge is still preparing this problem's known mistakes, so a later "
                   "grade of the same code may name one")


@dataclass
class Report:
    """The verdict report of one grade: what every format renders (text, JSON, JUnit,
    Gradescope, Markdown) and what [`grader.api`][grader.api] returns.

    ``verdict`` is the overall verdict code (``AC``, ``WA``, ``RJ``, ``CE``, ``RE``,
    ``TLE``, ``MLE``, ``OLE``, ``IE``) and ``verdict_title`` its name; ``reason`` and
    ``message`` say why. ``passed`` of ``total`` cases passed. ``sandbox`` holds the
    OS layers applied (``layers``) and those the machine lacks (``unavailable``, with the
    reason). ``hint`` is the first misconception hint of the cases, ``counterexample`` a
    generated input that fails, when only hidden cases failed; ``hint_may_follow`` says
    that no hint matched while some of the problem's known mistakes were not yet
    prepared (a later grade of the same code may name one). ``problem_version`` and
    ``judge_version`` say which problem and which judge produced the verdict.
    [`to_json`][grader.report.model.Report.to_json] gives, as data, the document that
    ``grader grade --format json`` prints and ``grader schema`` describes."""

    problem: str
    submission: str
    verdict: str
    verdict_title: str
    reason: str
    message: str
    static_checks: list[CheckLine] = field(default_factory=list)
    runtime_checks: list[CheckLine] = field(default_factory=list)
    cases: list[CaseReport] = field(default_factory=list)
    passed: int = 0
    total: int = 0
    sandbox: dict = field(default_factory=dict)
    stdout: str = ""
    hint: str | None = None
    counterexample: dict | None = None
    hint_may_follow: bool = False
    problem_version: str = ""  # content hash of the problem folder (cases, metadata, files)
    judge_version: str = ""
    suite: str | None = None  # the drawn suite whose hidden cases graded it: its id, never its secret
    # Values the service stored as summaries because they were too large to read
    # (``report.stored``): "case ID: got" and the like.
    summarized: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The report as JSON-ready data (non-finite floats made safe)."""
        return json_safe(asdict(self))


def hidden_view(case: CaseReport) -> CaseReport:
    """A hidden case reduced to id, verdict, reason code and the stock sentence of that
    reason (``HIDDEN_MESSAGES``), with its time, hint and cost: never its input, expected
    value, output, printed text or exception message."""
    reason = case.reason
    message = HIDDEN_MESSAGES.get(reason, "an input was modified" if reason.endswith("_mutated") else "failed")
    return CaseReport(case.id, "hidden", case.verdict, reason, message, case.time_ms, hint=case.hint, cost=case.cost)


def in_order_of(value: Any, like: Any) -> Any:
    """``value`` with each dict's keys in the order of the same dict in ``like`` (keys
    ``like`` lacks follow, in their own order), lists item by item: what a case got,
    written in the order of what it expected, so that the two read side by side
    (``{"w": .., "b": ..}`` against ``{"w": .., "b": ..}``, not ``{"b": .., "w": ..}``).
    Only the order changes; the JSON report keeps the data as it came."""
    if isinstance(value, dict) and isinstance(like, dict):
        keys = [k for k in like if k in value] + [k for k in value if k not in like]
        return {k: in_order_of(value[k], like.get(k)) for k in keys}
    if isinstance(value, list) and isinstance(like, list):
        return [in_order_of(v, w) for v, w in zip(value, like)] + value[len(like):]
    return value


def render_json(report: Report) -> str:
    """The ``--format json`` document."""
    return json.dumps(json_safe(report.to_json()), indent=2, allow_nan=False, default=str)
