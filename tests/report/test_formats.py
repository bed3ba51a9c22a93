"""Each report format, checked against its schema or a real parser."""
import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from support import SUBMISSIONS

P1 = "per_example_grad_clipping"


@pytest.fixture(scope="module")
def reports(problem1, pool):
    from grader.judge.pipeline import grade
    from grader.judge.submission import load_submission

    files = [SUBMISSIONS / P1 / "wrong_answer" / "norm_without_bias.py", SUBMISSIONS / P1 / "accepted" / "flat_norm.py",
             SUBMISSIONS / P1 / "rejected" / "decoy_call.py", SUBMISSIONS / P1 / "compile_error" / "syntax_error.py"]
    sandbox = pool.take()
    try:
        return {f.parent.name: grade(problem1, load_submission(f), sandbox).report for f in files}
    finally:
        pool.give(sandbox)


def hidden_values(problem1):
    return [json.dumps(c.input["x"]) for c in problem1.cases if c.hidden]


def test_json_matches_schema(reports):
    from grader.report.formats import FORMATS, schema

    for report in reports.values():
        jsonschema.validate(json.loads(FORMATS["json"](report)), schema())


def test_schema_rejects_leaky_hidden_case(reports):
    from grader.report.formats import schema

    data = reports["wrong_answer"].to_json()
    hidden = next(c for c in data["cases"] if c["visibility"] == "hidden")
    hidden["input"] = {"x": [[1.0]]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema())


def test_junit_parses_and_counts(reports, problem1):
    from grader.report.formats import junit

    root = ET.fromstring(junit(reports["wrong_answer"]).encode())
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases)
    failures = [c for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures")) == len(failures) > 0
    hidden = [c for c in cases if c.get("classname").endswith(".hidden")]
    assert hidden and all((c.find("failure") is None or c.find("failure").text is None) for c in hidden)
    text = junit(reports["wrong_answer"])
    assert not any(v in text for v in hidden_values(problem1))
    rj = ET.fromstring(junit(reports["rejected"]).encode())
    assert any(tc.find("failure") is not None and tc.get("classname").endswith(".checks")
               for tc in rj.iter("testcase"))


def test_gradescope_results(reports, problem1):
    from grader.report.formats import gradescope

    wa = json.loads(gradescope(reports["wrong_answer"]))
    assert wa["max_score"] == len(problem1.cases) and wa["score"] == reports["wrong_answer"].passed
    vis = {t["name"].split()[0]: t["visibility"] for t in wa["tests"]}
    assert vis == {"public": "visible", "hidden": "after_published"}
    assert all(t["status"] in ("passed", "failed") for t in wa["tests"])
    ac = json.loads(gradescope(reports["accepted"]))
    assert ac["score"] == ac["max_score"]
    assert json.loads(gradescope(reports["rejected"]))["score"] == 0
    assert json.loads(gradescope(reports["compile_error"]))["score"] == 0
    assert not any(v in gradescope(reports["wrong_answer"]) for v in hidden_values(problem1))


def test_markdown_summary(reports):
    from grader.report.formats import markdown

    md = markdown(reports["wrong_answer"])
    assert md.startswith("### ❌ WA Wrong Answer") and "| case | visibility |" in md and "<details>" in md
    assert markdown(reports["accepted"]).startswith("### ✅ AC")


def test_cli_writes_each_format_to_its_output_file_replacing_it_whole(tmp_path):
    import subprocess
    import sys

    from support import ROOT

    for fmt in ("junit", "gradescope", "markdown", "json"):
        out = tmp_path / f"report.{fmt}"
        out.write_text("x" * 100_000)  # a longer old report: nothing of it may remain
        r = subprocess.run([sys.executable, "-m", "grader", "grade", str(SUBMISSIONS / P1 / "compile_error" /
                            "syntax_error.py"), "--problem", P1, "--format", fmt, "-o", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert r.returncode == 1 and out.read_text() and r.stdout == "" and "x" * 100 not in out.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"report.{f}" for f in
                                                                ("junit", "gradescope", "markdown", "json"))
    schema = subprocess.run([sys.executable, "-m", "grader", "schema"], capture_output=True, text=True)
    assert json.loads(schema.stdout)["title"] == "JAX Judge grading report"


def _keys_apart() -> "object":
    """A failing public case whose reference writes ``w`` before ``b`` and whose learner's
    output came back as ``b`` before ``w`` (a counterexample alike)."""
    from grader.report.model import CaseReport, Report

    expected = {"grads": {"w": [0.5, 1.0], "b": 0.25}, "norms": [1.0]}
    got = {"norms": [2.0], "grads": {"b": 0.5, "w": [1.0, 2.0]}, "extra": 1}
    case = CaseReport("example_1", "public", "WA", "value", "off", 1.0, input={"x": [1.0]}, expected=expected,
                      got=got)
    return Report("p", "s.py", "WA", "Wrong Answer", "value", "case example_1: off", cases=[case], total=1,
                  counterexample={"message": "off", "input": {"x": [2.0]}, "expected": expected, "got": got})


# got written in expected's order; a key expected lacks comes last.
GOT_IN_ORDER = '{"grads": {"w": [1.0, 2.0], "b": 0.5}, "norms": [2.0], "extra": 1}'


@pytest.mark.parametrize("fmt", ["text", "gradescope", "markdown", "junit"])
def test_got_is_written_with_its_keys_in_the_order_of_expected(fmt):
    from grader.report.formats import FORMATS

    report = _keys_apart()
    out = FORMATS[fmt](report)
    if fmt == "gradescope":
        out = json.loads(out)["tests"][0]["output"]
    elif fmt == "junit":
        out = ET.fromstring(out.encode()).find(".//failure").text
    elif fmt == "markdown":
        out = json.dumps(json.loads(out.split("```json\n")[1].split("\n```")[0])["got"])
    assert GOT_IN_ORDER in out, out
    assert list(report.cases[0].got) == ["norms", "grads", "extra"]  # the report's data stays as it came


def test_the_text_report_writes_the_counterexample_in_the_order_of_expected():
    from grader.report.formats import FORMATS

    text = FORMATS["text"](_keys_apart())
    assert text.count(GOT_IN_ORDER) == 2  # the case and the counterexample
