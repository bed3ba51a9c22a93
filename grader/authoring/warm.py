"""``grader warm``: build, ahead of grading, what a grade would otherwise build the
first time it needs it: the dependence probe's table, the misconception table and
XLA's compilation cache (see ``judge.probe_table``, ``judge.mistakes``,
``sandbox.xla_cache``)."""
from __future__ import annotations

from typing import Callable

from ..judge import mistakes, probe_table
from ..problem import Problem
from ..sandbox.host import Sandbox
from ..sandbox.xla_cache import fill


def warm(problem: Problem, sandbox: Sandbox, say: Callable[[str], None] = lambda _m: None) -> None:
    if problem.meta.requirements.depends and problem.meta.requirements.perturbed:
        probe_table.get(problem, sandbox)
        say("dependence probe table ready")
    table = mistakes.mistake_table(problem, sandbox)
    say(f"misconception table ready ({len(mistakes.wrong_answers(problem))} wrong answers, "
        f"{sum(len(v) for v in table.values())} entries)")
    say("compilation cache " + ("ready" if fill(problem) else "unavailable (off or not writable)"))
