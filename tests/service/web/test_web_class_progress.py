"""In headless Chromium against a live `grader serve` (no workers), under the pages' CSP:
the course page's form turns the class's solve rate on and off for its learners (forms.js
sends the hidden field as a JSON boolean, with the session's CSRF token), and the page says
which it is; the learner's progress page then shows it."""
from __future__ import annotations


import pytest
from browser_support import PASSWORD, log_in
from service_support import P1, Server, make_user, open_course, sqlite_url

pytestmark = pytest.mark.browser



@pytest.fixture(scope="module")
def site(tmp_path_factory):
    url = sqlite_url(tmp_path_factory.mktemp("class_progress_page"))
    token = make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None)
    learner = make_user(url, "ann@example.org", password=PASSWORD, course=None)
    server = Server(url, "--login-limit", "100000/min", workers=0).start()
    with server.client(token) as t:
        open_course(t, "hw", {P1: 1})
        code = t.post("/courses/ml/invitations", json={}).json()["code"]
    with server.client(learner) as c:
        assert c.post("/join", json={"code": code}).status_code == 200
    server.token, server.learner = token, learner
    yield server
    server.stop()


def _shown(site) -> bool:
    """Whether the learner's progress (the API) gives the class's solve rate."""
    with site.client(site.learner) as c:
        rows = c.get("/courses/ml/progress").json()
    return bool(rows) and all(p["class_solved_share"] is not None for p in rows)


def test_the_course_pages_form_turns_the_class_solve_rate_on_and_off(site, browser):
    ctx = browser.new_context()
    errors: list[str] = []
    page = ctx.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    log_in(page, site.base, "t@example.org", "/courses/ml")
    state = page.locator(".class-progress-state")
    assert state.inner_text() == "Learners see the class's solve rate: off" and not _shown(site)
    assert page.inner_text("#class-progress button") == "Turn it on"
    page.click("#class-progress button[type=submit]")  # "Turn it on": the page reloads
    page.wait_for_selector(".class-progress-state strong:text-is('on')")
    assert _shown(site) and page.inner_text("#class-progress button") == "Turn it off"
    learner = browser.new_context()
    lp = learner.new_page()
    log_in(lp, site.base, "ann@example.org", "/courses/ml/progress")
    assert lp.inner_text(f'tr[data-problem="{P1}"] .class-solved') == "0% (0 of 1 learner)"
    page.click("#class-progress button[type=submit]")  # "Turn it off"
    page.wait_for_selector(".class-progress-state strong:text-is('off')")
    assert not _shown(site)
    lp.reload()
    assert lp.locator(".class-solved").count() == 0
    assert not errors, errors  # nothing refused by the CSP
    learner.close()
    ctx.close()
