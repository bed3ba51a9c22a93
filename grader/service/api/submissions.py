"""Submissions: enqueue (202 + Location), read (status apart from verdict, queue
position and age, the report in any of the judge's formats), list, and follow as
server-sent events. A learner reads only their own: anyone else's is 404, the same
answer as for an id that does not exist."""
from __future__ import annotations

import json
from typing import Literal

from fastapi import APIRouter, Header, HTTPException, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import select
from sqlalchemy.orm import undefer

from ...problem import ProblemError, all_problem_ids, load_problem, problem_folder
from ...problem.inputs import InputError, check_input
from ..queue import views
from ..domain.accounts import Principal
from ..queue.admission import Refused, admit
from ..domain.assignments import credited
from ..domain.trust import submission_seen_by
from ..core.config import MAX_INPUT_BYTES, MAX_SOURCE_BYTES
from ..queue.grading import FORMAT_TYPES, render
from ..core.models import DETAIL_COLUMNS, REPORT_COLUMNS, Submission, User, utcnow
from .deps import AppContext, ContextDep, CurrentUser
from .schemas import (
    PROBLEM_ID,
    SUBMISSION_ID,
    CreditOut,
    QueueInfo,
    SourceOut,
    SubmissionCreated,
    SubmissionIn,
    SubmissionOut,
    SubmissionRow,
    errors,
)

router = APIRouter(tags=["submissions"])


def refusal(exc: Refused) -> JSONResponse:
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return JSONResponse({"detail": exc.message}, status_code=exc.status, headers=headers)


@router.post("/submissions", status_code=202, response_model=SubmissionCreated,
             responses={200: {"description": "an earlier request with the same Idempotency-Key",
                              "model": SubmissionCreated}, **errors(400, 401, 403, 413, 422, 429, 503)})
def create(body: SubmissionIn, request: Request, who: CurrentUser, c: ContextDep,
           idempotency_key: str | None = Header(None, max_length=100)):
    if len(body.source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        raise HTTPException(413, f"source: larger than {MAX_SOURCE_BYTES // 1024} KiB")
    if body.problem not in all_problem_ids():
        raise HTTPException(422, f"problem: no such problem {body.problem!r}")
    custom_input(body)
    if body.assignment is not None and body.kind != "submit":
        raise HTTPException(422, f"assignment: only a Submit is made for an assignment, not a {body.kind}")
    try:
        body.source.encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPException(422, "source: not valid UTF-8 text (lone surrogates)") from None
    # An empty key (a client that sends the header whatever it holds) is no key: taken as
    # one, every such request after the first would get the first one's submission back.
    key = (idempotency_key or "").strip() or None
    try:
        got = admit(c.db, who, body.problem, body.kind, body.source, key, c.config.quotas, c.config.workers,
                    body.input, body.assignment)
    except Refused as exc:
        return refusal(exc)
    if got.created:
        c.workers.wake()
    location = str(request.url_for("read", sub_id=got.submission.id).path)
    out = SubmissionCreated(id=got.submission.id, status=got.submission.status, location=location)
    return JSONResponse(out.model_dump(), status_code=202 if got.created else 200, headers={"Location": location})


def custom_input(body: SubmissionIn) -> None:
    """A custom run's input, refused here (422 naming every field and the rule each
    breaks) before it takes a place in line; the other kinds take none."""
    if body.kind != "custom":
        if body.input is not None:
            raise HTTPException(422, f"input: only a custom run takes an input, not a {body.kind}")
        return
    if body.input is None:
        raise HTTPException(422, "input: a custom run needs the input to run on")
    if len(json.dumps(body.input)) > MAX_INPUT_BYTES:
        raise HTTPException(413, f"input: larger than {MAX_INPUT_BYTES // 1024} KiB")
    try:
        check_input(load_problem(problem_folder(body.problem), with_cases=False).meta, body.input)
    except InputError as exc:
        raise HTTPException(422, str(exc)) from None
    except ProblemError:
        raise HTTPException(422, f"problem: {body.problem!r} cannot be loaded now") from None


def _load(c: AppContext, who: Principal, sub_id: str) -> tuple[Submission, str, int | None, list[CreditOut]]:
    with c.db.read() as s:
        row = s.execute(select(Submission, User.email).join(User, User.id == Submission.user_id)
                        .where(Submission.id == sub_id, submission_seen_by(who))
                        .options(*REPORT_COLUMNS)).first()
        if row is None:
            raise HTTPException(404, "no such submission")
        counts = [CreditOut(course=course, assignment=slug, title=title, late=late)
                  for course, slug, title, late in credited(s, row[0].pk)]
        return row[0], row[1], views.position(s, row[0]), counts


def _view(sub: Submission, email: str, pos: int | None, who: Principal, full: bool,
          counts: list[CreditOut]) -> SubmissionOut:
    report = sub.view(full)
    queue = QueueInfo(position=pos, age_seconds=round((utcnow() - sub.queued_at).total_seconds(), 3)) \
        if sub.status == "queued" else None
    return SubmissionOut(id=sub.id, problem=sub.problem, kind=sub.kind, status=sub.status, verdict=sub.verdict,
                         passed=sub.passed, total=sub.total, attempts=sub.attempts,
                         user=email if who.instructor else None, created_at=sub.created_at,
                         started_at=sub.started_at, finished_at=sub.finished_at, queue=queue,
                         problem_version=sub.problem_version, judge_version=sub.judge_version, report=report,
                         counts_for=counts)


@router.get("/submissions/{sub_id}", response_model=SubmissionOut,
            responses={200: {"content": {"text/plain": {}, "text/markdown": {}, "application/xml": {}}},
                       **errors(401, 404, 409, 422)})
def read(who: CurrentUser, c: ContextDep, sub_id: str = Path(pattern=SUBMISSION_ID),
         format: Literal["json", "junit", "gradescope", "markdown", "text"] | None = None,
         view: Literal["full", "learner"] = Query("full", description="instructors: 'learner' shows what the "
                                                                       "learner sees")):
    sub, email, pos, counts = _load(c, who, sub_id)
    full = who.instructor and view == "full"
    if format is None:
        return _view(sub, email, pos, who, full, counts)
    report = sub.view(full)
    if report is None:
        return JSONResponse({"detail": f"not graded yet (status {sub.status})", "status": sub.status},
                            status_code=409, headers={"Retry-After": "1"})
    return Response(render(report, format), media_type=FORMAT_TYPES[format])


@router.get("/submissions/{sub_id}/source", response_model=SourceOut, responses=errors(401, 404, 422))
def source(who: CurrentUser, c: ContextDep, sub_id: str = Path(pattern=SUBMISSION_ID)):
    """The code of a submission (and a custom run's input), to load it back into an editor."""
    with c.db.read() as s:
        sub = s.scalar(select(Submission).where(Submission.id == sub_id, submission_seen_by(who))
                       .options(*DETAIL_COLUMNS, undefer(Submission.custom_input)))
        if sub is None:
            raise HTTPException(404, "no such submission")
        return SourceOut(id=sub.id, problem=sub.problem, kind=sub.kind, source=sub.source, input=sub.custom_input)


@router.get("/submissions", response_model=list[SubmissionRow], responses=errors(401, 422))
def listing(who: CurrentUser, c: ContextDep, problem: str | None = Query(None, max_length=64, pattern=PROBLEM_ID),
            user: str | None = Query(None, max_length=320, description="instructors: one learner's email"),
            limit: int = Query(100, ge=1, le=1000)):
    q = (select(Submission, User.email).join(User, User.id == Submission.user_id)
         .where(submission_seen_by(who)).order_by(Submission.pk.desc()))
    if who.instructor and user:
        q = q.where(User.email == user.strip().lower())
    if problem:
        q = q.where(Submission.problem == problem)
    with c.db.read() as s:
        rows = s.execute(q.limit(limit)).all()
    return [SubmissionRow(id=r.id, problem=r.problem, kind=r.kind, status=r.status, verdict=r.verdict,
                          passed=r.passed, total=r.total, user=email if who.instructor else None,
                          created_at=r.created_at) for r, email in rows]
