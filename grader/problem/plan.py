"""The plan of a problem's hidden suite: what a drawn suite must hold (one slot per shipped
hidden case: the generator's index, or a recipe), and the plan file a package built
without its hidden cases keeps instead of them (``cases/hidden.plan.json``). Such a
problem is *stripped*: it draws from the plan file and grades only with a drawn suite
(``problem.suite``)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .cases import Problem

PLAN_FILE = "hidden.plan.json"  # under cases/; common/build_hook.py writes the same format
# A generated case: shipped as ``gen_s<seed>_<index>`` (``grader generate``), drawn as ``gen_<index>``.
_GENERATED = re.compile(r"^gen_(?:s-?\d+_)?(\d+)$")


def generated_index(case_id: str) -> int | None:
    """The generator index a generated case's id names; None for any other case."""
    m = _GENERATED.match(case_id)
    return int(m.group(1)) if m else None


class SuiteError(Exception):
    """A secret or a drawn suite that cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Slot:
    """One case of the shipped hidden suite, as a draw repeats it: the generator at
    ``index``, or recipe ``recipe``."""

    id: str
    index: int | None = None
    recipe: str | None = None


def plan(problem: Problem) -> list[Slot]:
    """What a drawn suite must hold: one slot per shipped hidden case. A hidden case that is
    neither generated nor made from a recipe cannot be drawn (``SuiteError``), nor can a
    problem whose metadata says ``[suite] drawable = false``."""
    if not problem.meta.drawable:
        raise SuiteError(f"{problem.id}: its problem.toml says [suite] drawable = false, so a deployment cannot "
                         "draw its hidden suite (and does not grade it with the shipped one)")
    hidden = [(c.id, c.recipe) for c in problem.cases if c.hidden]
    if not hidden and problem.suite is None:
        hidden = shipped_plan(problem) or []
    slots = []
    for cid, recipe in hidden:
        index = generated_index(cid)
        if recipe:
            slots.append(Slot(cid, recipe=recipe))
        elif index is not None:
            slots.append(Slot(cid, index=index))
        else:
            raise SuiteError(f"{problem.id}: hidden case {cid} was made by hand and names no recipe, so a "
                             "secret suite cannot draw its like (give it one: see the authoring guide)")
    return slots


def plan_path(problem: Problem) -> Path:
    return problem.root / "cases" / PLAN_FILE


def plan_doc(problem: Problem) -> dict:
    """The plan file of ``problem``'s hidden cases, as a build without them writes it."""
    return {"cases": [{"id": c.id, **({"recipe": c.recipe} if c.recipe else {})}
                      for c in problem.cases if c.hidden]}


def shipped_plan(problem: Problem) -> list[tuple[str, str | None]] | None:
    """The (id, recipe) pairs of ``problem``'s plan file, or None when it has none."""
    path = plan_path(problem)
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        out = [(str(c["id"]), c.get("recipe")) for c in doc["cases"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SuiteError(f"{path}: not a plan of hidden cases ({type(exc).__name__})") from None
    if not all(r is None or isinstance(r, str) for _, r in out):
        raise SuiteError(f"{path}: a case's recipe is a name")
    return out


def stripped(problem: Problem) -> bool:
    """A problem installed without its hidden cases: its plan file and none of them. It
    grades only with a drawn suite."""
    return problem.suite is None and not any(c.hidden for c in problem.cases) and plan_path(problem).is_file()


def hidden_count(problem: Problem) -> int:
    """How many hidden cases grade ``problem``: its own (shipped or drawn), or, installed
    without them and read before its suite is drawn, as many as its plan holds (a draw
    repeats the plan)."""
    count = sum(c.hidden for c in problem.cases)
    if count or problem.suite is not None:
        return count
    try:
        return len(shipped_plan(problem) or [])
    except SuiteError:
        return 0


def refuse_stripped(problem: Problem,
                    how: str = "grade with it (--suite DIR; in the Python API, suite=DIR)") -> Problem:
    """``problem``, unless it is stripped and has no drawn suite: then ``SuiteError``, whose
    message says to draw a suite and how to pass it (``how``). What every grade of all
    of a problem's cases passes through, so that none grades with no hidden cases."""
    if stripped(problem):
        # Public cases alone would accept what the hidden ones reject: no verdict rather than a weak one.
        raise SuiteError(f"{problem.id}: this installation ships without its hidden cases (built with "
                         f"JAXJUDGE_WITHOUT_HIDDEN=1), so it grades only with a drawn suite: grader suite draw "
                         f"--suite DIR, then {how}")
    return problem
