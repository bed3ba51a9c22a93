"""Problems warmed ahead of their grades. What a problem's grades need built once (the
dependence probe's table, the misconception table, XLA's cache for eager code: see
``authoring.warm``) is built by idle workers, most-submitted problems first, from the
server's start; a grade of a problem that is not warm yet warms it first. So the first
grade of a piece of code gets the same feedback as its hundredth, whatever happened to
be cached, and ``/healthz`` says which problems are still waiting."""
from __future__ import annotations

import logging
import threading
from typing import Literal

from sqlalchemy import func, select

from ..authoring.warm import warm
from ..problem import Problem, ProblemError, find_problem
from .models import Submission

log = logging.getLogger("grader.service")

State = Literal["waiting", "warming", "ready", "failed"]


def most_used_first(db, problem_ids: list[str]) -> list[str]:
    """``problem_ids``, the most-submitted first (ties in the catalogue's order)."""
    with db.read() as s:
        counts = dict(s.execute(select(Submission.problem, func.count()).group_by(Submission.problem)).all())
    return sorted(problem_ids, key=lambda pid: -counts.get(pid, 0))


class Warming:
    """Each problem's state, and one lock per problem so that it is warmed once."""

    def __init__(self, order: list[str]) -> None:
        self.state: dict[str, State] = {pid: "waiting" for pid in order}
        self._locks = {pid: threading.Lock() for pid in order}
        self._guard = threading.Lock()

    def pending(self) -> list[str]:
        """The problems not warm yet, in the order they will be warmed."""
        return [pid for pid, state in self.state.items() if state in ("waiting", "warming")]

    def ensure(self, problem: Problem, sandbox) -> None:
        """Warm ``problem`` unless it is (waiting while another worker warms it). A
        failure is logged and not retried: grades then build what they need themselves."""
        if self.state.get(problem.id) in ("ready", "failed"):
            return
        with self._guard:
            lock = self._locks.setdefault(problem.id, threading.Lock())
        with lock:
            if self.state.get(problem.id) in ("ready", "failed"):
                return
            self.state[problem.id] = "warming"
            try:
                warm(problem, sandbox)
            except Exception:
                log.exception("warming %s failed", problem.id)
                self.state[problem.id] = "failed"
            else:
                self.state[problem.id] = "ready"

    def warm_next(self, sandbox) -> bool:
        """Warm the first waiting problem no other worker is warming; False if none is left."""
        with self._guard:
            pid = next((p for p, state in self.state.items()
                        if state == "waiting" and not self._locks[p].locked()), None)
        if pid is None:
            return False
        try:
            problem = find_problem(pid)
        except (ProblemError, OSError):
            self.state[pid] = "failed"
            return True
        self.ensure(problem, sandbox)
        return True
