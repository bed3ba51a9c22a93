"""The gradebook: per learner and problem, the best and the last verdict of their
Submits. IE never counts (the learner is not charged for the judge's failure), nor
do rows not graded yet. Best = accepted first, then most cases passed, then earliest."""
from __future__ import annotations

import csv
import io

from sqlalchemy import select

from .models import Submission, User

COLUMNS = ["learner", "problem", "best_verdict", "best_passed", "best_total", "best_id", "best_problem_version",
           "last_verdict", "last_passed", "last_total", "last_id", "last_at", "submits"]


def gradebook(db, problem: str | None = None) -> list[dict]:
    q = (select(User.email, Submission).join(User, User.id == Submission.user_id)
         .where(Submission.kind == "submit", Submission.verdict.is_not(None), Submission.verdict != "IE",
                User.role == "learner").order_by(Submission.pk))
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


def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        # A learner-chosen email starting with = + - @ would be a formula in a spreadsheet.
        w.writerow({k: ("'" + v if isinstance(v, str) and v[:1] in "=+-@\t\r" else v) for k, v in r.items()})
    return buf.getvalue()
