"""The assignment pages: for a learner, an assignment's problems with their own window
and best Submit each (the problem page opened from here submits for the assignment);
for its instructors also every learner's scores, the CSV for Canvas and Moodle, and
extensions. An assignment is created on its course's page."""
from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from sqlalchemy import select

from .. import assignments as asg
from .. import courses as co
from ..models import Extension, User, utcnow
from .pages import PageError, Viewer, ctx, render, viewer
from .problem_view import all_views
from .related import titles

router = APIRouter(include_in_schema=False)


def assignment_for(request: Request, v: Viewer, ref: str):
    """``course/assignment`` if ``v`` is in that course, with ``v``'s window; else 404."""
    course_slug, _, slug = ref.partition("/")
    with ctx(request).db.read() as s:
        try:
            course = co.course_for(s, v.who, course_slug, teach=False)
            a = asg.find(s, course, slug)
        except LookupError:
            raise PageError(404, "No such assignment in a course of yours.") from None
        return course, a, asg.window(s, a, v.who.user_id)


@router.get("/courses/{slug}/assignments/{assignment}")
def assignment_page(request: Request, slug: str, assignment: str, v: Viewer = Depends(viewer)):
    course, a, window = assignment_for(request, v, f"{slug}/{assignment}")
    with ctx(request).db.read() as s:
        teach = v.instructor and any(c.slug == slug and c.role == "instructor" for c in co.courses_of(s, v.who.user_id))
        problems, rows = asg.scores(s, a)
        mine = next((r for r in rows if r.user_id == v.who.user_id), None)
        extensions = []
        if teach:
            granted = s.execute(select(Extension, User.email).join(User, User.id == Extension.user_id)
                                .where(Extension.assignment_id == a.id).order_by(User.email)).all()
            by = dict(s.execute(select(User.id, User.email)).all()) if granted else {}
            extensions = [(e, email, by.get(e.granted_by)) for e, email in granted]
    return render(request, "assignment.html", viewer=v, course=course, a=a, window=window, state=window.state(utcnow()),
                  problems=problems, titles=titles(all_views()), rows=rows if teach else [], mine=mine, teach=teach,
                  extensions=extensions, possible=sum(p.weight for p in problems))
