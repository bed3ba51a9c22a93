"""An instructor's first steps, in headless Chromium against a live `grader serve` (no
workers: nothing here is graded): creating a course lands on its page with the new-assignment
form open, whose problems' point boxes sit level; an invitation link shows whole, wrapping,
with a Copy button (the clipboard, or the text selected where there is none); each open
invitation gives a new link like it and is revoked from the list; the similar-code page keeps
each pair of lines on one row when a line wraps.

The tests run in file order: later ones use the course the first one made."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from browser_support import PASSWORD, log_in
from service_support import P1, Server, make_user, sqlite_url

pytestmark = pytest.mark.browser

TEACHER, COURSE = "teach@example.org", "setup-101"
NARROW = {"width": 400, "height": 900}  # a link, or a line of code, has to wrap here
NOW = datetime.now(timezone.utc)
LONG = ("def loss(params, x, y):\n    pred = x @ params['w'] + params['b']  # " + "a long comment " * 12 + "\n"
        "    return 0.5 * (pred - y) ** 2\n\n\ndef per_example_grad_clip(params, x, y, max_norm):\n"
        "    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)\n"
        "    flat = jnp.concatenate([g['w'], g['b'][:, None]], axis=1)\n"
        "    norms = jnp.linalg.norm(flat, axis=-1)\n    factor = jnp.maximum(1.0, norms / max_norm)\n"
        "    mean = (flat / factor[:, None]).mean(axis=0)\n"
        "    return {'grads': {'w': mean[:-1], 'b': mean[-1]}, 'norms': norms}\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("course_setup")
    url = sqlite_url(root)
    token = make_user(url, TEACHER, instructor=True, password=PASSWORD, course=None)
    learners = {name: make_user(url, f"{name}@example.org", password=PASSWORD, course=None) for name in ("ann", "ben")}
    server = Server(url, "--login-limit", "100000/min", "--submit-limit", "1000/min", workers=0).start()
    server.token, server.learners = token, learners
    yield server
    server.stop()


@pytest.fixture(scope="module")
def teacher(site, browser):
    ctx = browser.new_context(viewport=NARROW, permissions=["clipboard-read", "clipboard-write"])
    page = ctx.new_page()
    page.on("dialog", lambda d: d.accept())  # "Revoke this invitation?"
    log_in(page, site.base, TEACHER, "/courses")
    yield page
    ctx.close()


def _until(check, seconds: float = 20.0) -> None:
    """Polled from here: the pages' policy forbids the eval that Playwright's own waiting uses."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.1)


def test_creating_a_course_lands_on_its_page_with_the_new_assignment_form_open(site, teacher):
    page = teacher
    page.fill("#c-title", "Setting up")
    page.fill("#c-slug", COURSE)
    page.click("#course-new button[type=submit]")
    page.wait_for_url(f"{site.base}/courses/{COURSE}")
    assert page.get_attribute("details.new-assignment", "open") is not None
    assert page.is_visible("#a-title") and page.is_visible(f'#assignment-new input[data-key=problem][value="{P1}"]')


def test_each_problems_point_box_sits_level_beside_its_title(site, teacher):
    rows = teacher.locator("#assignment-new [data-item=problems]")
    assert rows.count() > 3
    boxes = [(rows.nth(i).locator("input[type=checkbox]").bounding_box(),
              rows.nth(i).locator("input[data-key=weight]").bounding_box()) for i in range(rows.count())]
    assert len({round(points["x"]) for _, points in boxes}) == 1  # one column, whatever the title's length
    for check, points in boxes:  # and on its title's row
        assert points["y"] <= check["y"] + check["height"] / 2 <= points["y"] + points["height"]


def _link_box(page, out: str = "#invite-out"):
    return page.wait_for_selector(f"{out} .copy-box .copy-link")


def test_an_invitation_link_shows_whole_and_its_copy_button_copies_it(site, teacher):
    page = teacher
    page.fill("#i-days", "30")
    page.fill("#i-domain", "example.edu")
    page.click("#invite-new button[type=submit]")
    box = _link_box(page)
    link = box.inner_text()
    assert link.startswith(f"{site.base}/join#jji_") and len(link) > 40
    whole = page.evaluate("(el) => [el.scrollWidth <= el.clientWidth, el.getBoundingClientRect().right]", box)
    assert whole[0] and whole[1] <= NARROW["width"], whole  # wrapped inside the page, nothing cut off
    assert box.bounding_box()["height"] > 1.6 * float(page.evaluate(
        "(el) => parseFloat(getComputedStyle(el).lineHeight) || 16", box))  # it did wrap at this width
    page.click("#invite-out button.copy")
    _until(lambda: page.inner_text("#invite-out .copy-said") == "Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == link
    page.evaluate("document.querySelector('#invite-out .copy-said').textContent = ''")


def test_without_a_clipboard_the_copy_button_selects_the_whole_link(site, teacher):
    page = teacher
    link = _link_box(page).inner_text()
    # As on a plain-http address, where browsers give no clipboard API.
    page.evaluate("Object.defineProperty(navigator, 'clipboard', {get: () => undefined, configurable: true})")
    page.evaluate("window.getSelection().removeAllRanges()")
    page.click("#invite-out button.copy")
    _until(lambda: page.inner_text("#invite-out .copy-said") != "")
    assert page.evaluate("window.getSelection().toString()") == link


def test_an_open_invitation_gives_a_new_link_like_it_and_is_revoked_from_the_list(site, teacher):
    page = teacher
    page.goto(f"{site.base}/courses/{COURSE}")
    section = "section[aria-labelledby=inv]"
    row = page.locator("table.open-invitations tbody tr")
    assert row.count() == 1 and "Open invitations (1)" in page.inner_text(section)
    row.locator("form.like-this button").click()
    fresh = _link_box(page).inner_text()
    assert fresh.startswith(f"{site.base}/join#jji_")
    row.locator("button", has_text="Revoke").click()
    page.wait_for_selector("details.past-invitations")  # the page reloads
    text = page.inner_text(section)
    assert "Open invitations (1)" in text and "Revoked or expired (1)" in text
    with site.client(site.token) as t:
        old, new = sorted(t.get(f"/courses/{COURSE}/invitations").json(), key=lambda i: i["id"])
    assert old["revoked"] and not new["revoked"] and new["role"] == "learner" and new["email_domain"] == "example.edu"
    lasts = datetime.fromisoformat(new["expires_at"]) - datetime.fromisoformat(new["created_at"])
    assert abs(lasts - timedelta(days=30)) < timedelta(minutes=1)  # as long as the one it is like


def test_the_similar_code_panes_keep_each_pair_of_lines_level_when_one_wraps(site, teacher):
    with site.client(site.token) as t:
        r = t.post(f"/courses/{COURSE}/assignments", json={
            "slug": "hw", "title": "Homework", "opens_at": (NOW - timedelta(hours=1)).isoformat(),
            "due_at": (NOW + timedelta(hours=1)).isoformat(), "problems": [{"problem": P1}]})
        assert r.status_code == 201, r.text
        code = t.post(f"/courses/{COURSE}/invitations", json={}).json()["code"]
    short = LONG.replace("  # " + "a long comment " * 12, "").replace("pred", "guess")
    for name, source in (("ann", LONG), ("ben", short)):
        with site.client(site.learners[name]) as c:
            assert c.post("/join", json={"code": code}).status_code == 200
            r = c.post("/submissions", json={"problem": P1, "source": source, "kind": "submit",
                                             "assignment": f"{COURSE}/hw"})
            assert r.status_code == 202, r.text
    page = teacher
    page.goto(f"{site.base}/courses/{COURSE}/assignments/hw/similar")
    table = page.wait_for_selector("table.side-by-side")
    rows = table.query_selector_all("tbody tr")
    assert any(r.get_attribute("class") == "shared" for r in rows)
    for row in rows:  # each pair of lines level, and as tall as each other, wrapped or not
        cells = row.query_selector_all("td")
        left, right = cells[1].bounding_box(), cells[3].bounding_box()
        assert abs(left["y"] - right["y"]) < 1 and abs(left["height"] - right["height"]) < 1
    long_row = next(r for r in rows if "a long comment" in r.inner_text())
    line = float(page.evaluate("(el) => parseFloat(getComputedStyle(el).lineHeight) || 16",
                               long_row.query_selector_all("td")[1]))
    assert long_row.bounding_box()["height"] > 2.5 * line  # the long line did wrap
