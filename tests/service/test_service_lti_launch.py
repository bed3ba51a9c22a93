"""LTI 1.3 through the whole service: `grader serve --lti-config` against the simulated
platform (lti_platform.py), both on 127.0.0.1. A launch from the platform provisions a
new learner (by the launch's subject, in the launch's role), lands them on the
assignment its link names through a one-time ticket, and their Submit's score arrives at
the platform's AGS score endpoint, again after a rejudge; a deep-linking launch offers
the assignments the instructor teaches; `grader lti register` prints the tool's URLs."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import httpx
import pytest

pytest.importorskip("pylti1p3", reason="LTI needs the serve extra: pip install -e '.[test,serve]'")
from lti_platform import MEMBERSHIP, browser_launch, deep_linking, resource_link  # noqa: E402
from service_support import P1, corpus, lti_judge, wait_done  # noqa: E402

from support import ROOT  # noqa: E402

# A live server that grades (one sandbox) and a platform: about a minute.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with lti_judge(tmp_path_factory.mktemp("lti-service")) as server:
        yield server


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


def test_a_launch_naming_an_unknown_assignment_is_refused_with_a_reason(site):
    spec = resource_link(sub="lms-user-44", custom={"jaxjudge_item": "ml/no-such"})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        r = browser_launch(browser, site.platform, spec)
    assert r.status_code == 404 and "does not have" in r.json()["detail"]


def test_a_deep_linking_launch_offers_the_assignments_an_instructor_teaches(site):
    teach = resource_link(sub="lms-teacher-1", email="grace@school.edu", roles=[MEMBERSHIP + "Instructor"],
                          custom={"jaxjudge_item": "ml/week1"})  # a co-instructor of ml from now on
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        assert _enter(browser, site, browser_launch(browser, site.platform, teach))["role"] == "instructor"
    spec = deep_linking(sub="lms-teacher-1", email="grace@school.edu")
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        me = _enter(browser, site, browser_launch(browser, site.platform, spec))
        assert me["role"] == "instructor" and me["next"].startswith("/lti/pick?launch=")
        page = browser.get(site.base + me["next"])
        assert page.status_code == 200 and 'data-item-id="ml/week1"' in page.text
        assert 'data-item-id="per_example_grad_clipping"' in page.text
    learner = resource_link(sub="lms-user-45", roles=[MEMBERSHIP + "Learner"], custom={})
    with httpx.Client(timeout=30, follow_redirects=False) as browser:
        me = _enter(browser, site, browser_launch(browser, site.platform, learner))
        assert browser.get(site.base + "/lti/pick", params={"launch": "x"}).status_code == 403


def test_lti_register_prints_the_tools_urls_for_canvas_and_moodle():
    done = subprocess.run([sys.executable, "-m", "grader", "lti", "register", "--public-url",
                           "https://judge.example.edu", "--json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    conf = json.loads(done.stdout)
    assert conf["jwks_url"] == "https://judge.example.edu/lti/jwks"
    assert conf["login_url"] == "https://judge.example.edu/lti/login"
    assert conf["canvas"]["public_jwk_url"] == conf["jwks_url"] and "moodle" in conf
