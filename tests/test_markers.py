"""The inner loop's rule, held by tests/conftest.py: a test not marked slow that takes
longer than the limit is listed at the end of every run, and fails one run with
--slow-strict."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

TESTS = '''
import time
import pytest

def test_quick():
    pass

def test_unmarked_and_long():
    time.sleep(0.5)

@pytest.mark.slow
def test_marked_and_long():
    time.sleep(0.5)
'''


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_timed.py").write_text(TESTS)
    env = dict(os.environ, JAXJUDGE_SLOW_SECONDS="0.3", PYTHONPATH=str(ROOT / "tests"))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-p",
                           "no:randomly", "-q", "-o", "addopts=", "--rootdir", str(tmp_path), str(tmp_path), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # two pytest processes of its own
def test_an_unmarked_long_test_is_listed_and_fails_only_a_strict_run(tmp_path):
    plain = _run(tmp_path)
    listed = plain.stdout.partition("not marked slow")[2]
    assert plain.returncode == 0, plain.stdout[-2000:]
    assert "test_unmarked_and_long" in listed and "test_marked_and_long" not in listed and "test_quick" not in listed
    assert _run(tmp_path, "--slow-strict").returncode == 1
