"""A deployment's hidden suites drawn at the server's start (``grader serve --suite DIR``).

A problem whose suite the folder holds for its current revision is graded with it at
once; every other one is drawn in the background, as ``grader suite draw`` draws it (the
whole strength gate: the corpus's verdicts and the reference's mutants), most-submitted
first, while the server already answers. Until its suite is drawn, a problem's
Submits wait in line (the workers claim around them, ``jobs.claim``'s ``skip``; its Runs
are graded on the public cases, every suite's, ``Workers._problem_for``), and
``/readyz`` says not ready; its warming (probe table, hints, cache) starts once every draw
has ended, since each of those tables is built from the hidden cases it grades with. A
problem whose draw fails every attempt is no longer waited for: its grades are IE, naming
the missing suite, never graded with the shipped hidden cases. Each refused attempt and
its reason are logged; the secret never is.

The draws run in a process of their own, ``grader suite draw`` (the one way of drawing),
whose lines say which problem is done: JAX's work stays out of the server's process, and
a server that stops ends a draw at once (its process group) instead of waiting minutes
for it; a draw cut short leaves no suite, so the next start draws that problem again.

A grade goes first: the draw's process and every process it starts run under Linux's
``SCHED_IDLE`` policy, which gives them a core only when no other process wants it, so a
grade takes its core from a draw at once and a draw goes on in the gaps between grades.
A draw starved that way can see its corpus files run out of wall-clock time and be
refused for it: a problem whose draw failed while grades ran is drawn once more, up to
``RETRIES`` times, before its failure stands."""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

from ...problem import ProblemError, load_problem, problem_folder
from ...problem.suite import SuiteError, SuiteStore, load_secret, stripped

log = logging.getLogger("grader.service")

RETRIES = 2  # more draws of a problem whose draw failed while grades ran (starved, perhaps)


def run_idle(pid: int) -> bool:
    """Put process ``pid`` (and what it starts from now on) under ``SCHED_IDLE``; False
    where the OS has no such policy (the draw then competes with grades as any process)."""
    try:
        os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
        return True
    except (AttributeError, OSError):
        return False


class Drawing:
    """The problems of ``order`` whose suite ``folder`` lacks, drawn by ``run`` ``jobs``
    at a time (each job with a mutation worker of its own), with ``sandboxes`` grading
    the corpus."""

    def __init__(self, folder: Path, order: list[str], jobs: int = 1, sandboxes: int = 1) -> None:
        self.folder = Path(folder)
        self.secret = load_secret(self.folder / "secret", create=True)
        self.store = SuiteStore(self.folder, self.secret)
        self.jobs, self.sandboxes = jobs, sandboxes
        self.failed: dict[str, str] = {}  # problem: why it has no suite
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._cancelled = False
        self._bare: set[str] = set()  # installed without the shipped hidden cases
        self._pending = [pid for pid in order if self._needs_draw(pid)]
        self.on_progress: Callable[[], None] = lambda: None  # a problem's draw ended (the queue page's line)
        self.grades = 0  # grades this server started (Workers counts them): a failure beside one may be starvation
        self._failed_beside: set[str] = set()  # failed while grades ran: drawn again
        self._retries: dict[str, int] = {}
        self._run_lock = threading.Lock()
        self._grades_at_start = 0

    def _needs_draw(self, pid: str) -> bool:
        try:
            problem = load_problem(problem_folder(pid))
            if stripped(problem):
                self._bare.add(pid)
            return self.store.manifest(problem) is None
        except (ProblemError, SuiteError, OSError):
            return False  # a broken problem: its grades say why, as without a suite

    def pending(self) -> list[str]:
        """The problems whose suite is still to draw, in drawing order."""
        with self._lock:
            return list(self._pending)

    def ready(self) -> bool:
        return not self.pending()

    def failures(self) -> dict[str, str]:
        """The problems this start could not draw, with why, save those drawn since
        (``grader suite draw``, which the next grade finds)."""
        return {pid: why for pid, why in dict(self.failed).items() if self._not_drawn_since(pid)}

    def undrawn(self, pid: str) -> bool:
        """``pid`` has no suite yet: still being drawn, or failed and not drawn since."""
        return pid in self.pending() or (pid in self.failed and self._not_drawn_since(pid))

    def _not_drawn_since(self, pid: str) -> bool:
        try:
            return self.store.manifest(load_problem(problem_folder(pid))) is None
        except (ProblemError, OSError):
            return True

    def run(self) -> None:
        """Draw every pending problem, and any put back meanwhile (``redraw``); returns
        once each has a suite or failed, or once ``cancel`` ended the draw."""
        while True:
            with self._run_lock:  # one draw at a time
                self._loop()
            with self._lock:  # one put back after the loop's last look is drawn now
                if not self._pending or self._cancelled:
                    return

    def _loop(self) -> None:
        ids = self.pending()
        if ids:
            log.warning("drawing the hidden suites of %d problem(s) for suite %s; they are graded once drawn",
                        len(ids), self.secret.id)
        while True:
            with self._lock:
                ids = list(self._pending)
                if not ids or self._cancelled:
                    break
            self._round(ids)
            with self._lock:
                unheard = [pid for pid in self._pending if pid in ids]
                self._pending = [pid for pid in self._pending if pid not in ids]
            for pid in unheard:  # cut short, or the draw died: no suite, so the next start draws it again
                self.failed[pid] = "the draw ended before this problem's suite was drawn"
                log.error("%s: no suite drawn: %s", pid, self.failed[pid])
            self.on_progress()
        with self._lock:
            unheard, self._pending = self._pending, []
        for pid in unheard:  # cancelled: no suite, so the next start draws it again
            self.failed[pid] = "the draw ended before this problem's suite was drawn"
            log.error("%s: no suite drawn: %s", pid, self.failed[pid])

    def _round(self, ids: list[str]) -> None:
        """Draw ``ids``, and again (each at most ``RETRIES`` times) those whose draw failed
        while grades ran."""
        while ids:
            self._failed_beside = set()
            # Installed without the shipped hidden cases, a problem has no shipped kills to
            # compare with: its gate is its corpus alone (--no-mutants).
            for group, extra in (([p for p in ids if p not in self._bare], []),
                                 ([p for p in ids if p in self._bare], ["--no-mutants"])):
                if group and not self._cancelled:
                    self._draw(group, extra)
            ids = [pid for pid in ids if pid in self._failed_beside]
            if self._cancelled or not ids:
                return
            log.warning("drawing %s again: its draw failed while grades ran (a draw yields its cores to them)",
                        ", ".join(ids))
            with self._lock:
                self._pending.extend(ids)
            for pid in ids:
                self.failed.pop(pid, None)

    def redraw(self, pid: str) -> bool:
        """``pid``'s suite was drawn, and is refused now (changed on disk: its seal no
        longer holds): put it back to draw, in the draw running now or in a new one.
        False when it is being drawn already or its draw failed at this start."""
        with self._lock:
            if pid in self._pending or pid in self.failed or self._cancelled:
                return False
            self._pending.append(pid)
        log.warning("%s: its drawn suite is refused (see above); drawing it again, its Submits wait for it", pid)
        self.on_progress()
        if not self._run_lock.locked():  # else the draw running now takes it
            threading.Thread(target=self.run, name="redraw", daemon=True).start()
        return True

    def refused_since_drawn(self, pid: str) -> bool:
        """``pid`` was drawn at this start (or kept), and its suite is refused now."""
        return pid not in self.pending() and pid not in self.failed and self._not_drawn_since(pid)

    def cancel(self) -> None:
        """End the draw in progress and those still to come (the server is stopping)."""
        self._cancelled = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)

    def command(self, ids: list[str], extra: list[str]) -> list[str]:
        """The process that draws ``ids``: ``grader suite draw``."""
        return [sys.executable, "-m", "grader", "suite", "draw", *ids, "--suite", str(self.folder),
                "--jobs", str(self.jobs), "--workers", str(self.sandboxes), *extra]

    def _draw(self, ids: list[str], extra: list[str]) -> None:
        cmd = self.command(ids, extra)
        self._proc = proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                             start_new_session=True)
        run_idle(proc.pid)  # before it imports anything, so before any process it starts
        if self._cancelled:  # cancelled while it started
            self.cancel()
        assert proc.stdout is not None
        last, self._grades_at_start = "", self.grades
        for line in proc.stdout:
            last = self.read_line(line.rstrip("\n"), last)
        proc.wait()

    def read_line(self, line: str, last: str) -> str:
        """One line of ``grader suite draw``: a problem's outcome (``ID: drawn (attempt K),
        ...``, ``ID: kept, ...``, ``ID: FAILED, ...`` or ``ID: why``), or, indented, a reason
        a draw of the problem before it was refused. Returns the problem it was about."""
        if line.startswith("  "):
            log.warning("%s: %s", last, line.strip())  # a refused draw, redrawn from the next seed
            if last in self.failed:
                self.failed[last] += "; " + line.strip()
            return last
        pid, sep, rest = line.partition(": ")
        if not sep or pid not in self.pending():
            log.info("suite draw: %s", line)
            return last
        if rest.startswith(("drawn", "kept")):
            log.warning("%s: suite %s %s", pid, self.secret.id, rest)
        elif self.grades != self._grades_at_start and self._retries.get(pid, 0) < RETRIES:
            self._retries[pid] = self._retries.get(pid, 0) + 1
            self.failed[pid] = rest
            self._failed_beside.add(pid)
            log.warning("%s: no draw passed the strength gate while grades ran; drawn again: %s", pid, rest)
        else:
            self.failed[pid] = rest
            log.error("%s: no draw passed the strength gate; its grades are IE: %s", pid, rest)
        with self._lock:
            self._pending.remove(pid)
        self.on_progress()
        return pid
