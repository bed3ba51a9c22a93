"""``validate``'s coverage check: the range of each input leaf the hidden cases hold,
beside the range the constraints allow, and warnings for bounds and dim sizes never reached."""
from __future__ import annotations

from dataclasses import replace

from support import PROBLEMS


def _coverage(problem):
    from grader.authoring.context import Validation
    from grader.authoring.coverage_check import check_coverage

    return check_coverage(Validation(problem, None))


def _case(problem, cid, x, w, b, y):
    from grader.problem import Case

    return Case(cid, "hidden", problem.root / f"{cid}.json", {"params": {"w": w, "b": b}, "x": x, "y": y})


def test_the_coverage_lists_each_leaf_and_dim_with_the_range_the_constraints_allow():
    from grader.problem import load_problem

    problem = load_problem(PROBLEMS / "value_and_grad_loss")
    [summary, *_] = _coverage(problem)
    assert summary.status == "pass"
    for part in ("params.w [", "of [-10, 10]", "x [", "y [", "N in {", "of [1, 16]", "D in {"):
        assert part in summary.message, summary.message


def test_a_bound_or_a_dim_size_the_hidden_cases_never_reach_is_a_warning():
    from grader.problem import load_problem

    problem = load_problem(PROBLEMS / "value_and_grad_loss")
    narrow = [_case(problem, "h0", [[0.5, -1.0]], [2.0, -3.0], 1.5, [9.5]),
              _case(problem, "h1", [[-10.0, 10.0], [0.0, 0.0]], [10.0, -10.0], -10.0, [-10.0, 0.25])]
    found = _coverage(replace(problem, cases=[c for c in problem.cases if not c.hidden] + narrow))
    warned = " | ".join(f.message for f in found if f.status == "warn")
    assert "params.b never above 1.5 (the constraints allow 10)" in warned and "params.b never below" not in warned
    assert "y never" not in warned and "params.w" not in warned and "x never" not in warned  # near both bounds
    assert "N = 16 is never used" in warned and "D = 1 and 6 is never used" in warned
    assert all(f.status != "fail" for f in found)
    [summary] = [f for f in found if f.status == "pass"]
    assert "smallest |nonzero| 0.25" in summary.message  # y's 0.25, beside x's and w's zeros left out
