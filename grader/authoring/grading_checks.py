"""Validate checks that grade: the reference gets AC, and every file under
``submissions/<problem>/<verdict>/`` gets its folder's verdict and reason, with a report
fit to show (``report_checks``), and without writing to disk."""
from __future__ import annotations

from ..common.verdicts import Verdict
from ..judge.mistakes import record
from ..judge.pipeline import grade
from ..judge.submission import SubmissionError, load_submission
from ..problem.corpus import Expectation, submission_files, submissions_root
from .context import Validation, Finding
from .report_checks import DiskWatch, hidden_numbers, report_faults, schema_validator

NEAR_TOLERANCE = 0.9  # warn when an accepted solution uses more than 90% of a tolerance


def check_reference(ctx: Validation) -> list[Finding]:
    p = ctx.problem
    graded = next(ctx.pool.submit_all(lambda sandbox, sub: grade(p, sub, sandbox), [load_submission(p.reference_path)]))
    r = graded.report
    if r.verdict != "AC":
        failing = next((c for c in r.cases if c.verdict not in ("AC", "--")), None)
        where = f" on {failing.visibility} case {failing.id} ({failing.reason})" if failing else ""
        return [Finding("reference", "fail", f"the reference gets {r.verdict}{where}: {r.message}")]
    return [Finding("reference", "pass", f"passes every check and reproduces all {r.total} expected outputs "
                    f"(largest error {max(graded.excess.values(), default=0):.3f} of the tolerance)")]


def check_submissions(ctx: Validation) -> list[Finding]:
    if not ctx.with_submissions:
        return []
    p = ctx.problem
    files = submission_files(p)
    if not files:
        return [Finding("submissions", "warn", f"no files under submissions/{p.id}/<verdict>/")]
    hidden_ids = {c.id for c in p.cases if c.hidden}
    hidden, validator = hidden_numbers(p), schema_validator()

    def job(sandbox, exp: Expectation):
        # A file that must be accepted must follow every perturbation a grade could draw,
        # not only the one drawn this time (so that its AC does not depend on the draw).
        try:
            return exp, grade(p, load_submission(exp.path), sandbox, every_perturbation=exp.verdict is Verdict.AC)
        except SubmissionError as exc:
            return exp, exc

    out: list[Finding] = []
    watch = DiskWatch.start(p, [e.path for e in files], submissions_root(p))
    for exp, graded in ctx.pool.submit_all(job, files):
        name = f"{exp.path.parent.name}/{exp.path.name}"
        ctx.log(f"  graded {name}")
        if isinstance(graded, Exception):
            out.append(Finding("submission verdicts", "fail", f"{name}: {graded}"))
            continue
        r = graded.report
        out += [Finding("submission reports", "fail", f"{name}: {fault}")
                for fault in report_faults(r.to_json(), hidden, validator)]
        if r.verdict != exp.verdict.value:
            out.append(Finding("submission verdicts", "fail", f"{name}: expected {exp.verdict.value}, got "
                               f"{r.verdict} ({r.reason}: {r.message[:200]})"))
            continue
        if exp.reason and r.reason != exp.reason:
            out.append(Finding("submission verdicts", "fail", f"{name}: verdict {r.verdict} as expected, but the "
                               f"reason is '{r.reason}', not '{exp.reason}'"))
            continue
        if exp.verdict is Verdict.AC and not r.passed == r.total == len(p.cases):
            out.append(Finding("submission verdicts", "fail", f"{name}: AC, but it passed {r.passed} of {r.total} "
                               f"cases, and the problem has {len(p.cases)}"))
        if exp.verdict is Verdict.WA and exp.hint and graded.run is not None:
            record(p, exp, graded.run)  # the misconception table, built ahead of grading
        if exp.verdict is Verdict.WA and not any(c.id in hidden_ids and c.verdict not in ("AC", "--")
                                                 for c in r.cases):
            out.append(Finding("hidden cases catch mistakes", "fail", f"{name} fails only public cases: the hidden "
                               f"suite is weak (add a hidden case that catches it)"))
        if exp.verdict is Verdict.AC and graded.excess:
            worst = max(graded.excess.values())
            if worst > NEAR_TOLERANCE:
                out.append(Finding("tolerance margin", "warn", f"{name} uses {worst:.0%} of a tolerance: an accepted "
                                   f"solution is close to failing"))
    out += [Finding("submission side effects", "fail", f"while the corpus was graded, {change}")
            for change in watch.changes()]
    n_fail = sum(1 for f in out if f.status == "fail")
    if not n_fail:
        out.append(Finding("submission verdicts", "pass", f"all {len(files)} files under submissions/{p.id}/ get "
                           "their folder's verdict, with a report that fits the report schema and shows no hidden "
                           "input, and write nothing to disk"))
    return out
