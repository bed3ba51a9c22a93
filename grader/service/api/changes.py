"""The one watcher behind every `/events` stream of this server, and the count of
the streams open.

Streams do no database work of their own. Each one registers the submission it
follows (``watch``); the watcher, a single asyncio task started with the
application, reads the status columns of every watched submission in one query
about once a second (never the source or the reports), and the queue positions of
the watched queued ones in one more, then wakes the streams whose state changed.
It looks at once, instead of at the next second, when this server's workers claim,
finish or release a row (``notify``, the workers' ``on_change``) and, on
PostgreSQL, when another server's workers do: ``notify`` also sends
``NOTIFY jaxjudge_submissions, '<id>'`` through the watcher's own connection, and
the watcher ``LISTEN``s on that channel through another. Nothing watched: no query.
"""
from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from sqlalchemy import func, select

from ..core.models import Submission

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger("grader.service.events")

CHANNEL = "jaxjudge_submissions"
TICK_SECONDS = 1.0  # the look at the database when nothing said a row changed
MIN_GAP_SECONDS = 0.02  # a burst of changes is one look
RECONNECT_SECONDS = 2.0
CHUNK = 5000  # ids per IN (...): one query unless a server is set to hold more streams than this


class Watch:
    """One stream's registration: ``state`` is the newest known (None until the first
    look), ``changed`` is set whenever it changes."""

    def __init__(self) -> None:
        self.state: dict | None = None
        self.changed = asyncio.Event()


class Changes:
    def __init__(self, db) -> None:
        self.db = db
        self.loop: asyncio.AbstractEventLoop | None = None
        self.watches: dict[str, set[Watch]] = {}
        self.states: dict[str, dict] = {}
        self.slots = Slots()
        self._kick: asyncio.Event | None = None
        self._due = False  # a look at the database is wanted before the next tick
        self._outbox: set[str] = set()  # payloads to NOTIFY ('' for "any row")
        self._tasks: list[asyncio.Task] = []
        self._sender: psycopg.AsyncConnection | None = None  # PostgreSQL: the watcher's connection for NOTIFY
        self._sender_pid: int | None = None
        self.polls = 0  # looks at the database, for tests and benches

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._kick = asyncio.Event()
        self._tasks.append(asyncio.create_task(self._run(), name="events-watcher"))
        if self.db.dialect == "postgresql":
            self._tasks.append(asyncio.create_task(self._listen(), name="events-listener"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        await self._close_sender()
        self.loop = None

    # ------------------------------------------------------------------ signals
    def notify(self, sub_id: str | None = None) -> None:
        """From any thread: ``sub_id`` changed (None: any may have, e.g. a rejudge)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._changed, sub_id, True)
            except RuntimeError:  # the loop closed in between
                pass

    def _changed(self, sub_id: str | None, local: bool) -> None:
        if local and self.db.dialect == "postgresql":
            self._outbox.add(sub_id or "")
            self._wake(look=False)
        if sub_id is None or sub_id in self.watches or self._any_queued():
            self._wake()  # a row claimed anywhere moves every watched queued one up

    def _any_queued(self) -> bool:
        return any(self.states.get(k, {}).get("status") == "queued" for k in self.watches)

    def _wake(self, look: bool = True) -> None:
        self._due = self._due or look
        if self._kick is not None:
            self._kick.set()

    @contextmanager
    def watch(self, sub_id: str) -> Iterator[Watch]:
        """Follow ``sub_id`` for the length of the ``with``; the first look is at once."""
        w = Watch()
        group = self.watches.setdefault(sub_id, set())
        group.add(w)
        if sub_id in self.states:
            w.state = self.states[sub_id]
        else:
            self._wake()
        try:
            yield w
        finally:
            group.discard(w)
            if not group and self.watches.get(sub_id) is group:
                del self.watches[sub_id]
                self.states.pop(sub_id, None)

    # ------------------------------------------------------------------ the loop
    async def _run(self) -> None:
        kick = self._kick
        assert kick is not None  # start() made it before starting this task
        while True:
            try:
                await asyncio.wait_for(kick.wait(), TICK_SECONDS if self.watches else None)
            except asyncio.TimeoutError:
                self._due = True
            kick.clear()
            try:
                if self._outbox:
                    await self._send()
                if self._due and self.watches:
                    self._due = False
                    ids = list(self.watches)
                    self._publish(await asyncio.to_thread(self._look, ids))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the event streams' look at the database failed; trying again in a second")
                await asyncio.sleep(TICK_SECONDS)
            await asyncio.sleep(MIN_GAP_SECONDS)

    def _look(self, ids: list[str]) -> dict[str, dict]:
        """Every watched row's status columns, and the watched queued rows' positions
        (1 for the next to be claimed), in one read transaction."""
        found: dict[str, dict] = {}
        with self.db.read() as s:
            for i in range(0, len(ids), CHUNK):
                chunk = ids[i:i + CHUNK]
                rows = s.execute(select(Submission.id, Submission.status, Submission.verdict, Submission.passed,
                                        Submission.total).where(Submission.id.in_(chunk)))
                for r in rows:
                    found[r.id] = {"id": r.id, "status": r.status, "verdict": r.verdict, "position": None,
                                   "passed": r.passed, "total": r.total}
            queued = [k for k, v in found.items() if v["status"] == "queued"]
            if queued:
                order = func.row_number().over(order_by=(Submission.priority, Submission.queued_at, Submission.pk))
                ranked = select(Submission.id, order.label("position")).where(
                    Submission.status == "queued").subquery()
                placed: dict[str, int] = {}
                for i in range(0, len(queued), CHUNK):
                    placed.update(s.execute(select(ranked.c.id, ranked.c.position)
                                            .where(ranked.c.id.in_(queued[i:i + CHUNK]))).tuples().all())
                for k in queued:
                    if k in placed:
                        found[k]["position"] = int(placed[k])
                    else:  # claimed between the two reads (PostgreSQL): seen at the next look
                        del found[k]
        self.polls += 1
        return found

    def _publish(self, found: dict[str, dict]) -> None:
        for sub_id, state in found.items():
            group = self.watches.get(sub_id)
            if group is None or self.states.get(sub_id) == state:
                continue
            self.states[sub_id] = state
            for w in group:
                w.state = state
                w.changed.set()

    # ------------------------------------------------------------------ PostgreSQL
    def _conninfo(self) -> str:
        return self.db.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

    async def _send(self) -> None:
        import psycopg

        payloads, self._outbox = sorted(self._outbox), set()
        try:
            sender = self._sender
            if sender is None or sender.closed:
                sender = self._sender = await psycopg.AsyncConnection.connect(self._conninfo(), autocommit=True)
                self._sender_pid = sender.info.backend_pid
            for payload in payloads:
                await sender.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
        except psycopg.Error as exc:
            log.warning("could not NOTIFY %s (other servers see the change within a second): %s", CHANNEL, exc)
            await self._close_sender()

    async def _close_sender(self) -> None:
        if self._sender is not None:
            try:
                await self._sender.close()
            except Exception:
                pass
            self._sender = None

    async def _listen(self) -> None:
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self._conninfo(), autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self._wake()  # what changed while nobody listened is seen now
                    while True:
                        async for note in conn.notifies(timeout=30.0):
                            if note.pid != self._sender_pid:  # our own were seen already
                                self._changed(note.payload or None, False)
                        await conn.execute("SELECT 1")  # a connection that died silently says so here
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("LISTEN %s failed (changes are seen within a second meanwhile): %s", CHANNEL, exc)
            await asyncio.sleep(RECONNECT_SECONDS)


@dataclass(frozen=True)
class Full:
    """No slot: 429 (this learner's cap) or 503 (the server's)."""
    status: int
    message: str


class Slot:
    def __init__(self, slots: "Slots", user_id: int) -> None:
        self.slots, self.user_id, self.held = slots, user_id, True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.slots._give_back(self.user_id)


class Slots:
    """Open event streams, per learner and in all (only the event loop touches them)."""

    def __init__(self) -> None:
        self.per_user: defaultdict[int, int] = defaultdict(int)
        self.total = 0

    def take(self, user_id: int, per_learner: int, total: int) -> Slot | Full:
        if self.per_user.get(user_id, 0) >= per_learner:
            return Full(429, f"too many event streams open: at most {per_learner} per account; close one, "
                             "or poll GET /api/v1/submissions/ID")
        if self.total >= total:
            return Full(503, f"the server holds its maximum of {total} event streams; "
                             "poll GET /api/v1/submissions/ID, or retry later")
        self.per_user[user_id] += 1
        self.total += 1
        return Slot(self, user_id)

    def _give_back(self, user_id: int) -> None:
        self.total -= 1
        self.per_user[user_id] -= 1
        if self.per_user[user_id] <= 0:
            del self.per_user[user_id]

    def open(self, user_id: int | None = None) -> int:
        return self.total if user_id is None else self.per_user.get(user_id, 0)
