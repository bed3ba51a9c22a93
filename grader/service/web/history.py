"""Submissions as pages: the list (one's own; instructors: those of the learners of
the courses they teach, with the rejudge button for a problem), one's recent history on a problem page, a report page
and the live result panel. A learner loads only their own submissions: anyone
else's is 404, as for an id that does not exist. Learners get the report with hidden
cases reduced; instructors the full one (``?view=learner`` shows the learner's)."""
from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Query, Request
from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from ...problem import ProblemError, find_problem
from ...problem.catalogue import content_hash
from ..queue import rejudge, views
from ..domain import assignments as asg
from ..domain import courses as co
from ..domain import insight
from ..domain.accounts import Principal
from ..domain.trust import submission_seen_by
from ..core.models import DETAIL_COLUMNS, Assignment, Course, Submission, SubmissionCredit, User, utcnow
from .pages import ctx, PageError, render, Viewer, ViewerDep
from .problem_view import all_views, problem_view
from .related import titles
from .report_view import report_view

router = APIRouter(include_in_schema=False)
LIST_LIMIT = 200
HISTORY_LIMIT = 10
MAX_CASES = 200  # case ids one list is narrowed to


@dataclass(frozen=True)
class Narrowed:
    """What the class insight's bars link to: the Submits that count for an assignment
    (``course/slug``), of one verdict, that made one named mistake, whose first failing
    case was one of ``case`` (ids, space apart), or of the learners behind one bar of a
    distribution (``bar``: ``attempts:I``, ``time:I`` or ``score:I``, the I-th bar,
    ``insight.learners_behind``)."""
    assignment: str | None = None
    verdict: str | None = None
    mistake: str | None = None
    case: str | None = None
    bar: str | None = None

    def __bool__(self) -> bool:
        return any((self.assignment, self.verdict, self.mistake, self.case, self.bar))

    def _taught(self, s: Session, who: Principal) -> Assignment | None:
        """The assignment, if ``who`` teaches its course: counting who is behind a bar is
        work (the scores of a whole class), done for its instructors alone."""
        course, _, slug = (self.assignment or "").partition("/")
        try:
            return asg.find(s, co.course_for(s, who, course, teach=True), slug)
        except LookupError:
            return None

    def _bar(self) -> tuple[insight.Distribution, int] | None:
        chart, _, index = (self.bar or "").partition(":")
        if chart not in insight.DISTRIBUTIONS or not index.isdigit() or len(index) > 3:
            return None
        return chart, int(index)

    def bar_title(self) -> str | None:
        """The bar in words, as its chart labels it."""
        bar = self._bar()
        if bar is None:
            return None
        chart, i = bar
        labels = {"attempts": [f"{label} Submit(s) to the first AC" for _, _, label in insight.ATTEMPTS],
                  "time": [insight.FIRST_TRY + " accepted", *(f"{label} from the first Submit to the first AC"
                                                               for _, _, label in insight.DURATIONS)],
                  "score": [f"a score of {b.label}" for b in insight.score_bars([])]}[chart]
        return labels[i] if i < len(labels) else None

    def where(self, s: Session, problem: str | None, who: Principal) -> list[ColumnElement[bool]]:
        where: list[ColumnElement[bool]] = []
        if self.assignment:
            course, _, slug = self.assignment.partition("/")
            counted = (select(SubmissionCredit.submission_pk)
                       .join(Assignment, Assignment.id == SubmissionCredit.assignment_id)
                       .join(Course, Course.id == Assignment.course_id)
                       .where(Course.slug == course, Assignment.slug == slug))
            where.append(Submission.pk.in_(counted))
        for column, value in ((Submission.verdict, self.verdict), (Submission.mistake, self.mistake)):
            if value:
                where.append(column == value)
        if self.case:  # a situation's bar names every case behind it, space apart
            where.append(Submission.failed_case.in_(self.case.split()[:MAX_CASES]))
        if self.bar:
            # A bar names learners of one assignment its viewer teaches: without it (or with
            # a bar that is not one) nobody is behind it.
            bar, a = self._bar(), self._taught(s, who) if self.assignment else None
            behind = insight.learners_behind(s, a, problem, *bar) if bar and a else set()
            where.append(Submission.user_id.in_(sorted(behind)))
        return where


def _rows(request: Request, v: Viewer, problem: str | None, learner: str | None, limit: int,
          narrowed: Narrowed = Narrowed()):
    with ctx(request).db.read() as s:
        q = (select(Submission, User.email).join(User, User.id == Submission.user_id)
             .where(submission_seen_by(v.who), *narrowed.where(s, problem, v.who)).order_by(Submission.pk.desc()))
        if v.instructor and learner:
            q = q.where(User.email == learner.strip().lower())
        if problem:
            q = q.where(Submission.problem == problem)
        return s.execute(q.limit(limit)).all()


def rejudge_counts(request: Request, v: Viewer, problem: str) -> dict | None:
    """How many Submits the API's rejudge would requeue: those graded by another
    version of the problem, and all of them (``?all=true``)."""
    try:
        version = content_hash(find_problem(problem))
    except ProblemError:
        return None
    with ctx(request).db.read() as s:
        return {"version": version, "stale": rejudge.count(s, problem, version, v.who, False),
                "all": rejudge.count(s, problem, version, v.who, True), "suite": rejudge.grading_suite()}


@router.get("/submissions")
def listing(request: Request, v: ViewerDep, problem: str | None = Query(None, max_length=64),
            learner: str | None = Query(None, max_length=320),
            assignment: str | None = Query(None, max_length=129, description="course/assignment"),
            verdict: str | None = Query(None, max_length=4), mistake: str | None = Query(None, max_length=500),
            case: str | None = Query(None, max_length=4000), bar: str | None = Query(None, max_length=16)):
    narrowed = Narrowed(assignment, verdict, mistake, case, bar)
    rows = _rows(request, v, problem, learner, LIST_LIMIT, narrowed)
    names = titles(all_views())
    title = names.get(problem) if problem else None
    rejudge = rejudge_counts(request, v, problem) if v.instructor and problem else None
    return render(request, "submissions.html", viewer=v, rows=rows, problem=problem, title=title, titles=names,
                  learner=learner if v.instructor else None, rejudge=rejudge, limit=LIST_LIMIT, narrowed=narrowed)


@router.get("/problems/{pid}/history")
def history(request: Request, pid: str, v: ViewerDep):
    """One's own latest submissions on the problem (instructors too: this is the problem page)."""
    q = (select(Submission).where(Submission.user_id == v.who.user_id, Submission.problem == pid)
         .order_by(Submission.pk.desc()).limit(HISTORY_LIMIT))
    with ctx(request).db.read() as s:
        rows = s.scalars(q).all()
    try:
        view = problem_view(pid)
    except ProblemError:
        view = None
    return render(request, "_history.html", viewer=v, rows=rows, problem=pid, title=view.title if view else pid)


def load(request: Request, v: Viewer, sid: str) -> tuple[Submission, str, int | None]:
    with ctx(request).db.read() as s:
        row = s.execute(select(Submission, User.email).join(User, User.id == Submission.user_id)
                        .where(Submission.id == sid, submission_seen_by(v.who))
                        .options(*DETAIL_COLUMNS)).first()
        if row is None:
            raise PageError(404, "No such submission.")
        return row[0], row[1], views.position(s, row[0])


def _report(sub: Submission, v: Viewer, view: str):
    full = v.instructor and view != "learner"
    data = sub.view(full)
    return (report_view(data, sub.kind, sub.source) if data else None), full


def _warming(request: Request, sub: Submission) -> str | None:
    """What this grade waits for since the server started: the problem's hidden suite being
    drawn (``suite``; a Submit only, a Run grades the public cases) or its probe table
    being built (``probe``); None: nothing."""
    pending = getattr(ctx(request).workers, "pending", None)
    phase = pending().get(sub.problem) if pending is not None else None
    if phase == "suite" and sub.kind != "submit":
        return None
    return phase if phase in ("suite", "probe") else None


def _panel_values(request: Request, sub: Submission, email: str, pos: int | None, v: Viewer, view: str) -> dict:
    report, full = _report(sub, v, view)
    age = (utcnow() - sub.queued_at).total_seconds() if sub.status == "queued" else None
    pending = sub.status != "done" or report is None
    return dict(sub=sub, email=email, position=pos, age=age, report=report, full=full, pending=pending,
                warming=_warming(request, sub) if pending else None)


@router.get("/submissions/{sid}/panel")
def panel(request: Request, sid: str, v: ViewerDep, view: str = Query("full", pattern="^(full|learner)$")):
    sub, email, pos = load(request, v, sid)
    return render(request, "_panel.html", viewer=v, **_panel_values(request, sub, email, pos, v, view))


@router.get("/submissions/{sid}")
def report_page(request: Request, sid: str, v: ViewerDep, view: str = Query("full", pattern="^(full|learner)$")):
    sub, email, pos = load(request, v, sid)
    try:
        p = problem_view(sub.problem)
    except ProblemError:
        p = None
    return render(request, "submission.html", viewer=v, p=p, view=view,
                  **_panel_values(request, sub, email, pos, v, view))
