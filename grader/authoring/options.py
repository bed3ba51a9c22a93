"""What the authoring commands share: a problem loaded or one message and exit status 2,
and the ``--jobs`` option."""
from __future__ import annotations

import click

from ..common.exits import fail as _fail
from ..problem import ProblemError, find_problem


def load_problem_or_exit(problem_id: str):
    """The problem, its output checks resolved, or one message and exit status 2."""
    from ..judge.output_checks import resolve

    try:
        problem = find_problem(problem_id)
        resolve(problem.meta, str(problem.root / "problem.toml"))
    except ProblemError as exc:
        _fail(str(exc))
    return problem


JOBS = click.option("--jobs", type=click.IntRange(1, 16), default=2, show_default=True,
                    help="Problems worked on at once (with the mutation analysis, each with a worker of its own).")
