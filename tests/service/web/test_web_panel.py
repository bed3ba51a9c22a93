"""The result panel says what matters first: the verdict with the counts by visibility
and by outcome, the hint once, the first failing public case open, a compile error as a
compile error with its line, and the full table of cases behind a disclosure, with
compile and run times apart; a custom run shows the reference's output beside the
learner's. Rendered from stored reports, as the pages render them."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("markdown_it")

from grader.service.web.pages import ENV  # noqa: E402
from grader.service.web.report_view import report_view  # noqa: E402

HINT = "the clipped gradients are summed; the task asks for their mean over the N examples."


def case(cid: str, visibility: str, verdict: str = "WA", reason: str = "value", **extra) -> dict:
    message = {"value": "wrong value", "nan": "output holds NaN or infinity", "": "passed"}[reason]
    if visibility == "public" and verdict != "AC":
        message = f"'grads.w' is off at index (0,) on {cid}"
    out = {"id": cid, "visibility": visibility, "verdict": verdict, "reason": reason, "message": message,
           "time_ms": 130.0, "hint": HINT if verdict == "WA" else None,
           "cost": {"compile_ms": 120.4, "run_ms": 1.26}}
    if visibility == "public":
        out.update(input={"x": [1.0]}, expected={"y": [0.5]}, got={"y": [1.5]})
    return {**out, **extra}


# As sum_not_mean.py's Submit: public 1/3, hidden 4/36 (31 wrong value, 1 NaN).
CASES = ([case("example_1", "public"), case("example_2", "public"), case("example_3", "public", "AC", "")]
         + [case(f"gen_{i:03d}", "hidden") for i in range(31)] + [case("gen_031", "hidden", reason="nan")]
         + [case(f"gen_{i:03d}", "hidden", "AC", "") for i in range(32, 36)])
WA = {"problem": "p", "submission": "s.py", "verdict": "WA", "verdict_title": "Wrong Answer", "reason": "value",
      "message": f"case example_1: {CASES[0]['message']}", "passed": 5, "total": 39, "hint": HINT,
      "static_checks": [{"name": "syntax", "passed": True, "message": "the file parses"}],
      "runtime_checks": [{"name": "jax.vmap of jax.grad", "passed": True, "message": "vmap of grad seen"}],
      "cases": CASES, "sandbox": {"layers": ["rlimits"], "unavailable": {}}, "stdout": ""}


def panel(report: dict, kind: str = "submit", source: str | None = None) -> str:
    sub = SimpleNamespace(id="abc", kind=kind, status="done", verdict=report["verdict"])
    return ENV.get_template("_panel.html").render(sub=sub, pending=False, report=report_view(report, kind, source),
                                                  full=False, position=None, age=None, viewer=None, api="/api/v1",
                                                  path="/")


def test_the_verdict_line_counts_cases_by_visibility_and_by_outcome():
    html = panel(WA)
    count = re.search(r'<span class="count">(.*?)</span>', html).group(1)
    assert count == "public 1/3, hidden 4/36: 33 wrong value, 1 output holds NaN or infinity"


def test_the_hint_shows_once_above_the_cases_not_on_every_row():
    html = panel(WA)
    assert html.count(f"<strong>Hint:</strong> {HINT}") == 1 and "<em class=\"hint\">" not in html
    assert html.index('class="hint"') < html.index('class="case-detail"')


def test_a_wrong_answer_graded_before_its_hints_were_built_says_a_hint_may_follow():
    early = dict(WA, hint=None, hint_may_follow=True, cases=[dict(c, hint=None) for c in CASES])
    assert 'class="muted hint-may-follow"' in panel(early) and "<strong>Hint:</strong>" not in panel(early)
    assert "hint-may-follow" not in panel(WA)  # a hint shown needs no such line
    assert "hint-may-follow" not in panel(dict(WA, hint=None))  # nor a grade whose table was complete


def test_a_row_keeps_a_hint_that_differs_from_the_grades():
    other = dict(WA, cases=[dict(CASES[3], hint="the bias is left out")] + CASES[4:])
    assert "<em class=\"hint\">hint: the bias is left out</em>" in panel(other)


def test_the_verdicts_message_is_not_repeated_when_a_case_says_it():
    html = panel(WA)
    assert '<p class="message">' not in html
    assert html.count(CASES[0]["message"].replace("'", "&#39;")) == 2  # the open case's summary and its table row


def test_only_the_first_failing_public_case_is_open_and_the_full_table_waits_behind_a_disclosure():
    html = panel(WA)
    assert re.findall(r'<details class="case-detail"( open)? data-detail="([^"]+)"', html) == [
        (" open", "example_1"), ("", "example_2"), ("", "example_3")]
    table = re.search(r'<details class="all-cases">\s*<summary>All 39 cases, one row each</summary>(.*?)</details>',
                      html, re.S)
    assert table and '<table class="cases">' in table.group(1) and html.index("<details class=\"all-cases\">") > \
        html.index('data-detail="example_1"')


def test_each_row_shows_compile_and_run_time_apart():
    html = panel(WA)
    assert "<th scope=\"col\" title=\"tracing and compiling the program; 0 when it reused one\">Compile ms</th>" in html
    row = re.search(r'<tr class="bad" data-case="gen_000">(.*?)</tr>', html, re.S).group(1)
    assert '<td class="num">120</td><td class="num">1.3</td>' in row


def test_the_checks_summary_beside_a_wrong_answer_says_the_code_met_them():
    assert "<summary>The judge's checks of your code: all 2 met</summary>" in panel(WA)


def test_a_syntax_error_is_a_compile_error_with_its_line_not_a_requirement():
    ce = {"problem": "p", "submission": "s.py", "verdict": "CE", "verdict_title": "Compile Error", "reason": "compile",
          "message": "line 4: expected ':'", "passed": 0, "total": 39,
          "static_checks": [{"name": "syntax", "passed": False, "message": "line 4: expected ':'"}],
          "runtime_checks": [], "cases": [], "sandbox": {}, "stdout": ""}
    source = "import jax\n\n\ndef per_example_grad_clip(params, x, y, max_norm)\n    return 1\n"
    html = panel(ce, "run", source)
    assert "<h3>Compile error</h3>" in html and "Requirements not met" not in html
    assert '<span class="lineno">4</span> def per_example_grad_clip(params, x, y, max_norm)' in html


def test_a_custom_run_shows_the_references_output_beside_the_learners_open():
    custom = dict(WA, message="case custom: off", passed=0, total=1,
                  cases=[dict(case("custom", "public"), stdout="rows: 1\n")])
    html = panel(custom, "custom")
    assert "Custom input: your code beside the reference" in html and '<span class="count">' not in html
    assert '<details class="case-detail" open data-detail="custom">' in html
    assert "<dt>the reference returns</dt>" in html and "<dt>your code returns</dt>" in html
    assert "rows: 1" in html and "all-cases" not in html


def test_the_screen_reader_summary_is_one_sentence_without_the_table():
    summary = re.search(r'<p class="panel-summary" hidden>([^<]*)</p>', panel(WA)).group(1)
    assert summary.startswith("Wrong Answer. public 1/3, hidden 4/36: 33 wrong value")
    assert "example_1, is open below" in summary and "gen_0" not in summary and len(summary) < 400


def test_got_shows_its_keys_in_the_order_of_expected():
    expected = {"grads": {"w": [0.5], "b": 0.25}, "norms": [1.0]}
    got = {"norms": [2.0], "grads": {"b": 0.5, "w": [1.0]}}
    keyed = dict(WA, cases=[case("example_1", "public", expected=expected, got=got)],
                 counterexample={"message": "off", "input": {"x": [2.0]}, "expected": expected, "got": got})
    html = panel(keyed).replace("&#34;", '"')
    ordered = '{"grads": {"w": [1.0], "b": 0.5}, "norms": [2.0]}'
    assert '<dt>got</dt><dd><pre>' + ordered + '</pre></dd>' in html
    assert html.count(ordered) == 2  # the open case and the counterexample
