"""``grader suite draw``: a deployment's own hidden suite for each problem, drawn from its
secret (``problem.suite``), checked case by case as ``add-case`` checks a case, and used
only once it is at least as strong as the shipped suite.

A draw repeats the shipped suite's plan with the deployment's seed: the generator at the
same indices (the same scenarios), each recipe as many times as the shipped suite uses it.
Every drawn case has the property its scenario or recipe declares (``PROPERTIES`` in
generator.py), is inside the constraints, no stored case's duplicate, its expected
output is the reference's, and every oracle confirms it within the tolerance
(``cases.checked_cases``). The strength gate then asks two things of it:

- the problem's corpus gets the verdicts its folders name (``submissions/<problem>/<verdict>/``,
  graded with the drawn hidden cases in place of the shipped ones);
- every mutant of the reference that the shipped hidden cases kill, the drawn ones kill too
  (the mutation analysis, without its search for holes). The shipped suite's kills are a
  table computed once (``mutation.kills``, shipped for the built-in catalogue); the drawn
  cases are asked only about those mutants, each until its first kill.

A draw that fails is drawn again from the next seed, and the reason is logged and kept in
the suite's record; after ``MAX_ATTEMPTS`` the problem has no drawn suite, and a
deployment that requires one refuses to grade it rather than fall back to the shipped cases.
"""
from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..problem import Problem
from ..problem.cases import read_case
from ..problem.labels import lacking
from ..problem.modules import load_module, recipes
from ..problem.suite import Secret, SuiteStore, plan, revision, stripped, with_suite
from .cases import AuthoringError, case_text, checked_cases
from .context import Validation
from .grading_checks import check_submissions
from .mutation import kills

MAX_ATTEMPTS = 5


@dataclass
class Draw:
    """How one problem's suite was drawn: ``kept`` when a passing draw of this revision was
    in the store already; ``killed``: hidden kills of the reference's mutants, shipped
    suite then drawn (None when the gate ran no mutation analysis)."""

    problem: str
    suite: str
    passed: bool = False
    kept: bool = False
    attempt: int = 0
    ids: list[str] = field(default_factory=list)  # the drawn cases, in the plan's order
    macs: dict[str, str] = field(default_factory=dict, repr=False)  # the drawn cases' seals (SuiteStore.write_cases)
    reasons: list[str] = field(default_factory=list)  # one per failed attempt
    killed: tuple[int, int] | None = None
    seconds: float = 0.0


def drawn_inputs(problem: Problem, secret: Secret, attempt: int) -> list[tuple[str, Any]]:
    """The inputs of draw ``attempt``: one per slot of the shipped plan."""
    seed = secret.seed(problem.id, attempt)
    slots = plan(problem)
    generate: Callable | None = None
    if any(s.index is not None for s in slots):
        generate = getattr(load_module(problem.generator_path, f"{problem.id}_generator"), "generate", None)
    by_name = recipes(problem) if any(s.recipe for s in slots) else {}
    out: list[tuple[str, Any]] = []
    used: dict[str, int] = {}
    for slot in slots:
        if slot.recipe is not None:
            k = used[slot.recipe] = used.get(slot.recipe, -1) + 1
            fn = by_name.get(slot.recipe)
            if fn is None:
                raise AuthoringError(f"hidden case {slot.id} names recipe {slot.recipe!r}, which generator.py's "
                                     "RECIPES lacks")
            rng = np.random.default_rng([seed, k, zlib.crc32(slot.recipe.encode())])
            out.append((f"{slot.recipe}_{k:03d}", fn(rng)))
        else:
            assert slot.index is not None
            if not callable(generate):
                raise AuthoringError(f"hidden case {slot.id} is generated, but generator.py defines no generate")
            out.append((f"gen_{slot.index:03d}", generate(np.random.default_rng([seed, slot.index]), slot.index)))
    return out


def killed(analysis) -> set[int]:
    return {o.mutant.id for o in analysis.outcomes if o.hidden_kills > 0}


def draw_suite(problem: Problem, secret: Secret, store: SuiteStore, pool, mutation=None,
               log: Callable[[str], None] = lambda _m: None, waiting: Callable[[], None] = lambda: None) -> Draw:
    """``problem``'s drawn suite in ``store``: the one kept for this revision, else drawn,
    checked and gated (``mutation``: a ``MutationSession`` for the mutant half of the gate;
    None skips it, as ``--no-mutants`` does). Another process drawing the same problem into
    the same folder is waited for (``waiting`` is called first), and what it drew is kept."""
    with store.drawing(problem, waiting):
        return _draw_suite(problem, secret, store, pool, mutation, log)


def _draw_suite(problem: Problem, secret: Secret, store: SuiteStore, pool, mutation,
                log: Callable[[str], None]) -> Draw:
    start = time.monotonic()
    draw = Draw(problem.id, secret.id)
    kept = store.manifest(problem)
    if kept is not None:
        draw.passed, draw.kept, draw.attempt, draw.ids = True, True, kept["attempt"], list(kept["cases"])
        return draw
    shipped = None
    if mutation is not None and stripped(problem):
        draw.reasons.append("the mutant half of the gate compares with the shipped hidden cases, which this "
                            "installation lacks: draw with --no-mutants, or where the hidden cases are")
        return _record(store, problem, draw, start)
    if mutation is not None:
        try:
            shipped = kills.get(problem, mutation)
        except RuntimeError as exc:
            draw.reasons.append(f"the shipped suite's mutation analysis failed: {exc}")
            return _record(store, problem, draw, start)
    for attempt in range(MAX_ATTEMPTS):
        draw.attempt = attempt
        reason = _attempt(problem, secret, store, pool, mutation, shipped, draw, log)
        if reason is None:
            draw.passed = True
            break
        draw.reasons.append(f"draw {attempt}: {reason}")
        log(f"  {problem.id}: draw {attempt} refused: {reason}")
    return _record(store, problem, draw, start)


def _attempt(problem: Problem, secret: Secret, store: SuiteStore, pool, mutation, shipped, draw: Draw,
             log: Callable[[str], None]) -> str | None:
    """One draw, checked and gated; why it was refused, or None."""
    try:
        inputs = drawn_inputs(problem, secret, draw.attempt)
        lacks = lacking(problem, inputs)
    except AuthoringError as exc:
        return str(exc)
    except Exception as exc:  # the author's generator: its bug refuses this draw, not every problem's
        return f"generator.py failed: {type(exc).__name__}: {exc}"
    if lacks:
        return lacks  # a scenario drawn without what makes it one is weaker than the shipped case
    try:
        with pool.borrow() as sandbox:
            checked = checked_cases(problem, inputs, sandbox)
    except AuthoringError as exc:
        return str(exc)
    folder = store.folder(problem) / "hidden"
    recipe_of = {cid: slot.recipe for (cid, _), slot in zip(inputs, plan(problem))}  # drawn in the plan's order
    # A drawn recipe case keeps its recipe, as a shipped one does (labels, a later plan).
    draw.macs = store.write_cases(problem, {cid: case_text(raw, expected, recipe_of.get(cid))
                                            for cid, raw, expected, _excess in checked})
    draw.ids = [cid for cid, *_ in checked]
    drawn = with_suite(problem, [read_case(folder / f"{cid}.json", "hidden") for cid in draw.ids], secret.id)
    failures = [f for f in check_submissions(Validation(drawn, pool, True, log)) if f.status == "fail"]
    if failures:
        return f"the corpus does not get its verdicts: {failures[0].message}"
    if mutation is not None and shipped is not None:
        # Only the shipped suite's kills are asked about, and only of the drawn cases.
        mine = mutation.analyse(drawn, search=False, among=frozenset(shipped.killed))
        if mine.error:
            return f"the mutation analysis failed: {mine.error}"
        draw.killed = (len(shipped.killed), len(killed(mine)))
        missing = sorted(set(shipped.killed) - killed(mine))
        if missing:
            return f"{len(missing)} mutant(s) the shipped suite kills survive it, e.g. {shipped.killed[missing[0]]}"
    return None


def _record(store: SuiteStore, problem: Problem, draw: Draw, start: float) -> Draw:
    """The draw's record, sealed and written last: a folder without a passing, sealed
    ``suite.json`` is no suite."""
    draw.seconds = time.monotonic() - start
    doc = {"suite": draw.suite, "problem": problem.id, "revision": revision(problem), "passed": draw.passed,
           "attempt": draw.attempt, "cases": draw.ids if draw.passed else [], "reasons": draw.reasons,
           "killed": list(draw.killed) if draw.killed else None, "seconds": round(draw.seconds, 1)}
    store.write_record(problem, doc, draw.macs)
    return draw
