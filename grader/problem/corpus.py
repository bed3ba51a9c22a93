"""The corpus of example submissions beside a problem, with the verdicts they
promise: ``submissions/<problem>/<verdict folder>/*.py`` or ``*.ipynb`` (Kattis
style). A file may name its reason code and the mistake it makes in header comments
(a notebook, in its first code cell)::

    # reason: value
    # hint: the norm leaves out the bias gradient.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..common.verdicts import BY_FOLDER, Verdict
from .cases import Problem

_HEADER = re.compile(r"^#\s*(reason|hint):\s*(.+?)\s*$")


@dataclass
class Expectation:
    """What a file under submissions/<problem>/<folder>/ promises: its folder's verdict,
    and optionally a reason code and a hint."""

    path: Path
    verdict: Verdict
    reason: str | None
    hint: str | None


def read_expectation(path: Path) -> Expectation | None:
    verdict = BY_FOLDER.get(path.parent.name)
    if verdict is None:
        return None
    found: dict[str, str] = {}
    try:
        for line in _header(path):
            m = _HEADER.match(line)
            if m:
                found.setdefault(m.group(1), m.group(2))
    except OSError:
        pass
    return Expectation(path, verdict, found.get("reason"), found.get("hint"))


def _header(path: Path) -> list[str]:
    """The first lines of a file, or of a notebook's first code cell."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        try:
            cells = json.loads(text).get("cells", [])
            code = next(c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code")
            source = code.get("source", "")
            text = "".join(source) if isinstance(source, list) else str(source)
        except (ValueError, AttributeError, StopIteration, RecursionError):
            return []
    return text.splitlines()[:10]


def submissions_root(problem: Problem) -> Path:
    return problem.root.parent.parent / "submissions"


def submission_files(problem: Problem, root: Path | None = None) -> list[Expectation]:
    base = (root or submissions_root(problem)) / problem.id
    out = []
    for path in sorted([*base.glob("*/*.py"), *base.glob("*/*.ipynb")]) if base.is_dir() else []:
        exp = read_expectation(path)
        if exp:
            out.append(exp)
    return out
