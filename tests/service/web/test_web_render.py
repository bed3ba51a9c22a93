"""The web pages' rendering without a server: statements, the result panel of a
report with every kind of feedback, verdict badges, the wide gradebook CSV, the
redirect after login, and the package data that carries templates and static files."""
from __future__ import annotations

import csv
import io
import re
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from support import ROOT

pytest.importorskip("jinja2", reason="the pages need the serve extra: pip install -e '.[test,serve]'")

from markupsafe import escape  # noqa: E402

from grader.common.verdicts import Verdict  # noqa: E402
from grader.service.domain.gradebook import to_wide_csv  # noqa: E402
from grader.service.web.learner import safe_next  # noqa: E402
from grader.service.web.pages import ENV  # noqa: E402
from grader.service.web.problem_view import statement_html  # noqa: E402
from grader.service.web.report_view import report_view  # noqa: E402

WEB = ROOT / "grader" / "service" / "web"

REPORT = {
    "problem": "p", "submission": "s.py", "verdict": "WA", "verdict_title": "Wrong Answer", "reason": "value",
    "message": "case example_1: 'grads.w' is off", "passed": 1, "total": 3,
    "hint": "the bias entry is left out of the gradient norm",
    "static_checks": [{"name": "syntax", "passed": True, "message": "the file parses"}],
    "runtime_checks": [{"name": "jax.vmap of jax.grad", "passed": False,
                        "message": "jax.vmap was called (line 13) but never on a function that calls jax.grad"}],
    "cases": [
        {"id": "example_1", "visibility": "public", "verdict": "WA", "reason": "value", "message": "off",
         "time_ms": 3.2, "input": {"x": [1.0, 2.0]}, "expected": {"y": [0.5]}, "got": {"y": [0.75]},
         "worst": {"leaf": "grads.w", "index": [0], "expected": 0.0134800281, "got": 0.0976310819,
                   "abs_err": 0.0842, "rel_err": 6.24, "atol": 1e-5, "rtol": 1e-4}, "stdout": "<b>printed</b>\n"},
        {"id": "example_2", "visibility": "public", "verdict": "WA", "reason": "shape", "message": "wrong shape",
         "time_ms": 1.0, "input": {"x": []}, "expected": {"y": [1.0]}, "got": {"y": [[1.0]]},
         "diff": [["y", "float32 (1,)", "float32 (1, 1)"], ["z", "float32 ()", "float32 ()"]]},
        {"id": "gen_000", "visibility": "hidden", "verdict": "WA", "reason": "value", "message": "wrong value",
         "time_ms": 2.0, "hint": "the bias entry is left out of the gradient norm"},
        {"id": "gen_001", "visibility": "hidden", "verdict": "AC", "reason": "", "message": "passed", "time_ms": 2.0},
    ],
    "counterexample": {"message": "'norms' is off at index (0,)", "input": {"x": [[3.0]]}, "expected": {"n": [3.0]},
                       "got": {"n": [0.0]}},
    "sandbox": {"layers": ["fds", "rlimits"], "unavailable": {}}, "stdout": "",
}


def panel(report: dict) -> str:
    sub = SimpleNamespace(id="abc", kind="submit", status="done", verdict=report["verdict"])
    return ENV.get_template("_panel.html").render(sub=sub, pending=False, report=report_view(report), full=False,
                                                  position=None, age=None, viewer=None, api="/api/v1", path="/")


def test_statement_markdown_escapes_html_and_keeps_math_as_escaped_tex():
    html = statement_html("# Title\n\nThe norm $\\lVert g_n \\rVert$ of *g*.\n\n<script>alert(1)</script>\n\n"
                          "[x](javascript:alert(1))\n\n    code <b>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert "<h1>" not in html  # the page shows the title itself
    assert '<span class="math inline">\\lVert g_n \\rVert</span>' in html and "<em>g</em>" in html
    assert "&lt;script&gt;" in html and "<script>" not in html
    assert 'href="javascript' not in html
    assert "<pre><code>code &lt;b&gt;" in html and "<table>" in html
    assert "$5 and $6" in statement_html("costs $5 and $6")  # prices are not math


def test_result_panel_shows_worst_element_diff_hint_counterexample_and_requirement_failures():
    html = panel(REPORT)
    assert '<span class="verdict big v-WA">WA</span>' in html and "Wrong Answer" in html
    assert "public 0/2, hidden 1/2" in html
    assert "Hint:</strong> the bias entry is left out of the gradient norm" in html
    assert "Requirements not met" in html and "but never on a function that calls jax.grad" in html
    worst = re.search(r'<table class="worst">(.*?)</table>', html, re.S).group(1)
    for text in ("grads.w[0]", "0.0134800281", "0.0976310819", "0.0842", "6.24", "atol 1e-05, rtol 0.0001"):
        assert text in worst
    assert "Output structure: expected and got" in html and "float32 (1, 1) <strong>≠</strong>" in html
    assert "An input on which your code also fails" in html and "[[3.0]]" in html
    assert "&lt;b&gt;printed&lt;/b&gt;" in html  # what the code printed, escaped
    assert re.search(r'<details class="case-detail" open data-detail="example_1">', html)  # the first failure open
    assert "1 hidden case failed" in html and 'data-detail="gen_000"' not in html


def test_a_waiting_submission_shows_its_place_in_line_and_asks_to_be_followed():
    sub = SimpleNamespace(id="abc", kind="submit", status="queued", verdict=None)
    html = ENV.get_template("_panel.html").render(sub=sub, pending=True, report=None, full=False, position=2, age=3.2,
                                                  viewer=None, api="/api/v1", path="/")
    assert "Submit queued: number" in html and '<strong class="position">2</strong> in line' in html
    assert 'data-follow="abc" data-state="queued:2"' in html
    sub.status = "running"
    html = ENV.get_template("_panel.html").render(sub=sub, pending=True, report=None, full=False, position=None,
                                                  age=None, viewer=None, api="/api/v1", path="/")
    assert "Submit is being graded" in html and 'data-state="running:"' in html


@pytest.mark.parametrize("warming", [True, False])
def test_a_pending_grade_of_a_problem_without_its_probe_table_says_the_problem_is_being_prepared(warming):
    sub = SimpleNamespace(id="abc", kind="run", status="running", verdict=None)
    html = ENV.get_template("_panel.html").render(sub=sub, pending=True, report=None, full=False, position=None,
                                                  age=None, viewer=None, api="/api/v1", path="/", warming=warming)
    assert ('class="muted warming"' in html) is warming


def test_the_pages_accept_no_writes_of_their_own():
    # Every write goes to the API, which checks the CSRF token, the rates and the roles.
    from grader.service.web import history, instructor, learner

    routes = [r for m in (learner, history, instructor) for r in m.router.routes]
    assert len(routes) >= 10 and all(r.methods <= {"GET", "HEAD"} for r in routes), [r.path for r in routes]


def test_a_hidden_case_shows_no_data_even_if_the_report_carried_some():
    # Learners' reports never carry hidden data (report.model.hidden_view); the panel
    # shows in full only what the report holds, so an instructor's full report shows it.
    full = dict(REPORT, cases=[dict(REPORT["cases"][2], input={"x": [123.456]}, expected={"y": [7.0]},
                                    got={"y": [8.0]})])
    assert 'data-detail="gen_000"' in panel(full) and "123.456" in panel(full)
    assert "123.456" not in panel(dict(REPORT, cases=[REPORT["cases"][2]]))


@pytest.mark.parametrize("verdict", [v.value for v in Verdict])
def test_every_verdict_has_a_word_and_a_colour(verdict):
    html = panel(dict(REPORT, verdict=verdict, verdict_title=Verdict(verdict).title))
    assert f'<span class="verdict big v-{verdict}">{verdict}</span>' in html
    assert str(escape(Verdict(verdict).title)) in html
    css = (WEB / "static" / "app.css").read_text()
    rule = re.search(rf"\.v-{verdict}\b[^{{]*\{{([^}}]*)\}}", css)
    assert rule and "background" in rule.group(1), f"no colour for {verdict}"


def test_wide_gradebook_csv_has_a_row_per_learner_a_column_per_problem_and_no_formulas():
    rows = [{"learner": "ann@x.org", "problem": "p1", "best_verdict": "AC", "best_passed": 3, "best_total": 3},
            {"learner": "ann@x.org", "problem": "p2", "best_verdict": "WA", "best_passed": 1, "best_total": 4},
            {"learner": "=cmd@x.org", "problem": "p2", "best_verdict": "RJ", "best_passed": 0, "best_total": 4}]
    got = list(csv.reader(io.StringIO(to_wide_csv(rows, ["p1", "p2", "p3"]))))
    assert got == [["learner", "p1", "p2", "p3"], ["'=cmd@x.org", "", "RJ 0/4", ""],
                   ["ann@x.org", "AC 3/3", "WA 1/4", ""]]


@pytest.mark.parametrize("target, kept", [("/problems/p?x=1", "/problems/p?x=1"), (None, "/problems"),
                                          ("//evil.example/x", "/problems"), ("/\\evil.example", "/problems"),
                                          ("https://evil.example", "/problems"), ("/a\r\nSet-Cookie: x", "/problems"),
                                          ("/\t/evil.example", "/problems"), ("/ /evil.example", "/problems"),
                                          ("/\x0b/evil.example", "/problems"), ("/\x00/evil.example", "/problems"),
                                          ("/\x7f/evil.example", "/problems"), ("/\u3000/evil.example", "/problems"),
                                          ("/\u2028/evil.example", "/problems"), ("/p?q=a%20b#c", "/p?q=a%20b#c")],
                         ids=repr)
def test_login_sends_back_only_to_a_page_of_this_site(target, kept):
    assert safe_next(target) == kept


def test_package_data_carries_every_template_and_static_file():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "grader.service.web"]
    shipped = {p for g in globs for p in WEB.glob(g) if p.is_file()}
    present = {p for folder in ("templates", "static") for p in (WEB / folder).rglob("*") if p.is_file()}
    assert present and present == shipped, sorted(str(p.relative_to(WEB)) for p in present - shipped)


def test_vendored_scripts_come_with_their_licences_and_versions():
    vendor = WEB / "static" / "vendor"
    readme = (vendor / "README.md").read_text()
    for folder, version in (("htmx", "2.0.11"), ("codemirror", "5.65.21"), ("swagger-ui", "5.35.0")):
        assert (vendor / folder / "LICENSE").is_file() and version in readme
    from grader.service.api.docs import VERSION

    assert VERSION == "5.35.0" and (vendor / "swagger-ui" / "NOTICE").is_file()
    pages = "".join(p.read_text() for p in (WEB / "templates").glob("*.html"))
    assert not re.search(r"""(src|href)=["']https?://""", pages)  # nothing from a CDN at run time
    assert Path(vendor / "htmx" / "htmx.min.js").stat().st_size > 10_000


@pytest.mark.parametrize("warming, warm_idle, shown", [
    ({"p1": "probe", "p2": "cache"}, True, "First problem (probe table), p2 (compilation cache)"),
    ({}, True, "every problem is warm"),
    ({}, False, "off (<code>--no-warm</code>)"),
])
def test_the_queue_page_says_what_is_still_warming(warming, warm_idle, shown):
    html = _queue_html(titles={"p1": "First problem"}, warming=warming, warm_idle=warm_idle)
    assert re.search(r'<dd class="warming">(.*?)</dd>', html).group(1).startswith(shown)


def _queue_html(**values) -> str:
    from datetime import datetime, timezone

    stats = SimpleNamespace(depth=0, queued_by_kind={"run": 0, "submit": 0}, oldest_age_seconds=None, running=0,
                            done=0, workers=SimpleNamespace(alive=2, busy=0, grading=0, own_work=0), own_work=[])
    context = dict(stats=stats, configured=2, engine="local", failures=[], running=[], storage=[], budget=1,
                   now=datetime.now(timezone.utc), titles={}, warming={}, warm_idle=True, suite=None, suite_failed={})
    return ENV.get_template("_queue.html").render(**{**context, **values})


@pytest.mark.parametrize("suite, shown", [("0123abcd0123abcd", "drawn suite <code>0123abcd0123abcd</code>"),
                                          (None, "the shipped hidden cases")])
def test_the_queue_page_names_the_suite_whose_hidden_cases_grade(suite, shown):
    html = _queue_html(suite=suite)
    assert re.search(r'<dd class="suite">(.*?)</dd>', html).group(1).startswith(shown)


def test_the_queue_page_counts_the_servers_own_work_as_busy_and_says_what_it_does_only_when_there_is_some():
    assert "own-work" not in _queue_html()
    stats = SimpleNamespace(depth=0, queued_by_kind={"run": 0, "submit": 0}, oldest_age_seconds=None, running=0,
                            done=0, workers=SimpleNamespace(alive=2, busy=2, grading=1, own_work=1),
                            own_work=["warming <p1> (misconception hints)"])
    html = _queue_html(stats=stats)
    assert "2 alive, 2 busy: 1 grading, 1 on the server's own work" in html
    shown = re.search(r'<dd class="own-work">(.*?)</dd>', html, re.S).group(1)
    assert "<li>warming &lt;p1&gt; (misconception hints)</li>" in shown


def test_the_queue_page_lists_the_problems_whose_suite_could_not_be_drawn_only_when_there_are_some():
    assert "hidden suites not drawn" not in _queue_html(suite="0123abcd0123abcd")
    html = _queue_html(suite="0123abcd0123abcd", titles={"p1": "First problem"},
                       suite_failed={"p1": "FAILED, 0 hidden cases, 1.0 s; draw 0: <b>why</b>"})
    shown = re.search(r'<dd class="suite-failed">(.*?)</dd>', html).group(1)
    assert "<li>First problem: FAILED, 0 hidden cases, 1.0 s; draw 0: &lt;b&gt;why&lt;/b&gt;</li>" in shown


def test_a_time_is_one_format_in_utc_inside_a_time_element_that_the_script_rewrites():
    from datetime import datetime, timedelta, timezone

    new_york = timezone(timedelta(hours=-5))
    sent = SimpleNamespace(id="abc", kind="run", status="done", verdict="AC", passed=3, total=3,
                           created_at=datetime(2026, 12, 10, 18, 59, 12, 5, tzinfo=new_york))
    html = ENV.get_template("_history.html").render(rows=[sent], problem="p", title="P")
    assert ('<td><time class="local" datetime="2026-12-10T23:59:12+00:00" title="2026-12-10 23:59:12 UTC">'
            "2026-12-10 23:59 UTC</time></td>") in html


def test_the_templates_write_a_time_only_through_the_when_filter():
    for template in (WEB / "templates").glob("*.html"):
        text = template.read_text(encoding="utf-8")
        assert "<time" not in text and "strftime" not in text, template.name
        # isoformat only fills a form's time field (forms.js puts it in the viewer's zone)
        assert text.count("isoformat()") == len(re.findall(r'data-utc="\{\{ [\w.]+\.isoformat\(\) \}\}"', text))
