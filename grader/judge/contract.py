"""What the judge runs, as the statement tells a learner: how the entry is called
(under ``jax.jit``, and what happens when it cannot be traced) and what code may use,
generated from the problem's requirements and the allow-list table
(``sandbox.allowlist``), so that no statement can drift from what is enforced.
Trusted side; pure text.
"""
from __future__ import annotations

from ..problem import Problem
from ..problem.meta import Meta
from ..sandbox.allowlist import may_use_line

HEADING = "## What the judge runs"


def jit_line(meta: Meta) -> str:
    """The problem's jit contract: what is judged is what the jitted entry returns."""
    if meta.requirements.traced:
        return ("The judge calls your function under `jax.jit`, with every argument traced, on every "
                "case, and judges what the jitted function returns; code that cannot be traced that way "
                "is rejected.")
    return ("The judge calls your function under `jax.jit` and judges what the jitted function "
            "returns; if it cannot be traced (say, a Python `if` on an array's value), the judge runs "
            "it as plain Python from then on, which is slower, and judges what that returns.")


def contract_section(meta: Meta) -> str:
    return f"{HEADING}\n\n- {jit_line(meta)}\n- {may_use_line()}\n"


def with_contract(text: str, meta: Meta) -> str:
    """The statement with the contract section where a learner looks for rules: after
    ``## Requirements`` (before the next section), else before the worked examples,
    else at the end."""
    section = contract_section(meta)
    lines = text.splitlines(keepends=True)
    heads = [i for i, line in enumerate(lines) if line.startswith("## ")]
    at = None
    requirements = next((i for i in heads if lines[i].strip() == "## Requirements"), None)
    if requirements is not None:
        at = next((i for i in heads if i > requirements), None)
    else:
        at = next((i for i in heads if lines[i].strip().endswith("xamples")), None)
    if at is None:
        return text.rstrip("\n") + "\n\n" + section
    return "".join(lines[:at]) + section + "\n" + "".join(lines[at:])


def statement_text(problem: Problem) -> str:
    """The statement a learner reads: ``statement.md`` with the contract section ("" when
    the file cannot be read)."""
    try:
        text = problem.statement_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    return with_contract(text, problem.meta)
