"""The corpus of example submissions beside a problem, with the verdicts they
promise: ``submissions/<problem>/<verdict folder>/*.py`` or ``*.ipynb`` (Kattis
style). A file may name its reason code, the mistake it makes, and the sentence of the
statement that mistake misreads, in header comments (a notebook, in its first code cell)::

    # reason: value
    # hint: the norm leaves out the bias gradient.
    # misreads: The norm is taken over both gradients together.

The ``misreads`` text is copied from ``statement.md``; ``occurs_in`` says whether it is
there (``grader validate`` fails a problem whose corpus quotes a sentence its statement
does not hold).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..common.verdicts import BY_FOLDER, Verdict
from .cases import Problem

_HEADER = re.compile(r"^#\s*(reason|hint|misreads):\s*(.+?)\s*$")


@dataclass
class Expectation:
    """What a file under submissions/<problem>/<folder>/ promises: its folder's verdict,
    and optionally a reason code, a hint, and the statement's sentence the mistake misreads."""

    path: Path
    verdict: Verdict
    reason: str | None
    hint: str | None
    misreads: str | None = None


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
    return Expectation(path, verdict, found.get("reason"), found.get("hint"), found.get("misreads"))


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


def misread_sentences(problem: Problem, root: Path | None = None) -> dict[str, str]:
    """Hint -> the statement's sentence it misreads, for the wrong answers that name both
    (the first file wins when two share a hint)."""
    out: dict[str, str] = {}
    for exp in submission_files(problem, root):
        if exp.verdict is Verdict.WA and exp.hint and exp.misreads:
            out.setdefault(exp.hint, exp.misreads)
    return out


# Markup the rendered page does not show: emphasis stars, backticks, $ around math, and
# underscores at a word's edge (emphasis), not inside one (max_norm keeps its underscore).
_MARKUP = re.compile(r"[*`$]|(?<!\w)_+|_+(?!\w)")


def plain_text(text: str) -> str:
    """``text`` with that markup dropped and every run of whitespace (line breaks too)
    made one space."""
    return " ".join(_MARKUP.sub("", text).split())


def occurs_in(misreads: str, statement: str) -> bool:
    """Whether ``misreads`` is a passage of ``statement``, both read as ``plain_text``
    (so an author may copy the sentence from the rendered page or from the Markdown).
    Case and punctuation count; an empty text occurs nowhere."""
    needle = plain_text(misreads)
    return bool(needle) and needle in plain_text(statement)
