"""The custom-input box of a problem page. It starts from the first public case's input
(the statement's first worked example), as the JSON a learner edits and sends."""
from __future__ import annotations

import json

from ...problem import ProblemError, problem_folder, read_case


def example_input(pid: str) -> str:
    """The first public case's input as JSON, one argument per line ("{}" when the
    problem has none)."""
    try:
        folder = problem_folder(pid) / "cases" / "public"
        first = min(folder.glob("*.json"), default=None)
        raw = read_case(first, "public").input if first is not None else {}
    except (ProblemError, OSError):
        raw = {}
    if not isinstance(raw, dict) or not raw:
        return "{}"
    rows = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in raw.items()]
    return "{\n" + ",\n".join(rows) + "\n}"
