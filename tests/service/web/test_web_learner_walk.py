"""A learner's first minutes, walked in headless Chromium against a live `grader serve`:
the catalogue's search and tag filter, a problem page with its math drawn and its hints
taken one at a time, similar problems and previous/next, a Run on their own input (a
refused one first), a Run and a Submit of a wrong answer (counts first, the first failing
case open, the hint once, the rest behind a disclosure), a past submission loaded back
into the editor, an accepted Submit that opens the editorial, and the page in dark mode.

The server grades a copy of per_example_grad_clipping with two of its wrong answers as
the known mistakes, in a cache of its own built beforehand by `grader warm`, so that the
first WA Submit names its mistake as the hundredth does. The tests run in file order:
later ones build on what earlier ones did. Screenshots go to docs/pages/screenshots/
(shown on the documentation's learners page)."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from browser_support import PASSWORD, paste, result_of, session_state, shot
from service_support import P1, Server, corpus, make_user, problem_copy, sqlite_url

from support import ROOT

# Headless Chromium against a live server, after building a problem's tables: minutes.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

MISTAKES = ("sum_not_mean.py", "always_rescale.py")
VIEW = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser):
    root = tmp_path_factory.mktemp("walk")
    url = sqlite_url(root)
    make_user(url, "lea@example.org", password=PASSWORD)
    problems = problem_copy(root / "problems")
    wrong = root / "submissions" / P1 / "wrong_answer"
    wrong.mkdir(parents=True)
    for name in MISTAKES:
        (wrong / name).write_text(corpus(f"wrong_answer/{name}"))
    server = Server(url, "--run-limit", "100/min", "--submit-limit", "100/h", problems=problems)
    server.env["JAXJUDGE_CACHE"] = str(root / "cache")
    subprocess.run([sys.executable, "-m", "grader", "warm", P1], cwd=ROOT, env=server.env, check=True,
                   capture_output=True, timeout=900)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def lea(site, browser):
    """Lea's logged-in session."""
    return session_state(browser, site.base, "lea@example.org")


@pytest.fixture
def page(site, browser, lea):
    ctx = browser.new_context(viewport=VIEW, storage_state=lea)
    page = ctx.new_page()
    page.on("dialog", lambda d: d.accept())  # "Replace your code with this submission's?"
    yield page
    ctx.close()


def _until(check, seconds: float = 30.0) -> None:
    """Polled from here: the pages' policy forbids the eval that Playwright's own waiting uses."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.1)


def _problem(page, base: str) -> None:
    page.goto(f"{base}/problems/{P1}")
    page.wait_for_selector(".CodeMirror")


def test_the_catalogue_is_searched_by_words_and_filtered_by_a_tag(site, page):
    page.goto(site.base + "/problems")
    every = page.locator("table.problems tbody tr").count()
    page.fill("#f-q", "clipping")
    page.click("#problem-filters button[type=submit]")
    page.wait_for_url("**/problems?*q=clipping*")
    rows = page.locator("table.problems tbody tr")
    assert 0 < rows.count() < every and page.locator(f'tr[data-problem="{P1}"]').count() == 1
    for i in range(rows.count()):
        assert "clipping" in rows.nth(i).inner_text().lower()
    assert "match" in page.inner_text("#match-count")
    page.screenshot(path=str(shot("catalogue.png")))
    page.click(f'tr[data-problem="{P1}"] a.tag-link:has-text("vmap")')
    page.wait_for_url("**/problems?tag=vmap")
    assert page.locator("#f-tag").input_value() == "vmap"
    rows = page.locator("table.problems tbody tr")
    for i in range(rows.count()):
        assert "vmap" in rows.nth(i).locator("td").nth(2).inner_text()
    page.click(f'tr[data-problem="{P1}"] a[href="/problems/{P1}"]')
    page.wait_for_url(f"**/problems/{P1}")


def test_the_statement_draws_its_math_and_hands_out_hints_one_at_a_time(site, page):
    _problem(page, site.base)
    page.wait_for_selector(".story .katex")
    assert page.locator(".story .katex").count() >= 3
    assert page.locator(".story .math[data-tex]").count() == page.locator(".story .math").count()
    hints = page.locator("details.hint-step")
    assert hints.count() == 3
    assert hints.nth(0).is_visible() and not hints.nth(1).is_visible() and not hints.nth(2).is_visible()
    hints.nth(0).locator("summary").click()
    assert "jax.vmap(jax.grad(loss)" in hints.nth(0).inner_text()
    page.wait_for_selector("details.hint-step >> nth=1", state="visible")
    assert not hints.nth(2).is_visible()
    hints.nth(1).locator("summary").click()
    page.wait_for_selector("details.hint-step >> nth=2", state="visible")
    assert page.locator("#related .related-list li").count() >= 1
    assert page.locator("#prev-problem").count() + page.locator("#next-problem").count() >= 1
    assert page.locator("#editorial-link").count() == 0  # not solved yet
    page.locator(".story").screenshot(path=str(shot("statement_math.png")))


def _custom(page) -> dict:
    if page.locator("#custom[open]").count() == 0:
        page.click("#custom summary")
    return json.loads(page.input_value("#custom-json"))


def test_a_run_on_ones_own_input_is_checked_then_shows_both_outputs(site, page):
    _problem(page, site.base)
    paste(page, corpus("wrong_answer/sum_not_mean.py"))
    example = _custom(page)
    assert set(example) == {"params", "x", "y", "max_norm"}
    page.fill("#custom-json", json.dumps({**example, "max_norm": 0.01}))
    page.click("#run-custom")
    _until(lambda: page.inner_text("#custom-error"))
    assert page.inner_text("#custom-error") == "input 'max_norm': has a value 0.01 below the minimum 0.1"
    page.fill("#custom-json", "{not json")
    page.click("#run-custom")
    assert page.inner_text("#custom-error").startswith("Not valid JSON")
    page.click("#custom-reset")
    assert json.loads(page.input_value("#custom-json")) == example and page.inner_text("#custom-error") == ""
    page.click("#run-custom")
    panel = result_of(page, "custom")
    text = panel.inner_text()
    assert "the reference returns" in text and "your code returns" in text and "your input" in text
    assert panel.locator("details.case-detail[open]").count() == 1
    page.screenshot(path=str(shot("custom_input.png")))


def test_a_wrong_submit_leads_with_counts_the_first_failing_case_and_one_hint(site, page):
    _problem(page, site.base)
    paste(page, corpus("wrong_answer/sum_not_mean.py"))
    page.click("#run")
    result_of(page, "run")
    page.wait_for_selector("#submit:enabled")
    page.click("#submit")
    panel = result_of(page, "submit")
    assert panel.locator(".verdict.big").inner_text() == "WA"
    count = panel.locator(".count").inner_text()
    assert count.startswith("public ") and "hidden " in count and "wrong value" in count
    assert panel.locator("details.case-detail[open]").count() == 1
    assert panel.locator("details.all-cases").get_attribute("open") is None
    assert not panel.locator("table.cases").is_visible()  # the full table waits behind the disclosure
    hints = panel.locator("p.hint")
    assert hints.count() == 1 and "summed" in hints.inner_text()
    assert panel.locator(".hint-may-follow").count() == 0
    said = page.text_content("#result-status")  # what a screen reader announces: a summary, not the table
    assert count in said and "summed" in said and len(said) < 600, said
    page.screenshot(path=str(shot("wa_panel.png")), full_page=False)
    assert page.is_enabled("#submit")  # the code was Run: its Submit leaves it offered


def test_a_past_submission_loads_back_into_the_editor_and_must_be_run_before_submit(site, page):
    _problem(page, site.base)
    paste(page, "# something else\n")
    page.wait_for_selector("#history button.load-source")
    page.locator("#history button.load-source").first.click()
    _until(lambda: "def per_example_grad_clip" in page.evaluate("window.jaxjudgeEditor.getValue()"))
    assert page.evaluate("window.jaxjudgeEditor.getValue()") == corpus("wrong_answer/sum_not_mean.py")
    assert page.is_disabled("#submit")


def test_an_accepted_submit_opens_the_editorial(site, page):
    _problem(page, site.base)
    paste(page, corpus("accepted/flat_norm.py"))
    page.click("#run")
    assert result_of(page, "run").locator(".verdict.big").inner_text() == "AC"
    page.wait_for_selector("#submit:enabled")
    page.click("#submit")
    assert result_of(page, "submit").locator(".verdict.big").inner_text() == "AC"
    page.reload()
    page.click("#editorial-link a")
    page.wait_for_url(f"**/problems/{P1}/editorial")
    assert page.locator("#editorial-body").is_visible() and page.locator("#editorial-locked").count() == 0


def test_dark_mode_follows_the_systems_colour_scheme(site, browser, lea):
    backgrounds = {}
    for scheme in ("light", "dark"):
        ctx = browser.new_context(viewport=VIEW, storage_state=lea, color_scheme=scheme)
        page = ctx.new_page()
        _problem(page, site.base)
        backgrounds[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        if scheme == "dark":
            page.screenshot(path=str(shot("dark.png")))
        ctx.close()
    light, dark = (_luminance(backgrounds[s]) for s in ("light", "dark"))
    assert light > 0.8 and dark < 0.2, backgrounds


def _luminance(css: str) -> float:
    r, g, b = (int(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255
