"""The gradebook. A course's (``course_book``): each of its assignments, with every
learner's score per problem and points, the very figures of the assignment's page
(``assignments.scores``). The practice view across the catalogue (``gradebook``): per
learner and problem, the best and the last verdict of their Submits, for an assignment
or not. IE never counts (the learner is not charged for the judge's failure), nor do
rows not graded yet. Best = accepted first, then most cases passed, then earliest."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from . import assignments as asg
from .accounts import Principal
from ..core.csv_io import spreadsheet_safe as spreadsheet_safe  # its old home; every CSV goes through write_csv
from ..core.csv_io import write_csv
from ..core.models import Assignment, AssignmentProblem, Course, Membership, Submission, User
from .trust import submission_seen_by

COLUMNS = ["learner", "problem", "best_verdict", "best_passed", "best_total", "best_id", "best_problem_version",
           "last_verdict", "last_passed", "last_total", "last_id", "last_at", "submits"]


@dataclass(frozen=True)
class AssignmentScores:
    assignment: Assignment
    problems: list[AssignmentProblem]
    rows: list[asg.Row]

    @property
    def possible(self) -> float:
        return sum(p.weight for p in self.problems)


def course_book(s: Session, course: Course) -> list[AssignmentScores]:
    """Each assignment of ``course`` (by due time) with every learner's scores, computed
    as its page computes them: one figure for one piece of work, wherever it shows."""
    return [AssignmentScores(a, *asg.scores(s, a)) for a in asg.of_course(s, course)]


def gradebook(db, who: Principal, courses, problem: str | None = None) -> list[dict]:
    """The learners of ``courses`` (SQL: their ids), by their Submits that ``who`` may
    see (``trust.submission_seen_by``: never one that counts only for another course)."""
    learners = select(Membership.user_id).where(Membership.course_id.in_(courses), Membership.role == "learner")
    # The columns it reads, never whole rows: a row's reports are most of its bytes.
    q = (select(User.email, Submission.problem, Submission.verdict, Submission.passed, Submission.total,
                Submission.id, Submission.created_at, Submission.problem_version)
         .join(User, User.id == Submission.user_id)
         .where(Submission.kind == "submit", Submission.verdict.is_not(None), Submission.verdict != "IE",
                Submission.user_id.in_(learners), submission_seen_by(who)).order_by(Submission.pk))
    if problem:
        q = q.where(Submission.problem == problem)
    with db.read() as s:
        rows = s.execute(q).all()
    book: dict[tuple[str, str], dict] = {}
    for sub in rows:
        entry = book.setdefault((sub.email, sub.problem), {"learner": sub.email, "problem": sub.problem, "submits": 0,
                                                       "_best": None})
        entry["submits"] += 1
        rank = (sub.verdict == "AC", (sub.passed or 0) / (sub.total or 1))
        if entry["_best"] is None or rank > entry["_best"][0]:
            entry["_best"] = (rank, sub)
        entry.update(last_verdict=sub.verdict, last_passed=sub.passed, last_total=sub.total, last_id=sub.id,
                     last_at=sub.created_at.isoformat())
    out = []
    for key in sorted(book):
        entry = book[key]
        best = entry.pop("_best")[1]
        entry.update(best_verdict=best.verdict, best_passed=best.passed, best_total=best.total, best_id=best.id,
                     best_problem_version=best.problem_version)
        out.append({k: entry[k] for k in COLUMNS})
    return out


def to_csv(rows: list[dict]) -> str:
    return write_csv(COLUMNS, ([r.get(k) for k in COLUMNS] for r in rows))


def best_cell(entry: dict | None) -> str:
    """``AC 39/39``: the best Submit's verdict and cases passed; empty when none."""
    if not entry:
        return ""
    return f"{entry['best_verdict']} {entry['best_passed'] or 0}/{entry['best_total'] or 0}"


def to_wide_csv(rows: list[dict], problems: list[str]) -> str:
    """One row per learner, one column per problem (the best Submit, as ``best_cell``)."""
    by_learner: dict[str, dict[str, dict]] = {}
    for r in rows:
        by_learner.setdefault(r["learner"], {})[r["problem"]] = r
    return write_csv(["learner", *problems], ([learner, *(best_cell(by_learner[learner].get(p)) for p in problems)]
                                             for learner in sorted(by_learner)))
