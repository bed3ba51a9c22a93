"""``grader validate``: prove a problem sound (the Kattis ``verifyproblem`` idea).

Each check is a small function ``check(ctx) -> list[Finding]``, listed in
``CHECKS`` in the order they run. A problem passes when no finding fails;
warnings are printed but do not fail the run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .inputs import InputError, canonical, check_input
from .output_checks import compare
from .problem import Problem, ProblemError, load_problem
from .trees import dotted, get_path
from .verdict import BY_FOLDER, FOLDERS, Verdict

NEAR_TOLERANCE = 0.9  # warn when an accepted solution uses more than 90% of a tolerance
ORACLE_AGREEMENT = 1e-3  # oracles (float64) must agree with each other to this fraction of a tolerance


@dataclass
class Finding:
    check: str
    status: str  # pass | fail | warn
    message: str


@dataclass
class Expectation:
    """What a file under submissions/<problem>/<folder>/ promises: its folder's verdict,
    and optionally a reason code and a hint (header comments ``# reason:`` / ``# hint:``)."""

    path: Path
    verdict: Verdict
    reason: str | None
    hint: str | None


_HEADER = re.compile(r"^#\s*(reason|hint):\s*(.+?)\s*$")


def read_expectation(path: Path) -> Expectation | None:
    verdict = BY_FOLDER.get(path.parent.name)
    if verdict is None:
        return None
    found: dict[str, str] = {}
    try:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[:10]:
            m = _HEADER.match(line)
            if m:
                found.setdefault(m.group(1), m.group(2))
    except OSError:
        pass
    return Expectation(path, verdict, found.get("reason"), found.get("hint"))


def submission_files(problem: Problem, root: Path) -> list[Expectation]:
    base = root / problem.id
    out = []
    for path in sorted(base.glob("*/*.py")) if base.is_dir() else []:
        exp = read_expectation(path)
        if exp:
            out.append(exp)
    return out


def submissions_root(problem: Problem) -> Path:
    return problem.root.parent.parent / "submissions"


@dataclass
class Context:
    problem: Problem
    pool: object  # sandbox.Pool
    with_submissions: bool = True
    log: Callable[[str], None] = lambda _m: None
    oracle_worst: dict[str, float] = field(default_factory=dict)


# --------------------------------------------------------------- the checks

def check_files(ctx: Context) -> list[Finding]:
    p = ctx.problem
    out = []
    for path in (p.statement_path, p.reference_path, p.oracle_path):
        ok = path.is_file()
        out.append(Finding("files", "pass" if ok else "fail", f"{path.name} {'present' if ok else 'is missing'}"))
    return out


def check_cases(ctx: Context) -> list[Finding]:
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


def _expected_shape_problem(p: Problem, case) -> str | None:
    dims = check_input(p.meta, case.input)
    for spec in p.meta.outputs:
        try:
            value = np.asarray(get_path(case.expected, spec.path), dtype=np.float64)
        except (KeyError, TypeError, ValueError):
            return f"'{dotted(spec.path)}' is missing or not numeric"
        want = tuple(d if isinstance(d, int) else dims[d] for d in spec.shape)
        if value.shape != want:
            return f"'{dotted(spec.path)}' has shape {value.shape}, the metadata says {want}"
    return None


def check_statement(ctx: Context) -> list[Finding]:
    p = ctx.problem
    if not p.statement_path.is_file():
        return []
    examples = parse_examples(p.statement_path.read_text(encoding="utf-8"))
    if not examples:
        return [Finding("statement examples", "warn", "statement.md shows no worked example in the checkable form")]
    public = {c.id: c for c in p.public_cases()}
    out = []
    for number, values in examples.items():
        case = public.get(f"example_{number}")
        if case is None:
            out.append(Finding("statement examples", "fail", f"Example {number} has no public case 'example_{number}'"))
            continue
        for name, printed in values.items():
            path = tuple(name.split("."))
            tree = case.input if path[0] in p.meta.entry.args else case.expected
            try:
                actual = get_path(tree, path)
            except (KeyError, TypeError):
                out.append(Finding("statement examples", "fail", f"Example {number}: '{name}' is not in the case"))
                continue
            mismatch = _digits_mismatch(printed, actual)
            if mismatch:
                out.append(Finding("statement examples", "fail", f"Example {number}, {name}: {mismatch}"))
    if not out:
        out.append(Finding("statement examples", "pass", f"{len(examples)} worked example(s) match the public cases"))
    return out


_EXAMPLE = re.compile(r"^\*\*Example (\d+)\*\*\s*$")
_ASSIGN = re.compile(r"^ {4}([A-Za-z_][\w.]*) = (.+)$")


def parse_examples(text: str) -> dict[int, dict[str, str]]:
    """Worked examples: a ``**Example N**`` line, then indented ``name = value`` lines."""
    examples: dict[int, dict[str, str]] = {}
    current = None
    for line in text.splitlines():
        m = _EXAMPLE.match(line)
        if m:
            current = examples.setdefault(int(m.group(1)), {})
            continue
        if line.startswith("#"):
            current = None
        m = _ASSIGN.match(line)
        if current is not None and m:
            current[m.group(1)] = m.group(2)
    return examples


def _digits_mismatch(printed: str, actual) -> str | None:
    """Compare every number printed with the stored value rounded to the printed digits."""
    import json

    try:
        shown = json.loads(printed)
    except ValueError:
        return f"cannot read the printed value {printed!r}"

    def walk(a, b, where: str) -> str | None:
        if isinstance(a, dict):
            if not isinstance(b, dict) or set(a) != set(b):
                return f"keys differ at {where or 'top'}"
            return next((r for k in a if (r := walk(a[k], b[k], f"{where}.{k}"))), None)
        if isinstance(a, list):
            if not isinstance(b, list) or len(a) != len(b):
                return f"length differs at {where or 'top'}"
            return next((r for i, (x, y) in enumerate(zip(a, b)) if (r := walk(x, y, f"{where}[{i}]"))), None)
        return None

    def numbers(a, b):
        if isinstance(a, dict):
            for k in a:
                yield from numbers(a[k], b[k])
        elif isinstance(a, list):
            for x, y in zip(a, b):
                yield from numbers(x, y)
        else:
            yield a, b

    structural = walk(shown, actual, "")
    if structural:
        return structural
    # Digits as printed: a JSON re-read loses them, so take them from the text itself.
    printed_numbers = re.findall(r"-?\d+(?:\.(\d+))?(?:[eE][-+]?\d+)?", printed)
    decimals = [len(frac) for frac in printed_numbers]
    for i, (a, b) in enumerate(numbers(shown, actual)):
        d = decimals[i] if i < len(decimals) else 0
        if abs(float(a) - float(b)) > 0.5 * 10 ** (-d) + 1e-12:
            return f"printed {a}, but the case holds {b} (differs beyond the {d} printed decimals)"
    return None


def check_oracles(ctx: Context) -> list[Finding]:
    from .authoring import oracle_excess, oracles

    p = ctx.problem
    try:
        fns = oracles(p)
    except ProblemError as exc:
        return [Finding("oracles", "fail", str(exc))]
    out: list[Finding] = []
    for name, fn in fns.items():
        worst, worst_case = 0.0, ""
        failed = False
        for case in p.cases:
            if case.expected is None:
                continue
            try:
                excess, where = oracle_excess(p, fn, case.input, case.expected)
            except Exception as exc:
                out.append(Finding(f"oracle {name}", "fail", f"{case.visibility}/{case.id}: raised "
                                                             f"{type(exc).__name__}: {exc}"))
                failed = True
                break
            if not excess <= 1.0:
                out.append(Finding(f"oracle {name}", "fail", f"{case.visibility}/{case.id}: disagrees with the stored "
                                   f"expected output on '{where}' ({excess:.2f}x the tolerance)"))
                failed = True
            if excess > worst:
                worst, worst_case = excess, case.id
        ctx.oracle_worst[name] = worst
        if not failed:
            out.append(Finding(f"oracle {name}", "pass", f"agrees on all {len(p.cases)} cases; largest error "
                               f"{worst:.3f} of the tolerance ({worst_case or '-'})"))
    out += _oracles_agree(p, fns)
    out += _invariants(p)
    return out


def _oracles_agree(p: Problem, fns: dict) -> list[Finding]:
    names = list(fns)
    if len(names) < 2:
        return []
    import copy

    first = names[0]
    for case in p.cases:
        results = {n: fns[n](*[copy.deepcopy(case.input)[a] for a in p.meta.entry.args]) for n in names}
        for other in names[1:]:
            for spec in p.meta.outputs:
                a = np.asarray(get_path(results[first], spec.path), dtype=np.float64)
                b = np.asarray(get_path(results[other], spec.path), dtype=np.float64)
                cmp = compare(spec, b, a)
                if a.shape != b.shape or not cmp["excess"] <= ORACLE_AGREEMENT:
                    return [Finding("oracles agree", "fail", f"{case.id}: oracles '{first}' and '{other}' differ on "
                                    f"'{dotted(spec.path)}' ({cmp['excess']:.2g}x the tolerance)")]
    return [Finding("oracles agree", "pass", f"{', '.join(names)} agree within {ORACLE_AGREEMENT:g} of the "
                    f"tolerance on every case")]


def _invariants(p: Problem) -> list[Finding]:
    from .authoring import load_module

    if not p.meta.invariants:
        return []
    module = load_module(p.oracle_path, f"{p.id}_invariants")
    out = []
    for name in p.meta.invariants:
        fn = getattr(module, name, None)
        if not callable(fn):
            return [Finding(f"invariant {name}", "fail", f"oracle.py defines no function '{name}'")]
        for case in p.cases:
            try:
                ok, message = fn(*[case.input[a] for a in p.meta.entry.args])
            except Exception as exc:
                ok, message = False, f"raised {type(exc).__name__}: {exc}"
            if not ok:
                out.append(Finding(f"invariant {name}", "fail", f"{case.id}: {message}"))
                break
        else:
            out.append(Finding(f"invariant {name}", "pass", f"holds on all {len(p.cases)} cases"))
    return out


def check_reference(ctx: Context) -> list[Finding]:
    from .pipeline import grade
    from .submission import load_submission

    p = ctx.problem
    graded = next(ctx.pool.submit_all(lambda box, sub: grade(p, sub, box), [load_submission(p.reference_path)]))
    r = graded.report
    if r.verdict != "AC":
        failing = next((c for c in r.cases if c.verdict not in ("AC", "--")), None)
        where = f" on {failing.visibility} case {failing.id} ({failing.reason})" if failing else ""
        return [Finding("reference", "fail", f"the reference gets {r.verdict}{where}: {r.message}")]
    return [Finding("reference", "pass", f"passes every check and reproduces all {r.total} expected outputs "
                    f"(largest error {max(graded.excess.values(), default=0):.3f} of the tolerance)")]


def check_submissions(ctx: Context) -> list[Finding]:
    from .pipeline import grade
    from .submission import SubmissionError, load_submission

    if not ctx.with_submissions:
        return []
    p = ctx.problem
    files = submission_files(p, submissions_root(p))
    if not files:
        return [Finding("submissions", "warn", f"no files under submissions/{p.id}/<verdict>/")]
    hidden_ids = {c.id for c in p.cases if c.hidden}

    def job(box, exp: Expectation):
        try:
            return exp, grade(p, load_submission(exp.path), box)
        except SubmissionError as exc:
            return exp, exc

    out: list[Finding] = []
    for exp, graded in ctx.pool.submit_all(job, files):
        name = f"{exp.path.parent.name}/{exp.path.name}"
        ctx.log(f"  graded {name}")
        if isinstance(graded, Exception):
            out.append(Finding("submission verdicts", "fail", f"{name}: {graded}"))
            continue
        r = graded.report
        if r.verdict != exp.verdict.value:
            out.append(Finding("submission verdicts", "fail", f"{name}: expected {exp.verdict.value}, got "
                               f"{r.verdict} ({r.reason}: {r.message[:200]})"))
            continue
        if exp.reason and r.reason != exp.reason:
            out.append(Finding("submission verdicts", "fail", f"{name}: verdict {r.verdict} as expected, but the "
                               f"reason is '{r.reason}', not '{exp.reason}'"))
            continue
        if exp.verdict is Verdict.WA and not any(c.id in hidden_ids and c.verdict not in ("AC", "--")
                                                 for c in r.cases):
            out.append(Finding("hidden cases catch mistakes", "fail", f"{name} fails only public cases: the hidden "
                               f"suite is weak (add a hidden case that catches it)"))
        if exp.verdict is Verdict.AC and graded.excess:
            worst = max(graded.excess.values())
            if worst > NEAR_TOLERANCE:
                out.append(Finding("tolerance margin", "warn", f"{name} uses {worst:.0%} of a tolerance: an accepted "
                                   f"solution is close to failing"))
    n_fail = sum(1 for f in out if f.status == "fail")
    if not n_fail:
        out.append(Finding("submission verdicts", "pass", f"all {len(files)} files under submissions/{p.id}/ get "
                           f"their folder's verdict"))
    return out


CHECKS: list[Callable[[Context], list[Finding]]] = [
    check_files, check_cases, check_statement, check_oracles, check_reference, check_submissions]


def validate_problem(problem_dir: Path, pool, with_submissions: bool = True,
                     log: Callable[[str], None] = lambda _m: None) -> tuple[str, list[Finding]]:
    try:
        problem = load_problem(problem_dir)
    except ProblemError as exc:
        return problem_dir.name, [Finding("metadata", "fail", str(exc))]
    findings = [Finding("metadata", "pass", "problem.toml parses and is complete")]
    ctx = Context(problem, pool, with_submissions, log)
    for check in CHECKS:
        try:
            found = check(ctx)
        except ProblemError as exc:
            found = [Finding(check.__name__.removeprefix("check_"), "fail", str(exc))]
        findings += found
        if check is check_cases and any(f.status == "fail" for f in found):
            findings.append(Finding("reference", "fail", "skipped: fix the cases first"))
            break
    return problem.id, findings


def wrong_answers_caught(problem: Problem, case_ids: Iterable[str]) -> list[str] | None:
    """Which wrong_answer submissions fail on the given cases (for add-case)."""
    from .pipeline import grade
    from .sandbox import Pool
    from .submission import load_submission

    ids = set(case_ids)
    files = [e for e in submission_files(problem, submissions_root(problem)) if e.verdict is Verdict.WA]
    if not files:
        return None
    cases = [c for c in problem.cases if c.id in ids]
    caught = []
    with Pool(1) as pool:
        for exp, graded in pool.submit_all(lambda box, e: (e, grade(problem, load_submission(e.path), box, cases)),
                                           files):
            if graded.report.verdict != "AC":
                caught.append(exp.path.name)
    return sorted(caught)


__all__ = ["CHECKS", "Finding", "FOLDERS", "validate_problem", "wrong_answers_caught", "read_expectation"]
