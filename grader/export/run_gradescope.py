"""What a Gradescope bundle's ``run_autograder`` runs for each submission, inside
Gradescope's container and without network: ``python -m grader.export.run_gradescope ROOT``.

It grades the one ``.py`` or ``.ipynb`` file under ``ROOT/submission`` against the
bundle's copy of the problem (``ROOT/source/problems``) with the judge ``setup.sh``
installed, and writes ``ROOT/results/results.json`` in Gradescope's format (``grader
grade --format gradescope``: one point per case, hidden cases ``after_published``).
Whatever happens, a results.json is written: a submission that cannot be graded (no
file, several, unreadable) scores 0 with a message saying why, and the judge's own
failure says so. The file is written whole or not at all.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .. import __version__
from ..common.files import write_atomic

GRADE_TIMEOUT = 1800.0  # Gradescope's own limit (set per assignment) normally ends a grade first
SUFFIXES = (".py", ".ipynb")


def read_env(path: Path) -> dict[str, str]:
    """``jaxjudge.env``: KEY=value lines, as setup.sh sources them."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.lstrip().startswith("#"):
            out[key.strip()] = value.strip().strip("'\"")
    return out


def submitted_files(folder: Path) -> list[Path]:
    """Every .py and .ipynb file a student submitted (not checkpoints or caches)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES
                  and not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(folder).parts))


def failure(message: str, max_score: int) -> str:
    """A results.json for a submission that could not be graded: no points, and why."""
    return json.dumps({"score": 0, "max_score": max_score, "output": message, "output_format": "text",
                       "visibility": "visible", "stdout_visibility": "hidden", "tests": []}, indent=2) + "\n"


def run(root: Path) -> int:
    source, results = root / "source", root / "results" / "results.json"
    env = read_env(source / "jaxjudge.env")
    max_score = int(env.get("JAXJUDGE_MAX_SCORE", "0") or 0)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.unlink(missing_ok=True)  # a stale file must never stand for this grade
    if env.get("JAXJUDGE_VERSION") != __version__:
        pinned = env.get("JAXJUDGE_VERSION")
        write_atomic(results, failure(f"The autograder is broken: the bundle pins jaxjudge {pinned}"
                                      f" but {__version__} is installed; please tell your instructor.", max_score))
        return 0
    files = submitted_files(root / "submission")
    if len(files) != 1:
        found = ", ".join(str(p.relative_to(root / "submission")) for p in files[:10]) or "none"
        write_atomic(results, failure(f"Submit exactly one .py or .ipynb file (found: {found}).", max_score))
        return 0
    cmd = [sys.executable, "-m", "grader", "--problems", str(source / "problems"), "grade", str(files[0]),
           "--problem", env["JAXJUDGE_PROBLEM"], "--format", "gradescope", "-o", str(results)]
    if env.get("JAXJUDGE_CELL_TAG") and files[0].suffix.lower() == ".ipynb":
        cmd += ["--cell-tag", env["JAXJUDGE_CELL_TAG"]]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=GRADE_TIMEOUT, cwd=root,
                              env={**os.environ, "JAXJUDGE_PROBLEMS": ""})
        why = next((line for line in reversed(done.stderr.splitlines()) if line.startswith("error: ")), "")
        print(done.stderr[-4000:], file=sys.stderr)  # for the instructor: results/stdout
    except subprocess.TimeoutExpired:
        why = f"error: no verdict within {GRADE_TIMEOUT:g} s"
    if not results.is_file():
        # A usage error of the grade (the file is not UTF-8, too large, ...): the message is
        # about the submitted file, never about hidden data.
        message = why[len("error: "):] if why else "the judge failed before writing a report"
        write_atomic(results, failure(f"The submission could not be graded: {message}", max_score))
    print(f"graded {files[0].name}: {json.loads(results.read_text(encoding='utf-8')).get('score')} / {max_score}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run(Path(args[0] if args else os.environ.get("JAXJUDGE_AUTOGRADER_ROOT", "/autograder")))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
