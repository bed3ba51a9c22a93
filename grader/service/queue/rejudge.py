"""Rejudging a problem after its cases change: which Submits it requeues, and the
requeue itself (behind the learners' own work, each keeping its verdict until regraded).
The API's rejudge and the submissions page's counts of it share these conditions."""
from __future__ import annotations

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from ..core.db import changed
from ..domain.accounts import Principal
from ..domain.trust import submission_seen_by
from .jobs import REJUDGE
from ..core.models import Submission, utcnow


def grading_suite() -> str | None:
    """The id of the drawn suite the next grade uses (``grader serve --suite DIR``), read
    from the folder's secret now, as each grade reads it; None: the shipped hidden cases.
    A new draw changes the problem's version, so a rejudge counts the Submits graded before it."""
    from ...problem.catalogue import suite_in_use
    from ...problem.suite import SuiteError, suite_id

    folder = suite_in_use()
    if folder is None:
        return None
    try:
        return suite_id(folder)
    except SuiteError as exc:  # then every grade is IE too, saying the same
        return f"unreadable ({exc})"


def rejudge_where(problem: str, version: str, who: Principal, every: bool) -> list:
    """SQL conditions of the Submits a rejudge of ``problem`` by ``who`` requeues: graded,
    of the learners ``who`` may see, and (unless ``every``) graded by another version."""
    where = [Submission.problem == problem, Submission.kind == "submit", Submission.status == "done",
             submission_seen_by(who)]
    if not every:
        where.append(or_(Submission.problem_version.is_(None), Submission.problem_version != version))
    return where


def count(s: Session, problem: str, version: str, who: Principal, every: bool) -> int:
    return int(s.scalar(select(func.count()).select_from(Submission)
                        .where(*rejudge_where(problem, version, who, every))) or 0)


def requeue(s: Session, problem: str, version: str, who: Principal, every: bool) -> int:
    return changed(s, update(Submission).where(*rejudge_where(problem, version, who, every))
                   .values(status="queued", priority=REJUDGE, queued_at=utcnow(), attempts=0, claimed_by=None,
                           started_at=None, charged=False), synchronize_session=False)
