"""The pages of courses and accounts: one's courses (instructors create one there), a
course's page (for its instructors: members, invitations, the roster in and out, reset
links), the join page an invitation link opens, the page a one-time password link
opens, and one's account (password change). Every write is the page's script calling
the JSON API (``api/courses.py``), as everywhere else."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ..domain import assignments as asg
from ..domain import courses as co
from ..domain.accounts import LINK_HOURS
from ..core.models import utcnow
from .pages import ctx, current_viewer, PageError, render, ViewerDep
from .problem_view import all_views

router = APIRouter(include_in_schema=False)


@router.get("/courses")
def course_list(request: Request, v: ViewerDep):
    """One's home: one's courses, and every assignment of them by due time (one's own,
    with an extension) with its state and one's points."""
    now = utcnow()
    with ctx(request).db.read() as s:
        mine = co.courses_of(s, v.who.user_id)
        pending = co.pending(s, v.who.user_id)
        due: list[dict[str, Any]] = []
        for c in mine:
            course = co.course_for(s, v.who, c.slug, teach=False)
            for a in asg.of_course(s, course):
                w = asg.window(s, a, v.who.user_id)
                problems, rows = asg.scores(s, a)
                row = next((r for r in rows if r.user_id == v.who.user_id), None)
                solved = sum(1 for cell in row.cells.values() if cell.verdict == "AC") if row else None
                due.append(dict(course=c, a=a, window=w, state=w.state(now), points=row.points if row else None,
                                possible=sum(p.weight for p in problems), solved=solved, count=len(problems)))
    due.sort(key=lambda d: d["window"].due_at)
    return render(request, "courses.html", viewer=v, courses=mine, due=due, pending=pending)


@router.get("/courses/{slug}")
def course_page(request: Request, slug: str, v: ViewerDep):
    with ctx(request).db.read() as s:
        try:
            course = co.course_for(s, v.who, slug, teach=False)
        except LookupError:
            raise PageError(404, "No such course, or you are not in it.") from None
        role = next(r.role for r in co.courses_of(s, v.who.user_id) if r.slug == slug)
        teach = role == "instructor" and v.instructor
        members = co.members(s, course) if teach else []
        invitations = co.invitations(s, course) if teach else []
        invited = co.invited(s, course) if teach else []
        now = utcnow()
        work = [(a, asg.window(s, a, v.who.user_id)) for a in asg.of_course(s, course)]
    return render(request, "course.html", viewer=v, course=course, role=role, teach=teach, members=members,
                  open_invitations=[i for i in invitations if co.usable(i, now)],
                  past_invitations=[i for i in invitations if not co.usable(i, now)],
                  lasts={i.id: '%g' % co.lasts_days(i) for i in invitations},
                  invited=invited, max_days=co.MAX_INVITE_DAYS, now=now,
                  assignments=[(a, w, w.state(now)) for a, w in work], problems=all_views() if teach else [])


@router.get("/join")
def join_page(request: Request):
    """Opened from an invitation link (the code after ``#``); no account needed."""
    return render(request, "join.html", viewer=current_viewer(request))


@router.get("/set-password")
def set_password_page(request: Request):
    """Opened from a one-time link (the secret after ``#``); no account needed."""
    return render(request, "set_password.html", viewer=current_viewer(request), hours=LINK_HOURS)


@router.get("/account")
def account_page(request: Request, v: ViewerDep):
    with ctx(request).db.read() as s:
        mine = co.courses_of(s, v.who.user_id)
    return render(request, "account.html", viewer=v, courses=mine)
