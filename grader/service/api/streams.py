"""`GET /submissions/{id}/events`: follow one submission as server-sent events.

A stream does no database work of its own once open: the server's one watcher
(``.changes.Changes``) looks at every watched submission at once and wakes the
streams whose state changed. Open streams are capped per account
(``streams_per_learner``, 429) and in all (``streams_total``, 503), counted from the
answer until the stream ends or its client goes away."""
from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator

import anyio
from fastapi import APIRouter, HTTPException
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, StreamingResponse
from sqlalchemy import select

from ..domain.accounts import Principal
from ..domain.trust import submission_seen_by
from ..core.models import Submission
from .changes import Full, Slot
from .deps import AppContext, ContextDep, CurrentUser
from .schemas import errors

router = APIRouter(tags=["submissions"])
EVENT_SECONDS = 600.0  # one event stream's life; a client reconnects (or polls) after it
RETRY_AFTER_SECONDS = 5


def _check(c: AppContext, who: Principal, sub_id: str) -> None:
    """404 for a submission that does not exist or that ``who`` may not see (someone
    else's; for an instructor, someone's outside the courses they teach)."""
    with c.db.read() as s:
        owner = s.scalar(select(Submission.user_id).where(Submission.id == sub_id, submission_seen_by(who)))
    if owner is None:
        raise HTTPException(404, "no such submission")


class EventStream(StreamingResponse):
    """Gives its slot back however the stream ends: done, timed out, or its client gone
    (a disconnect is noticed at once, also while nothing is being sent)."""

    def __init__(self, content: AsyncGenerator[str, None], slot: Slot) -> None:
        super().__init__(content, media_type="text/event-stream",
                         headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.slot, self.events = slot, content

    async def __call__(self, scope, receive, send) -> None:
        try:
            async with anyio.create_task_group() as group:
                async def stream() -> None:
                    try:
                        await self.stream_response(send)
                    except OSError:  # the client went away in the middle of a send
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        finally:
            self.slot.release()
            with anyio.CancelScope(shield=True):
                await self.events.aclose()  # its watch ends now, not when collected


def _event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


async def _follow(c: AppContext, sub_id: str):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + EVENT_SECONDS
    yield "retry: 1000\n\n"
    last = None
    with c.changes.watch(sub_id) as w:
        while True:
            w.changed.clear()
            state = w.state
            if state is not None and state != last:
                done = state["status"] == "done"
                yield _event("done" if done else "status", state)
                if done:
                    return
                last = state
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            try:
                await asyncio.wait_for(w.changed.wait(), remaining)
            except asyncio.TimeoutError:
                pass
    yield "event: timeout\ndata: {}\n\n"


@router.get("/submissions/{sub_id}/events", responses={200: {"content": {"text/event-stream": {}}},
                                                       **errors(401, 404, 429, 503)})
async def events(sub_id: str, who: CurrentUser, c: ContextDep):
    """``status`` events while the submission waits or runs, then one ``done`` event
    with the verdict; the report itself is read with GET. Polling always works too.
    At most ``--max-streams-per-learner`` streams per account (429) and ``--max-streams``
    in all (503) are open at once."""
    await run_in_threadpool(_check, c, who, sub_id)  # 404 before the stream starts
    got = c.changes.slots.take(who.user_id, c.config.streams_per_learner, c.config.streams_total)
    if isinstance(got, Full):
        return JSONResponse({"detail": got.message}, status_code=got.status,
                            headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    return EventStream(_follow(c, sub_id), got)
