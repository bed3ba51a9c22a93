"""What a Dask worker runs for ``grader serve --engine dask``: the same grading as a
local worker, in one warm sandbox per Dask worker process, reused across jobs.
Imports nothing of the web service or the database."""
from __future__ import annotations

_SANDBOX = None


def grade_remote(problem, kind: str, source: str, sub_id: str, feedback: bool, strict: bool, custom_input=None):
    global _SANDBOX
    from ...sandbox.host import Sandbox
    from .grading import grade_problem

    if _SANDBOX is None:
        _SANDBOX = Sandbox()
    return grade_problem(problem, kind, source, sub_id, _SANDBOX, feedback, strict, custom_input)
