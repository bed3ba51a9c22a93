"""The corpus's ``# misreads:`` header (``problem/corpus.py``): how it is read, when a
quoted sentence counts as occurring in a statement, and that every built-in wrong answer
with a hint quotes its own problem's statement. (tests/corpus/test_corpus.py tests the
checks `grader validate` makes of the corpus; this file's name differs because test file
names are unique.)"""
from __future__ import annotations

import json

import pytest

from support import PROBLEMS, SUBMISSIONS

HEADER = ("# reason: value\n"
          "# hint: the norm leaves out the bias gradient.\n"
          "# misreads:   the L2 norm of $g_n$ over all $D + 1$ entries   \n")


def _write(tmp_path, name: str, text: str):
    path = tmp_path / "wrong_answer" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_misreads_header_is_read_with_reason_and_hint(tmp_path):
    from grader.problem.corpus import read_expectation

    exp = read_expectation(_write(tmp_path, "a.py", HEADER + "import jax\n"))
    assert (exp.reason, exp.hint, exp.misreads) == (
        "value", "the norm leaves out the bias gradient.", "the L2 norm of $g_n$ over all $D + 1$ entries")


def test_a_file_without_the_misreads_header_has_none(tmp_path):
    from grader.problem.corpus import read_expectation

    exp = read_expectation(_write(tmp_path, "a.py", "# hint: a mistake.\nimport jax\n"))
    assert exp.hint == "a mistake." and exp.misreads is None


def test_a_misreads_header_past_the_tenth_line_is_not_read(tmp_path):
    from grader.problem.corpus import read_expectation

    exp = read_expectation(_write(tmp_path, "a.py", "# hint: a mistake.\n" + "\n" * 9 + "# misreads: late.\n"))
    assert exp.misreads is None


def test_a_notebook_carries_misreads_in_its_first_code_cell(tmp_path):
    from grader.problem.corpus import read_expectation

    doc = {"cells": [{"cell_type": "markdown", "source": ["# misreads: not code"]},
                     {"cell_type": "code", "source": HEADER.splitlines(keepends=True)}]}
    exp = read_expectation(_write(tmp_path, "a.ipynb", json.dumps(doc)))
    assert exp.misreads == "the L2 norm of $g_n$ over all $D + 1$ entries"


STATEMENT = """2. $\\mathrm{norm}_n = \\lVert g_n \\rVert_2$, the L2 norm of $g_n$ over all $D + 1$
   entries together: the $D$ weight entries *and* the bias entry.

A gradient no longer than `max_norm` is left alone; a **longer** one is _scaled_
down to length `max_norm`.
"""


@pytest.mark.parametrize("misreads, occurs", [
    # copied from the Markdown as it stands
    ("A gradient no longer than `max_norm` is left alone;", True),
    # across a line break, and with other runs of spaces
    ("the L2 norm of $g_n$ over all $D + 1$ entries together", True),
    ("the  L2 norm of $g_n$ over all $D + 1$\tentries\ntogether", True),
    # copied from the rendered page: no backticks, stars, underscores of emphasis or $ signs
    ("A gradient no longer than max_norm is left alone; a longer one is scaled down to length max_norm.", True),
    ("the D weight entries and the bias entry.", True),
    # markup the statement does not have is ignored too
    ("the **bias** entry", True),
    # an underscore inside a word is a letter, not emphasis
    ("no longer than maxnorm", False),
    # case and punctuation count
    ("a gradient no longer than `max_norm` is left alone;", False),
    ("A gradient no longer than `max_norm` is left alone,", False),
    # absent, and empty
    ("A gradient longer than `max_norm` is left alone", False),
    ("", False),
    ("  `` ** ", False),
])
def test_whether_a_misreads_text_occurs_in_a_statement(misreads, occurs):
    from grader.problem.corpus import occurs_in

    assert occurs_in(misreads, STATEMENT) is occurs


def test_misread_sentences_maps_each_hint_to_its_sentence(problem_copy):
    from grader.problem import load_problem
    from grader.problem.corpus import misread_sentences

    root = problem_copy(submissions=True)
    wrong = root.parent.parent / "submissions" / root.name / "wrong_answer"
    (wrong / "zero_gradient_nan.py").write_text("# hint: divides by zero.\nimport jax\n")  # no misreads: left out
    found = misread_sentences(load_problem(root))
    assert found["the clipped gradients are summed; the task asks for their mean over the N examples."] == \
        "The mean of the clipped gradients over the $N$ examples."
    assert "divides by zero." not in found


PROBLEM_IDS = sorted(p.name for p in PROBLEMS.iterdir() if (p / "problem.toml").is_file())


@pytest.mark.parametrize("pid", PROBLEM_IDS)
def test_every_hinted_wrong_answer_quotes_its_statement(pid):
    from grader.common.verdicts import Verdict
    from grader.problem import load_problem
    from grader.problem.corpus import occurs_in, submission_files

    problem = load_problem(PROBLEMS / pid)
    statement = problem.statement_path.read_text(encoding="utf-8")
    hinted = [e for e in submission_files(problem, SUBMISSIONS) if e.verdict is Verdict.WA and e.hint]
    assert hinted, f"no hinted wrong answer under submissions/{pid}/"
    missing = [e.path.name for e in hinted if not e.misreads]
    absent = [(e.path.name, e.misreads) for e in hinted if e.misreads and not occurs_in(e.misreads, statement)]
    assert missing == [] and absent == []
