"""Assignments over HTTP: a course's instructors create one (problems with weights, open
and due times with their timezone, a late window and penalty, the credit), give one
learner an extension (recorded with who gave it), and read the scores as JSON or as the
CSV Canvas or Moodle imports; every member reads the assignments of their courses with
their own window and, for a learner, their own scores. A Submit is made for one with
``assignment`` in ``POST /submissions``."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field
from sqlalchemy import select

from ...problem import all_problem_ids
from ...similarity import Report
from ..domain import assignments as asg
from ..domain.accounts import AccountError, Principal
from ..core.models import Assignment, Extension, User
from ..domain.similar_code import TOP, similar_submits
from .deps import ContextDep, course_or_404, CurrentInstructor, CurrentUser
from .schemas import PROBLEM_ID, Strict, When, errors

router = APIRouter(tags=["assignments"])
SLUG = Path(max_length=64)


class ProblemWeight(Strict):
    problem: str = Field(pattern=PROBLEM_ID, max_length=64)
    weight: float = Field(1.0, gt=0, le=1000, description="the points it is worth")


class AssignmentChange(Strict):
    """An assignment as a whole, but its slug: what ``PUT`` replaces."""

    title: str = Field(max_length=200)
    opens_at: When = Field(description="with its timezone, e.g. 2027-01-10T09:00:00-05:00")
    due_at: When
    late_until: When | None = Field(None, description="Submits after due_at and until then are late; "
                                                               "without it, none is taken after due_at")
    late_penalty: float = Field(0.0, ge=0, le=1, description="the share of a late Submit's score taken off")
    credit: Literal["partial", "accepted"] = Field("partial", description="partial: the share of cases passed; "
                                                                          "accepted: 1 for AC, else 0")
    problems: list[ProblemWeight] = Field(min_length=1, max_length=asg.MAX_PROBLEMS)


class AssignmentIn(AssignmentChange):
    slug: str = Field(max_length=64, description="its short name in links; it never changes")


class WindowOut(BaseModel):
    opens_at: datetime
    due_at: datetime
    closes_at: datetime = Field(description="the end of the late window, or the due time")
    extended: bool = Field(description="the window is yours alone (an extension)")
    state: Literal["not open", "open", "late", "closed"]


class CellOut(BaseModel):
    score: float | None = Field(description="0..1 of the problem's points, the late penalty applied; null: none")
    late: bool
    verdict: str | None
    submission: str | None
    submits: int


class AssignmentOut(BaseModel):
    course: str
    slug: str
    title: str
    problems: list[ProblemWeight]
    late_penalty: float
    credit: str
    window: WindowOut = Field(description="the caller's")
    mine: dict[str, CellOut] | None = Field(None, description="a learner's own best Submit per problem")
    points: float | None = Field(None, description="a learner's own points")
    points_possible: float


class ExtensionIn(Strict):
    email: str = Field(max_length=320)
    due_at: When
    late_until: When | None = None
    reason: str = Field("", max_length=500)


class ExtensionOut(BaseModel):
    learner: str
    due_at: datetime
    late_until: datetime | None
    reason: str
    granted_by: str | None
    granted_at: datetime


class ScoreRow(BaseModel):
    learner: str
    cells: dict[str, CellOut]
    points: float
    extended: bool


def _assignment(s, course, slug: str) -> Assignment:
    try:
        return asg.find(s, course, slug)
    except LookupError:
        raise HTTPException(404, "no such assignment") from None


def _cell(c: asg.Cell) -> CellOut:
    return CellOut(score=c.score, late=c.late, verdict=c.verdict, submission=c.sub_id, submits=c.submits)


def describe(s, course, a: Assignment, who: Principal, with_scores: bool) -> AssignmentOut:
    """The assignment as ``who`` sees it: their own window and, for a learner, scores."""
    from ..core.models import utcnow

    problems = asg.problems_of(s, a)
    w = asg.window(s, a, who.user_id)
    out = AssignmentOut(course=course.slug, slug=a.slug, title=a.title, late_penalty=a.late_penalty, credit=a.credit,
                        problems=[ProblemWeight(problem=p.problem, weight=p.weight) for p in problems],
                        window=WindowOut(opens_at=w.opens_at, due_at=w.due_at, closes_at=w.closes_at,
                                         extended=w.extended, state=w.state(utcnow())),
                        points_possible=sum(p.weight for p in problems))
    if with_scores:
        row = next((r for r in asg.scores(s, a)[1] if r.user_id == who.user_id), None)
        if row is not None:
            out.mine = {pid: _cell(c) for pid, c in row.cells.items()}
            out.points = row.points
    return out


@router.post("/courses/{slug}/assignments", response_model=AssignmentOut, status_code=201,
             responses=errors(400, 401, 403, 404, 422))
def create(body: AssignmentIn, who: CurrentInstructor, c: ContextDep, slug: str = SLUG):
    with c.db.write() as s:
        course = course_or_404(s, who, slug, teach=True)
        try:
            a = asg.create(s, course, who.user_id, body.slug, body.title, body.opens_at, body.due_at,
                           body.late_until, body.late_penalty, body.credit,
                           [(p.problem, p.weight) for p in body.problems], set(all_problem_ids()))
        except AccountError as exc:
            raise HTTPException(400, str(exc)) from None
        return describe(s, course, a, who, with_scores=False)


@router.put("/courses/{slug}/assignments/{assignment}", response_model=AssignmentOut,
            responses=errors(400, 401, 403, 404, 422))
def change(body: AssignmentChange, who: CurrentInstructor, c: ContextDep, slug: str = SLUG,
           assignment: str = Path(max_length=64)):
    """Replace everything but the slug (times, late policy, credit, problems and weights)
    by the rules of creating one. Scores follow at once; a Submit keeps its late mark."""
    with c.db.write() as s:
        course = course_or_404(s, who, slug, teach=True)
        a = _assignment(s, course, assignment)
        try:
            asg.update(s, a, body.title, body.opens_at, body.due_at, body.late_until,
                       body.late_penalty, body.credit, [(p.problem, p.weight) for p in body.problems],
                       set(all_problem_ids()))
        except AccountError as exc:
            raise HTTPException(400, str(exc)) from None
        s.flush()
        return describe(s, course, a, who, with_scores=False)


@router.delete("/courses/{slug}/assignments/{assignment}", status_code=204,
               responses=errors(401, 403, 404, 409, 422))
def remove(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, assignment: str = Path(max_length=64)):
    """Delete an assignment nothing depends on yet; 409 once a Submit was made for it or
    an LMS launched it (close it by its times instead)."""
    with c.db.write() as s:
        a = _assignment(s, course_or_404(s, who, slug, teach=True), assignment)
        try:
            asg.delete(s, a)
        except AccountError as exc:
            raise HTTPException(409, str(exc)) from None
    return Response(status_code=204)


@router.get("/courses/{slug}/assignments", response_model=list[AssignmentOut], responses=errors(401, 404))
def listing(who: CurrentUser, c: ContextDep, slug: str = SLUG):
    with c.db.read() as s:
        course = course_or_404(s, who, slug, teach=False)
        return [describe(s, course, a, who, with_scores=True) for a in asg.of_course(s, course)]


@router.get("/courses/{slug}/assignments/{assignment}", response_model=AssignmentOut, responses=errors(401, 404))
def read(who: CurrentUser, c: ContextDep, slug: str = SLUG, assignment: str = Path(max_length=64)):
    with c.db.read() as s:
        course = course_or_404(s, who, slug, teach=False)
        return describe(s, course, _assignment(s, course, assignment), who, with_scores=True)


def _extension_out(s, ext: Extension) -> ExtensionOut:
    emails = dict(s.execute(select(User.id, User.email).where(User.id.in_([ext.user_id, ext.granted_by or 0]))).all())
    return ExtensionOut(learner=emails[ext.user_id], due_at=ext.due_at, late_until=ext.late_until, reason=ext.reason,
                        granted_by=emails.get(ext.granted_by), granted_at=ext.granted_at)


@router.post("/courses/{slug}/assignments/{assignment}/extensions", response_model=ExtensionOut,
             responses=errors(400, 401, 403, 404, 422))
def extend(body: ExtensionIn, who: CurrentInstructor, c: ContextDep, slug: str = SLUG,
           assignment: str = Path(max_length=64)):
    """One learner's own due time (and late window), replacing an earlier one; the
    gradebook shows it, and who gave it."""
    with c.db.write() as s:
        course = course_or_404(s, who, slug, teach=True)
        a = _assignment(s, course, assignment)
        uid = s.scalar(select(User.id).where(User.email == body.email.strip().lower()))
        try:
            if uid is None:
                raise LookupError
            ext = asg.extend(s, a, uid, who.user_id, body.due_at, body.late_until, body.reason)
        except LookupError:
            raise HTTPException(404, "no such member of this course") from None
        except AccountError as exc:
            raise HTTPException(400, str(exc)) from None
        s.flush()
        return _extension_out(s, ext)


@router.get("/courses/{slug}/assignments/{assignment}/extensions", response_model=list[ExtensionOut],
            responses=errors(401, 403, 404))
def extensions(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, assignment: str = Path(max_length=64)):
    with c.db.read() as s:
        a = _assignment(s, course_or_404(s, who, slug, teach=True), assignment)
        rows = s.scalars(select(Extension).where(Extension.assignment_id == a.id)).all()
        return [_extension_out(s, e) for e in rows]


@router.get("/courses/{slug}/assignments/{assignment}/scores", response_model=list[ScoreRow],
            responses={200: {"content": {"text/csv": {}}}, **errors(401, 403, 404, 422)})
def scores(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, assignment: str = Path(max_length=64),
           format: Literal["json", "csv"] = "json",
           layout: Literal["plain", "canvas", "moodle"] = Query("plain", description="csv: whose import layout")):
    """Every learner of the course: their best counted Submit per problem, and points."""
    with c.db.read() as s:
        a = _assignment(s, course_or_404(s, who, slug, teach=True), assignment)
        problems, rows = asg.scores(s, a)
    if format == "csv":
        return Response(asg.scores_csv(a, problems, rows, layout), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{slug}-{assignment}-{layout}.csv"'})
    return [ScoreRow(learner=r.email, cells={k: _cell(v) for k, v in r.cells.items()}, points=r.points,
                     extended=r.extended) for r in rows]


@router.get("/courses/{slug}/assignments/{assignment}/similar", response_model=Report,
            responses=errors(401, 403, 404, 422))
def similar(who: CurrentInstructor, c: ContextDep, slug: str = SLUG, assignment: str = Path(max_length=64),
            problem: str = Query(max_length=64, pattern=PROBLEM_ID, description="one of the assignment's problems"),
            top: int = Query(TOP, ge=1, le=200, description="pairs listed with their matching regions")):
    """Pairs of the course's learners whose final Submits for this assignment's problem
    share the most code (renaming and reformatting do not hide it; the starter code does
    not count), best first, with the matching line ranges. For a person to read, never a
    verdict."""
    with c.db.read() as s:
        a = _assignment(s, course_or_404(s, who, slug, teach=True), assignment)
        try:
            report, _subs = similar_submits(s, a, problem, top)
        except LookupError as exc:
            raise HTTPException(404, str(exc)) from None
    return report
