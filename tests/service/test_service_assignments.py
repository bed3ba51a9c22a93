"""Assignments against a live `grader serve` (no workers: rows are marked graded by hand,
as a worker leaves them): creating one, its window (a Submit refused before it opens and
after it closes, late in between), an extension recorded with who gave it, the scores
by the stated policy (partial or all-or-nothing credit, the late penalty, the best
Submit counting), the CSV layouts Canvas and Moodle import, and the pages."""
from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta, timezone

import httpx
import pytest
from service_support import P1, Server, logged_in, make_user, mark_graded, sqlite_url
from sqlalchemy import text

PASSWORD = "correct horse"
P2 = "value_and_grad_loss"
NOW = datetime.now(timezone.utc)


def _at(hours: float) -> str:
    return (NOW + timedelta(hours=hours)).isoformat()


# Each window relative to the start of the module: (opens, due, late until) in hours.
WINDOWS = {"soon": (1, 2, None), "open": (-1, 1, None), "late": (-2, -1, 1), "closed": (-3, -2, None)}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("assignments")
    url = sqlite_url(root)
    tokens = {"t": make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None),
              "ann": make_user(url, "ann@example.org", password=PASSWORD, course=None),
              "out": make_user(url, "out@example.org", password=PASSWORD, course=None)}
    server = Server(url, "--login-limit", "100000/min", "--submit-limit", "1000/min", "--max-pending", "100",
                    workers=0).start()
    server.tokens, server.url = tokens, url
    with server.client(tokens["t"]) as t:
        assert t.post("/courses", json={"slug": "ml", "title": "ML"}).status_code == 201
        code = t.post("/courses/ml/invitations", json={}).json()["code"]
        for slug, (opens, due, late) in WINDOWS.items():
            body = {"slug": slug, "title": f"Week {slug}", "opens_at": _at(opens), "due_at": _at(due),
                    "late_until": _at(late) if late is not None else None, "late_penalty": 0.5,
                    "problems": [{"problem": P1, "weight": 10}, {"problem": P2, "weight": 5}]}
            r = t.post("/courses/ml/assignments", json=body)
            assert r.status_code == 201, r.text
        r = t.post("/courses/ml/assignments", json={"slug": "strict", "title": "All or nothing", "credit": "accepted",
                                                    "opens_at": _at(-1), "due_at": _at(1),
                                                    "problems": [{"problem": P1}]})
        assert r.status_code == 201, r.text
    with server.client(tokens["ann"]) as ann:
        assert ann.post("/join", json={"code": code}).status_code == 200
    yield server
    server.stop()


def api(site, who: str) -> httpx.Client:
    return site.client(site.tokens[who])


def submit(site, who: str, assignment: str | None, problem: str = P1, kind: str = "submit"):
    body = {"problem": problem, "source": f"# {assignment} {kind}\n", "kind": kind}
    if assignment is not None:
        body["assignment"] = assignment
    with api(site, who) as c:
        return c.post("/submissions", json=body)


def _late(site, sub_id: str, slug: str) -> bool:
    """Whether the Submit was late for the assignment ``ml/slug``."""
    from grader.service.core.db import Database

    db = Database(site.url)
    try:
        with db.engine.connect() as conn:
            return bool(conn.execute(text(
                "SELECT c.late FROM submission_credits c JOIN submissions s ON s.pk = c.submission_pk "
                "JOIN assignments a ON a.id = c.assignment_id WHERE s.id = :id AND a.slug = :slug"),
                {"id": sub_id, "slug": slug}).scalar())
    finally:
        db.close()


@pytest.mark.parametrize("body, message", [
    ({"opens_at": _at(2), "due_at": _at(1)}, "opens before it is due"),
    ({"late_until": _at(0.5)}, "late window ends after the due time"),
    ({"problems": [{"problem": "no_such_problem"}]}, "no such problem: no_such_problem"),
    ({"problems": [{"problem": P1}, {"problem": P1}]}, "listed twice"),
    ({"slug": "open"}, "has an assignment 'open' already"),
])
def test_an_assignment_that_cannot_be_is_refused_with_a_reason(site, body, message):
    full = {"slug": "x-" + str(abs(hash(message)) % 1000), "title": "X", "opens_at": _at(0), "due_at": _at(1),
            "problems": [{"problem": P1}], **body}
    with api(site, "t") as t:
        r = t.post("/courses/ml/assignments", json=full)
    assert r.status_code == 400 and message in r.json()["detail"], r.text


def test_times_without_a_timezone_are_refused(site):
    with api(site, "t") as t:
        r = t.post("/courses/ml/assignments", json={"slug": "naive", "title": "N", "opens_at": "2027-01-01T09:00:00",
                                                    "due_at": "2027-01-02T09:00:00", "problems": [{"problem": P1}]})
    assert r.status_code == 422 and "timezone" in r.text.lower()


@pytest.mark.parametrize("slug, status, late, message", [
    ("soon", 403, None, "it opens at"),
    ("open", 202, False, None),
    ("late", 202, True, None),
    ("closed", 403, None, "it closed at"),
])
def test_a_submit_for_an_assignment_follows_its_window(site, slug, status, late, message):
    r = submit(site, "ann", f"ml/{slug}")
    assert r.status_code == status, r.text
    if message:
        assert message in r.json()["detail"]
    else:
        assert _late(site, r.json()["id"], slug) is late


def test_a_submit_for_an_assignment_is_refused_outside_it(site):
    assert submit(site, "out", "ml/open").status_code == 404  # not in the course
    assert "not one of its problems" in submit(site, "ann", "ml/open", problem="ema_with_scan").json()["detail"]
    r = submit(site, "ann", "ml/open", kind="run")
    assert r.status_code == 422 and "only a Submit" in r.json()["detail"]
    assert submit(site, "ann", None).status_code == 202  # practice: no assignment


def test_an_extension_reopens_a_closed_assignment_for_one_learner_and_says_who_gave_it(site):
    with api(site, "t") as t:
        r = t.post("/courses/ml/assignments/closed/extensions",
                   json={"email": "ann@example.org", "due_at": _at(1), "reason": "ill"})
        assert r.status_code == 200 and r.json()["granted_by"] == "t@example.org" and r.json()["reason"] == "ill"
        assert t.post("/courses/ml/assignments/closed/extensions",
                      json={"email": "out@example.org", "due_at": _at(1)}).status_code == 404
    with api(site, "ann") as ann:
        mine = ann.get("/courses/ml/assignments/closed").json()["window"]
        assert mine["extended"] and mine["state"] == "open"
        assert ann.get("/courses/ml/assignments/closed/scores").status_code == 403
    r = submit(site, "ann", "ml/closed")
    assert r.status_code == 202 and not _late(site, r.json()["id"], "closed")


def test_scores_follow_the_policy_best_submit_late_penalty_and_weights(site):
    early = submit(site, "ann", "ml/late", problem=P2).json()["id"]  # late: the window is past due
    mark_graded(site.url, early, "WA", 2)
    best = submit(site, "ann", "ml/late", problem=P2).json()["id"]
    mark_graded(site.url, best, "AC", 3)
    first = submit(site, "ann", "ml/open").json()["id"]
    mark_graded(site.url, first, "WA", 1)
    with api(site, "t") as t:
        rows = {r["learner"]: r for r in t.get("/courses/ml/assignments/late/scores").json()}
        ann = rows["ann@example.org"]["cells"]
        assert ann[P2]["score"] == 0.5 and ann[P2]["late"] and ann[P2]["submission"] == best  # 3/3, less half
        # A Submit counts for every open assignment with its problem: ``first`` (1/3 of P1's
        # 10 points) counts here too, late; the P2 ones count for "open", on time.
        assert rows["ann@example.org"]["points"] == pytest.approx(2.5 + 10 / 6, abs=1e-3)  # 5 x 0.5 + 10/3 x 0.5
        opened = {r["learner"]: r for r in t.get("/courses/ml/assignments/open/scores").json()}
        assert opened["ann@example.org"]["points"] == pytest.approx(10 / 3 + 5, abs=1e-3)  # 1/3 of 10 points, 5
    strict = submit(site, "ann", "ml/strict").json()["id"]
    mark_graded(site.url, strict, "WA", 2)
    with api(site, "t") as t:
        assert t.get("/courses/ml/assignments/strict/scores").json()[0]["points"] == 0  # all or nothing
    with api(site, "ann") as c:
        # One's own score; the strict Submit (2/3 of P1) counts for "late" too, late: 5 x 0.5 + 20/3 x 0.5.
        assert c.get("/courses/ml/assignments/late").json()["points"] == 5.8333


def test_the_scores_csv_comes_in_canvas_and_moodle_layouts(site):
    with api(site, "t") as t:
        canvas = list(csv.reader(io.StringIO(t.get("/courses/ml/assignments/late/scores",
                                                   params={"format": "csv", "layout": "canvas"}).text)))
        moodle = list(csv.reader(io.StringIO(t.get("/courses/ml/assignments/late/scores",
                                                   params={"format": "csv", "layout": "moodle"}).text)))
        plain = t.get("/courses/ml/assignments/late/scores", params={"format": "csv"}).text
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Week late"]
    assert canvas[1][0] == "Points Possible" and canvas[1][5] == "15"
    assert ["ann@example.org", "", "", "ann@example.org", "", "5.8333"] in canvas
    assert moodle[0] == ["Email address", "Week late"] and ["ann@example.org", "5.8333"] in moodle
    assert plain.startswith(f"learner,{P1},{P2},points,points_possible,extension\n")
    assert "ann@example.org,3.33333 late,2.5 late,5.8333,15," in plain


def test_the_pages_show_a_learner_their_window_and_score_and_an_instructor_everyones(site):
    with logged_in(site.base, "ann@example.org", PASSWORD) as page:
        home = page.get("/courses").text  # what is due, across one's courses, with one's points
        assert 'data-due="ml/late"' in home and "5.8333 of 15" in home and 'data-due="ml/soon"' in home
        course = page.get("/courses/ml").text
        assert 'data-assignment="late"' in course and 'id="assignment-new"' not in course
        mine = page.get("/courses/ml/assignments/late").text
        assert 'class="num total">5.8333<' in mine and 'id="extension-new"' not in mine and "a late Submit" in mine
        assert "(your extension)" in page.get("/courses/ml/assignments/closed").text
        problem = page.get(f"/problems/{P1}", params={"assignment": "ml/late"}).text
        assert 'data-assignment="ml/late"' in problem and 'id="made-for"' in problem
        assert "a Submit now is late" in problem
        assert page.get(f"/problems/{P1}", params={"assignment": "ml/nothing"}).status_code == 404
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        body = page.get("/courses/ml/assignments/closed").text
        assert 'data-learner="ann@example.org"' in body and "given by t@example.org" in body and "(ill)" in body
        assert "layout=canvas" in body and 'id="assignment-new"' in page.get("/courses/ml").text


def _body(**change) -> dict:
    return {"title": "Week edit", "opens_at": _at(1), "due_at": _at(2), "late_penalty": 0.25,
            "problems": [{"problem": P1, "weight": 4}], **change}


def test_an_assignment_is_changed_whole_but_its_slug_and_its_scores_follow(site):
    with api(site, "t") as t:
        assert t.post("/courses/ml/assignments", json={**_body(), "slug": "edit"}).status_code == 201
        r = t.put("/courses/ml/assignments/edit", json=_body(title="Week edited", opens_at=_at(-1), credit="accepted",
                                                             problems=[{"problem": P2, "weight": 7}]))
        assert r.status_code == 200, r.text
        got = r.json()
        assert got["slug"] == "edit" and got["title"] == "Week edited" and got["credit"] == "accepted"
        assert got["window"]["state"] == "open" and got["problems"] == [{"problem": P2, "weight": 7}]
        assert got["points_possible"] == 7
    sub = submit(site, "ann", "ml/edit", problem=P2)  # open now, and P2 is its problem
    assert sub.status_code == 202, sub.text
    mark_graded(site.url, sub.json()["id"], "AC", 3)
    with api(site, "t") as t:
        assert t.get("/courses/ml/assignments/edit/scores").json()[0]["points"] == 7
        assert t.put("/courses/ml/assignments/edit", json=_body(problems=[{"problem": P2, "weight": 2}]
                                                                )).status_code == 200
        assert t.get("/courses/ml/assignments/edit/scores").json()[0]["points"] == 2  # the new weight


@pytest.mark.parametrize("who, change, status, message", [
    ("t", {"opens_at": _at(3)}, 400, "opens before it is due"),
    ("t", {"problems": [{"problem": "no_such_problem"}]}, 400, "no such problem"),
    ("t", {"slug": "renamed"}, 422, "slug"),          # the slug never changes
    ("ann", {}, 403, None),                            # learners cannot
    ("out", {}, 403, None),
])
def test_a_change_that_cannot_be_is_refused_and_changes_nothing(site, who, change, status, message):
    with api(site, "t") as t:
        before = t.get("/courses/ml/assignments/open").json()
    with api(site, who) as c:
        r = c.put("/courses/ml/assignments/open", json=_body(**change))
    assert r.status_code == status, r.text
    if message:
        assert message in r.json()["detail"]
    with api(site, "t") as t:
        assert t.get("/courses/ml/assignments/open").json() == before


def test_an_assignment_without_submits_is_deleted_and_one_with_submits_is_not(site):
    with api(site, "t") as t:
        assert t.post("/courses/ml/assignments", json={**_body(), "slug": "gone"}).status_code == 201
        assert t.post("/courses/ml/assignments/gone/extensions",
                      json={"email": "ann@example.org", "due_at": _at(3)}).status_code == 200
        assert t.delete("/courses/ml/assignments/gone").status_code == 204
        assert t.get("/courses/ml/assignments/gone").status_code == 404
        assert t.post("/courses/ml/assignments", json={**_body(), "slug": "gone"}).status_code == 201  # name free
        assert submit(site, "ann", "ml/open").status_code == 202
        r = t.delete("/courses/ml/assignments/open")  # ann submitted for it
        assert r.status_code == 409 and "cannot be deleted" in r.json()["detail"]
        assert t.get("/courses/ml/assignments/open").status_code == 200
    with api(site, "ann") as c:
        assert c.delete("/courses/ml/assignments/gone").status_code == 403
