"""Problems warmed ahead of their grades. What a problem's grades need built once (the
dependence probe's table, each wrong answer's misconception entry, XLA's cache for
eager code: ``authoring.warm``'s steps) is built by idle workers from the server's
start, one step at a time and phase by phase: every problem's probe table first (the
most-submitted problem first), then the misconceptions (the problems in use first),
then the caches. A worker looks at the queue between two steps, and no step starts
while a grade runs, so that a grade waits behind warming for at most the rest of one
step (on a machine with as many cores as workers, a grade beside a step is measurably
slower: ``bench/first_run.py``).

Ready means ready: ``/readyz`` answers 200 once every probe table is built and every
misconception entry of the problems in use (``in_use``: those of the assignments not
yet closed, or, on a server with none, every problem), so that a class sent on at ready
gets the hint a learner gets a week later, and a first Run is as fast as its hundredth.
Until then every worker warms (nobody has been sent on yet); after it, with two
workers or more, one always stays free to grade.

A grade needs only its problem's probe table: it builds it, or waits for the worker
building it, so its checks never depend on what happened to be cached. Its hints come
from the misconception entries built so far (and what its feedback budget builds); a
grade that could not consult them all says that a hint may follow
(``Report.hint_may_follow``). ``/healthz`` and the queue page list the problems still
warming, with the phase each is in."""
from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from typing import Iterator
from datetime import datetime, timezone

from sqlalchemy import func, select

from ...authoring.warm import PHASES, Phase, Step, steps
from ...problem import ProblemError, find_problem
from ..core.models import Assignment, AssignmentProblem, Submission

log = logging.getLogger("grader.service")


def most_used_first(db, problem_ids: list[str]) -> list[str]:
    """``problem_ids``, the most-submitted first (ties in the catalogue's order)."""
    with db.read() as s:
        counts = dict(s.execute(select(Submission.problem, func.count()).group_by(Submission.problem)).all())
    return sorted(problem_ids, key=lambda pid: -counts.get(pid, 0))


def in_use(db, problem_ids: list[str], now: datetime | None = None) -> list[str]:
    """The problems of ``problem_ids`` that an assignment not yet closed (open, or still
    to open) includes, in their order; every one of them when no assignment is: a
    server without courses serves the whole catalogue for practice."""
    now = now or datetime.now(timezone.utc)
    closes = func.coalesce(Assignment.late_until, Assignment.due_at)
    with db.read() as s:
        used = set(s.scalars(select(AssignmentProblem.problem).join(Assignment).where(closes > now)))
    return [pid for pid in problem_ids if pid in used] or list(problem_ids)


class Warming:
    """Every problem's steps in warming order, each built once (a lock per step).
    ``in_use``: the problems whose misconceptions readiness waits for, and built before
    the others' (None: every problem); ``background``: how many workers may warm at
    once between grades once ready, ``before_ready`` before (default ``background``)."""

    def __init__(self, order: list[str], background: int = 1, in_use: list[str] | None = None,
                 before_ready: int | None = None) -> None:
        self.background = background
        self.before_ready = background if before_ready is None else before_ready
        self.failed: list[str] = []  # problems that could not be loaded: grades say why themselves
        per_problem: dict[str, list[Step]] = {}
        for pid in order:
            try:
                per_problem[pid] = steps(find_problem(pid))
            except (ProblemError, OSError) as exc:
                log.warning("not warming %s: %s", pid, exc)
                self.failed.append(pid)
        self.order = list(per_problem)
        used = set(self.order if in_use is None else in_use)
        first = [pid for pid in self.order if pid in used] + [pid for pid in self.order if pid not in used]
        self._plan = [s for phase in PHASES for pid in (first if phase == "hint" else self.order)
                      for s in per_problem[pid] if s.phase == phase]
        self._done = [False] * len(self._plan)
        self._locks = [threading.Lock() for _ in self._plan]
        self._probe = {s.problem.id: i for i, s in enumerate(self._plan) if s.phase == "probe"}
        # What readiness waits for: every probe table, and the hints of the problems in use.
        self._needed = [i for i, s in enumerate(self._plan)
                        if s.phase == "probe" or (s.phase == "hint" and s.problem.id in used)]
        self._guard = threading.Lock()
        self._busy = 0
        self._grades = 0

    def pending(self) -> dict[str, Phase]:
        """The problems not warm yet, most-submitted first, each with the phase of its
        next step."""
        out: dict[str, Phase] = {}
        for i, step in enumerate(self._plan):  # phase by phase: a problem's first step left is its phase
            if not self._done[i]:
                out.setdefault(step.problem.id, step.phase)
        return {pid: out[pid] for pid in self.order if pid in out}

    def ready(self) -> bool:
        """Every problem's probe table is built, and every misconception entry of the
        problems in use (or failed and was logged): no grade waits for a table, and no
        grade of a problem in use says that a hint may follow."""
        return all(self._done[i] for i in self._needed)

    def ensure(self, problem_id: str, sandbox) -> None:
        """What a grade of ``problem_id`` needs before it starts: the probe table,
        built here unless another worker is building it (then this waits for it)."""
        i = self._probe.get(problem_id)
        if i is not None:
            self._run(i, sandbox, wait=True)

    @contextmanager
    def grading(self) -> Iterator[None]:
        """Around a grade: no warming step starts until it ends."""
        with self._guard:
            self._grades += 1
        try:
            yield
        finally:
            with self._guard:
                self._grades -= 1

    def warm_next(self, sandbox) -> bool:
        """Build the next step no other worker is building, unless as many workers as
        may (``before_ready``, then ``background``) are warming already or a grade is
        running; False if nothing was built."""
        with self._guard:
            if self._busy >= (self.background if self.ready() else self.before_ready) or self._grades:
                return False
            self._busy += 1
        try:
            for i in range(len(self._plan)):
                if not self._done[i] and self._run(i, sandbox, wait=False):
                    return True
            return False
        finally:
            with self._guard:
                self._busy -= 1

    def _run(self, i: int, sandbox, wait: bool) -> bool:
        """Build step ``i`` unless it is built; without ``wait``, False when another
        worker holds it. A failure is logged and not retried: grades then build what
        they need themselves."""
        lock = self._locks[i]
        if not lock.acquire(blocking=wait):
            return False
        try:
            if self._done[i]:
                return False
            step = self._plan[i]
            try:
                log.debug("warming %s: %s", step.problem.id, step.run(sandbox))
            except Exception:
                log.exception("warming %s (%s) failed", step.problem.id, step.phase)
            self._done[i] = True
            return True
        finally:
            lock.release()
