"""Problem authoring: compute expected outputs with the reference, cross-check
them with every oracle, and write case files atomically.

Expected values come from running ``reference.py`` through the same sandbox
and pipeline as any submission, so a reference that breaks the problem's own
requirements cannot produce cases. Oracles are trusted author code (float64
NumPy) and run here in the judge.
"""
from __future__ import annotations

import importlib.util
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .inputs import InputError, canonical, check_input, typed_input
from .output_checks import CheckContext, compare, run_checks
from .pipeline import make_request, static_stage
from .problem import Case, Problem, ProblemError
from .sandbox import Sandbox
from .submission import load_submission
from .trees import get_path
from .wire import to_plain


class AuthoringError(Exception):
    """A case that cannot be added; the message names the field or the cause."""


def load_module(path: Path, name: str):
    if not path.is_file():
        raise ProblemError(path, "missing")
    spec = importlib.util.spec_from_file_location(f"jaxjudge_problem_{name}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ProblemError(path, f"cannot be imported: {type(exc).__name__}: {exc}") from None
    return module


def oracles(problem: Problem) -> dict[str, Callable]:
    module = load_module(problem.oracle_path, f"{problem.id}_oracle")
    found = {}
    for name in problem.meta.oracles:
        fn = getattr(module, name, None)
        if not callable(fn):
            raise ProblemError(problem.oracle_path, f"declares no function '{name}' (see [oracles] functions)")
        found[name] = fn
    return found


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


@dataclass
class Computed:
    expected: dict[str, Any]
    problems: dict[str, str]  # case id -> why the reference could not produce it


def reference_outputs(problem: Problem, raw_inputs: list[tuple[str, Any]], sandbox: Sandbox) -> Computed:
    sub = load_submission(problem.reference_path)
    bad = [c for c in static_stage(sub, problem) if not c.passed]
    if bad:
        raise ProblemError(problem.reference_path, f"fails its own static checks: {bad[0].message}")
    cases = [Case(cid, "hidden", Path(cid), raw) for cid, raw in raw_inputs]
    run = sandbox.run(make_request(sub, problem, cases))
    if run.judge_error or run.load_status != "ok":
        err = (run.load_error or {}).get("message", run.judge_error or run.load_status)
        raise ProblemError(problem.reference_path, f"could not be run: {err}")
    from .runtime_checks import check_runtime

    # The dependence probe needs cases on which the answer moves with the transform; a single
    # new case may be degenerate (an overflow that zeroes everything). validate proves it on the suite.
    broken = [c for c in check_runtime(run, problem.meta.requirements)
              if not c.passed and c.name != "results come from the transforms"]
    if broken:
        raise ProblemError(problem.reference_path, f"fails its own requirement '{broken[0].name}': {broken[0].message}")
    shape_checks = tuple(c for c in problem.meta.output_checks if c not in ("value",))
    out = Computed({}, {})
    for cid, raw in raw_inputs:
        cr = run.cases[cid]
        if cr.status != "ok":
            out.problems[cid] = f"reference ended with {cr.status}: {(cr.error or {}).get('message', '')}"
            continue
        ctx = CheckContext(problem.meta, cr.output, None, typed_input(problem.meta, raw), cr.args_after,
                           check_input(problem.meta, raw))
        found = run_checks(ctx, shape_checks)
        if found:
            out.problems[cid] = f"reference output fails '{found.reason}': {found.message}"
            continue
        out.expected[cid] = to_plain(cr.output)
    return out


def write_atomic(path: Path, text: str, exclusive: bool = False) -> bool:
    """Write via a temp file in the same folder; with ``exclusive`` never replace an
    existing file (returns False instead), so concurrent authors cannot clobber each other."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
        else:
            os.replace(tmp, path)
            tmp = ""
        return True
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def case_text(raw_input: Any, expected: Any) -> str:
    return json.dumps({"input": raw_input, "expected": expected}, indent=1) + "\n"


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


def add_cases(problem: Problem, raw_inputs: list[tuple[str, Any]], visibility: str, sandbox: Sandbox,
              name_hint: Callable[[int], str] | None = None, exact_names: bool = False) -> list[NewCase]:
    """Validate, compute, cross-check, then write every case (all or nothing)."""
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
    folder = problem.cases_dir(visibility)
    written = []
    for cid, raw, expected, excess in checked:
        text = case_text(raw, expected)
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


def generated_inputs(problem: Problem, count: int, seed: int) -> list[tuple[str, Any]]:
    module = load_module(problem.generator_path, f"{problem.id}_generator")
    if not callable(getattr(module, "generate", None)):
        raise ProblemError(problem.generator_path, "defines no generate(rng, index)")
    out = []
    for index in range(count):
        rng = np.random.default_rng([seed, index])
        out.append((f"gen_s{seed}_{index:03d}", module.generate(rng, index)))
    return out
