"""The course trust model (grader/service/trust.py, the table in docs/pages/security.md)
against a live `grader serve` on SQLite and on PostgreSQL: an instructor acts on an
account only through a course its holder joined, sees a Submit only when it was made for
their course (practice work of their members included), hands out reset links only for
accounts all of whose courses they teach; and every password change ends the links made
before it, a link's use revokes the account's tokens and sessions."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import httpx
import pytest
from service_support import P1, Server, csrf, logged_in, make_user, mark_graded, sqlite_url

PASSWORD = "correct horse"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request, tmp_path_factory):
    """Two instructors with a course each (ours, theirs), and "bee", a learner of theirs
    only, with a practice Run and a Submit made for their open assignment."""
    if request.param == "sqlite":
        url = sqlite_url(tmp_path_factory.mktemp("trust"))
    else:
        url = request.getfixturevalue("postgres").new_database()
    tokens = {"t1": make_user(url, "t1@example.org", instructor=True, password=PASSWORD, course=None),
              "t2": make_user(url, "t2@example.org", instructor=True, password=PASSWORD, course=None),
              "bee": make_user(url, "bee@example.org", password=PASSWORD, course=None)}
    server = Server(url, "--login-limit", "100000/min", "--submit-limit", "1000/min", workers=0).start()
    server.tokens, server.url = tokens, url
    now = datetime.now(timezone.utc)
    with server.client(tokens["t1"]) as t1, server.client(tokens["t2"]) as t2, server.client(tokens["bee"]) as bee:
        assert t1.post("/courses", json={"slug": "ours", "title": "Ours"}).status_code == 201
        assert t2.post("/courses", json={"slug": "theirs", "title": "Theirs"}).status_code == 201
        r = t2.post("/courses/theirs/assignments", json={
            "slug": "hw", "title": "Homework", "opens_at": (now - timedelta(hours=1)).isoformat(),
            "due_at": (now + timedelta(days=2)).isoformat(), "problems": [{"problem": P1}]})
        assert r.status_code == 201, r.text
        code = t2.post("/courses/theirs/invitations", json={}).json()["code"]
        assert bee.post("/join", json={"code": code}).status_code == 200
        server.work = {kind: bee.post("/submissions", json=body).json()["id"] for kind, body in (
            ("run", {"problem": P1, "source": "# practice\n", "kind": "run"}),
            ("submit", {"problem": P1, "source": "# for their homework\n", "kind": "submit",
                        "assignment": "theirs/hw"}))}
        server.bee_id = next(m["user_id"] for m in t2.get("/courses/theirs/members").json()
                             if m["email"] == "bee@example.org")
    yield server
    server.stop()


def api(site, who: str) -> httpx.Client:
    return site.client(site.tokens[who])



@contextmanager
def _login(site, email: str, password: str = PASSWORD) -> Iterator[httpx.Client]:
    with site.client() as b:
        assert b.post("/auth/login", json={"email": email, "password": password}).status_code == 200
        yield b


def _member_emails(site, who: str, slug: str) -> set[str]:
    with api(site, who) as c:
        return {m["email"] for m in c.get(f"/courses/{slug}/members").json()}


def _can_read(site, who: str, sub_id: str) -> bool:
    with api(site, who) as c:
        codes = {c.get(f"/submissions/{sub_id}{tail}").status_code for tail in ("", "/source")}
    assert len(codes) == 1, codes  # the row and its source answer alike
    return codes == {200}


def test_a_roster_naming_another_courses_learner_invites_them_and_shows_nothing_until_they_accept(site):
    with api(site, "t1") as t1:
        r = t1.post("/courses/ours/roster", json={"csv": "email\nbee@example.org\n"})
        assert r.status_code == 200, r.text
        assert r.json() == [{"email": "bee@example.org", "created": False, "joined": False, "invited": True,
                             "link": None}]
        assert t1.post(f"/courses/ours/members/{site.bee_id}/reset-link").status_code == 404
    assert "bee@example.org" not in _member_emails(site, "t1", "ours")
    assert not _can_read(site, "t1", site.work["run"]) and not _can_read(site, "t1", site.work["submit"])
    with api(site, "bee") as bee:
        assert bee.get("/me/invitations").json() == [
            {"course": "ours", "title": "Ours", "role": "learner", "invited_at": bee.get("/me/invitations")
             .json()[0]["invited_at"]}]
        assert "ours" not in {c["slug"] for c in bee.get("/courses").json()}


def test_an_accepted_roster_invitation_shows_practice_but_not_another_courses_submit(site):
    with api(site, "t1") as t1:
        assert t1.post("/courses/ours/roster", json={"csv": "email\nbee@example.org\n"}).status_code == 200
    with api(site, "bee") as bee:
        r = bee.post("/me/invitations/ours")
        assert r.status_code == 200 and r.json() == {"slug": "ours", "title": "Ours", "role": "learner"}
        assert bee.get("/me/invitations").json() == []
        assert bee.post("/me/invitations/ours").status_code == 404  # answered already
    assert "bee@example.org" in _member_emails(site, "t1", "ours")
    assert _can_read(site, "t1", site.work["run"])  # practice work of a member of ours
    assert not _can_read(site, "t1", site.work["submit"])  # made for theirs: theirs alone
    assert _can_read(site, "t2", site.work["submit"]) and _can_read(site, "t2", site.work["run"])
    with api(site, "t1") as t1:
        listed = {s["id"] for s in t1.get("/submissions", params={"limit": 1000}).json()}
        assert site.work["run"] in listed and site.work["submit"] not in listed


def test_a_declined_roster_invitation_makes_no_member(site):
    make_user(site.url, "dee@example.org", password=PASSWORD, course=None)
    with api(site, "t2") as t2:
        assert t2.post("/courses/theirs/roster", json={"csv": "email\ndee@example.org\n"}).json()[0]["invited"]
    with _login(site, "dee@example.org") as dee:
        assert dee.delete("/me/invitations/theirs", headers=csrf(dee)).status_code == 204
        assert dee.get("/me/invitations").json() == []
    assert "dee@example.org" not in _member_emails(site, "t2", "theirs")


def test_a_reset_link_is_refused_with_the_rule_for_an_account_also_in_a_course_one_does_not_teach(site):
    with api(site, "t1") as t1:
        t1.post("/courses/ours/roster", json={"csv": "email\nbee@example.org\n"})
    with api(site, "bee") as bee:
        bee.post("/me/invitations/ours")
    with api(site, "t1") as t1:
        r = t1.post(f"/courses/ours/members/{site.bee_id}/reset-link")
    assert r.status_code == 400 and "every course is one you teach" in r.json()["detail"]


def test_a_reset_link_is_made_for_an_account_the_roster_created_in_ones_course(site):
    with api(site, "t1") as t1:
        row = t1.post("/courses/ours/roster", json={"csv": "email\nnew1@example.org\n"}).json()[0]
        assert row["created"] and row["joined"] and not row["invited"]
        uid = next(m["user_id"] for m in t1.get("/courses/ours/members").json() if m["email"] == "new1@example.org")
        assert t1.post(f"/courses/ours/members/{uid}/reset-link").status_code == 200


def _learner_with_link(site, email: str) -> tuple[int, str]:
    """A learner of ours only, logged in once, and a reset link t1 made for them."""
    make_user(site.url, email, password=PASSWORD, course="ours")
    with api(site, "t1") as t1:
        uid = next(m["user_id"] for m in t1.get("/courses/ours/members").json() if m["email"] == email)
        link = t1.post(f"/courses/ours/members/{uid}/reset-link").json()["link"].partition("#")[2]
    return uid, link


def test_changing_ones_own_password_ends_a_reset_link_made_before_it(site):
    _uid, link = _learner_with_link(site, "cy@example.org")
    with _login(site, "cy@example.org") as cy:
        r = cy.post("/auth/password", json={"current": PASSWORD, "new": "my own choice"}, headers=csrf(cy))
        assert r.status_code == 200, r.text
    with site.client() as b:
        used = b.post("/auth/password-link", json={"secret": link, "password": "the attackers"})
        assert used.status_code == 400 and "used or expired" in used.json()["detail"]
        assert b.post("/auth/login", json={"email": "cy@example.org", "password": "my own choice"}).status_code == 200


def test_a_self_change_ends_other_sessions_keeps_tokens_and_says_so(site):
    make_user(site.url, "flo@example.org", password=PASSWORD, course="ours")  # with a token of its own
    with _login(site, "flo@example.org") as one, _login(site, "flo@example.org") as other:
        token = one.post("/tokens", json={"name": "laptop"}, headers=csrf(one)).json()["token"]
        r = one.post("/auth/password", json={"current": PASSWORD, "new": "brand new pw"}, headers=csrf(one))
        assert r.status_code == 200 and r.json()["sessions_ended"] == 1 and r.json()["tokens_kept"] == 2
        assert "1 other session logged out; your 2 API tokens still work" in r.json()["detail"]
        assert other.get("/me").status_code == 401 and one.get("/me").status_code == 200
    with site.client(token) as script:
        assert script.get("/me").status_code == 200


def test_a_password_set_with_a_reset_link_revokes_the_accounts_tokens_and_sessions(site):
    _uid, link = _learner_with_link(site, "gil@example.org")
    with _login(site, "gil@example.org") as old:
        token = old.post("/tokens", json={"name": "script"}, headers=csrf(old)).json()["token"]
        with site.client() as b:
            assert b.post("/auth/password-link", json={"secret": link, "password": "reset by link"}).status_code \
                == 200
            assert b.get("/me").status_code == 200  # the link's user is logged in
        assert old.get("/me").status_code == 401
    with site.client(token) as script:
        assert script.get("/me").status_code == 401


def test_the_pages_list_a_roster_invitation_for_its_holder_and_its_course(site):
    make_user(site.url, "eve@example.org", password=PASSWORD, course=None)
    with api(site, "t1") as t1:
        assert t1.post("/courses/ours/roster", json={"csv": "email\neve@example.org\n"}).json()[0]["invited"]
    with logged_in(site.base, "t1@example.org", PASSWORD) as page:
        body = page.get("/courses/ours").text
        assert "Invited, not yet accepted" in body and "eve@example.org" in body.partition('class="invited"')[2]
        assert 'data-member="eve@example.org"' not in body
    with logged_in(site.base, "eve@example.org", PASSWORD) as page:
        body = page.get("/courses").text
        assert 'data-pending="ours"' in body and 'data-api="POST /me/invitations/ours"' in body


def test_the_practice_gradebook_leaves_out_a_submit_that_counts_for_another_course(site):
    mark_graded(site.url, site.work["submit"], "AC")
    with api(site, "t1") as t1:
        t1.post("/courses/ours/roster", json={"csv": "email\nbee@example.org\n"})
    with api(site, "bee") as bee:
        bee.post("/me/invitations/ours")
    with api(site, "t1") as t1:
        assert "bee@example.org" in _member_emails(site, "t1", "ours")
        assert all(r["learner"] != "bee@example.org" for r in t1.get("/gradebook").json())
    with api(site, "t2") as t2:
        assert any(r["learner"] == "bee@example.org" and r["best_id"] == site.work["submit"]
                   for r in t2.get("/gradebook").json())
