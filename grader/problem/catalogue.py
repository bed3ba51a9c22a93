"""Where problems are found: ``$JAXJUDGE_PROBLEMS``, else the nearest ``problems/``
folder from the working directory upwards."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .cases import Problem, load_problem
from .meta import NAME_RE, ProblemError


def problems_root(start: Path | None = None) -> Path:
    env = os.environ.get("JAXJUDGE_PROBLEMS")
    if env:
        return Path(env)
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "problems").is_dir():
            return folder / "problems"
    return Path(__file__).resolve().parent.parent.parent / "problems"


def find_problem(problem_id: str, root: Path | None = None) -> Problem:
    if not NAME_RE.match(problem_id):
        raise ProblemError(problem_id, "a problem id is lower case letters, digits and underscores")
    return load_problem((root or problems_root()) / problem_id)


def all_problem_ids(root: Path | None = None) -> list[str]:
    base = root or problems_root()
    return sorted(p.name for p in base.iterdir() if (p / "problem.toml").is_file()) if base.is_dir() else []


def content_hash(problem: Problem) -> str:
    """A short hash of everything in the problem folder that can change a verdict:
    metadata, statement, reference, oracles, generator and every case file. Reports
    record it, so a verdict says which version of the problem produced it."""
    h = hashlib.sha256()
    for path in sorted(p for p in problem.root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(str(path.relative_to(problem.root)).encode() + b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]
