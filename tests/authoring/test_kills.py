"""The shipped suite's kills (``authoring.mutation.kills``): computed by the mutation worker
once, then read from their table, and computed again when the table is unreadable."""
from __future__ import annotations

import pytest

from support import PROBLEMS


class Session:
    """A mutation session that counts its analyses; ``error`` makes each one fail."""

    def __init__(self, error: str | None = None):
        self.calls = 0
        self.error = error

    def analyse(self, problem, search=True, among=None):
        from grader.authoring.mutation.analysis import Analysis, MutantResult
        from grader.authoring.mutation.sites import Mutant

        self.calls += 1
        assert search is False and among is None  # the shipped suite: every mutant, no search
        mutants = [Mutant(k, 3 + k, "operator", f"a{k}", f"b{k}") for k in range(3)]
        return Analysis(problem.id, [MutantResult(m, "alone", hidden_kills=k) for k, m in enumerate(mutants)],
                        error=self.error)


@pytest.fixture
def problem(tmp_path, monkeypatch):
    import shutil

    from grader.problem import load_problem

    monkeypatch.setenv("JAXJUDGE_CACHE", str(tmp_path / "cache"))
    # A copy, not a built-in problem: nothing shipped stands in for the computation.
    return load_problem(shutil.copytree(PROBLEMS / "global_norm_clipping", tmp_path / "global_norm_clipping"))


def test_the_kills_are_computed_once_and_then_read_from_their_table(problem):
    from grader.authoring.mutation import kills

    first = Session()
    table = kills.get(problem, first)
    assert (table.mutants, table.killed) == (3, {1: "line 4: a1 -> b1", 2: "line 5: a2 -> b2"})
    assert kills.get(problem, Session(error="not to be asked")) == table and first.calls == 1
    assert kills.path(problem).is_file()


def test_an_unreadable_kills_table_is_computed_again(problem):
    from grader.authoring.mutation import kills

    kills.path(problem).parent.mkdir(parents=True)
    kills.path(problem).write_text('{"mutants": 3, "killed": [1, 2]}')
    again = Session()
    assert kills.get(problem, again).killed == {1: "line 4: a1 -> b1", 2: "line 5: a2 -> b2"} and again.calls == 1


def test_a_failed_analysis_of_the_shipped_suite_raises_and_keeps_no_table(problem):
    from grader.authoring.mutation import kills

    with pytest.raises(RuntimeError, match="the reference fails"):
        kills.get(problem, Session(error="the reference fails hidden/h1 in the mutation worker"))
    assert not kills.path(problem).exists()
