"""Assignments: a course's problems with a window (open, due, an optional late window
and penalty), a weight per problem (its points), and one learner's extension. A Submit
made for an assignment is refused before it opens and after it closes, and marked late
after its due time (the learner's own, with an extension). The score of a problem is the
best of the learner's Submits for it, by the assignment's credit (``partial``: the share
of cases passed; ``accepted``: 1 for AC, else 0), times one minus the penalty if that
Submit was late; the assignment's score is the sum of the weighted scores."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import delete as sa_delete
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from .accounts import AccountError
from .models import (Assignment, AssignmentProblem, Course, Extension, LtiLink, Membership, Submission, User,
                     utcnow)
from .ratelimit import Refused

MAX_PROBLEMS = 50


@dataclass(frozen=True)
class Window:
    opens_at: datetime
    due_at: datetime
    closes_at: datetime  # the end of the late window, or the due time
    extended: bool = False

    def state(self, now: datetime) -> str:
        if now < self.opens_at:
            return "not open"
        if now <= self.due_at:
            return "open"
        return "late" if now <= self.closes_at else "closed"


def window(s: Session, a: Assignment, user_id: int) -> Window:
    ext = s.get(Extension, (a.id, user_id))
    if ext is not None:
        return Window(a.opens_at, ext.due_at, ext.late_until or ext.due_at, True)
    return Window(a.opens_at, a.due_at, a.late_until or a.due_at)


def problems_of(s: Session, a: Assignment) -> list[AssignmentProblem]:
    return list(s.scalars(select(AssignmentProblem).where(AssignmentProblem.assignment_id == a.id)
                          .order_by(AssignmentProblem.position)))


def find(s: Session, course: Course, slug: str) -> Assignment:
    a = s.scalar(select(Assignment).where(Assignment.course_id == course.id, Assignment.slug == slug))
    if a is None:
        raise LookupError("no such assignment")
    return a


def of_course(s: Session, course: Course) -> list[Assignment]:
    return list(s.scalars(select(Assignment).where(Assignment.course_id == course.id)
                          .order_by(Assignment.due_at, Assignment.slug)))


def _check(title: str, opens_at: datetime, due_at: datetime, late_until: datetime | None, late_penalty: float,
           problems: list[tuple[str, float]], known: set[str]) -> str:
    """The title, stripped, once every rule of an assignment holds; else why not."""
    title = title.strip()
    if not 1 <= len(title) <= 200:
        raise AccountError("an assignment's title has 1 to 200 characters")
    if not opens_at < due_at:
        raise AccountError("an assignment opens before it is due")
    if late_until is not None and late_until <= due_at:
        raise AccountError("the late window ends after the due time")
    if not 0 <= late_penalty <= 1:
        raise AccountError("the late penalty is a fraction from 0 to 1")
    if not 1 <= len(problems) <= MAX_PROBLEMS:
        raise AccountError(f"an assignment has 1 to {MAX_PROBLEMS} problems")
    ids = [p for p, _ in problems]
    unknown = [p for p in ids if p not in known]
    if unknown:
        raise AccountError(f"no such problem: {', '.join(unknown)}")
    if len(set(ids)) != len(ids):
        raise AccountError("a problem is listed twice")
    if any(not 0 < w <= 1000 for _, w in problems):
        raise AccountError("a problem's weight is more than 0 and at most 1000 points")
    return title


def _set_problems(s: Session, a: Assignment, problems: list[tuple[str, float]]) -> None:
    for old in problems_of(s, a):
        s.delete(old)
    s.flush()
    for i, (pid, weight) in enumerate(problems):
        s.add(AssignmentProblem(assignment_id=a.id, problem=pid, position=i, weight=weight))


def create(s: Session, course: Course, by: int, slug: str, title: str, opens_at: datetime, due_at: datetime,
           late_until: datetime | None, late_penalty: float, credit: str,
           problems: list[tuple[str, float]], known: set[str]) -> Assignment:
    from .courses import check_slug

    slug = check_slug(slug)
    title = _check(title, opens_at, due_at, late_until, late_penalty, problems, known)
    if s.scalar(select(Assignment.id).where(Assignment.course_id == course.id, Assignment.slug == slug)):
        raise AccountError(f"this course has an assignment {slug!r} already")
    a = Assignment(course_id=course.id, slug=slug, title=title, opens_at=opens_at, due_at=due_at,
                   late_until=late_until, late_penalty=late_penalty, credit=credit, created_by=by,
                   created_at=utcnow())
    s.add(a)
    s.flush()
    _set_problems(s, a, problems)
    return a


def update(s: Session, a: Assignment, title: str, opens_at: datetime, due_at: datetime,
           late_until: datetime | None, late_penalty: float, credit: str,
           problems: list[tuple[str, float]], known: set[str]) -> Assignment:
    """Everything but the slug (links, LTI resource links and Submits name it) changed at
    once, by the rules of ``create``. Scores follow at once: they are computed from the
    Submits, by the assignment as it is now; a Submit already made keeps its late mark."""
    a.title = _check(title, opens_at, due_at, late_until, late_penalty, problems, known)
    a.opens_at, a.due_at, a.late_until, a.late_penalty, a.credit = opens_at, due_at, late_until, late_penalty, credit
    _set_problems(s, a, problems)
    return a


def delete(s: Session, a: Assignment) -> None:
    """Removes an assignment nothing depends on yet, with its problems and extensions. One
    that a Submit was made for (the Submits would become practice and their scores be lost)
    or that an LMS launched (its grade column would point nowhere) is refused: close it by
    its times instead."""
    made = s.scalar(select(func.count()).select_from(Submission).where(Submission.assignment_id == a.id)) or 0
    if made:
        raise AccountError(f"{made} Submit(s) were made for this assignment: it cannot be deleted (move its due "
                           "time to close it)")
    if s.scalar(select(func.count()).select_from(LtiLink).where(LtiLink.assignment_id == a.id)):
        raise AccountError("an LMS links to this assignment: it cannot be deleted (move its due time to close it)")
    for model in (AssignmentProblem, Extension):
        s.execute(sa_delete(model).where(model.assignment_id == a.id))
    s.delete(a)


def extend(s: Session, a: Assignment, user_id: int, by: int, due_at: datetime, late_until: datetime | None,
           reason: str) -> Extension:
    """A learner's own due time (and late window), replacing an earlier extension."""
    if s.get(Membership, (a.course_id, user_id)) is None:
        raise LookupError("no such member")
    if due_at <= a.opens_at or (late_until is not None and late_until <= due_at):
        raise AccountError("an extension is due after the assignment opens, and its late window ends after that")
    ext = s.get(Extension, (a.id, user_id)) or Extension(assignment_id=a.id, user_id=user_id)
    ext.due_at, ext.late_until, ext.reason, ext.granted_by, ext.granted_at = \
        due_at, late_until, reason.strip()[:500], by, utcnow()
    s.add(ext)
    return ext


def admit_submit(s: Session, user_id: int, ref: str, problem: str) -> tuple[int, bool]:
    """For a Submit made for the assignment ``ref`` (``course/assignment``): its id and
    whether it is late, or a refusal that says why and until when."""
    course_slug, _, slug = ref.partition("/")
    row = s.execute(select(Assignment).join(Course, Course.id == Assignment.course_id)
                    .join(Membership, Membership.course_id == Course.id)
                    .where(Course.slug == course_slug, Assignment.slug == slug, Membership.user_id == user_id)).first()
    if row is None:
        raise Refused(404, f"assignment: no assignment {ref!r} in a course of yours")
    a = row[0]
    if s.get(AssignmentProblem, (a.id, problem)) is None:
        raise Refused(422, f"assignment: {problem!r} is not one of its problems")
    w, now = window(s, a, user_id), utcnow()
    state = w.state(now)
    if state == "not open":
        raise Refused(403, f"assignment: it opens at {w.opens_at.isoformat()}; Submits wait until then "
                           "(Run works now)")
    if state == "closed":
        raise Refused(403, f"assignment: it closed at {w.closes_at.isoformat()}; Submits are no longer taken "
                           "for it (Run still works)")
    return a.id, state == "late"


# ---------------------------------------------------------------- scores

@dataclass
class Cell:
    score: float | None = None  # 0..1, the penalty applied; None: no Submit counted
    late: bool = False
    verdict: str | None = None
    sub_id: str | None = None
    submits: int = 0


@dataclass
class Row:
    email: str
    user_id: int
    cells: dict[str, Cell] = field(default_factory=dict)
    points: float = 0.0
    extended: bool = False


def credit_of(a: Assignment, verdict: str | None, passed: int | None, total: int | None) -> float:
    if a.credit == "accepted":
        return 1.0 if verdict == "AC" else 0.0
    return (passed or 0) / total if total else 0.0


def scores(s: Session, a: Assignment) -> tuple[list[AssignmentProblem], list[Row]]:
    """Every learner of the course, their best counted Submit per problem and their points."""
    problems = problems_of(s, a)
    learners = s.execute(select(User.id, User.email).join(Membership, Membership.user_id == User.id)
                         .where(Membership.course_id == a.course_id, Membership.role == "learner")
                         .order_by(User.email)).all()
    rows = {uid: Row(email, uid, {p.problem: Cell() for p in problems}) for uid, email in learners}
    extended = set(s.scalars(select(Extension.user_id).where(Extension.assignment_id == a.id)))
    subs = s.execute(select(Submission.user_id, Submission.problem, Submission.id, Submission.verdict,
                            Submission.passed, Submission.total, Submission.late)
                     .where(Submission.assignment_id == a.id, Submission.kind == "submit",
                            Submission.verdict.is_not(None), Submission.verdict != "IE")
                     .order_by(Submission.pk)).all()
    for uid, pid, sid, verdict, passed, total, late in subs:
        cell = rows[uid].cells.get(pid) if uid in rows else None
        if cell is None:
            continue
        cell.submits += 1
        got = credit_of(a, verdict, passed, total) * ((1 - a.late_penalty) if late else 1.0)
        if cell.score is None or got > cell.score:
            cell.score, cell.late, cell.verdict, cell.sub_id = got, late, verdict, sid
    weights = {p.problem: p.weight for p in problems}
    for r in rows.values():
        r.points = round(sum((c.score or 0.0) * weights[pid] for pid, c in r.cells.items()), 4)
        r.extended = r.user_id in extended
    return problems, list(rows.values())


CSV_LAYOUTS = ("plain", "canvas", "moodle")


def scores_csv(a: Assignment, problems: list[AssignmentProblem], rows: list[Row], layout: str) -> str:
    """``plain``: a column per problem and the total; ``canvas``: Canvas's gradebook import
    (Student, ID, SIS User ID, SIS Login ID, Section, then the assignment's points, with a
    "Points Possible" row); ``moodle``: an "Email address" column and the points (Moodle's
    grade import maps it to the user and the grade item)."""
    from .gradebook import spreadsheet_safe

    possible = sum(p.weight for p in problems)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if layout == "canvas":
        w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", a.title])
        w.writerow(["Points Possible", "", "", "", "", f"{possible:g}"])
        for r in rows:
            w.writerow([spreadsheet_safe(r.email), "", "", spreadsheet_safe(r.email), "", f"{r.points:g}"])
    elif layout == "moodle":
        w.writerow(["Email address", a.title])
        for r in rows:
            w.writerow([spreadsheet_safe(r.email), f"{r.points:g}"])
    else:
        w.writerow(["learner", *(p.problem for p in problems), "points", "points_possible", "extension"])
        for r in rows:
            cells = [("" if r.cells[p.problem].score is None else f"{r.cells[p.problem].score * p.weight:g}")
                     + (" late" if r.cells[p.problem].late else "") for p in problems]
            w.writerow([spreadsheet_safe(r.email), *cells, f"{r.points:g}", f"{possible:g}",
                        "yes" if r.extended else ""])
    return buf.getvalue()
