"""``grader validate``: prove a problem sound (the Kattis ``verifyproblem`` idea).

Each check is a small function ``check(ctx) -> list[Finding]``, listed in
``CHECKS`` in the order they run. A problem passes when no finding fails;
warnings are printed but do not fail the run.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from ..common.trees import dotted, get_path
from ..judge.output_checks import resolve
from ..problem import Problem, ProblemError, load_problem
from ..problem.inputs import InputError, canonical, check_input, input_dims
from ..problem.labels import lacking
from ..problem.modules import properties, recipes
from ..problem.suite import PLAN_FILE, SuiteError, plan, plan_doc, shipped_plan
from .box_check import check_box
from .coverage_check import check_coverage
from .context import Validation, Finding
from .editorial_check import check_editorial
from .grading_checks import check_reference, check_submissions
from .misreads_check import check_misreads
from .mutation import print_finding  # noqa: F401  (validate, for the command line)
from .oracle_checks import check_oracles
from .statement import check_statement


def check_files(ctx: Validation) -> list[Finding]:
    p = ctx.problem
    out = []
    for path in (p.statement_path, p.reference_path, p.oracle_path):
        ok = path.is_file()
        out.append(Finding("files", "pass" if ok else "fail", f"{path.name} {'present' if ok else 'is missing'}"))
    return out


def check_cases(ctx: Validation) -> list[Finding]:
    p = ctx.problem
    out: list[Finding] = []
    if not p.public_cases():
        out.append(Finding("cases", "fail", "no public case (cases/public/*.json)"))
    if not [c for c in p.cases if c.hidden]:
        out.append(Finding("cases", "fail", "no hidden case (cases/hidden/*.json)"))
    seen: dict[str, str] = {}
    bad = 0
    for case in p.cases:
        where = f"{case.visibility}/{case.id}"
        try:
            check_input(p.meta, case.input)
        except InputError as exc:
            out.append(Finding("input constraints", "fail", f"{where}: {exc}"))
            bad += 1
            continue
        key = canonical(p.meta, case.input)
        if key in seen:
            out.append(Finding("distinct cases", "fail", f"{where} has the same input as {seen[key]}"))
        seen[key] = where
        if case.expected is None:
            out.append(Finding("expected outputs", "fail", f"{where}: no 'expected' output"))
            bad += 1
            continue
        problem = _expected_shape_problem(p, case)
        if problem:
            out.append(Finding("expected outputs", "fail", f"{where}: {problem}"))
            bad += 1
    if not bad:
        out.append(Finding("input constraints", "pass", f"all {len(p.cases)} cases satisfy the constraints"))
    return out


def check_suite(ctx: Validation) -> list[Finding]:
    """A problem a deployment may draw its own hidden suite for (``[suite] drawable``, the
    default) has only hidden cases a draw can repeat: generated, or made from a recipe
    that generator.py's ``RECIPES`` holds. A plan file (``cases/hidden.plan.json``, what a
    package built without the hidden cases keeps) beside hidden cases lists them exactly."""
    p = ctx.problem
    if any(c.hidden for c in p.cases):
        try:
            listed = shipped_plan(p)
        except SuiteError as exc:
            return [Finding("secret suites", "fail", str(exc))]
        held = [(c["id"], c.get("recipe")) for c in plan_doc(p)["cases"]]
        if listed is not None and listed != held:
            return [Finding("secret suites", "fail", f"cases/{PLAN_FILE} does not list the hidden cases in "
                            "cases/hidden/ (their ids and recipes, in order): delete it or make it match")]
    if not p.meta.drawable:
        return [Finding("secret suites", "pass", "[suite] drawable = false: no deployment draws its own hidden "
                        "suite for this problem")]
    try:
        slots = plan(p)
        named = {s.recipe for s in slots if s.recipe}
        missing = sorted(named - set(recipes(p))) if named else []
    except (SuiteError, ProblemError) as exc:
        return [Finding("secret suites", "fail", str(exc))]
    if missing:
        return [Finding("secret suites", "fail", f"hidden cases name recipe(s) {', '.join(missing)}, which "
                        "generator.py's RECIPES lacks")]
    try:
        lacks = lacking(p, [(c.id, c.input) for c in p.cases if c.hidden])
        declared = sorted(properties(p))
    except ProblemError as exc:
        return [Finding("secret suites", "fail", str(exc))]
    if lacks:
        return [Finding("secret suites", "fail", lacks)]
    made = sum(1 for s in slots if s.recipe)
    kept = f"; each case of {', '.join(declared)} has the property it declares" if declared else ""
    return [Finding("secret suites", "pass", f"every hidden case can be drawn anew: {len(slots) - made} from the "
                    f"generator, {made} from recipes{kept}")]


def _expected_shape_problem(p: Problem, case) -> str | None:
    dims = input_dims(p.meta, case.input)
    for spec in p.meta.outputs:
        try:
            value = np.asarray(get_path(case.expected, spec.path), dtype=np.float64)
        except (KeyError, TypeError, ValueError):
            return f"'{dotted(spec.path)}' is missing or not numeric"
        want = tuple(d if isinstance(d, int) else dims[d] for d in spec.shape)
        if value.shape != want:
            return f"'{dotted(spec.path)}' has shape {value.shape}, the metadata says {want}"
    return None


# The editorial needs no cases, so it runs before check_cases, after whose failure the rest is skipped.
CHECKS: list[Callable[[Validation], list[Finding]]] = [
    check_files, check_editorial, check_cases, check_suite, check_coverage, check_statement, check_oracles,
    check_reference, check_box, check_submissions, check_misreads]


# Findings that do not stop the mutation analysis: it needs sound cases, oracles and reference only.
NOT_NEEDED_BY_MUTANTS = ("submission verdicts", "submission reports", "submission side effects",
                         "hidden cases catch mistakes", "tolerance margin", "editorial", "secret suites", "misreads",
                         "coverage")


def validate_problem(problem_dir: Path, pool, with_submissions: bool = True,
                     log: Callable[[str], None] = lambda _m: None,
                     mutation=None) -> tuple[str, list[Finding]]:
    """``mutation``: a ``mutation.MutationSession`` for ``validate --mutants``, else None."""
    try:
        problem = load_problem(problem_dir)
        resolve(problem.meta, str(problem_dir / "problem.toml"))
    except ProblemError as exc:
        return problem_dir.name, [Finding("metadata", "fail", str(exc))]
    findings = [Finding("metadata", "pass", "problem.toml parses and is complete")]
    ctx = Validation(problem, pool, with_submissions, log)
    for check in CHECKS:
        try:
            found = check(ctx)
        except ProblemError as exc:
            found = [Finding(check.__name__.removeprefix("check_"), "fail", str(exc))]
        findings += found
        if check is check_cases and any(f.status == "fail" for f in found):
            findings.append(Finding("reference", "fail", "skipped: fix the cases first"))
            break
    if mutation is not None:
        if any(f.status == "fail" and f.check not in NOT_NEEDED_BY_MUTANTS for f in findings):
            findings.append(Finding("mutants", "fail", "skipped: fix the problem first"))
        else:
            findings += mutation.check(problem)
    return problem.id, findings
