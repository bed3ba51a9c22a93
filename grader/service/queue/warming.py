"""Problems warmed ahead of their grades. What a problem's grades need built once (the
dependence probe's table, each wrong answer's misconception entry, XLA's cache for
eager code: ``authoring.warm``'s steps) is built from the server's start, one step at a
time, by *warmers*: threads of the server's own work, each with a sandbox of its own,
never one a grade uses.

A grade goes first. A grade that starts (``grading``) stops every step in progress at
once (its sandbox's processes are killed, so the cores are the grades' within
milliseconds, not after the step) and keeps new steps from starting until no grade has
run for ``settle`` seconds; a stopped step is redone later from the start (each step is
a pure function of the problem's version: nothing half-built is kept). So no grade waits
in line behind warming, before ready as after it: the workers that grade never warm.

What warms first follows what learners use now: the problems in use (``in_use``: those
of the assignments not yet closed, or, on a server with none, every problem), read again
every ``refresh`` seconds, so an assignment created, opened or changed after the start
moves its problems to the front: their probe tables and hints first, then the other
problems' (most-submitted first), then the caches.

Ready means ready: ``/readyz`` answers 200 once the problems in use at that moment have
their probe table and every misconception entry, so that a class sent on at ready gets
the hint a learner gets a week later. A grade of a problem not in use builds its own
probe table first if warming has not (``ensure``): its checks never depend on what
happened to be cached. A grade that could not consult every misconception entry says
that a hint may follow (``Report.hint_may_follow``). ``/healthz`` and the queue page list
the problems still warming, with the phase each is in, and the queue says what each
warmer is building."""
from __future__ import annotations

import logging
import subprocess
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Callable, Iterator

from sqlalchemy import func, select

from ...authoring.warm import PHASES, Phase, Step, steps
from ...problem import ProblemError, find_problem
from ..core.models import Assignment, AssignmentProblem, Submission

log = logging.getLogger("grader.service")

SETTLE = 1.0  # s without a grade before warming starts again: back-to-back grades do not restart it
REFRESH = 2.0  # s between two reads of the problems in use


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
    """Every problem's steps, each built once (a lock per step). ``in_use``: the problems
    warmed first and whose tables readiness waits for, a list or a function read again
    every ``refresh`` seconds (None: every problem)."""

    def __init__(self, order: list[str], in_use: list[str] | Callable[[], list[str]] | None = None,
                 settle: float = SETTLE, refresh: float = REFRESH) -> None:
        self.failed: list[str] = []  # problems that could not be loaded: grades say why themselves
        self.settle, self.refresh = settle, refresh
        self._plan: list[Step] = []
        for pid in order:
            try:
                self._plan.extend(steps(find_problem(pid)))
            except (ProblemError, OSError) as exc:
                log.warning("not warming %s: %s", pid, exc)
                self.failed.append(pid)
        self.order = list(dict.fromkeys(s.problem.id for s in self._plan))
        self._in_use = in_use
        self._used: set[str] = set(self.order)
        self._used_read = -float("inf")
        self._done = [False] * len(self._plan)
        self._locks = [threading.Lock() for _ in self._plan]
        self._probe = {s.problem.id: i for i, s in enumerate(self._plan) if s.phase == "probe"}
        self._guard = threading.Lock()
        self._grades = 0
        self._last_grade = -float("inf")
        self._running: dict[int, Callable[[], None]] = {}  # step: how to stop it
        self._stopped: set[int] = set()  # steps stopped for a grade, to redo
        self._closed = False

    # ------------------------------------------------------------ what is left

    def used(self) -> set[str]:
        """The problems in use now (read again at most every ``refresh`` seconds)."""
        source = self._in_use
        if source is None or isinstance(source, list):
            return set(self.order if source is None else source)
        if time.monotonic() - self._used_read >= self.refresh:
            try:
                self._used = set(source())
            except Exception:  # the database is away for a moment: keep the last answer
                log.exception("reading the problems in use failed")
            self._used_read = time.monotonic()
        return self._used

    def _next_order(self) -> list[int]:
        """The steps in the order they are built: the problems in use first, then the
        others, each phase by phase, across problems in ``order``; the caches last."""
        used = self.used()
        rank = {pid: k for k, pid in enumerate(self.order)}

        def key(i: int) -> tuple:
            step = self._plan[i]
            first = step.phase != "cache" and step.problem.id in used
            return (not first, PHASES.index(step.phase), rank[step.problem.id])

        return sorted(range(len(self._plan)), key=key)

    def pending(self) -> dict[str, Phase]:
        """The problems not warm yet, in ``order``, each with the phase of its next step."""
        out: dict[str, Phase] = {}
        for i, step in enumerate(self._plan):  # a problem's steps are listed phase by phase
            if not self._done[i]:
                out.setdefault(step.problem.id, step.phase)
        return {pid: out[pid] for pid in self.order if pid in out}

    def ready(self) -> bool:
        """The problems in use now have their probe table and every misconception entry
        (or a step failed and was logged): no grade of theirs waits for a table or says
        that a hint may follow."""
        used = self.used()
        return all(self._done[i] for i, s in enumerate(self._plan)
                   if s.phase != "cache" and s.problem.id in used)

    def finished(self) -> bool:
        """Every step is built: the warmers can end."""
        return all(self._done)

    # ------------------------------------------------------------ grades first

    def stop_all(self, close: bool = False) -> None:
        """Stop every step in progress; each is redone by the next warm_next, or, with
        ``close`` (the server stops), at the next start: no step starts any more."""
        with self._guard:
            self._closed = self._closed or close
            victims = list(self._running.items())
            self._stopped.update(i for i, _ in victims)
        for i, stop in victims:
            try:
                stop()
            except Exception:
                log.exception("stopping the warming of %s failed", self._plan[i].problem.id)

    @contextmanager
    def grading(self) -> Iterator[None]:
        """Around a grade: every step in progress is stopped now (and redone later), and
        none starts until no grade has run for ``settle`` seconds."""
        with self._guard:
            self._grades += 1
        self.stop_all()
        try:
            yield
        finally:
            with self._guard:
                self._grades -= 1
                self._last_grade = time.monotonic()

    def yielding(self) -> bool:
        """A grade runs, or one ended less than ``settle`` seconds ago (or the server stops)."""
        return self._closed or bool(self._grades) or time.monotonic() - self._last_grade < self.settle

    def ensure(self, problem_id: str, sandbox) -> None:
        """What a grade of ``problem_id`` needs before it starts: the probe table, built
        here in the grade's sandbox (a warmer building it was stopped when the grade
        began, and lets go of it at once)."""
        i = self._probe.get(problem_id)
        if i is not None:
            self._run(i, sandbox, wait=True)

    def warm_next(self, warmer: "Warmer") -> bool:
        """Build, with ``warmer``, the next step no other warmer is building, unless a
        grade goes first (``yielding``). False if nothing was built."""
        if self.yielding():
            return False
        for i in self._next_order():
            if self.yielding():  # a grade came while this looked, or stopped the step it tried
                return False
            if not self._done[i] and self._run(i, warmer.sandbox, wait=False, warmer=warmer):
                return True
        return False

    def _run(self, i: int, sandbox, wait: bool, warmer: "Warmer | None" = None) -> bool:
        """Build step ``i`` unless it is built; without ``wait``, False when another
        thread holds it. A failure is logged and not retried (grades then build what they
        need themselves), unless the step was stopped for a grade: it is redone later."""
        lock = self._locks[i]
        if not lock.acquire(blocking=wait):
            return False
        try:
            if self._done[i]:
                return False
            step = self._plan[i]
            if warmer is not None:
                with self._guard:
                    if self._grades:  # a grade began since warm_next looked: it goes first
                        return False
                    self._running[i] = warmer.stop
                warmer.doing(f"warming {step.problem.id} ({_PHASE_WORDS[step.phase]})")
            error: Exception | None = None
            try:
                built = step.run(sandbox, warmer.started if warmer is not None else None)
            except Exception as exc:
                error, built = exc, ""
            with self._guard:
                self._running.pop(i, None)
                stopped = i in self._stopped
                self._stopped.discard(i)
            if stopped:
                log.info("warming %s (%s) stopped (a grade came, or the server stops); it is redone later",
                         step.problem.id, step.phase)
                return False
            if error is not None:
                log.error("warming %s (%s) failed", step.problem.id, step.phase, exc_info=error)
            else:
                log.debug("warming %s: %s", step.problem.id, built)
            self._done[i] = True
            return True
        finally:
            if warmer is not None:
                warmer.doing(None)
            lock.release()


class Warmer:
    """What one warmer builds with: its own ``sandbox`` (never a grade's) and the
    processes its step started besides it; ``stop`` ends them all at once. ``doing``
    hears what it builds (None: nothing), for the queue page."""

    def __init__(self, sandbox, doing: Callable[[str | None], None] = lambda _what: None) -> None:
        self.sandbox, self.doing = sandbox, doing
        self._procs: list[subprocess.Popen] = []

    def started(self, proc: subprocess.Popen) -> None:
        self._procs = [p for p in self._procs if p.poll() is None] + [proc]

    def stop(self) -> None:
        if self.sandbox is not None:
            self.sandbox.stop()
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()


_PHASE_WORDS: dict[Phase, str] = {"probe": "dependence probe table", "hint": "misconception hints",
                                  "cache": "compilation cache"}
