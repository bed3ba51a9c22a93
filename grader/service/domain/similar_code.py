"""Similar code among an assignment's Submits: for one of its problems, each learner's
final Submit that counts for the assignment (their latest, whatever its verdict, as MOSS and
Gradescope compare what was handed in) goes through ``grader.similarity``, with the
starter code the problem page gave everyone left out. A report for an instructor to
read, never a verdict: nothing here changes a score."""
from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...problem import ProblemError, find_problem
from ...similarity import Report, Source, SourceSet, compare, starter_texts
from ..core.models import Assignment, AssignmentProblem, Membership, SubmissionCredit, User
from ..core.models import Submission as Row

TOP = 50  # pairs listed with their regions; the report counts every pair it found


def final_submits(s: Session, a: Assignment, problem: str) -> list[SourceSet]:
    """The latest Submit of each learner of the course that counts for ``a`` on ``problem``,
    named by the learner's email, in email order."""
    last = (select(func.max(Row.pk)).join(SubmissionCredit, SubmissionCredit.submission_pk == Row.pk)
            .where(SubmissionCredit.assignment_id == a.id, Row.problem == problem, Row.kind == "submit")
            .group_by(Row.user_id))
    rows = s.execute(select(User.email, Row.source).join(Row, Row.user_id == User.id)
                     .join(Membership, (Membership.user_id == User.id) & (Membership.course_id == a.course_id))
                     .where(Row.pk.in_(last), Membership.role == "learner").order_by(User.email)).all()
    return [SourceSet(email, (Source("solution.py", source),)) for email, source in rows]


def similar_submits(s: Session, a: Assignment, problem: str, top: int = TOP) -> tuple[Report, list[SourceSet]]:
    """The report over ``final_submits`` and the submissions it names (to show regions);
    LookupError when ``problem`` is not one of the assignment's."""
    if s.get(AssignmentProblem, (a.id, problem)) is None:
        raise LookupError("no such problem in this assignment")
    subs = final_submits(s, a, problem)
    try:
        starter = starter_texts(find_problem(problem))
    except (ProblemError, OSError):
        starter = []  # the problem left the catalogue: its Submits are still compared
    return compare(problem, subs, starter, top=top), subs


def pairs_by_problem(s: Session, a: Assignment, problems: list[str]) -> dict[str, int]:
    """How many pairs share code in each of ``problems`` (the assignment's), counted without
    their regions: the page opens on the problem with the most, where there is something to read."""
    return {p: similar_submits(s, a, p, top=0)[0].pairs_found for p in problems}
