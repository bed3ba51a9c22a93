"""The pages an LTI launch leads to: ``/lti/enter`` (its one-time ticket, after ``#``,
posted to the API for the session) and ``/lti/pick`` (a deep-linking launch: the
instructor chooses what to place in the LMS course; the choice is posted to
``/lti/deep-link``, which answers the platform)."""
from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request

from .pages import PageError, Viewer, render, viewer

router = APIRouter(include_in_schema=False)


@router.get("/lti/enter")
def enter(request: Request):
    return render(request, "lti_enter.html")


@router.get("/lti/pick")
def pick(request: Request, launch: str = Query(max_length=200), v: Viewer = Depends(viewer)):
    tool = getattr(request.app.state, "lti_tool", None)
    if tool is None:
        raise PageError(404, "LTI is not configured on this server.")
    if not v.instructor:
        raise PageError(403, "Only an instructor places the judge's items in a course.")
    return render(request, "lti_pick.html", viewer=v, launch=launch, items=tool.provisioner.items_for(v.who.user_id))
