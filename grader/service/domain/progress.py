"""A learner's own progress in a course: per problem of its assignments, whether they
solved it, their Submits and how many it took to the first AC, and the mistakes the
judge named in their Submits, each fixed (an accepted Submit came after it) or not yet.
It reads only the learner's own Submits that count for an assignment of the course, and
says nothing of anyone else; only when the course's instructors chose to show it
(``Course.show_class_progress``) does ``class_solved`` give, per problem, how many of the
course's learners solved it, as the class insight counts them."""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from ..core.models import Assignment, AssignmentProblem, Course, Membership, Submission, SubmissionCredit


@dataclass
class OwnProblem:
    problem: str
    submits: int = 0
    solved: bool = False
    attempts_to_ac: int | None = None  # Submits up to and including the first AC
    fixed: list[str] = field(default_factory=list)  # mistakes an accepted Submit came after
    open: list[str] = field(default_factory=list)  # mistakes not followed by an AC yet


def own_progress(s: Session, course: Course, user_id: int) -> list[OwnProblem]:
    """Every problem of the course's assignments (by due time, then position), once."""
    listed = s.execute(select(AssignmentProblem.problem).join(Assignment)
                       .where(Assignment.course_id == course.id)
                       .order_by(Assignment.due_at, Assignment.slug, AssignmentProblem.position)).scalars()
    out: dict[str, OwnProblem] = {}
    for pid in listed:
        out.setdefault(pid, OwnProblem(pid))
    # A Submit counts once here, however many of the course's assignments it counts for.
    mine = (select(Submission.pk, Submission.problem, Submission.verdict, Submission.mistake)
            .where(Submission.user_id == user_id, Submission.kind == "submit", Submission.verdict.is_not(None),
                   Submission.verdict != "IE", Submission.problem.in_(list(out)),
                   Submission.pk.in_(select(SubmissionCredit.submission_pk).join(Assignment)
                                     .where(Assignment.course_id == course.id)))
            .cte("mine"))
    solved = (select(mine.c.problem, func.min(mine.c.pk).label("first"), func.max(mine.c.pk).label("last"))
              .where(mine.c.verdict == "AC").group_by(mine.c.problem).subquery())
    upto = func.sum(case((mine.c.pk <= solved.c.first, 1), else_=0))
    last_ac: dict[str, int] = {}
    for pid, submits, first, last, attempts in s.execute(
            select(mine.c.problem, func.count(), solved.c.first, solved.c.last, upto)
            .outerjoin(solved, solved.c.problem == mine.c.problem)
            .group_by(mine.c.problem, solved.c.first, solved.c.last)):
        p = out[pid]
        p.submits, p.solved = int(submits), first is not None
        if first is not None:
            p.attempts_to_ac, last_ac[pid] = int(attempts), int(last)
    for pid, text, first in s.execute(select(mine.c.problem, mine.c.mistake, func.min(mine.c.pk))
                                      .where(mine.c.mistake.is_not(None))
                                      .group_by(mine.c.problem, mine.c.mistake).order_by(func.min(mine.c.pk))):
        p = out[pid]
        (p.fixed if last_ac.get(pid, 0) > first else p.open).append(text)
    return list(out.values())


@dataclass(frozen=True)
class ClassSolved:
    """The whole class on one problem: two counts, never who."""
    solved: int  # the course's learners with an accepted Submit for it
    learners: int  # the course's learners

    @property
    def share(self) -> float:
        return self.solved / self.learners if self.learners else 0.0


def class_solved(s: Session, course: Course, problems: list[str]) -> dict[str, ClassSolved]:
    """Per problem, the course's learners with an accepted Submit that counts for an
    assignment of the course that has the problem: what the class insight counts as
    solved, across the course's assignments (a learner once however many)."""
    learners = select(Membership.user_id).where(Membership.course_id == course.id, Membership.role == "learner")
    total = int(s.scalar(select(func.count()).select_from(learners.subquery())) or 0)
    credited = (select(SubmissionCredit.submission_pk)
                .join(Assignment, Assignment.id == SubmissionCredit.assignment_id)
                .join(AssignmentProblem, AssignmentProblem.assignment_id == Assignment.id)
                .where(Assignment.course_id == course.id, AssignmentProblem.problem == Submission.problem))
    rows = s.execute(select(Submission.problem, func.count(Submission.user_id.distinct()))
                     .where(Submission.kind == "submit", Submission.verdict == "AC",
                            Submission.problem.in_(problems), Submission.user_id.in_(learners),
                            credited.where(SubmissionCredit.submission_pk == Submission.pk).exists())
                     .group_by(Submission.problem)).all()
    solved = {pid: int(n) for pid, n in rows}
    return {pid: ClassSolved(solved.get(pid, 0), total) for pid in problems}
