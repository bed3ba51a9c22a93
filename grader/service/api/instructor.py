"""Instructors: the gradebook, rejudging a problem after its cases change, and the
queue's state."""
from __future__ import annotations

import json
from typing import Literal

from fastapi import APIRouter, Depends, Path, Query, Response

from ...problem.catalogue import content_hash
from .. import jobs
from ..rejudge import requeue
from ..accounts import Principal
from ..gradebook import gradebook, to_csv
from .deps import Context, ctx, instructor, taught
from .problems import load
from .schemas import PROBLEM_ID, QueueOut, RejudgeOut, errors

router = APIRouter(tags=["instructors"])


@router.get("/gradebook", responses={200: {"content": {"text/csv": {}, "application/json": {}}},
                                     **errors(401, 403, 404, 422)})
def book(who: Principal = Depends(instructor), c: Context = Depends(ctx),
         problem: str | None = Query(None, max_length=64, pattern=PROBLEM_ID),
         course: str | None = Query(None, max_length=64, description="one course you teach (default: all of them)"),
         format: Literal["csv", "json"] = "json"):
    rows = gradebook(c.db, taught(c, who, course), problem)
    if format == "csv":
        return Response(to_csv(rows), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="gradebook.csv"'})
    return Response(json.dumps(rows), media_type="application/json")


@router.post("/problems/{problem_id}/rejudge", response_model=RejudgeOut, responses=errors(401, 403, 404, 422))
def rejudge(problem_id: str = Path(max_length=64), who: Principal = Depends(instructor), c: Context = Depends(ctx),
            all: bool = Query(False, description="also Submits already graded by the current version")):
    """Requeue the problem's graded Submits (of the learners of the courses you teach)
    whose verdict came from another version of the problem (its content hash), behind
    the learners' own work. Each keeps its previous verdict until the new one is written."""
    version = content_hash(load(problem_id))
    with c.db.write() as s:
        n = requeue(s, problem_id, version, who, all)
    c.workers.wake()
    c.changes.notify()
    return RejudgeOut(problem=problem_id, problem_version=version, requeued=n)


@router.get("/queue", response_model=QueueOut, responses=errors(401, 403))
def queue(who: Principal = Depends(instructor), c: Context = Depends(ctx)):
    with c.db.read() as s:
        return QueueOut(**jobs.stats(s, c.config.stale_seconds))
