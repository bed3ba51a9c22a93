"""The similar-code report of an assignment's problem against a live `grader serve` (no
workers: what is compared is what was handed in, graded or not): each learner's final
Submit for the assignment, a renamed and reordered copy ranked first, regions side by
side on the instructors' page, and nobody else's view of it."""
from __future__ import annotations

import html
import re
from datetime import datetime, timedelta, timezone

import pytest
from service_support import P1, Server, corpus, logged_in, make_user, sqlite_url

PASSWORD = "correct horse"
EMPTY = "value_and_grad_loss"  # a problem of the second assignment nobody hands in
NOW = datetime.now(timezone.utc)
# A copy of flat_norm.py as one hides it: names changed, the helper after the entry, a comment gone.
DISGUISED = '''import jax
import jax.numpy as jnp


def per_example_grad_clip(theta, inputs, targets, limit):
    grads = jax.vmap(jax.grad(objective), in_axes=(None, 0, 0))(theta, inputs, targets)
    vec = jnp.concatenate([grads["w"], grads["b"][:, None]], axis=1)
    lengths = jnp.linalg.norm(vec, axis=-1)
    scale = jnp.maximum(1.0, lengths / limit)
    shrunk = vec / scale[:, None]
    avg = shrunk.mean(axis=0)
    return {"grads": {"w": avg[:-1], "b": avg[-1]}, "norms": lengths}


def objective(theta, a, b):
    guess = a @ theta["w"] + theta["b"]
    return 0.5 * (guess - b) ** 2
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("similar")
    url = sqlite_url(root)
    people = ("bea", "cal", "dan", "eve")
    tokens = {"t": make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None),
              "other": make_user(url, "other@example.org", instructor=True, password=PASSWORD, course=None),
              **{p: make_user(url, f"{p}@example.org", password=PASSWORD, course=None) for p in people}}
    server = Server(url, "--submit-limit", "1000/min", "--max-pending", "100", workers=0).start()
    with server.client(tokens["t"]) as t:
        assert t.post("/courses", json={"slug": "ml", "title": "ML"}).status_code == 201
        code = t.post("/courses/ml/invitations", json={}).json()["code"]
        r = t.post("/courses/ml/assignments", json={
            "slug": "hw", "title": "Homework", "opens_at": (NOW - timedelta(hours=1)).isoformat(),
            "due_at": (NOW + timedelta(hours=1)).isoformat(), "problems": [{"problem": P1}]})
        assert r.status_code == 201, r.text
        # The same Submits count here too, where P1 comes second, after a problem nobody hands in.
        r = t.post("/courses/ml/assignments", json={
            "slug": "hw2", "title": "Homework 2", "opens_at": (NOW - timedelta(hours=1)).isoformat(),
            "due_at": (NOW + timedelta(hours=1)).isoformat(),
            "problems": [{"problem": EMPTY}, {"problem": P1}]})
        assert r.status_code == 201, r.text
    with server.client(tokens["other"]) as o:
        assert o.post("/courses", json={"slug": "cv", "title": "CV"}).status_code == 201
    # What each learner hands in, in order: only the last of each counts.
    handed = {"bea": [corpus("accepted/python_control_flow.py"), corpus("accepted/flat_norm.py")],
              "cal": [corpus("accepted/flat_norm.py"), DISGUISED],  # an exact copy first, then a disguised one
              "dan": [corpus("accepted/ravel_pytree.py")],
              "eve": [corpus("accepted/argnums_tuple.py")]}
    # Practice, before dan joins the course (a Submit counts for every open assignment of
    # one's courses that includes its problem): counts for no assignment, never compared.
    with server.client(tokens["dan"]) as c:
        assert c.post("/submissions", json={"problem": P1, "source": corpus("accepted/flat_norm.py"),
                                            "kind": "submit"}).status_code == 202
    for person in people:
        with server.client(tokens[person]) as c:
            assert c.post("/join", json={"code": code}).status_code == 200
            for source in handed[person]:
                r = c.post("/submissions", json={"problem": P1, "source": source, "kind": "submit",
                                                 "assignment": "ml/hw"})
                assert r.status_code == 202, r.text
    server.tokens = tokens
    yield server
    server.stop()


def test_the_report_compares_final_submits_and_ranks_a_disguised_copy_above_every_honest_pair(site):
    with site.client(site.tokens["t"]) as t:
        r = t.get("/courses/ml/assignments/hw/similar", params={"problem": P1})
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["submissions"] == 4 and report["problem"] == P1 and "never a verdict" in report["note"]
    top = report["pairs"][0]
    assert {top["left"], top["right"]} == {"bea@example.org", "cal@example.org"}
    assert all(p["score"] < top["score"] for p in report["pairs"][1:])
    assert top["matches"] and all(m["left_lines"][0] <= m["left_lines"][1] for m in top["matches"])


@pytest.mark.parametrize("who, params, status", [
    ("bea", {"problem": P1}, 403),          # a learner: instructors only
    ("other", {"problem": P1}, 404),        # an instructor of another course sees nothing of this one
    ("t", {"problem": EMPTY}, 404),         # not one of the assignment's problems
    ("t", {}, 422),                          # which problem is required
])
def test_the_report_is_for_the_courses_instructors_and_its_problems_only(site, who, params, status):
    with site.client(site.tokens[who]) as c:
        r = c.get("/courses/ml/assignments/hw/similar", params=params)
    assert r.status_code == status, r.text
    assert set(r.json()) == {"detail"}


def test_the_instructors_page_shows_the_top_pair_with_its_regions_side_by_side(site):
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        assignment = page.get("/courses/ml/assignments/hw").text
        assert 'class="similar-link"' in assignment
        body = page.get("/courses/ml/assignments/hw/similar", params={"problem": P1}).text
    first = body.index('data-pair="')
    assert body[first:first + 60].startswith('data-pair="bea@example.org cal@example.org"')
    assert 'class="side-by-side match"' in body and "never a verdict" in body
    assert "guess = a @ theta[&#34;w&#34;]" in body or "guess = a @ theta[&quot;w&quot;]" in body  # escaped code


@pytest.mark.parametrize("who", ["bea", "other"])
def test_the_page_is_a_404_for_anyone_who_does_not_teach_the_course(site, who):
    with logged_in(site.base, f"{who}@example.org", PASSWORD) as page:
        r = page.get("/courses/ml/assignments/hw/similar", params={"problem": P1})
    assert r.status_code == 404 and "never a verdict" not in r.text


def test_without_a_problem_the_page_opens_on_the_one_with_the_most_pairs(site):
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        assert 'href="/courses/ml/assignments/hw2/similar"' in page.get("/courses/ml/assignments/hw2").text
        body = page.get("/courses/ml/assignments/hw2/similar").text
    chosen = body.index('aria-current="page" data-problem="')
    assert body[chosen:chosen + 80].startswith(f'aria-current="page" data-problem="{P1}"')
    assert f'<a href="?problem={EMPTY}" data-problem="{EMPTY}">' in body  # the first one, not opened
    assert "(0 pairs)" in body and "4 final Submits compared" in body


def _cells(row: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def test_the_regions_are_rows_of_line_pairs_with_the_shared_lines_marked(site):
    """One row per pair of lines (a line that wraps keeps its neighbour level), the lines the
    two share once renamed marked, two lines of context unmarked around each region."""
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        body = page.get("/courses/ml/assignments/hw/similar", params={"problem": P1}).text
    pair = body[body.index('id="pair-1"'):body.index("</section>", body.index('id="pair-1"'))]
    rows = re.findall(r"<tr( class=\"shared\")?>(.*?)</tr>", pair.split("<tbody>", 1)[1], re.S)
    cells = {tuple(_cells(row)): bool(marked) for marked, row in rows}
    # bea's flat_norm.py beside cal's disguised copy, whose helper comes after the entry
    helper = next(c for c in cells if c[1] == "shared: def loss(params, x, y):")
    assert helper[3] == "shared: def objective(theta, a, b):" and cells[helper]
    body_line = next(c for c in cells if "pred = x @ params" in c[1])
    assert "guess = a @ theta" in body_line[3] and cells[body_line]
    assert any(not marked and c[0] and not c[1].strip() for c, marked in cells.items())  # blank context, unmarked
