"""The layout's promises, held by import-linter: the layers import only downwards (the
service's own layers too), the child imports nothing of the judge, the judge's process
never imports JAX, and there are no import cycles. Each contract is also shown to fail
on a violation."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support import ROOT, console_script

CONTRACTS = {
    "layers": ("grader/problem/cases.py", "from grader.judge import verdict  # noqa"),
    "the child": ("grader/sandbox/child/runner.py", "from grader.problem import inputs  # noqa"),
    "never imports JAX": ("grader/judge/verdict.py", "import jax  # noqa"),
    "no import cycles": ("grader/common/trees.py", "from grader.common import files  # noqa\n"),
    "the service's layers": ("grader/service/domain/courses.py", "from grader.service.queue import jobs  # noqa"),
}


def lint(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([console_script("lint-imports"), "--no-cache"], cwd=folder, capture_output=True, text=True,
                          timeout=120)


def test_every_contract_holds():
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


@pytest.mark.parametrize("contract", CONTRACTS)
def test_a_violating_import_breaks_its_contract(tmp_path, contract):
    shutil.copytree(ROOT / "grader", tmp_path / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    file, line = CONTRACTS[contract]
    if contract == "no import cycles":  # files already imports nothing; make it import trees back
        (tmp_path / "grader/common/files.py").write_text(
            (tmp_path / "grader/common/files.py").read_text() + "\nfrom grader.common import trees  # noqa\n")
    path = tmp_path / file
    path.write_text(path.read_text() + "\n" + line + "\n")
    done = lint(tmp_path)
    assert done.returncode != 0
    broken = done.stdout.split("Broken contracts")[-1]
    assert contract in broken, done.stdout[-2000:]


def test_no_module_is_longer_than_a_sitting():
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "grader").rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 350}
    assert not long, long
