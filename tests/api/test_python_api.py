"""The Python API (``grader.api``, re-exported lazily from ``grader``): the verdicts and
counts ``grader grade --format json`` gives the same files, a Run's public cases only,
notebooks with a cell tag, and clear errors for an unknown problem or a bad argument.
``import grader`` stays cheap: neither the API nor JAX comes with it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest
from support import ROOT, SUBMISSIONS, drawn_suite, stripped_copy
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

P1 = "per_example_grad_clipping"
ACCEPTED = SUBMISSIONS / P1 / "accepted" / "flat_norm.py"
WRONG = SUBMISSIONS / P1 / "wrong_answer" / "norm_without_bias.py"


def cli_json(path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path), "--problem", P1, "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def judge():
    from grader import Judge

    with Judge(workers=1) as j:
        yield j


def test_import_grader_is_cheap_and_the_api_comes_on_first_use():
    code = ("import sys, grader\n"
            "assert 'grader.api' not in sys.modules and 'jax' not in sys.modules, sorted(sys.modules)\n"
            "from grader import Judge, grade_file, grade_source\n"
            "import grader.api as api\n"
            "assert grade_file is api.grade_file and Judge is api.Judge and grade_source is api.grade_source\n"
            "assert 'jax' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_an_accepted_file_matches_grader_grade():
    from grader import grade_file
    from grader.report.model import Report

    report = grade_file(ACCEPTED, P1)  # one sandbox for the one grade, as `grader grade`
    assert isinstance(report, Report)
    cli = cli_json(ACCEPTED)
    assert (report.verdict, report.passed, report.total) == ("AC", cli["passed"], cli["total"]) == \
        (cli["verdict"], cli["total"], cli["total"])
    assert report.problem_version == cli["problem_version"] and report.judge_version == cli["judge_version"]


@pytest.mark.slow
def test_a_wrong_answer_matches_grader_grade_in_a_warm_judge(judge):
    report = judge.grade_file(str(WRONG), P1)
    cli = cli_json(WRONG)
    assert report.verdict == cli["verdict"] == "WA"
    assert (report.passed, report.total) == (cli["passed"], cli["total"])
    assert 0 < report.passed < report.total
    hidden = [c for c in report.cases if c.visibility == "hidden"]
    assert hidden and all(c.input is None and c.expected is None and c.got is None for c in hidden)


def test_public_cases_only_and_a_source_string(judge):
    from grader.problem import find_problem

    problem = find_problem(P1)
    report = judge.grade_source(ACCEPTED.read_text(), problem, cases="public", feedback=False, path="mine.py")
    assert report.verdict == "AC" and report.passed == report.total == 3
    assert report.submission == "mine.py" and [c.visibility for c in report.cases] == ["public"] * 3


def test_a_notebook_with_a_cell_tag(judge, tmp_path):
    src = ACCEPTED.read_text()
    nb = new_notebook()
    nb.cells = [new_markdown_cell("# Clipping"), new_code_cell(src, metadata={"tags": ["solution"]}),
                new_markdown_cell("scratch"), new_code_cell("%timeit per_example_grad_clip")]
    path = tmp_path / "work.ipynb"
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    report = judge.grade_file(path, P1, cases="public", cell_tag="solution")
    assert report.verdict == "AC" and report.passed == 3, report.message
    untagged = judge.grade_file(path, P1, cases="public")  # the IPython cell is graded too: CE, naming it
    assert untagged.verdict == "CE" and "cell 4" in untagged.message


def test_an_unknown_problem_and_bad_arguments_raise_clear_errors(judge, tmp_path):
    from grader import grade_file
    from grader.api import ProblemError, SubmissionError

    with pytest.raises(ProblemError, match="no_such_problem: no such problem"):
        grade_file(ACCEPTED, "no_such_problem")
    with pytest.raises(ProblemError, match="no such problem"):
        judge.grade_source("x = 1", "no_such_problem")
    with pytest.raises(ProblemError, match="lower case"):
        judge.grade_file(ACCEPTED, "Not A Problem")
    with pytest.raises(ValueError, match="'all' or 'public'"):
        judge.grade_file(ACCEPTED, P1, cases="hidden")
    with pytest.raises(SubmissionError, match="no such file"):
        judge.grade_file(tmp_path / "missing.py", P1)
    with pytest.raises(SubmissionError, match="notebooks"):
        judge.grade_source("x = 1", P1, cell_tag="solution")


def test_a_closed_judge_refuses_to_grade():
    from grader import Judge

    j = Judge()
    j.close()  # never started: no sandbox to end
    with pytest.raises(RuntimeError, match="closed"):
        j.grade_source("x = 1", P1)
    with pytest.raises(RuntimeError, match="closed"):
        j.__enter__()
    with pytest.raises(ValueError, match="workers"):
        Judge(workers=0)


def test_the_api_refuses_a_problem_installed_without_its_hidden_cases_and_says_to_pass_a_suite(tmp_path,
                                                                                                  monkeypatch):
    from grader import Judge, grade_file, grade_source
    from grader.api import SuiteError
    from grader.problem import load_problem
    from grader.problem.catalogue import PROBLEMS_ENV

    bare = load_problem(stripped_copy(tmp_path, P1, "bare_clipping"))
    monkeypatch.setenv(PROBLEMS_ENV, str(tmp_path))
    source = ACCEPTED.read_text()
    judge = Judge(workers=1)  # never entered: the refusal comes before a sandbox is taken
    try:
        for grade in (lambda p, c: grade_file(ACCEPTED, p, cases=c), lambda p, c: grade_source(source, p, cases=c),
                      lambda p, c: judge.grade_source(source, p, cases=c)):
            for problem in (bare, "bare_clipping"):
                for cases in ("all", "public"):
                    with pytest.raises(SuiteError, match=r"ships without its hidden cases.*grader suite draw "
                                                         r"--suite DIR, then pass suite=DIR"):
                        grade(problem, cases)
    finally:
        judge.close()


def test_the_api_refuses_a_suite_folder_without_a_drawn_suite_for_the_problem(tmp_path):
    from grader import grade_source
    from grader.api import SuiteError
    from grader.problem.suite import load_secret

    with pytest.raises(SuiteError, match="no suite secret"):
        grade_source(ACCEPTED.read_text(), P1, suite=tmp_path)
    load_secret(tmp_path / "secret", create=True)
    with pytest.raises(SuiteError, match="no drawn suite for this revision"):
        grade_source(ACCEPTED.read_text(), P1, suite=tmp_path)


@pytest.mark.slow
def test_the_api_grades_a_stripped_problem_with_the_drawn_suite_it_is_given(tmp_path):
    from grader import Judge, grade_file
    from grader.problem import load_problem

    bare = load_problem(stripped_copy(tmp_path, P1, "bare_clipping"))
    suite_id, ids = drawn_suite(tmp_path / "suite", bare, P1, keep=4)
    public = len(bare.public_cases())
    report = grade_file(WRONG, bare, suite=tmp_path / "suite")
    assert report.suite == suite_id and report.total == public + 4 and report.verdict == "WA"
    assert [c.id for c in report.cases if c.visibility == "hidden"] == ids
    with Judge(workers=1, suite=str(tmp_path / "suite")) as judge:
        report = judge.grade_file(ACCEPTED, bare)
    assert (report.verdict, report.suite, report.passed, report.total) == ("AC", suite_id, public + 4, public + 4)
