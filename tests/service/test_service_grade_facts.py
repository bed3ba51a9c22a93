"""What the class insight counts of a grade is kept in columns when the grade is recorded
(the named mistake, the first failing case and whether it is hidden), on SQLite and
PostgreSQL; migration 0010 fills them in for rows graded before it, from their stored
reports, and goes back without losing a Submit's credits."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from service_support import P1, make_user
from sqlalchemy import select, text

from grader.service.core.models import Submission
from grader.service.queue import jobs
from grader.service.server import open_database

HINT = "the clipped gradients are summed; the task asks for their mean over the N examples."


def _case(cid: str, visibility: str, verdict: str, hint: str | None = None) -> dict:
    return {"id": cid, "visibility": visibility, "verdict": verdict, "reason": "", "message": "", "time_ms": 1.0,
            "hint": hint}


# A hidden case that failed before a public one: the first failing case in report order
# is the hidden one; a case not run ("--") is no failure.
WRONG = {"verdict": "WA", "hint": HINT, "passed": 1, "total": 4,
         "cases": [_case("example_1", "public", "AC"), _case("gen_7", "hidden", "WA", HINT),
                   _case("example_2", "public", "WA"), _case("gen_8", "hidden", "--")]}
CRASHED = {"verdict": "RE", "hint": None, "cases": [_case("example_1", "public", "--"),
                                                    _case("example_2", "public", "RE")]}
ACCEPTED = {"verdict": "AC", "hint": None, "cases": [_case("example_1", "public", "AC")]}
LEARNERS_VIEW = {**WRONG, "cases": [{k: v for k, v in c.items() if k != "hint"} for c in WRONG["cases"]]}

EXPECTED = {"WA": (HINT, "gen_7", True), "RE": (None, "example_2", False), "AC": (None, None, None)}


@pytest.fixture
def db(db_url):
    database = open_database(db_url)
    yield database
    database.close()


def _facts(db, sub_id: str) -> tuple:
    with db.read() as s:
        row = s.scalar(select(Submission).where(Submission.id == sub_id))
        return row.mistake, row.failed_case, row.failed_hidden


def test_a_recorded_grade_keeps_its_named_mistake_and_its_first_failing_case(db):
    make_user(db.url, "a@example.org")
    for verdict, full in (("WA", WRONG), ("RE", CRASHED), ("AC", ACCEPTED)):
        with db.write() as s:
            sub = jobs.enqueue(s, 1, P1, "submit", "x = 1", "0" * 64)
            sub_id = sub.id
        job = jobs.claim(db, "w1")
        assert job is not None and job.id == sub_id
        out = jobs.ClaimResult(verdict, 1, 4, LEARNERS_VIEW if verdict == "WA" else full, full, "v", "j")
        assert jobs.finish(db, job, "w1", out)
        assert _facts(db, sub_id) == EXPECTED[verdict], verdict


def test_the_reapers_ie_records_no_mistake_and_no_failing_case(db):
    from grader.service.queue.grading import ie_outcome

    make_user(db.url, "a@example.org")
    with db.write() as s:
        sub = jobs.enqueue(s, 1, P1, "submit", "x = 1", "0" * 64)
        sub.mistake, sub.failed_case, sub.failed_hidden = "stale", "stale", True  # as a rejudged row keeps them
        s.flush()
        jobs.finish_row(s, sub, ie_outcome(P1, "submit", sub.id, "gone"), sub.created_at, None)
        sub_id = sub.id
    assert _facts(db, sub_id) == (None, None, None)


def test_the_migration_fills_in_the_facts_of_rows_graded_before_it_and_goes_back(db_url):
    from alembic import command

    from grader.service.core.db import Database, alembic_config, upgrade

    rows = {"wa": ("WA", json.dumps(LEARNERS_VIEW), json.dumps(WRONG)),  # the full view names the hidden case
            "re": ("RE", json.dumps(CRASHED), None),  # a Run: its full view is the learner's
            "ac": ("AC", json.dumps(ACCEPTED), json.dumps(ACCEPTED)),
            "queued": (None, None, None)}
    db = Database(db_url)
    try:
        with db.engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0009")
            at = {"at": datetime.now(timezone.utc).replace(tzinfo=None)}
            conn.execute(text("INSERT INTO users (id, email, role, created_at) VALUES (90, 'a@x.org', 'learner', :at)"),
                         at)
            conn.execute(text("INSERT INTO courses (id, slug, title, created_at) VALUES (90, 'c', 'C', :at)"), at)
            conn.execute(text("INSERT INTO assignments (id, course_id, slug, title, opens_at, due_at, late_penalty, "
                              "credit, created_at) VALUES (7, 90, 'a', 'A', :at, :at, 0, 'partial', :at)"), at)
            for pk, (sid, (verdict, report, full)) in enumerate(rows.items(), start=1):
                conn.execute(text(
                    "INSERT INTO submissions (pk, id, user_id, problem, kind, source, source_sha256, charged, status, "
                    "priority, created_at, queued_at, attempts, verdict, report, full_report) VALUES (:pk, :id, 90, "
                    "'p', 'submit', '', '', :no, :status, 0, :at, :at, 1, :v, :r, :f)"),
                    {**at, "pk": pk, "id": sid, "no": False, "status": "done" if verdict else "queued", "v": verdict,
                     "r": report, "f": full})
                conn.execute(text("INSERT INTO submission_credits (submission_pk, assignment_id, late) "
                                  "VALUES (:pk, 7, :no)"), {"pk": pk, "no": False})
        upgrade(db)
        with db.engine.connect() as conn:
            got = {r[0]: (r[1], r[2], None if r[3] is None else bool(r[3])) for r in conn.execute(text(
                "SELECT id, mistake, failed_case, failed_hidden FROM submissions"))}
        with db.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0009")
        with db.engine.connect() as conn:
            columns = set(conn.execute(text("SELECT * FROM submissions")).keys())
            credits = conn.execute(text("SELECT count(*) FROM submission_credits")).scalar()
    finally:
        db.close()
    assert got == {"wa": EXPECTED["WA"], "re": EXPECTED["RE"], "ac": EXPECTED["AC"], "queued": (None, None, None)}
    assert not {"mistake", "failed_case", "failed_hidden"} & columns and credits == 4


def test_the_migrations_frozen_copy_reads_a_report_as_the_recording_does():
    import importlib

    frozen = importlib.import_module("grader.service.migrations.versions.0010_grade_facts").facts
    for report in (WRONG, LEARNERS_VIEW, CRASHED, ACCEPTED, {"verdict": "IE", "cases": []},
                   {"hint": "x" * 900, "cases": [_case("y" * 300, "hidden", "TLE")]}):
        assert frozen(report) == jobs.grade_facts(report)
