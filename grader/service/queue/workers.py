"""The workers: threads that claim rows and grade them. Locally each thread holds
one warm sandbox of the batch pool (a zygote that imported JAX once); with
``--engine dask`` each thread hands its claimed job to the Dask cluster instead.
The workers only grade: the server's own work (drawing the hidden suites, then warming
every problem's tables) runs on threads of its own, the warmers, with sandboxes of
their own, and yields to every grade (``warming``). One more thread beats the heartbeat
of this server's workers and reaps rows held by dead ones (on start too: a server
killed mid-grade loses nothing)."""
from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import TYPE_CHECKING, Callable

from ...problem import ProblemError, find_problem, load_problem, problem_folder
from ...problem.suite import with_suite
from . import jobs, reaper
from ..core.config import ServiceConfig
from .grading import grade_problem, ie_outcome
from .orphans import kill_group
from .drawing import Drawing
from .own_work import OwnWork, StartPhase
from .warming import Warming, most_used_first

if TYPE_CHECKING:
    from distributed import Client

    from ...sandbox.host import Pool

log = logging.getLogger("grader.service")

class _Redrawn(Exception):
    """A Submit's problem has its suite drawn again: the Submit waits in line for it."""



class Workers:
    def __init__(self, db, config: ServiceConfig) -> None:
        self.db, self.config = db, config
        self.instance = uuid.uuid4().hex[:16]
        self.ids = [f"{self.instance}-{i}" for i in range(config.workers)]
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._ready: set[str] = set()  # workers whose sandbox started (and warmed up)
        self._pool: Pool | None = None  # local workers' sandboxes
        self._sandboxes: list = []
        self._client: Client | None = None  # with --engine dask
        self.own = OwnWork(db, self.instance, config, self._stop, self.wake,
                           lambda: len(self._ready) >= len(self.ids))
        self.sandbox_info: dict | None = None  # layers seen by the latest grade
        self.reaped = (0, 0)
        self.on_change: Callable[..., None] = lambda sub_id=None: None  # a row changed status (None: any)

    # -------------------------------------------------------------- life cycle

    def start(self) -> None:
        reaper.register(self.db, self.instance, self.ids)
        if self.config.workers:
            self.own.register()
        self.reaped = self.reap()
        if self.config.workers == 0:
            return
        from ...problem import all_problem_ids
        from ...problem.catalogue import suite_in_use

        order = most_used_first(self.db, all_problem_ids())
        self.own.plan_drawing(suite_in_use(), order)
        if self.config.engine == "dask":
            from distributed import Client

            self._client = Client(self.config.scheduler, timeout="30s")
            grade = self._grade_dask
        else:
            from ...sandbox.host import Pool

            self._pool = Pool(self.config.workers)
            self._sandboxes = list(self._pool.sandboxes)
            grade = None
        self.own.start(order, local=grade is None)
        for wid in self.ids:
            t = threading.Thread(target=self._loop, args=(wid, grade), name=f"worker-{wid}", daemon=True)
            t.start()
            self._threads.append(t)
        beat = threading.Thread(target=self._heartbeat, name="heartbeat", daemon=True)
        beat.start()
        self._threads.append(beat)

    def stop(self, grace: float = 10.0) -> None:
        """Stop claiming and let current grades finish for ``grace`` seconds; then end
        the sandboxes still grading (zygote and child), whose rows go back to the queue
        uncounted. A row still held after that is requeued by the next start."""
        self._stop.set()
        self._wake.set()
        self.own.stop()
        deadline = time.monotonic() + grace
        for t in [*self._threads, *self.own.threads]:
            t.join(timeout=max(0.0, deadline - time.monotonic()))
        for sandbox in self._sandboxes:
            if sandbox.proc is not None:
                kill_group(sandbox.proc.pid)
        for t in [*self._threads, *self.own.threads]:
            t.join(timeout=5.0)
        if not any(t.is_alive() for t in [*self._threads, *self.own.threads]):
            try:
                reaper.unregister(self.db, self.instance)
            except Exception:  # the database went away first; the heartbeat goes stale instead
                log.exception("could not unregister the workers")
        if self._pool is not None:
            self._pool.close()
        if self._client is not None:
            self._client.close()

    def pending(self) -> dict[str, StartPhase]:
        """The problems not ready yet, each with its phase: ``suite`` while its hidden
        suite is being drawn, then the warming's."""
        return self.own.pending()

    def suite_failures(self) -> dict[str, str]:
        """The problems whose hidden suite this start could not draw (their Submits are IE),
        with why; empty without ``--suite``."""
        return self.own.suite_failures()

    def ready(self) -> bool:
        """Every suite drawn and every table readiness waits for built."""
        return self.config.workers == 0 or self.own.ready()

    @property
    def warming(self) -> Warming:
        return self.own.warming

    @property
    def drawing(self) -> Drawing | None:
        return self.own.drawing

    @drawing.setter
    def drawing(self, drawing: Drawing | None) -> None:
        self.own.drawing = drawing

    def wake(self) -> None:
        """A row was enqueued: idle workers claim now instead of at their next poll."""
        self._wake.set()

    def alive(self) -> int:
        """Workers ready to grade: thread running, sandbox started (the first one warmed up)."""
        return sum(1 for t in self._threads if t.is_alive() and t.name[len("worker-"):] in self._ready)

    # -------------------------------------------------------------- the threads

    def reap(self) -> tuple[int, int]:
        c = self.config

        def failed(row) -> jobs.ClaimResult:
            return ie_outcome(row.problem, row.kind, row.id,
                              f"grading did not finish in {row.attempts} attempt(s) (the worker grading it died, or "
                              f"could not record the result, each time); this is not the submission's fault")

        requeued, dead, zygotes = reaper.reap(self.db, self.instance, c.stale_seconds, c.max_attempts, failed,
                                            c.quotas)
        orphans = sum(kill_group(pgid) for pgid in zygotes)
        if requeued or dead or orphans:
            log.warning("requeued %d submission(s) left running by a dead worker; %d failed as IE; "
                        "%d orphaned sandbox process(es) ended", requeued, dead, orphans)
            self.wake()
            self.on_change()
        return requeued, dead

    def _heartbeat(self) -> None:
        ticks = 0
        while not self._stop.wait(self.config.heartbeat_seconds):
            try:
                reaper.beat(self.db, self.instance)
                ticks += 1
                if ticks % 3 == 0:
                    self.reap()
            except Exception:
                log.exception("heartbeat failed")

    def _warm_up(self, sandbox) -> None:
        """Grade one problem's reference on one public case: the zygote is then warm and
        the sandbox layers this machine offers are known before the first learner."""
        from ...judge.request import make_request
        from ...judge.submission import parse_source
        from ...problem import all_problem_ids

        for pid in all_problem_ids():
            try:
                problem = find_problem(pid)
                case = problem.public_cases()[:1]
                if not case:
                    continue
                src = problem.reference_path.read_text(encoding="utf-8")
                run = sandbox.run(make_request(parse_source(src, "reference.py"), problem, case))
                if run.judge_error is None:
                    self.sandbox_info = {"layers": run.layers, "unavailable": run.unavailable}
                return
            except (ProblemError, OSError):
                continue

    def _loop(self, wid: str, grade: Callable | None) -> None:
        sandbox = None
        if grade is None:
            assert self._pool is not None  # no grade function: the local engine, whose pool start() made
            sandbox = self._pool.take()  # this worker's for as long as it runs
            try:
                proc = sandbox.start()
                reaper.set_zygote(self.db, wid, proc.pid)
                if self.config.warm_up and wid == self.ids[0]:
                    self._warm_up(sandbox)
            except Exception:
                log.exception("worker %s: the sandbox did not start; it will retry at its first job", wid)
            else:
                self._ready.add(wid)
        else:
            self._ready.add(wid)
        try:
            while not self._stop.is_set():
                try:
                    waiting = self.drawing.pending() if self.drawing is not None else ()
                    job = jobs.claim(self.db, wid, self.config.max_attempts, skip=waiting)
                except Exception:
                    log.exception("worker %s: claim failed", wid)
                    job = None
                if job is None:
                    self._wake.wait(self.config.poll_seconds)
                    self._wake.clear()
                    continue
                self.on_change(job.id)
                if self.drawing is not None:
                    self.drawing.grades += 1  # a draw failing from now on may have been starved by it
                zygote = sandbox.proc.pid if sandbox is not None and sandbox.proc is not None else None
                try:
                    with self.warming.grading():
                        self._run(wid, job, grade, sandbox)
                except Exception as exc:  # e.g. the database refused the result: an attempt all the same
                    log.exception("worker %s: could not record %s (attempt %d of %d)", wid, job.id, job.attempts,
                                  self.config.max_attempts)
                    self._give_up_or_release(job, wid, exc)
                self.on_change(job.id)
                self._ready.add(wid)
                if sandbox is not None and sandbox.proc is not None and sandbox.proc.pid != zygote:
                    reaper.set_zygote(self.db, wid, sandbox.proc.pid)  # the sandbox restarted its zygote
        finally:
            if sandbox is not None and self._pool is not None:
                self._pool.give(sandbox)

    def _give_up_or_release(self, job: jobs.Claim, wid: str, exc: Exception) -> None:
        """A claimed row that could not be finished used an attempt, whatever raised: past
        the last one it is IE with the reason (the learner is not charged); before it, it
        goes back to its place in line. Should even the IE not be written, the row is
        released with its attempts used, and no claim takes it again: the reaper finishes it."""
        if job.attempts >= self.config.max_attempts:
            why = (f"the judge could not record its result after {job.attempts} attempt(s) "
                   f"({type(exc).__name__}); this is not the submission's fault")
            try:
                if jobs.finish(self.db, job, wid, ie_outcome(job.problem, job.kind, job.id, why), self.config.quotas):
                    return
            except Exception:
                log.exception("worker %s: could not record %s as IE either", wid, job.id)
        for _ in range(30):
            try:
                return jobs.release(self.db, job, wid)
            except Exception:
                if self._stop.wait(2.0):
                    return

    def _run(self, wid: str, job: jobs.Claim, grade: Callable | None, sandbox) -> None:
        c = self.config
        try:
            problem = self._problem_for(job)
        except _Redrawn:
            jobs.release(self.db, job, wid, uncount=True)  # back in line, claimed once its suite is drawn
            return
        except (ProblemError, OSError) as exc:
            outcome = ie_outcome(job.problem, job.kind, job.id, f"the problem cannot be loaded: {exc}")
        else:
            try:
                if grade is None:
                    # A grade's checks never depend on what happened to be cached: the
                    # problem's probe table is built before it is graded, not during.
                    self.warming.ensure(problem.id, sandbox)
                    outcome = grade_problem(problem, job.kind, job.source, job.id, sandbox, c.feedback,
                                            c.strict_sandbox, job.custom_input)
                else:
                    outcome = grade(problem, job)
            except Exception as exc:  # the judge's own bug: the learner gets IE, the log the trace
                log.exception("grading %s failed", job.id)
                outcome = ie_outcome(job.problem, job.kind, job.id, f"the judge failed ({type(exc).__name__})")
        if outcome.verdict == "IE" and self._stop.is_set():
            jobs.release(self.db, job, wid, uncount=True)  # ended by the shutdown, not the submission's doing
            return
        if outcome.verdict == "IE" and job.attempts < c.max_attempts:
            jobs.release(self.db, job, wid)  # maybe transient (a zygote died): try again, in line
            return
        sandbox = outcome.report.get("sandbox") or None
        if sandbox and sandbox.get("layers"):
            self.sandbox_info = sandbox
        if not jobs.finish(self.db, job, wid, outcome, c.quotas, sandbox):
            log.warning("worker %s lost its claim on %s; its result was discarded", wid, job.id)

    def _problem_for(self, job: jobs.Claim):
        """The problem ``job`` is graded on. A Run (or a custom run) of a problem whose suite
        is still being drawn, or could not be, grades the public cases, which are every
        suite's: with no hidden case at all, so nothing shipped as hidden is graded or shown.
        A suite refused since it was drawn (changed on disk) is drawn again: its Submit
        waits for it (``_Redrawn``), its Runs grade the public cases meanwhile."""
        drawing = self.drawing
        if drawing is None:
            return find_problem(job.problem)

        def public_only():
            return with_suite(load_problem(problem_folder(job.problem)), [], drawing.secret.id)

        if job.kind != "submit" and drawing.undrawn(job.problem):
            return public_only()
        try:
            return find_problem(job.problem)
        except ProblemError:
            if not drawing.refused_since_drawn(job.problem):
                raise
            drawing.redraw(job.problem)
            if job.kind == "submit":
                raise _Redrawn() from None
            return public_only()

    def _grade_dask(self, problem, job: jobs.Claim) -> jobs.ClaimResult:
        from .remote import grade_remote

        c = self.config
        assert self._client is not None  # the Dask engine: start() connected it
        future = self._client.submit(grade_remote, problem, job.kind, job.source, job.id, c.feedback,
                                     c.strict_sandbox, job.custom_input,
                                     pure=False, retries=1, key=f"grade-{job.id}-{job.attempts}")
        return future.result()
