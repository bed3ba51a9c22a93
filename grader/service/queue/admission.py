"""Who may enqueue what, now: the global queue cap (503), the per-learner cap on
pending jobs, the storage its submissions of the last day hold, and the Run and Submit
token buckets (429). Everything is decided in
the transaction that inserts the row, after locking the learner's user row on
PostgreSQL, so two requests of one learner cannot both pass a check meant for one.
Instructors pass the learner checks, not the queue cap. Rows an instructor's rejudge
requeued count in neither: they wait behind everyone's own work."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from . import jobs, views
from ..domain.accounts import Principal
from ..domain.assignments import credits_for
from ..core.config import Quotas
from ..core.models import Submission, User, utcnow
from ..core.ratelimit import Refused, take


@dataclass(frozen=True)
class Admitted:
    submission: Submission
    created: bool  # False: an earlier request with the same idempotency key


def _estimate_wait(s: Session, ahead: int, workers: int) -> float:
    per_job = views.recent_grade_seconds(s) or 2.0
    return min(300.0, max(1.0, ahead * per_job / max(1, workers)))


def admit(db, who: Principal, problem: str, kind: str, source: str, key: str | None, limits: Quotas,
          workers: int, custom_input: Any = None, assignment: str | None = None) -> Admitted:
    """A Submit counts for every assignment that takes it now (``assignments.credits_for``),
    decided in the same transaction; ``assignment`` (``course/assignment``, named by the
    assignment page) is refused before it opens and after it closes."""
    sha = hashlib.sha256(source.encode()).hexdigest()
    with db.write() as s:
        s.scalars(select(User).where(User.id == who.user_id).with_for_update()).one()
        if key is not None:
            earlier = s.scalar(select(Submission).where(Submission.user_id == who.user_id,
                                                         Submission.idempotency_key == key))
            if earlier is not None:
                # A custom run's input is part of the request: another input is another request.
                if (earlier.problem, earlier.kind, earlier.source_sha256, earlier.custom_input) != \
                        (problem, kind, sha, custom_input):
                    raise Refused(422, "Idempotency-Key: already used for a different submission")
                return Admitted(earlier, False)
        depth = views.depth(s)
        if depth >= limits.queue_cap:
            raise Refused(503, f"the queue is full ({depth} waiting); try again later",
                          _estimate_wait(s, depth - limits.queue_cap + 1, workers))
        if not who.instructor:
            pending = views.pending(s, who.user_id)
            if pending >= limits.pending_per_learner:
                raise Refused(429, f"you have {pending} submission(s) waiting; at most "
                                   f"{limits.pending_per_learner} may wait at once", _estimate_wait(s, 1, workers))
            used, oldest = views.stored_today(s, who.user_id)
            if used >= limits.storage_per_day:
                wait = (oldest + views.DAY - utcnow()).total_seconds() if oldest else 3600.0
                raise Refused(429, f"storage limit: your submissions of the last 24 hours store "
                                   f"{used / 2**20:.1f} MiB, at most {limits.storage_per_day / 2**20:.0f} MiB; "
                                   "try again later", max(60.0, wait))
        credits = credits_for(s, who.user_id, problem, assignment) if kind == "submit" else []
        if not who.instructor:
            take(s, who.user_id, kind, limits)
        sub = jobs.enqueue(s, who.user_id, problem, kind, source, sha, key, charged=not who.instructor,
                          custom_input=custom_input, credits=credits)
    return Admitted(sub, True)
