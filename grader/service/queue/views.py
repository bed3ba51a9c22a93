"""The queue as people see it: a row's place in line, the depth, a learner's pending
rows and stored bytes, the storage table and the queue's numbers for the instructors'
page. Reads only: nothing here changes a row."""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import case, func, select, tuple_
from sqlalchemy.orm import Session

from ..core.models import KINDS, Submission, Worker, utcnow
from ..domain.accounts import Principal
from ..domain.trust import account_seen_by
from .jobs import OWN


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
    from ..core.models import User

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
    graders = [w for w in alive if w.role == "grade"]
    # The server's own work (warming, drawing) is busy too, and says with what; it yields to grades.
    own = sorted(w.doing for w in alive if w.role != "grade" and w.doing)
    return {"depth": int(counts.get("queued", 0)), "running": int(counts.get("running", 0)),
            "done": int(counts.get("done", 0)),
            "queued_by_kind": {k: int(by_kind.get(k, 0)) for k in KINDS},
            "oldest_age_seconds": round((now - oldest).total_seconds(), 3) if oldest else None,
            "workers": {"alive": len(graders), "busy": sum(1 for w in graders if w.busy_with) + len(own),
                        "grading": sum(1 for w in graders if w.busy_with), "own_work": len(own)},
            "own_work": own}


def recent_grade_seconds(s: Session, n: int = 50) -> float | None:
    rows = s.execute(select(Submission.started_at, Submission.finished_at)
                     .where(Submission.status == "done", Submission.started_at.is_not(None))
                     .order_by(Submission.finished_at.desc()).limit(n)).all()
    spans = [(f - st).total_seconds() for st, f in rows if st and f]
    return sum(spans) / len(spans) if spans else None
