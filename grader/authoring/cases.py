"""``grader add-case`` and ``grader generate``: validate inputs, compute expected
outputs with the reference, cross-check them with every oracle, and write case
files atomically (all or nothing, never replacing a file).

Expected values come from running ``reference.py`` through the same sandbox
and pipeline as any submission (``judge.reference``), so a reference that breaks
the problem's own requirements cannot produce cases. Oracles are trusted author
code (float64 NumPy) and run here in the judge.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from ..common.files import write_atomic
from ..common.trees import get_path
from ..common.verdicts import Verdict, Visibility
from ..judge.output_checks import compare
from ..judge.reference import reference_outputs
from ..problem import Problem
from ..problem.corpus import submission_files
from ..problem.inputs import InputError, canonical, check_input
from ..problem.modules import oracles
from ..sandbox.host import Sandbox


class AuthoringError(Exception):
    """A case that cannot be added; the message names the field or the cause."""


def oracle_excess(problem: Problem, fn: Callable, raw_input: Any, expected: Any) -> tuple[float, str]:
    """The oracle's largest error against ``expected`` as a fraction of the tolerance."""
    import copy

    args = copy.deepcopy(raw_input)
    got = fn(*[args[a] for a in problem.meta.entry.args])
    worst, where = 0.0, ""
    for spec in problem.meta.outputs:
        cmp = compare(spec, np.asarray(get_path(got, spec.path), dtype=np.float64),
                      np.asarray(get_path(expected, spec.path), dtype=np.float64))
        if cmp["excess"] > worst or not where:
            worst, where = cmp["excess"], cmp.get("leaf", ".".join(spec.path))
    return worst, where


def case_text(raw_input: Any, expected: Any, recipe: str | None = None) -> str:
    doc = {"input": raw_input, "expected": expected, **({"recipe": recipe} if recipe else {})}
    return json.dumps(doc, indent=1) + "\n"


@dataclass
class NewCase:
    name: str
    path: Path
    oracle_excess: dict[str, float]


def prepare(problem: Problem, raw_inputs: list[tuple[str, Any]]) -> None:
    """Validate inputs and reject duplicates (of each other and of stored cases)."""
    seen = {canonical(problem.meta, c.input): c.id for c in problem.cases}
    for cid, raw in raw_inputs:
        try:
            check_input(problem.meta, raw)
        except InputError as exc:
            raise AuthoringError(f"{cid}: {exc}") from None
        key = canonical(problem.meta, raw)
        if key in seen:
            raise AuthoringError(f"{cid}: duplicate of the existing case '{seen[key]}'")
        seen[key] = cid


def add_cases(problem: Problem, raw_inputs: list[tuple[str, Any]], visibility: Visibility, sandbox: Sandbox,
              name_hint: Callable[[int], str] | None = None, exact_names: bool = False,
              recipe: str | None = None) -> list[NewCase]:
    """Validate, compute, cross-check, then write every case (all or nothing); ``recipe``:
    the generator's recipe they were drawn from, kept in each case file."""
    checked = checked_cases(problem, raw_inputs, sandbox)
    folder = problem.cases_dir(visibility)
    written = []
    for cid, raw, expected, excess in checked:
        text = case_text(raw, expected, recipe)
        if exact_names:
            path = folder / f"{cid}.json"
            if not write_atomic(path, text, exclusive=True):
                raise AuthoringError(f"{cid}: a case of that name exists already")
        else:
            for k in range(1, 100_000):
                path = folder / f"{name_hint(k) if name_hint else f'case_{k:03d}'}.json"
                if not path.exists() and write_atomic(path, text, exclusive=True):
                    break
        written.append(NewCase(path.stem, path, excess))
    return written


def checked_cases(problem: Problem, raw_inputs: list[tuple[str, Any]],
                  sandbox: Sandbox) -> list[tuple[str, Any, Any, dict[str, float]]]:
    """Each input as a case would hold it: inside the constraints and no stored case's
    duplicate, its expected output from the reference, confirmed by every oracle within
    the tolerance; (id, input, expected, each oracle's excess). ``AuthoringError`` names
    the first input that fails."""
    prepare(problem, raw_inputs)
    computed = reference_outputs(problem, raw_inputs, sandbox)
    if computed.problems:
        cid, why = next(iter(computed.problems.items()))
        raise AuthoringError(f"{cid}: {why}")
    fns = oracles(problem)
    checked: list[tuple[str, Any, Any, dict[str, float]]] = []
    for cid, raw in raw_inputs:
        expected = computed.expected[cid]
        excess = {}
        for oname, fn in fns.items():
            try:
                e, where = oracle_excess(problem, fn, raw, expected)
            except Exception as exc:
                raise AuthoringError(f"{cid}: oracle '{oname}' failed: {type(exc).__name__}: {exc}") from None
            if not e <= 1.0:
                raise AuthoringError(f"{cid}: the reference and oracle '{oname}' disagree on '{where}' "
                                     f"({e:.2f}x the tolerance); not written")
            excess[oname] = e
        checked.append((cid, raw, expected, excess))
    return checked


def wrong_answers_caught(problem: Problem, case_ids: Iterable[str]) -> list[str] | None:
    """Which wrong_answer submissions fail on the given cases (None: the problem has none)."""
    from ..judge.pipeline import grade
    from ..judge.submission import load_submission
    from ..sandbox.host import Pool

    ids = set(case_ids)
    files = [e for e in submission_files(problem) if e.verdict is Verdict.WA]
    if not files:
        return None
    cases = [c for c in problem.cases if c.id in ids]
    caught = []
    with Pool(1) as pool:
        def job(sandbox, e):
            return e, grade(problem, load_submission(e.path), sandbox, cases)

        for exp, graded in pool.submit_all(job, files):
            if graded.report.verdict != "AC":
                caught.append(exp.path.name)
    return sorted(caught)
