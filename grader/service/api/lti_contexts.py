"""Binding an LMS course to a judge course explicitly, and the bindings a course has:
``POST /lti/contexts`` (from the deep-linking picker's launch), ``GET`` and ``DELETE
/courses/{slug}/lti-contexts``. The rule is in ``grader.service.domain.lti_contexts``."""
from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, HTTPException, Path, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..domain.lti_contexts import bind, binding
from ..core.models import LtiContext
from .deps import ContextDep, course_or_404, CurrentInstructor
from .schemas import DB_INT_MAX, Strict, errors

router = APIRouter(tags=["lti"])


class BindIn(Strict):
    launch_id: str = Field(max_length=200, description="the deep-linking launch made from the LMS course (the "
                                                       "picker's `launch`)")
    course: str = Field(max_length=64, description="the judge course's short name; you teach it")


class ContextOut(BaseModel):
    id: int
    course: str = Field(description="the judge course's short name")
    issuer: str
    deployment_id: str
    context_id: str
    title: str | None = Field(description="the LMS course's label and title, as its launch gave them")
    created_at: datetime


def _context_out(row: LtiContext, slug: str) -> ContextOut:
    return ContextOut(id=row.id, course=slug, issuer=row.issuer, deployment_id=row.deployment_id,
                      context_id=row.context_id, title=row.title, created_at=row.created_at)


@router.post("/lti/contexts", response_model=ContextOut, status_code=201,
             responses={200: {"model": ContextOut, "description": "linked to this course already"},
                        **errors(400, 401, 403, 404, 409, 422)})
def bind_context(body: BindIn, request: Request, response: Response, who: CurrentInstructor, c: ContextDep):
    """Link the LMS course of your deep-linking launch to a judge course you teach: launches from
    that LMS course may then open the course's assignments, its instructors there become the
    course's instructors and its learners its learners. A judge course may be linked to several
    LMS courses; an LMS course to one judge course."""
    tool = getattr(request.app.state, "lti_tool", None)
    if tool is None:
        raise HTTPException(404, "LTI is not configured on this server")
    from ..lti.deep_linking import pending_launch
    from ..lti.errors import LtiRefusal

    try:
        launch = pending_launch(tool, body.launch_id)
    except LtiRefusal as e:
        raise HTTPException(400, e.message) from None
    if tool.provisioner.launch_owner(launch) != who.user_id:
        raise HTTPException(403, "this deep-linking launch was made by another account")
    if launch.context is None:
        raise HTTPException(400, "the launch names no LMS course (it has no context claim)")
    try:
        with c.db.write() as s:
            course = course_or_404(s, who, body.course)
            bound = binding(s, launch)
            if bound is not None and bound.course_id != course.id:
                raise HTTPException(409, f"this LMS course is linked to the judge course {bound.slug!r} already: "
                                         "an instructor of that course unlinks it first")
            if bound is not None:
                response.status_code = 200
                row = s.get(LtiContext, bound.id)
                assert row is not None
            else:
                row = bind(s, launch, course, who.user_id)
            return _context_out(row, course.slug)
    except IntegrityError:
        raise HTTPException(409, "this LMS course was linked meanwhile: reload the picker") from None


@router.get("/courses/{slug}/lti-contexts", response_model=list[ContextOut], responses=errors(401, 403, 404, 422))
def contexts(who: CurrentInstructor, c: ContextDep, slug: str = Path(max_length=64)):
    """The LMS courses linked to this course (you teach it)."""
    with c.db.read() as s:
        course = course_or_404(s, who, slug)
        rows = s.scalars(select(LtiContext).where(LtiContext.course_id == course.id).order_by(LtiContext.id))
        return [_context_out(r, course.slug) for r in rows]


@router.delete("/courses/{slug}/lti-contexts/{context_id}", status_code=204, responses=errors(401, 403, 404, 422))
def unbind_context(who: CurrentInstructor, c: ContextDep, slug: str = Path(max_length=64),
                   context_id: int = Path(ge=1, le=DB_INT_MAX)):
    """Unlink an LMS course: its links open none of this course's assignments any more."""
    with c.db.write() as s:
        course = course_or_404(s, who, slug)
        row = s.get(LtiContext, context_id)
        if row is None or row.course_id != course.id:
            raise HTTPException(404, "no such LMS course is linked to this course")
        s.delete(row)
    return Response(status_code=204)
