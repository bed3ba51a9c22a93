"""Wakes event streams when a worker of this server claims, finishes or releases a
row, so that `/events` answers at once instead of at its next look at the database.
Rows changed by another server's workers are seen at that next look (within a second)."""
from __future__ import annotations

import asyncio


class Changes:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.waiters: dict[str, set[asyncio.Event]] = {}

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def notify(self, sub_id: str | None = None) -> None:
        """From any thread: ``sub_id`` changed (None: any may have, e.g. a rejudge)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake, sub_id)

    def _wake(self, sub_id: str | None) -> None:
        groups = self.waiters.values() if sub_id is None else [self.waiters.get(sub_id, ())]
        for group in groups:
            for event in group:
                event.set()

    def listen(self, sub_id: str) -> asyncio.Event:
        """Register before reading the database, so a change in between is not missed."""
        event = asyncio.Event()
        self.waiters.setdefault(sub_id, set()).add(event)
        return event

    def forget(self, sub_id: str, event: asyncio.Event) -> None:
        group = self.waiters.get(sub_id)
        if group is not None:
            group.discard(event)
            if not group:
                del self.waiters[sub_id]

    async def wait(self, sub_id: str, event: asyncio.Event, timeout: float) -> None:
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        finally:
            self.forget(sub_id, event)
