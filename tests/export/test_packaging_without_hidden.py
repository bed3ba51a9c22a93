"""A package built without its hidden cases (``JAXJUDGE_WITHOUT_HIDDEN=1``, grader/common/build_hook.py): the
wheel holds each problem's plan and no hidden case; installed, it draws a deployment's
suite and grades with it, and refuses to grade without one."""
from __future__ import annotations

import json
import os
import subprocess
import zipfile

import pytest

from support import PROBLEMS, install_wheel

PID = "value_and_grad_loss"


@pytest.fixture(scope="module")
def stripped_install(tmp_path_factory):
    """The wheel built with JAXJUDGE_WITHOUT_HIDDEN=1, installed as ``installed`` is."""
    from grader.export.wheel import build_checkout

    base = tmp_path_factory.mktemp("without_hidden")
    (base / "wheels").mkdir()
    before = os.environ.get("JAXJUDGE_WITHOUT_HIDDEN")
    os.environ["JAXJUDGE_WITHOUT_HIDDEN"] = "1"  # pip passes the environment on to the build
    try:
        wheel = build_checkout(base / "wheels")
    finally:
        if before is None:
            del os.environ["JAXJUDGE_WITHOUT_HIDDEN"]
        else:
            os.environ["JAXJUDGE_WITHOUT_HIDDEN"] = before
    venv = install_wheel(base, str(wheel))
    away = base / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JAXJUDGE_PROBLEMS")}

    def grader(*args):
        return subprocess.run([str(venv / "bin" / "grader"), *args], cwd=away, capture_output=True, text=True,
                              timeout=900, env=env)

    return {"wheel": wheel, "away": away, "grader": grader}


def test_the_wheel_holds_each_problems_plan_and_no_hidden_case_nor_a_table_built_from_them(stripped_install):
    from grader.problem import find_problem
    from grader.problem.suite import plan_doc

    wheel = zipfile.ZipFile(stripped_install["wheel"])
    names = wheel.namelist()
    assert not [n for n in names if "/cases/hidden/" in n]
    assert not [n for n in names if n.startswith("grader/catalogue/_tables/")]
    assert f"grader/catalogue/{PID}/cases/public/example_1.json" in names
    for pid in (PID, "spectral_norm_power_iteration"):  # recipes too
        shipped = json.loads(wheel.read(f"grader/catalogue/{pid}/cases/hidden.plan.json"))
        assert shipped == plan_doc(find_problem(pid))  # the format the judge reads, from the checkout's cases


def test_the_installed_judge_grades_only_with_a_suite_it_draws(stripped_install, tmp_path):
    grader, reference = stripped_install["grader"], str(PROBLEMS / PID / "reference.py")
    bare = grader("grade", reference, "--problem", PID)
    assert bare.returncode == 2 and "ships without its hidden cases" in bare.stderr and bare.stdout == ""
    folder = tmp_path / "suite"
    draw = grader("suite", "draw", PID, "--suite", str(folder), "--no-mutants")
    assert draw.returncode == 0 and "drawn (attempt 0), 26 hidden cases" in draw.stdout, draw.stdout + draw.stderr
    graded = grader("grade", reference, "--problem", PID, "--suite", str(folder), "--format", "json")
    report = json.loads(graded.stdout)
    assert graded.returncode == 0 and report["verdict"] == "AC" and report["suite"] == draw.stdout.split()[1]
    ids = {f"gen_{i:03d}" for i in range(24)} | {"largest_residuals_000", "largest_residuals_001"}  # recipe cases
    assert {c["id"] for c in report["cases"] if c["visibility"] == "hidden"} == ids
