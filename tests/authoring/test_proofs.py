"""What `grader validate` keeps of a proof (grader/authoring/proofs.py): a passing proof
under a key of everything it depends on, never a failing one; and the command reuses a
kept proof only while nothing changed."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from support import P1, PROBLEMS, SUBMISSIONS


def _copy(tmp_path):
    shutil.copytree(PROBLEMS / P1, tmp_path / "problems" / P1)
    shutil.copytree(SUBMISSIONS / P1, tmp_path / "submissions" / P1)
    return tmp_path / "problems" / P1, tmp_path / "submissions" / P1


@pytest.mark.parametrize("change", ["statement", "editorial", "hidden case", "corpus file", "corpus header", "mutants",
                                    "no corpus"])
def test_the_key_changes_with_everything_a_proof_depends_on(tmp_path, change):
    from grader.authoring.proofs import proof_key

    problem, corpus = _copy(tmp_path)
    before = proof_key(problem, corpus, mutants=False)
    assert proof_key(problem, corpus, mutants=False) == before  # the same inputs, the same key
    mutants, graded = False, corpus
    if change == "statement":
        (problem / "statement.md").write_text((problem / "statement.md").read_text() + "\n")
    elif change == "editorial":
        (problem / "editorial.md").write_text("# A new editorial\n\nWords.\n")
    elif change == "hidden case":
        next((problem / "cases" / "hidden").glob("*.json")).write_text("{}")
    elif change == "corpus file":
        (corpus / "accepted" / "another.py").write_text("# another\n")
    elif change == "corpus header":  # an edited '# misreads:' line, which validate's misreads check reads
        wrong = corpus / "wrong_answer" / "sum_not_mean.py"
        wrong.write_text(wrong.read_text().replace("# misreads: The mean", "# misreads: The sum", 1))
    elif change == "mutants":
        mutants = True
    else:
        graded = None
    assert proof_key(problem, graded, mutants=mutants) != before


def test_a_passing_proof_is_kept_and_a_failing_one_is_not(tmp_path):
    from grader.authoring.context import Finding
    from grader.authoring.proofs import Proof, ProofStore

    store = ProofStore(tmp_path / "validated")
    good = Proof("k1", [Finding("reference", "pass", "AC"), Finding("editorial", "warn", "none")], ["row"])
    store.put(P1, good)
    assert store.get(P1, "k1") == good
    assert store.get(P1, "another key") is None
    store.put("other", Proof("k2", [Finding("reference", "fail", "WA")], None))
    assert store.get("other", "k2") is None and not (tmp_path / "validated" / "other.json").exists()
    (tmp_path / "validated" / f"{P1}.json").write_text("{not json")
    assert store.get(P1, "k1") is None  # an unreadable file is no proof


@pytest.mark.slow  # three validate processes
def test_validate_keeps_a_proof_until_the_problem_changes_and_fresh_proves_it_again(tmp_path):
    problem, _corpus = _copy(tmp_path)
    env = {**__import__("os").environ, "JAXJUDGE_CACHE": str(tmp_path / "cache")}

    def validate(*args):
        done = subprocess.run([sys.executable, "-m", "grader", "validate", P1, "--no-submissions", *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    KEPT = "proved before, and nothing it depends on changed since"
    first = validate()
    assert KEPT not in first and "PASS reference" in first
    second = validate()
    assert KEPT in second and "PASS reference" in second  # the kept findings are printed
    assert KEPT not in validate("--fresh")
    (problem / "statement.md").write_text((problem / "statement.md").read_text() + "\n")
    assert KEPT not in validate()
