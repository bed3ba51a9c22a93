"""``grader warm``: build, ahead of grading, what a grade would otherwise build the
first time it needs it: the dependence probe's table, the misconception table and
XLA's compilation cache (see ``judge.probe_table``, ``judge.mistakes``,
``sandbox.xla_cache``). The work comes in steps, so that a server can warm between
grades (``service.warming``): in the order a grade needs them, the probe table (every
grade of a problem with perturbed requirements waits for it), each wrong answer's
misconception entry (a failing grade's hint), then the compilation cache (eager code)."""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

from ..judge import mistakes, probe_table
from ..judge.tables import taken_from_shipped
from ..problem import Problem
from ..problem.corpus import Expectation
from ..sandbox.host import Sandbox
from ..sandbox.xla_cache import fill

Phase = Literal["probe", "hint", "cache"]
PHASES: tuple[Phase, ...] = ("probe", "hint", "cache")


@dataclass(frozen=True)
class Step:
    """One piece of one problem's warming; ``wrong`` is the wrong answer of a hint step."""

    problem: Problem
    phase: Phase
    wrong: Expectation | None = None

    def run(self, sandbox: Sandbox, started: Callable[[subprocess.Popen], None] | None = None) -> str:
        """Build it (a no-op when it is kept already); what it did and where, in words.
        ``started`` gets any process it starts besides the sandbox's (the cache's filler)."""
        if self.phase == "probe":
            where = probe_table.path(self.problem)
            had = where.exists()
            probe_table.get(self.problem, sandbox)
            return f"dependence probe table {how_built(where, had)}"
        if self.phase == "hint":
            assert self.wrong is not None
            where = mistakes.entry_path(self.problem, self.wrong)
            had = where.exists()
            entry = mistakes.build_entry(self.problem, self.wrong, sandbox)
            outputs = len((entry or {}).get("outputs", {}))
            return f"misconception of {self.wrong.path.name} ({outputs} outputs) {how_built(where, had)}"
        filled = fill(self.problem, started or (lambda _proc: None))
        return "compilation cache " + ("ready" if filled else "unavailable (off or not writable)")


def how_built(where: Path, had: bool) -> str:
    """Whether a table was there already, copied from the shipped ones, or built; and where."""
    if had:
        return f"kept in {where}"
    if taken_from_shipped(where):
        return f"taken from the shipped tables into {where}"
    return f"built into {where}" if where.exists() else "built (not kept: the folder is not writable)"


def steps(problem: Problem) -> list[Step]:
    """``problem``'s steps, in the order of ``PHASES``."""
    needs_probe = problem.meta.requirements.depends and problem.meta.requirements.perturbed
    return [*([Step(problem, "probe")] if needs_probe else []),
            *(Step(problem, "hint", exp) for exp in mistakes.wrong_answers(problem)),
            Step(problem, "cache")]


def warm(problem: Problem, sandbox: Sandbox, say: Callable[[str], None] = lambda _m: None) -> None:
    for step in steps(problem):
        say(step.run(sandbox))
