"""An LTI 1.3 launch as a learner's browser makes it, in headless Chromium: from the
simulated platform's login initiation (tests/service/lti_platform.py) through its
auto-posting authorization page to the judge's launch, the one-time ticket page, and
the assignment the link names; the learner Submits an accepted solution there and the
score arrives at the platform's AGS endpoint. Then an instructor's deep-linking launch
opens the picker and places the assignment: the platform receives the signed answer."""
from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest

pytest.importorskip("pylti1p3", reason="LTI needs the serve extra: pip install -e '.[test,serve]'")
from browser_support import paste, result_of, shot  # noqa: E402
from lti_platform import DL, deep_linking, link_lms_course, resource_link  # noqa: E402
from service_support import P1, corpus, lti_judge  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser):
    with lti_judge(tmp_path_factory.mktemp("lti-walk"), "--run-limit", "100/min", "--submit-limit", "100/h") as server:
        link_lms_course(server, "lms-teacher-1", "grace@school.edu").close()  # the LMS course reaches ml
        yield server


def _launch(page, site, spec) -> None:
    """What the LMS does when the learner clicks the link: the login initiation (as a GET)."""
    page.goto(site.base + "/lti/login?" + urlencode(site.platform.prepare(spec)))


def test_a_launch_in_the_browser_lands_a_new_learner_on_the_assignment_and_the_score_reaches_the_lms(site, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    _launch(page, site, resource_link(sub="lms-learner-7", email="noor@school.edu",
                                      custom={"jaxjudge_item": "ml/week1"}))
    page.wait_for_url("**/courses/ml/assignments/week1")
    assert "Week 1" in page.inner_text("h1") and "noor@school.edu" in page.inner_text("header")
    page.click(f'tr[data-problem="{P1}"] a')
    page.wait_for_selector("#made-for")
    page.wait_for_selector(".CodeMirror")
    paste(page, corpus("accepted/flat_norm.py"))
    page.click("#run")
    assert result_of(page, "run").locator(".verdict.big").inner_text() == "AC"
    page.wait_for_selector("#submit:enabled")
    page.click("#submit")
    assert result_of(page, "submit").locator(".verdict.big").inner_text() == "AC"
    deadline = time.time() + 60
    sent: list = []
    while time.time() < deadline and not sent:
        sent = [s["score"] for s in site.platform.scores if s["score"]["userId"] == "lms-learner-7"]
        time.sleep(0.2)
    assert sent and sent[-1]["scoreGiven"] == 10 and sent[-1]["scoreMaximum"] == 10
    page.goto(site.base + "/courses/ml/assignments/week1")
    assert page.inner_text(".total") == "10"
    ctx.close()


def test_an_instructors_deep_linking_launch_places_an_assignment_in_the_lms(site, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    _launch(page, site, resource_link(sub="lms-teacher-9", email="ines@school.edu",
                                      roles=["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"],
                                      custom={"jaxjudge_item": "ml/week1"}))
    page.wait_for_url("**/courses/ml/assignments/week1")
    _launch(page, site, deep_linking(sub="lms-teacher-9", email="ines@school.edu"))
    page.wait_for_url("**/lti/pick?launch=*")
    page.check('label[data-item-id="ml/week1"] input')
    page.screenshot(path=str(shot("lti_pick.png")))
    page.click("#lti-pick button[type=submit]")
    deadline = time.time() + 30
    while time.time() < deadline and not site.platform.deep_link_responses:
        time.sleep(0.2)
    assert site.platform.deep_link_responses, "the platform got no deep-linking answer"
    items = site.platform.deep_link_responses[-1][DL + "content_items"]
    assert [i["custom"]["jaxjudge_item"] for i in items] == ["ml/week1"]
    assert items[0]["lineItem"]["scoreMaximum"] == 10
    ctx.close()
