"""Class insight against a live `grader serve` grading for real, on SQLite and PostgreSQL:
a hand-made class submits the corpus's wrong answers (whose ``# hint:`` the judge names),
accepted files and a file that does not compile, and the assignment's insight counts
exactly what they did: each named mistake with the learners who made it and those who
fixed it, the verdict mix, who solved what, Submits and time to the first AC, the first
failing cases by their scenario (a hidden one too), learners with an AC over time (late
apart) and the score distribution, as JSON and as CSV; the course's insight, an
assignment a row; only the course's instructors may read either; the page's links list
exactly the Submits behind a bar, and its timeline marks the due time;
each learner reads their own progress (the mistakes they fixed), nobody else's."""
from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest
from service_support import P1, Server, logged_in, make_user, problem_copy, sqlite_url, wait_done
from support import ROOT, SUBMISSIONS

pytestmark = pytest.mark.slow  # eleven real grades per database

P2 = "global_norm_clipping"
PASSWORD = "correct horse"
WRONG = {P1: ("sum_not_mean", "always_rescale"), P2: ("l1_norm",)}  # the copy's wrong answers: its hints
NOW = datetime.now(timezone.utc)
# Correct on the public cases (3 or 2 examples), the sum instead of the mean from 5 examples
# on: only hidden cases fail, with the output of sum_not_mean's mistake.
SUM_ON_LARGE = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text().replace(
    "mean = clipped.mean(axis=0)", "mean = clipped.mean(axis=0) if x.shape[0] < 5 else clipped.sum(axis=0)")


def html_text(fragment: str) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def _file(problem: str, rel: str) -> str:
    return (SUBMISSIONS / problem / rel).read_text(encoding="utf-8")


def hint(problem: str, name: str) -> str:
    return re.search(r"^# hint: (.*)$", _file(problem, f"wrong_answer/{name}.py"), re.M).group(1).strip()


def misreads(problem: str, name: str) -> str:
    return re.search(r"^# misreads: (.*)$", _file(problem, f"wrong_answer/{name}.py"), re.M).group(1).strip()


SUM, RESCALE, L1 = hint(P1, "sum_not_mean"), hint(P1, "always_rescale"), hint(P2, "l1_norm")
QUOTED = {SUM: misreads(P1, "sum_not_mean"), RESCALE: misreads(P1, "always_rescale"), L1: misreads(P2, "l1_norm")}
# Who sends what, in order. ann has an extension (on time); the others are past due (late).
CLASS = {
    "ann": [(P1, "wrong_answer/sum_not_mean.py"), (P1, "accepted/flat_norm.py"), (P2, "accepted/ravel_pytree.py")],
    "bob": [(P1, "wrong_answer/sum_not_mean.py"), (P1, "wrong_answer/always_rescale.py"),
            (P2, "compile_error/imports_optax.py")],
    "cat": [(P1, "wrong_answer/always_rescale.py"), (P1, "wrong_answer/always_rescale.py"),
            (P1, "accepted/flat_norm.py"), (P2, "wrong_answer/l1_norm.py")],
    "dan": [],
    "eve": [(P1, SUM_ON_LARGE)],
}


@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    """The two problems with only the wrong answers of ``WRONG``, their tables built ahead
    (``grader warm``), so that every grade consults every known mistake."""
    root = tmp_path_factory.mktemp("insight_problems")
    problem_copy(root / "problems", (P1, P2))
    for pid, names in WRONG.items():
        folder = root / "submissions" / pid / "wrong_answer"
        folder.mkdir(parents=True)
        for name in names:
            (folder / f"{name}.py").write_text(_file(pid, f"wrong_answer/{name}.py"))
    env = {"JAXJUDGE_PROBLEMS": str(root / "problems")}
    import os

    subprocess.run([sys.executable, "-m", "grader", "warm", P1, P2], cwd=ROOT, env={**os.environ, **env}, check=True,
                   capture_output=True, timeout=900)
    return root / "problems"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request, problems, tmp_path_factory):
    root = tmp_path_factory.mktemp("insight")
    url = sqlite_url(root) if request.param == "sqlite" else request.getfixturevalue("postgres").new_database()
    tokens = {"t": make_user(url, "t@example.org", instructor=True, password=PASSWORD, course=None),
              "u": make_user(url, "u@example.org", instructor=True, password=PASSWORD, course=None)}
    tokens |= {name: make_user(url, f"{name}@example.org", password=PASSWORD, course=None) for name in CLASS}
    server = Server(url, "--login-limit", "100000/min", "--submit-limit", "1000/min", "--max-pending", "100",
                    workers=1, problems=problems).start()
    server.tokens = tokens
    try:
        with server.client(tokens["t"]) as t:
            assert t.post("/courses", json={"slug": "ml", "title": "ML"}).status_code == 201
            r = t.post("/courses/ml/assignments", json={
                "slug": "hw", "title": "Clipping", "opens_at": (NOW - timedelta(hours=3)).isoformat(),
                "due_at": (NOW - timedelta(hours=1)).isoformat(), "late_until": (NOW + timedelta(days=1)).isoformat(),
                "late_penalty": 0.5, "credit": "accepted", "problems": [{"problem": P1, "weight": 10},
                                                                        {"problem": P2, "weight": 5}]})
            assert r.status_code == 201, r.text
            # A second assignment that P1's Submits count for as well (the course's page).
            r = t.post("/courses/ml/assignments", json={
                "slug": "quiz", "title": "Quiz", "opens_at": (NOW - timedelta(hours=3)).isoformat(),
                "due_at": (NOW + timedelta(days=2)).isoformat(), "problems": [{"problem": P1, "weight": 1}]})
            assert r.status_code == 201, r.text
            code = t.post("/courses/ml/invitations", json={}).json()["code"]
            for name in CLASS:
                with server.client(tokens[name]) as c:
                    assert c.post("/join", json={"code": code}).status_code == 200
            r = t.post("/courses/ml/assignments/hw/extensions", json={
                "email": "ann@example.org", "due_at": (NOW + timedelta(days=1)).isoformat()})
            assert r.status_code == 200, r.text
        with server.client(tokens["u"]) as u:
            assert u.post("/courses", json={"slug": "other", "title": "Other"}).status_code == 201
        sent = []
        for name, work in CLASS.items():
            with server.client(tokens[name]) as c:
                for problem, what in work:
                    source = what if "\n" in what else _file(problem, what)
                    r = c.post("/submissions", json={"problem": problem, "source": source, "kind": "submit"})
                    assert r.status_code == 202, r.text
                    sent.append((name, r.json()["id"]))
        for name, sub_id in sent:
            with server.client(tokens[name]) as c:
                wait_done(c, sub_id, timeout=300)
        yield server
    finally:
        server.stop()


def _insight(site, who: str = "t", **params):
    with site.client(site.tokens[who]) as c:
        return c.get("/courses/ml/assignments/hw/insight", params=params)


@pytest.fixture(scope="module")
def insight(site) -> dict:
    r = _insight(site)
    assert r.status_code == 200, r.text
    return r.json()


def _problem(insight: dict, pid: str) -> dict:
    return next(p for p in insight["problems"] if p["problem"] == pid)


def test_each_named_mistake_counts_the_learners_who_made_it_and_those_who_fixed_it_later(insight):
    mistakes = {pid: [(m["text"], m["learners"], m["fixed"], m["submits"]) for m in _problem(insight, pid)["mistakes"]]
                for pid in (P1, P2)}
    # sum: ann (fixed), bob, and eve's hidden-only sum; rescale: bob, and cat twice (fixed).
    assert mistakes == {P1: [(SUM, 3, 1, 3), (RESCALE, 2, 1, 3)], P2: [(L1, 1, 0, 1)]}


def test_each_named_mistake_quotes_the_sentence_of_the_statement_it_misreads(insight):
    quoted = {m["text"]: m["misreads"] for pid in (P1, P2) for m in _problem(insight, pid)["mistakes"]}
    assert quoted == QUOTED  # each wrong answer's "# misreads:" line


def test_the_verdict_mix_and_the_learners_who_solved_each_problem(insight):
    p1, p2 = _problem(insight, P1), _problem(insight, P2)
    mix = {pid: {v["verdict"]: (v["submits"], v["learners"]) for v in p["verdicts"] if v["submits"]}
           for pid, p in ((P1, p1), (P2, p2))}
    assert mix == {P1: {"AC": (2, 2), "WA": (6, 4)}, P2: {"AC": (1, 1), "WA": (1, 1), "CE": (1, 1)}}
    assert [v["verdict"] for v in p1["verdicts"]] == ["AC", "WA", "RJ", "CE", "RE", "TLE", "MLE", "OLE"]
    assert (p1["learners"], p1["attempted"], p1["solved"], p1["solved_share"]) == (5, 4, 2, 0.4)
    assert (p2["attempted"], p2["solved"]) == (3, 1) and insight["learners"] == 5


def test_submits_and_time_to_the_first_ac_are_distributions_over_the_learners_who_solved_it(insight):
    def bars(pid: str, key: str) -> dict:
        return {b["label"]: b["learners"] for b in _problem(insight, pid)[key] if b["learners"]}

    assert bars(P1, "attempts_to_ac") == {"2": 1, "3": 1}  # ann on her second Submit, cat on her third
    assert bars(P2, "attempts_to_ac") == {"1": 1}
    assert bars(P1, "time_to_ac") == {"under 10 min": 2} and bars(P2, "time_to_ac") == {"first Submit": 1}


def test_the_first_failing_cases_name_a_hidden_one_for_the_instructor_by_its_scenario(insight):
    cases = {pid: {(c["label"], c["hidden"]): (c["learners"], c["submits"], c["cases"])
                   for c in _problem(insight, pid)["failing_cases"]} for pid in (P1, P2)}
    # eve's hidden failure is the generator's case 1, whose scenario is "all_clipped".
    assert cases[P1] == {("example_1", False): (2, 2, ["example_1"]), ("example_2", False): (2, 3, ["example_2"]),
                         ("all_clipped", True): (1, 1, ["gen_s2026_001"])}
    assert cases[P2] == {("example_1", False): (1, 1, ["example_1"])}  # l1_norm; one that does not compile fails none


def test_learners_with_an_ac_over_time_keep_late_ones_apart_and_scores_follow_the_gradebook(insight, site):
    last = _problem(insight, P1)["accepted_over_time"]["ticks"][-1]
    assert (last["on_time"], last["late"]) == (1, 1)  # ann (her extension), cat (late)
    every = insight["accepted_over_time"]["ticks"][-1]
    assert (every["on_time"], every["late"]) == (1, 0)  # only ann has both
    assert datetime.fromisoformat(insight["accepted_over_time"]["due"]) == NOW - timedelta(hours=1)
    scores = {b["label"]: b["learners"] for b in insight["scores"] if b["learners"]}
    assert scores == {"0–9%": 3, "30–39%": 1, "100%": 1}  # cat: 10 points less half, of 15
    with site.client(site.tokens["t"]) as t:
        points = sorted(r["points"] for r in t.get("/courses/ml/assignments/hw/scores").json())
    assert points == [0, 0, 0, 5, 15]


def test_the_csv_holds_the_same_figures_a_row_per_bar(site, insight):
    r = _insight(site, format="csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert {x["figure"] for x in rows} == {"solved", "attempted", "verdict", "mistake", "failing_case",
                                           "attempts_to_ac", "time_to_ac", "accepted_by", "score", "all_accepted_by"}
    mistakes = [(x["problem"], x["key"], int(x["learners"]), int(x["fixed"]), int(x["submits"]))
                for x in rows if x["figure"] == "mistake"]
    assert mistakes == [(P1, SUM, 3, 1, 3), (P1, RESCALE, 2, 1, 3), (P2, L1, 1, 0, 1)]
    assert {x["key"]: x["misreads"] for x in rows if x["figure"] == "mistake"} == QUOTED
    hidden = [(x["key"], x["cases"], x["learners"]) for x in rows
              if x["figure"] == "failing_case" and x["hidden"] == "yes"]
    assert hidden == [("all_clipped", "gen_s2026_001", "1")]
    solved = {x["problem"]: int(x["learners"]) for x in rows if x["figure"] == "solved"}
    assert solved == {P1: 2, P2: 1}
    assert [int(x["learners"]) for x in rows if x["figure"] == "score"] == [b["learners"] for b in insight["scores"]]


@pytest.mark.parametrize("who, path, status", [
    ("ann", "/courses/ml/assignments/hw/insight", 403),  # a learner of the course
    ("u", "/courses/ml/assignments/hw/insight", 404),  # an instructor of another course
    ("t", "/courses/ml/assignments/nope/insight", 404),
    ("t", "/courses/nope/assignments/hw/insight", 404),
    ("t", "/courses/ml/assignments/hw/insight?format=xml", 422),
    ("ann", "/courses/ml/insight", 403),
    ("u", "/courses/ml/insight", 404),
    ("t", "/courses/nope/insight", 404),
    ("t", "/courses/ml/insight?format=xml", 422),
])
def test_only_the_courses_instructors_read_it_and_every_refusal_is_a_json_error(site, who, path, status):
    with site.client(site.tokens[who]) as c:
        r = c.get(path)
    assert r.status_code == status and r.headers["content-type"] == "application/json" and r.json()["detail"]


def test_a_mistakes_link_lists_exactly_the_submits_that_made_it(site):
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        html = page.get("/courses/ml/assignments/hw/insight").text
        section = re.search(rf'<section class="insight-problem" id="p-{P1}".*?</section>', html, re.S).group(0)
        link = re.search(r'<tr data-mistake><td><a href="([^"]+)">', section).group(1).replace("&amp;", "&")
        listed = page.get(link).text
        assert len(re.findall(r'<tr data-sub="', listed)) == 3  # ann's, bob's and eve's
        assert SUM in listed
        case = re.search(r'<tr data-case="all_clipped"><td>all_clipped</td>.*?<a href="([^"]+)">gen_s2026_001</a>',
                         section).group(1).replace("&amp;", "&")
        assert len(re.findall(r'<tr data-sub="', page.get(case).text)) == 1  # eve's: the scenario's case id links
        # A distribution's bar lists the Submits of the learners behind it.
        for chart, label, who in ((f"{P1}-attempts", "2", {"ann"}), (f"{P1}-time", "under 10 min", {"ann", "cat"}),
                                  ("scores", "100%", {"ann"})):
            figure = re.search(rf'<figure class="chart" id="{chart}">.*?</figure>', html, re.S).group(0)
            href = re.search(rf'<a href="([^"]+)" aria-label="{label}: \d+, their Submits">', figure).group(1)
            listed = page.get(href.replace("&amp;", "&")).text
            emails = set(re.findall(r"([a-z]+)@example\.org", listed.split('<table', 1)[-1]))
            assert emails == who, (chart, emails)
            sent = sum(1 for name in who for problem, _ in CLASS[name] if chart == "scores" or problem == P1)
            assert len(re.findall(r'<tr data-sub="', listed)) == sent, chart
        several = page.get("/submissions", params={"assignment": "ml/hw", "problem": P1,
                                                   "case": "example_1 example_2"}).text
        assert len(re.findall(r'<tr data-sub="', several)) == 5 and "one of" in several  # 2 + 3 Submits
        for bogus in ("bogus:1", "attempts:99", "score:x", "time:1"):  # time:1 without a problem: no learner
            listed = page.get("/submissions", params={"assignment": "ml/hw", "bar": bogus}).text
            assert not re.findall(r'<tr data-sub="', listed), bogus
        timeline = re.search(rf'<figure class="chart" id="{P1}-timeline">.*?</figure>', section, re.S).group(0)
        assert '<line class="due"' in timeline  # the due time, an hour ago, falls inside the span drawn
        # Under the chart, each mistake beside the sentence it misreads, its math as text.
        quotes = re.findall(r"<div data-misreads><dt>(.*?)</dt><dd>misreads the statement's “(.*?)”</dd>", section)
        assert [html_text(t) for t, _ in quotes] == [SUM, RESCALE]
        assert all("$" not in q and q for _, q in quotes)


def test_a_learner_reads_their_own_progress_with_the_mistakes_they_fixed_and_nobody_elses(site):
    def mine(who: str) -> dict:
        with site.client(site.tokens[who]) as c:
            r = c.get("/courses/ml/progress")
        assert r.status_code == 200, r.text
        return {p["problem"]: (p["solved"], p["submits"], p["attempts_to_ac"], p["fixed"], p["not_fixed"])
                for p in r.json()}

    assert mine("ann") == {P1: (True, 2, 2, [SUM], []), P2: (True, 1, 1, [], [])}
    assert mine("bob") == {P1: (False, 2, None, [], [SUM, RESCALE]), P2: (False, 1, None, [], [])}
    assert mine("cat") == {P1: (True, 3, 3, [RESCALE], []), P2: (False, 1, None, [], [L1])}
    assert mine("dan") == {P1: (False, 0, None, [], []), P2: (False, 0, None, [], [])}
    with site.client(site.tokens["u"]) as u:  # not in the course
        r = u.get("/courses/ml/progress")
    assert r.status_code == 404 and r.json()["detail"]


def test_the_course_insight_has_a_row_per_assignment_and_the_commonest_mistakes_each_submit_once(site):
    with site.client(site.tokens["t"]) as t:
        r = t.get("/courses/ml/insight")
    assert r.status_code == 200, r.text
    out = r.json()
    assert (out["course"], out["learners"]) == ("ml", 5)
    rows = {a["assignment"]: ([(p["problem"], p["solved"], p["attempted"], p["solved_share"]) for p in a["problems"]],
                              [(m["problem"], m["text"], m["learners"], m["submits"]) for m in a["mistakes"]])
            for a in out["assignments"]}
    assert [a["assignment"] for a in out["assignments"]] == ["hw", "quiz"]  # by due time
    assert rows["hw"] == ([(P1, 2, 4, 0.4), (P2, 1, 3, 0.2)], [(P1, SUM, 3, 3), (P1, RESCALE, 2, 3), (P2, L1, 1, 1)])
    assert rows["quiz"] == ([(P1, 2, 4, 0.4)], [(P1, SUM, 3, 3), (P1, RESCALE, 2, 3)])
    # P1's Submits count for both assignments: across the course each counts once.
    assert [(m["problem"], m["text"], m["learners"], m["submits"]) for m in out["mistakes"]] == [
        (P1, SUM, 3, 3), (P1, RESCALE, 2, 3), (P2, L1, 1, 1)]
    with site.client(site.tokens["t"]) as t:
        r = t.get("/courses/ml/insight", params={"format": "csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(r.text)))
    assert [(x["assignment"], x["problem"], x["learners"], x["attempted"]) for x in table if x["figure"] == "solved"] \
        == [("hw", P1, "2", "4"), ("hw", P2, "1", "3"), ("quiz", P1, "2", "4")]
    assert [(x["assignment"], x["key"]) for x in table if x["figure"] == "mistake"] == [
        ("hw", SUM), ("hw", RESCALE), ("hw", L1), ("quiz", SUM), ("quiz", RESCALE)]
    assert [(x["key"], x["learners"]) for x in table if x["figure"] == "course_mistake"] == [
        (SUM, "3"), (RESCALE, "2"), (L1, "1")]


def test_the_course_page_links_its_insight_for_its_instructors_which_links_each_assignments(site):
    with logged_in(site.base, "t@example.org", PASSWORD) as page:
        assert 'href="/courses/ml/insight"' in page.get("/courses/ml").text
        html = page.get("/courses/ml/insight").text
        row = re.search(r'<tr data-assignment="hw">.*?</tr>', html, re.S).group(0)
        assert 'href="/courses/ml/assignments/hw/insight"' in row
        assert re.findall(r'<li data-problem="([^"]+)">[^<]*<strong>(\d+)</strong> of (\d+)', row) == [
            (P1, "2", "5"), (P2, "1", "5")]
        assert row.count("<li data-mistake>") == 3 and SUM in row
        assert page.get("/courses/ml/assignments/quiz/insight").status_code == 200
    with logged_in(site.base, "ann@example.org", PASSWORD) as page:
        assert 'href="/courses/ml/insight"' not in page.get("/courses/ml").text
        assert page.get("/courses/ml/insight").status_code == 404
