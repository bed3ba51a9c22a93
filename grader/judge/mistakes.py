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
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..common.files import cache_dir, write_atomic
from ..common.trees import get_path
from ..common.verdicts import Verdict
from ..problem import Case, Problem
from ..problem.corpus import Expectation, submission_files
from ..sandbox.request import RunResult
from ..sandbox.wire import to_plain
from .output_checks import compare
from .request import make_request
from .submission import load_submission

TABLE_VERSION = b"3"  # bump when what an entry holds changes


def wrong_answers(problem: Problem) -> list[Expectation]:
    return [e for e in submission_files(problem) if e.verdict is Verdict.WA and e.hint]


def _folder(problem: Problem) -> Path:
    h = hashlib.sha256(TABLE_VERSION)
    for path in [problem.root / "problem.toml", *(c.path for c in problem.cases)]:
        h.update(path.name.encode() + b"\0" + Path(path).read_bytes())
    return cache_dir("mistakes") / f"{problem.id}-{h.hexdigest()[:20]}"


def _entry_path(problem: Problem, exp: Expectation) -> Path:
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
        write_atomic(_entry_path(problem, exp), json.dumps(entry))
    except OSError:
        pass  # a read-only cache only costs speed
    return entry


def mistake_table(problem: Problem, sandbox, deadline: float | None = None) -> dict[str, list[dict]]:
    """case id -> [{"hint", "file", "output"}]. Entries missing from the cache are built
    by running their wrong answer, while ``deadline`` (time.monotonic) is not passed."""
    table: dict[str, list[dict]] = {}
    for exp in wrong_answers(problem):
        try:
            entry = json.loads(_entry_path(problem, exp).read_text())
            if entry.get("partial") and deadline is None:
                raise ValueError("complete it")
        except (OSError, ValueError):
            if deadline is not None and time.monotonic() >= deadline:
                continue
            sub = load_submission(exp.path)
            if sub.syntax_error:
                continue
            wall = None if deadline is None else max(0.0, deadline - time.monotonic())
            run = sandbox.run(replace(make_request(sub, problem, problem.cases), wall_seconds=wall))
            entry = record(problem, exp, run, partial=run.over_budget)
        for case_id, output in entry.get("outputs", {}).items():
            table.setdefault(case_id, []).append({"hint": entry["hint"], "file": entry["file"], "output": output})
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
