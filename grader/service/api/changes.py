"""Wakes event streams when a worker of this server claims, finishes or releases a
row, so that `/events` answers at once instead of at its next look at the database.
Rows changed by another server's workers are seen at that next look (within a second)."""
from __future__ import annotations

import asyncio


class Changes:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.waiters: set[asyncio.Event] = set()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def notify(self) -> None:
        """From any thread."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        for event in self.waiters:
            event.set()

    def listen(self) -> asyncio.Event:
        """Register before reading the database, so a change in between is not missed."""
        event = asyncio.Event()
        self.waiters.add(event)
        return event

    async def wait(self, event: asyncio.Event, timeout: float) -> None:
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        finally:
            self.waiters.discard(event)
