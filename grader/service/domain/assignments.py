"""Assignments: a course's problems with a window (open, due, an optional late window
and penalty), a weight per problem (its points), and one learner's extension. A Submit
counts for every assignment of the learner's courses (as a learner) that includes its
problem and takes a Submit now, whatever page it was sent from; it is late for one
after the learner's due time (their own, with an extension). A Submit that names an
assignment is refused when that one does not take it (not open yet, or closed). The
score of a problem is the best of the Submits that count for it, by the assignment's
credit (``partial``: the share of cases passed; ``accepted``: 1 for AC, else 0), times
one minus the penalty if that Submit was late; the assignment's score is the sum of the
weighted scores."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import delete as sa_delete
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from .accounts import AccountError
from ..core.csv_io import write_csv
from ..core.models import (
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    LtiLink,
    Membership,
    Submission,
    SubmissionCredit,
    User,
    utcnow,
)
from ..core.ratelimit import Refused

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
    that a Submit counts for (the Submits would become practice and their scores be lost)
    or that an LMS launched (its grade column would point nowhere) is refused: close it by
    its times instead."""
    made = s.scalar(select(func.count()).select_from(SubmissionCredit)
                    .where(SubmissionCredit.assignment_id == a.id)) or 0
    if made:
        raise AccountError(f"{made} Submit(s) count for this assignment: it cannot be deleted (move its due "
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


@dataclass(frozen=True)
class Credit:
    """An assignment a Submit made now counts for, with the learner's own window."""
    assignment: Assignment
    course: Course
    window: Window
    late: bool


def counts_for(s: Session, user_id: int, problem: str, now: datetime | None = None) -> list[Credit]:
    """Every assignment a Submit of ``problem`` by ``user_id`` made ``now`` counts for: of a
    course they are a learner of, including the problem, its window (theirs) taking a
    Submit (open, or late before the end of the late window). By due time, then course."""
    now = now or utcnow()
    rows = s.execute(select(Assignment, Course)
                     .join(Course, Course.id == Assignment.course_id)
                     .join(Membership, (Membership.course_id == Course.id) & (Membership.user_id == user_id))
                     .join(AssignmentProblem, (AssignmentProblem.assignment_id == Assignment.id)
                           & (AssignmentProblem.problem == problem))
                     .where(Membership.role == "learner", Assignment.opens_at <= now)).all()
    out = []
    for a, course in rows:
        w = window(s, a, user_id)
        state = w.state(now)
        if state in ("open", "late"):
            out.append(Credit(a, course, w, state == "late"))
    return sorted(out, key=lambda c: (c.window.due_at, c.course.slug, c.assignment.slug))


def credits_for(s: Session, user_id: int, problem: str, ref: str | None) -> list[tuple[int, bool]]:
    """(id, late) of each assignment a Submit made now counts for (``counts_for``). With
    ``ref`` (``course/assignment``, the assignment page's Submit) that assignment must take
    it: else a refusal that says why and until when."""
    now = utcnow()
    if ref is not None:
        _named(s, user_id, ref, problem, now)
    return [(c.assignment.id, c.late) for c in counts_for(s, user_id, problem, now)]


def _named(s: Session, user_id: int, ref: str, problem: str, now: datetime) -> None:
    course_slug, _, slug = ref.partition("/")
    row = s.execute(select(Assignment).join(Course, Course.id == Assignment.course_id)
                    .join(Membership, Membership.course_id == Course.id)
                    .where(Course.slug == course_slug, Assignment.slug == slug, Membership.user_id == user_id)).first()
    if row is None:
        raise Refused(404, f"assignment: no assignment {ref!r} in a course of yours")
    a = row[0]
    if s.get(AssignmentProblem, (a.id, problem)) is None:
        raise Refused(422, f"assignment: {problem!r} is not one of its problems")
    w = window(s, a, user_id)
    state = w.state(now)
    if state == "not open":
        raise Refused(403, f"assignment: it opens at {w.opens_at.isoformat()}; Submits wait until then "
                           "(Run works now)")
    if state == "closed":
        raise Refused(403, f"assignment: it closed at {w.closes_at.isoformat()}; Submits are no longer taken "
                           "for it (Run still works)")


def credited(s: Session, submission_pk: int) -> list[tuple[str, str, str, bool]]:
    """(course slug, assignment slug, title, late) of each assignment a Submit counts for."""
    rows = s.execute(select(Course.slug, Assignment.slug, Assignment.title, SubmissionCredit.late)
                     .join(Assignment, Assignment.id == SubmissionCredit.assignment_id)
                     .join(Course, Course.id == Assignment.course_id)
                     .where(SubmissionCredit.submission_pk == submission_pk)
                     .order_by(Assignment.due_at, Course.slug, Assignment.slug)).all()
    return [(course, slug, title, bool(late)) for course, slug, title, late in rows]


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
    """Every learner of the course, their best Submit per problem of those that count for
    ``a``, and their points."""
    problems = problems_of(s, a)
    learners = s.execute(select(User.id, User.email).join(Membership, Membership.user_id == User.id)
                         .where(Membership.course_id == a.course_id, Membership.role == "learner")
                         .order_by(User.email)).all()
    rows = {uid: Row(email, uid, {p.problem: Cell() for p in problems}) for uid, email in learners}
    extended = set(s.scalars(select(Extension.user_id).where(Extension.assignment_id == a.id)))
    subs = s.execute(select(Submission.user_id, Submission.problem, Submission.id, Submission.verdict,
                            Submission.passed, Submission.total, SubmissionCredit.late)
                     .join(SubmissionCredit, SubmissionCredit.submission_pk == Submission.pk)
                     .where(SubmissionCredit.assignment_id == a.id, Submission.kind == "submit",
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
    possible = sum(p.weight for p in problems)
    if layout == "canvas":
        return write_csv(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", a.title],
                         [["Points Possible", "", "", "", "", f"{possible:g}"],
                          *([r.email, "", "", r.email, "", f"{r.points:g}"] for r in rows)])
    if layout == "moodle":
        return write_csv(["Email address", a.title], ([r.email, f"{r.points:g}"] for r in rows))

    def cell(r: Row, p: AssignmentProblem) -> str:
        c = r.cells[p.problem]
        return ("" if c.score is None else f"{c.score * p.weight:g}") + (" late" if c.late else "")

    return write_csv(["learner", *(p.problem for p in problems), "points", "points_possible", "extension"],
                     ([r.email, *(cell(r, p) for p in problems), f"{r.points:g}", f"{possible:g}",
                       "yes" if r.extended else ""] for r in rows))
