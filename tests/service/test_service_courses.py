"""Courses and people against a live `grader serve` (no workers: nothing here is
graded): creating a course, invitations (expiry, revocation, email domain), signing up
and joining, the roster in and out, removal, one-time password links, password change,
and that an instructor of one course sees nothing of another course's learners on any
route (the API's and the pages')."""
from __future__ import annotations

import re
import time

import httpx
import pytest
from service_support import P1, Server, csrf, logged_in, make_user, mark_graded, sqlite_url

PASSWORD = "correct horse"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("courses")
    url = sqlite_url(root)
    tokens = {"t1": make_user(url, "t1@example.org", instructor=True, password=PASSWORD, course=None),
              "t2": make_user(url, "t2@example.org", instructor=True, password=PASSWORD, course=None),
              "lea": make_user(url, "lea@example.org", password=PASSWORD, course=None)}
    server = Server(url, "--login-limit", "100000/min", workers=0).start()
    server.tokens = tokens
    server.url = url
    yield server
    server.stop()


def api(site, who: str) -> httpx.Client:
    return site.client(site.tokens[who])


def browser(site) -> httpx.Client:
    """A client without a token: cookies, as a browser has them."""
    return httpx.Client(base_url=site.base + "/api/v1", timeout=30)



def _course(site, who: str, slug: str) -> None:
    with api(site, who) as c:
        r = c.post("/courses", json={"slug": slug, "title": f"Course {slug}"})
        assert r.status_code in (201, 400), r.text


def _invite(site, who: str, slug: str, **body) -> dict:
    with api(site, who) as c:
        r = c.post(f"/courses/{slug}/invitations", json=body)
        assert r.status_code == 201, r.text
        return r.json()


def _sign_up(site, code: str, email: str) -> httpx.Client:
    b = browser(site)
    r = b.post("/signup", json={"code": code, "email": email, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return b


# ---------------------------------------------------------------- courses and invitations

def test_an_instructor_creates_a_course_and_a_learner_cannot(site):
    with api(site, "t1") as c:
        r = c.post("/courses", json={"slug": "ml-101", "title": "Machine learning"})
        assert r.status_code == 201 and r.json() == {"slug": "ml-101", "title": "Machine learning",
                                                     "role": "instructor"}
        assert c.post("/courses", json={"slug": "ml-101", "title": "Again"}).status_code == 400
        assert "short name" in c.post("/courses", json={"slug": "Bad Slug!", "title": "x"}).json()["detail"]
        assert {"slug": "ml-101", "title": "Machine learning", "role": "instructor"} in c.get("/courses").json()
    with api(site, "lea") as c:
        assert c.post("/courses", json={"slug": "mine", "title": "x"}).status_code == 403


def test_an_invitation_signs_a_learner_up_and_logs_them_in(site):
    invite = _invite(site, "t1", "ml-101")
    assert invite["link"].endswith("/join#" + invite["code"]) and invite["role"] == "learner"
    with browser(site) as b:
        info = b.post("/invitations/check", json={"code": invite["code"]})
        assert info.json() == {"course": "Machine learning", "role": "learner", "email_domain": None}
        r = b.post("/signup", json={"code": invite["code"], "email": "New@Example.org", "password": PASSWORD})
        assert r.status_code == 201 and r.json()["email"] == "new@example.org" and r.json()["role"] == "learner"
        assert b.get("/courses").json() == [{"slug": "ml-101", "title": "Machine learning", "role": "learner"}]
        again = b.post("/signup", json={"code": invite["code"], "email": "new@example.org", "password": PASSWORD})
        assert again.status_code == 400 and "already has an account" in again.json()["detail"]
    with api(site, "t1") as c:
        listed = c.get("/courses/ml-101/invitations").json()
        assert [i["uses"] for i in listed if i["id"] == invite["id"]] == [1]
        assert all(i["code"] is None for i in listed)  # shown once, never again


@pytest.mark.parametrize("spoil, message", [
    ("revoke", "unknown, revoked or expired"),
    ("expire", "unknown, revoked or expired"),
    ("unknown", "unknown, revoked or expired"),
    ("domain", "for addresses at school.edu"),
    ("short password", "at least 8 characters"),
])
def test_a_sign_up_is_refused_with_a_reason(site, spoil, message):
    invite = _invite(site, "t1", "ml-101", days=1 / 86400 if spoil == "expire" else 14,
                     email_domain="school.edu" if spoil == "domain" else None)
    code = "jji_nothing" if spoil == "unknown" else invite["code"]
    if spoil == "revoke":
        with api(site, "t1") as c:
            assert c.delete(f"/courses/ml-101/invitations/{invite['id']}").status_code == 204
    if spoil == "expire":
        time.sleep(1.2)
    with browser(site) as b:
        r = b.post("/signup", json={"code": code, "email": f"{spoil.replace(' ', '')}@example.org",
                                    "password": "short" if spoil == "short password" else PASSWORD})
    assert r.status_code == 400 and message in r.json()["detail"], r.text


def test_an_email_domain_invitation_admits_that_domain(site):
    invite = _invite(site, "t1", "ml-101", email_domain="@School.edu")
    assert invite["email_domain"] == "school.edu"
    _sign_up(site, invite["code"], "kim@school.edu").close()


def test_an_existing_account_joins_and_an_instructor_invitation_makes_a_co_instructor(site):
    _course(site, "t2", "stats-200")
    learner = _invite(site, "t2", "stats-200")
    with api(site, "lea") as c:
        r = c.post("/join", json={"code": learner["code"]})
        assert r.json() == {"slug": "stats-200", "title": "Course stats-200", "role": "learner"}
        assert c.post("/join", json={"code": learner["code"]}).status_code == 200  # a member already: no change
    co = _invite(site, "t2", "stats-200", role="instructor")
    helper = _sign_up(site, co["code"], "ta@example.org")
    assert helper.get("/me").json()["role"] == "instructor"
    assert helper.get("/courses/stats-200/members").status_code == 200
    helper.close()


# ---------------------------------------------------------------- what an instructor sees

@pytest.fixture(scope="module")
def two_classes(site):
    """ada in ml-101 (t1's), bo in stats-200 (t2's), each with a graded Submit."""
    _course(site, "t1", "ml-101")
    _course(site, "t2", "stats-200")
    subs = {}
    for name, teacher, slug in (("ada", "t1", "ml-101"), ("bo", "t2", "stats-200")):
        b = _sign_up(site, _invite(site, teacher, slug)["code"], f"{name}@example.org")
        r = b.post("/submissions", json={"problem": P1, "source": f"# {name}\n", "kind": "submit"}, headers=csrf(b))
        assert r.status_code == 202, r.text
        subs[name] = r.json()["id"]
        mark_graded(site.url, subs[name], "AC", problem_version="old")
        b.close()
    return subs


def test_an_instructor_reads_only_their_own_courses_submissions(site, two_classes):
    ada, bo = two_classes["ada"], two_classes["bo"]
    with api(site, "t1") as c:
        assert c.get(f"/submissions/{ada}").json()["user"] == "ada@example.org"
        for path in (f"/submissions/{bo}", f"/submissions/{bo}/source", f"/submissions/{bo}/events"):
            assert c.get(path).status_code == 404, path
        listed = {r["user"] for r in c.get("/submissions", params={"limit": 1000}).json()}
        assert "ada@example.org" in listed and "bo@example.org" not in listed
        assert c.get("/submissions", params={"user": "bo@example.org"}).json() == []


def test_the_gradebook_holds_only_the_learners_of_the_courses_one_teaches(site, two_classes):
    with api(site, "t2") as c:
        book = c.get("/gradebook").json()
        assert {r["learner"] for r in book} == {"bo@example.org"}
        assert c.get("/gradebook", params={"course": "stats-200"}).json() == book
        assert c.get("/gradebook", params={"course": "ml-101"}).status_code == 404  # not theirs


def test_a_rejudge_requeues_only_the_submits_of_ones_own_learners(site, two_classes):
    with api(site, "t2") as c:
        r = c.post(f"/problems/{P1}/rejudge")
        assert r.status_code == 200 and r.json()["requeued"] == 1, r.text
    with api(site, "t1") as c:
        assert c.get(f"/submissions/{two_classes['ada']}").json()["status"] == "done"  # t2 left it alone
    mark_graded(site.url, two_classes["bo"], "AC", problem_version="old")


def test_the_instructors_pages_name_only_their_own_learners(site, two_classes):
    with logged_in(site.base, "t1@example.org", PASSWORD) as page:
        for path in ("/gradebook", "/gradebook.csv", "/queue", f"/submissions?problem={P1}"):
            body = page.get(path).text
            assert "bo@example.org" not in body, path
        assert "ada@example.org" in page.get("/gradebook").text
        assert page.get(f"/submissions/{two_classes['bo']}").status_code == 404
        assert page.get(f"/submissions/{two_classes['bo']}/panel").status_code == 404


# ---------------------------------------------------------------- the roster and passwords

def test_a_roster_import_makes_accounts_with_one_time_links_and_refuses_a_wrong_file_whole(site):
    _course(site, "t1", "ml-101")
    with api(site, "t1") as c:
        bad = c.post("/courses/ml-101/roster", json={"csv": "email,role\nfresh1@example.org,learner\nnot-an-email,\n"})
        assert bad.status_code == 400 and bad.json()["detail"].startswith("line 3:")
        r = c.post("/courses/ml-101/roster",
                   json={"csv": "Email,Role\nfresh1@example.org,\nlea@example.org,learner\n=cmd@example.org,\n"})
        assert r.status_code == 200, r.text
        rows = {x["email"]: x for x in r.json()}
        assert rows["fresh1@example.org"]["created"] and "/set-password#" in rows["fresh1@example.org"]["link"]
        assert not rows["lea@example.org"]["created"] and rows["lea@example.org"]["link"] is None
        exported = c.get("/courses/ml-101/members", params={"format": "csv"}).text
        assert exported.startswith("email,role,joined_at,has_password\n")
        assert "fresh1@example.org,learner," in exported and "'=cmd@example.org" in exported  # no formula
    secret = rows["fresh1@example.org"]["link"].partition("#")[2]
    with browser(site) as b:
        r = b.post("/auth/password-link", json={"secret": secret, "password": PASSWORD})
        assert r.status_code == 200 and r.json()["email"] == "fresh1@example.org"
        again = b.post("/auth/password-link", json={"secret": secret, "password": PASSWORD})
        assert again.status_code == 400 and "used or expired" in again.json()["detail"]
        assert b.post("/auth/login", json={"email": "fresh1@example.org", "password": PASSWORD}).status_code == 200


def test_a_reset_link_is_for_a_learner_of_ones_course_and_ends_their_sessions(site, two_classes):
    with api(site, "t1") as c:
        members = {m["email"]: m for m in c.get("/courses/ml-101/members").json()}
        ada, me = members["ada@example.org"]["user_id"], members["t1@example.org"]["user_id"]
        assert c.post(f"/courses/ml-101/members/{me}/reset-link").status_code == 400  # never an instructor's
        first = c.post(f"/courses/ml-101/members/{ada}/reset-link").json()["link"].partition("#")[2]
        link = c.post(f"/courses/ml-101/members/{ada}/reset-link").json()["link"].partition("#")[2]
    with api(site, "t2") as c:
        assert c.post(f"/courses/stats-200/members/{ada}/reset-link").status_code == 404
        assert c.post(f"/courses/ml-101/members/{ada}/reset-link").status_code == 404
    with browser(site) as old:
        assert old.post("/auth/login", json={"email": "ada@example.org", "password": PASSWORD}).status_code == 200
        with browser(site) as b:
            assert b.post("/auth/password-link", json={"secret": first, "password": "x" * 9}).status_code == 400
            assert b.post("/auth/password-link", json={"secret": link, "password": "new password"}).status_code \
                == 200
        assert old.get("/me").status_code == 401  # whoever held the old password is out


def test_a_password_change_needs_the_current_one_and_ends_the_other_sessions(site):
    make_user(site.url, "pat@example.org", password=PASSWORD)
    with browser(site) as one, browser(site) as other:
        for b in (one, other):
            assert b.post("/auth/login", json={"email": "pat@example.org", "password": PASSWORD}).status_code == 200
        wrong = one.post("/auth/password", json={"current": "nope nope", "new": "brand new pw"}, headers=csrf(one))
        assert wrong.status_code == 400 and "current password is wrong" in wrong.json()["detail"]
        assert one.post("/auth/password", json={"current": PASSWORD, "new": "brand new pw"},
                        headers=csrf(one)).status_code == 200
        assert one.get("/me").status_code == 200 and other.get("/me").status_code == 401
        assert one.post("/auth/login", json={"email": "pat@example.org", "password": "brand new pw"}).status_code \
            == 200


def test_removing_a_member_hides_their_work_from_that_courses_instructor(site):
    _course(site, "t1", "ml-101")
    b = _sign_up(site, _invite(site, "t1", "ml-101")["code"], "gone@example.org")
    sub = b.post("/submissions", json={"problem": P1, "source": "# gone\n", "kind": "run"}, headers=csrf(b)).json()
    b.close()
    with api(site, "t1") as c:
        members = {m["email"]: m["user_id"] for m in c.get("/courses/ml-101/members").json()}
        assert c.get(f"/submissions/{sub['id']}").status_code == 200
        assert c.delete(f"/courses/ml-101/members/{members['t1@example.org']}").status_code == 400  # not oneself
        assert c.delete(f"/courses/ml-101/members/{members['gone@example.org']}").status_code == 204
        assert c.get(f"/submissions/{sub['id']}").status_code == 404


def test_tries_of_secrets_are_throttled_per_client_address(tmp_path):
    server = Server(sqlite_url(tmp_path), "--login-limit", "3/min", workers=0).start()
    try:
        with httpx.Client(base_url=server.base + "/api/v1", timeout=30) as b:
            codes = [b.post("/invitations/check", json={"code": f"jji_{i}"}).status_code for i in range(3)]
            codes.append(b.post("/signup", json={"code": "jji_x", "email": "a@b.org", "password": PASSWORD})
                         .status_code)
            last = b.post("/auth/login", json={"email": "a@b.org", "password": PASSWORD})
        assert codes == [400, 400, 400, 429] and last.status_code == 429 and "Retry-After" in last.headers
    finally:
        server.stop()


# ---------------------------------------------------------------- the pages

def test_the_pages_without_an_account_carry_no_secret_and_need_none(site):
    with httpx.Client(base_url=site.base, timeout=30) as anon:
        for path, form in (("/join", 'id="signup"'), ("/set-password", 'id="set-password"')):
            r = anon.get(path)
            assert r.status_code == 200 and form in r.text and "data-from-hash" in r.text, path
        login = anon.get("/login").text
        assert "invitation link" in login and "grader user add" not in login


def test_an_instructors_course_page_lists_members_invitations_and_the_roster_tools(site, two_classes):
    with logged_in(site.base, "t1@example.org", PASSWORD) as page:
        body = page.get("/courses/ml-101").text
        for part in ('id="invite-new"', 'id="roster-import"', 'data-member="ada@example.org"', "Reset link",
                     "/gradebook?course=ml-101", "members?format=csv"):
            assert part in body, part
        assert "bo@example.org" not in body
        assert page.get("/courses/stats-200").status_code == 404  # not in it
        assert 'href="/courses/ml-101"' in page.get("/courses").text and 'id="course-new"' in page.get("/courses").text


def test_the_course_page_lists_the_open_invitations_each_with_a_new_link_like_it_and_folds_the_rest(site):
    _course(site, "t1", "inv-page")
    kept = _invite(site, "t1", "inv-page", role="instructor", days=30, email_domain="example.edu")
    gone = _invite(site, "t1", "inv-page")
    with api(site, "t1") as c:
        assert c.delete(f"/courses/inv-page/invitations/{gone['id']}").status_code == 204
    with logged_in(site.base, "t1@example.org", PASSWORD) as page:
        body = page.get("/courses/inv-page").text
    listed = body[body.index("Open invitations (1)"):body.index("Revoked or expired (1)")]
    assert f'data-invitation="{kept["id"]}"' in listed and f'data-invitation="{gone["id"]}"' not in listed
    assert f'data-api="DELETE /courses/inv-page/invitations/{kept["id"]}"' in listed
    like = re.search(r'<form class="inline-form like-this"([^>]*)>(.*?)</form>', listed, re.S)
    assert like and 'data-api="POST /courses/inv-page/invitations"' in like.group(1)  # sent as a new invitation
    for field in ('name="role" value="instructor"', 'name="days" value="30"',
                  'name="email_domain" value="example.edu"'):
        assert field in like.group(2), field
    assert f'data-invitation="{gone["id"]}"' in body.split("Revoked or expired (1)")[1]
    assert kept["code"] not in body and gone["code"] not in body  # only a hash is kept: never shown again
    assert '<details class="new-assignment" open>' in body  # no assignment yet: the next step, open
    with api(site, "t1") as c:
        r = c.post("/courses/inv-page/assignments", json={
            "slug": "hw", "title": "Homework", "opens_at": "2030-01-01T00:00:00Z", "due_at": "2030-01-08T00:00:00Z",
            "problems": [{"problem": P1}]})
        assert r.status_code == 201, r.text
    with logged_in(site.base, "t1@example.org", PASSWORD) as page:
        assert '<details class="new-assignment">' in page.get("/courses/inv-page").text  # folded once there is one


def test_a_learners_course_page_shows_no_roster(site, two_classes):
    with api(site, "lea") as c:
        assert c.post("/join", json={"code": _invite(site, "t2", "stats-200")["code"]}).status_code == 200
    with logged_in(site.base, "lea@example.org", PASSWORD) as page:
        body = page.get("/courses/stats-200").text
        assert "a learner of this course" in body and 'id="invite-new"' not in body and "data-member" not in body
        assert 'id="course-new"' not in page.get("/courses").text
        assert 'id="password-change"' in page.get("/account").text
