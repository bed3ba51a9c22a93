"""Helpers every test folder may import (``from support import ...``; pytest's
``pythonpath`` puts tests/ on the path): the checkout's folders and grading one source.
Fixtures live in the conftest.py files: the session-wide ones in tests/conftest.py."""
from __future__ import annotations

import subprocess
import sys
import time
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


def stripped_copy(dest: Path, pid: str, name: str | None = None) -> Path:
    """A copy of ``pid``'s folder (named ``name``) as a wheel built with
    JAXJUDGE_WITHOUT_HIDDEN=1 holds it: its plan file, in the format the build hook
    writes (``suite.plan_doc``), and no cases/hidden/."""
    import json
    import shutil

    from grader.problem import load_problem
    from grader.problem.suite import PLAN_FILE, plan_doc

    folder = dest / (name or pid)
    shutil.copytree(PROBLEMS / pid, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "cases" / PLAN_FILE).write_text(json.dumps(plan_doc(load_problem(folder))))
    shutil.rmtree(folder / "cases" / "hidden")
    return folder


def drawn_suite(folder: Path, problem, source: str, keep: int | None = None) -> tuple[str, list[str]]:
    """A drawn suite for ``problem``'s current revision in the deployment folder ``folder``
    (its secret created when missing), written and sealed as ``grader suite draw`` writes
    it: the first ``keep`` hidden cases of the checkout's problem ``source``, renamed
    ``drawn_NNN``, stand for a draw (a real one grades the corpus: a minute). The suite's
    id and the cases' ids."""
    from grader.authoring.suites import Draw, _record
    from grader.problem import load_problem
    from grader.problem.suite import SuiteStore, load_secret

    secret = load_secret(folder / "secret", create=True)
    store = SuiteStore(folder, secret)
    shipped = [c for c in load_problem(PROBLEMS / source).cases if c.hidden][:keep]
    ids = [f"drawn_{i:03d}" for i in range(len(shipped))]
    macs = store.write_cases(problem, {cid: case.path.read_text(encoding="utf-8") for cid, case in zip(ids, shipped)})
    _record(store, problem, Draw(problem.id, secret.id, passed=True, ids=ids, macs=macs), time.monotonic())
    return secret.id, ids
