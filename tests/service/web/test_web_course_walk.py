"""A course walked as people walk it, in headless Chromium against a live `grader serve`:
an instructor creates a course, an invitation link and an assignment (two problems with
their points, a due time a minute or two away, a late window with a penalty), entered
in their browser's time zone; a learner opens the link, signs up, finds the assignment
and submits an accepted solution for its first problem in time and, once the due time
has passed, one for the second, which counts late; the learner's and the instructor's
pages show the points by that policy; the instructor gives an extension, downloads the
CSV Canvas and Moodle import, opens the course's class insight and from its row the
assignment's, finds the learner in the gradebook and the members, and
makes a reset link, which logs the learner in anew and ends their older session; the
instructor renames the assignment in its form (its times shown in their zone, sent back
unchanged) and opens its similar-code report; the learner changes their password on their
account page.

The instructor's browser is in New York, the learner's in Los Angeles: each page shows
the times in its viewer's zone. The tests run in file order: later ones build on what
earlier ones did (``MADE``), with one Chromium page per person for the whole module.
Screenshots go to docs/pages/screenshots/ (shown on the documentation's instructors
page)."""
from __future__ import annotations

import csv
import io
import time
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest
from browser_support import PASSWORD, log_in, paste, result_of, shot
from service_support import P1, Server, corpus, make_user, sqlite_url

from support import SUBMISSIONS

# Headless Chromium against a live server, with a wait for a due time: minutes.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

P2 = "value_and_grad_loss"
P2_ACCEPTED = "dict_params.py"
TEACHER, LEARNER = "teacher@example.org", "lea@example.edu"
FIRST, SECOND, THIRD = "lea's first password", "lea's second password", "lea's third password"
COURSE, TITLE = "ml-spring", "Machine learning with JAX, spring term"
ASSIGNMENT, WORK = "week-1", "Week 1: gradients"
REF = f"{COURSE}/{ASSIGNMENT}"
TEACHER_ZONE, LEARNER_ZONE = "America/New_York", "America/Los_Angeles"
VIEW = {"width": 1280, "height": 900}
MADE: dict[str, object] = {}


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser):
    root = tmp_path_factory.mktemp("course_walk")
    url = sqlite_url(root)
    token = make_user(url, TEACHER, instructor=True, password=PASSWORD, course=None)
    server = Server(url, "--login-limit", "100000/min", "--run-limit", "1000/min", "--submit-limit", "1000/h",
                    workers=1).start()
    server.token = token
    yield server
    server.stop()


@pytest.fixture(scope="module")
def new_page(browser):
    """A page in a fresh context (no cookies) whose clock reads in ``zone``; closed with the module."""
    made = []

    def new(zone: str):
        ctx = browser.new_context(viewport=VIEW, timezone_id=zone, locale="en-US")
        made.append(ctx)
        page = ctx.new_page()
        page.on("dialog", lambda d: d.accept())  # "Make a one-time link ...?"
        return page

    yield new
    for ctx in made:
        ctx.close()


@pytest.fixture(scope="module")
def teacher(site, new_page):
    return new_page(TEACHER_ZONE)


@pytest.fixture(scope="module")
def learner(site, new_page):
    """The learner's first browser: no cookies until they sign up in it."""
    return new_page(LEARNER_ZONE)


def _until(check, seconds: float = 30.0) -> None:
    """Polled from here: the pages' policy forbids the eval that Playwright's own waiting uses."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.1)


def _local_input(t: datetime, zone: str) -> str:
    """What a datetime-local input holds for ``t`` in ``zone``."""
    return t.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%dT%H:%M")


def _shown(t: datetime, zone: str) -> tuple[str, str]:
    """The time and zone a page in ``zone`` shows for ``t`` (en-US: "2027-01-10 09:05", "EST")."""
    local = t.astimezone(ZoneInfo(zone))
    return f"{local:%Y-%m-%d %H:%M}", local.tzname()


def _text(page, selector: str) -> str:
    """A node's text with the narrow and no-break spaces Chromium's dates use made plain."""
    return page.inner_text(selector).replace("\u202f", " ").replace("\xa0", " ")


def _made_for_url(base: str, pid: str):
    """The problem's page opened for the assignment (``?assignment=course/slug``, however spelled)."""
    def match(url: str) -> bool:
        u = urlsplit(url)
        at = f"{u.scheme}://{u.netloc}{u.path}"
        return at == f"{base}/problems/{pid}" and parse_qs(u.query) == {"assignment": [REF]}
    return match


def _assignment_page(page, base: str) -> None:
    page.goto(f"{base}/courses/{COURSE}/assignments/{ASSIGNMENT}")
    page.wait_for_selector("dl.window")


def _run_then_submit(page, source: str) -> str:
    """Run (which enables Submit for this code), then Submit; the Submit's verdict."""
    page.wait_for_selector(".CodeMirror")
    paste(page, source)
    assert page.is_disabled("#submit")
    page.click("#run")
    assert result_of(page, "run").locator(".verdict.big").inner_text() == "AC"
    page.wait_for_selector("#submit:enabled")
    page.click("#submit")
    return result_of(page, "submit").locator(".verdict.big").inner_text()


def test_an_instructor_makes_a_course_an_invitation_and_an_assignment_in_their_own_time_zone(site, teacher):
    page = teacher
    log_in(page, site.base, TEACHER, "/courses")
    assert "You are in no course yet" in page.inner_text("main")
    page.fill("#c-title", TITLE)
    page.fill("#c-slug", COURSE)
    page.click("#course-new button[type=submit]")
    page.wait_for_url(f"{site.base}/courses/{COURSE}")  # the new course's page
    assert page.inner_text("h1") == TITLE and "No assignment yet" in page.inner_text("main")

    page.click("#invite-new button[type=submit]")
    link = page.wait_for_selector("#invite-out .copy-link").inner_text()
    assert link.startswith(f"{site.base}/join#") and len(link) > len(f"{site.base}/join#") + 10, link
    assert "shown only once" in page.inner_text("#invite-out")
    MADE["invitation"] = link

    assert page.get_attribute("details.new-assignment", "open") is not None  # its next step, open
    page.fill("#a-title", WORK)
    page.fill("#a-slug", ASSIGNMENT)
    page.fill("#a-penalty", "0.5")
    for pid, weight in ((P1, "10"), (P2, "5")):
        row = page.locator(f'[data-item=problems]:has(input[data-key=problem][value="{pid}"])')
        row.locator("input[data-key=problem]").check()
        row.locator("input[data-key=weight]").fill(weight)
    # The inputs take whole minutes: due at the first whole minute at least 75 s away.
    now = datetime.now(timezone.utc).replace(microsecond=0)
    opens = now.replace(second=0) - timedelta(minutes=5)
    due = (now + timedelta(seconds=75 + 59)).replace(second=0)
    late = due + timedelta(minutes=10)
    for field, t in (("#a-opens", opens), ("#a-due", due), ("#a-late", late)):
        page.fill(field, _local_input(t, TEACHER_ZONE))
    page.click("#assignment-new button[type=submit]")
    page.wait_for_selector(f'tr[data-assignment="{ASSIGNMENT}"]')
    assert datetime.now(timezone.utc) < due - timedelta(seconds=60)
    MADE["due"] = due

    page.click(f'tr[data-assignment="{ASSIGNMENT}"] a')
    page.wait_for_url(f"**/courses/{COURSE}/assignments/{ASSIGNMENT}")
    assert page.get_attribute("dl.window", "data-state") == "open"
    times = page.locator("dl.window time.local")
    for i, t in enumerate((opens, due, late)):  # stored as the instants meant, shown in New York's time
        assert datetime.fromisoformat(times.nth(i).get_attribute("datetime")) == t
        hour, zone = _shown(t, TEACHER_ZONE)
        text = times.nth(i).inner_text().replace("\u202f", " ").replace("\xa0", " ")
        assert hour in text and zone in text, (text, hour, zone)
    assert "less 50%" in page.inner_text("dl.window")
    rows = page.locator("table.assignment-problems tbody tr")
    assert [rows.nth(i).get_attribute("data-problem") for i in range(rows.count())] == [P1, P2]
    assert [rows.nth(i).locator("td").nth(1).inner_text() for i in range(2)] == ["10", "5"]


def test_a_learner_signs_up_with_the_invitation_and_submits_the_first_problem_in_time(site, learner):
    assert MADE.get("invitation"), "needs the instructor's test"
    page = learner
    page.goto(str(MADE["invitation"]))
    _until(lambda: TITLE in page.inner_text("#invitation-info"))
    assert page.inner_text("#invitation-info") == f"An invitation to {TITLE} as a learner."
    page.fill("#s-email", LEARNER)
    page.fill("#s-password", FIRST)
    page.fill("#s-again", FIRST)
    page.screenshot(path=str(shot("join.png")))
    page.click("#signup button[type=submit]")
    page.wait_for_url(f"{site.base}/courses")
    assert "learner" in page.inner_text(f'li[data-course="{COURSE}"]')
    page.click(f'li[data-course="{COURSE}"] a')
    page.wait_for_url(f"{site.base}/courses/{COURSE}")
    row = f'tr[data-assignment="{ASSIGNMENT}"]'
    assert WORK in page.inner_text(row) and "open" in page.inner_text(row)
    hour, zone = _shown(MADE["due"], LEARNER_ZONE)  # the learner's own zone, not the instructor's
    due_text = _text(page, f"{row} td:nth-child(3) time.local")
    assert hour in due_text and zone in due_text, (due_text, hour, zone)
    page.click(f"{row} a")
    page.wait_for_url(f"**/courses/{COURSE}/assignments/{ASSIGNMENT}")
    assert page.locator("table.assignment-problems tbody tr .muted", has_text="none yet").count() == 2
    page.click(f'tr[data-problem="{P1}"] a')
    page.wait_for_url(_made_for_url(site.base, P1))
    made_for = page.wait_for_selector("#made-for")
    assert made_for.get_attribute("data-state") == "open" and WORK in made_for.inner_text()
    assert page.get_attribute("#solution", "data-assignment") == REF
    assert _run_then_submit(page, corpus("accepted/flat_norm.py")) == "AC"
    assert datetime.now(timezone.utc) < MADE["due"], "the first Submit was meant to be in time"


def test_after_the_due_time_the_second_problem_is_submitted_late(site, learner):
    assert MADE.get("due"), "needs the instructor's test"
    page = learner
    due = MADE["due"]
    _until(lambda: datetime.now(timezone.utc) > due + timedelta(seconds=2), seconds=200)
    _assignment_page(page, site.base)
    assert page.get_attribute("dl.window", "data-state") == "late"
    assert "past due" in page.inner_text("dl.window .state")
    page.click(f'tr[data-problem="{P2}"] a')
    page.wait_for_url(_made_for_url(site.base, P2))
    made_for = page.wait_for_selector("#made-for")
    assert made_for.get_attribute("data-state") == "late" and "a Submit now is late" in made_for.inner_text()
    source = (SUBMISSIONS / P2 / "accepted" / P2_ACCEPTED).read_text(encoding="utf-8")
    assert _run_then_submit(page, source) == "AC"


def test_the_learners_assignment_page_counts_the_late_submit_at_half_its_points(site, learner):
    page = learner
    _assignment_page(page, site.base)
    first, second = (f'table.assignment-problems tr[data-problem="{p}"]' for p in (P1, P2))
    assert page.inner_text(f"{first} td.num") == "10" and "late" not in page.inner_text(first)
    assert page.inner_text(f"{second} td.num") == "2.5" and "late" in page.inner_text(second)
    assert page.locator(f"{first} a[href^='/submissions/']").count() == 1  # the Submit that counts
    assert page.inner_text("table.assignment-problems .total") == "12.5"
    assert page.locator("#scores").count() == 0  # the scores table is the instructors'


def test_the_instructor_sees_the_scores_gives_an_extension_and_downloads_the_csv(site, teacher):
    page = teacher
    _assignment_page(page, site.base)
    row = f'table.scores tr[data-learner="{LEARNER}"]'
    assert page.inner_text(f"{row} .points") == "12.5"
    cells = page.locator(f"{row} td")  # after the learner's th: P1, P2, the points
    assert "late" not in cells.nth(0).inner_text() and "late" in cells.nth(1).inner_text()
    new_due = MADE["due"] + timedelta(days=2)
    page.fill("#e-email", LEARNER)
    page.fill("#e-due", _local_input(new_due, TEACHER_ZONE))
    page.fill("#e-reason", "ill this week")
    page.click("#extension-new button[type=submit]")
    granted = page.wait_for_selector(f'ul.extensions li[data-learner="{LEARNER}"]')  # the page reloads with it
    text = granted.inner_text().replace("\u202f", " ").replace("\xa0", " ")
    assert f"given by {TEACHER}" in text and "(ill this week)" in text, text
    hour, zone = _shown(new_due, TEACHER_ZONE)
    assert hour in text and zone in text, text
    assert "(extension)" in page.inner_text(row) and page.inner_text(f"{row} .points") == "12.5"  # Submits stay late
    page.screenshot(path=str(shot("assignment_scores.png")), full_page=True)

    heads = {"canvas": ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", WORK],
             "moodle": ["Email address", WORK]}
    for layout, head in heads.items():
        href = page.get_attribute(f'section[aria-labelledby=scores] a[href$="layout={layout}"]', "href")
        r = page.request.get(site.base + href)  # with the page's own session
        assert r.ok and r.headers["content-type"].startswith("text/csv"), (layout, r.status)
        got = list(csv.reader(io.StringIO(r.text())))
        assert got[0] == head, (layout, got)
        if layout == "canvas":
            assert got[1] == ["Points Possible", "", "", "", "", "15"]
            assert got[2] == [LEARNER, "", "", LEARNER, "", "12.5"]
        else:
            assert got[1:] == [[LEARNER, "12.5"]]
    assert page.locator('section[aria-labelledby=scores] a[href$="scores?format=csv"]').count() == 1  # and per problem


def test_the_instructor_opens_the_courses_insight_and_from_its_row_the_assignments(site, teacher):
    page = teacher
    page.goto(f"{site.base}/courses/{COURSE}")
    page.click(f'a[href="/courses/{COURSE}/insight"]')
    row = f'table.insight-course tr[data-assignment="{ASSIGNMENT}"]'
    page.wait_for_selector(row)
    solved = [page.inner_text(f'{row} li[data-problem="{p}"]') for p in (P1, P2)]
    assert all(x.endswith(": 1 of 1 (100%)") for x in solved), solved  # one learner, both accepted
    page.screenshot(path=str(shot("course_insight.png")), full_page=True)
    page.click(f"{row} a")
    page.wait_for_url(f"**/courses/{COURSE}/assignments/{ASSIGNMENT}/insight")
    assert page.locator(f"#{P1}-verdicts svg").count() == 1
    assert "1 of 1 learner solved it (100%)" in page.inner_text(f"#p-{P1} p.solved")
    page.screenshot(path=str(shot("assignment_insight.png")), full_page=True)


def test_a_reset_link_logs_the_learner_in_anew_and_ends_their_older_session(site, teacher, learner, new_page):
    page = teacher
    page.goto(f"{site.base}/gradebook?course={COURSE}")
    page.wait_for_selector(f'tr[data-learner="{LEARNER}"]')
    page.goto(f"{site.base}/courses/{COURSE}")
    member = f'table.members tr[data-member="{LEARNER}"]'
    page.wait_for_selector(member)
    assert "learner" in page.inner_text(member) and "set" in page.inner_text(f"{member} td:nth-child(4)")
    assert "Members (2)" in page.inner_text("#people")
    page.screenshot(path=str(shot("course_page.png")))
    page.click(f"{member} button.reset-link")  # confirmed: the dialog is accepted
    link = page.wait_for_selector("#member-out .copy-link").inner_text()
    assert link.startswith(f"{site.base}/set-password#"), link

    again = new_page(LEARNER_ZONE)  # another browser, no cookies
    again.goto(link)
    again.fill("#p-new", SECOND)
    again.fill("#p-again", SECOND)
    again.click("#set-password button[type=submit]")
    again.wait_for_url(f"{site.base}/problems")
    again.goto(f"{site.base}/courses")
    again.wait_for_selector(f'li[data-course="{COURSE}"]')  # logged in, as the learner
    MADE["again"] = again

    learner.reload()  # the session from signing up has ended
    learner.wait_for_url("**/login?next=**")


def test_the_instructor_renames_the_assignment_in_its_form_which_shows_its_times_in_their_zone(site, teacher):
    page = teacher
    _assignment_page(page, site.base)
    page.click("section[aria-labelledby=change] summary")
    assert page.input_value("#ae-due") == _local_input(MADE["due"], TEACHER_ZONE)  # UTC on the wire, NY in the form
    assert page.is_checked(f'#assignment-edit input[data-key=problem][value="{P1}"]')
    page.fill("#ae-title", WORK + " (revised)")
    page.click("#assignment-edit button[type=submit]")
    page.wait_for_selector("h1:has-text('(revised)')")  # not wait_for_function: the page's CSP forbids eval
    with site.client(site.token) as t:  # the times went back exactly as they were
        got = t.get(f"/courses/{COURSE}/assignments/{ASSIGNMENT}").json()
    assert datetime.fromisoformat(got["window"]["due_at"]) == MADE["due"]
    page.click("section[aria-labelledby=similar] a.similar-link")
    page.wait_for_selector("p.summary")
    assert "1 final Submit compared" in page.inner_text("p.summary")


def test_the_learner_changes_their_password_on_their_account_page(site, browser):
    assert MADE.get("again"), "needs the reset link's test"
    page = MADE["again"]
    page.goto(f"{site.base}/account")
    assert LEARNER in page.inner_text("main") and TITLE in page.inner_text("main")
    page.fill("#a-current", SECOND)
    page.fill("#a-new", THIRD)
    page.fill("#a-again", THIRD)
    page.click("#password-change button[type=submit]")
    done = page.wait_for_selector("#password-change .ok-text")
    assert done.inner_text() == "Your password is changed; 0 other sessions logged out; you have no API tokens."
    page.reload()
    assert page.url == f"{site.base}/account"  # this session stays

    ctx = browser.new_context()  # and the new password logs in
    fresh = ctx.new_page()
    fresh.goto(f"{site.base}/account")
    fresh.wait_for_url("**/login?next=**")
    fresh.fill("#email", LEARNER)
    fresh.fill("#password", THIRD)
    fresh.click("#login button[type=submit]")
    fresh.wait_for_url(f"{site.base}/account")
    ctx.close()
