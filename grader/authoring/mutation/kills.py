"""The shipped suite's kills: which mutants of the reference the problem's own hidden cases
kill. The strength gate of a drawn suite (``authoring.suites``) asks the drawn cases to kill
each of them too.

The kills are a pure function of the problem's version, the judge's and JAX's, so they are a
table like the dependence probe's (``judge.tables``): computed once, kept in the judge's
cache, and shipped for the built-in catalogue by ``grader warm --ship``. A draw then runs
the mutation worker only on the drawn cases. A table that is missing, stale or in any other
shape is computed again; a shipped one is used only as ``judge.tables`` allows.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ... import __version__
from ...common.files import write_atomic
from ...judge.tables import table_dir, take_shipped
from ...problem import Problem
from ...problem.catalogue import content_hash
from .ops import build_schema

FORMAT = 1


@dataclass(frozen=True)
class Kills:
    """``killed``: each mutant the hidden cases kill, by id, with its description."""

    mutants: int
    killed: dict[int, str]


def path(problem: Problem) -> Path:
    """The table's file: named by the problem's version, the judge's, and the mutants the
    operators make of the reference now (a new operator is a new table)."""
    return table_dir(problem, "kills") / (f"{problem.id}-{content_hash(problem)}-{__version__}-"
                                          f"{_mutants_digest(problem)}-f{FORMAT}.json")


def _mutants_digest(problem: Problem) -> str:
    mutants, _ = build_schema(problem.reference_path.read_text(encoding="utf-8"))
    text = "\n".join(f"{m.id}|{m.kind}|{m.before}|{m.after}" for m in mutants)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def load(problem: Problem) -> Kills | None:
    """The kept table (or the shipped one, copied into place), or None."""
    where = path(problem)
    if not where.exists():
        take_shipped(problem, "kills", where)
    try:
        doc = json.loads(where.read_text(encoding="utf-8"))
        return Kills(int(doc["mutants"]), {int(k): str(v) for k, v in doc["killed"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def get(problem: Problem, session) -> Kills:
    """``problem``'s kills, from the table or from ``session`` (a ``MutationSession``), then
    kept. Raises RuntimeError when the analysis fails (the reference fails a case in the
    worker, the worker dies)."""
    kept = load(problem)
    if kept is not None:
        return kept
    analysis = session.analyse(problem, search=False)
    if analysis.error:
        raise RuntimeError(analysis.error)
    kills = Kills(len(analysis.outcomes), {o.mutant.id: o.mutant.describe() for o in analysis.outcomes
                                            if o.hidden_kills > 0})
    try:
        write_atomic(path(problem), json.dumps({"mutants": kills.mutants, "killed": kills.killed}, indent=1) + "\n")
    except OSError:
        pass  # a read-only cache only costs time: computed again next draw
    return kills
