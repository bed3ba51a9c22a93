"""The gradebook: per learner and problem, the best and the last verdict of their
Submits. IE never counts (the learner is not charged for the judge's failure), nor
do rows not graded yet. Best = accepted first, then most cases passed, then earliest."""
from __future__ import annotations

import csv
import io

from sqlalchemy import select

from .models import Membership, Submission, User

COLUMNS = ["learner", "problem", "best_verdict", "best_passed", "best_total", "best_id", "best_problem_version",
           "last_verdict", "last_passed", "last_total", "last_id", "last_at", "submits"]


def gradebook(db, courses, problem: str | None = None) -> list[dict]:
    """The learners of ``courses`` (SQL: their ids), by their Submits."""
    learners = select(Membership.user_id).where(Membership.course_id.in_(courses), Membership.role == "learner")
    q = (select(User.email, Submission).join(User, User.id == Submission.user_id)
         .where(Submission.kind == "submit", Submission.verdict.is_not(None), Submission.verdict != "IE",
                Submission.user_id.in_(learners)).order_by(Submission.pk))
    if problem:
        q = q.where(Submission.problem == problem)
    with db.read() as s:
        rows = s.execute(q).all()
    book: dict[tuple[str, str], dict] = {}
    for email, sub in rows:
        entry = book.setdefault((email, sub.problem), {"learner": email, "problem": sub.problem, "submits": 0,
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


def spreadsheet_safe(v):
    """A cell a spreadsheet shows as text, never runs as a formula."""
    # A learner-chosen email starting with = + - @ (or a tab or CR, which some spreadsheets
    # skip before reading one of those) would be a formula in a spreadsheet.
    return "'" + v if isinstance(v, str) and v and v[0] in "=+-@\t\r" else v


def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: spreadsheet_safe(v) for k, v in r.items()})
    return buf.getvalue()


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
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["learner", *problems])
    for learner in sorted(by_learner):
        w.writerow([spreadsheet_safe(learner), *(best_cell(by_learner[learner].get(p)) for p in problems)])
    return buf.getvalue()
