"""Workers as the database knows them (registered, beating, gone) and the reaper: rows a
dead worker held go back in line, or end as IE once they used every attempt. A worker is
dead when its heartbeat is stale or, on this host, its process is gone."""
from __future__ import annotations

import os
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.orm import undefer

from ..core.models import Submission, Worker, utcnow
from .jobs import HOST, finish_row


def register(db, instance: str, worker_ids: list[str], role: str = "grade") -> None:
    """``role``: ``grade`` for the workers that claim rows, ``warm`` or ``draw`` for the
    threads of the server's own work (never claiming, never holding a row)."""
    now = utcnow()
    with db.write() as s:
        for wid in worker_ids:
            s.add(Worker(id=wid, instance=instance, host=HOST, pid=os.getpid(), started_at=now, heartbeat_at=now,
                         graded=0, role=role))


def set_doing(db, worker_id: str, doing: str | None) -> None:
    """What a thread of the server's own work is building now (None: nothing)."""
    with db.write() as s:
        s.execute(update(Worker).where(Worker.id == worker_id).values(doing=doing and doing[:200]))


def set_zygote(db, worker_id: str, pid: int | None) -> None:
    with db.write() as s:
        s.execute(update(Worker).where(Worker.id == worker_id).values(zygote_pid=pid))


def beat(db, instance: str) -> None:
    with db.write() as s:
        s.execute(update(Worker).where(Worker.instance == instance).values(heartbeat_at=utcnow()))


def unregister(db, instance: str) -> None:
    with db.write() as s:
        s.execute(delete(Worker).where(Worker.instance == instance))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _dead(w: Worker, me: str, stale_before: datetime) -> bool:
    if w.instance == me:
        return False
    if w.heartbeat_at < stale_before:
        return True
    # On this host a vanished process is dead at once, not after the heartbeat goes
    # stale; so is one whose pid is now ours (a container restarted with the same pid).
    return w.host == HOST and (w.pid == os.getpid() or not _pid_alive(w.pid))


def reap(db, me: str, stale_seconds: float, max_attempts: int, ie_outcome, limits=None) -> tuple[int, int, list[int]]:
    """Requeue rows held by dead workers; after ``max_attempts`` claims a row is done
    as IE (``ie_outcome(row) -> ClaimResult``). Returns (requeued, failed, the process
    groups of the dead workers' sandboxes on this host)."""
    now = utcnow()
    requeued = failed = 0
    with db.write() as s:
        workers = s.scalars(select(Worker)).all()
        dead = {w.id for w in workers if _dead(w, me, now - timedelta(seconds=stale_seconds))}
        zygotes = [w.zygote_pid for w in workers if w.id in dead and w.host == HOST and w.zygote_pid]
        live = {w.id for w in workers} - dead
        held = s.scalars(select(Submission).where(Submission.status == "running")
                         .options(undefer(Submission.source))).all()
        for row in held:
            if row.claimed_by in live:
                continue
            if row.attempts >= max_attempts:
                finish_row(s, row, ie_outcome(row), now, limits)
                failed += 1
            else:
                row.status, row.claimed_by, row.started_at = "queued", None, None
                requeued += 1
        if dead:
            s.execute(delete(Worker).where(Worker.id.in_(dead)))
    return requeued, failed + fail_exhausted(db, max_attempts, ie_outcome, limits), zygotes


def fail_exhausted(db, max_attempts: int, ie_outcome, limits=None) -> int:
    """Queued rows that used every attempt (a worker that could not record them handed
    them back, or a server before this rule left them) are finished as IE: no claim picks
    them, and they must not wait for ever."""
    now = utcnow()
    with db.write() as s:
        rows = s.scalars(select(Submission).where(Submission.status == "queued",
                                                  Submission.attempts >= max_attempts)
                         .options(undefer(Submission.source))).all()
        for row in rows:
            finish_row(s, row, ie_outcome(row), now, limits)
    return len(rows)
