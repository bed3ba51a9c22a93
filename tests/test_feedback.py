"""Learner feedback: misconception hints, public counterexamples, structure diffs, costs."""

import pytest

from conftest import SUBMISSIONS, grade_source
from grader.judge.feedback import Feedback

P1 = "per_example_grad_clipping"
ONLY_WIDE = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text().replace(
    "    return {\"grads\"", "    if x.shape[1] == 4:\n        norms = norms + 1.0\n    return {\"grads\"")


def graded(problem1, pool, source, feedback):
    box = pool.free.get()
    try:
        return grade_source(problem1, source, box, feedback=feedback).report
    finally:
        pool.free.put(box)


@pytest.fixture(scope="module")
def warmed(problem1, pool):
    """The misconception table, built ahead as `grader warm` does."""
    from grader.judge.mistakes import mistake_table

    box = pool.free.get()
    try:
        return mistake_table(problem1, box)
    finally:
        pool.free.put(box)


def test_hint_names_the_mistake_even_on_hidden_cases(problem1, pool, warmed):
    src = (SUBMISSIONS / P1 / "wrong_answer" / "sum_not_mean.py").read_text()
    src = src.replace("jnp.sum(g[\"b\"] / f)", "jnp.sum(g[\"b\"] / f) + 0.0")  # a learner's own spelling
    # No time to build anything during the grade: the hint comes from the table built ahead.
    report = graded(problem1, pool, src, Feedback(hints=True, counterexample=False, budget_seconds=0))
    assert report.hint and "summed" in report.hint
    hidden = [c for c in report.cases if c.visibility == "hidden" and c.verdict == "WA"]
    assert hidden and all(c.hint == report.hint for c in hidden)
    assert all(c.input is None and c.got is None for c in hidden)


def test_feedback_gives_no_hint_rather_than_exceed_its_budget(problem1, pool, tmp_path, monkeypatch):
    monkeypatch.setenv("JAXJUDGE_CACHE", str(tmp_path / "cold"))  # nothing built ahead
    src = (SUBMISSIONS / P1 / "wrong_answer" / "sum_not_mean.py").read_text()
    report = graded(problem1, pool, src, Feedback(hints=True, counterexample=True, budget_seconds=0))
    assert report.verdict == "WA" and report.hint is None and report.counterexample is None
    assert not (tmp_path / "cold" / "mistakes").exists()  # no wrong answer was run for it


def test_no_hint_for_an_unknown_mistake(problem1, pool, warmed):
    src = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text().replace("mean = clipped.mean(axis=0)",
                                                                              "mean = clipped.mean(axis=0) * 1.5")
    report = graded(problem1, pool, src, Feedback(hints=True, counterexample=False))
    assert report.verdict == "WA" and report.hint is None


def test_counterexample_for_hidden_only_failure(problem1, pool):
    from grader.problem.inputs import canonical

    report = graded(problem1, pool, ONLY_WIDE, Feedback(hints=False, counterexample=True, budget_seconds=300))
    assert report.verdict == "WA"
    assert all(c.verdict == "AC" for c in report.cases if c.visibility == "public")
    ce = report.counterexample
    assert ce is not None
    x = ce["input"]["x"]
    assert len(x[0]) == 4 and len(x) == 1  # shrunk along N, kept the width that fails
    secret = {canonical(problem1.meta, c.input) for c in problem1.cases if c.hidden}
    assert canonical(problem1.meta, ce["input"]) not in secret
    assert ce["got"]["norms"][0] == pytest.approx(ce["expected"]["norms"][0] + 1.0, rel=1e-4)


def test_structure_diff_is_side_by_side(problem1, pool):
    src = (SUBMISSIONS / P1 / "wrong_answer" / "flat_result.py").read_text()
    report = graded(problem1, pool, src, None)
    rows = {r[0]: (r[1], r[2]) for r in report.cases[0].diff}
    assert rows["grads.w"][1] == "(missing)" and rows["w"][0] == "(not expected)"
    assert rows["norms"][0] == rows["norms"][1] == "JAX array float32 (3,)"


def test_cost_beside_the_reference(problem1, pool):
    src = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text()
    report = graded(problem1, pool, src, Feedback(hints=False, counterexample=False, cost=True))
    costs = [c.cost for c in report.cases if c.cost]
    assert len(costs) == len(report.cases)
    assert all({"compile_ms", "run_ms", "ref_compile_ms", "ref_run_ms"} <= set(c) for c in costs)
