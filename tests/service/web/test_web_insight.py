"""The class insight page against a live `grader serve` (no workers: rows are marked
graded by hand, with the mistake and the first failing case a grade records): per problem
an SVG bar chart per figure, each bar of the mistakes, verdicts and failing cases a link
to the Submits behind it, the failing cases by their scenario with the ids behind each,
each chart's figures as a table under it; the assignment page
links to it for the course's instructors alone, and a learner to their own progress; in
Chromium, under the pages' CSP, a bar's link lands on the narrowed submissions list (the
screenshot the docs show)."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_support import PASSWORD, log_in, shot
from service_support import P1, Server, logged_in, make_user, mark_graded, sqlite_url

P2 = "value_and_grad_loss"
NOW = datetime.now(timezone.utc)
NORM = "the bias entry is left out of the gradient norm; the norm runs over all D + 1 entries."
SHAPE = "grads.b is a scalar of shape (); keepdims leaves it with shape (1,)."
# (learner, problem, verdict, mistake, first failing case, hidden), in the order sent.
GRADES = [
    ("ann", P1, "WA", NORM, "example_1", False), ("ann", P1, "AC", None, None, None),
    # Two generated cases of one scenario ("all_clipped": indexes 1 and 10 of nine).
    ("bob", P1, "WA", NORM, "gen_s2026_001", True), ("bob", P1, "WA", SHAPE, "gen_s2026_010", True),
    ("cat", P1, "RE", None, "example_2", False), ("cat", P2, "AC", None, None, None),
    ("ann", P2, "IE", None, None, None),  # the judge's failure: counts for no one
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("insight_page")
    url = sqlite_url(root)
    tokens = {"t": make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None),
              "u": make_user(url, "u@example.org", instructor=True, password=PASSWORD, course=None)}
    tokens |= {n: make_user(url, f"{n}@example.org", password=PASSWORD, course=None) for n in ("ann", "bob", "cat")}
    server = Server(url, "--login-limit", "100000/min", "--submit-limit", "1000/min", "--max-pending", "100",
                    workers=0).start()
    try:
        with server.client(tokens["t"]) as t:
            assert t.post("/courses", json={"slug": "ml", "title": "ML"}).status_code == 201
            r = t.post("/courses/ml/assignments", json={
                "slug": "hw", "title": "Week 1", "opens_at": (NOW - timedelta(hours=1)).isoformat(),
                "due_at": (NOW + timedelta(days=1)).isoformat(),
                "problems": [{"problem": P1, "weight": 2}, {"problem": P2, "weight": 1}]})
            assert r.status_code == 201, r.text
            code = t.post("/courses/ml/invitations", json={}).json()["code"]
        with server.client(tokens["u"]) as u:
            assert u.post("/courses", json={"slug": "other", "title": "Other"}).status_code == 201
        for who, problem, verdict, mistake, case, hidden in GRADES:
            with server.client(tokens[who]) as c:
                c.post("/join", json={"code": code})
                r = c.post("/submissions", json={"problem": problem, "source": "x = 1\n", "kind": "submit"})
                assert r.status_code == 202, r.text
            mark_graded(url, r.json()["id"], verdict, 3 if verdict == "AC" else 1, 3, mistake=mistake,
                        failed_case=case, failed_hidden=hidden)
        server.tokens = tokens
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def pages(site):
    """A logged-in browser session over HTTP per person, for the module."""
    with logged_in(site.base, "t@example.org", PASSWORD) as t, logged_in(site.base, "ann@example.org", PASSWORD) as \
            ann, logged_in(site.base, "u@example.org", PASSWORD) as u:
        yield {"t": t, "ann": ann, "u": u}


def _section(html: str, problem: str) -> str:
    return re.search(rf'<section class="insight-problem" id="p-{problem}".*?</section>', html, re.S).group(0)


def _figure(html: str, chart_id: str) -> str:
    return re.search(rf'<figure class="chart" id="{chart_id}">.*?</figure>', html, re.S).group(0)


def test_each_chart_is_svg_with_a_bar_per_figure_and_the_same_figures_in_a_table_under_it(pages):
    html = pages["t"].get("/courses/ml/assignments/hw/insight").text
    mistakes = _figure(_section(html, P1), f"{P1}-mistakes")
    svg = re.search(r"<svg.*?</svg>", mistakes, re.S).group(0)
    # One bar per mistake, most learners first: the part who fixed it, then the rest.
    assert re.findall(r'<text class="label" x="0" y="12">([^<]*)<', svg) == [NORM, SHAPE]
    assert re.findall(r'<text class="figure"[^>]*>([^<]*)<', svg) == ["2 (1 fixed)", "1 (0 fixed)"]
    assert len(re.findall(r'<rect class="seg fixed"', svg)) == 2
    table = re.search(r"<table.*?</table>", mistakes, re.S).group(0)
    rows = re.findall(r"<tr data-mistake><td><a [^>]*>([^<]*)</a></td><td class=\"num\">(\d+)</td>"
                      r"<td class=\"num\">(\d+)</td><td class=\"num\">(\d+)</td>", table)
    assert rows == [(NORM, "2", "1", "2"), (SHAPE, "1", "0", "1")]
    verdicts = _figure(_section(html, P1), f"{P1}-verdicts")
    assert re.findall(r'<tr data-verdict="(\w+)"><td>.*?<td class="num">(\d+)</td>', verdicts) == [
        ("AC", "1"), ("WA", "3"), ("RJ", "0"), ("CE", "0"), ("RE", "1"), ("TLE", "0"), ("MLE", "0"), ("OLE", "0")]
    cases = _figure(_section(html, P1), f"{P1}-cases")
    # bob counts once for the scenario, his two Submits twice; the ids behind it are listed.
    assert re.findall(r'<tr data-case="([^"]+)"><td>.*?</td><td>(\w+)</td><td class="num">(\d+)</td>'
                      r'<td class="num">(\d+)</td><td>(.*?)</td></tr>', cases) == [
        ("all_clipped", "hidden", "1", "2", f'<a href="/submissions?problem={P1}&amp;assignment=ml%2Fhw&amp;'
                                            f'case=gen_s2026_001">gen_s2026_001</a>, <a href="/submissions?'
                                            f'problem={P1}&amp;assignment=ml%2Fhw&amp;case=gen_s2026_010">'
                                            'gen_s2026_010</a>'),
        ("example_1", "public", "1", "1", f'<a href="/submissions?problem={P1}&amp;assignment=ml%2Fhw&amp;'
                                          'case=example_1">example_1</a>'),
        ("example_2", "public", "1", "1", f'<a href="/submissions?problem={P1}&amp;assignment=ml%2Fhw&amp;'
                                          'case=example_2">example_2</a>')]
    assert "1 of 3 learners solved it (33%); 3 made a Submit that counts" in html.replace("<strong>", "").replace(
        "</strong>", "")
    p2 = _section(html, P2).replace("<strong>", "").replace("</strong>", "")
    assert "1 of 3 learners solved it (33%); 1 made a Submit that counts" in p2  # ann's IE does not count
    attempts = _figure(_section(html, P1), f"{P1}-attempts")  # ann's AC was her second Submit
    assert re.findall(r'<text class="figure mid"[^>]*>(\d+)<', attempts) == ["0", "1", "0", "0", "0", "0", "0"]
    table = re.findall(r"<tr><td>(?:<a [^>]*>)?([^<]+)(?:</a>)?</td><td class=\"num\">(\d+)</td></tr>", attempts)
    assert table[:2] == [("1", "0"), ("2", "1")]


def test_a_bars_link_lists_the_submits_behind_it(pages):
    html = pages["t"].get("/courses/ml/assignments/hw/insight").text
    svg = re.search(r"<svg.*?</svg>", _figure(_section(html, P1), f"{P1}-mistakes"), re.S).group(0)
    first = re.search(r'<a href="([^"]+)" aria-label="2 learners made it, 1 fixed it: ', svg).group(1)
    query = parse_qs(urlsplit(first.replace("&amp;", "&")).query)
    assert query == {"problem": [P1], "assignment": ["ml/hw"], "mistake": [NORM]}
    listed = pages["t"].get(first.replace("&amp;", "&")).text
    assert len(re.findall(r'<tr data-sub="', listed)) == 2 and "that made the mistake" in listed
    verdicts = re.search(r"<svg.*?</svg>", _figure(_section(html, P1), f"{P1}-verdicts"), re.S).group(0)
    wrong = re.search(r'<a href="([^"]+)" aria-label="WA: 3 Submits by 2 learners">', verdicts).group(1)
    assert len(re.findall(r'<tr data-sub="', pages["t"].get(wrong.replace("&amp;", "&")).text)) == 3
    cases = re.search(r"<svg.*?</svg>", _figure(_section(html, P1), f"{P1}-cases"), re.S).group(0)
    one = re.search(r'<a href="([^"]+)" aria-label="example_2: ', cases).group(1)
    assert len(re.findall(r'<tr data-sub="', pages["t"].get(one.replace("&amp;", "&")).text)) == 1
    several = re.search(r'<a href="([^"]+)" aria-label="all_clipped: ', cases).group(1)  # two cases behind it
    assert len(re.findall(r'<tr data-sub="', pages["t"].get(several.replace("&amp;", "&")).text)) == 2
    table = _figure(_section(html, P1), f"{P1}-cases")
    each = re.search(r'<a href="([^"]+)">gen_s2026_010</a>', table).group(1)
    assert len(re.findall(r'<tr data-sub="', pages["t"].get(each.replace("&amp;", "&")).text)) == 1


def test_a_bar_counts_its_learners_for_the_courses_instructors_alone(pages):
    """ann is behind P1's "2 Submits" bar, yet her own list narrowed to it is empty: who is
    behind a bar is counted (the work of a class's scores) for its instructors only."""
    narrowed = {"assignment": "ml/hw", "problem": P1, "bar": "attempts:1"}
    assert len(re.findall(r'<tr data-sub="', pages["t"].get("/submissions", params=narrowed).text)) == 2
    assert not re.findall(r'<tr data-sub="', pages["ann"].get("/submissions", params=narrowed).text)
    assert re.findall(r'<tr data-sub="', pages["ann"].get("/submissions", params={"problem": P1}).text)


def test_the_assignment_page_links_to_it_for_the_courses_instructors_alone(pages):
    link = 'href="/courses/ml/assignments/hw/insight"'
    assert link in pages["t"].get("/courses/ml/assignments/hw").text
    assert link not in pages["ann"].get("/courses/ml/assignments/hw").text
    assert pages["ann"].get("/courses/ml/assignments/hw/insight").status_code == 404
    assert pages["u"].get("/courses/ml/assignments/hw/insight").status_code == 404


def test_a_learners_progress_page_shows_their_own_work_and_the_mistakes_they_fixed(pages):
    assert 'href="/courses/ml/progress"' in pages["ann"].get("/courses/ml/assignments/hw").text
    html = pages["ann"].get("/courses/ml/progress").text
    row = re.search(rf'<tr data-problem="{P1}">.*?</tr>', html, re.S).group(0)
    assert "✓ solved" in row and f"fixed: {NORM}" in row
    assert re.findall(r'<td class="num">(\d*)</td>', row) == ["2", "2"]  # Submits, and to the first AC
    assert SHAPE not in html  # bob's mistake: nothing of another learner
    assert pages["u"].get("/courses/ml/progress").status_code == 404


@pytest.mark.browser
@pytest.mark.slow  # Chromium logs in: seconds
def test_in_chromium_the_charts_draw_under_the_csp_and_a_bar_leads_to_its_submits(site, browser):
    ctx = browser.new_context(viewport={"width": 1000, "height": 1500})
    page = ctx.new_page()
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    try:
        log_in(page, site.base, "t@example.org", "/courses/ml/assignments/hw/insight")
        bars = page.locator(f"#{P1}-mistakes svg rect")
        assert bars.count() == 4 and bars.first.bounding_box()["width"] > 0
        page.screenshot(path=str(shot("insight.png")))
        page.locator(f"#{P1}-mistakes svg a rect").first.click()
        page.wait_for_url("**/submissions?**")
        assert page.locator("tr[data-sub]").count() == 2
        assert blocked == []
    finally:
        ctx.close()


def test_the_page_says_when_its_figures_were_counted_and_that_newer_ones_are_being_counted(site, pages):
    """Last in the module: it records one more grade."""
    import time

    path = "/courses/ml/assignments/hw/insight"
    assert 'data-counted="fresh"' in pages["t"].get(path).text
    with site.client(site.tokens["ann"]) as c:
        r = c.post("/submissions", json={"problem": P2, "source": "x = 2\n", "kind": "submit"})
    assert r.status_code == 202, r.text
    mark_graded(site.db_url, r.json()["id"], "WA", 0, 3)
    html = pages["t"].get(path).text  # the kept figures at once, said not to be fresh
    assert 'data-counted="recounting"' in html and "being counted now" in html
    assert "1 made a Submit that counts" in html.replace("<strong>", "").replace("</strong>", "")
    deadline = time.monotonic() + 60
    while 'data-counted="fresh"' not in (html := pages["t"].get(path).text):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    p2 = _section(html, P2).replace("<strong>", "").replace("</strong>", "")
    assert "1 of 3 learners solved it (33%); 2 made a Submit that counts" in p2  # ann's new WA
