"""Report formats, chosen by name (``--format``): text and JSON for people and
scripts, JUnit XML for CI systems, Gradescope's results.json, and Markdown for
step summaries and pull-request comments. Each is ``render(report) -> str``;
hidden cases were already reduced in ``report`` and carry no data here either.

No string in a report can change how the report looks: each format has one sanitiser
for the strings it writes (``text._e``, ``_xml``, ``_gs``, ``_md``); JSON escapes by
itself."""
from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from typing import Callable

from .model import Report, in_order_of, render_json
from .text import make_console, render_text, visible

SCHEMA_FILE = "report.schema.json"


def schema() -> dict:
    from importlib.resources import files

    return json.loads(files("grader.report").joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def _text(report: Report) -> str:
    con = make_console()
    with con.capture() as cap:
        render_text(report, con)
    return cap.get()


def _failed_checks(report: Report):
    return [c for c in report.static_checks + report.runtime_checks if not c.passed]


def _xml(text: str) -> str:
    """XML 1.0 forbids most C0 controls (a file holding one does not parse) and readers
    turn a raw CR into LF; tab and line feed are the only ones kept, the rest shown."""
    return visible(text, keep="\n\t")


def junit(report: Report) -> str:
    cases = [c for c in report.cases]
    checks = report.static_checks + report.runtime_checks
    failures = sum(1 for c in cases if c.verdict == "WA") + len(_failed_checks(report))
    errors = sum(1 for c in cases if c.verdict not in ("AC", "WA", "--"))
    total_time = sum((c.time_ms or 0) for c in cases) / 1000
    suites = ET.Element("testsuites", name="jaxjudge", tests=str(len(cases) + len(checks)))
    suite = ET.SubElement(suites, "testsuite", name=f"{report.problem}: {report.submission}",
                          tests=str(len(cases) + len(checks)), failures=str(failures), errors=str(errors),
                          skipped=str(sum(1 for c in cases if c.verdict == "--")), time=f"{total_time:.3f}")
    props = ET.SubElement(suite, "properties")
    for key in ("verdict", "reason", "message"):
        ET.SubElement(props, "property", name=key, value=str(getattr(report, key)))
    for check in checks:
        tc = ET.SubElement(suite, "testcase", classname=f"{report.problem}.checks", name=check.name, time="0")
        if not check.passed:
            ET.SubElement(tc, "failure", type="RJ" if check.name != "syntax" else "CE", message=check.message)
    for case in cases:
        tc = ET.SubElement(suite, "testcase", classname=f"{report.problem}.{case.visibility}", name=case.id,
                           time=f"{(case.time_ms or 0) / 1000:.3f}")
        if case.verdict == "--":
            ET.SubElement(tc, "skipped", message=case.message)
        elif case.verdict == "WA":
            el = ET.SubElement(tc, "failure", type=f"WA/{case.reason}", message=case.message)
            if case.visibility == "public" and case.input is not None:
                el.text = json.dumps({"input": case.input, "expected": case.expected,
                                      "got": in_order_of(case.got, case.expected)})
        elif case.verdict != "AC":
            ET.SubElement(tc, "error", type=f"{case.verdict}/{case.reason}", message=case.message)
    if report.stdout:
        ET.SubElement(suite, "system-out").text = report.stdout
    for el in suites.iter():
        el.text = _xml(el.text) if el.text is not None else None
        el.attrib = {k: _xml(v) for k, v in el.attrib.items()}
    buf = io.BytesIO()
    ET.ElementTree(suites).write(buf, encoding="utf-8", xml_declaration=True)
    return buf.getvalue().decode("utf-8") + "\n"


def _gs(text) -> str:
    """One line of Gradescope output, shown as plain text (``output_format`` "text")."""
    return visible(text)


def gradescope(report: Report) -> str:
    """Gradescope's autograder results.json: one point per case; a compile or
    requirement failure scores zero (the solution does not do what was asked)."""
    gated = report.verdict in ("CE", "RJ", "IE")
    tests = []
    for check in _failed_checks(report):
        tests.append({"name": f"requirement: {_gs(check.name)}", "score": 0, "max_score": 0, "status": "failed",
                      "output": _gs(check.message), "output_format": "text", "visibility": "visible"})
    for case in report.cases:
        ok = case.verdict == "AC"
        out = _gs(case.message)
        if case.visibility == "public" and case.input is not None and not ok:
            out += (f"\ninput: {_gs(json.dumps(case.input))}\nexpected: {_gs(json.dumps(case.expected))}"
                    f"\ngot: {_gs(json.dumps(in_order_of(case.got, case.expected)))}")
        if case.hint:
            out += f"\nhint: {_gs(case.hint)}"
        tests.append({"name": f"{case.visibility} case {_gs(case.id)}", "score": 1 if ok and not gated else 0,
                      "max_score": 1, "status": "passed" if ok else "failed", "output": out, "output_format": "text",
                      "visibility": "visible" if case.visibility == "public" else "after_published"})
    score = 0 if gated else report.passed
    summary = f"{report.verdict} {report.verdict_title}" + (f": {_gs(report.message)}" if report.message else "")
    if report.hint:
        summary += f"\nhint: {_gs(report.hint)}"
    # Gradescope renders "html", "md" and "ansi" outputs; plain text cannot draw anything.
    return json.dumps({"score": score, "max_score": report.total, "output": summary, "output_format": "text",
                       "test_output_format": "text", "test_name_format": "text", "visibility": "visible",
                       "stdout_visibility": "hidden", "tests": tests}, indent=2) + "\n"


# Markdown punctuation that could start a link or an image (which fetches from any host),
# raw HTML or a comment, a table cell, emphasis, code, a heading, an issue reference or an
# @-mention, written as character references: they show as the character in inline text, in
# table cells and inside <summary> alike, and never act as syntax. An underscore between two
# letters or digits never delimits emphasis, so identifiers stay readable.
_MD_SPECIAL = re.compile(r"[&<>|\[\]!*`~#@\\]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_MD_LIST_START = re.compile(r"^([-+=]|\d{1,9}(?=[.)]))")


def _md(text) -> str:
    """One line of Markdown inline text that renders as exactly the characters given."""
    out = _MD_SPECIAL.sub(lambda m: f"&#{ord(m.group())};", visible(text))
    return _MD_LIST_START.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group()), out)


def _fence(body: str) -> str:
    """A code fence longer than any run of backticks in ``body``, so ``body`` cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def markdown(report: Report) -> str:
    icon = "✅" if report.verdict == "AC" else "❌"
    lines = [f"### {icon} {report.verdict} {report.verdict_title} — {_md(report.problem)}", "",
             f"{_md(report.submission)}: **{report.passed}/{report.total}** cases passed."]
    if report.message:
        lines += ["", f"> {_md(report.message)}"]
    if report.hint:
        lines += ["", f"**Hint:** {_md(report.hint)}"]
    failed = _failed_checks(report)
    if failed:
        lines += ["", "| check | result |", "|---|---|"] + [f"| {_md(c.name)} | {_md(c.message)} |" for c in failed]
    if report.cases:
        lines += ["", "| case | visibility | verdict | reason | time (ms) | message |", "|---|---|---|---|---:|---|"]
        for c in report.cases:
            t = f"{c.time_ms:.1f}" if c.time_ms is not None else "-"
            lines.append(f"| {_md(c.id)} | {_md(c.visibility)} | {_md(c.verdict)} | {_md(c.reason)} | {t} "
                         f"| {_md(c.message)} |")
    for c in report.cases:
        if c.visibility == "public" and c.verdict not in ("AC", "--") and c.input is not None:
            # json.dumps escapes every control character and line break inside strings.
            body = json.dumps({"input": c.input, "expected": c.expected, "got": in_order_of(c.got, c.expected)},
                              indent=1)
            fence = _fence(body)
            lines += ["", f"<details><summary>{_md(c.id)}: {_md(c.message)}</summary>", "", f"{fence}json",
                      body, fence, "</details>"]
    return "\n".join(lines) + "\n"


FORMATS: dict[str, Callable[[Report], str]] = {
    "text": _text, "json": lambda r: render_json(r) + "\n", "junit": junit, "gradescope": gradescope,
    "markdown": markdown,
}
