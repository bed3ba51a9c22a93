"""The corpus under submissions/<problem>/<verdict>/ and the checks `grader validate`
makes of it.

`grader validate` (CI runs it after the tests) grades every corpus file of every problem
once (``authoring/grading_checks.check_submissions``) and fails the problem when a file
does not get its folder's verdict and the reason code its header names, when a report
breaks the report schema (which holds a hidden case to its id, verdict and reason) or
shows a hidden case's input value, or when grading the corpus wrote to the problems, to
the corpus, or to a /tmp path a corpus file names (``authoring/report_checks``). This
file grades no corpus: it grades one attack file, and proves with it and with crafted
reports and files that the report and disk checks fail when they should and stay quiet
on a real report; it also checks what the corpus's headers promise. The verdict and
reason checks are proved by tests/authoring."""
from __future__ import annotations

import os
import re
import shutil
import uuid

import numpy as np
import pytest

from support import P1, SUBMISSIONS

LINE_CHANNEL = SUBMISSIONS / P1 / "runtime_error" / "attack_line_number_channel.py"


@pytest.fixture(scope="module")
def line_channel_report(problem1, pool):
    """The report of one real attack file: it fails at run time, with runtime checks and
    hidden cases in its report."""
    from grader.judge.pipeline import grade
    from grader.judge.submission import load_submission

    return next(pool.submit_all(lambda sandbox, path: grade(problem1, load_submission(path), sandbox),
                                [LINE_CHANNEL])).report


def _faults(problem, data):
    from grader.authoring.report_checks import hidden_numbers, report_faults, schema_validator

    return report_faults(data, hidden_numbers(problem), schema_validator())


def test_a_graded_report_of_the_corpus_has_no_faults(problem1, line_channel_report):
    data = line_channel_report.to_json()
    assert any(c["visibility"] == "hidden" for c in data["cases"])
    assert _faults(problem1, data) == []


def test_a_hidden_case_showing_its_input_breaks_the_report_schema(problem1, line_channel_report):
    data = line_channel_report.to_json()
    i = next(i for i, c in enumerate(data["cases"]) if c["visibility"] == "hidden")
    data["cases"][i]["input"] = {"max_norm": 1.0}
    assert _faults(problem1, data) == [f"the report breaks the report schema at cases/{i}/input: "
                                       f"{{'max_norm': 1.0}} is not of type 'null'"]


def test_a_report_without_a_verdict_breaks_the_report_schema(problem1, line_channel_report):
    data = line_channel_report.to_json()
    del data["verdict"]
    assert _faults(problem1, data) == ["the report breaks the report schema at the top level: "
                                       "'verdict' is a required property"]


def _floats(v):
    if isinstance(v, dict):
        return [x for w in v.values() for x in _floats(w)]
    return [x for w in v for x in _floats(w)] if isinstance(v, list) else [v] if isinstance(v, float) else []


@pytest.mark.parametrize("render", [repr, lambda v: str(np.float32(v)), lambda v: f"{v:.6g}", lambda v: f"{v:.9g}"],
                         ids=["repr", "float32", "6 digits", "9 digits"])
def test_a_hidden_input_value_anywhere_in_the_report_is_a_fault(problem1, line_channel_report, render):
    hidden = next(c for c in problem1.cases if c.hidden)
    value = render(hidden.input["x"][0][0])
    data = line_channel_report.to_json()
    data["message"] += f" (x[0] was {value})"
    assert _faults(problem1, data) == [f"the report shows hidden input values: {value}"]


def test_a_hidden_input_value_inside_a_longer_number_is_not_a_fault(problem1, line_channel_report):
    """2.4485 inside 12.44853 is a coincidence, which a suite of many hidden values meets."""
    hidden = next(c for c in problem1.cases if c.hidden)
    data = line_channel_report.to_json()
    data["message"] += f" (1{abs(hidden.input['x'][0][0]):.6g}3)"
    assert _faults(problem1, data) == []


@pytest.mark.parametrize("where", ["time_ms", "compile_ms", "run_ms"])
def test_a_measured_time_that_rounds_to_a_hidden_input_value_is_not_a_fault(problem1, line_channel_report, where):
    """ema_with_scan's hidden 11.34299087 is 11.343 to 6 digits, which a case once took in ms."""
    from grader.authoring.report_checks import hidden_numbers

    value = float(next(n for n in sorted(hidden_numbers(problem1)) if not n.startswith("-") and len(n) == 8))
    data = line_channel_report.to_json()
    case = data["cases"][-1]
    if where == "time_ms":
        case["time_ms"] = value
    else:
        case["cost"] = {"compile_ms": 1.0, "run_ms": 1.0, "ref_compile_ms": 1.0, "ref_run_ms": 1.0, where: value}
    assert _faults(problem1, data) == []
    data["message"] += f" ({value:.6g})"
    assert _faults(problem1, data) == [f"the report shows hidden input values: {value:.6g}"]


def test_a_hidden_input_that_is_a_short_decimal_in_float32_does_not_count():
    """adamw_from_scratch's hidden beta1 0.8999999761581421 is 0.9 in float32, which any
    report may hold for other reasons (its public cases do)."""
    from grader.authoring.report_checks import hidden_numbers
    from grader.problem import find_problem

    problem = find_problem("adamw_from_scratch")
    hidden = [v for c in problem.cases if c.hidden for v in _floats(c.input)]
    shown = hidden_numbers(problem)
    assert 0.8999999761581421 in hidden and not {"0.8999999761581421", "0.9", "0.899999976"} & shown
    assert len(shown) > 1000


def test_the_disk_watch_names_what_grading_wrote_to_the_problems_the_corpus_or_a_named_tmp_path(problem_copy):
    from grader.authoring.report_checks import DiskWatch
    from grader.problem import load_problem

    problem = load_problem(problem_copy())
    submissions = problem.root.parent.parent / "submissions"
    target = f"/tmp/jaxjudge_watch_{uuid.uuid4().hex}"
    attack = submissions / P1 / "runtime_error" / "attack_writes.py"
    attack.parent.mkdir()
    attack.write_text(f"# reason: exception\nopen({target!r}, 'w')\n")
    watch = DiskWatch.start(problem, [attack], submissions)
    assert watch.changes() == []
    case = problem.cases[0].path
    try:
        (problem.root / "planted.py").write_text("")
        case.write_text(case.read_text() + " ")
        attack.unlink()
        open(target, "w").close()
        assert watch.changes() == [f"{case} was changed", f"{problem.root / 'planted.py'} was created",
                                   f"{attack} was deleted", f"{target} was created"]
    finally:
        os.unlink(target)


@pytest.mark.slow  # grades one file over the problem's whole suite, and builds its probe table
def test_validate_fails_a_report_that_shows_a_hidden_input(problem_copy, pool):
    """A public case holding a hidden case's input puts hidden values in every report:
    validate's submission check fails that file's report, and nothing else."""
    from grader.authoring.context import Validation
    from grader.authoring.grading_checks import check_submissions
    from grader.problem import load_problem

    folder = problem_copy()
    shutil.copy(next(folder.glob("cases/hidden/*.json")), folder / "cases" / "public" / "copied_hidden.json")
    (folder.parent.parent / "submissions" / P1 / "wrong_answer").mkdir()
    shutil.copy(SUBMISSIONS / P1 / "wrong_answer" / "norm_without_bias.py",
                folder.parent.parent / "submissions" / P1 / "wrong_answer")
    findings = check_submissions(Validation(load_problem(folder), pool))
    failed = [f for f in findings if f.status == "fail"]
    assert [(f.check, f.message.partition(": ")[0]) for f in failed] == [
        ("submission reports", "wrong_answer/norm_without_bias.py")]
    assert "the report shows hidden input values" in failed[0].message
    assert [f.message for f in findings if f.status == "warn"] == []


def test_every_file_names_its_reason_and_the_corpus_covers_every_verdict_and_reason():
    """validate fails a file whose reason is not its header's, so the headers are what
    the graded reports hold."""
    from grader.problem.corpus import read_expectation

    seen = set()
    for path in sorted(SUBMISSIONS.glob(f"{P1}/*/*.py")):
        exp = read_expectation(path)
        assert exp is not None and (exp.reason is not None) == (exp.verdict.value != "AC"), path
        seen.add((exp.verdict.value, exp.reason or ""))
    for pair in [("AC", ""), ("WA", "value"), ("WA", "nan"), ("WA", "dtype"), ("WA", "shape"), ("WA", "structure"),
                 ("WA", "type"), ("WA", "params_mutated"), ("RJ", "requirement"), ("CE", "compile"),
                 ("RE", "exception"), ("TLE", "time"), ("MLE", "memory"), ("OLE", "output_size")]:
        assert pair in seen, pair


def test_runtime_checks_name_no_line_reached_only_in_hidden_cases(line_channel_report):
    """attack_line_number_channel picks which line calls jax.grad from a hidden input; the
    runtime checks still name the lines reached while loading and in public cases."""
    source = LINE_CHANNEL.read_text().splitlines()
    hidden_only = {i + 1 for i, line in enumerate(source) if "jax.grad(_noop)" in line}
    public = next(i + 1 for i, line in enumerate(source) if "jax.vmap(jax.grad(_loss)" in line)
    report = line_channel_report
    named = {int(n) for c in report.runtime_checks for n in re.findall(r"\d+", c.message.split("line", 1)[-1])
             if "line" in c.message}
    assert public in named, report.runtime_checks
    assert not named & hidden_only, named & hidden_only


def test_every_attack_file_names_its_verdict_reason_the_attack_and_what_stops_it():
    """SECURITY.md: each attack file's second header line names the attack and the layer
    that stops it (the first, its reason code)."""
    attacks = sorted(SUBMISSIONS.glob("*/*/attack_*.py"))
    assert len(attacks) > 100
    for path in attacks:
        first, second = path.read_text().splitlines()[:2]
        assert first.startswith("# reason: ") and len(first) > len("# reason: "), path
        assert second.startswith("# attack: ") and len(second) > 40, path

