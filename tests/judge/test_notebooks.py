"""Notebook submissions: the code cells in order (or those with a tag) are the
submission; IPython syntax is CE naming the cell; a malformed notebook is CE with exit
status 1 and no traceback; reports name the notebook and the cell of each finding;
batch picks up notebooks; the corpus's notebooks get their folders' verdicts."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from support import ROOT, SUBMISSIONS

P1 = "per_example_grad_clipping"
IMPORTS = "import jax\nimport jax.numpy as jnp"
LOSS = 'def loss(params, x, y):\n    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2'
ENTRY = ('def per_example_grad_clip(params, x, y, max_norm):\n'
         '    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)\n'
         '    flat = jnp.concatenate([g["w"], g["b"][:, None]], axis=1)\n'
         '    norms = jnp.linalg.norm(flat, axis=-1)\n'
         '    mean = (flat / jnp.maximum(1.0, norms / max_norm)[:, None]).mean(axis=0)\n'
         '    return {"grads": {"w": mean[:-1], "b": mean[-1]}, "norms": norms}')


def notebook(*cells) -> str:
    """Cells: a str is a code cell, ("md", text) markdown, (text, {metadata}) a code cell with metadata."""
    nb = new_notebook()
    for c in cells:
        if isinstance(c, tuple) and c[0] == "md":
            nb.cells.append(new_markdown_cell(c[1]))
        elif isinstance(c, tuple):
            nb.cells.append(new_code_cell(c[0], metadata=c[1]))
        else:
            nb.cells.append(new_code_cell(c))
    return nbformat.writes(nb)


def grader(*args, cwd=ROOT):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


# ------------------------------------------------------------------ reading the cells

def test_code_cells_in_order_are_the_submission_with_a_line_map():
    from grader.judge.submission import parse_notebook

    sub = parse_notebook(notebook(("md", "# Title"), IMPORTS, ("md", "text"), "x = 1\r\ny = 2\n"), "w.ipynb")
    assert sub.syntax_error is None and sub.tree is not None
    assert sub.source == "import jax\nimport jax.numpy as jnp\nx = 1\ny = 2\n"
    assert sub.cells == ((2, 1), (2, 2), (4, 1), (4, 2))


def test_cell_tag_keeps_tagged_cells_and_nbgrader_flags():
    from grader.judge.submission import parse_notebook

    text = notebook(("import jax", {"tags": ["solution"]}), "print('scratch')",
                    ("y = 1", {"nbgrader": {"solution": True, "grade_id": "q1"}}), ("z = 1", {"tags": ["other"]}))
    sub = parse_notebook(text, "w.ipynb", cell_tag="solution")
    assert sub.source == "import jax\ny = 1\n" and sub.cells == ((1, 1), (3, 1))
    none = parse_notebook(text, "w.ipynb", cell_tag="missing")
    assert none.tree is None and "no code cell is tagged 'missing'" in none.syntax_error


def test_cell_tag_on_a_python_file_is_a_usage_error():
    r = grader("grade", str(SUBMISSIONS / P1 / "accepted" / "flat_norm.py"), "--problem", P1, "--cell-tag", "x")
    assert r.returncode == 2 and "notebooks (.ipynb) only" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("line", ["%timeit f(1)", "%%time", "!pip install optax", "files = !ls", "jax.grad?",
                                  "  %matplotlib inline", "x = %env HOME"])
def test_ipython_syntax_is_a_compile_error_naming_the_cell(line):
    from grader.judge.submission import parse_notebook

    sub = parse_notebook(notebook(("md", "intro"), IMPORTS, f"a = 1\n{line}\nb = 2"), "w.ipynb")
    assert sub.tree is None
    assert sub.syntax_error.startswith("cell 3 line 2: IPython syntax") and line.strip()[:10] in sub.syntax_error


def test_python_syntax_errors_name_cell_and_line():
    from grader.judge.submission import parse_notebook

    sub = parse_notebook(notebook(IMPORTS, "a = 1\ndef f(:\n    pass"), "w.ipynb")
    assert sub.syntax_error.startswith("cell 2 line 2: ")
    # A modulo operator on a continuation line is Python, not a magic.
    ok = parse_notebook(notebook("a = (7\n% 3)"), "w.ipynb")
    assert ok.syntax_error is None


MALFORMED = {
    "not_json": (b"{ this is not json", "not JSON"),
    "truncated": (b'{"cells": [{"cell_type": "code"', "not JSON"),
    "json_list": (b"[1, 2, 3]", "not an object"),
    "nbformat_3": (json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": []}).encode(), "nbformat version 3"),
    "nbformat_5": (json.dumps({"nbformat": 5, "nbformat_minor": 0, "cells": []}).encode(), "nbformat version 5"),
    "no_version": (b'{"cells": []}', "no 'nbformat' version"),
    "invalid_schema": (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                   "cells": [{"cell_type": "code", "source": 3}]}).encode(), "not a valid notebook"),
    "no_code_cells": (notebook(("md", "only prose")).encode(), "no code cells"),
    "not_utf8": (b"\xff\xfe{\x00", "not UTF-8"),
    "deep_json": (b"[" * 200000 + b"]" * 200000, "nests too deeply"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_notebook_is_a_compile_error(name):
    from grader.judge.submission import submission_from_bytes

    data, words = MALFORMED[name]
    sub = submission_from_bytes(data, "w.ipynb")
    assert sub.tree is None and words in sub.syntax_error


@pytest.mark.parametrize("name", ["not_json", "nbformat_3", "no_code_cells", "not_utf8"])
def test_malformed_notebook_exits_1_with_one_clear_message(tmp_path, name):
    data, words = MALFORMED[name]
    path = tmp_path / "work.ipynb"
    path.write_bytes(data)
    r = grader("grade", str(path), "--problem", P1, "--format", "json")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    report = json.loads(r.stdout)
    assert report["verdict"] == "CE" and words in report["message"] and report["submission"].endswith("work.ipynb")


def test_outputs_are_ignored_and_sizes_are_bounded(tmp_path):
    from grader.judge.submission import load_submission, parse_notebook

    nb = new_notebook()
    nb.cells.append(new_code_cell("x = 1", outputs=[nbformat.v4.new_output("stream", text="import os\n")]))
    assert parse_notebook(nbformat.writes(nb), "w.ipynb").source == "x = 1\n"
    big = parse_notebook(notebook("x = 1\n" * 50000), "w.ipynb")
    assert big.tree is None and "more than 256 KiB of code" in big.syntax_error
    huge = tmp_path / "huge.ipynb"
    with open(huge, "wb") as fh:
        fh.truncate(16 * 1024 * 1024 + 1)
    sub = load_submission(huge)
    assert sub.tree is None and "larger than 16384 KiB" in sub.syntax_error


# ------------------------------------------------------------------ reports name the cell

def grade_notebook(pool, text: str, path: str = "work.ipynb", cell_tag=None):
    from grader.judge.notebook import locate
    from grader.judge.pipeline import grade
    from grader.judge.submission import parse_notebook
    from grader.problem import find_problem

    sub = parse_notebook(text, path, cell_tag)
    problem = find_problem(P1)
    graded = next(pool.submit_all(lambda sandbox, s: grade(problem, s, sandbox), [sub]))
    return locate(graded.report, sub.cells)


def test_static_and_runtime_findings_name_the_cell(pool):
    report = grade_notebook(pool, notebook(("md", "# Clip"), IMPORTS, LOSS, ("md", "## Answer"), ENTRY))
    assert report.verdict == "AC" and report.submission == "work.ipynb"
    messages = {c.name: c.message for c in report.static_checks + report.runtime_checks}
    assert messages["uses jax.vmap"] == "jax.vmap is used (cell 5 line 2)"
    assert "called at cell 5 line 2" in messages["calls jax.vmap"]


@pytest.mark.slow
def test_policy_and_runtime_errors_name_the_cell(pool):
    policy = grade_notebook(pool, notebook(IMPORTS, LOSS, "a = 1\nb = a.__class__", ENTRY))
    assert policy.verdict == "CE" and "Cell 3 line 2" in policy.message
    raising = ENTRY.replace("    return {", "    raise ValueError('no clipping today')\n    return {")
    runtime = grade_notebook(pool, notebook(IMPORTS, LOSS, ("md", "x"), raising))
    assert runtime.verdict == "RE" and "no clipping today (cell 4 line 6)" in runtime.message
    public = [c for c in runtime.cases if c.visibility == "public"]
    assert public and all("(cell 4 line 6)" in c.message for c in public)


@pytest.mark.slow
def test_text_report_names_notebook_and_cell(tmp_path):
    path = tmp_path / "homework.ipynb"
    raising = ENTRY.replace("    return {", "    raise ValueError('stop')\n    return {")
    path.write_text(notebook(IMPORTS, LOSS, raising))
    r = grader("grade", str(path), "--problem", P1, "--no-feedback")
    assert r.returncode == 1 and r.stdout.startswith("RE Runtime Error") and "homework.ipynb" in r.stdout
    assert "stop (cell 3 line 6)" in r.stdout and "(line " not in r.stdout and "Traceback" not in r.stderr


@pytest.mark.slow
def test_grade_with_cell_tag_grades_only_tagged_cells(tmp_path):
    path = tmp_path / "tagged.ipynb"
    tag = {"tags": ["solution"]}
    path.write_text(notebook((IMPORTS, tag), "import os\nprint(os.getcwd())", (LOSS, tag), (ENTRY, tag)))
    assert grader("grade", str(path), "--problem", P1, "--no-feedback").returncode == 1  # os is not allowed
    r = grader("grade", str(path), "--problem", P1, "--no-feedback", "--cell-tag", "solution", "--format", "json")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert json.loads(r.stdout)["verdict"] == "AC"


# ------------------------------------------------------------------ batch and corpus

def test_batch_discovers_notebooks_but_not_checkpoints(tmp_path):
    from grader.batch import discover

    for rel in ["a.py", "b.ipynb", "sub/c.IPYNB", ".ipynb_checkpoints/b-checkpoint.ipynb", "notes.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)] == ["a.py", "b.ipynb", "sub/c.IPYNB"]


def test_batch_grades_notebooks_with_the_cell_tag(pool, tmp_path):
    from grader.batch import grade_item, run_batch
    from grader.problem import find_problem

    problem = find_problem(P1)
    tag = {"tags": ["solution"]}
    (tmp_path / "one.ipynb").write_text(notebook((IMPORTS, tag), "%matplotlib inline", (LOSS, tag), (ENTRY, tag)))
    (tmp_path / "two.py").write_text(IMPORTS + "\n\n" + LOSS + "\n\n" + ENTRY + "\n")
    engine = lambda items: pool.submit_all(lambda sandbox, item: grade_item(problem, item, sandbox), items)  # noqa: E731
    out = tmp_path / "log.jsonl"
    results = run_batch(problem, tmp_path, engine, out, None, lambda todo, skipped: lambda r: None, cell_tag="solution")
    by_name = {os.path.basename(r["submission"]): r for r in results}
    assert by_name["one.ipynb"]["verdict"] == "AC" and by_name["one.ipynb"]["cell_tag"] == "solution"
    assert by_name["two.py"]["verdict"] == "AC" and "cell_tag" not in by_name["two.py"]
    # Without the tag the magic is graded too: a changed tag is a new grade, not a resumed one.
    again = run_batch(problem, tmp_path, engine, out, None, lambda todo, skipped: lambda r: None)
    by_name = {os.path.basename(r["submission"]): r for r in again}
    assert by_name["one.ipynb"]["verdict"] == "CE" and "cell 2 line 1" in by_name["one.ipynb"]["message"]


CORPUS = sorted(SUBMISSIONS.glob(f"{P1}/*/*.ipynb"))


def test_corpus_lists_notebooks_with_their_headers():
    from grader.problem import find_problem
    from grader.problem.corpus import submission_files

    found = {e.path: e for e in submission_files(find_problem(P1))}
    assert CORPUS and all(p in found for p in CORPUS)
    wrong = found[SUBMISSIONS / P1 / "wrong_answer" / "notebook_norm_without_bias.ipynb"]
    assert wrong.reason == "value" and wrong.hint.startswith("the bias entry is left out")


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_notebook_gets_its_folders_verdict(pool, path):
    from grader.judge.pipeline import grade
    from grader.judge.submission import load_submission
    from grader.problem import find_problem
    from grader.problem.corpus import read_expectation

    exp = read_expectation(path)
    problem = find_problem(P1)
    report = next(pool.submit_all(lambda sandbox, p: grade(problem, load_submission(p), sandbox), [path])).report
    assert report.verdict == exp.verdict.value, report.message
    assert exp.reason is None or report.reason == exp.reason
