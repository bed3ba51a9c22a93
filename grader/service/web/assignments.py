"""The assignment pages: for a learner, an assignment's problems with their own window
and best Submit each (the problem page opened from here submits for the assignment);
for its instructors also every learner's scores, the CSV for Canvas and Moodle,
extensions, and the similar-code report of each problem. An assignment is created on its course's page."""
from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import select

from ...similarity.align import match_rows
from ..domain import assignments as asg
from ..domain import courses as co
from ..core.models import Extension, User, utcnow
from ..domain.similar_code import pairs_by_problem, similar_submits
from .pages import ctx, PageError, render, Viewer, ViewerDep
from .problem_view import all_views
from .related import titles

router = APIRouter(include_in_schema=False)


def _found(s, v: Viewer, course_slug: str, slug: str, teach: bool):
    """The course and its assignment if ``v`` is in it (with ``teach``: teaches it); else 404."""
    try:
        course = co.course_for(s, v.who, course_slug, teach=teach)
        return course, asg.find(s, course, slug)
    except LookupError:
        raise PageError(404, "No such assignment in a course you teach." if teach else
                        "No such assignment in a course of yours.") from None


def assignment_for(request: Request, v: Viewer, ref: str):
    """``course/assignment`` if ``v`` is in that course, with ``v``'s window; else 404."""
    course_slug, _, slug = ref.partition("/")
    with ctx(request).db.read() as s:
        course, a = _found(s, v, course_slug, slug, teach=False)
        return course, a, asg.window(s, a, v.who.user_id)


@router.get("/courses/{slug}/assignments/{assignment}")
def assignment_page(request: Request, slug: str, assignment: str, v: ViewerDep):
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
    views = all_views()
    return render(request, "assignment.html", viewer=v, course=course, a=a, window=window, state=window.state(utcnow()),
                  problems=problems, titles=titles(views), rows=rows if teach else [], mine=mine, teach=teach,
                  extensions=extensions, possible=sum(p.weight for p in problems),
                  catalogue=views if teach else [], weights={p.problem: p.weight for p in problems})


@router.get("/courses/{slug}/assignments/{assignment}/similar")
def similar_page(request: Request, slug: str, assignment: str, v: ViewerDep, problem: str | None = None):
    """For the course's instructors: the pairs of final Submits for one of the
    assignment's problems that share the most code (without ``problem``: the problem with
    the most such pairs), each region's lines side by side, one row per pair of lines."""
    with ctx(request).db.read() as s:
        course, a = _found(s, v, slug, assignment, teach=True)
        problems = [p.problem for p in asg.problems_of(s, a)]
        counts = pairs_by_problem(s, a, problems)
        chosen = problem or max(problems, key=lambda p: counts[p])  # the first of the busiest
        try:
            report, subs = similar_submits(s, a, chosen)
        except LookupError:
            raise PageError(404, "No such problem in this assignment.") from None
    named = {sub.name: sub for sub in subs}
    sides = [[(m, match_rows(named, p.left, p.right, m)) for m in p.matches] for p in report.pairs]
    return render(request, "similar.html", viewer=v, course=course, a=a, problems=problems, chosen=chosen,
                  counts=counts, titles=titles(all_views()), report=report, sides=sides)
