"""Session-wide fixtures. Grading needs warm zygotes; one pool serves the whole session.
Helpers to import are in support.py (``from support import ...``); each folder's own
fixtures are in its conftest.py."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from support import P1, PROBLEMS, SUBMISSIONS

# Hermetic: the judge's caches (probe and misconception tables, XLA's compilation cache)
# live in a folder of this session's, never in the home directory.
_CACHE = Path(tempfile.mkdtemp(prefix="jaxjudge-tests-"))
os.environ["JAXJUDGE_CACHE"] = str(_CACHE / "judge")
os.environ["JAXJUDGE_XLA_CACHE"] = str(_CACHE / "xla")


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE, ignore_errors=True)


@pytest.fixture(scope="session")
def pool():
    from grader.sandbox.host import Pool

    with Pool(2) as p:
        yield p


@pytest.fixture(scope="session")
def problem1():
    from grader.problem import load_problem

    return load_problem(PROBLEMS / P1)


@pytest.fixture
def problem_copy(tmp_path, monkeypatch):
    """A private copy of problems/ + submissions/ for one problem, made current for the CLI."""

    def make(pid: str = P1, submissions: bool = False) -> Path:
        shutil.copytree(PROBLEMS / pid, tmp_path / "problems" / pid)
        (tmp_path / "submissions" / pid).mkdir(parents=True)
        if submissions:
            shutil.copytree(SUBMISSIONS / pid, tmp_path / "submissions" / pid, dirs_exist_ok=True)
        monkeypatch.setenv("JAXJUDGE_PROBLEMS", str(tmp_path / "problems"))
        return tmp_path / "problems" / pid

    return make
