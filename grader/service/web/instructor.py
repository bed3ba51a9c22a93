"""The instructors' pages: the gradebook of a course they teach (each assignment's
scores, as its page shows them) and the practice view of every course they teach (learners x
problems, best and last verdict, passed/total) with its CSV, and the queue (depth, oldest age, workers, recent
failures, what each learner's submissions store). Learners get 403. A problem's
submissions and the rejudge button are on the submissions list (``history.py``)."""
from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from sqlalchemy import Select, select

from ..queue import rejudge, views
from ..domain.courses import CourseRole, course_for, courses_of
from ..domain.trust import submission_seen_by, taught_by
from ..domain.gradebook import course_book, gradebook, to_wide_csv
from ..core.models import REPORT_COLUMNS, Submission, User, utcnow
from .pages import HEADERS, ctx, InstructorViewer, PageError, render, Viewer
from .problem_view import all_views
from .related import titles

router = APIRouter(include_in_schema=False)
FAILURES_SHOWN = 10


def _problems() -> list[tuple[str, str]]:
    return [(p.id, p.title) for p in all_views()]


def _taught(request: Request, v: Viewer, course: str | None) -> tuple[Select | list[int], list[CourseRole], str]:
    """The course ids the page covers (``course``, else every course ``v`` teaches), the
    courses ``v`` teaches and the chosen slug."""
    with ctx(request).db.read() as s:
        mine = [c for c in courses_of(s, v.who.user_id) if c.role == "instructor"]
        if not course:
            return taught_by(v.who.user_id), mine, ""
        try:
            return [course_for(s, v.who, course, teach=True).id], mine, course
        except LookupError:
            raise PageError(404, "You teach no course of that name.") from None


GRADEBOOK_VIEWS = ("assignments", "practice")


@router.get("/gradebook")
def gradebook_page(request: Request, v: InstructorViewer, course: str | None = Query(None, max_length=64),
                   view: str | None = None):
    """With ``course``: its assignments' scores, as their pages show them (``view=practice``:
    every Submit of its learners per problem); without: the practice view of every course
    one teaches."""
    if view and view not in GRADEBOOK_VIEWS:  # a plain str: anything else gets a page, not a JSON 422
        raise PageError(400, f"The gradebook's view is one of {', '.join(GRADEBOOK_VIEWS)}.")
    ids, mine, chosen = _taught(request, v, course)
    if chosen and view != "practice":
        with ctx(request).db.read() as s:
            taught = course_for(s, v.who, chosen, teach=True)
            books = course_book(s, taught)
        return render(request, "gradebook.html", viewer=v, courses=mine, course=chosen, course_title=taught.title,
                      books=books, titles=titles(all_views()))
    rows = gradebook(ctx(request).db, v.who, ids)
    cells: dict[str, dict[str, dict]] = {}
    for r in rows:
        cells.setdefault(r["learner"], {})[r["problem"]] = r
    problems = _problems()
    known = {pid for pid, _ in problems}
    # A problem that left the catalogue still has grades: keep its column.
    problems += [(pid, pid) for pid in sorted({r["problem"] for r in rows} - known)]
    return render(request, "gradebook.html", viewer=v, problems=problems, learners=sorted(cells), cells=cells,
                  courses=mine, course=chosen, books=None)


@router.get("/gradebook.csv")
def gradebook_csv(request: Request, v: InstructorViewer, course: str | None = Query(None, max_length=64)):
    rows = gradebook(ctx(request).db, v.who, _taught(request, v, course)[0])
    problems = [pid for pid, _ in _problems()]
    problems += sorted({r["problem"] for r in rows} - set(problems))
    return Response(to_wide_csv(rows, problems), media_type="text/csv; charset=utf-8",
                    headers={**HEADERS, "Content-Disposition": 'attachment; filename="gradebook.csv"'})


def queue_state(request: Request, v: Viewer) -> dict:
    """The queue as a whole (depth, workers) and, by name, only the learners of the
    courses ``v`` teaches."""
    c = ctx(request)
    mine = submission_seen_by(v.who)
    with c.db.read() as s:
        stats = views.stats(s, c.config.stale_seconds)
        failures = s.execute(
            select(Submission, User.email).join(User, User.id == Submission.user_id)
            .where(Submission.verdict == "IE", mine).order_by(Submission.finished_at.desc()).limit(FAILURES_SHOWN)
            .options(*REPORT_COLUMNS)).all()
        running = s.execute(
            select(Submission, User.email).join(User, User.id == Submission.user_id)
            .where(Submission.status == "running", mine).order_by(Submission.started_at)).all()
        storage = views.storage_by_learner(s, v.who)
    return dict(stats=stats, configured=c.config.workers, engine=c.config.engine, failures=failures, running=running,
                storage=storage, budget=c.config.quotas.storage_per_day, now=utcnow(), titles=titles(all_views()),
                warming=c.workers.pending(), warm_idle=c.config.warm_idle, suite=rejudge.grading_suite(),
                suite_failed=c.workers.suite_failures())


@router.get("/queue")
def queue_page(request: Request, v: InstructorViewer):
    return render(request, "queue.html", viewer=v, **queue_state(request, v))


@router.get("/queue/panel")
def queue_panel(request: Request, v: InstructorViewer):
    return render(request, "_queue.html", viewer=v, **queue_state(request, v))
