"""The class insight's figures kept between requests, under a key of everything they are
counted from, so that an instructor who opens the page again, or the API after it, does
not wait for the whole class to be counted again (a course of 500 learners x 10 problems
x 20 Submits takes seconds).

The key holds, each read through an index: the latest grade recorded anywhere
(``Submission.finished_at``: every grade, a rejudge's included, writes it), the course's
learners (how many, and the last to join), the assignment's extensions, the assignment's
own columns and its problems, and the minute (the timelines stop at now). Any of them
changed, the figures are counted again; the kept ones are never shown after a grade
recorded since. A server keeps ``MAX_KEPT`` sets of figures, the least recently used
going first."""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace
from datetime import datetime
from typing import Any, Callable, TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from . import assignments as asg
from . import course_insight as course_rows
from . import insight
from ..core.models import Assignment, Course, Extension, Membership, Submission, utcnow

MAX_KEPT = 64
T = TypeVar("T")

_kept: OrderedDict[tuple, Any] = OrderedDict()
_lock = threading.Lock()


def _columns(a: Assignment) -> tuple:
    return tuple(getattr(a, c.key) for c in Assignment.__table__.columns)


def _version(s: Session, course_id: int, assignments: list[Assignment], now: datetime) -> tuple:
    ids = [a.id for a in assignments]
    graded = s.scalar(select(func.max(Submission.finished_at)))
    learners = tuple(s.execute(select(func.count(), func.max(Membership.user_id), func.max(Membership.created_at))
                               .where(Membership.course_id == course_id, Membership.role == "learner")).one())
    extensions = tuple(s.execute(select(func.count(), func.max(Extension.granted_at))
                                 .where(Extension.assignment_id.in_(ids))).one())
    shape = tuple((_columns(a), tuple((p.problem, p.weight, p.position) for p in asg.problems_of(s, a)))
                  for a in assignments)
    return graded, learners, extensions, shape, now.replace(second=0, microsecond=0)


def _kept_or(key: tuple, count: Callable[[], T]) -> T:
    with _lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    value = count()  # outside the lock: two first requests may both count, never wait on each other
    with _lock:
        _kept[key] = value
        _kept.move_to_end(key)
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)
    return value


def forget() -> None:
    """Drop every kept figure (a test's fresh start)."""
    with _lock:
        _kept.clear()


def assignment_insight(s: Session, a: Assignment, now: datetime | None = None) -> insight.AssignmentInsight:
    """``insight.assignment_insight``, kept while nothing it counts changed."""
    now = now or utcnow()
    key = ("assignment", a.id, _version(s, a.course_id, [a], now))
    found = _kept_or(key, lambda: insight.assignment_insight(s, a, now))
    return replace(found, assignment=a)  # this request's row, never a row of an ended session


def course_insight(s: Session, course: Course, now: datetime | None = None) -> course_rows.CourseInsight:
    """``course_insight.course_insight``, kept while nothing it counts changed."""
    rows = asg.of_course(s, course)
    key = ("course", course.id, _version(s, course.id, rows, now or utcnow()))
    found = _kept_or(key, lambda: course_rows.course_insight(s, course))
    # The key holds the rows' columns in order, so the kept summaries are these rows', in turn.
    return replace(found, assignments=[replace(x, assignment=a) for x, a in zip(found.assignments, rows)])
