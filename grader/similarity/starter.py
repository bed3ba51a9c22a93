"""The code every learner was given, which a match must never count: the starter stub the
problem page shows (the entry's ``def`` and the usual imports, as ``grader.service.web``'s
``problem_view.starter`` writes it: its docstring and comment are dropped by normalisation, so
the stub is rebuilt here from the metadata rather than imported from a higher layer), the code
in the problem's statement (its hints), and any file the instructor names with ``--starter``."""
from __future__ import annotations

import re
from pathlib import Path

from ..problem import Problem

_FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_INLINE = re.compile(r"`([^`\n]+)`")


def stub(problem: Problem) -> str:
    entry = problem.meta.entry
    return (f"import jax\nimport jax.numpy as jnp\n\n\ndef {entry.name}({', '.join(entry.args)}):\n"
            f'    """The starter."""\n    # Your code here.\n    pass\n')


def statement_code(problem: Problem) -> list[str]:
    """The code blocks and inline code of the statement, each on its own."""
    try:
        text = problem.statement_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    blocks = _FENCED.findall(text)
    rest = _FENCED.sub("", text)
    return blocks + _INLINE.findall(rest)


def starter_texts(problem: Problem | None, extra: list[Path] | None = None) -> list[str]:
    """Every text whose code is the starter's: the stub, the statement's code and ``extra``."""
    out = [stub(problem), *statement_code(problem)] if problem is not None else []
    for path in extra or []:
        out.append(path.read_text(encoding="utf-8", errors="replace"))
    return out
