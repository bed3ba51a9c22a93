"""The queue, which is the ``submissions`` table: enqueue, claim, finish, release,
and the reaper that requeues what a dead worker held.

A claim is one conditional UPDATE of the first queued row that must change exactly
one row; on PostgreSQL the row is picked ``FOR UPDATE SKIP LOCKED``, so concurrent
workers never wait on or take the same row. A result is written only by the worker
that still holds the claim (``status='running' AND claimed_by=me``): a worker
presumed dead whose row was requeued and claimed again cannot write a second result."""
from __future__ import annotations

import json
import os
import secrets
import socket
from dataclasses import dataclass
from typing import Any, Sequence
from datetime import datetime, timedelta

from sqlalchemy import case, delete, func, select, tuple_, update
from sqlalchemy.orm import Session, undefer

from ..report.stored import storable
from .accounts import Principal
from .trust import account_seen_by
from .models import KINDS, Submission, SubmissionCredit, Worker, utcnow
from .ratelimit import refund

HOST = socket.gethostname()[:255]
# ``Submission.priority``: what people asked for, and regrades an instructor started (which
# wait behind it and count against no one's limits).
OWN, REJUDGE = 0, 1


@dataclass(frozen=True)
class Job:
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


def claim(db, worker_id: str, max_attempts: int | None = None) -> Job | None:
    """The first queued row that has attempts left (a row that used them is finished as
    IE by ``fail_exhausted``, never claimed again)."""
    now = utcnow()
    order = (Submission.priority, Submission.queued_at, Submission.pk)
    claimable = [Submission.status == "queued"]
    if max_attempts is not None:
        claimable.append(Submission.attempts < max_attempts)
    first = select(Submission.pk).where(*claimable).order_by(*order).limit(1)
    if db.dialect == "postgresql":
        first = first.with_for_update(skip_locked=True)
    with db.write() as s:
        rows = s.execute(
            update(Submission).where(Submission.pk == first.scalar_subquery(), *claimable)
            .values(status="running", attempts=Submission.attempts + 1, claimed_by=worker_id, started_at=now)
            .returning(Submission.pk, Submission.id, Submission.problem, Submission.kind, Submission.source,
                       Submission.attempts, Submission.custom_input),
            execution_options={"synchronize_session": False}).all()
        if len(rows) != 1:
            return None
        job = Job(*rows[0])
        s.execute(update(Worker).where(Worker.id == worker_id).values(busy_with=job.id, heartbeat_at=now))
    return job


@dataclass
class Outcome:
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


def _doc_bytes(doc: dict | None) -> int:
    return 0 if doc is None else len(json.dumps(doc, separators=(",", ":")).encode())


def stored_bytes(source: str | None, out: Outcome) -> int:
    """What a finished row holds for its learner: source and stored views, as JSON bytes."""
    return len((source or "").encode("utf-8", "surrogatepass")) + _doc_bytes(out.report) + \
        _doc_bytes(out.stored_full())


def _refund_if_free(s: Session, user_id: int, kind: str, charged: bool, verdict: str, limits) -> None:
    """A learner is never charged for the judge's failure (IE) or for a file that
    does not compile (CE)."""
    if charged and verdict in ("IE", "CE") and limits is not None:
        refund(s, user_id, kind, limits)


def finish(db, job: Job, worker_id: str, outcome: Outcome, limits=None, sandbox: dict | None = None) -> bool:
    """Write the result if this worker still holds the claim; False if it was lost."""
    now = utcnow()
    with db.write() as s:
        rows = s.execute(
            update(Submission).where(Submission.pk == job.pk, Submission.status == "running",
                                     Submission.claimed_by == worker_id)
            .values(status="done", finished_at=now, verdict=outcome.verdict, passed=outcome.passed,
                    total=outcome.total, report=outcome.report, full_report=outcome.stored_full(),
                    problem_version=outcome.problem_version, judge_version=outcome.judge_version,
                    stored_bytes=job.sent_bytes + _doc_bytes(outcome.report) + _doc_bytes(outcome.stored_full()))
            .returning(Submission.user_id, Submission.kind, Submission.charged),
            execution_options={"synchronize_session": False}).all()
        values = dict(busy_with=None, heartbeat_at=now)
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


def release(db, job: Job, worker_id: str, uncount: bool = False) -> None:
    """Give a claimed row back to the queue, keeping its place in line (and its
    attempts, unless ``uncount``: a server shutting down was no attempt)."""
    attempts = Submission.attempts - 1 if uncount else Submission.attempts
    with db.write() as s:
        s.execute(update(Submission).where(Submission.pk == job.pk, Submission.status == "running",
                                           Submission.claimed_by == worker_id)
                  .values(status="queued", claimed_by=None, started_at=None, attempts=attempts),
                  execution_options={"synchronize_session": False})
        s.execute(update(Worker).where(Worker.id == worker_id).values(busy_with=None))


# ------------------------------------------------------------------ workers and the reaper

def register(db, instance: str, worker_ids: list[str]) -> None:
    now = utcnow()
    with db.write() as s:
        for wid in worker_ids:
            s.add(Worker(id=wid, instance=instance, host=HOST, pid=os.getpid(), started_at=now, heartbeat_at=now,
                         graded=0))


def set_zygote(db, worker_id: str, pid: int | None) -> None:
    with db.write() as s:
        s.execute(update(Worker).where(Worker.id == worker_id).values(zygote_pid=pid))


def beat(db, instance: str) -> None:
    with db.write() as s:
        s.execute(update(Worker).where(Worker.instance == instance).values(heartbeat_at=utcnow()))


def unregister(db, instance: str) -> None:
    with db.write() as s:
        s.execute(delete(Worker).where(Worker.instance == instance))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _dead(w: Worker, me: str, stale_before: datetime) -> bool:
    if w.instance == me:
        return False
    if w.heartbeat_at < stale_before:
        return True
    # On this host a vanished process is dead at once, not after the heartbeat goes
    # stale; so is one whose pid is now ours (a container restarted with the same pid).
    return w.host == HOST and (w.pid == os.getpid() or not _pid_alive(w.pid))


def reap(db, me: str, stale_seconds: float, max_attempts: int, ie_outcome, limits=None) -> tuple[int, int, list[int]]:
    """Requeue rows held by dead workers; after ``max_attempts`` claims a row is done
    as IE (``ie_outcome(row) -> Outcome``). Returns (requeued, failed, the process
    groups of the dead workers' sandboxes on this host)."""
    now = utcnow()
    requeued = failed = 0
    with db.write() as s:
        workers = s.scalars(select(Worker)).all()
        dead = {w.id for w in workers if _dead(w, me, now - timedelta(seconds=stale_seconds))}
        zygotes = [w.zygote_pid for w in workers if w.id in dead and w.host == HOST and w.zygote_pid]
        live = {w.id for w in workers} - dead
        held = s.scalars(select(Submission).where(Submission.status == "running")
                         .options(undefer(Submission.source))).all()
        for row in held:
            if row.claimed_by in live:
                continue
            if row.attempts >= max_attempts:
                _finish_row(s, row, ie_outcome(row), now, limits)
                failed += 1
            else:
                row.status, row.claimed_by, row.started_at = "queued", None, None
                requeued += 1
        if dead:
            s.execute(delete(Worker).where(Worker.id.in_(dead)))
    return requeued, failed + fail_exhausted(db, max_attempts, ie_outcome, limits), zygotes


def _finish_row(s: Session, row: Submission, out: Outcome, now: datetime, limits) -> None:
    row.status, row.finished_at, row.verdict, row.claimed_by = "done", now, out.verdict, None
    row.passed, row.total, row.report, row.full_report = out.passed, out.total, out.report, out.stored_full()
    row.problem_version, row.judge_version = out.problem_version, out.judge_version
    row.stored_bytes = stored_bytes(row.source, out)
    _refund_if_free(s, row.user_id, row.kind, row.charged, out.verdict, limits)


def fail_exhausted(db, max_attempts: int, ie_outcome, limits=None) -> int:
    """Queued rows that used every attempt (a worker that could not record them handed
    them back, or a server before this rule left them) are finished as IE: no claim picks
    them, and they must not wait for ever."""
    now = utcnow()
    with db.write() as s:
        rows = s.scalars(select(Submission).where(Submission.status == "queued",
                                                  Submission.attempts >= max_attempts)
                         .options(undefer(Submission.source))).all()
        for row in rows:
            _finish_row(s, row, ie_outcome(row), now, limits)
    return len(rows)


# ------------------------------------------------------------------ views

def position(s: Session, sub: Submission) -> int | None:
    """1 for the next row to be claimed; None unless queued."""
    if sub.status != "queued":
        return None
    key = tuple_(Submission.priority, Submission.queued_at, Submission.pk)
    ahead = s.scalar(select(func.count()).select_from(Submission).where(
        Submission.status == "queued", key < tuple_(sub.priority, sub.queued_at, sub.pk)))
    return int(ahead or 0) + 1


def depth(s: Session) -> int:
    """Queued rows that people enqueued: what the queue cap bounds (rejudges are bounded by
    the Submits already graded, and must not lock anyone out)."""
    return int(s.scalar(select(func.count()).select_from(Submission).where(
        Submission.status == "queued", Submission.priority == OWN)) or 0)


def pending(s: Session, user_id: int) -> int:
    """The learner's own submissions waiting or being graded; their rejudged ones are not theirs to wait for."""
    return int(s.scalar(select(func.count()).select_from(Submission).where(
        Submission.user_id == user_id, Submission.status.in_(("queued", "running")),
        Submission.priority == OWN)) or 0)


DAY = timedelta(hours=24)


def stored_today(s: Session, user_id: int) -> tuple[int, datetime | None]:
    """Bytes the learner's submissions of the last 24 hours store, and when the oldest of
    them leaves that window."""
    since = utcnow() - DAY
    used, oldest = s.execute(select(func.coalesce(func.sum(Submission.stored_bytes), 0),
                                    func.min(Submission.created_at))
                             .where(Submission.user_id == user_id, Submission.created_at > since)).one()
    return int(used or 0), _aware(oldest)


def storage_by_learner(s: Session, who: Principal, limit: int = 10) -> list[tuple[int, str, int, int]]:
    """The learners ``who`` may see who store the most: (user id, email, bytes in the
    last 24 hours, bytes in all)."""
    from .models import User

    since = utcnow() - DAY
    recent = func.coalesce(func.sum(case((Submission.created_at > since, Submission.stored_bytes), else_=0)), 0)
    total = func.coalesce(func.sum(Submission.stored_bytes), 0)
    rows = s.execute(select(User.id, User.email, recent, total).join(Submission, Submission.user_id == User.id)
                     .where(account_seen_by(who, User.id)).group_by(User.id, User.email)
                     .order_by(total.desc()).limit(limit)).all()
    return [(int(u), e, int(r or 0), int(t or 0)) for u, e, r, t in rows]


def _aware(t) -> datetime | None:
    """An aggregate skips the column type on SQLite: its value comes back as a naive string."""
    if t is None or isinstance(t, datetime) and t.tzinfo is not None:
        return t
    from datetime import timezone

    return datetime.fromisoformat(str(t)).replace(tzinfo=timezone.utc)


def stats(s: Session, stale_seconds: float) -> dict:
    now = utcnow()
    counts = dict(s.execute(select(Submission.status, func.count()).group_by(Submission.status)).all())
    by_kind = dict(s.execute(select(Submission.kind, func.count()).where(Submission.status == "queued")
                             .group_by(Submission.kind)).all())
    oldest = _aware(s.scalar(select(func.min(Submission.queued_at)).where(Submission.status == "queued")))
    workers = s.scalars(select(Worker)).all()
    alive = [w for w in workers if w.heartbeat_at >= now - timedelta(seconds=stale_seconds)]
    return {"depth": int(counts.get("queued", 0)), "running": int(counts.get("running", 0)),
            "done": int(counts.get("done", 0)),
            "queued_by_kind": {k: int(by_kind.get(k, 0)) for k in KINDS},
            "oldest_age_seconds": round((now - oldest).total_seconds(), 3) if oldest else None,
            "workers": {"alive": len(alive), "busy": sum(1 for w in alive if w.busy_with)}}


def recent_grade_seconds(s: Session, n: int = 50) -> float | None:
    rows = s.execute(select(Submission.started_at, Submission.finished_at)
                     .where(Submission.status == "done", Submission.started_at.is_not(None))
                     .order_by(Submission.finished_at.desc()).limit(n)).all()
    spans = [(f - st).total_seconds() for st, f in rows if st and f]
    return sum(spans) / len(spans) if spans else None
