"""validate's misreads check (``authoring/misreads_check.py``): a wrong answer's
``# misreads:`` text must occur in its problem's statement; a hinted wrong answer
without one is a warning; the check reads the corpus only when the corpus is graded."""
from __future__ import annotations

from support import P1

WRONG = f"submissions/{P1}/wrong_answer"


def misreads_findings(root, with_submissions=True):
    from grader.authoring.context import Validation
    from grader.authoring.misreads_check import check_misreads
    from grader.problem import load_problem

    return [(f.status, f.message) for f in check_misreads(Validation(load_problem(root), None, with_submissions))]


def _edit_header(root, name, old, new):
    path = root.parent.parent / WRONG / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_corpus_as_shipped_passes(problem_copy):
    found = misreads_findings(problem_copy(submissions=True))
    assert [s for s, _ in found] == ["pass"], found


def test_a_misreads_text_not_in_the_statement_fails_naming_the_file_and_the_text(problem_copy):
    root = problem_copy(submissions=True)
    _edit_header(root, "sum_not_mean.py", "# misreads: The mean of the clipped gradients",
                 "# misreads: The sum of the clipped gradients")
    found = misreads_findings(root)
    assert found == [("fail", "wrong_answer/sum_not_mean.py: its '# misreads:' text is not in statement.md: "
                              "'The sum of the clipped gradients over the $N$ examples.'")]


def test_a_hinted_wrong_answer_without_misreads_warns(problem_copy):
    root = problem_copy(submissions=True)
    path = root.parent.parent / WRONG / "sum_not_mean.py"
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                            if not line.startswith("# misreads:")), encoding="utf-8")
    found = misreads_findings(root)
    assert [s for s, _ in found] == ["warn"] and "sum_not_mean.py has a '# hint:' but no '# misreads:'" in found[0][1]


def test_a_statement_edit_that_drops_a_quoted_sentence_fails(problem_copy):
    root = problem_copy(submissions=True)
    statement = root / "statement.md"
    text = statement.read_text(encoding="utf-8")
    statement.write_text(text.replace("contributes zero, and never NaN", "contributes nothing"), encoding="utf-8")
    found = misreads_findings(root)
    assert [(s, m.split(":")[0]) for s, m in found] == [("fail", "wrong_answer/zero_gradient_nan.py")]


def test_without_submissions_the_corpus_is_not_read(problem_copy):
    """validate --no-submissions keeps proofs whose key leaves the corpus out, so a check
    that read it there could keep a pass after the corpus changed."""
    root = problem_copy(submissions=True)
    _edit_header(root, "sum_not_mean.py", "# misreads: The mean", "# misreads: Nowhere")
    assert misreads_findings(root, with_submissions=False) == []


def test_the_check_runs_in_validate_and_does_not_stop_the_mutants():
    from grader.authoring.misreads_check import CHECK, check_misreads
    from grader.authoring.validate import CHECKS, NOT_NEEDED_BY_MUTANTS

    assert check_misreads in CHECKS and CHECK in NOT_NEEDED_BY_MUTANTS
