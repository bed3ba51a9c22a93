"""The web pages over HTTP against a live `grader serve` (one warm sandbox, a SQLite
file, a private copy of per_example_grad_clipping): who may load what, the forms'
CSRF tokens, no hidden data in anything a learner can load, escaping, the gradebook,
the learner filter, the queue while a grade runs and the rejudge count. The
browser-driven flows are in test_web_browser.py; rendering without a server is in
test_web_render.py."""
from __future__ import annotations

import csv
import io
import json
import re
import time

import pytest
from service_support import P1, Server, corpus, hidden_needles, httpx, make_user, problem_copy, sqlite_url

from support import PROBLEMS

PASSWORD = "correct horse"
HOSTILE = (  # passes the requirement checks, then prints and raises markup on every case
    "import jax\n\n\ndef loss(params, x, y):\n    return 0.5 * (x @ params['w'] + params['b'] - y) ** 2\n\n\n"
    "def per_example_grad_clip(params, x, y, max_norm):\n"
    "    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)\n"
    "    print('<b>printed</b>')\n"
    "    raise ValueError('<img src=x onerror=alert(1)> \\u202e <script>alert(2)</script>')\n")


def login(server: Server, email: str) -> tuple[httpx.Client, str]:
    c = httpx.Client(base_url=server.base, timeout=60)
    r = c.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return c, r.json()["csrf_token"]


def send(c: httpx.Client, csrf: str, source: str, kind: str, problem: str = P1) -> str:
    r = c.post("/api/v1/submissions", json={"problem": problem, "source": source, "kind": kind},
               headers={"X-CSRF-Token": csrf})
    assert r.status_code == 202, r.text
    return r.json()["id"]


def graded(c: httpx.Client, sid: str, timeout: float = 300) -> dict:
    deadline = time.time() + timeout
    while time.time() < deadline:
        body = c.get(f"/api/v1/submissions/{sid}").json()
        if body["status"] == "done":
            return body
        time.sleep(0.1)
    raise AssertionError(f"{sid} was not graded in {timeout} s")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("web")
    problems = problem_copy(root / "problems", broken=True)
    url = sqlite_url(root)
    for name in ("ann", "bob", "teacher"):
        make_user(url, f"{name}@example.org", instructor=name == "teacher", password=PASSWORD)
    server = Server(url, "--no-feedback", "--run-limit", "100/min", "--submit-limit", "100/h", "--max-pending", "10",
                    workers=1, problems=problems).start()
    clients = {n: login(server, f"{n}@example.org") for n in ("ann", "bob", "teacher")}
    ann, csrf = clients["ann"]
    ids = {"attack": send(ann, csrf, corpus("wrong_answer/attack_return_hidden_inputs.py"), "submit"),
           "hostile": send(ann, csrf, HOSTILE, "run"),
           "broken": send(ann, csrf, corpus("accepted/flat_norm.py"), "run", problem="broken_problem")}
    for sid in ids.values():
        graded(ann, sid)
    yield server, clients, ids, problems
    for c, _ in clients.values():
        c.close()
    server.stop()


# ------------------------------------------------------------------ who may load what

PAGES = ["/problems", f"/problems/{P1}", f"/problems/{P1}/history", "/submissions", "/submissions/x",
         "/submissions/x/panel", "/gradebook", "/gradebook.csv", "/queue", "/queue/panel"]


def test_a_visitor_without_a_session_is_sent_to_the_login_page(site):
    server, *_ = site
    with httpx.Client(base_url=server.base, timeout=30) as c:
        for path in PAGES:
            r = c.get(path)
            assert r.status_code == 303 and r.headers["location"].startswith("/login?next=%2F"), path
            r = c.get(path, headers={"HX-Request": "true"})  # a fragment: htmx is told where to go
            assert r.status_code == 401 and r.headers["hx-redirect"].startswith("/login?next="), path
        assert c.get("/").headers["location"] == "/login"
        assert c.get("/login").status_code == 200


def test_login_goes_back_only_to_a_page_of_this_site(site):
    server, *_ = site
    with httpx.Client(base_url=server.base, timeout=30) as c:
        for target, kept in (("/problems/x?a=1", "/problems/x?a=1"), ("//evil.example/", "/problems"),
                             ("https://evil.example/", "/problems"), ("/\\evil.example", "/problems"),
                             ("/\t/evil.example", "/problems"), ("/\n/evil.example", "/problems"),
                             ("/ /evil.example", "/problems"), ("\x01//evil.example", "/problems"),
                             ("/\x0c/evil.example", "/problems"), ("/\u00a0/evil.example", "/problems")):
            page = c.get("/login", params={"next": target}).text
            assert f'data-next="{kept.replace("&", "&amp;")}"' in page, target
            assert "evil.example" not in page, target


def test_a_cross_site_form_cannot_log_in(site):
    # A form on another site can send only form encodings or text/plain, never JSON
    # without a preflight the API does not answer: the login refuses them, sets no cookie.
    server, *_ = site
    with httpx.Client(base_url=server.base, timeout=30) as c:
        for ctype, body in (("application/x-www-form-urlencoded", f"email=ann%40example.org&password={PASSWORD}"),
                            ("text/plain", json.dumps({"email": "ann@example.org", "password": PASSWORD}))):
            r = c.post("/api/v1/auth/login", content=body, headers={"Content-Type": ctype})
            assert r.status_code == 422 and "set-cookie" not in r.headers, ctype


def test_instructor_pages_are_403_for_learners(site):
    _, clients, _, _ = site
    ann, _ = clients["ann"]
    for path in ("/gradebook", "/gradebook.csv", "/queue", "/queue/panel"):
        assert ann.get(path).status_code == 403, path
        assert clients["teacher"][0].get(path).status_code == 200, path


def test_someone_elses_submission_is_404_on_every_page_and_fragment(site):
    _, clients, ids, _ = site
    bob, teacher = clients["bob"][0], clients["teacher"][0]
    sid = ids["attack"]
    for path in (f"/submissions/{sid}", f"/submissions/{sid}/panel", f"/submissions/{sid}?view=full",
                 "/submissions/made-up-id", "/submissions/made-up-id/panel"):
        r = bob.get(path)
        assert r.status_code == 404 and "No such submission." in r.text, path
    assert sid not in bob.get("/submissions", params={"learner": "ann@example.org"}).text
    assert sid not in bob.get(f"/problems/{P1}/history").text
    assert teacher.get(f"/submissions/{sid}").status_code == 200
    assert sid in clients["ann"][0].get(f"/problems/{P1}/history").text


# ------------------------------------------------------------------ what the pages show

def test_problem_list_shows_title_difficulty_tags_and_own_status(site):
    _, clients, _, _ = site
    page = clients["ann"][0].get("/problems").text
    row = re.search(rf'<tr data-problem="{P1}">(.*?)</tr>', page, re.S).group(1)
    assert "Per-Example Gradient Clipping" in row and ">medium<" in row and '<span class="tag">vmap</span>' in row
    assert "● Tried" in row  # ann sent a wrong Submit
    assert "○ New" in re.search(r'<tr data-problem="value_and_grad_loss">(.*?)</tr>', page, re.S).group(1)
    assert "○ New" in re.search(rf'<tr data-problem="{P1}">(.*?)</tr>', clients["bob"][0].get("/problems").text,
                                re.S).group(1)
    assert 'data-problem="broken_problem"' not in page  # a problem that cannot be loaded is not offered


def test_problem_page_shows_statement_signature_accepts_limits_requirements_and_starter(site):
    _, clients, _, _ = site
    page = clients["bob"][0].get(f"/problems/{P1}").text
    assert re.findall(r'Accepts: <strong class="accepts-kind">(\w+)</strong>', page) == [
        "object", "array", "array", "number"]
    assert "def per_example_grad_clip(params, x, y, max_norm)" in page
    assert "<h2>The model</h2>" in page and r'<div class="math display">\mathrm{loss}_n(w, b)' in page
    assert "<strong>Example 1</strong>" in page and "**Example" not in page
    assert "time per case</dt><dd>10 s" in page and "38 hidden ones" in page
    assert "jax.vmap must be applied to a function that calls jax.grad." in page
    starter = re.search(r'<textarea id="source"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    assert "def per_example_grad_clip(params, x, y, max_norm):" in starter and "import jax.numpy as jnp" in starter
    assert clients["bob"][0].get("/problems/no_such_problem").status_code == 404
    assert clients["bob"][0].get("/problems/broken_problem").status_code == 500


def test_problem_page_shows_each_arguments_dtype_shape_and_range_and_each_outputs_tolerances(site):
    _, clients, _, _ = site
    page = clients["bob"][0].get(f"/problems/{P1}").text
    accepts = dict(re.findall(r'<dt><code>(\w+)</code></dt>\s*<dd>Accepts:.*?— (.*?)</span>', page, re.S))
    assert accepts == {
        "params": "a dict with w: float32 array of shape (D,), values in [-1000, 1000]; b: float32 array of shape (), "
                  "values in [-1000, 1000]",
        "x": "float32 array of shape (N, D), values in [-1000, 1000]",
        "y": "float32 array of shape (N,), values in [-1000, 1000]", "max_norm": "Python float, values in [0.1, 100]"}
    assert "Sizes: N from 1 to 8, D from 1 to 4." in page
    returns = re.findall(r"<li><code>(.*?)</code></li>", page.split("Returns:")[1].split("</ul>")[0])
    assert returns == [f"{leaf}: float32 of shape {shape} (atol 1e-05, rtol 0.0001)"
                       for leaf, shape in (("grads.w", "(D,)"), ("grads.b", "()"), ("norms", "(N,)"))]


def test_pages_forbid_inline_scripts_and_carry_no_inline_handlers(site):
    server, clients, ids, _ = site
    ann, teacher, anyone = clients["ann"][0], clients["teacher"][0], httpx.Client(base_url=server.base)
    for c, path in ((ann, "/problems"), (ann, f"/problems/{P1}"), (ann, f"/submissions/{ids['hostile']}"),
                    (anyone, "/login"), (teacher, "/gradebook"), (teacher, f"/submissions?problem={P1}"),
                    (teacher, "/queue")):
        r = c.get(path)
        assert r.status_code == 200, path
        policy = dict(d.strip().split(" ", 1) for d in r.headers["content-security-policy"].split(";"))
        assert policy["script-src"] == "'self'" and policy["default-src"] == "'self'", path
        assert (policy["object-src"], policy["base-uri"], policy["form-action"], policy["frame-ancestors"]) == (
            "'none'", "'none'", "'self'", "'none'"), path
        assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["cache-control"] == "no-store" and r.headers["referrer-policy"] == "same-origin"
        assert not re.search(r"<script(?![^>]*\bsrc=)", r.text), path
        assert not re.search(r"<[^>]*\son[a-z]+\s*=", r.text) and "hx-on" not in r.text, path
        assert '"allowEval": false' in r.text, path
    anyone.close()


def test_forms_carry_the_sessions_csrf_token_and_writes_without_it_are_refused(site):
    _, clients, _, _ = site
    bob, csrf = clients["bob"]
    page = bob.get(f"/problems/{P1}").text
    tokens = re.findall(r'name="csrf_token" value="([^"]*)"', page)
    assert len(tokens) == 2 and set(tokens) == {csrf}  # the solution form and the log-out form
    teacher, tcsrf = clients["teacher"]
    assert set(re.findall(r'name="csrf_token" value="([^"]*)"', teacher.get(f"/submissions?problem={P1}").text)) \
        == {tcsrf}
    body = {"problem": P1, "source": "x = 1\n", "kind": "run"}
    for headers in ({}, {"X-CSRF-Token": "forged"}, {"X-CSRF-Token": tcsrf}):
        assert bob.post("/api/v1/submissions", json=body, headers=headers).status_code == 403
    assert teacher.post(f"/api/v1/problems/{P1}/rejudge", headers={"X-CSRF-Token": "forged"}).status_code == 403
    assert bob.post("/api/v1/auth/logout").status_code == 403
    # A CSRF cookie that is not the session's (planted by another site, say) is not echoed into forms.
    with httpx.Client(base_url=bob.base_url, cookies={**dict(bob.cookies), "jaxjudge_csrf": "planted"}) as c:
        assert set(re.findall(r'name="csrf_token" value="([^"]*)"', c.get(f"/problems/{P1}").text)) == {""}


def test_submission_strings_are_escaped_with_control_characters_shown(site):
    _, clients, ids, _ = site
    ann = clients["ann"][0]
    for path in (f"/submissions/{ids['hostile']}", f"/submissions/{ids['hostile']}/panel"):
        page = ann.get(path).text
        assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;script&gt;alert(2)" in page
        assert "&lt;b&gt;printed&lt;/b&gt;" in page and ">RE</span>" in page
        assert "<img src=x" not in page and "<script>alert" not in page and "<b>printed" not in page
        assert "\u202e" not in page and "\\u202e" in page


@pytest.fixture(scope="module")
def needles():
    """Spellings of every hidden number that is not also public (see service_support)."""
    return hidden_needles(PROBLEMS / P1)


def test_no_hidden_number_reaches_a_learner_through_any_page_or_fragment(site, needles):
    _, clients, ids, _ = site
    ann = clients["ann"][0]
    assert len(needles) > 200
    paths = ["/problems", f"/problems/{P1}", f"/problems/{P1}/history", "/submissions",
             f"/submissions?problem={P1}"]
    for sid in ids.values():
        paths += [f"/submissions/{sid}", f"/submissions/{sid}/panel", f"/submissions/{sid}?view=full",
                  f"/submissions/{sid}/panel?view=full"]
    for path in paths:
        r = ann.get(path)
        assert r.status_code == 200, path
        leaked = [n for n in needles if n in r.text]
        assert not leaked, f"{path} leaks hidden data: {leaked[:5]}"


@pytest.mark.slow
def test_the_same_search_finds_hidden_numbers_on_the_instructors_report_page(site, needles):
    _, clients, ids, _ = site
    teacher = clients["teacher"][0]
    sid = ids["attack"]
    assert any(n in teacher.get(f"/submissions/{sid}").text for n in needles)
    assert any(n in teacher.get(f"/submissions/{sid}/panel").text for n in needles)
    assert not any(n in teacher.get(f"/submissions/{sid}?view=learner").text for n in needles)


# ------------------------------------------------------------------ instructors

def test_gradebook_page_and_csv_show_each_learners_best_and_last_submit(site):
    _, clients, ids, _ = site
    teacher = clients["teacher"][0]
    page = teacher.get("/gradebook").text
    row = re.search(r'<tr data-learner="ann@example.org">(.*?)</tr>', page, re.S).group(1)
    cell = re.search(rf'<td data-problem="{P1}">(.*?)</td>', row, re.S).group(1)
    assert f'href="/submissions/{ids["attack"]}" class="best">best' in cell and ">WA</span>" in cell
    assert 'data-learner="bob@example.org"' not in page  # bob never submitted
    r = teacher.get("/gradebook.csv")
    assert r.headers["content-type"].startswith("text/csv") and "attachment" in r.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows[0][0] == "learner" and P1 in rows[0] and "value_and_grad_loss" in rows[0]
    assert [row[0] for row in rows[1:]] == ["ann@example.org"]
    assert re.fullmatch(r"WA \d+/41", rows[1][rows[0].index(P1)])


def test_queue_page_shows_depth_oldest_age_workers_and_recent_failures(site):
    _, clients, ids, _ = site
    page = clients["teacher"][0].get("/queue").text
    assert re.search(r'<dd class="depth">0 \(Run 0, Submit 0\)</dd>', page)
    assert "oldest waiting" in page and '<dd class="workers">1 alive' in page
    failures = re.search(r'<table class="list failures">(.*?)</table>', page, re.S).group(1)
    assert ids["broken"] in failures and "broken_problem run" in failures and ">IE</span>" in failures
    assert 'hx-get="/queue/panel" hx-trigger="every 5s"' in page
    assert re.search(r'<dd class="warming">off \(<code>--no-warm</code>\)', page)  # this server does not warm
    assert '<dd class="suite">the shipped hidden cases</dd>' in page  # served without --suite


def test_an_instructor_filters_the_submissions_by_learner(site):
    _, clients, ids, _ = site
    teacher = clients["teacher"][0]

    def listed(**params) -> set[str]:
        return set(re.findall(r'<tr data-sub="([^"]+)">', teacher.get("/submissions", params=params).text))

    everyone = listed()
    assert set(ids.values()) <= everyone
    assert listed(learner="ANN@example.org ") == set(ids.values())  # only hers (ann sent only these)
    assert listed(learner="bob@example.org").isdisjoint(ids.values())
    assert listed(learner="ann@example.org", problem=P1) == {ids["attack"], ids["hostile"]}
    assert listed(learner="nobody@example.org") == set()
    assert f'href="/submissions?learner=ann%40example.org&amp;problem={P1}"' in teacher.get(
        "/submissions", params={"problem": P1}).text  # each row's learner links to their filter


@pytest.mark.slow
def test_queue_page_and_api_show_what_is_being_graded_and_what_waits(site):
    _, clients, _, _ = site
    bob, csrf = clients["bob"]
    teacher = clients["teacher"][0]
    slow = send(bob, csrf, corpus("time_limit_exceeded/attack_module_level_loop.py"), "run")  # about 10 s
    deadline = time.time() + 120
    while bob.get(f"/api/v1/submissions/{slow}").json()["status"] != "running" and time.time() < deadline:
        time.sleep(0.1)
    waiting = send(bob, csrf, "x = 1\n", "run")
    try:
        q = teacher.get("/api/v1/queue").json()
        assert (q["depth"], q["running"], q["queued_by_kind"], q["workers"]) == (
            1, 1, {"run": 1, "submit": 0, "custom": 0}, {"alive": 1, "busy": 1, "grading": 1, "own_work": 0})
        assert q["oldest_age_seconds"] >= 0
        page = teacher.get("/queue/panel").text
        graded_now = page.split("<h2>Being graded</h2>")[1].split("<h2>")[0]
        assert f'<a href="/submissions/{slow}">Per-Example Gradient Clipping run</a> by bob@example.org' in graded_now
        assert waiting not in graded_now and "(attempt 1)" in graded_now
        assert re.search(r'<dd class="depth">1 \(Run 1, Submit 0\)</dd>', page) and "1 alive, 1 busy" in page
    finally:
        graded(bob, slow)
        graded(bob, waiting)


def test_rejudge_confirmation_counts_what_the_api_then_requeues(site):
    _, clients, _, problems = site
    teacher, csrf = clients["teacher"]
    before = teacher.get(f"/submissions?problem={P1}").text
    assert re.findall(r'data-all="(\w+)" data-count="(\d+)"', before) == [("false", "0"), ("true", "1")]
    assert '(hidden cases: <span class="suite">the shipped ones</span>)' in before  # served without --suite
    statement = problems / P1 / "statement.md"
    statement.write_text(statement.read_text() + "\n")  # a new version of the problem
    page = teacher.get(f"/submissions?problem={P1}").text
    counts = dict(re.findall(r'data-all="(\w+)" data-count="(\d+)"', page))
    assert counts == {"false": "1", "true": "1"}
    r = teacher.post(f"/api/v1/problems/{P1}/rejudge", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200 and r.json()["requeued"] == int(counts["false"]) and r.json()["suite"] is None
