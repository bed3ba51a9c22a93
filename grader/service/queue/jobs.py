"""The queue, which is the ``submissions`` table: enqueue, claim, finish, release (the
reaper is ``reaper``, what people see of the queue ``views``).

A claim is one conditional UPDATE of the first queued row that must change exactly
one row; on PostgreSQL the row is picked ``FOR UPDATE SKIP LOCKED``, so concurrent
workers never wait on or take the same row. A result is written only by the worker
that still holds the claim (``status='running' AND claimed_by=me``): a worker
presumed dead whose row was requeued and claimed again cannot write a second result."""
from __future__ import annotations

import json
import secrets
import socket
from dataclasses import dataclass
from typing import Any, Collection, Sequence
from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from ...report.stored import storable
from ..core.models import Submission, SubmissionCredit, Worker, utcnow
from ..core.ratelimit import refund

HOST = socket.gethostname()[:255]
# ``Submission.priority``: what people asked for, and regrades an instructor started (which
# wait behind it and count against no one's limits).
OWN, REJUDGE = 0, 1


@dataclass(frozen=True)
class Claim:
    pk: int
    id: str
    problem: str
    kind: str
    source: str
    attempts: int
    custom_input: Any = None  # a custom run's input; None for Run and Submit

    @property
    def sent_bytes(self) -> int:
        """What the learner sent: the source and a custom run's input."""
        return len(self.source.encode("utf-8", "surrogatepass")) + _doc_bytes(self.custom_input)


def new_id() -> str:
    return secrets.token_urlsafe(16)  # 128 random bits


def enqueue(s: Session, user_id: int, problem: str, kind: str, source: str, source_sha256: str,
            key: str | None = None, charged: bool = False, custom_input: Any = None,
            credits: Sequence[tuple[int, bool]] = ()) -> Submission:
    """``credits``: (id, late) of each assignment a Submit counts for (``assignments.credits_for``)."""
    now = utcnow()
    sub = Submission(id=new_id(), user_id=user_id, problem=problem, kind=kind, source=source,
                     source_sha256=source_sha256, idempotency_key=key, charged=charged, status="queued", priority=OWN,
                     created_at=now, queued_at=now, attempts=0, custom_input=custom_input,
                     stored_bytes=len(source.encode("utf-8")) + _doc_bytes(custom_input))
    s.add(sub)
    s.flush()
    s.add_all([SubmissionCredit(submission_pk=sub.pk, assignment_id=aid, late=late) for aid, late in credits])
    return sub


def claim(db, worker_id: str, max_attempts: int | None = None, skip: Collection[str] = ()) -> Claim | None:
    """The first queued row that has attempts left (a row that used them is finished as
    IE by ``fail_exhausted``, never claimed again), save a Submit of a problem in ``skip``:
    those whose hidden suite is still being drawn wait in line, their Runs (public cases
    only) are graded."""
    order = (Submission.priority, Submission.queued_at, Submission.pk)
    claimable = [Submission.status == "queued"]
    if max_attempts is not None:
        claimable.append(Submission.attempts < max_attempts)
    if skip:
        claimable.append(or_(Submission.kind != "submit", Submission.problem.not_in(list(skip))))
    first = select(Submission.pk).where(*claimable).order_by(*order).limit(1)
    if db.dialect == "postgresql":
        first = first.with_for_update(skip_locked=True)
    with db.write() as s:
        rows = s.execute(
            update(Submission).where(Submission.pk == first.scalar_subquery(), *claimable)
            .values(status="running", attempts=Submission.attempts + 1, claimed_by=worker_id)
            .returning(Submission.pk, Submission.id, Submission.problem, Submission.kind, Submission.source,
                       Submission.attempts, Submission.custom_input),
            execution_options={"synchronize_session": False}).all()
        if len(rows) != 1:
            return None
        job = Claim(*rows[0])
        # Read the clock only now the row is ours: a clock read before the UPDATE can predate
        # the creation of a row whose Submit committed while this claim waited for it.
        now = utcnow()
        s.execute(update(Submission).where(Submission.pk == job.pk).values(started_at=now))
        s.execute(update(Worker).where(Worker.id == worker_id).values(busy_with=job.id, heartbeat_at=now))
    return job


@dataclass
class ClaimResult:
    verdict: str
    passed: int
    total: int
    report: dict  # what the learner may see
    full_report: dict  # hidden cases in full (the same as ``report`` for a Run)
    problem_version: str
    judge_version: str

    def __post_init__(self) -> None:
        # Whatever produced it (a local grade, a Dask worker, the service's own IE), what is
        # stored is storable on every database: NUL escaped in every string and key.
        self.report, self.full_report = storable(self.report), storable(self.full_report)

    def stored_full(self) -> dict | None:
        """The full view as stored: None when it equals the learner's (a Run), read back
        as the learner's (``Submission.view``): one stored copy per view that differs."""
        return None if self.full_report == self.report else self.full_report


MISTAKE_CHARS, CASE_CHARS = 500, 200  # the columns' widths


def grade_facts(report: dict) -> dict[str, Any]:
    """What the class insight counts of a grade, as the columns that keep it: the mistake
    the report names (its hint: the ``# hint:`` of the wrong answer the output matched),
    and the first case that failed (a case not run is no failure), with whether it is
    hidden. Read from the full report, which names every case; migration 0010 holds a
    frozen copy of this for the rows graded before it."""
    hint = report.get("hint")
    failed = next((c for c in report.get("cases") or [] if isinstance(c, dict)
                   and c.get("verdict") not in ("AC", "--")), None)
    return {"mistake": hint[:MISTAKE_CHARS] if isinstance(hint, str) and hint else None,
            "failed_case": str(failed.get("id"))[:CASE_CHARS] if failed else None,
            "failed_hidden": failed.get("visibility") == "hidden" if failed else None}


def _doc_bytes(doc: dict | None) -> int:
    return 0 if doc is None else len(json.dumps(doc, separators=(",", ":")).encode())


def stored_bytes(source: str | None, out: ClaimResult) -> int:
    """What a finished row holds for its learner: source and stored views, as JSON bytes."""
    return len((source or "").encode("utf-8", "surrogatepass")) + _doc_bytes(out.report) + \
        _doc_bytes(out.stored_full())


def _refund_if_free(s: Session, user_id: int, kind: str, charged: bool, verdict: str, limits) -> None:
    """A learner is never charged for the judge's failure (IE) or for a file that
    does not compile (CE)."""
    if charged and verdict in ("IE", "CE") and limits is not None:
        refund(s, user_id, kind, limits)


def finish(db, job: Claim, worker_id: str, outcome: ClaimResult, limits=None, sandbox: dict | None = None) -> bool:
    """Write the result if this worker still holds the claim; False if it was lost."""
    now = utcnow()
    with db.write() as s:
        rows = s.execute(
            update(Submission).where(Submission.pk == job.pk, Submission.status == "running",
                                     Submission.claimed_by == worker_id)
            .values(status="done", finished_at=now, verdict=outcome.verdict, passed=outcome.passed,
                    total=outcome.total, report=outcome.report, full_report=outcome.stored_full(),
                    problem_version=outcome.problem_version, judge_version=outcome.judge_version,
                    stored_bytes=job.sent_bytes + _doc_bytes(outcome.report) + _doc_bytes(outcome.stored_full()),
                    **grade_facts(outcome.full_report))
            .returning(Submission.user_id, Submission.kind, Submission.charged),
            execution_options={"synchronize_session": False}).all()
        values: dict[str, Any] = {"busy_with": None, "heartbeat_at": now}
        if sandbox:
            values["sandbox"] = sandbox
        if len(rows) == 1:
            values["graded"] = Worker.graded + 1
        s.execute(update(Worker).where(Worker.id == worker_id).values(**values))
        if len(rows) != 1:
            return False
        user_id, kind, charged = rows[0]
        _refund_if_free(s, user_id, kind, charged, outcome.verdict, limits)
    return True


def release(db, job: Claim, worker_id: str, uncount: bool = False) -> None:
    """Give a claimed row back to the queue, keeping its place in line (and its
    attempts, unless ``uncount``: a server shutting down was no attempt)."""
    attempts = Submission.attempts - 1 if uncount else Submission.attempts
    with db.write() as s:
        s.execute(update(Submission).where(Submission.pk == job.pk, Submission.status == "running",
                                           Submission.claimed_by == worker_id)
                  .values(status="queued", claimed_by=None, started_at=None, attempts=attempts),
                  execution_options={"synchronize_session": False})
        s.execute(update(Worker).where(Worker.id == worker_id).values(busy_with=None))


def finish_row(s: Session, row: Submission, out: ClaimResult, now: datetime, limits) -> None:
    """Record ``out`` on a row whose claim is gone (the reaper's IE): no claim to check."""
    row.status, row.finished_at, row.verdict, row.claimed_by = "done", now, out.verdict, None
    row.passed, row.total, row.report, row.full_report = out.passed, out.total, out.report, out.stored_full()
    row.problem_version, row.judge_version = out.problem_version, out.judge_version
    row.stored_bytes = stored_bytes(row.source, out)
    for column, value in grade_facts(out.full_report).items():
        setattr(row, column, value)
    _refund_if_free(s, row.user_id, row.kind, row.charged, out.verdict, limits)
