"""What a Submit counts for, against a live `grader serve` (no workers: rows are marked
graded by hand) on SQLite and PostgreSQL: a Submit made from the problem page, naming no
assignment, counts for every assignment of the learner's courses that includes the
problem and takes a Submit now (late in its late window), and for no other; the problem
page and the API say so before the Submit; a course's gradebook shows the figures of the
assignment pages; the migration moves each Submit's assignment into its credits."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import httpx
import pytest
from service_support import P1, Server, logged_in, make_user, mark_graded, sqlite_url
from sqlalchemy import text

PASSWORD = "correct horse"
P2 = "value_and_grad_loss"
ELSEWHERE = "ema_with_scan"  # in no assignment
NOW = datetime.now(timezone.utc)


def _at(hours: float) -> str:
    return (NOW + timedelta(hours=hours)).isoformat()


# course/slug: (opens, due, late until) in hours from the start of the module, and its problems.
ASSIGNMENTS = {
    "ml/week1": ((-1, 1, None), [(P1, 10), (P2, 5)]),
    "ml/behind": ((-3, -1, 1), [(P1, 4)]),        # past due, in its late window (penalty 0.5)
    "ml/closed": ((-3, -2, None), [(P1, 1)]),
    "ml/soon": ((1, 2, None), [(P1, 1)]),
    "ml/vectors": ((-1, 1, None), [(P2, 1)]),     # open, but without P1
    "cv/hw": ((-1, 3, None), [(P1, 2)]),
    "nlp/hw": ((-1, 1, None), [(P1, 1)]),          # a course ann is not in
}
COUNTED = {"ml/week1", "ml/behind", "cv/hw"}  # what a Submit of P1 by ann counts for now


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("credit")
    url = sqlite_url(root) if request.param == "sqlite" else request.getfixturevalue("postgres").new_database()
    tokens = {"t": make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None),
              "u": make_user(url, "u@example.org", instructor=True, password=PASSWORD, course=None),
              "ann": make_user(url, "ann@example.org", password=PASSWORD, course=None)}
    server = Server(url, "--login-limit", "100000/min", "--submit-limit", "1000/min", "--max-pending", "100",
                    workers=0).start()
    server.tokens, server.url = tokens, url
    with server.client(tokens["t"]) as t, server.client(tokens["u"]) as u, server.client(tokens["ann"]) as ann:
        for who, slug in ((t, "ml"), (t, "cv"), (u, "nlp")):
            assert who.post("/courses", json={"slug": slug, "title": f"Course {slug}"}).status_code == 201
        for ref, ((opens, due, late), problems) in ASSIGNMENTS.items():
            course, slug = ref.split("/")
            r = (u if course == "nlp" else t).post(f"/courses/{course}/assignments", json={
                "slug": slug, "title": f"Title {ref}", "opens_at": _at(opens), "due_at": _at(due),
                "late_until": _at(late) if late is not None else None, "late_penalty": 0.5,
                "problems": [{"problem": p, "weight": w} for p, w in problems]})
            assert r.status_code == 201, r.text
        for course in ("ml", "cv"):
            code = t.post(f"/courses/{course}/invitations", json={}).json()["code"]
            assert ann.post("/join", json={"code": code}).status_code == 200
    yield server
    server.stop()


def api(site, who: str) -> httpx.Client:
    return site.client(site.tokens[who])


def submit(site, problem: str = P1, assignment: str | None = None) -> httpx.Response:
    body = {"problem": problem, "source": f"# {problem} {assignment}\n", "kind": "submit"}
    if assignment is not None:
        body["assignment"] = assignment
    with api(site, "ann") as c:
        return c.post("/submissions", json=body)


def _scores(site, ref: str) -> dict:
    course, slug = ref.split("/")
    with api(site, "u" if course == "nlp" else "t") as c:
        r = c.get(f"/courses/{course}/assignments/{slug}/scores")
        assert r.status_code == 200, r.text
        return {row["learner"]: row for row in r.json()}


def _counted(site, sub_id: str) -> dict[str, bool]:
    with api(site, "ann") as c:
        counts = c.get(f"/submissions/{sub_id}").json()["counts_for"]
    return {f"{x['course']}/{x['assignment']}": x["late"] for x in counts}


def test_the_problem_page_says_before_submit_which_open_assignments_a_submit_counts_for(site):
    with logged_in(site.base, "ann@example.org", PASSWORD) as page:
        body = page.get(f"/problems/{P1}").text
        listed = re.search(r'<div id="counts-for".*?</div>', body, re.S).group(0)
        assert set(re.findall(r'data-assignment="([^"]+)"', listed)) == COUNTED
        behind = re.search(r'<li data-assignment="ml/behind">.*?</li>', listed).group(0)
        assert "Course ml" in behind and "Title ml/behind" in behind and "past due: late" in behind
        week1 = re.search(r'<li data-assignment="ml/week1">.*?</li>', listed).group(0)
        assert "past due" not in week1
        due = datetime.fromisoformat(re.search(r'<time class="local" datetime="([^"]+)"', week1).group(1))
        assert abs(due - (NOW + timedelta(hours=1))) < timedelta(seconds=1)
        assert "counts for no assignment" not in listed
        assert "practice: counts for no assignment" in page.get(f"/problems/{ELSEWHERE}").text
    with logged_in(site.base, "t@example.org", PASSWORD) as page:  # an instructor's Submit is practice
        assert "practice: counts for no assignment" in page.get(f"/problems/{P1}").text


def test_the_api_lists_what_a_submit_counts_for_before_it_is_made(site):
    with api(site, "ann") as c:
        got = {f"{x['course']}/{x['assignment']}": x for x in c.get(f"/problems/{P1}").json()["counts_for"]}
        assert set(got) == COUNTED and got["ml/behind"]["late"] and not got["ml/week1"]["late"]
        assert got["cv/hw"]["title"] == "Title cv/hw"
        assert c.get(f"/problems/{ELSEWHERE}").json()["counts_for"] == []


def test_a_submit_naming_no_assignment_counts_for_each_open_assignment_of_each_course_that_includes_it(site):
    r = submit(site)
    assert r.status_code == 202, r.text
    sub = r.json()["id"]
    mark_graded(site.url, sub, "AC", 3, 3)
    assert _counted(site, sub) == {"ml/week1": False, "ml/behind": True, "cv/hw": False}
    week1 = _scores(site, "ml/week1")["ann@example.org"]
    assert week1["cells"][P1]["submission"] == sub and week1["cells"][P1]["score"] == 1 and week1["points"] == 10
    behind = _scores(site, "ml/behind")["ann@example.org"]
    assert behind["cells"][P1]["late"] and behind["points"] == 2  # 4 points, less half
    assert _scores(site, "cv/hw")["ann@example.org"]["points"] == 2
    for closed in ("ml/closed", "ml/soon"):
        assert _scores(site, closed)["ann@example.org"]["cells"][P1]["submission"] is None, closed
    assert "ann@example.org" not in _scores(site, "nlp/hw")  # not a member there
    with api(site, "ann") as c:
        assert c.get("/courses/ml/assignments/week1").json()["points"] == 10  # the learner's own page agrees


def test_a_submit_naming_an_assignment_counts_for_the_others_too_and_a_closed_one_is_refused(site):
    r = submit(site, P1, "cv/hw")
    assert r.status_code == 202, r.text
    assert set(_counted(site, r.json()["id"])) == COUNTED  # the route to the page loses no credit
    refused = submit(site, P1, "ml/closed")
    assert refused.status_code == 403 and "it closed at" in refused.json()["detail"]
    assert submit(site, P1, "nlp/hw").status_code == 404
    practice = submit(site, ELSEWHERE)
    assert practice.status_code == 202 and _counted(site, practice.json()["id"]) == {}


def _cell(html: str, learner: str, problem: str) -> str:
    row = re.search(rf'<tr data-learner="{re.escape(learner)}">.*?</tr>', html, re.S).group(0)
    return re.search(rf'<td data-problem="{problem}">(.*?)</td>', row, re.S).group(1)


def test_a_courses_gradebook_shows_the_figures_of_the_assignment_pages(site):
    sub = submit(site, P2).json()["id"]  # counts for ml/week1 and ml/vectors
    mark_graded(site.url, sub, "WA", 1, 3)
    with api(site, "t") as t:
        book = {b["assignment"]: b for b in t.get("/courses/ml/gradebook").json()}
        assert set(book) == {"week1", "behind", "closed", "soon", "vectors"}
        for slug, b in book.items():
            assert b["rows"] == t.get(f"/courses/ml/assignments/{slug}/scores").json(), slug
        assert t.get("/courses/nlp/gradebook").status_code == 404  # not theirs
    with logged_in(site.base, "ann@example.org", PASSWORD) as page:
        mine = page.get("/courses/ml/assignments/week1").text
        own = {p: re.search(rf'<tr data-problem="{p}">.*?<td class="num">([^<]*)</td>', mine, re.S).group(1)
               for p in (P1, P2)}
        total = re.search(r'class="num total">([^<]*)<', mine).group(1)
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        html = page.get("/gradebook", params={"course": "ml"}).text
        section = re.search(r'<section class="course-book" data-assignment="ml/week1".*?</section>', html,
                            re.S).group(0)
        for p in (P1, P2):
            shown = re.search(r'<span class="score">([^<]*)</span>', _cell(section, "ann@example.org", p)).group(1)
            assert shown == own[p], p
        assert own[P2] == "1.66667" and total == "11.6667"  # 10 for P1, a third of 5 for P2
        points = re.search(r'<tr data-learner="ann@example.org">.*?class="num points">([^<]*)<', section, re.S)
        assert points.group(1) == total
        practice = page.get("/gradebook", params={"course": "ml", "view": "practice"}).text
        assert 'data-view="practice"' in practice and "AC" in _cell(practice, "ann@example.org", P1)
        assert page.get("/gradebook", params={"course": "ml", "view": "nope"}).status_code == 400


def test_the_migration_moves_each_submits_assignment_into_its_credits(db_url):
    from alembic import command

    from grader.service.core.db import Database, alembic_config, upgrade

    db = Database(db_url)
    try:
        with db.engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0008")
            when = {"at": datetime.now(timezone.utc).replace(tzinfo=None)}
            conn.execute(text("INSERT INTO users (id, email, role, created_at) VALUES (90, 'a@x.org', 'learner', :at)"),
                         when)
            conn.execute(text("INSERT INTO courses (id, slug, title, created_at) VALUES (90, 'c', 'C', :at)"), when)
            conn.execute(text("INSERT INTO assignments (id, course_id, slug, title, opens_at, due_at, late_penalty, "
                              "credit, created_at) VALUES (7, 90, 'a', 'A', :at, :at, 0, 'partial', :at)"), when)
            for pk, assignment, late in ((1, 7, True), (2, None, False)):
                conn.execute(text(
                    "INSERT INTO submissions (pk, id, user_id, problem, kind, source, source_sha256, charged, status, "
                    "priority, created_at, queued_at, attempts, assignment_id, late) VALUES (:pk, :id, 90, 'p', "
                    "'submit', '', '', :no, 'done', 0, :at, :at, 1, :a, :late)"),
                    {**when, "pk": pk, "id": f"s{pk}", "a": assignment, "late": late, "no": False})
        upgrade(db)
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT submission_pk, assignment_id, late FROM submission_credits")).all() \
                == [(1, 7, True)]
            assert conn.execute(text("SELECT count(*) FROM submissions")).scalar() == 2
        with db.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0008")
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT pk, assignment_id, late FROM submissions ORDER BY pk")).all() \
                == [(1, 7, True), (2, None, False)]
    finally:
        db.close()
