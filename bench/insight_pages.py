"""The class insight of a large course, rendered server-side: an instructor's assignment
insight page and its API (JSON and CSV) for --learners learners x --problems problems x
--each Submits each, and the gradebook beside them.

    python3 bench/insight_pages.py [--learners 500] [--problems 10] [--each 20] [--requests 30] [--db URL]

The class is written straight into a new database (SQLite, or --db): every Submit graded,
with the verdict, named mistake and first failing case a grade records, spread over a
week around the due time (some late), each counting for the assignment. A live
`grader serve --workers 0` then answers --requests GETs of each route, one at a time, after
one untimed request each: once as an instructor reads them again (the server keeps the
figures while nothing they count changed, ``domain/insight_cache.py``), and once with a
grade recorded before every request (a Submit's ``finished_at`` moved on, as a grade
writes it): each such request gets the kept figures, not fresh, while one count runs in
the background. Then one count of the class in this process (what a first request waits
for). Goal (the issue): the page's and the API's p95 under 1 s.
Everything is on 127.0.0.1; the server is stopped and the folder removed however it ends."""
from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import header
import httpx
from service_harness import Serve, percentile
from web_pages import make_account, session

GOAL = 1.0
VERDICTS = ["WA"] * 6 + ["RE", "CE", "TLE", "RJ"]
MISTAKES = [f"known mistake {k}: the author's hint text, a sentence or two long" for k in range(8)]


def build_class(url: str, learners: int, problems: int, each: int) -> tuple[str, str]:
    """The course, its instructor's token and an assignment; returns (course slug, assignment slug)."""
    from sqlalchemy import insert, select

    from grader.problem import all_problem_ids
    from grader.service.core.models import (Assignment, AssignmentProblem, Course, Membership, Submission,
                                            SubmissionCredit, User)
    from grader.service.server import open_database

    rng = random.Random(7)
    now = datetime.now(timezone.utc)
    due = now - timedelta(days=1)
    pids = (all_problem_ids() * problems)[:problems]
    db = open_database(url)
    try:
        with db.write() as s:
            course = Course(slug="big", title="A large course", created_at=now)
            s.add(course)
            s.flush()
            a = Assignment(course_id=course.id, slug="hw", title="Homework", opens_at=now - timedelta(days=8),
                           due_at=due, late_until=now + timedelta(days=2), late_penalty=0.2, credit="partial",
                           created_at=now)
            s.add(a)
            s.flush()
            for i, pid in enumerate(dict.fromkeys(pids)):
                s.add(AssignmentProblem(assignment_id=a.id, problem=pid, position=i, weight=1.0))
            s.execute(insert(User), [{"email": f"l{k}@example.org", "password_hash": None, "role": "learner",
                                      "created_at": now} for k in range(learners)])
            ids = list(s.scalars(select(User.id).where(User.email.like("l%@example.org"))))
            s.execute(insert(Membership), [{"course_id": course.id, "user_id": u, "role": "learner",
                                            "created_at": now} for u in ids])
            rows, n = [], 0
            for u in ids:
                for pid in dict.fromkeys(pids):
                    solves_at = rng.randrange(2, each + 4)  # some never solve it
                    for k in range(each):
                        when = now - timedelta(days=7) + timedelta(seconds=rng.uniform(0, 7 * 86400))
                        verdict = "AC" if k >= solves_at else rng.choice(VERDICTS)
                        wrong = verdict == "WA"
                        rows.append({"id": f"b{n:031d}", "user_id": u, "problem": pid, "kind": "submit", "source": "",
                                     "source_sha256": "", "status": "done", "created_at": when, "queued_at": when,
                                     "started_at": when, "finished_at": when + timedelta(seconds=1), "attempts": 1,
                                     "verdict": verdict, "passed": 30 if verdict == "AC" else rng.randrange(30),
                                     "total": 30, "mistake": rng.choice(MISTAKES) if wrong and rng.random() < .7
                                     else None, "failed_case": f"gen_s2026_{rng.randrange(24):03d}" if wrong else None,
                                     "failed_hidden": True if wrong else None})
                        n += 1
            for start in range(0, len(rows), 5000):
                s.execute(insert(Submission), rows[start:start + 5000])
            pks = list(s.execute(select(Submission.pk, Submission.created_at)))
            credits = [{"submission_pk": pk, "assignment_id": a.id, "late": created > due} for pk, created in pks]
            for start in range(0, len(credits), 5000):
                s.execute(insert(SubmissionCredit), credits[start:start + 5000])
    finally:
        db.close()
    return "big", "hw"


def graded(url: str):
    """A function that records a grade: the first Submit's ``finished_at`` moved to now."""
    from sqlalchemy import update

    from grader.service.core.models import Submission, utcnow
    from grader.service.server import open_database

    def record() -> None:
        db = open_database(url)
        try:
            with db.write() as s:
                s.execute(update(Submission).where(Submission.pk == 1).values(finished_at=utcnow()))
        finally:
            db.close()
    return record


def count_seconds(url: str, times: int) -> list[float]:
    """Seconds of ``insight.assignment_insight`` over the class, in this process."""
    from sqlalchemy import select

    from grader.service.core.models import Assignment
    from grader.service.domain import insight
    from grader.service.server import open_database

    db = open_database(url)
    out = []
    try:
        with db.read() as s:
            a = s.scalar(select(Assignment))
            for _ in range(times):
                start = time.perf_counter()
                insight.assignment_insight(s, a)
                out.append(time.perf_counter() - start)
    finally:
        db.close()
    return out


def timed(client: httpx.Client, url: str, requests: int, before=None) -> list[float]:
    assert client.get(url).status_code == 200, url  # untimed: the first request of a route
    times = []
    for _ in range(requests):
        if before is not None:
            before()
        start = time.perf_counter()
        r = client.get(url)
        times.append(time.perf_counter() - start)
        assert r.status_code == 200, (url, r.status_code, r.text[:300])
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--learners", type=int, default=500)
    ap.add_argument("--problems", type=int, default=10)
    ap.add_argument("--each", type=int, default=20)
    ap.add_argument("--requests", type=int, default=30)
    ap.add_argument("--db", default=None, help="database URL (default: a new SQLite file)")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    with tempfile.TemporaryDirectory() as tmp:
        url = opts.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        start = time.perf_counter()
        course, hw = build_class(url, opts.learners, opts.problems, opts.each)
        make_account(url, "teacher@example.org", "instructor")
        from grader.service.core.models import Course, Membership, User
        from grader.service.server import open_database
        from sqlalchemy import select

        db = open_database(url)
        with db.write() as s:
            uid = s.scalar(select(User.id).where(User.email == "teacher@example.org"))
            cid = s.scalar(select(Course.id).where(Course.slug == course))
            s.add(Membership(course_id=cid, user_id=uid, role="instructor", created_at=datetime.now(timezone.utc)))
        db.close()
        built = time.perf_counter() - start
        server = Serve(url, workers=0).start()
        try:
            routes = {"page /courses/big/assignments/hw/insight": f"/courses/{course}/assignments/{hw}/insight",
                      "API ?format=json": f"/api/v1/courses/{course}/assignments/{hw}/insight?format=json",
                      "API ?format=csv": f"/api/v1/courses/{course}/assignments/{hw}/insight?format=csv",
                      "gradebook API (beside)": f"/api/v1/courses/{course}/gradebook"}
            results = {}
            client, _csrf = session(server.base, "teacher@example.org")  # a browser's session cookie
            try:
                for name, path in routes.items():
                    results[name] = timed(client, path, opts.requests)
                record = graded(url)
                for name, path in routes.items():
                    if "beside" not in name:
                        results[f"{name}, a grade since each"] = timed(client, path, opts.requests, record)
            finally:
                client.close()
        finally:
            server.stop()
            server.log.unlink(missing_ok=True)
        counts = count_seconds(url, 3)
    n = opts.learners * opts.problems * opts.each
    print(f"class: {opts.learners} learners x {opts.problems} problems x {opts.each} Submits = {n} graded Submits, "
          f"each counting for the assignment (written in {built:.1f} s); SQLite unless --db; "
          f"{opts.requests} GETs per route, one at a time, after one untimed")
    print(f"{'route':64s} {'p50 s':>7s} {'p95 s':>7s} {'max s':>7s}  goal p95 <= {GOAL} s")
    for name, t in results.items():
        p95 = percentile(t, 0.95)
        mark = "" if "beside" in name else ("  met" if p95 <= GOAL else "  NOT met")
        print(f"{name:64s} {statistics.median(t):7.3f} {p95:7.3f} {max(t):7.3f}{mark}")
    print(f"one count of the assignment's figures (what a request with nothing kept waits for, and what the "
          f"background count costs), in-process: median {statistics.median(counts):.3f} s, max {max(counts):.3f} s "
          f"of {len(counts)}")
    header.save(opts)


if __name__ == "__main__":
    main()
