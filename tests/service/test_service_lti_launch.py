"""LTI 1.3 through the whole service: `grader serve --lti-config` against the simulated
platform (lti_platform.py), both on 127.0.0.1, on SQLite and on PostgreSQL. The LMS course
(context) ``course-42`` is linked to the judge course ``ml`` the legitimate way first (an
instructor of both places it). A launch from it provisions a new learner (by the launch's
subject, in the launch's role), lands them on the assignment its link names through a
one-time ticket, and their Submit's score arrives at the platform's AGS score endpoint,
again after a rejudge. A link whose custom parameter names a course its LMS course is not
linked to is refused with a page saying why; deep linking offers the linked course's
assignments, answers only the browser session that launched it, and links an LMS course
by the rules of docs/pages/lti.md; `grader lti register` prints the tool's URLs."""
from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import httpx
import pytest

pytest.importorskip("pylti1p3", reason="LTI needs the serve extra: pip install -e '.[test,serve]'")
from lti_platform import (DL, LTI, MEMBERSHIP, browser_launch, deep_linking, link_lms_course,  # noqa: E402
                          parse_form, resource_link)
from service_support import P1, corpus, lti_judge, wait_done  # noqa: E402

from support import ROOT  # noqa: E402

# A live server that grades (one sandbox) and a platform: about a minute per database.
pytestmark = pytest.mark.slow
INSTRUCTOR = [MEMBERSHIP + "Instructor"]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request, tmp_path_factory):
    url = None if request.param == "sqlite" else request.getfixturevalue("postgres").new_database()
    with lti_judge(tmp_path_factory.mktemp("lti-service"), url=url) as server:
        server.grace = link_lms_course(server, "lms-teacher-1", "grace@school.edu")  # type: ignore[attr-defined]
        yield server
        server.grace.close()


def _scores(platform, sub: str) -> list[dict]:
    """The scores the platform's AGS endpoint accepted for ``sub``."""
    return [s["score"] for s in platform.scores if s["score"]["userId"] == sub]


def _enter(client: httpx.Client, site, launched: httpx.Response) -> dict:
    """As /lti/enter's page does: the ticket after '#', posted for the session."""
    assert launched.status_code == 303, launched.text
    location = launched.headers["location"]
    assert location.startswith("/lti/enter#")
    assert "jaxjudge_session" not in launched.headers.get("set-cookie", "")  # no session on a cross-site POST
    assert client.get(site.base + "/lti/enter").status_code == 200
    r = client.post(site.base + "/api/v1/auth/lti-ticket", json={"ticket": location.partition("#")[2]})
    assert r.status_code == 200, r.text
    again = client.post(site.base + "/api/v1/auth/lti-ticket", json={"ticket": location.partition("#")[2]})
    assert again.status_code == 400 and "used or expired" in again.json()["detail"]  # one time only
    return r.json()


def test_a_launch_provisions_a_new_learner_on_the_assignment_and_their_score_reaches_the_platform(site):
    platform = site.platform
    spec = resource_link(sub="lms-user-42", email="kim@school.edu", name="Kim",
                         custom={"jaxjudge_item": "ml/week1"})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        me = _enter(browser, site, browser_launch(browser, platform, spec))
        assert me["email"] == "kim@school.edu" and me["role"] == "learner"
        assert me["next"] == "/courses/ml/assignments/week1"
        page = browser.get(site.base + me["next"])
        assert page.status_code == 200 and "Week 1" in page.text
        r = browser.post(site.base + "/api/v1/submissions", headers={"X-CSRF-Token": me["csrf_token"]},
                         json={"problem": P1, "source": corpus("accepted/flat_norm.py"), "kind": "submit",
                               "assignment": "ml/week1"})
        assert r.status_code == 202, r.text
        sub = r.json()["id"]
    with site.client(site.teacher) as t:
        assert wait_done(t, sub, timeout=600)["verdict"] == "AC"
        members = {m["email"]: m["role"] for m in t.get("/courses/ml/members").json()}
        assert members["kim@school.edu"] == "learner"
    deadline = time.time() + 60
    while time.time() < deadline and not _scores(platform, "lms-user-42"):
        time.sleep(0.2)
    sent = _scores(platform, "lms-user-42")
    assert sent and sent[-1]["scoreGiven"] == 10 and sent[-1]["scoreMaximum"] == 10, platform.scores
    assert sent[-1]["activityProgress"] == "Completed" and sent[-1]["gradingProgress"] == "FullyGraded"
    with site.client(site.teacher) as t:  # a rejudge's regrade sends the score again
        assert t.post(f"/problems/{P1}/rejudge", params={"all": "true"}).json()["requeued"] >= 1
        deadline = time.time() + 600
        while time.time() < deadline and t.get(f"/submissions/{sub}").json()["status"] != "done":
            time.sleep(0.5)
    deadline = time.time() + 60
    while time.time() < deadline and len(_scores(platform, "lms-user-42")) < 2:
        time.sleep(0.2)
    assert len(_scores(platform, "lms-user-42")) >= 2


def test_a_second_launch_of_the_same_subject_is_the_same_account_whatever_email_it_claims(site):
    spec = resource_link(sub="lms-user-42", email="t@example.org", custom={"jaxjudge_item": "ml/week1"})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        me = _enter(browser, site, browser_launch(browser, site.platform, spec))
    assert me["email"] == "kim@school.edu"  # by subject, never by email: no one takes over t@example.org
    other = resource_link(sub="lms-user-43", email="t@example.org", custom={"jaxjudge_item": "ml/week1"})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        me = _enter(browser, site, browser_launch(browser, site.platform, other))
    assert me["email"].endswith("@lti.invalid") and me["role"] == "learner"


def _refusal(r: httpx.Response, status: int) -> tuple[str, str]:
    """The reason and the advice of the page a refused launch shows in the LMS's browser."""
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("text/html"), r.headers
    found = {k: html.unescape(re.sub(r"<[^>]+>", "", v))
             for k, v in re.findall(r'<p id="(lti-refusal|lti-advice)">(.*?)</p>', r.text, re.S)}
    return found["lti-refusal"], found["lti-advice"]


def _session(site, spec) -> tuple[httpx.Client, dict]:
    """A browser logged in by the launch ``spec`` (its CSRF token in its headers), and the ticket's answer."""
    browser = httpx.Client(timeout=30, follow_redirects=False)
    me = _enter(browser, site, browser_launch(browser, site.platform, spec))
    browser.headers["X-CSRF-Token"] = me["csrf_token"]
    return browser, me


def _lti_account(site, sub: str) -> bool:
    from sqlalchemy import select

    from grader.service.core.models import LtiUser
    from grader.service.server import open_database

    db = open_database(site.db_url)
    try:
        with db.read() as s:
            return s.scalar(select(LtiUser.user_id).where(LtiUser.subject == sub)) is not None
    finally:
        db.close()


def _members(site, course: str = "ml") -> dict[str, str]:
    with site.client(site.teacher) as t:
        return {m["email"]: m["role"] for m in t.get(f"/courses/{course}/members").json()}


def test_a_launch_naming_an_unknown_assignment_is_refused_with_a_reason(site):
    spec = resource_link(sub="lms-user-44", custom={"jaxjudge_item": "ml/no-such"})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        reason, _ = _refusal(browser_launch(browser, site.platform, spec), 404)
    assert "does not have" in reason and "ml/no-such" in reason


@pytest.mark.parametrize("where", [
    {"context_id": "course-99"},                                    # another LMS course of the same platform
    {"deployment_id": "deployment-2"},                               # the same context id at another deployment
    {"context_id": None},                                            # no context claim at all
])
def test_a_launch_from_an_lms_course_not_linked_to_the_course_it_names_is_refused(site, where):
    spec = resource_link(sub="lms-mallory", email="mallory@school.edu", roles=INSTRUCTOR,
                         custom={"jaxjudge_item": "ml/week1"}, **where)
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        reason, advice = _refusal(browser_launch(browser, site.platform, spec), 403)
    assert "'ml'" in reason and ("not linked" in reason or "no context" in reason)
    assert "LMS administrator" in advice and "jaxjudge_item" in advice
    assert "mallory@school.edu" not in _members(site)  # no instructor, no learner: nothing of ml reached
    assert not _lti_account(site, "lms-mallory")  # not even an account
    learner = resource_link(sub="lms-user-46", custom={"jaxjudge_item": "ml/week1"}, **where)
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        _refusal(browser_launch(browser, site.platform, learner), 403)


def test_refused_launches_are_pages_saying_what_to_tell_the_lms_administrator_while_the_api_answers_json(site):
    tampered = resource_link(overrides={LTI + "deployment_id": "no-such-deployment"})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        r = browser_launch(browser, site.platform, tampered)
        reason, advice = _refusal(r, 403)
        assert "no-such-deployment" in reason and "LMS administrator" in advice and "deployment ID" in advice
        assert "default-src 'none'" in r.headers["content-security-policy"]
        assert " UTC" in r.text and not re.search(r"<(form|script|a)\b", r.text)  # the time; nothing that acts
        _refusal(browser.post(site.base + "/lti/launch", data={"state": "s"}), 400)
        _refusal(browser.post(site.base + "/lti/deep-link", data={"item": P1}), 400)
        api = browser.post(site.base + "/api/v1/auth/lti-ticket", json={"ticket": "nope"})
        assert api.status_code == 400 and api.headers["content-type"] == "application/json"
        assert "used or expired" in api.json()["detail"]


def _picker(browser: httpx.Client, site, spec) -> tuple[str, str]:
    """A deep-linking launch in ``browser`` (logging it in): the launch's id and the picker's page."""
    me = _enter(browser, site, browser_launch(browser, site.platform, spec))
    browser.headers["X-CSRF-Token"] = me["csrf_token"]
    page = browser.get(site.base + me["next"])
    assert page.status_code == 200, page.text
    return me["next"].partition("launch=")[2], page.text


def _csrf_field(page: str) -> str:
    return re.search(r'<form id="lti-pick".*?name="csrf_token" value="([^"]*)"', page, re.S).group(1)


def test_a_deep_linking_choice_is_accepted_only_from_the_session_that_made_the_launch(site):
    with httpx.Client(timeout=30, follow_redirects=False) as grace:
        launch_id, page = _picker(grace, site, deep_linking(sub="lms-teacher-1", email="grace@school.edu"))
        choice = {"launch_id": launch_id, "item": "ml/week1"}
        with httpx.Client(timeout=30, follow_redirects=False) as stranger:  # the launch id alone
            reason, _ = _refusal(stranger.post(site.base + "/lti/deep-link", data=choice), 403)
            assert "session" in reason
        other, _ = _session(site, resource_link(sub="lms-user-47", custom={}))  # another account's session
        csrf = other.headers["X-CSRF-Token"]
        reason, _ = _refusal(other.post(site.base + "/lti/deep-link", data={**choice, "csrf_token": csrf}), 403)
        other.close()
        assert "another account" in reason
        reason, _ = _refusal(grace.post(site.base + "/lti/deep-link", data=choice), 403)  # no CSRF token
        assert "CSRF" in reason
        answered = len(site.platform.deep_link_responses)
        r = grace.post(site.base + "/lti/deep-link", data={**choice, "csrf_token": _csrf_field(page)})
        assert r.status_code == 200, r.text
        form = parse_form(r.text)
        assert grace.post(form.action, data=form.fields).status_code == 200
    assert len(site.platform.deep_link_responses) == answered + 1
    (item,) = site.platform.deep_link_responses[-1][DL + "content_items"]
    assert item["custom"] == {"jaxjudge_item": "ml/week1"} and item["lineItem"]["scoreMaximum"] == 10


def test_a_new_lms_instructors_first_deep_linking_launch_offers_the_linked_courses_assignments(site):
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        _, page = _picker(browser, site, deep_linking(sub="lms-teacher-2", email="alan@school.edu"))
    assert 'data-item-id="ml/week1"' in page and 'id="lti-bound"' in page
    assert 'data-item-id="per_example_grad_clipping"' in page
    # From an LMS course linked to nothing, a new instructor is offered problems, and told why.
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        _, page = _picker(browser, site, deep_linking(sub="lms-teacher-3", email="ada@school.edu",
                                                      context_id="course-77"))
    assert 'data-item-id="ml/' not in page and 'id="lti-unbound"' in page and "You teach no course" in page
    learner = resource_link(sub="lms-user-45", roles=[MEMBERSHIP + "Learner"], custom={})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        _enter(browser, site, browser_launch(browser, site.platform, learner))
        assert browser.get(site.base + "/lti/pick", params={"launch": "x"}).status_code == 403


def test_an_instructor_launch_from_the_linked_lms_course_makes_a_co_instructor(site):
    teach = resource_link(sub="lms-teacher-4", email="barbara@school.edu", roles=INSTRUCTOR,
                          custom={"jaxjudge_item": "ml/week1"})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        assert _enter(browser, site, browser_launch(browser, site.platform, teach))["role"] == "instructor"
    assert _members(site)["barbara@school.edu"] == "instructor"


def _new_course(browser: httpx.Client, site, slug: str) -> None:
    now = datetime.now(timezone.utc)
    assert browser.post(site.base + "/api/v1/courses", json={"slug": slug, "title": slug.upper()}).status_code == 201
    r = browser.post(site.base + f"/api/v1/courses/{slug}/assignments", json={
        "slug": "a1", "title": "A1", "opens_at": (now - timedelta(hours=1)).isoformat(),
        "due_at": (now + timedelta(days=1)).isoformat(), "problems": [{"problem": P1, "weight": 5}]})
    assert r.status_code == 201, r.text


def _placed(browser: httpx.Client, site, launch_id: str, page: str, item: str) -> httpx.Response:
    return browser.post(site.base + "/lti/deep-link",
                        data={"launch_id": launch_id, "item": item, "csrf_token": _csrf_field(page)})


def test_placing_an_assignment_of_a_course_no_lms_course_has_links_the_lms_course_to_it(site):
    grace = site.grace
    _new_course(grace, site, "dl")
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        launch_id, page = _picker(browser, site, deep_linking(sub="lms-teacher-1", email="grace@school.edu",
                                                              context_id="course-77"))
        # ml has an LMS course already: placing cannot link a second one, only the explicit link can.
        assert 'data-item-id="dl/a1"' in page and 'data-item-id="ml/week1"' not in page
        assert 'id="lti-bind"' in page and '<option value="ml">' in page
        assert _placed(browser, site, launch_id, page, "dl/a1").status_code == 200
    learner = resource_link(sub="lms-user-48", email="eve@school.edu", custom={"jaxjudge_item": "dl/a1"},
                            context_id="course-77")
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        assert _enter(browser, site, browser_launch(browser, site.platform, learner))["next"] == \
            "/courses/dl/assignments/a1"
        stray = resource_link(sub="lms-user-48", custom={"jaxjudge_item": "ml/week1"}, context_id="course-77")
        reason, _ = _refusal(browser_launch(browser, site.platform, stray), 403)
        assert "linked to the judge course 'dl'" in reason


def test_an_instructor_of_both_links_an_lms_course_explicitly_and_may_unlink_it(site):
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        launch_id, page = _picker(browser, site, deep_linking(sub="lms-teacher-1", email="grace@school.edu",
                                                              context_id="course-88"))
        bind = {"launch_id": launch_id, "course": "ml"}
        with site.client(site.teacher) as t:  # a launch is its own user's to use
            refused = t.post("/lti/contexts", json=bind)
            assert refused.status_code == 403 and "another account" in refused.json()["detail"]
        assert browser.post(site.base + "/api/v1/lti/contexts",
                            json={**bind, "course": "nope"}).status_code == 404
        r = browser.post(site.base + "/api/v1/lti/contexts", json=bind)
        assert r.status_code == 201, r.text
        assert (r.json()["course"], r.json()["context_id"], r.json()["deployment_id"]) == (
            "ml", "course-88", site.platform.deployment_id)
        again = browser.post(site.base + "/api/v1/lti/contexts", json={**bind, "course": "dl"})
        assert again.status_code == 409 and "'ml'" in again.json()["detail"]
        assert 'data-item-id="ml/week1"' in browser.get(site.base + f"/lti/pick?launch={launch_id}").text
    learner = resource_link(sub="lms-user-49", email="lin@school.edu", custom={"jaxjudge_item": "ml/week1"},
                            context_id="course-88")
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        assert _enter(browser, site, browser_launch(browser, site.platform, learner))["role"] == "learner"
    with site.client(site.teacher) as t:
        linked = {c["context_id"]: c["id"] for c in t.get("/courses/ml/lti-contexts").json()}
        assert set(linked) == {"course-42", "course-88"}
        assert t.delete(f"/courses/ml/lti-contexts/{linked['course-88']}").status_code == 204
        assert t.delete(f"/courses/ml/lti-contexts/{linked['course-88']}").status_code == 404
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        _refusal(browser_launch(browser, site.platform, learner), 403)
    assert _members(site)["lin@school.edu"] == "learner"  # unlinking removes no one


def test_lti_register_prints_the_tools_urls_for_canvas_and_moodle():
    done = subprocess.run([sys.executable, "-m", "grader", "lti", "register", "--public-url",
                           "https://judge.example.edu", "--json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    conf = json.loads(done.stdout)
    assert conf["jwks_url"] == "https://judge.example.edu/lti/jwks"
    assert conf["login_url"] == "https://judge.example.edu/lti/login"
    assert conf["canvas"]["public_jwk_url"] == conf["jwks_url"] and "moodle" in conf
