"""The editorial over HTTP against a live `grader serve` (one warm sandbox, a SQLite
file, private copies of three problems): the JSON API and the page stay locked until
the learner's own Submit is accepted, open to instructors, 404 where there is nothing
to show, and the problem page links the editorial only once it is open."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from service_support import P1, Server, corpus, httpx, make_user, post, problem_copy, sqlite_url, wait_done

from support import PROBLEMS

DP = "dp_sgd_mlp_step"  # an editorial, no reference shown
PLAIN = "value_and_grad_loss"  # no editorial at all
PASSWORD = "correct horse"
NAMES = ("ann", "bob", "teacher")
LOCKED = "solve it first: the editorial opens after an accepted Submit"


def login(server: Server, name: str) -> httpx.Client:
    c = httpx.Client(base_url=server.base, timeout=60)
    r = c.post("/api/v1/auth/login", json={"email": f"{name}@example.org", "password": PASSWORD})
    assert r.status_code == 200, r.text
    return c


def link(c: httpx.Client, pid: str) -> str | None:
    """The editorial link's markup on the problem page, None when there is none."""
    r = c.get(f"/problems/{pid}")
    assert r.status_code == 200, r.text[-2000:]
    found = re.search(r'<p id="editorial-link"[^>]*>(.*?)</p>', r.text, re.S)
    return found.group(1) if found else None


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("editorial")
    problems = problem_copy(root / "problems", pids=(P1, DP, PLAIN))
    url = sqlite_url(root)
    tokens = {n: make_user(url, f"{n}@example.org", instructor=n == "teacher", password=PASSWORD) for n in NAMES}
    server = Server(url, "--no-feedback", "--run-limit", "100/min", "--submit-limit", "100/h", workers=1,
                    problems=problems).start()
    api = {n: server.client(tokens[n]) for n in NAMES}
    pages = {n: login(server, n) for n in NAMES}
    before = {"api": api["ann"].get(f"/problems/{P1}/editorial"), "page": pages["ann"].get(f"/problems/{P1}/editorial"),
              "link": link(pages["ann"], P1)}
    accepted = corpus("accepted/flat_norm.py")
    graded = {}
    # ann's accepted Submit; bob's accepted Run (public cases only) and a wrong Submit.
    for name, source, kind in (("ann", accepted, "submit"), ("bob", accepted, "run"),
                               ("bob", corpus("wrong_answer/sum_not_mean.py"), "submit")):
        r = post(api[name], source, kind=kind)
        assert r.status_code == 202, r.text
        graded[(name, kind)] = wait_done(api[name], r.json()["id"], timeout=300)["verdict"]
    yield SimpleNamespace(server=server, api=api, pages=pages, before=before, graded=graded, problems=problems)
    for c in (*api.values(), *pages.values()):
        c.close()
    server.stop()


def test_the_api_is_403_saying_how_to_unlock_before_an_accepted_submit(site):
    r = site.before["api"]
    assert r.status_code == 403 and r.json() == {"detail": LOCKED}


def test_the_api_gives_the_editorial_and_the_reference_after_an_accepted_submit(site):
    assert site.graded[("ann", "submit")] == "AC"
    r = site.api["ann"].get(f"/problems/{P1}/editorial")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"problem", "title", "markdown", "html", "reference"}
    assert body["problem"] == P1 and body["title"] == "Per-Example Gradient Clipping"
    assert body["markdown"] == (PROBLEMS / P1 / "editorial.md").read_text(encoding="utf-8")
    assert "<h2" in body["html"] and "<h1" not in body["html"]  # the title line is the page's own heading
    assert body["reference"] == (PROBLEMS / P1 / "reference.py").read_text(encoding="utf-8")


def test_an_accepted_run_or_a_wrong_submit_leaves_it_locked(site):
    assert site.graded[("bob", "run")] == "AC" and site.graded[("bob", "submit")] == "WA"
    r = site.api["bob"].get(f"/problems/{P1}/editorial")
    assert r.status_code == 403 and r.json() == {"detail": LOCKED}
    page = site.pages["bob"].get(f"/problems/{P1}/editorial")
    assert page.status_code == 403 and 'id="editorial-locked"' in page.text


def test_instructors_may_read_every_editorial_and_see_the_reference_only_where_allowed(site):
    teacher = site.api["teacher"]
    r = teacher.get(f"/problems/{P1}/editorial")
    assert r.status_code == 200 and r.json()["reference"]
    r = teacher.get(f"/problems/{DP}/editorial")
    assert r.status_code == 200 and r.json()["markdown"].startswith("# One DP-SGD Step")
    assert r.json()["reference"] is None  # its author does not show it
    page = site.pages["teacher"].get(f"/problems/{DP}/editorial")
    assert page.status_code == 200 and 'id="editorial-body"' in page.text
    assert 'id="editorial-reference"' not in page.text and "def dp_sgd_step" not in page.text


def test_nothing_to_show_or_no_such_problem_is_404(site):
    for name in ("ann", "teacher"):
        r = site.api[name].get(f"/problems/{PLAIN}/editorial")
        assert r.status_code == 404 and "has no editorial" in r.json()["detail"], name
        assert site.api[name].get("/problems/no_such_problem/editorial").status_code == 404
        page = site.pages[name].get(f"/problems/{PLAIN}/editorial")
        assert page.status_code == 404 and "This problem has no editorial." in page.text
        assert site.pages[name].get("/problems/no_such_problem/editorial").status_code == 404
    assert site.api["ann"].get("/problems/" + "a" * 65 + "/editorial").status_code == 422


def test_without_credentials_the_api_is_401_and_the_page_sends_to_the_login(site):
    with httpx.Client(base_url=site.server.base, timeout=30) as c:
        assert c.get(f"/api/v1/problems/{P1}/editorial").status_code == 401
        r = c.get(f"/problems/{P1}/editorial")
        assert r.status_code == 303 and r.headers["location"].startswith("/login?next=%2Fproblems%2F")


def test_the_page_is_locked_before_and_open_after_an_accepted_submit(site):
    before = site.before["page"]
    assert before.status_code == 403 and 'id="editorial-locked"' in before.text
    assert "Solve it first: the editorial opens after an accepted Submit." in before.text
    assert 'id="editorial-body"' not in before.text and "def per_example_grad_clip" not in before.text
    after = site.pages["ann"].get(f"/problems/{P1}/editorial")
    assert after.status_code == 200 and 'id="editorial-locked"' not in after.text
    assert '<h1 id="title">Per-Example Gradient Clipping: editorial</h1>' in after.text
    assert 'id="editorial-body"' in after.text and "The key JAX calls</h2>" in after.text
    assert 'id="editorial-reference"' in after.text
    assert "def per_example_grad_clip(params, x, y, max_norm):" in after.text
    assert "content-security-policy" in after.headers


def test_the_problem_page_links_the_editorial_only_once_it_is_open(site):
    assert site.before["link"] is None
    mine = link(site.pages["ann"], P1)
    assert mine is not None and f'href="/problems/{P1}/editorial"' in mine and "✓ Solved" in mine
    assert link(site.pages["bob"], P1) is None
    theirs = link(site.pages["teacher"], P1)  # instructors: open, though not solved
    assert theirs is not None and "Solved" not in theirs
    assert link(site.pages["teacher"], PLAIN) is None  # nothing to link to
