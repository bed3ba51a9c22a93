"""The web pages as a person uses them: headless Chromium (the machine's, driven by
Playwright) against a live `grader serve`. A learner logs in, opens a problem, pastes
an accepted solution, runs it with Ctrl+Enter and submits it (AC); pastes a wrong
answer and sees the public diff and a hidden-case failure without hidden data; an
instructor sees both in the gradebook and downloads the CSV, and confirms a rejudge.
Also: the keyboard, the starter and the drafts, a phone-sized screen, that logging in
never leads off the site whatever ``next`` hides, and that ``/docs`` renders from this
site's files under its policy. The tests run in file order: later ones read what
earlier ones made (``MADE``). Screenshots of the problem page
and of a WA report are written to docs/pages/screenshots/ (shown on the documentation's
learners page, the problem page's linked from the README)."""
from __future__ import annotations

import csv
import io
import json
import time
from urllib.parse import quote

import pytest
from browser_support import PASSWORD, log_in, paste, result_of, session_state, shot
from service_support import P1, Server, corpus, make_user, sqlite_url

# Headless Chromium against a live server: a minute or more.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

P2 = "value_and_grad_loss"
MADE: dict[str, str] = {}
RUN_FIRST = "Run this code first: Submit takes only code you have already Run."
HOSTILE = (
    "import jax\n\n\ndef loss(params, x, y):\n    return 0.5 * (x @ params['w'] + params['b'] - y) ** 2\n\n\n"
    "def per_example_grad_clip(params, x, y, max_norm):\n"
    "    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)\n"
    "    raise ValueError('<img src=x onerror=alert(1)><script>alert(2)</script>')\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser):
    root = tmp_path_factory.mktemp("browser")
    url = sqlite_url(root)
    for name in ("ann", "teacher"):
        make_user(url, f"{name}@example.org", instructor=name == "teacher", password=PASSWORD)
    server = Server(url, "--no-feedback", "--run-limit", "100/min", "--submit-limit", "100/h", workers=1).start()
    yield server
    server.stop()


def open_problem(page, base: str) -> None:
    """The problem page of P1, once its editor is built."""
    page.goto(f"{base}/problems/{P1}")
    page.wait_for_selector(".CodeMirror")


@pytest.fixture(scope="module")
def ann_state(site, browser):
    """Ann's logged-in session, for the tests after the first."""
    return session_state(browser, site.base, "ann@example.org")


def test_a_learner_logs_in_runs_with_ctrl_enter_and_submits_an_accepted_solution(site, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    log_in(page, site.base, "ann@example.org", f"/problems/{P1}")
    page.wait_for_selector(".CodeMirror")
    assert "def per_example_grad_clip(params, x, y, max_norm):" in page.inner_text(".CodeMirror")
    assert page.is_disabled("#submit") and page.is_visible("#submit-why")  # nothing has been Run yet
    paste(page, corpus("accepted/flat_norm.py"))
    page.keyboard.press("Control+Enter")  # from inside the editor
    panel = result_of(page, "run")
    assert panel.locator(".verdict.big").inner_text() == "AC" and "public 3/3" in panel.inner_text()
    assert page.is_enabled("#submit") and page.is_hidden("#submit-why")
    page.screenshot(path=str(shot("problem.png")))
    page.click("#submit")
    panel = result_of(page, "submit")
    assert panel.locator(".verdict.big").inner_text() == "AC" and "public 3/3, hidden 38/38" in panel.inner_text()
    MADE["ac"] = panel.get_attribute("data-sub")
    assert any(f"/api/v1/submissions/{MADE['ac']}/events" in u for u in seen)  # followed by server-sent events
    page.wait_for_selector(f'#history a[href="/submissions/{MADE["ac"]}"]')
    assert page.is_enabled("#submit")  # the code was Run: a Submit of it does not take the offer back...
    page.reload()
    page.wait_for_selector(".CodeMirror")
    assert page.is_enabled("#submit") and page.is_hidden("#submit-why")  # ...nor does a reload
    page.keyboard.press("Control+Home")
    page.click(".CodeMirror-code")
    page.keyboard.type("# edited\n")
    assert page.is_disabled("#submit")  # the current code has not been Run, and the button says so
    assert page.get_attribute("#submit", "title") == page.inner_text("#submit-why") == RUN_FIRST
    paste(page, corpus("accepted/flat_norm.py"))
    assert page.is_enabled("#submit")  # back to code that was Run
    page.goto(site.base + "/problems")
    assert "Solved" in page.inner_text(f'tr[data-problem="{P1}"]')
    ctx.close()


def test_a_wrong_answer_shows_the_public_diff_and_a_hidden_failure_without_hidden_data(site, browser, ann_state):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, storage_state=ann_state)
    ctx.add_init_script("delete window.EventSource;")  # no server-sent events here: the page must poll
    page = ctx.new_page()
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    open_problem(page, site.base)
    paste(page, corpus("wrong_answer/norm_without_bias.py"))
    page.click("#run")
    panel = result_of(page, "run")
    assert panel.locator(".verdict.big").inner_text() == "WA" and "public 0/3: 3 wrong value" in panel.inner_text()
    first = panel.locator('details[data-detail="example_1"]')
    assert first.get_attribute("open") is not None  # the first failing case opens with its diff
    text = first.inner_text()
    for part in ("input", '"max_norm": 1.0', "expected", "got", "The worst element", "grads.w[0]", "0.0134800281",
                 "0.0976310819"):
        assert part in text, part
    page.click("#submit")
    panel = result_of(page, "submit")
    MADE["wa"] = panel.get_attribute("data-sub")
    assert panel.locator(".verdict.big").inner_text() == "WA"
    hidden_rows = panel.locator("table.cases tbody tr", has_text="hidden")
    assert hidden_rows.count() == 38
    assert "hidden cases failed" in panel.locator("p.note").inner_text()
    assert panel.locator('details[data-detail^="gen_"]').count() == 0  # no hidden case opens to its data
    for i in range(hidden_rows.count()):
        assert hidden_rows.nth(i).locator("td").nth(5).text_content() in ("passed", "wrong value")
    assert not any("/events" in u for u in seen) and sum("/panel" in u for u in seen) >= 2  # it polled
    page.set_viewport_size({"width": 1100, "height": 1300})
    page.goto(f"{site.base}/submissions/{MADE['wa']}")  # the report page, as the history links to it
    assert page.locator('details[data-detail="example_1"][open] table.worst').is_visible()
    page.screenshot(path=str(shot("wa_report.png")))
    ctx.close()


def test_a_runs_code_loaded_from_the_history_is_offered_for_submit_and_a_submits_is_not(site, browser, ann_state):
    assert MADE.get("wa"), "needs the wrong answer test"
    ctx = browser.new_context(storage_state=ann_state)  # a browser that Ran nothing
    page = ctx.new_page()
    page.on("dialog", lambda d: d.accept())  # "Replace your code with this submission's?"
    open_problem(page, site.base)
    rows = page.locator("#history tbody tr")
    rows.first.wait_for()
    kinds = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(rows.count())]
    assert kinds[:2] == ["submit", "run"]  # the wrong answer's Submit, and its Run before it
    wrong = corpus("wrong_answer/norm_without_bias.py")
    rows.nth(0).locator("button.load-source").click()
    deadline = time.monotonic() + 30
    while page.evaluate("window.jaxjudgeEditor.getValue()") != wrong:  # polled: the policy forbids Playwright's eval
        assert time.monotonic() < deadline, "the Submit's code was not loaded"
        time.sleep(0.1)
    assert page.is_disabled("#submit")  # a Submit's code: not known here to have been Run
    rows.nth(1).locator("button.load-source").click()
    page.wait_for_selector("#submit:enabled")  # the same code, from its Run
    ctx.close()


def test_times_read_in_one_format_in_the_viewers_zone_with_the_zone_named(site, browser, ann_state):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    ctx = browser.new_context(storage_state=ann_state, timezone_id="Asia/Kolkata", locale="en-US")
    page = ctx.new_page()
    for path, times in ((f"/problems/{P1}", "#history time"), ("/submissions", "table.submissions time"),
                        (f"/submissions/{MADE['ac']}", "main time")):
        page.goto(site.base + path)
        page.wait_for_selector(times + "[data-zone]")
        found = page.locator(times)
        for i in range(found.count()):
            t = datetime.fromisoformat(found.nth(i).get_attribute("datetime"))
            local = t.astimezone(ZoneInfo("Asia/Kolkata"))
            assert found.nth(i).inner_text() == f"{local:%Y-%m-%d %H:%M} GMT+5:30", path
            assert found.nth(i).get_attribute("title") == f"{t:%Y-%m-%d %H:%M:%S} UTC"  # the exact second
    ctx.close()


def test_a_refused_input_names_every_fault_and_the_result_below_is_marked_as_an_earlier_ones(site, browser,
                                                                                              ann_state):
    ctx = browser.new_context(storage_state=ann_state)
    page = ctx.new_page()
    open_problem(page, site.base)
    paste(page, corpus("accepted/flat_norm.py"))
    page.click("#custom summary")
    example = json.loads(page.input_value("#custom-json"))
    page.click("#run-custom")
    panel = result_of(page, "custom")
    assert panel.locator(".earlier").count() == 0
    page.fill("#custom-json", json.dumps({**example, "y": [2000.0] * len(example["y"]), "max_norm": 0.01, "z": 1}))
    page.click("#run-custom")
    page.wait_for_selector("#custom-error:not(:empty)")
    assert page.inner_text("#custom-error").splitlines() == [
        "input 'y': has a value 2000 above the maximum 1000",
        "input 'max_norm': has a value 0.01 below the minimum 0.1",
        "input 'z': is not an input of this problem"]
    assert panel.locator(".earlier").inner_text() == \
        "An earlier result: the input above was refused, so nothing ran on it."
    page.fill("#custom-json", "{not json")
    page.click("#run-custom")
    assert page.inner_text("#custom-error").startswith("Not valid JSON") and panel.locator(".earlier").count() == 1
    ctx.close()


def test_the_draft_survives_a_reload(site, browser, ann_state):
    ctx = browser.new_context(storage_state=ann_state)
    page = ctx.new_page()
    open_problem(page, site.base)
    paste(page, "# my draft\nimport jax\n")
    page.reload()
    page.wait_for_selector(".CodeMirror")
    assert page.evaluate("window.jaxjudgeEditor.getValue()") == "# my draft\nimport jax\n"
    assert page.is_disabled("#submit")
    ctx.close()


def _posted_run(r) -> bool:
    return r.request.method == "POST" and r.url.endswith("/api/v1/submissions")


def test_the_keyboard_leaves_the_editor_with_escape_and_reaches_every_button(site, browser, ann_state):
    ctx = browser.new_context(storage_state=ann_state)
    page = ctx.new_page()
    open_problem(page, site.base)
    page.click(".CodeMirror-code")
    page.keyboard.press("Tab")  # inside the editor Tab indents...
    assert page.evaluate("window.jaxjudgeEditor.getValue()").count("    ") >= 1
    page.keyboard.press("Escape")  # ...and Escape leaves it
    assert page.evaluate("document.activeElement.id") == "run"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "reset"  # Submit is skipped while disabled
    with page.expect_response(_posted_run):
        page.keyboard.press("Control+Enter")
    page.wait_for_selector("#submit:enabled")  # this code has been Run
    page.click(".CodeMirror-code")
    page.keyboard.press("Escape")
    reached = []
    for _ in range(2):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id"))
    assert reached == ["submit", "reset"]
    ctx.close()


def test_ctrl_or_cmd_enter_runs_from_anywhere_on_the_page(site, browser, ann_state):
    ctx = browser.new_context(storage_state=ann_state)
    page = ctx.new_page()
    open_problem(page, site.base)
    for where, keys in (("#title", "Control+Enter"), ("#hist", "Meta+Enter"), (".limits", "Control+Enter")):
        page.click(where)  # the statement, the history, the limits: outside the editor
        assert not page.evaluate("document.activeElement.closest('.CodeMirror')"), where
        with page.expect_response(_posted_run) as got:
            page.keyboard.press(keys)
        assert got.value.request.post_data_json["kind"] == "run" and got.value.status == 202, where
        page.wait_for_selector(f'#result .panel[data-sub="{got.value.json()["id"]}"]')
        page.wait_for_selector("#run:enabled")
    ctx.close()


def test_reset_brings_back_the_starter_once_confirmed(site, browser, ann_state):
    ctx = browser.new_context(storage_state=ann_state)
    page = ctx.new_page()
    open_problem(page, site.base)
    starter = page.input_value("#starter")
    assert "def per_example_grad_clip(params, x, y, max_norm):" in starter
    paste(page, "# mine\n")
    page.once("dialog", lambda d: d.dismiss())
    page.click("#reset")
    assert page.evaluate("window.jaxjudgeEditor.getValue()") == "# mine\n"  # not confirmed: kept
    page.once("dialog", lambda d: (d.message == "Replace your code with the starter?") and d.accept())
    page.click("#reset")
    assert page.evaluate("window.jaxjudgeEditor.getValue()") == starter
    page.reload()
    page.wait_for_selector(".CodeMirror")
    assert page.evaluate("window.jaxjudgeEditor.getValue()") == starter  # and it is the draft now
    ctx.close()


def test_drafts_are_kept_per_account_and_per_problem(site, browser, ann_state):
    ctx = browser.new_context(storage_state=ann_state)  # one browser profile for both accounts
    page = ctx.new_page()
    open_problem(page, site.base)
    paste(page, "# ann's draft\n")
    page.goto(f"{site.base}/problems/{P2}")
    page.wait_for_selector(".CodeMirror")
    assert page.evaluate("window.jaxjudgeEditor.getValue()") == page.input_value("#starter")  # P2's own
    ctx.clear_cookies()  # not a log out: that would end the session the other tests share
    log_in(page, site.base, "teacher@example.org", f"/problems/{P1}")
    page.wait_for_selector(".CodeMirror")
    assert page.evaluate("window.jaxjudgeEditor.getValue()") == page.input_value("#starter")  # not ann's draft
    assert page.evaluate(f"localStorage.getItem('jaxjudge:draft:ann@example.org:{P1}')") == "# ann's draft\n"
    ctx.close()


@pytest.mark.parametrize("path", ["/problems", f"/problems/{P1}", "/submissions", "submission"])
def test_pages_fit_a_phone_sized_screen(site, browser, ann_state, path):
    assert MADE.get("wa"), "needs the wrong answer test"
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, storage_state=ann_state, is_mobile=True,
                              has_touch=True)
    page = ctx.new_page()
    page.goto(site.base + (f"/submissions/{MADE['wa']}" if path == "submission" else path))
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    if path == f"/problems/{P1}":
        box = page.locator(".CodeMirror").bounding_box()
        assert box["width"] <= 390 and box["height"] >= 200
        assert page.evaluate("document.getElementById('solution').getBoundingClientRect().top") > 844
        page.click(".to-editor a")  # one column: the editor is below the statement, and a link jumps there
        page.wait_for_url("**#solution")
        assert -1 <= page.evaluate("document.getElementById('solution').getBoundingClientRect().top") < 844
        page.locator("#run").scroll_into_view_if_needed()
        assert page.locator("#run").is_visible()
    ctx.close()


def test_the_jump_to_the_editor_is_only_offered_in_one_column(site, browser, ann_state):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, storage_state=ann_state)
    page = ctx.new_page()
    open_problem(page, site.base)
    assert page.is_hidden(".to-editor a") and page.is_visible("#solution")  # side by side: nothing to jump to
    page.set_viewport_size({"width": 899, "height": 900})
    page.wait_for_selector(".to-editor a", state="visible")
    ctx.close()


def test_every_verdict_on_the_learners_pages_has_a_word_and_a_colour(site, browser, ann_state):
    assert MADE.get("wa"), "needs the wrong answer test"
    ctx = browser.new_context(storage_state=ann_state)
    page = ctx.new_page()
    colours: dict[str, set[str]] = {}
    for path, badges in (("/submissions", "table.submissions .verdict"), (f"/problems/{P1}", "#history .verdict"),
                         (f"/submissions/{MADE['wa']}", "main .verdict")):
        page.goto(site.base + path)
        page.wait_for_selector(badges)
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")  # the case table too
        found = page.locator(badges)
        for i in range(found.count()):
            b = found.nth(i)
            word = b.inner_text().strip()
            colour = b.evaluate("e => getComputedStyle(e).backgroundColor")
            assert word and colour not in ("rgba(0, 0, 0, 0)", "transparent"), (path, word, colour)
            colours.setdefault(word, set()).add(colour)
    assert {"AC", "WA"} <= set(colours) and colours["AC"] != colours["WA"]
    assert all(len(c) == 1 for c in colours.values()), colours  # one colour per verdict, page after page
    ctx.close()


def test_submission_strings_show_as_text_and_never_run(site, browser, ann_state):
    ctx = browser.new_context(storage_state=ann_state)
    page = ctx.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    page.route("**/events", lambda route: route.abort())  # the event stream breaks: the page must poll
    open_problem(page, site.base)
    paste(page, HOSTILE)
    page.click("#run")
    panel = result_of(page, "run")
    assert panel.locator(".verdict.big").inner_text() == "RE"
    assert "<img src=x onerror=alert(1)><script>alert(2)</script>" in panel.inner_text()
    assert panel.locator("img").count() == 0 and panel.locator("script").count() == 0 and not dialogs
    assert any("/events" in u for u in seen) and sum("/panel" in u for u in seen) >= 2
    ctx.close()


def test_an_instructor_sees_both_verdicts_in_the_gradebook_and_downloads_the_csv(site, browser):
    assert MADE.get("ac") and MADE.get("wa"), "needs the learner's tests"
    ctx = browser.new_context(accept_downloads=True)
    page = ctx.new_page()
    log_in(page, site.base, "teacher@example.org", "/gradebook")
    cell = page.locator(f'tr[data-learner="ann@example.org"] td[data-problem="{P1}"]')
    assert " ".join(cell.locator("a.best").inner_text().split()) == "best AC 41/41"
    assert cell.locator("a.last").inner_text().split()[:2] == ["last", "WA"]
    with page.expect_download() as got:
        page.click("text=Download CSV")
    rows = list(csv.reader(io.StringIO(got.value.path().read_text())))
    header, ann = rows[0], next(r for r in rows if r[0] == "ann@example.org")
    assert header[0] == "learner" and ann[header.index(P1)] == "AC 41/41" and len(rows) == 2
    ctx.close()


def test_an_instructor_reads_hidden_cases_in_full_and_confirms_a_rejudge_by_its_count(site, browser):
    ctx = browser.new_context()
    page = ctx.new_page()
    log_in(page, site.base, "teacher@example.org", f"/submissions/{MADE['wa']}")
    assert page.locator('details[data-detail^="gen_"]').count() == 36  # the generated hidden cases, in full
    page.goto(f"{site.base}/submissions?problem={P1}")
    assert page.locator("table.submissions tbody tr").count() >= 4
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.click('button[data-all="true"]')
    assert "This regrades 2 submissions of per_example_grad_clipping" in page.inner_text("#rejudge-question")
    page.click("#rejudge-confirm button[value=cancel]")
    assert not page.locator("#rejudge-confirm").is_visible() and not posts  # cancelled: nothing sent
    page.click('button[data-all="true"]')
    with page.expect_response(lambda r: r.request.method == "POST" and "/rejudge?all=true" in r.url) as got:
        page.click("#rejudge-confirm button[value=ok]")
    assert got.value.json()["requeued"] == 2  # as many as the question said
    page.wait_for_selector("#rejudge-result:has-text('Requeued 2 submissions.')")
    page.goto(site.base + "/queue")
    assert "1 alive" in page.inner_text("dd.workers")
    ctx.close()


def _guarded(ctx, base: str) -> list[str]:
    """Requests to anywhere but ``base`` are recorded and refused (nothing leaves this machine)."""
    off_site: list[str] = []

    def guard(route):
        if route.request.url.startswith(base + "/"):
            route.continue_()
        else:
            off_site.append(route.request.url)
            route.abort()

    ctx.route("**/*", guard)
    return off_site


def _log_in_without_a_password(ctx) -> None:
    # The login's answer is faked: only where the page goes next is under test, and real
    # logins would spend the per-address login bucket the other tests need.
    ctx.route("**/api/v1/auth/login", lambda route: route.fulfill(
        status=200, json={"email": "ann@example.org", "role": "learner", "csrf_token": "x"}))


@pytest.mark.parametrize("hidden", ["\t", "\n", "\r", " "], ids=["tab", "lf", "cr", "space"])
def test_after_logging_in_the_page_never_leaves_the_site_whatever_next_hides(site, browser, hidden):
    ctx = browser.new_context()
    off_site = _guarded(ctx, site.base)
    _log_in_without_a_password(ctx)
    page = ctx.new_page()
    other = f"localhost:{site.port}"  # another origin (a host name, not 127.0.0.1), and still this machine
    page.goto(f"{site.base}/login?next=" + quote(f"/{hidden}/{other}/problems", safe=""))
    assert page.get_attribute("#login", "data-next") == "/problems"
    page.click("#login button[type=submit]")
    page.wait_for_url(f"{site.base}/login?next=%2Fproblems", timeout=15_000)  # /problems, then its login
    assert not off_site
    ctx.close()


@pytest.mark.parametrize("planted", ["/&#9;/{other}/problems", "//{other}/", "https://{other}/", "/&#10;/{other}/",
                                     "javascript:alert(1)"])
def test_the_login_script_checks_the_origin_of_next_itself(site, browser, planted):
    ctx = browser.new_context()
    off_site = _guarded(ctx, site.base)
    _log_in_without_a_password(ctx)
    target = planted.format(other=f"localhost:{site.port}")

    def plant(route):  # as if the server had let an unsafe next through
        response = route.fetch()
        route.fulfill(response=response, body=response.text().replace('data-next="/problems"',
                                                                      f'data-next="{target}"'))

    ctx.route(f"{site.base}/login", plant)  # the page only, not the API's /auth/login
    page = ctx.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{site.base}/login")
    assert page.get_attribute("#login", "data-next") != "/problems"
    page.click("#login button[type=submit]")
    page.wait_for_url(f"{site.base}/login?next=%2Fproblems", timeout=15_000)
    assert not off_site and not dialogs
    ctx.close()


def test_the_api_docs_render_from_this_sites_files_under_their_policy(site, browser):
    ctx = browser.new_context()
    off_site = _guarded(ctx, site.base)
    page = ctx.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(site.base + "/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "JAX Judge" in page.inner_text(".swagger-ui .info .title")
    page.click("#operations-submissions-create_api_v1_submissions_post .opblock-summary")
    page.wait_for_selector("#operations-submissions-create_api_v1_submissions_post .opblock-body")
    assert page.locator(".opblock").count() >= 15
    assert not off_site and not problems, (off_site, problems)  # a policy violation would be a console error
    ctx.close()
