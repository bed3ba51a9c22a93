"""What every ``validate`` check gets and gives: the problem with a sandbox pool,
and findings that pass, fail or warn."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..problem import Problem
from ..sandbox.host import Pool


@dataclass
class Finding:
    check: str
    status: str  # pass | fail | warn
    message: str



@dataclass
class Validation:
    """One problem's validation under way: what every check reads (the problem, the
    sandbox pool, whether the example submissions are graded too) and what the checks
    hand on to each other (``oracle_worst``)."""

    problem: Problem
    pool: Pool
    with_submissions: bool = True
    log: Callable[[str], None] = lambda _m: None
    oracle_worst: dict[str, float] = field(default_factory=dict)


# --------------------------------------------------------------- the checks
