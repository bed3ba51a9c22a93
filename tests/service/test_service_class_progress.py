"""A course's ``show_class_progress``, on SQLite and PostgreSQL against a live `grader serve`
(no workers: the Submits are graded straight into the database as the queue records them):
off by default, so a learner's progress (API and page) says nothing of anyone else; its
instructors turn it on (``PATCH /api/v1/courses/{slug}``, or the form on the course's page)
and each learner's progress then gives, per problem, the share of the course's learners with
an accepted Submit that counts for an assignment of the course (as the class insight counts
them); only they may (a learner 403, another course's instructor 404, a bad body 422);
migration 0012 adds it, off, and goes back, every row kept.

The tests run in file order: each starts from the setting the one before left."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import httpx
import pytest
from service_support import P1, Server, csrf, logged_in, make_user, sqlite_url
from sqlalchemy import select, text

from grader.service.core.models import Course, Membership, User, utcnow
from grader.service.queue import jobs
from grader.service.server import open_database

P2 = "value_and_grad_loss"
PASSWORD = "correct horse"
LEARNERS = ("ann", "bob", "cat", "dan")
# (who, problem, verdict, counts for the assignment), in the order graded.
GRADES = [
    ("ann", P1, "WA", True), ("ann", P1, "AC", True),  # solved after a WA
    ("bob", P1, "AC", True), ("bob", P2, "IE", True),  # the judge's failure: no solve
    ("cat", P1, "AC", False),  # practice: counts for no assignment
    ("cat", P2, "AC", True),
    ("t", P1, "AC", True),  # the course's instructor: not one of its learners
]
# Of the 4 learners: ann and bob solved P1, cat P2; dan sent nothing.
SHOWN = {P1: (0.5, 2, 4), P2: (0.25, 1, 4)}


def _grade(db, uid: int, problem: str, verdict: str, credits: list[tuple[int, bool]]) -> None:
    with db.write() as s:
        sub_id = jobs.enqueue(s, uid, problem, "submit", "x = 1\n", "0" * 64, credits=credits).id
    job = jobs.claim(db, "w1")
    assert job is not None and job.id == sub_id
    report = {"verdict": verdict, "hint": None, "cases": []}
    assert jobs.finish(db, job, "w1", jobs.ClaimResult(verdict, 1 if verdict == "AC" else 0, 1, report, report,
                                                       "v", "j"))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request, tmp_path_factory):
    from service_support import add_assignment

    if request.param == "sqlite":
        url = sqlite_url(tmp_path_factory.mktemp("class_progress"))
    else:
        url = request.getfixturevalue("postgres").new_database()
    tokens = {"t": make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None),
              "u": make_user(url, "u@example.org", instructor=True, password=PASSWORD, course=None)}
    tokens |= {n: make_user(url, f"{n}@example.org", password=PASSWORD, course=None) for n in LEARNERS}
    db = open_database(url)
    try:
        with db.write() as s:
            a = add_assignment(s, (P1, P2), credit="accepted")
            aid = a.id
            ids = {n: s.scalar(select(User.id).where(User.email == f"{n}@example.org")) for n in ("t", "u", *LEARNERS)}
            now = utcnow()
            s.add_all([Membership(course_id=a.course_id, user_id=ids[n], role="learner", created_at=now)
                       for n in LEARNERS])
            s.add(Membership(course_id=a.course_id, user_id=ids["t"], role="instructor", created_at=now))
            other = Course(slug="other", title="Other", created_at=now)
            s.add(other)
            s.flush()
            s.add(Membership(course_id=other.id, user_id=ids["u"], role="instructor", created_at=now))
        for who, problem, verdict, counts in GRADES:
            _grade(db, ids[who], problem, verdict, [(aid, False)] if counts else [])
    finally:
        db.close()
    server = Server(url, "--login-limit", "100000/min", workers=0).start()
    server.tokens = tokens
    yield server
    server.stop()


def _progress(site, who: str) -> dict:
    with site.client(site.tokens[who]) as c:
        r = c.get("/courses/ml/progress")
    assert r.status_code == 200, r.text
    return {p["problem"]: (p["class_solved_share"], p["class_solved"], p["class_learners"]) for p in r.json()}


def _page(site, who: str, path: str) -> str:
    with logged_in(site.base, f"{who}@example.org", PASSWORD) as page:
        r = page.get(path)
    assert r.status_code == 200, r.text
    return r.text


def _patch(site, who: str, body) -> httpx.Response:
    with site.client(site.tokens[who]) as c:
        return c.patch("/courses/ml", json=body)


def test_off_by_default_a_learners_progress_says_nothing_of_the_class(site):
    assert _progress(site, "ann") == {P1: (None, None, None), P2: (None, None, None)}
    html = _page(site, "ann", "/courses/ml/progress")
    assert "class-solved" not in html and "Solved by the class" not in html and "of 4 learners" not in html
    assert "Learners see the class's solve rate: <strong>off</strong>" in _page(site, "t", "/courses/ml")


def test_only_the_courses_instructors_set_it_and_bad_bodies_are_refused_as_json(site):
    r = _patch(site, "ann", {"show_class_progress": True})  # a learner's account
    assert r.status_code == 403 and r.json()["detail"]
    r = _patch(site, "u", {"show_class_progress": True})  # an instructor of another course
    assert r.status_code == 404 and r.json()["detail"]
    for bad in ({}, {"show_class_progress": "yes"}, {"show_class_progress": "true"}, {"show_class_progress": 1},
                {"show_class_progress": None}, {"show_class_progress": True, "title": "x"}, [True]):
        r = _patch(site, "t", bad)
        assert r.status_code == 422, (bad, r.text)
        assert r.headers["content-type"].startswith("application/json") and r.json()["detail"], bad
    with site.client(site.tokens["t"]) as c:
        r = c.patch("/courses/ml", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"]
    assert _progress(site, "ann")[P1] == (None, None, None)  # still off


def test_turned_on_each_learner_sees_the_share_of_the_class_who_solved_each_problem(site):
    r = _patch(site, "t", {"show_class_progress": True})
    assert r.status_code == 200, r.text
    assert r.json() == {"slug": "ml", "title": "ML", "show_class_progress": True}
    for who in LEARNERS:  # the same figures whoever reads them, dan (no Submit) too
        assert _progress(site, who) == SHOWN, who
    html = _page(site, "ann", "/courses/ml/progress")
    assert "Solved by the class" in html
    cells = {p: re.search(rf'<tr data-problem="{p}">.*?<td class="num class-solved">(.*?)</td>', html, re.S).group(1)
             for p in (P1, P2)}
    assert [re.sub(r"<[^>]+>", "", c) for c in cells.values()] == ["50% (2 of 4 learners)", "25% (1 of 4 learners)"]
    assert not any(f"{n}@example.org" in html for n in ("bob", "cat", "dan"))  # nobody else named
    assert "Learners see the class's solve rate: <strong>on</strong>" in _page(site, "t", "/courses/ml")


def test_the_course_pages_form_sends_the_other_state_with_the_sessions_csrf_token(site):
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        html = page.get("/courses/ml").text
        form = re.search(r'<form id="class-progress"[^>]*data-api="([A-Z]+) ([^"]+)".*?</form>', html, re.S)
        assert form is not None and "Turn it off" in form.group(0)
        field = re.search(r'<input type="hidden" name="show_class_progress" value="(\w+)" data-bool>', form.group(0))
        assert field is not None and field.group(1) == "false"  # forms.js sends data-bool as JSON false
        method, path = form.group(1), "/api/v1" + form.group(2)
        assert page.request(method, path, json={"show_class_progress": False}).status_code == 403  # no token
        r = page.request(method, path, json={"show_class_progress": False}, headers=csrf(page))
        assert r.status_code == 200 and r.json()["show_class_progress"] is False
        html = page.get("/courses/ml").text
    assert "Learners see the class's solve rate: <strong>off</strong>" in html and "Turn it on" in html
    assert _progress(site, "ann") == {P1: (None, None, None), P2: (None, None, None)}
    learner = _page(site, "ann", "/courses/ml/progress")
    assert "class-solved" not in learner and "of 4 learners" not in learner
    assert 'id="class-progress"' not in _page(site, "ann", "/courses/ml")  # its instructors' alone


def test_the_migration_adds_it_off_for_every_course_and_goes_back_keeping_every_row(db_url):
    from alembic import command

    from grader.service.core.db import Database, alembic_config, upgrade

    tables = ("courses", "memberships", "assignments", "submissions", "submission_credits")
    db = Database(db_url)
    try:
        with db.engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0011")
            at = {"at": datetime.now(timezone.utc).replace(tzinfo=None)}
            conn.execute(text("INSERT INTO users (id, email, role, created_at) VALUES (90, 'a@x.org', 'learner', :at)"),
                         at)
            for cid, slug in ((90, "c"), (91, "d")):
                conn.execute(text("INSERT INTO courses (id, slug, title, created_at) VALUES (:id, :slug, 'C', :at)"),
                             {**at, "id": cid, "slug": slug})
                conn.execute(text("INSERT INTO memberships (course_id, user_id, role, created_at) "
                                  "VALUES (:id, 90, 'learner', :at)"), {**at, "id": cid})
            conn.execute(text("INSERT INTO assignments (id, course_id, slug, title, opens_at, due_at, late_penalty, "
                              "credit, created_at) VALUES (7, 90, 'a', 'A', :at, :at, 0, 'accepted', :at)"), at)
            conn.execute(text(
                "INSERT INTO submissions (pk, id, user_id, problem, kind, source, source_sha256, charged, status, "
                "priority, created_at, queued_at, attempts, verdict) VALUES (1, 's1', 90, 'p', 'submit', '', '', "
                ":no, 'done', 0, :at, :at, 1, 'AC')"), {**at, "no": False})
            conn.execute(text("INSERT INTO submission_credits (submission_pk, assignment_id, late) VALUES (1, 7, :no)"),
                         {"no": False})
            before = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() for t in tables}
        upgrade(db)
        with db.engine.begin() as conn:
            shown = dict(conn.execute(text("SELECT slug, show_class_progress FROM courses")).all())
            conn.execute(text("UPDATE courses SET show_class_progress = :yes WHERE slug = 'd'"), {"yes": True})
            after_up = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() for t in tables}
        with db.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0011")
        with db.engine.connect() as conn:
            columns = set(conn.execute(text("SELECT * FROM courses")).keys())
            after_down = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() for t in tables}
    finally:
        db.close()
    assert shown and not any(shown.values())  # every course, the default one too
    assert before["memberships"] >= 2 and before["submission_credits"] == 1
    assert after_up == before and after_down == before
    assert "show_class_progress" not in columns
