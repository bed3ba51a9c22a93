"""The pages an LTI launch leads to: ``/lti/enter`` (its one-time ticket, after ``#``,
posted to the API for the session) and ``/lti/pick`` (a deep-linking launch: the
instructor chooses what to place in the LMS course, or first links the LMS course to a
judge course they teach; the choice is posted, with the session's CSRF token, to
``/lti/deep-link``, which answers the platform)."""
from __future__ import annotations

from fastapi import APIRouter, Query, Request

from .pages import PageError, ViewerDep, render

router = APIRouter(include_in_schema=False)


@router.get("/lti/enter")
def enter(request: Request):
    return render(request, "lti_enter.html")


@router.get("/lti/pick")
def pick(request: Request, v: ViewerDep, launch: str = Query(max_length=200)):
    tool = getattr(request.app.state, "lti_tool", None)
    if tool is None:
        raise PageError(404, "LTI is not configured on this server.")
    if not v.instructor:
        raise PageError(403, "Only an instructor places the judge's items in a course.")
    from ..lti.deep_linking import pending_launch
    from ..lti.errors import LtiRefusal

    try:
        found = pending_launch(tool, launch)
    except LtiRefusal as e:
        raise PageError(400, f"This choice cannot be made any more ({e.message}). Add the activity again "
                             "from the LMS.") from None
    if tool.provisioner.launch_owner(found) != v.who.user_id:
        raise PageError(403, "This launch was made by another account: add the activity again from the LMS.")
    picker = tool.provisioner.picker(found, v.who.user_id)
    return render(request, "lti_pick.html", viewer=v, launch=launch, picker=picker)
