"""The grading pipeline, stage by stage:
problem -> submission -> static checks -> sandbox run -> output checks -> verdict -> report."""
from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from . import policy
from .inputs import check_input, resized, typed_input
from .instrument import PROBE_CASES, WATCHED_BY_DEFAULT
from .output_checks import CheckContext, Finding, run_checks
from .problem import Case, Problem
from .report import CaseReport, Report, hidden_view, lines
from .runtime_checks import check_runtime, dependence_settled
from .sandbox import CaseRun, Request, RunResult, Sandbox
from .static_checks import CheckResult, check_source
from .submission import Submission
from .verdict import RUN_STATUS, Outcome, Verdict, first_failure

if TYPE_CHECKING:
    from .feedback import Feedback
from .trees import dotted
from .wire import Leaf, Opaque, to_plain


@dataclass
class Graded:
    report: Report
    run: RunResult | None
    excess: dict[str, float] | None = None  # case id -> worst error / tolerance (cases that got that far)


def static_stage(sub: Submission, problem: Problem) -> list[CheckResult]:
    meta = problem.meta
    if sub.syntax_error:
        return [CheckResult("syntax", False, sub.syntax_error, "CE")]
    checks = [CheckResult("syntax", True, "the file parses")]
    errors = policy.restricted_errors(sub.source)
    checks.append(CheckResult("language policy", not errors, "; ".join(errors) or "within the allowed subset", "CE"))
    defined = meta.entry.name in _top_level_names(sub.tree)
    checks.append(CheckResult("entry point", defined,
                              f"defines {meta.entry.name}" if defined else
                              f"no top-level function named '{meta.entry.name}'", "CE"))
    return checks + check_source(sub.tree, meta.requirements)


def _describe_leaf(node: Any) -> str:
    if isinstance(node, Leaf):
        kind = {"jax": "JAX array", "numpy": "NumPy array", "npscalar": "NumPy scalar"}.get(node.cls, node.cls)
        return f"{kind} {node.dtype} {tuple(node.array.shape)}"
    if isinstance(node, Opaque):
        return node.type_name
    if isinstance(node, (list, tuple)):
        return f"{type(node).__name__} of {len(node)}"
    return "None" if node is None else type(node).__name__


def tree_diff(meta, dims: dict[str, int], got: Any) -> list[list[str]]:
    """Side-by-side rows (path, expected, got) of the output's structure, shapes and dtypes."""
    rows = []
    seen = set()
    for spec in meta.outputs:
        shape = tuple(d if isinstance(d, int) else dims[d] for d in spec.shape)
        want = f"{'JAX array' if spec.container == 'jax' else spec.container} {spec.dtype} {shape}"
        node: Any = got
        for key in spec.path:
            node = node.get(key, _MISSING) if isinstance(node, dict) else _MISSING
        rows.append([dotted(spec.path), want, "(missing)" if node is _MISSING else _describe_leaf(node)])
        seen.add(spec.path)

    def extra(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                extra(value, path + (key,))
        elif path not in seen and not any(path[:len(p)] == p for p in seen):
            rows.append([dotted(path) if path else "<result>", "(not expected)", _describe_leaf(node)])

    extra(got, ())
    return rows


_MISSING = object()


def _top_level_names(tree: ast.Module) -> set[str]:
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def size_probe_inputs(problem: Problem, cases: list[Case]) -> list[tuple[int, dict]]:
    """Two inputs that differ only in the batch dims: the first case, cycled to a small
    and a large batch, so that the traced program sizes can be compared."""
    meta = problem.meta
    if not cases:
        return []
    raw = cases[0].input
    small, large = raw, raw
    for dim in meta.requirements.vectorized:
        lo, hi = meta.dims[dim]
        a, b = max(lo, 2), hi
        if a >= b:
            return []
        small, large = resized(meta, small, dim, a), resized(meta, large, dim, b)
    first = meta.requirements.vectorized[0]
    return [(check_input(meta, small)[first], typed_input(meta, small)),
            (check_input(meta, large)[first], typed_input(meta, large))]


def make_request(sub: Submission, problem: Problem, cases: list[Case], cost: bool = False,
                 strict: bool = False) -> Request:
    meta = problem.meta
    lim = meta.limits
    req = meta.requirements
    return Request(
        source=sub.source, entry=meta.entry.name, args=meta.entry.args,
        cases=[(c.id, typed_input(meta, c.input)) for c in cases],
        time_seconds=lim.time_seconds, load_seconds=lim.load_seconds, memory_mb=lim.memory_mb,
        output_kb=lim.output_kb,
        watch=tuple(dict.fromkeys((*WATCHED_BY_DEFAULT, *req.calls, *req.forbid, *(n for r in req.nest for n in r)))),
        poison=req.poison, probe=bool(req.depends and req.poison),
        size_probe=size_probe_inputs(problem, cases) if req.vectorized else [], cost=cost,
        hidden=frozenset(c.id for c in cases if c.hidden), strict=strict)


def _probe_more(sub: Submission, problem: Problem, cases: list[Case], run: RunResult, sandbox: Sandbox,
                strict: bool) -> None:
    """Rerun the dependence probe on more cases, in a fresh child. Only a probe that
    ran as a second module (the submission could not be jitted, or caches its own
    jit) covered a single case, and only an inconclusive one pays for this."""
    clean = [c for c in cases if run.cases[c.id].status == "ok"][:PROBE_CASES]
    if len(clean) <= len(run.probes):
        return
    again = sandbox.run(replace(make_request(sub, problem, clean, strict=strict), size_probe=[],
                                probe_cases=PROBE_CASES))
    if again.judge_error is None:
        run.probes = again.probes


@dataclass
class Judged:
    """One case after the output checks, before hidden cases are reduced for the report."""

    case: Case
    report: CaseReport
    excess: float | None
    got: Any  # the output as plain JSON-able data, when the run produced one


def judge_case(problem: Problem, case: Case, run: CaseRun, memory_mb: int, exit_info: dict) -> Judged:
    meta = problem.meta
    got = None
    finding: Finding | None = None
    worst = None
    if run.status == "ok":
        ctx = CheckContext(meta, run.output, case.expected, typed_input(meta, case.input), run.args_after,
                           check_input(meta, case.input))
        finding = run_checks(ctx, meta.output_checks)
        worst = ctx.worst or None
        got = to_plain(run.output)
        outcome = Outcome(Verdict.WA, finding.reason, finding.message) if finding else Outcome(Verdict.AC, "", "passed")
    elif run.status == "not_run":
        outcome = Outcome(Verdict.AC, "not_run", "not run (an earlier case failed)")
    else:
        status = run.status
        if status == "crash" and exit_info.get("maxrss_kb", 0) * 1024 >= 0.8 * (memory_mb << 20):
            status = "mle"
        verdict, reason = RUN_STATUS.get(status, (Verdict.RE, "crash"))
        err = run.error or {}
        where = f" (line {err['line']})" if err.get("line") else ""
        message = {"timeout": f"no result within {meta.limits.time_seconds:g} s",
                   "mle": f"memory limit of {meta.limits.memory_mb} MB exceeded",
                   "ole": f"output larger than {meta.limits.output_kb} KB"}.get(status, "")
        outcome = Outcome(verdict, reason, message or (err.get("message", "") + where) or f"process ended ({exit_info})")
    report = CaseReport(case.id, case.visibility, outcome.verdict.value if run.status != "not_run" else "--",
                        outcome.reason, outcome.message, run.time_ms)
    report.input, report.expected, report.got, report.worst = case.input, case.expected, got, worst
    report.stdout = run.stdout or None
    report.time_ms = run.time_ms
    if finding and finding.reason in ("structure", "type", "dtype", "shape"):
        report.diff = tree_diff(meta, check_input(meta, case.input), run.output)
    if finding and finding.reason == "nan":
        report.worst = finding.detail
    report.cost = run.cost
    return Judged(case, report, worst.get("excess") if worst else None, got)


def _case_outcome(c: CaseReport) -> Outcome:
    if c.verdict in ("--", Verdict.AC.value):
        return Outcome(Verdict.AC)
    return Outcome(Verdict(c.verdict), c.reason, f"case {c.id}: {c.message}")


def _checks_outcome(checks: list[CheckResult]) -> Outcome:
    for c in checks:
        if not c.passed:
            return Outcome(Verdict(c.verdict), "requirement" if c.verdict == "RJ" else "compile", c.message)
    return Outcome(Verdict.AC)


def grade(problem: Problem, sub: Submission, sandbox: Sandbox, cases: list[Case] | None = None,
          feedback: "Feedback | None" = None, strict: bool = False) -> Graded:
    """Grade ``sub``. ``feedback`` adds what costs extra sandbox runs: misconception
    hints, a public counterexample for hidden failures, compile/run costs."""
    cases = problem.cases if cases is None else cases
    static = static_stage(sub, problem)
    base = dict(problem=problem.id, submission=sub.path, static_checks=lines(static), total=len(cases))
    pre = first_failure([_checks_outcome([c for c in static if c.verdict == "CE"]),
                         _checks_outcome([c for c in static if c.verdict == "RJ"])])
    if pre.verdict is not Verdict.AC:
        return Graded(Report(verdict=pre.verdict.value, verdict_title=pre.verdict.title, reason=pre.reason,
                             message=pre.message, **base), None)

    request = make_request(sub, problem, cases, cost=bool(feedback and feedback.cost), strict=strict)
    run = sandbox.run(request)
    sandbox_info = {"layers": run.layers, "unavailable": run.unavailable}
    if strict and run.unavailable:
        run.judge_error = ("strict sandbox: refusing to grade without every layer; unavailable: " +
                           ", ".join(f"{k} ({v})" for k, v in run.unavailable.items()))
    if run.judge_error:
        return Graded(Report(verdict="IE", verdict_title=Verdict.IE.title, reason="judge", message=run.judge_error,
                             sandbox=sandbox_info, **base), run)
    # Runtime requirements are judged on evidence from runs that completed; a submission
    # that crashes on every case is told about the crash, not about its transforms.
    completed = any(c.status == "ok" for c in run.cases.values())
    if completed and request.probe and not dependence_settled(run, problem.meta.requirements):
        _probe_more(sub, problem, cases, run, sandbox, strict)
    runtime = check_runtime(run, problem.meta.requirements) if completed else []
    judged = [judge_case(problem, c, run.cases[c.id], problem.meta.limits.memory_mb, run.exit) for c in cases]
    excess = {j.case.id: j.excess for j in judged if j.excess is not None}
    load = Outcome(Verdict.AC)
    if run.load_status != "ok":
        verdict, reason = RUN_STATUS.get(run.load_status, (Verdict.RE, "crash"))
        err = run.load_error or {}
        msg = {"no_entry": f"the module defines no callable '{problem.meta.entry.name}'",
               "timeout": f"loading the module took longer than {problem.meta.limits.load_seconds:g} s"}.get(
            run.load_status, f"while loading the module: {err.get('message', run.load_status)}"
            + (f" (line {err['line']})" if err.get("line") else ""))
        load = Outcome(verdict, reason, msg)
    public_view = [hidden_view(j.report) if j.case.hidden else j.report for j in judged]
    overall = first_failure([load, _checks_outcome(runtime), *map(_case_outcome, public_view)])
    passed = sum(1 for j in judged if j.report.verdict == Verdict.AC.value)
    report = Report(verdict=overall.verdict.value, verdict_title=overall.verdict.title, reason=overall.reason,
                    message=overall.message, runtime_checks=lines(runtime), passed=passed,
                    sandbox=sandbox_info, stdout=run.load_stdout, **{k: v for k, v in base.items()})
    if feedback is not None and overall.verdict is not Verdict.IE:
        feedback.apply(problem, sub, judged, report, sandbox)
    # Feedback may have added hints; reduce hidden cases again (see report.hidden_view).
    report.cases = [hidden_view(j.report) if j.case.hidden else j.report for j in judged]
    return Graded(report, run, excess)

