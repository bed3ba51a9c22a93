"""Misconception hints: a failing output that matches, within tolerance, what one of
the problem's ``wrong_answer`` submissions produces on the same case names that
mistake (the ``# hint:`` line its author wrote). It works on hidden cases too: it
reveals the mistake, not the data.

The table is kept per wrong answer in the judge's cache, so it is built piece by
piece: ahead of grading by ``grader warm`` and ``grader validate`` (which grades
every wrong answer anyway), or during a grade while its feedback budget lasts.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..common.files import write_atomic
from ..common.trees import get_path
from ..common.verdicts import Verdict
from ..problem import Case, Problem
from ..problem.corpus import Expectation, submission_files
from ..sandbox.request import RunResult
from ..sandbox.wire import to_plain
from .output_checks import compare
from .request import make_request
from .submission import load_submission
from .tables import table_dir, take_shipped

TABLE_VERSION = b"3"  # bump when what an entry holds changes


def wrong_answers(problem: Problem) -> list[Expectation]:
    return [e for e in submission_files(problem) if e.verdict is Verdict.WA and e.hint]


def _folder(problem: Problem) -> Path:
    h = hashlib.sha256(TABLE_VERSION)
    for path in [problem.root / "problem.toml", *(c.path for c in problem.cases)]:
        h.update(path.name.encode() + b"\0" + Path(path).read_bytes())
    return table_dir(problem, "mistakes") / f"{problem.id}-{h.hexdigest()[:20]}"


def entry_path(problem: Problem, exp: Expectation) -> Path:
    """Where wrong answer ``exp``'s entry is kept (``tables.table_dir``)."""
    digest = hashlib.sha256(exp.path.read_bytes() + (exp.hint or "").encode()).hexdigest()[:20]
    return _folder(problem) / f"{exp.path.stem}-{digest}.json"


def record(problem: Problem, exp: Expectation, run: RunResult, partial: bool = False) -> dict[str, Any]:
    """Keep what a wrong answer printed where its mistake shows (elsewhere it equals the
    right answer), as a cache entry. ``run`` covers every case of the problem, unless it
    was cut short by a grade's time budget (``partial``): the cases it finished are kept,
    and only ``grader warm`` or ``grader validate`` complete the entry."""
    entry: dict[str, Any] = {"hint": exp.hint, "file": exp.path.name, "outputs": {}, "partial": partial}
    for case in problem.cases:
        cr = run.cases.get(case.id)
        if cr is None or cr.status != "ok":
            continue
        output = to_plain(cr.output)
        if not _close(problem, output, case.expected):
            entry["outputs"][case.id] = output
    try:
        write_atomic(entry_path(problem, exp), json.dumps(entry))
    except OSError:
        pass  # a read-only cache only costs speed
    return entry


@dataclass
class MistakeTable:
    """What the wrong answers printed, by case id (``[{"hint", "file", "output"}]``);
    ``complete`` when every wrong answer's entry covers every case, so that a failing
    output that matches no entry matches no known mistake."""

    by_case: dict[str, list[dict]] = field(default_factory=dict)
    complete: bool = True


def build_entry(problem: Problem, exp: Expectation, sandbox, deadline: float | None = None) -> dict | None:
    """Wrong answer ``exp``'s entry from the cache, else built by running it (in full
    when ``deadline`` is None, else cut short there); None when the deadline passed
    before it could start. A file that does not parse explains no output: its entry is empty."""
    where = entry_path(problem, exp)
    if not where.exists():
        take_shipped(problem, "mistakes", where)
    try:
        entry = json.loads(where.read_text())
        if entry.get("partial") and deadline is None:
            raise ValueError("complete it")
        return entry
    except (OSError, ValueError):
        pass
    if deadline is not None and time.monotonic() >= deadline:
        return None
    sub = load_submission(exp.path)
    if sub.syntax_error:
        return {"hint": exp.hint, "file": exp.path.name, "outputs": {}, "partial": False}
    wall = None if deadline is None else max(0.0, deadline - time.monotonic())
    run = sandbox.run(replace(make_request(sub, problem, problem.cases), wall_seconds=wall))
    # A run the sandbox lost (its processes killed: a server's warming stopped for a grade)
    # proves nothing of the cases it did not finish: kept as partial, completed later.
    return record(problem, exp, run, partial=run.over_budget or run.judge_error is not None)


def mistake_table(problem: Problem, sandbox, deadline: float | None = None) -> MistakeTable:
    """Every wrong answer's entry (``build_entry``), while ``deadline`` (time.monotonic)
    is not passed; without one, the table is complete."""
    table = MistakeTable()
    for exp in wrong_answers(problem):
        entry = build_entry(problem, exp, sandbox, deadline)
        if entry is None or entry.get("partial"):
            table.complete = False
        if entry is None:
            continue
        for case_id, output in entry.get("outputs", {}).items():
            table.by_case.setdefault(case_id, []).append({"hint": entry["hint"], "file": entry["file"],
                                                          "output": output})
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


def match_mistake(problem: Problem, case: Case, got: Any, table: MistakeTable) -> str | None:
    for entry in table.by_case.get(case.id, []):
        if _close(problem, got, entry["output"]):
            return entry["hint"]
    return None
