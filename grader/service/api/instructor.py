"""Instructors: the gradebook (a course's assignments' scores, and the practice view),
rejudging a problem after its cases change, and the queue's state."""
from __future__ import annotations

import json
from datetime import datetime
from typing import Literal

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field

from ...problem.catalogue import content_hash
from ..queue import views
from ..queue.rejudge import grading_suite, requeue
from ..domain.gradebook import course_book, gradebook, to_csv
from .assignments import CellOut, ProblemWeight, ScoreRow
from .deps import ContextDep, CurrentInstructor, taught
from .problems import load
from .schemas import PROBLEM_ID, QueueOut, RejudgeOut, errors

router = APIRouter(tags=["instructors"])


class AssignmentScoresOut(BaseModel):
    assignment: str = Field(description="its slug")
    title: str
    due_at: datetime
    problems: list[ProblemWeight]
    points_possible: float
    rows: list[ScoreRow] = Field(description="every learner of the course, as the assignment's scores give them")


@router.get("/courses/{slug}/gradebook", response_model=list[AssignmentScoresOut], responses=errors(401, 403, 404))
def course_gradebook(who: CurrentInstructor, c: ContextDep, slug: str = Path(max_length=64)):
    """A course's gradebook: each of its assignments (by due time) with every learner's
    score per problem and points, the same figures as ``/courses/{slug}/assignments/{a}/scores``."""
    from ..domain.courses import course_for

    with c.db.read() as s:
        try:
            books = course_book(s, course_for(s, who, slug, teach=True))
        except LookupError:
            raise HTTPException(404, "no such course (or you do not teach it)") from None
        return [AssignmentScoresOut(
            assignment=b.assignment.slug, title=b.assignment.title, due_at=b.assignment.due_at,
            problems=[ProblemWeight(problem=p.problem, weight=p.weight) for p in b.problems],
            points_possible=b.possible,
            rows=[ScoreRow(learner=r.email, points=r.points, extended=r.extended,
                           cells={pid: CellOut(score=x.score, late=x.late, verdict=x.verdict, submission=x.sub_id,
                                               submits=x.submits) for pid, x in r.cells.items()})
                  for r in b.rows]) for b in books]


@router.get("/gradebook", responses={200: {"content": {"text/csv": {}, "application/json": {}}},
                                     **errors(401, 403, 404, 422)})
def book(who: CurrentInstructor, c: ContextDep, problem: str | None = Query(None, max_length=64, pattern=PROBLEM_ID),
         course: str | None = Query(None, max_length=64, description="one course you teach (default: all of them)"),
         format: Literal["csv", "json"] = "json"):
    """The practice view: per learner and problem, the best and the last Submit, for an
    assignment or not. A course's assignments' scores: ``/courses/{slug}/gradebook``."""
    rows = gradebook(c.db, who, taught(c, who, course), problem)
    if format == "csv":
        return Response(to_csv(rows), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="gradebook.csv"'})
    return Response(json.dumps(rows), media_type="application/json")


@router.post("/problems/{problem_id}/rejudge", response_model=RejudgeOut, responses=errors(401, 403, 404, 422))
def rejudge(who: CurrentInstructor, c: ContextDep, problem_id: str = Path(max_length=64),
            all: bool = Query(False, description="also Submits already graded by the current version")):
    """Requeue the problem's graded Submits (of the learners of the courses you teach)
    whose verdict came from another version of the problem (its content hash), behind
    the learners' own work. Each keeps its previous verdict until the new one is written."""
    version = content_hash(load(problem_id))
    with c.db.write() as s:
        n = requeue(s, problem_id, version, who, all)
    c.workers.wake()
    c.changes.notify()
    return RejudgeOut(problem=problem_id, problem_version=version, requeued=n, suite=grading_suite())


@router.get("/queue", response_model=QueueOut, responses=errors(401, 403))
def queue(who: CurrentInstructor, c: ContextDep):
    with c.db.read() as s:
        stats = views.stats(s, c.config.stale_seconds)
    return QueueOut(**stats, suite=grading_suite(), suite_failed=c.workers.suite_failures())
