"""Every statement a learner reads (``grader show``, the API, the problem page) says
how the judge runs the entry (its jit contract) and what code may use, both generated
from the problem's requirements and the allow-list table."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from grader.judge.contract import HEADING, jit_line, statement_text, with_contract
from grader.problem import all_problem_ids, find_problem
from grader.sandbox.allowlist import may_use_line

IDS = all_problem_ids()


@pytest.mark.parametrize("pid", IDS)
def test_every_statement_states_its_jit_contract_and_what_code_may_use(pid):
    problem = find_problem(pid)
    text = statement_text(problem)
    assert text.count(HEADING) == 1
    assert f"- {jit_line(problem.meta)}" in text and f"- {may_use_line()}" in text
    # After the requirements where there are some, always before the worked examples.
    examples = re.search(r"^## .*xamples$", text, re.M)
    assert examples is not None and text.find("## Requirements") < text.index(HEADING) < examples.start()


def test_a_traced_problem_says_untraceable_code_is_rejected_and_the_others_say_it_runs_eagerly():
    traced = {pid: find_problem(pid).meta.requirements.traced for pid in IDS}
    assert any(traced.values()) and not all(traced.values())
    for pid, is_traced in traced.items():
        line = jit_line(find_problem(pid).meta)
        assert ("is rejected" in line) == is_traced and ("plain Python" in line) != is_traced


def test_a_statement_without_requirements_gets_the_section_at_its_end():
    meta = find_problem(IDS[0]).meta
    assert with_contract("# T\n\nSome text.\n", meta).endswith(f"Some text.\n\n{HEADING}\n\n- {jit_line(meta)}\n"
                                                             f"- {may_use_line()}\n")


def test_grader_show_prints_the_contract():
    done = subprocess.run([sys.executable, "-m", "grader", "show", "traced_lr_schedule"], capture_output=True,
                          text=True, timeout=120, env={"COLUMNS": "400", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "What the judge runs" in done.stdout and "Your code may use jax (transforms)" in done.stdout
