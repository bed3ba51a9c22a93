"""editorial.md and [editorial] show_reference: validate's check of the file, the
template `grader new` writes, the metadata key, and the problem version, which an
editorial does not change."""
import subprocess
import sys

import pytest

from support import PROBLEMS

P1 = "per_example_grad_clipping"


def editorial_findings(root):
    from grader.authoring.context import Validation
    from grader.authoring.editorial_check import check_editorial
    from grader.problem import load_problem

    return [(f.status, f.message) for f in check_editorial(Validation(load_problem(root), pool=None))]


@pytest.mark.parametrize("pid", [P1, "dp_sgd_mlp_step"])
def test_the_written_editorials_pass(pid):
    found = editorial_findings(PROBLEMS / pid)
    assert [s for s, _ in found] == ["pass"] and "renders" in found[0][1], found


def test_a_problem_without_an_editorial_warns(problem_copy):
    root = problem_copy()
    (root / "editorial.md").unlink()
    found = editorial_findings(root)
    assert [s for s, _ in found] == ["warn"] and "no editorial.md" in found[0][1]
    assert "reference alone" in found[0][1]  # show_reference = true without an editorial is fine


def test_the_template_of_grader_new_warns(problem_copy):
    from grader.authoring.scaffold import FILES

    root = problem_copy()
    (root / "editorial.md").write_text(FILES["editorial.md"].format(title="Clipping"), encoding="utf-8")
    assert editorial_findings(root) == [("warn", "editorial.md is still the template: write it and delete the "
                                                 "line that says it is a template, or delete the file")]


@pytest.mark.parametrize("content, words", [
    (b"", "is empty"),
    (b"  \n\n", "is empty"),
    (b"# Title\n\ncaf\xe9 in Latin-1\n", "cannot be read as UTF-8"),
    (b"The idea, with no title.\n", "'# ' title"),
    (b"\xef\xbb\xbf# Title after a byte order mark\n\nText.\n", "'# ' title"),
    (b"# Title only\n\n", "only its title"),
    (b"# Title\n\nSome text.\n\n```python\nx = 1\n", "line 5: a code fence is never closed"),
])
def test_an_editorial_that_does_not_render_fails(problem_copy, content, words):
    root = problem_copy()
    (root / "editorial.md").write_bytes(content)
    found = editorial_findings(root)
    assert [s for s, _ in found] == ["fail"] and words in found[0][1], found


def test_raw_html_in_an_editorial_warns(problem_copy):
    root = problem_copy()
    (root / "editorial.md").write_text("# Title\n\nText.\n\n<div>raw</div>\n", encoding="utf-8")
    assert editorial_findings(root) == [("warn", "editorial.md line 5: raw HTML is shown as text on the site "
                                                 "(use Markdown only)")]


def test_show_reference_defaults_to_false_and_must_be_a_boolean(problem_copy):
    from grader.problem import ProblemError, load_problem

    assert load_problem(PROBLEMS / P1).meta.show_reference is True
    assert load_problem(PROBLEMS / "dp_sgd_mlp_step").meta.show_reference is False
    root = problem_copy()
    toml = (root / "problem.toml").read_text()
    for bad, words in (("show_reference = 1", "'editorial.show_reference' must be true or false"),
                       ("show_solution = true", "unknown key 'editorial.show_solution'")):
        (root / "problem.toml").write_text(toml.replace("show_reference = true", bad))
        with pytest.raises(ProblemError, match=words):
            load_problem(root)


def test_editing_the_editorial_keeps_the_problem_version(problem_copy):
    from grader.problem import load_problem
    from grader.problem.catalogue import content_hash

    root = problem_copy()
    before = content_hash(load_problem(root))
    (root / "editorial.md").write_text("# Another editorial\n\nRewritten.\n", encoding="utf-8")
    assert content_hash(load_problem(root)) == before
    (root / "editorial.md").unlink()
    assert content_hash(load_problem(root)) == before
    (root / "statement.md").write_text((root / "statement.md").read_text() + "\nOne more line.\n")
    assert content_hash(load_problem(root)) != before  # what grading reads still counts


def test_grader_new_writes_an_editorial_that_validate_flags_as_the_template(tmp_path):
    (tmp_path / "problems").mkdir()
    made = subprocess.run([sys.executable, "-m", "grader", "new", "toy_problem"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    text = (tmp_path / "problems" / "toy_problem" / "editorial.md").read_text(encoding="utf-8")
    assert text.startswith("# Toy problem: editorial\n")
    checked = subprocess.run([sys.executable, "-m", "grader", "validate", "toy_problem"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
    assert "WARN editorial: editorial.md is still the template" in checked.stdout, checked.stdout
