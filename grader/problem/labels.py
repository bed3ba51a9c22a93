"""What a case is about, in the author's words: the label class insight groups failing
cases by. A generated case (``gen_s<seed>_<index>``) is the generator's ``SCENARIOS``
entry its index picks (``generate(rng, index)`` picks ``SCENARIOS[index % len]``); a
case made from a recipe is the recipe's name; any other case is its id.

Labels name hidden situations: they are for instructors, never for a learner."""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .cases import Problem
from .meta import ProblemError
from .modules import load_module, properties
from .suite import generated_index

# A recipe's cases as ``modules.recipe_inputs`` names them: ``<recipe>_s<seed>_<index>``.
_RECIPE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*?)_s-?\d+_\d+$")


def _generator(problem: Problem) -> tuple[list[str] | None, set[str]]:
    """The generator's ``SCENARIOS`` (when it is a list of text) and its recipe names."""
    if not problem.generator_path.is_file():
        return None, set()
    try:
        module = load_module(problem.generator_path, f"{problem.id}_generator")
    except ProblemError:
        return None, set()  # a label is a convenience: a broken generator leaves the ids
    found = getattr(module, "SCENARIOS", None)
    scenarios = found if isinstance(found, list) and found and all(isinstance(x, str) for x in found) else None
    recipes = getattr(module, "RECIPES", {})
    return scenarios, set(recipes) if isinstance(recipes, dict) else set()


def case_labels(problem: Problem, ids: Iterable[str] = ()) -> dict[str, str]:
    """The label of each of ``problem``'s cases and of each of ``ids`` (cases it may no
    longer hold, such as those of an earlier drawn suite: named as the generator names them)."""
    scenarios, recipes = _generator(problem)

    def label(case_id: str, recipe: str | None) -> str:
        if recipe:
            return recipe
        index = generated_index(case_id)
        if index is not None and scenarios:
            return scenarios[index % len(scenarios)]
        m = _RECIPE.match(case_id)
        if m and m.group(1) in recipes:
            return m.group(1)
        return case_id

    out = {c.id: label(c.id, c.recipe) for c in problem.cases}
    for case_id in ids:
        out.setdefault(case_id, label(case_id, None))
    return out


def lacking(problem: Problem, inputs: list[tuple[str, Any]]) -> str | None:
    """Why one of ``inputs`` (case id, input) lacks the property of the scenario or recipe
    its id names (``labels``), or None when each has it."""
    tests = properties(problem)
    if not tests:
        return None
    labels = case_labels(problem, [cid for cid, _ in inputs])
    for cid, raw in inputs:
        test = tests.get(labels.get(cid, cid))
        if test is None:
            continue
        try:
            ok = bool(test(raw))
        except Exception as exc:  # the author's code: its failure is a missing property
            return f"case {cid}: the property of {labels[cid]} raised {type(exc).__name__}: {exc}"
        if not ok:
            return f"case {cid} lacks the property of its scenario {labels[cid]} (PROPERTIES in generator.py)"
    return None
