"""The class insight's figures kept between requests (grader/service/domain/insight_cache.py),
on SQLite and PostgreSQL: a second read with nothing changed is the kept figures, fresh; a
grade recorded since (a rejudge's too), a learner who joined or left, an extension, a
change to the assignment each has the kept figures served at once as not fresh while they
are counted again in the background, once; the next read gets the new ones. Requests with
nothing kept wait for one count between them."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from service_support import P1, add_assignment, make_user
from sqlalchemy import delete, select, update

from grader.service.core.models import (Assignment, AssignmentProblem, Extension, Membership, Submission, User,
                                        utcnow)
from grader.service.domain import insight_cache
from grader.service.queue import jobs
from grader.service.server import open_database

HINT = "the clipped gradients are summed; the task asks for their mean over the N examples."
WRONG = {"verdict": "WA", "hint": HINT, "passed": 0, "total": 1,
         "cases": [{"id": "example_1", "visibility": "public", "verdict": "WA", "reason": "", "message": "",
                    "time_ms": 1.0, "hint": HINT}]}


@pytest.fixture
def db(db_url):
    insight_cache.forget()
    database = open_database(db_url)
    yield database
    database.close()
    insight_cache.forget()


def _class(db) -> int:
    """A course with one learner and an assignment on P1; the assignment's id."""
    make_user(db.url, "l@example.org", course=None)
    with db.write() as s:
        a = add_assignment(s, (P1,), credit="accepted")
        uid = s.scalar(select(User.id).where(User.email == "l@example.org"))
        s.add(Membership(course_id=a.course_id, user_id=uid, role="learner", created_at=utcnow()))
        return a.id


def _grade(db, aid: int, verdict: str) -> str:
    """A Submit counting for the assignment, recorded as the queue records one."""
    with db.write() as s:
        uid = s.scalar(select(User.id).where(User.email == "l@example.org"))
        sub_id = jobs.enqueue(s, uid, P1, "submit", "x = 1", "0" * 64, credits=[(aid, False)]).id
    job = jobs.claim(db, "w1")
    assert job is not None and job.id == sub_id
    report = WRONG if verdict == "WA" else {"verdict": "AC", "hint": None, "cases": []}
    assert jobs.finish(db, job, "w1", jobs.ClaimResult(verdict, 1 if verdict == "AC" else 0, 1, report, report,
                                                       "v", "j"))
    return sub_id


def _figures(db, aid: int):
    with db.read() as s:
        return insight_cache.assignment_insight(s, s.get(Assignment, aid))


def _read(db, aid: int):
    """The figures once they are fresh: a stale answer first, then the background count's."""
    first = _figures(db, aid)
    deadline = time.monotonic() + 60
    found = first
    while not found.fresh:
        assert time.monotonic() < deadline, "the background count never replaced the stale figures"
        time.sleep(0.05)
        found = _figures(db, aid)
    return found.value


def _solved(ins) -> int:
    return ins.problems[0].solved


def test_a_second_read_with_nothing_changed_is_the_kept_figures(db):
    aid = _class(db)
    _grade(db, aid, "WA")
    first, second = _figures(db, aid), _figures(db, aid)
    assert first.fresh and second.fresh and second.value.problems is first.value.problems  # not counted again
    assert second.counted_at == first.counted_at
    assert [m.text for m in second.value.problems[0].mistakes] == [HINT]


def test_after_a_change_the_kept_figures_are_served_at_once_not_fresh_until_counted_again(db):
    aid = _class(db)
    _grade(db, aid, "WA")
    kept = _figures(db, aid)
    _grade(db, aid, "AC")
    stale = _figures(db, aid)
    assert not stale.fresh and stale.value.problems is kept.value.problems and stale.counted_at == kept.counted_at
    assert _solved(_read(db, aid)) == 1  # the background count's


def test_requests_with_nothing_kept_wait_for_one_count_between_them(db):
    aid = _class(db)
    _grade(db, aid, "WA")
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: _figures(db, aid), range(4)))
    assert all(g.fresh for g in got)
    assert len({id(g.value.problems) for g in got}) == 1  # one count, whoever asked first


def test_a_grade_recorded_since_has_the_figures_counted_again(db):
    aid = _class(db)
    _grade(db, aid, "WA")
    assert _solved(_read(db, aid)) == 0
    _grade(db, aid, "AC")
    assert _solved(_read(db, aid)) == 1


def test_a_rejudged_grade_has_the_figures_counted_again(db):
    aid = _class(db)
    sub_id = _grade(db, aid, "WA")
    assert _solved(_read(db, aid)) == 0
    with db.write() as s:  # what a rejudge does: back in the queue, then graded again
        s.execute(update(Submission).where(Submission.id == sub_id).values(status="queued"))
    job = jobs.claim(db, "w1")
    assert job is not None
    report = {"verdict": "AC", "hint": None, "cases": []}
    assert jobs.finish(db, job, "w1", jobs.ClaimResult("AC", 1, 1, report, report, "v2", "j"))
    assert _solved(_read(db, aid)) == 1


@pytest.mark.parametrize("change", ["learner joins", "learner leaves", "extension", "assignment edited",
                                    "problem added"])
def test_a_change_to_what_the_figures_count_has_them_counted_again(db, change):
    aid = _class(db)
    _grade(db, aid, "WA")
    before = _read(db, aid)
    now = utcnow()
    with db.write() as s:
        a = s.get(Assignment, aid)
        if change == "learner joins":
            other = User(email="m@example.org", password_hash=None, role="learner", created_at=now)
            s.add(other)
            s.flush()
            s.add(Membership(course_id=a.course_id, user_id=other.id, role="learner", created_at=now))
        elif change == "learner leaves":
            s.execute(delete(Membership).where(Membership.course_id == a.course_id))
        elif change == "extension":
            uid = s.scalar(select(User.id).where(User.email == "l@example.org"))
            s.add(Extension(assignment_id=aid, user_id=uid, due_at=now + timedelta(days=3), late_until=None,
                            reason="ill", granted_by=None, granted_at=now))
        elif change == "assignment edited":
            a.due_at = now + timedelta(days=5)
        else:
            s.add(AssignmentProblem(assignment_id=aid, problem="global_norm_clipping", position=1, weight=1.0))
    after = _read(db, aid)
    assert after.problems is not before.problems
    if change == "learner joins":
        assert (before.learners, after.learners) == (1, 2)
    elif change == "learner leaves":
        assert (before.learners, after.learners) == (1, 0)
    elif change == "assignment edited":
        assert after.timeline.due != before.timeline.due
    elif change == "problem added":
        assert [p.problem for p in after.problems] == [P1, "global_norm_clipping"]
