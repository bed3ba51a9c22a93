"""Stage 6b: feedback a learner can act on, for what costs extra sandbox runs.

- Misconception hints: a failing output that matches, within tolerance, the output
  of one of the problem's ``wrong_answer`` submissions on the same case names that
  mistake (the ``# hint:`` line its author wrote). Works for hidden cases too: it
  reveals the mistake, not the data. The outputs of the wrong answers are computed
  once per problem version and cached on disk.
- Counterexample: when only hidden cases fail, a small input from the problem's
  generator on which the submission also fails, shrunk along the problem's dims
  and shown in full instead of the hidden case.
- Cost: compile and run time per case beside the reference's, from the same grade.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..common.files import write_atomic
from ..common.trees import get_path
from ..common.verdicts import Verdict
from ..problem import Case, Problem
from ..problem.corpus import submission_files
from ..problem.inputs import InputError, canonical, check_input, resized
from ..problem.modules import generated_inputs
from ..sandbox.wire import to_plain
from .output_checks import compare
from .reference import reference_outputs
from .request import make_request
from .submission import load_submission
from .verdict import judge_case

COUNTEREXAMPLE_SEED = 7_340_033  # generator seed reserved for counterexamples
CANDIDATES = 16


@dataclass
class Feedback:
    hints: bool = True
    counterexample: bool = True
    cost: bool = False
    budget_seconds: float = 30.0

    def apply(self, problem: Problem, sub, judged: list, report, sandbox) -> None:
        failing = [j for j in judged if j.report.verdict == Verdict.WA.value and j.got is not None]
        if self.hints and failing:
            table = mistake_table(problem, sandbox)
            for j in failing:
                j.report.hint = match_mistake(problem, j.case, j.got, table)
            report.hint = next((j.report.hint for j in judged if j.report.hint), None)
        only_hidden = any(j.case.hidden and j.report.verdict not in ("AC", "--") for j in judged) and \
            not any(not j.case.hidden and j.report.verdict not in ("AC", "--") for j in judged)
        if self.counterexample and only_hidden and report.verdict in ("WA", "RE"):
            report.counterexample = find_counterexample(problem, sub, sandbox, self.budget_seconds)
        if self.cost:
            add_reference_cost(problem, judged, sandbox)


# ------------------------------------------------------------------- hints

def _cache_dir() -> Path:
    base = os.environ.get("JAXJUDGE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "jaxjudge")
    return Path(base) / "mistakes"


def _wrong_answers(problem: Problem):
    return [e for e in submission_files(problem) if e.verdict is Verdict.WA and e.hint]


TABLE_VERSION = b"2"  # bump when what the table holds changes


def _digest(problem: Problem, files) -> str:
    h = hashlib.sha256(TABLE_VERSION)
    for path in [problem.root / "problem.toml", *(c.path for c in problem.cases), *(e.path for e in files)]:
        h.update(str(path.name).encode())
        h.update(Path(path).read_bytes())
    return h.hexdigest()[:24]


def mistake_table(problem: Problem, sandbox) -> dict[str, list[dict]]:
    """case id -> [{"hint", "file", "output"}], from running every hinted wrong answer."""
    files = _wrong_answers(problem)
    if not files:
        return {}
    cache = _cache_dir() / f"{problem.id}-{_digest(problem, files)}.json"
    try:
        return json.loads(cache.read_text())
    except (OSError, ValueError):
        pass
    table: dict[str, list[dict]] = {}
    for exp in files:
        sub = load_submission(exp.path)
        if sub.syntax_error:
            continue
        run = sandbox.run(make_request(sub, problem, problem.cases))
        for case in problem.cases:
            cr = run.cases.get(case.id)
            if cr is None or cr.status != "ok":
                continue
            output = to_plain(cr.output)
            # Only where the mistake shows: elsewhere this wrong answer equals the right one.
            if not _close(problem, output, case.expected):
                table.setdefault(case.id, []).append({"hint": exp.hint, "file": exp.path.name, "output": output})
    try:
        write_atomic(cache, json.dumps(table))
    except OSError:
        pass  # a read-only cache only costs speed
    return table


def _close(problem: Problem, a: Any, b: Any) -> bool:
    try:
        for spec in problem.meta.outputs:
            x = np.asarray(get_path(a, spec.path), dtype=np.float64)
            y = np.asarray(get_path(b, spec.path), dtype=np.float64)
            if x.shape != y.shape or not compare(spec, x, y)["excess"] <= 1.0:
                return False
    except (KeyError, TypeError, ValueError, IndexError):
        return False
    return True


def match_mistake(problem: Problem, case: Case, got: Any, table: dict[str, list[dict]]) -> str | None:
    for entry in table.get(case.id, []):
        if _close(problem, got, entry["output"]):
            return entry["hint"]
    return None


# ---------------------------------------------------------- counterexample

def find_counterexample(problem: Problem, sub, sandbox, budget: float) -> dict | None:
    """A small generated input on which ``sub`` fails; never one equal to a hidden case."""
    if not problem.generator_path.is_file():
        return None
    start = time.monotonic()
    secret = {canonical(problem.meta, c.input) for c in problem.cases if c.hidden}
    try:
        pool = generated_inputs(problem, CANDIDATES, COUNTEREXAMPLE_SEED)
    except Exception:
        return None
    candidates = [(cid, raw) for cid, raw in pool if _valid(problem, raw) and canonical(problem.meta, raw) not in secret]
    candidates.sort(key=lambda item: _size(problem, item[1]))
    found = _first_failure(problem, sub, sandbox, candidates)
    while found is not None and time.monotonic() - start < budget:
        smaller = [(f"shrunk_{i}", raw) for i, raw in enumerate(_shrinks(problem, found["input"]))
                   if canonical(problem.meta, raw) not in secret]
        better = _first_failure(problem, sub, sandbox, smaller) if smaller else None
        if better is None:
            break
        found = better
    return found


def _valid(problem: Problem, raw: Any) -> bool:
    try:
        check_input(problem.meta, raw)
        return True
    except InputError:
        return False


def _size(problem: Problem, raw: Any) -> int:
    return sum(check_input(problem.meta, raw).values())


def _shrinks(problem: Problem, raw: Any) -> list[Any]:
    dims = check_input(problem.meta, raw)
    out = []
    for dim, size in dims.items():
        lo = problem.meta.dims[dim][0]
        for smaller in sorted({lo, size // 2, size - 1}):
            if lo <= smaller < size:
                candidate = resized(problem.meta, raw, dim, smaller)
                if _valid(problem, candidate):
                    out.append(candidate)
    return out


def _first_failure(problem: Problem, sub, sandbox, candidates: list[tuple[str, Any]]) -> dict | None:
    if not candidates:
        return None
    try:
        expected = reference_outputs(problem, candidates, sandbox).expected
    except Exception:
        return None
    cases = [Case(cid, "public", Path(cid), raw, expected[cid]) for cid, raw in candidates if cid in expected]
    run = sandbox.run(make_request(sub, problem, cases))
    if run.judge_error or run.load_status != "ok":
        return None
    for case in cases:
        j = judge_case(problem, case, run.cases[case.id], problem.meta.limits.memory_mb, run.exit)
        if j.report.verdict not in ("AC", "--"):
            return {"input": case.input, "expected": case.expected, "got": j.got,
                    "message": f"{j.report.verdict} ({j.report.reason}): {j.report.message}"}
    return None


# -------------------------------------------------------------------- cost

def add_reference_cost(problem: Problem, judged: list, sandbox) -> None:
    ref = load_submission(problem.reference_path)
    run = sandbox.run(make_request(ref, problem, [j.case for j in judged], cost=True))
    for j in judged:
        cr = run.cases.get(j.case.id)
        if j.report.cost is not None and cr is not None and cr.cost is not None:
            j.report.cost = {**j.report.cost, "ref_compile_ms": cr.cost["compile_ms"], "ref_run_ms": cr.cost["run_ms"]}
