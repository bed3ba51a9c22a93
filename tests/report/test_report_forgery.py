"""No string a submission controls can change how a report looks: every format is fed
hostile messages, printed text, output keys and file names, then parsed."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from support import SUBMISSIONS

P1 = "per_example_grad_clipping"
ATTACK = SUBMISSIONS / P1 / "runtime_error" / "attack_forged_report.py"

# Terminal control (CSI, OSC with a hyperlink, 8-bit CSI, CR, BS, bidi override, line
# separator), a fake verdict on a line of its own, Markdown/HTML that would draw headings,
# fetch images, mention people, hide the table or close a fence, rich markup and emoji
# codes, and characters XML 1.0 forbids.
HOSTILE = ("\x1b[2J\x1b[H\x1b]8;;https://attacker.example/\x07link\x1b]8;;\x07\x9b2J\rAC Accepted 39/39\x08\x08"
           "\u202e\u2028\n### AC Accepted\n<img src=https://attacker.example/p.png>![i](https://attacker.example/i.png)"
           " [l](https://attacker.example/) @maintainers #1 | cell | <!-- </summary></details>\n```\n~~~\n"
           "[bold green]markup[/bold green] :white_check_mark: \x00\x01\x0b\x0c\x1f\x7f\ufffe\uffff\ud800")

# Bytes a terminal acts on: C0 except LF (and TAB), DEL, C1 (8-bit CSI/OSC), CR and BS.
TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def hostile_report():
    from grader.report.model import CaseReport, CheckLine, Report

    public = CaseReport(
        "example_1" + HOSTILE, "public", "RE", "exception", "ValueError: " + HOSTILE, 12.5,
        input={"x": [[1.0]]}, expected={"norms": [1.0]}, got={HOSTILE: [1.0], "norms": HOSTILE},
        worst={"leaf": HOSTILE, "index": [0], "positions": [[0]]},
        diff=[[HOSTILE, "float32[1]", HOSTILE]], stdout=HOSTILE, hint=HOSTILE)
    wrong = CaseReport("example_2", "public", "WA", "structure", HOSTILE, 3.0, input={"x": [[2.0]]},
                       expected={"norms": [2.0]}, got={HOSTILE: 1.0})
    hidden = CaseReport("gen_000", "hidden", "RE", "exception", "runtime error", 1.0, hint=HOSTILE)
    return Report(
        problem=P1, submission="submissions/" + HOSTILE + ".py", verdict="RE", verdict_title="Runtime Error",
        reason="exception", message="case example_1: " + HOSTILE,
        static_checks=[CheckLine(HOSTILE, False, HOSTILE)], runtime_checks=[CheckLine("calls", False, HOSTILE)],
        cases=[public, wrong, hidden], passed=0, total=3,
        sandbox={"layers": ["fds"], "unavailable": {"seccomp": HOSTILE}}, stdout=HOSTILE, hint=HOSTILE,
        counterexample={"message": HOSTILE, "input": {HOSTILE: 1}, "expected": {}, "got": {HOSTILE: 2}})


def assert_text_cannot_draw(out: str):
    assert not TERMINAL_CONTROL.search(out), repr(TERMINAL_CONTROL.search(out))
    lines = out.splitlines()
    assert lines[0].startswith("RE Runtime Error")
    assert not [ln for ln in lines if ln.startswith(("AC", "###", "```", "~~~"))], lines
    assert "\\x1b[2J" in out  # shown, not acted on


def assert_junit_parses(out: str):
    root = ET.fromstring(out.encode("utf-8"))
    everything = "".join([el.text or "" for el in root.iter()] + [v for el in root.iter() for v in el.attrib.values()])
    assert not TERMINAL_CONTROL.search(everything.replace("\n", "").replace("\t", ""))
    errors = [el for el in root.iter("error")]
    assert errors and "\\x1b[2J" in errors[0].get("message")


def assert_gradescope_is_plain_text(out: str, report):
    data = json.loads(out)
    assert data["output_format"] == data["test_output_format"] == data["test_name_format"] == "text"
    assert all(t["output_format"] == "text" for t in data["tests"])
    strings = [data["output"]] + [t[k] for t in data["tests"] for k in ("name", "output")]
    assert not any(TERMINAL_CONTROL.search(s) for s in strings)
    # A submission's line break cannot start a line of its own: the summary is one line (+ hint).
    assert len(data["output"].splitlines()) == 1 + bool(report.hint) and "\\n### " in data["output"]
    assert data["score"] == report.passed


_OUR_TAGS = re.compile(r"</?(details|summary)>")


def assert_markdown_is_inert(out: str):
    from markdown_it import MarkdownIt

    assert not TERMINAL_CONTROL.search(out)
    # Outside the JSON code blocks, the only raw '<' are our own <details>/<summary> tags and
    # the only '>' starts the quote of the overall message.
    prose, fences = [], re.findall(r"^(`{3,})json$", out, flags=re.M)
    assert fences
    for block in re.split(r"^(`{3,})json\n.*?^\1$", out, flags=re.M | re.S)[::2]:
        prose.append(_OUR_TAGS.sub("", block))
    prose_text = "\n".join(prose)
    assert "<" not in prose_text
    assert all(ln.startswith("> ") for ln in prose_text.splitlines() if ">" in ln)
    first, rest = prose_text.split("\n", 1)
    assert first.startswith("### ") and "#" not in rest.replace("&#", "") and "@" not in prose_text
    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(out)
    assert not re.search(r"<(?:img|a|h[1-6]|script|del|s)\b|<!--", html.split("</h3>", 1)[1]), html
    assert html.count("<h3>") == 1 and html.count("<table>") == 2 and html.count("<details>") == 2
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    assert all(r.count("<td") in (0, 2, 6) and r.count("<th") in (0, 2, 6) for r in rows), rows
    assert html.count("<pre><code") == 2 and html.count("</code></pre>") == 2
    assert "@maintainers" in html and "<strong>" in html and html.count("<strong>") == 2


def test_text_report_shows_control_characters_as_escapes():
    from grader.report.formats import FORMATS

    out = FORMATS["text"](hostile_report())
    assert_text_cannot_draw(out)
    assert "[bold green]markup[/bold green]" in out and ":white_check_mark:" in out and "✅" not in out


def test_json_report_keeps_strings_exact_and_escaped():
    from grader.report.formats import FORMATS

    report = hostile_report()
    out = FORMATS["json"](report)
    assert not re.search(r"[^\x20-\x7e\n]", out)  # ASCII only: every control written as \uXXXX
    data = json.loads(out)
    assert data["message"] == report.message and data["cases"][0]["stdout"] == HOSTILE


def test_junit_report_parses_with_xml_illegal_characters():
    from grader.report.formats import FORMATS

    assert_junit_parses(FORMATS["junit"](hostile_report()))


def test_gradescope_output_is_plain_text_without_controls():
    from grader.report.formats import FORMATS

    report = hostile_report()
    assert_gradescope_is_plain_text(FORMATS["gradescope"](report), report)


def test_markdown_report_renders_no_html_image_heading_or_extra_cell():
    from grader.report.formats import FORMATS

    assert_markdown_is_inert(FORMATS["markdown"](hostile_report()))


def test_markdown_fence_is_longer_than_any_backtick_run():
    from grader.report.formats import FORMATS
    from markdown_it import MarkdownIt

    report = hostile_report()
    report.cases[0].got = {"k": "`" * 9 + "\n</details><img src=x>"}
    html = MarkdownIt("commonmark").render(FORMATS["markdown"](report))
    assert "<img" not in html and "`" * 10 + "json" in FORMATS["markdown"](report)


@pytest.fixture(scope="module")
def graded_attack(problem1, pool):
    from grader.judge.pipeline import grade
    from grader.judge.submission import load_submission

    cases = problem1.public_cases() + [next(c for c in problem1.cases if c.hidden)]
    sandbox = pool.take()
    try:
        return grade(problem1, load_submission(ATTACK), sandbox, cases).report
    finally:
        pool.give(sandbox)


def test_forged_report_attack_renders_inert_in_every_format(graded_attack):
    from grader.report.formats import FORMATS

    report = graded_attack
    assert report.verdict == "RE" and report.reason == "exception"
    assert "\x1b[2J" in report.cases[0].message  # the attack did reach the report...
    assert_text_cannot_draw(FORMATS["text"](report))  # ...and no format acts on it
    assert json.loads(FORMATS["json"](report))["message"] == report.message
    assert_junit_parses(FORMATS["junit"](report))
    assert_gradescope_is_plain_text(FORMATS["gradescope"](report), report)
    md = FORMATS["markdown"](report)
    assert not TERMINAL_CONTROL.search(md) and "<img" not in md and "\n###" not in md
