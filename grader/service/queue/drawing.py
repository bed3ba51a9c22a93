"""A deployment's hidden suites drawn at the server's start (``grader serve --suite DIR``).

A problem whose suite the folder holds for its current revision is graded with it at
once; every other one is drawn in the background, as ``grader suite draw`` draws it (the
whole strength gate: the corpus's verdicts and the reference's mutants), most-submitted
first, while the server already answers. Until its suite is drawn, a problem's
submissions wait in line (the workers claim around them, ``jobs.claim``'s ``skip``), and
``/readyz`` says not ready; its warming (probe table, hints, cache) starts once every draw
has ended, since each of those tables is built from the hidden cases it grades with. A
problem whose draw fails every attempt is no longer waited for: its grades are IE, naming
the missing suite, never graded with the shipped hidden cases. Each refused attempt and
its reason are logged; the secret never is."""
from __future__ import annotations

import logging
import threading
from pathlib import Path

from ...authoring.parallel import in_order
from ...authoring.suites import draw_suite
from ...problem import ProblemError, load_problem, problem_folder
from ...problem.suite import SuiteError, SuiteStore, load_secret, stripped
from ...sandbox.host import Pool

log = logging.getLogger("grader.service")


class Drawing:
    """The problems of ``order`` whose suite ``folder`` lacks, drawn by ``run`` ``jobs``
    at a time (each job with a mutation worker of its own, and a pool of ``sandboxes``
    grading the corpus)."""

    def __init__(self, folder: Path, order: list[str], jobs: int = 1, sandboxes: int = 1) -> None:
        self.secret = load_secret(Path(folder) / "secret", create=True)
        self.store = SuiteStore(Path(folder), self.secret)
        self.jobs, self.sandboxes = jobs, sandboxes
        self.failed: dict[str, str] = {}  # problem: why it has no suite
        self._lock = threading.Lock()
        self._pending = [pid for pid in order if self._needs_draw(pid)]

    def _needs_draw(self, pid: str) -> bool:
        try:
            return self.store.manifest(load_problem(problem_folder(pid))) is None
        except (ProblemError, SuiteError, OSError):
            return False  # a broken problem: its grades say why, as without a suite

    def pending(self) -> list[str]:
        """The problems whose suite is still to draw, in drawing order."""
        with self._lock:
            return list(self._pending)

    def ready(self) -> bool:
        return not self.pending()

    def run(self, stop: threading.Event) -> None:
        """Draw every pending problem; returns once each has a suite or failed (or at ``stop``,
        after the draws in progress)."""
        ids = self.pending()
        if not ids:
            return
        log.warning("drawing the hidden suites of %d problem(s) for suite %s; they are graded once drawn",
                    len(ids), self.secret.id)
        with Pool(self.sandboxes) as pool:
            def draw(pid: str, session) -> None:
                try:
                    if stop.is_set():
                        return
                    self._draw(pid, pool, session)
                except Exception as exc:  # the judge's own bug: no suite, so its grades are IE
                    log.exception("%s: drawing its suite failed", pid)
                    self.failed[pid] = f"drawing failed ({type(exc).__name__})"
                finally:
                    with self._lock:
                        self._pending.remove(pid)

            for _ in in_order(ids, self.jobs, True, draw):
                pass

    def _draw(self, pid: str, pool: Pool, session) -> None:
        try:
            problem = load_problem(problem_folder(pid))
            # Installed without its hidden cases, the problem has no shipped kills to compare
            # with: the gate is its corpus alone, as ``grader suite draw --no-mutants``.
            d = draw_suite(problem, self.secret, self.store, pool, None if stripped(problem) else session,
                           log=lambda m: log.debug("%s", m.strip()))  # a line per corpus file graded
        except (ProblemError, SuiteError, OSError) as exc:
            self.failed[pid] = str(exc)
            log.error("%s: no suite drawn: %s", pid, exc)
            return
        for reason in d.reasons:  # each refused draw, redrawn from the next seed
            log.warning("%s: %s", pid, reason)
        if d.passed:
            log.warning("%s: suite %s drawn (attempt %d, %d hidden cases, mutants killed %s) in %.1f s", pid,
                        d.suite, d.attempt, len(d.ids), d.killed, d.seconds)
        else:
            self.failed[pid] = "; ".join(d.reasons)
            log.error("%s: no draw passed the strength gate; its grades are IE: %s", pid, self.failed[pid])
