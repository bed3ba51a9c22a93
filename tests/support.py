"""Helpers every test folder may import (``from support import ...``; pytest's
``pythonpath`` puts tests/ on the path): the checkout's folders and grading one source.
Fixtures live in the conftest.py files: the session-wide ones in tests/conftest.py."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"
SUBMISSIONS = ROOT / "submissions"
P1 = "per_example_grad_clipping"


def tree_digest(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def grade_source(problem, source: str, sandbox, cases=None, feedback=None):
    from grader.judge.pipeline import grade
    from grader.judge.submission import parse_source

    return grade(problem, parse_source(source, "<test>"), sandbox, cases, feedback)


def console_script(name: str) -> str:
    """The console script ``name`` installed beside the running Python (a virtualenv's
    bin/ or the interpreter's own), never whatever PATH finds first: the test checks
    this installation."""
    exe = Path(sys.executable).parent / name
    assert exe.exists(), f"{name} is not installed beside {sys.executable}: pip install -e '.[test]'"
    return str(exe)


def install_wheel(folder: Path, requirement: str, system_site: bool = True, timeout: float = 600) -> Path:
    """A new virtual environment ``folder``/venv with ``requirement`` (a wheel's path, extras
    allowed) installed; ``system_site``: it sees the machine's packages (JAX among them)."""
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", *(["--system-site-packages"] if system_site else []), str(venv)],
                   check=True, timeout=300)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                           "--disable-pip-version-check", requirement], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return venv
