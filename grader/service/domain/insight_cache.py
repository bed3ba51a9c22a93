"""The class insight's figures kept between requests, so that an instructor who opens the
page again, or the API after it, does not wait for the whole class to be counted again
(a course of 500 learners x 10 problems x 20 Submits takes seconds), and so that many
instructors reloading during a deadline's rush do not count it many times over.

Figures are kept per assignment (and per course) with the *version* they were counted
at: the latest grade recorded anywhere (``Submission.finished_at``: every grade, a
rejudge's included, writes it), the course's learners (how many, the last to join), the
assignment's extensions, the assignment's own columns and its problems, and the minute
(the timelines stop at now), each read through an index. A request whose version is the
kept one gets the kept figures. Otherwise the figures are counted again, once however
many requests ask (``_counting``): the first request with nothing kept counts while the
others wait for it; with figures kept, every request gets those at once, said to be
``fresh=False`` with the time they were counted, while one count runs in the background
and replaces them. A server keeps ``MAX_KEPT`` sets of figures, the least recently used
going first."""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Callable, Generic, TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from . import assignments as asg
from . import course_insight as course_rows
from . import insight
from ..core.models import Assignment, Course, Extension, Membership, Submission, utcnow

MAX_KEPT = 64
WAIT_SECONDS = 120.0  # a request with nothing kept waits this long for the count another began
T = TypeVar("T")
M = TypeVar("M", Assignment, Course)


@dataclass(frozen=True)
class Figures(Generic[T]):
    """Figures as a request gets them: counted at ``counted_at``; ``fresh`` when nothing
    they count changed since (else newer ones are being counted)."""
    value: T
    counted_at: datetime
    fresh: bool


@dataclass(frozen=True)
class _Kept:
    version: tuple
    value: Any
    counted_at: datetime


_kept: OrderedDict[tuple, _Kept] = OrderedDict()
_counting: dict[tuple, threading.Event] = {}
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


def _keep(slot: tuple, version: tuple, value: Any, counted_at: datetime) -> None:
    with _lock:
        _kept[slot] = _Kept(version, value, counted_at)
        _kept.move_to_end(slot)
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)


def _count(slot: tuple, version: tuple, count: Callable[[Session], Any], s: Session, done: threading.Event) -> None:
    try:
        _keep(slot, version, count(s), utcnow())
    finally:
        with _lock:
            _counting.pop(slot, None)
        done.set()


def _in_background(slot: tuple, version: tuple, count: Callable[[Session], Any], bind, done: threading.Event) -> None:
    with Session(bind=bind) as s:  # a session of its own: the request's ends with the request
        _count(slot, version, count, s, done)


def _figures(s: Session, slot: tuple, version: tuple, count: Callable[[Session], T]) -> Figures[T]:
    with _lock:
        kept = _kept.get(slot)
        if kept is not None and kept.version == version:
            _kept.move_to_end(slot)
            return Figures(kept.value, kept.counted_at, True)
        running = _counting.get(slot)
        mine = running is None
        if running is None:
            running = _counting[slot] = threading.Event()
    if kept is not None:
        if mine:
            threading.Thread(target=_in_background, args=(slot, version, count, s.get_bind(), running),
                             name="insight-count", daemon=True).start()
        return Figures(kept.value, kept.counted_at, False)
    if mine:
        _count(slot, version, count, s, running)
    else:
        running.wait(WAIT_SECONDS)
    with _lock:
        kept = _kept.get(slot)
    if kept is None:  # the count it waited for failed: count here, as the first would have
        value, counted_at = count(s), utcnow()
        _keep(slot, version, value, counted_at)
        return Figures(value, counted_at, True)
    return Figures(kept.value, kept.counted_at, kept.version == version)


def forget() -> None:
    """Drop every kept figure (a test's fresh start)."""
    with _lock:
        _kept.clear()


def _get(s: Session, model: type[M], pk: int) -> M:
    found = s.get(model, pk)
    if found is None:  # deleted since the request read it: no figures to count
        raise LookupError(f"no {model.__name__} {pk}")
    return found


def assignment_insight(s: Session, a: Assignment, now: datetime | None = None) -> Figures[insight.AssignmentInsight]:
    """``insight.assignment_insight``, kept while nothing it counts changed."""
    now = now or utcnow()
    aid = a.id
    found = _figures(s, ("assignment", aid), _version(s, a.course_id, [a], now),
                     lambda session: insight.assignment_insight(session, _get(session, Assignment, aid), now))
    # This request's row, never a row of another session.
    return replace(found, value=replace(found.value, assignment=a))


def course_insight(s: Session, course: Course, now: datetime | None = None) -> Figures[course_rows.CourseInsight]:
    """``course_insight.course_insight``, kept while nothing it counts changed."""
    rows = asg.of_course(s, course)
    cid = course.id
    found = _figures(s, ("course", cid), _version(s, cid, rows, now or utcnow()),
                     lambda session: course_rows.course_insight(session, _get(session, Course, cid)))
    # The kept summaries are the rows' of when they were counted: this request's, by id.
    by_id = {a.id: a for a in rows}
    value = replace(found.value, assignments=[replace(x, assignment=by_id.get(x.assignment.id, x.assignment))
                                              for x in found.value.assignments])
    return replace(found, value=value)
