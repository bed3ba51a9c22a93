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


# The inner loop's rule (docs/pages/architecture.md, the markers): a test of more than
# about two seconds is marked slow. Every run lists the unmarked ones that took longer;
# --slow-strict fails the run for them (a timing, so it is asked for, never CI's default).
SLOW_SECONDS = float(os.environ.get("JAXJUDGE_SLOW_SECONDS", "2"))  # the variable lets a test try the check
_OVER: list[tuple[float, str]] = []


def pytest_addoption(parser):
    parser.addoption("--slow-strict", action="store_true",
                     help=f"fail the run when a test not marked slow took over {SLOW_SECONDS:g} s")


def pytest_runtest_logreport(report):
    # Under xdist this runs in the controller too, on the workers' reports, with their keywords.
    if report.when == "call" and report.duration > SLOW_SECONDS and "slow" not in report.keywords:
        _OVER.append((report.duration, report.nodeid))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _OVER:
        terminalreporter.section(f"over {SLOW_SECONDS:g} s and not marked slow")
        for seconds, nodeid in sorted(_OVER, reverse=True):
            terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}")


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE, ignore_errors=True)
    if _OVER and session.config.getoption("--slow-strict") and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
