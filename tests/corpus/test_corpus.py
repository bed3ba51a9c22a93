"""Every file under submissions/per_example_grad_clipping/<verdict>/ (the core corpus and
the adversarial one) gets exactly that verdict and the reason code its header names; no
report shows hidden data or breaks the schema; nothing escapes to disk. The other
problems' corpora are proven by `grader validate`, which CI runs after the tests."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from support import PROBLEMS, SUBMISSIONS, tree_digest

# Slow: grading the whole corpus of per_example_grad_clipping is minutes of work.
pytestmark = pytest.mark.slow

FILES = sorted(p for p in SUBMISSIONS.glob("per_example_grad_clipping/*/*.py"))


def _hidden_numbers(problem) -> set[str]:
    """Distinctive renderings of hidden input values (six or more significant digits)."""
    out: set[str] = set()

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, float) and len(repr(abs(v)).replace(".", "").lstrip("0")) >= 7:
            out.update({repr(v), f"{v:.6g}", f"{v:.9g}"})

    for case in problem.cases:
        if case.hidden:
            walk(case.input)
    return out


@pytest.fixture(scope="module")
def graded(pool):
    from grader.judge.pipeline import grade
    from grader.problem import load_problem
    from grader.judge.submission import load_submission

    before_repo = tree_digest(PROBLEMS) | tree_digest(SUBMISSIONS)
    # The paths the corpus tries to write (other processes on the machine may use /tmp).
    targets = {t for f in SUBMISSIONS.rglob("*.py") for t in re.findall(r"/tmp/[A-Za-z0-9_.-]+", f.read_text())}
    before_tmp = {t for t in targets if os.path.exists(t)}
    problems = {p.name: load_problem(p) for p in PROBLEMS.iterdir() if (p / "problem.toml").exists()}

    def job(sandbox, path: Path):
        return path, grade(problems[path.parent.parent.name], load_submission(path), sandbox)

    results = dict(pool.submit_all(job, FILES))
    after_repo = tree_digest(PROBLEMS) | tree_digest(SUBMISSIONS)
    return {"results": results, "problems": problems, "repo_unchanged": before_repo == after_repo,
            "new_tmp": {t for t in targets if os.path.exists(t)} - before_tmp}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_submission_gets_its_folders_verdict(graded, path):
    from grader.problem.corpus import read_expectation

    exp = read_expectation(path)
    report = graded["results"][path].report
    assert report.verdict == exp.verdict.value, f"{report.reason}: {report.message}"
    if exp.reason:
        assert report.reason == exp.reason, report.message
    problem = graded["problems"][path.parent.parent.name]
    text = json.dumps(report.to_json(), default=str)
    leaked = [n for n in _hidden_numbers(problem) if n in text]
    assert not leaked, f"hidden input values in the report: {leaked[:5]}"
    import jsonschema

    from grader.report.formats import schema

    jsonschema.validate(report.to_json(), schema())
    for case in report.cases:
        if case.visibility == "hidden":
            assert case.input is None and case.expected is None and case.got is None and case.stdout is None


def test_every_verdict_and_reason_is_covered(graded):
    seen = {(r.report.verdict, r.report.reason) for p, r in graded["results"].items() if p.parent.parent.name ==
            "per_example_grad_clipping"}
    for pair in [("AC", ""), ("WA", "value"), ("WA", "nan"), ("WA", "dtype"), ("WA", "shape"), ("WA", "structure"),
                 ("WA", "type"), ("WA", "params_mutated"), ("RJ", "requirement"), ("CE", "compile"),
                 ("RE", "exception"), ("TLE", "time"), ("MLE", "memory"), ("OLE", "output_size")]:
        assert pair in seen, pair


def test_corpus_leaves_the_repo_and_the_tmp_paths_it_names_untouched(graded):
    assert graded["repo_unchanged"]
    assert not graded["new_tmp"], graded["new_tmp"]


def test_accepted_files_pass_every_case(graded):
    for path, g in graded["results"].items():
        if path.parent.name == "accepted":
            assert g.report.passed == g.report.total > 30, path


def test_runtime_checks_name_no_line_reached_only_in_hidden_cases(graded):
    """attack_line_number_channel picks which line calls jax.grad from a hidden input; the
    runtime checks still name the lines reached while loading and in public cases."""
    import re

    path = SUBMISSIONS / "per_example_grad_clipping/runtime_error/attack_line_number_channel.py"
    source = path.read_text().splitlines()
    hidden_only = {i + 1 for i, line in enumerate(source) if "jax.grad(_noop)" in line}
    public = next(i + 1 for i, line in enumerate(source) if "jax.vmap(jax.grad(_loss)" in line)
    report = graded["results"][path].report
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
