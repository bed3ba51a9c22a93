"""The learner's pages: log in, the problem list with one's own status per problem
(searched, filtered and sorted by the query string of a plain GET form), and the
problem page (statement, signature, limits, requirements, the editor with Run and
Submit, the live result panel, one's history on the problem and similar problems)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from fastapi import APIRouter, Request
from sqlalchemy import case, func, select

from ...problem import ProblemError
from ...problem.meta import DIFFICULTIES
from ..domain.assignments import counts_for
from ..core.models import Submission, utcnow
from .assignments import assignment_for
from .custom_input import example_input
from .editorial import editorial_open
from .pages import ctx, current_viewer, PageError, redirect, render, ViewerDep
from .problem_view import ProblemView, all_views, problem_view
from .related import difficulty_rank, generic_tags, related_to

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


STATUSES = ("solved", "tried", "new")  # also the order of the status sort
SORTS = {"": "Catalogue order", "title": "Title", "difficulty": "Difficulty (easy first)",
         "status": "Status (solved, tried, new)"}
QUERY_MAX = 100
TAG_MAX = 64


@dataclass(frozen=True)
class ListChoices:
    """The problem list's search, filters and sort; empty means any (or catalogue order)."""
    q: str = ""
    tag: str = ""
    difficulty: str = ""
    status: str = ""
    sort: str = ""

    @property
    def filtered(self) -> bool:
        return bool(self.q or self.tag or self.difficulty or self.status)


def list_choices(q: str | None, tag: str | None, difficulty: str | None, status: str | None,
                 sort: str | None) -> ListChoices:
    """The choices as given, or a 400 page that says which one is wrong: the values come
    from the form's own options, so anything else is a hand-made URL."""
    c = ListChoices(*((x or "").strip() for x in (q, tag, difficulty, status, sort)))
    if len(c.q) > QUERY_MAX:
        raise PageError(400, f"The search may be at most {QUERY_MAX} characters long.")
    if len(c.tag) > TAG_MAX:
        raise PageError(400, f"A tag is at most {TAG_MAX} characters long.")
    if c.difficulty and c.difficulty not in DIFFICULTIES:
        raise PageError(400, f"The difficulty is one of {', '.join(DIFFICULTIES)}.")
    if c.status and c.status not in STATUSES:
        raise PageError(400, f"The status is one of {', '.join(STATUSES)}.")
    if c.sort not in SORTS:
        raise PageError(400, f"The list sorts by {', '.join(k for k in SORTS if k)}.")
    return c


def _matches(p: ProblemView, status: str, c: ListChoices) -> bool:
    # Every word of the search, anywhere in the title, the id or a tag, any case.
    text = " ".join((p.title, p.id, *p.tags)).casefold()
    return (all(word in text for word in c.q.casefold().split())
            and (not c.tag or c.tag.casefold() in (t.casefold() for t in p.tags))
            and (not c.difficulty or p.difficulty == c.difficulty)
            and (not c.status or status == c.status))


def pick(rows: list[tuple[ProblemView, str]], c: ListChoices) -> list[tuple[ProblemView, str]]:
    """The rows that match, sorted; ties (and the default) keep catalogue order."""
    kept = [(p, st) for p, st in rows if _matches(p, st, c)]
    if c.sort == "title":
        kept.sort(key=lambda r: r[0].title.casefold())
    elif c.sort == "difficulty":
        kept.sort(key=lambda r: difficulty_rank(r[0].difficulty))
    elif c.sort == "status":
        kept.sort(key=lambda r: STATUSES.index(r[1]))
    return kept


def tag_options(views: list[ProblemView], chosen: str) -> list[tuple[str, int]]:
    """Each tag with how many problems carry it, generic ones left out (they match every
    problem); a chosen tag is kept even so, or the form would not show it chosen."""
    counts = Counter(t for p in views for t in p.tags)
    generic = generic_tags(views)
    options = {t: n for t, n in counts.items() if t not in generic}
    if chosen and chosen not in options:
        options[chosen] = counts.get(chosen, 0)
    return sorted(options.items())


@router.get("/problems")
def problem_list(request: Request, v: ViewerDep, q: str | None = None, tag: str | None = None,
                 difficulty: str | None = None, status: str | None = None, sort: str | None = None):
    # Plain str parameters: a value FastAPI would refuse would get a JSON 422, not a page.
    choices = list_choices(q, tag, difficulty, status, sort)
    mine = statuses(request, v.who.user_id)
    views = all_views()
    everything = [(p, mine.get(p.id, "new")) for p in views]
    counts = {k: sum(1 for _, st in everything if st == k) for k in STATUSES}
    return render(request, "problems.html", viewer=v, rows=pick(everything, choices), total=len(everything),
                  counts=counts, choices=choices, tags=tag_options(views, choices.tag), difficulties=DIFFICULTIES,
                  statuses=STATUSES, sorts=SORTS)


@router.get("/problems/{pid}")
def problem_page(request: Request, pid: str, v: ViewerDep, assignment: str | None = None):
    """Says what a Submit counts for (every assignment that takes it now, or practice);
    ``?assignment=course/slug`` (from an assignment's page) makes a Submit refused when
    that one does not take it."""
    try:
        p = problem_view(pid)
    except ProblemError:
        raise PageError(500, "This problem cannot be loaded (grader validate names what is wrong with it).") from None
    if p is None:
        raise PageError(404, "No such problem.")
    made_for = None
    if assignment:
        course, a, window = assignment_for(request, v, assignment[:129])
        made_for = {"ref": f"{course.slug}/{a.slug}", "title": a.title, "course": course, "window": window,
                    "state": window.state(utcnow()), "url": f"/courses/{course.slug}/assignments/{a.slug}"}
    with ctx(request).db.read() as s:
        counts = [{"ref": f"{c.course.slug}/{c.assignment.slug}", "course": c.course.title, "title": c.assignment.title,
                   "due_at": c.window.due_at, "late": c.late,
                   "url": f"/courses/{c.course.slug}/assignments/{c.assignment.slug}"}
                  for c in counts_for(s, v.who.user_id, pid)]
    mine = statuses(request, v.who.user_id)
    status = mine.get(pid, "new")
    return render(request, "problem.html", viewer=v, p=p, status=status, made_for=made_for, counts=counts,
                  related=related_to(all_views(), p, mine), custom=example_input(pid),
                  editorial_open=editorial_open(pid, v, status))
