"""Learner feedback: misconception hints, public counterexamples, structure diffs, costs."""

import pytest

from support import SUBMISSIONS, grade_source
from grader.judge.feedback import Feedback

P1 = "per_example_grad_clipping"
ONLY_WIDE = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text().replace(
    "    return {\"grads\"", "    if x.shape[1] == 4:\n        norms = norms + 1.0\n    return {\"grads\"")


def graded(problem1, pool, source, feedback, whole=False):
    sandbox = pool.take()
    try:
        out = grade_source(problem1, source, sandbox, feedback=feedback)
        return out if whole else out.report
    finally:
        pool.give(sandbox)


@pytest.fixture(scope="module")
def warmed(problem1, pool):
    """The misconception table, built ahead as `grader warm` does."""
    from grader.judge.mistakes import mistake_table

    sandbox = pool.take()
    try:
        return mistake_table(problem1, sandbox)
    finally:
        pool.give(sandbox)


@pytest.mark.slow
def test_hint_names_the_mistake_even_on_hidden_cases(problem1, pool, warmed):
    src = (SUBMISSIONS / P1 / "wrong_answer" / "sum_not_mean.py").read_text()
    src = src.replace("jnp.sum(g[\"b\"] / f)", "jnp.sum(g[\"b\"] / f) + 0.0")  # a learner's own spelling
    # No time to build anything during the grade: the hint comes from the table built ahead.
    whole = graded(problem1, pool, src, Feedback(hints=True, counterexample=False, budget_seconds=0), whole=True)
    report = whole.report
    assert report.hint and "summed" in report.hint and not report.hint_may_follow
    hidden = [c for c in report.cases if c.visibility == "hidden" and c.verdict == "WA"]
    assert hidden and all(c.hint == report.hint for c in hidden)
    assert all(c.input is None and c.got is None for c in hidden)
    # The instructor's full report carries the same hints, on cases shown in full.
    full = {c.id: c for c in whole.full_report().cases}
    assert all(full[c.id].hint == c.hint and full[c.id].input is not None for c in hidden)


@pytest.mark.slow
def test_feedback_gives_no_hint_rather_than_exceed_its_budget_and_says_one_may_follow(problem1, pool, tmp_path,
                                                                                      monkeypatch):
    from grader.judge import tables

    monkeypatch.setenv("JAXJUDGE_CACHE", str(tmp_path / "cold"))  # nothing built ahead
    monkeypatch.setattr(tables, "shipped_root", lambda: None)  # nor shipped
    src = (SUBMISSIONS / P1 / "wrong_answer" / "sum_not_mean.py").read_text()
    report = graded(problem1, pool, src, Feedback(hints=True, counterexample=True, budget_seconds=0))
    assert report.verdict == "WA" and report.hint is None and report.counterexample is None
    assert report.hint_may_follow
    assert not (tmp_path / "cold" / "mistakes").exists()  # no wrong answer was run for it


@pytest.mark.slow
def test_no_hint_for_an_unknown_mistake(problem1, pool, warmed):
    src = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text().replace("mean = clipped.mean(axis=0)",
                                                                              "mean = clipped.mean(axis=0) * 1.5")
    report = graded(problem1, pool, src, Feedback(hints=True, counterexample=False))
    assert report.verdict == "WA" and report.hint is None
    assert not report.hint_may_follow  # every known mistake was consulted: none is this one


@pytest.mark.slow
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


class _Spy:
    """A sandbox that remembers what it was asked and how each run ended."""

    def __init__(self, sandbox):
        self.sandbox, self.runs = sandbox, []

    def run(self, request):
        result = self.sandbox.run(request)
        self.runs.append((request.wall_seconds, result.over_budget))
        return result


@pytest.mark.slow
def test_a_submission_slow_on_the_counterexample_search_is_cut_off_at_the_budget(problem1, pool):
    """The search's inputs can be computed in advance (its seed is public); a submission
    that spins on each of them has every feedback run killed when the budget runs out,
    so the grade comes out with no counterexample instead of waiting for it."""
    from grader.judge import probe_table
    from grader.judge.pipeline import grade
    from grader.judge.submission import load_submission

    sub = load_submission(SUBMISSIONS / P1 / "wrong_answer" / "attack_slow_counterexample_search.py")
    sandbox = pool.take()
    try:
        probe_table.get(problem1, sandbox)  # built ahead, as `grader warm` does
        spy = _Spy(sandbox)
        feedback = Feedback(hints=False, counterexample=True, budget_seconds=1.0)
        report = grade(problem1, sub, spy, feedback=feedback).report
    finally:
        pool.give(sandbox)
    assert report.verdict == "WA" and report.counterexample is None
    graded, *extra = spy.runs
    assert graded == (None, False)  # the grade itself has no budget beyond its limits
    assert extra and all(wall is not None and wall <= 1.0 for wall, _ in extra)
    assert any(over for _, over in extra)  # a feedback run was killed at the budget


def test_a_run_past_its_wall_budget_is_killed_and_says_so(problem1, pool):
    from dataclasses import replace

    from grader.judge.request import make_request
    from grader.judge.submission import parse_source

    spin = ("import jax\nfrom jax import lax\n\ndef per_example_grad_clip(params, x, y, max_norm):\n"
            "    return lax.while_loop(lambda c: c >= 0, lambda c: c + 1, 0)\n")
    sandbox = pool.take()
    try:
        request = make_request(parse_source(spin), problem1, problem1.public_cases())
        run = sandbox.run(replace(request, wall_seconds=0.5))
    finally:
        pool.give(sandbox)
    assert run.over_budget and run.exit.get("killed") == "budget"
    assert next(iter(run.cases.values())).status == "timeout"


def test_a_grade_gives_feedback_two_and_a_half_seconds_of_sandbox_work_by_default():
    assert Feedback().budget_seconds == 2.5


def test_a_misconception_run_the_sandbox_lost_is_kept_as_partial_and_completed_later(problem1, tmp_path,
                                                                                      monkeypatch):
    """A server's warming kills its sandbox when a grade comes: what that run did not
    finish is never kept as the wrong answer's complete entry."""
    from grader.judge import mistakes, tables
    from grader.sandbox.request import RunResult

    monkeypatch.setenv("JAXJUDGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(tables, "shipped_root", lambda: None)  # built here, not taken from the shipped ones
    wrong = mistakes.wrong_answers(problem1)[0]

    class Lost:
        def run(self, request):
            return RunResult(judge_error="the sandbox failed: killed")

    entry = mistakes.build_entry(problem1, wrong, Lost())
    assert entry is not None and entry["partial"] is True and entry["outputs"] == {}

    class Whole:
        runs = 0

        def run(self, request):
            Whole.runs += 1
            return RunResult(complete=True)

    again = mistakes.build_entry(problem1, wrong, Whole())  # no deadline: the partial entry is completed
    assert Whole.runs == 1 and again is not None and again["partial"] is False
