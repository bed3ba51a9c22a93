"""The learner's pages: log in, the problem list with one's own status per problem,
and the problem page (statement, signature, limits, requirements, the editor with
Run and Submit, the live result panel and one's history on the problem)."""
from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from sqlalchemy import case, func, select

from ...problem import ProblemError
from ..models import Submission
from .pages import PageError, Viewer, ctx, current_viewer, redirect, render, viewer
from .problem_view import all_views, problem_view

router = APIRouter(include_in_schema=False)


# Printable ASCII but the backslash: browsers drop TAB, CR and LF inside a URL and trim
# spaces and control characters around it (so ``/<TAB>/evil`` is ``//evil`` to them),
# and read a backslash as a slash; anything else may be normalised in ways not foreseen.
_PATH_CHARS = frozenset(chr(c) for c in range(0x21, 0x7f)) - {"\\"}


def safe_next(target: str | None) -> str:
    """Only a path on this site: never another origin (``//host``, ``/\\host``, a scheme,
    or one of those hidden by characters a browser drops)."""
    if (not target or not target.startswith("/") or target.startswith("//")
            or not set(target) <= _PATH_CHARS):
        return "/problems"
    return target


@router.get("/")
def home(request: Request):
    return redirect("/problems" if current_viewer(request) else "/login")


@router.get("/login")
def login_page(request: Request, next: str | None = None):
    target = safe_next(next)
    if current_viewer(request) is not None:
        return redirect(target)
    return render(request, "login.html", next=target)


def statuses(request: Request, user_id: int) -> dict[str, str]:
    """solved (a Submit was accepted), tried (anything else sent), per problem."""
    solved = func.max(case(((Submission.kind == "submit") & (Submission.verdict == "AC"), 1), else_=0))
    with ctx(request).db.read() as s:
        rows = s.execute(select(Submission.problem, solved).where(Submission.user_id == user_id)
                         .group_by(Submission.problem)).all()
    return {pid: "solved" if won else "tried" for pid, won in rows}


@router.get("/problems")
def problem_list(request: Request, v: Viewer = Depends(viewer)):
    mine = statuses(request, v.who.user_id)
    views = all_views()
    rows = [(p, mine.get(p.id, "new")) for p in views]
    counts = {k: sum(1 for _, st in rows if st == k) for k in ("solved", "tried", "new")}
    return render(request, "problems.html", viewer=v, rows=rows, counts=counts)


@router.get("/problems/{pid}")
def problem_page(request: Request, pid: str, v: Viewer = Depends(viewer)):
    try:
        p = problem_view(pid)
    except ProblemError:
        raise PageError(500, "This problem cannot be loaded (grader validate names what is wrong with it).") from None
    if p is None:
        raise PageError(404, "No such problem.")
    status = statuses(request, v.who.user_id).get(pid, "new")
    return render(request, "problem.html", viewer=v, p=p, status=status)
