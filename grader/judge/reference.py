"""Expected outputs computed by a problem's reference, run like any submission in
the sandbox (authoring uses them for new cases, feedback for counterexamples)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..problem import Case, Problem, ProblemError
from ..sandbox.host import Sandbox
from ..sandbox.wire import to_plain
from .output_checks import CheckContext, run_checks
from .request import make_request
from .runtime_checks import check_runtime
from .static_checks import static_stage
from .submission import load_submission


@dataclass
class Computed:
    expected: dict[str, Any]
    problems: dict[str, str]  # case id -> why the reference could not produce it


def reference_outputs(problem: Problem, raw_inputs: list[tuple[str, Any]], sandbox: Sandbox,
                      wall_seconds: float | None = None) -> Computed:
    sub = load_submission(problem.reference_path)
    bad = [c for c in static_stage(sub, problem) if not c.passed]
    if bad:
        raise ProblemError(problem.reference_path, f"fails its own static checks: {bad[0].message}")
    cases = [Case(cid, "hidden", Path(cid), raw) for cid, raw in raw_inputs]
    # No dependence probe here: it needs stored answers, and validate proves it on the suite.
    run = sandbox.run(replace(make_request(sub, problem, cases), probe=False, wall_seconds=wall_seconds))
    if run.over_budget:
        raise ProblemError(problem.reference_path, "ran out of its time budget")
    if run.judge_error or run.load_status != "ok":
        err = run.load_error.message if run.load_error else run.judge_error or run.load_status
        raise ProblemError(problem.reference_path, f"could not be run: {err}")
    broken = [c for c in check_runtime(run, problem) if not c.passed]
    if broken:
        raise ProblemError(problem.reference_path, f"fails its own requirement '{broken[0].name}': {broken[0].message}")
    shape_checks = tuple(c for c in problem.meta.output_checks if c not in ("value",))
    out = Computed({}, {})
    for cid, raw in raw_inputs:
        cr = run.cases[cid]
        if cr.status != "ok":
            out.problems[cid] = f"reference ended with {cr.status}: {cr.error.message if cr.error else ''}"
            continue
        ctx = CheckContext.for_input(problem.meta, raw, cr.output, None, cr.args_after)
        found = run_checks(ctx, shape_checks)
        if found:
            out.problems[cid] = f"reference output fails '{found.reason}': {found.message}"
            continue
        out.expected[cid] = to_plain(cr.output)
    return out
