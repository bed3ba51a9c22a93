"""The server's own work, which yields to every grade: the hidden suites still to draw
(``drawing``, with ``--suite``), then every problem's warming (``warming``) by the
warmers, threads with sandboxes of their own. The database knows them as workers of
their own roles (``warm``, ``draw``), so that the queue shows what they are doing and the
reaper ends their sandboxes should the server die."""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Callable, Literal

from . import reaper
from ..core.config import ServiceConfig
from .drawing import Drawing
from .warming import Phase, Warmer, Warming, in_use

log = logging.getLogger("grader.service")

RECORD_EVERY = 0.5  # s: how stale the queue's word on the server's own work may be

# What a problem not ready yet waits for: its drawn suite, then the warming's phases.
StartPhase = Literal["suite"] | Phase


class OwnWork:
    """``stop``: set when the server stops; ``wake``: the workers claim now; ``graders_ready``:
    every worker's sandbox has started (the warmers start theirs after)."""

    def __init__(self, db, instance: str, config: ServiceConfig, stop: threading.Event, wake: Callable[[], None],
                 graders_ready: Callable[[], bool]) -> None:
        self.db, self.config, self.instance = db, config, instance
        self._stop, self._wake, self._graders_ready = stop, wake, graders_ready
        self.threads: list[threading.Thread] = []
        self._said: dict[str, str | None] = {}  # what each warmer and the drawer do now (``_doing``)
        self._said_lock = threading.Lock()
        self._said_changed = threading.Event()
        # As many warmers as workers (they yield to every grade), one drawer.
        self.warmer_ids = [f"{instance}-warm{i}" for i in range(config.workers)]
        self.drawer_id = f"{instance}-draw"
        self.warming = Warming([])  # planned once every draw has ended (see ``start``)
        self.drawing: Drawing | None = None  # with --suite: the suites still to draw
        self._drawn = threading.Event()  # every draw ended and the warming it waited for is planned

    def register(self) -> None:
        reaper.register(self.db, self.instance, self.warmer_ids, role="warm")
        reaper.register(self.db, self.instance, [self.drawer_id], role="draw")

    def plan_drawing(self, folder: Path | None, order: list[str]) -> None:
        if folder is not None:
            # At most four problems at once, each with a mutation worker (a JAX process) of its own.
            self.drawing = Drawing(folder, order, jobs=min(self.config.workers, 4),
                                   sandboxes=min(self.config.workers, 64))

    def start(self, order: list[str], local: bool) -> None:
        """Draw, then warm (with ``local`` sandboxes); ``threads`` are those started (the
        warmers' are added once they start)."""
        draws = threading.Thread(target=self._draw_then_plan_warming, args=(order, local), name="drawing",
                                 daemon=True)
        draws.start()
        self.threads.append(draws)
        # Not joined at the stop: the rows it writes are the instance's, which the stop deletes.
        threading.Thread(target=self._record, name="own-work-record", daemon=True).start()

    def stop(self) -> None:
        """End the draw and the warming steps in progress: redone at the next start."""
        if self.drawing is not None:
            self.drawing.cancel()
        self.warming.stop_all(close=True)

    def _draw_then_plan_warming(self, order: list[str], local: bool) -> None:
        """The suites still to draw, then the warming of every problem (its tables are
        built from the hidden cases it grades with, so after its draw) by the warmers."""
        try:
            if self.drawing is not None:
                self.drawing.on_progress = lambda: self._doing(self.drawer_id, self.drawing_now())
                self.drawing.on_progress()
                self.drawing.run()
                self._doing(self.drawer_id, None)
                self._wake()  # the submissions that waited for a draw are claimable now
            if local and self.config.warm_idle and not self._stop.is_set():
                self.warming = Warming(order, in_use=lambda: in_use(self.db, order))
                for wid in self.warmer_ids:
                    t = threading.Thread(target=self._warm, args=(wid,), name=f"warmer-{wid}", daemon=True)
                    t.start()
                    self.threads.append(t)
        except Exception:
            log.exception("drawing the suites or planning the warming failed")
        finally:
            self._drawn.set()

    def drawing_now(self) -> str | None:
        """What the draw is doing, in words (None once it ended)."""
        left = self.drawing.pending() if self.drawing is not None else []
        if not left:
            return None
        return f"drawing the hidden suites of {len(left)} problem(s), next {', '.join(left[:2])}"

    def _doing(self, wid: str, what: str | None) -> None:
        """What ``wid`` does now, recorded by ``_record`` within ``RECORD_EVERY`` seconds: a
        step taken from the shipped tables lasts milliseconds, and two database writes
        each would take longer than the step."""
        with self._said_lock:
            self._said[wid] = what
        self._said_changed.set()

    def _record(self) -> None:
        recorded: dict[str, str | None] = {}
        while not self._stop.is_set():
            self._said_changed.wait(1.0)
            self._said_changed.clear()
            with self._said_lock:
                now = dict(self._said)
            for wid, what in now.items():
                if recorded.get(wid, "") != what:
                    try:
                        reaper.set_doing(self.db, wid, what)
                        recorded[wid] = what
                    except Exception:  # what the queue page shows is not worth a warmer's life
                        log.exception("could not record what %s is doing", wid)
            self._stop.wait(RECORD_EVERY)

    def _warm(self, wid: str) -> None:
        """A warmer: builds the next step whenever no grade runs, with a sandbox no grade
        uses, until every problem is warm (then its sandbox is closed: memory back)."""
        from ...sandbox.host import Sandbox

        # The workers' sandboxes start first: a warmer's zygote starting beside them would
        # put off the moment the server is healthy.
        started = time.monotonic()  # a sandbox that fails to start is not waited for past two minutes
        while not self._graders_ready() and time.monotonic() - started < 120 and not self._stop.wait(0.2):
            pass
        warmer = Warmer(Sandbox(), doing=lambda what: self._doing(wid, what))
        zygote = None
        try:
            while not self._stop.is_set() and not self.warming.finished():
                built = self.warming.warm_next(warmer)
                proc = warmer.sandbox.proc
                if proc is not None and proc.pid != zygote:
                    zygote = proc.pid
                    reaper.set_zygote(self.db, wid, zygote)  # the reaper ends it should the server die
                if not built:
                    self._stop.wait(0.2)
        except Exception:
            log.exception("warmer %s failed", wid)
        finally:
            warmer.sandbox.close()

    def pending(self) -> dict[str, StartPhase]:
        """The problems not ready yet, each with its phase: ``suite`` while its hidden
        suite is being drawn, then the warming's."""
        out: dict[str, StartPhase] = dict.fromkeys(self.drawing.pending() if self.drawing else [], "suite")
        for pid, phase in self.warming.pending().items():
            out.setdefault(pid, phase)
        return out

    def suite_failures(self) -> dict[str, str]:
        return self.drawing.failures() if self.drawing is not None else {}

    def ready(self) -> bool:
        """Every suite drawn and every table readiness waits for built."""
        return self._drawn.is_set() and self.warming.ready()
