"""A course's class insight: each of its assignments in a row (its learners, who solved
each problem, the mistakes most of them made, counted as ``insight`` counts an
assignment's), and the mistakes most learners made across the course, a Submit counted
once however many assignments it counts for."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from . import assignments as asg
from .insight import ProblemInsight, counted, named_mistakes, verdict_mix
from ..core.models import Assignment, Course, Membership, Submission, SubmissionCredit

# The course's page: a row per assignment, and the mistakes most learners made.
TOP_MISTAKES = 3
TOP_COURSE_MISTAKES = 10


@dataclass(frozen=True)
class ProblemMistake:
    problem: str
    text: str
    learners: int
    submits: int


@dataclass
class AssignmentSummary:
    """One assignment in a row: who solved each problem, and its commonest mistakes."""
    assignment: Assignment
    learners: int
    problems: list[ProblemInsight]  # solved, attempted and mistakes only
    mistakes: list[ProblemMistake]  # the ``TOP_MISTAKES`` made by most learners


@dataclass
class CourseInsight:
    learners: int
    assignments: list[AssignmentSummary]
    mistakes: list[ProblemMistake]  # across every assignment, most learners first


def _course_learners(course_id: int):
    return select(Membership.user_id).where(Membership.course_id == course_id, Membership.role == "learner")


def course_mistakes(s: Session, course_id: int, top: int = TOP_COURSE_MISTAKES) -> list[ProblemMistake]:
    """The named mistakes in the Submits that count for any of the course's assignments,
    a learner and a Submit counted once however many assignments it counts for."""
    counts = (select(Submission.pk).join(SubmissionCredit, SubmissionCredit.submission_pk == Submission.pk)
              .join(Assignment, Assignment.id == SubmissionCredit.assignment_id)
              .where(Assignment.course_id == course_id))
    rows = s.execute(select(Submission.problem, Submission.mistake, func.count(Submission.user_id.distinct()),
                            func.count())
                     .where(Submission.pk.in_(counts), Submission.kind == "submit", Submission.mistake.is_not(None),
                            Submission.verdict.is_not(None), Submission.verdict != "IE",
                            Submission.user_id.in_(_course_learners(course_id)))
                     .group_by(Submission.problem, Submission.mistake)).all()
    found = [ProblemMistake(p, str(text), int(n), int(k)) for p, text, n, k in rows]
    return sorted(found, key=lambda m: (-m.learners, -m.submits, m.problem, m.text))[:top]


def course_insight(s: Session, course: Course) -> CourseInsight:
    """Per assignment of ``course`` (by due time), its learners, who solved each problem and
    the mistakes most of them made; and the course's commonest mistakes."""
    learners = int(s.scalar(select(func.count()).select_from(_course_learners(course.id).subquery())) or 0)
    out = CourseInsight(learners, [], course_mistakes(s, course.id))
    for a in asg.of_course(s, course):
        by = {p.problem: ProblemInsight(p.problem, p.weight, learners) for p in asg.problems_of(s, a)}
        if by:
            c = counted(a, list(by))
            verdict_mix(s, c, by)
            named_mistakes(s, c, by)
        made = [ProblemMistake(p.problem, m.text, m.learners, m.submits) for p in by.values() for m in p.mistakes]
        top = sorted(made, key=lambda m: (-m.learners, -m.submits, m.problem, m.text))[:TOP_MISTAKES]
        out.assignments.append(AssignmentSummary(a, learners, list(by.values()), top))
    return out
