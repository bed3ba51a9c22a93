"""The database layer on a real SQLite file and a real PostgreSQL server: the
migrations create exactly the models' schema, times come back timezone-aware,
claims are exclusive under concurrency, a lost claim writes nothing, and the reaper
requeues what dead workers held (IE after the last attempt, without charging)."""
from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone

import pytest
from service_support import P1, make_user
from sqlalchemy import select, text, update

from grader.service.queue import jobs, reaper, views
from grader.service.core.config import Quotas, Rate
from grader.service.queue.grading import ie_outcome
from grader.service.core.models import REPORT_COLUMNS, RateBucket, Submission, Worker, utcnow
from grader.service.server import open_database


@pytest.fixture
def db(db_url):
    database = open_database(db_url)
    yield database
    database.close()


def _user(db, email="a@example.org") -> int:
    make_user(db.url, email)
    from grader.service.core.models import User

    with db.read() as s:
        return s.scalar(select(User.id).where(User.email == email))


def test_migrations_create_exactly_the_models_schema(db):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from grader.service.core.models import Base

    with db.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(ctx, Base.metadata) == []
        assert ctx.get_current_revision() == _head()


def _head() -> str:
    from alembic.script import ScriptDirectory

    from grader.service.core.db import alembic_config

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_upgrade_twice_is_a_no_op(db):
    from grader.service.core.db import upgrade

    assert upgrade(db) == _head()


def test_a_database_at_the_newest_revision_is_left_alone_without_alembic_and_any_other_goes_through_it(
        db_url, monkeypatch):
    from alembic import command
    from alembic.script import ScriptDirectory

    from grader.service.core.db import Database, _heads, alembic_config, upgrade

    script = ScriptDirectory.from_config(alembic_config())
    assert _heads() == set(script.get_heads())  # the migration files read as alembic reads them
    head = _head()
    previous = script.get_revision(head).down_revision
    assert isinstance(previous, str)
    database = Database(db_url)
    ran = []
    real = command.upgrade
    monkeypatch.setattr(command, "upgrade", lambda *a, **k: ran.append(a[1]) or real(*a, **k))
    try:
        with database.engine.begin() as conn:
            real(alembic_config(conn), previous)
        assert upgrade(database) == head and ran == ["head"]  # one revision behind: migrated, as always
        assert upgrade(database) == head and ran == ["head"]  # at the newest: alembic not asked
        with database.engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '9999_unknown'"))
        with pytest.raises(Exception, match="9999_unknown"):  # newer than this code: refused, as always
            upgrade(database)
        assert ran == ["head", "head"]
    finally:
        database.close()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_reports_are_jsonb_on_postgresql(db):
    assert db.dialect == "postgresql"
    with db.engine.connect() as conn:
        types = dict(conn.execute(text("SELECT column_name, data_type FROM information_schema.columns "
                                       "WHERE table_name = 'submissions'")).all())
    assert types["report"] == "jsonb" and types["full_report"] == "jsonb"
    assert types["created_at"] == "timestamp with time zone"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_sqlite_runs_in_wal_with_busy_timeout_and_foreign_keys(db):
    assert db.dialect == "sqlite"
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_times_come_back_timezone_aware_and_naive_ones_are_refused(db):
    uid = _user(db)
    with db.write() as s:
        sub = jobs.enqueue(s, uid, P1, "run", "x = 1", "0" * 64)
        sid = sub.id
    with db.read() as s:
        got = s.scalar(select(Submission).where(Submission.id == sid))
    assert got.created_at.tzinfo is not None and got.created_at.utcoffset() == timedelta(0)
    assert abs((utcnow() - got.created_at).total_seconds()) < 60
    with pytest.raises(Exception, match="naive"):
        with db.write() as s:
            s.execute(update(Submission).values(queued_at=datetime.now()))


def test_concurrent_claims_take_every_row_exactly_once(db):
    uid = _user(db)
    with db.write() as s:
        ids = {jobs.enqueue(s, uid, P1, "run", f"x = {i}", "0" * 64).id for i in range(24)}
    workers = [f"w{i}" for i in range(6)]
    reaper.register(db, "inst", workers)
    claimed: dict[str, list[str]] = {w: [] for w in workers}
    start = threading.Barrier(len(workers))

    def claim_all(wid):
        start.wait()
        while (job := jobs.claim(db, wid)) is not None:
            claimed[wid].append(job.id)

    threads = [threading.Thread(target=claim_all, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    got = [i for w in workers for i in claimed[w]]
    assert sorted(got) == sorted(ids)  # each row once, none twice
    with db.read() as s:
        rows = s.scalars(select(Submission)).all()
    assert all(r.status == "running" and r.attempts == 1 and r.claimed_by in workers for r in rows)


def _outcome(verdict="AC"):
    return jobs.ClaimResult(verdict, 1, 1, {"verdict": verdict}, {"verdict": verdict, "full": True}, "v1", "0.1.0")


def test_a_worker_that_lost_its_claim_writes_nothing(db):
    uid = _user(db)
    with db.write() as s:
        jobs.enqueue(s, uid, P1, "run", "x = 1", "0" * 64)
    reaper.register(db, "inst", ["w1", "w2"])
    first = jobs.claim(db, "w1")
    jobs.release(db, first, "w1")  # as the reaper would, presuming w1 dead
    second = jobs.claim(db, "w2")
    assert second.id == first.id and second.attempts == 2
    assert jobs.finish(db, first, "w1", _outcome("WA")) is False
    assert jobs.finish(db, second, "w2", _outcome("AC")) is True
    with db.read() as s:
        row = s.scalar(select(Submission).options(*REPORT_COLUMNS))
    assert (row.status, row.verdict, row.report) == ("done", "AC", {"verdict": "AC"})


def _dead_worker_holding(db, uid, attempts: int, charged: bool) -> str:
    now = utcnow()
    with db.write() as s:
        s.add(Worker(id="dead-0", instance="dead", host=jobs.HOST, pid=2 ** 22 + 1, started_at=now,
                     heartbeat_at=now, graded=0))
        sub = jobs.enqueue(s, uid, P1, "submit", "x = 1", "0" * 64, charged=charged)
        sub.status, sub.claimed_by, sub.attempts, sub.started_at = "running", "dead-0", attempts, now
        return sub.id


def _reap(db, limits=None):
    return reaper.reap(db, "me", 15.0, 3, lambda r: ie_outcome(r.problem, r.kind, r.id, "interrupted"), limits)[:2]


def test_reaper_requeues_a_row_held_by_a_dead_process_in_its_place(db):
    uid = _user(db)
    sid = _dead_worker_holding(db, uid, attempts=1, charged=True)
    with db.write() as s:  # two rows that were sent after it
        later = [jobs.enqueue(s, uid, P1, "run", f"x = {i}", "0" * 64).id for i in range(2)]
    assert _reap(db) == (1, 0)
    with db.read() as s:
        row = s.scalar(select(Submission).where(Submission.id == sid))
        assert s.scalar(select(Worker).where(Worker.id == "dead-0")) is None
        assert views.position(s, row) == 1  # first in line again, ahead of what came after it
    assert (row.status, row.claimed_by, row.attempts, row.verdict) == ("queued", None, 1, None)
    reaper.register(db, "inst", ["w1"])
    assert [jobs.claim(db, "w1").id for _ in range(3)] == [sid, *later]


def test_reaper_spares_live_workers_and_reaps_stale_heartbeats(db):
    uid = _user(db)
    sid = _dead_worker_holding(db, uid, attempts=1, charged=False)
    with db.write() as s:  # alive: a live process (our parent), a fresh heartbeat
        import os

        s.execute(update(Worker).values(pid=os.getppid()))
    assert _reap(db) == (0, 0)
    with db.write() as s:
        s.execute(update(Worker).values(heartbeat_at=utcnow() - timedelta(seconds=60)))
    assert _reap(db) == (1, 0)
    with db.read() as s:
        assert s.scalar(select(Submission.status).where(Submission.id == sid)) == "queued"


def test_after_the_last_attempt_the_verdict_is_ie_and_the_learner_is_not_charged(db):
    uid = _user(db)
    limits = Quotas(submit=Rate(2, 3600.0))
    with db.write() as s:
        s.add(RateBucket(user_id=uid, kind="submit", tokens=0.0, updated_at=utcnow()))
    sid = _dead_worker_holding(db, uid, attempts=3, charged=True)
    assert _reap(db, limits) == (0, 1)
    with db.read() as s:
        row = s.scalar(select(Submission).where(Submission.id == sid).options(*REPORT_COLUMNS))
        tokens = s.scalar(select(RateBucket.tokens).where(RateBucket.user_id == uid))
    assert (row.status, row.verdict) == ("done", "IE")
    assert row.report["reason"] == "judge" and row.report["message"] == "interrupted"
    assert row.report["total"] > 0 and row.finished_at.tzinfo == timezone.utc
    assert tokens == pytest.approx(1.0, abs=0.01)  # the token taken for it came back


def test_an_unknown_email_runs_an_argon2_verification_too(db, monkeypatch):
    from argon2 import PasswordHasher

    from grader.service.domain import accounts

    verified: list[str] = []
    real = PasswordHasher.verify

    def spy(self, hash, password):
        verified.append(hash)
        return real(self, hash, password)

    monkeypatch.setattr(PasswordHasher, "verify", spy)
    make_user(db.url, "known@example.org", password="a real password")
    make_user(db.url, "tokens-only@example.org")  # no password: logs in with nothing, at the same cost
    with db.write() as s:
        for email in ("nobody@example.org", "tokens-only@example.org"):
            verified.clear()
            assert accounts.verify_password(s, email, "whatever") is None
            assert verified == accounts._DUMMY_HASH  # one whole verification, against the dummy hash
        assert accounts._hasher().check_needs_rehash(accounts._DUMMY_HASH[0]) is False  # a real password's cost
        verified.clear()
        assert accounts.verify_password(s, "known@example.org", "wrong password") is None
        assert len(verified) == 1 and verified[0] != accounts._DUMMY_HASH[0]
        assert accounts.verify_password(s, "KNOWN@example.org ", "a real password").email == "known@example.org"


def test_passwords_are_hashed_at_owasps_cost_and_one_hashed_with_the_old_defaults_logs_in_and_is_rehashed(db):
    from argon2 import PasswordHasher, extract_parameters

    from grader.service.core.models import User
    from grader.service.domain import accounts

    owasp = (2, 19456, 1)  # OWASP's Password Storage Cheat Sheet, argon2id: t=2, m=19 MiB, p=1

    def cost(stored: str) -> tuple[int, int, int]:
        p = extract_parameters(stored)
        return p.time_cost, p.memory_cost, p.parallelism

    make_user(db.url, "old@example.org", password="an old password")
    old = PasswordHasher(time_cost=3, memory_cost=65536, parallelism=4).hash("an old password")  # argon2-cffi's
    with db.write() as s:
        assert cost(s.scalar(select(User.password_hash).where(User.email == "old@example.org"))) == owasp
        s.execute(update(User).where(User.email == "old@example.org").values(password_hash=old))
    with db.write() as s:
        assert accounts.verify_password(s, "old@example.org", "wrong password") is None
    with db.read() as s:
        assert s.scalar(select(User.password_hash).where(User.email == "old@example.org")) == old  # not on a miss
    with db.write() as s:
        assert accounts.verify_password(s, "old@example.org", "an old password").email == "old@example.org"
    with db.read() as s:
        rehashed = s.scalar(select(User.password_hash).where(User.email == "old@example.org"))
    assert rehashed.startswith("$argon2id$") and cost(rehashed) == owasp
    with db.write() as s:
        assert accounts.verify_password(s, "old@example.org", "an old password") is not None
    with db.read() as s:
        assert s.scalar(select(User.password_hash).where(User.email == "old@example.org")) == rehashed  # once


@pytest.mark.parametrize("lead", ["=", "+", "-", "@", "\t", "\r"], ids=repr)
def test_gradebook_csv_defuses_spreadsheet_formulas_and_leaves_empty_cells_empty(lead):
    import csv
    import io

    from grader.service.domain.gradebook import COLUMNS, to_csv, to_wide_csv

    learner = f"{lead}HYPERLINK(\"http://x\")@example.org"
    row = dict.fromkeys(COLUMNS, "")
    row.update(learner=learner, problem="p", best_verdict="WA", best_passed=1, best_total=3)
    got = next(csv.DictReader(io.StringIO(to_csv([row]))))
    assert got["learner"] == "'" + learner and got["problem"] == "p"
    assert got["last_verdict"] == got["best_id"] == ""  # an empty cell is no formula: nothing to defuse
    wide = list(csv.reader(io.StringIO(to_wide_csv([row], ["p", "q"]))))
    assert wide[1] == ["'" + learner, "WA 1/3", ""]


def test_rejudged_rows_count_against_neither_the_queue_cap_nor_the_learners_pending_cap(db):
    from grader.service.domain.accounts import Principal
    from grader.service.queue.admission import Refused, admit

    uid = _user(db)
    who = Principal(uid, "a@example.org", "learner", "token")
    limits = Quotas(run=Rate(100, 60.0), pending_per_learner=2, queue_cap=3)
    with db.write() as s:  # five of hers, requeued by an instructor's rejudge
        for i in range(5):
            jobs.enqueue(s, uid, P1, "submit", f"x = {i}", "0" * 64).priority = jobs.REJUDGE
    assert [admit(db, who, P1, "run", f"y = {i}", None, limits, 1).created for i in range(2)] == [True, True]
    with pytest.raises(Refused) as pending:
        admit(db, who, P1, "run", "y = 2", None, limits, 1)
    assert pending.value.status == 429
    teacher = Principal(_user(db, "t@example.org"), "t@example.org", "instructor", "token")
    admit(db, teacher, P1, "run", "z = 1", None, limits, 1)
    with pytest.raises(Refused) as full:
        admit(db, teacher, P1, "run", "z = 2", None, limits, 1)
    assert full.value.status == 503 and "(3 waiting)" in full.value.message


def test_parallel_requests_of_one_learner_cannot_pass_the_pending_cap_together(db):
    from grader.service.domain.accounts import Principal
    from grader.service.queue.admission import Refused, admit

    uid = _user(db)
    who = Principal(uid, "a@example.org", "learner", "token")
    limits = Quotas(run=Rate(100, 60.0), pending_per_learner=3)
    results: list[str] = []
    start = threading.Barrier(10)

    def one(i):
        start.wait()
        try:
            admit(db, who, P1, "run", f"x = {i}", None, limits, 1)
            results.append("ok")
        except Refused as exc:
            results.append(str(exc.status))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(results) == ["429"] * 7 + ["ok"] * 3


def test_a_claim_never_takes_a_row_that_used_its_attempts(db):
    uid = _user(db)
    with db.write() as s:
        spent = jobs.enqueue(s, uid, P1, "run", "x = 1", "0" * 64)
        spent.attempts = 3
        fresh = jobs.enqueue(s, uid, P1, "run", "x = 2", "0" * 64).id
    reaper.register(db, "inst", ["w1"])
    assert jobs.claim(db, "w1", max_attempts=3).id == fresh
    assert jobs.claim(db, "w1", max_attempts=3) is None


def test_a_claim_takes_no_submit_of_a_problem_it_is_told_to_skip_and_leaves_them_in_line_but_takes_its_runs(db):
    uid = _user(db)
    with db.write() as s:
        waiting = jobs.enqueue(s, uid, "global_norm_clipping", "submit", "x = 1", "0" * 64).id
        run = jobs.enqueue(s, uid, "global_norm_clipping", "run", "x = 3", "0" * 64).id
        other = jobs.enqueue(s, uid, P1, "submit", "x = 2", "0" * 64).id
    reaper.register(db, "inst", ["w1"])
    assert jobs.claim(db, "w1", skip=["global_norm_clipping"]).id == run  # a Run needs no hidden case
    assert jobs.claim(db, "w1", skip=["global_norm_clipping"]).id == other
    assert jobs.claim(db, "w1", skip=["global_norm_clipping"]) is None
    assert jobs.claim(db, "w1").id == waiting  # claimable again once no longer skipped


def test_a_claim_that_waited_for_a_submits_transaction_starts_it_no_earlier_than_it_was_created(db):
    uid = _user(db)
    reaper.register(db, "inst", ["w1"])
    got: list = []

    def claim_until_found():
        for _ in range(200):
            if (job := jobs.claim(db, "w1")) is not None:
                got.append(job.id)
                return
            threading.Event().wait(0.01)

    with db.write() as s:  # on SQLite this transaction holds the write lock the claim waits for
        s.execute(update(Worker).where(Worker.id == "w1").values(heartbeat_at=utcnow()))
        claimer = threading.Thread(target=claim_until_found)
        claimer.start()
        threading.Event().wait(0.1)  # the claim has begun before the Submit is created
        sid = jobs.enqueue(s, uid, P1, "submit", "x = 1", "0" * 64).id
    claimer.join(timeout=30)
    assert got == [sid]
    with db.read() as s:
        row = s.scalar(select(Submission).where(Submission.id == sid))
    assert row.started_at >= row.created_at


def test_a_queued_row_that_used_its_attempts_is_finished_as_ie_and_refunded(db):
    uid = _user(db)
    limits = Quotas(run=Rate(2, 3600.0))
    with db.write() as s:
        s.add(RateBucket(user_id=uid, kind="run", tokens=0.0, updated_at=utcnow()))
        row = jobs.enqueue(s, uid, P1, "run", "x = 1", "0" * 64, charged=True)
        row.attempts, sid = 3, row.id
    assert _reap(db, limits) == (0, 1)
    with db.read() as s:
        row = s.scalar(select(Submission).where(Submission.id == sid).options(*REPORT_COLUMNS))
        tokens = s.scalar(select(RateBucket.tokens).where(RateBucket.user_id == uid))
    assert (row.status, row.verdict, row.report["reason"]) == ("done", "IE", "judge")
    assert row.stored_bytes > len("x = 1") and tokens == pytest.approx(1.0, abs=0.01)


def test_a_worker_that_cannot_record_a_result_spends_an_attempt_each_time_then_writes_ie(db, monkeypatch):
    """Whatever raises while a claimed row is finished (here: every write of a result) is
    an attempt; past the last one the row is IE, never claimed again."""
    from grader.service.core.config import ServiceConfig
    from grader.service.queue.workers import Workers

    uid = _user(db)
    with db.write() as s:
        sid = jobs.enqueue(s, uid, P1, "run", "x = 1", "0" * 64).id
    config = ServiceConfig(db_url=db.url, workers=0, max_attempts=3)
    workers = Workers(db, config)
    reaper.register(db, workers.instance, workers.ids + ["w"])
    real_finish, calls = jobs.finish, []

    def refusing(db_, job, wid, outcome, *a, **kw):
        calls.append(outcome.verdict)
        if outcome.report.get("message", "").startswith("the judge could not record"):
            return real_finish(db_, job, wid, outcome, *a, **kw)
        raise RuntimeError("the database refused the report")

    monkeypatch.setattr(jobs, "finish", refusing)
    monkeypatch.setattr(Workers, "_run", lambda self, wid, job, grade, sandbox: jobs.finish(
        self.db, job, wid, jobs.ClaimResult("WA", 0, 3, {"m": 1}, {"m": 1}, "", "")))
    for attempt in range(1, 4):
        job = jobs.claim(db, "w", config.max_attempts)
        assert job is not None and job.attempts == attempt
        try:
            workers._run("w", job, None, None)
        except RuntimeError as exc:
            workers._give_up_or_release(job, "w", exc)
    assert jobs.claim(db, "w", config.max_attempts) is None
    with db.read() as s:
        row = s.scalar(select(Submission).where(Submission.id == sid).options(*REPORT_COLUMNS))
    assert (row.status, row.verdict, row.attempts) == ("done", "IE", 3)
    assert "RuntimeError" in row.report["message"]


def test_the_migration_from_the_first_schema_counts_storage_and_keeps_one_copy_of_a_run(db_url):
    from alembic import command

    from grader.service.core.db import Database, alembic_config, upgrade

    database = Database(db_url)
    try:
        with database.engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0001")
        doc = json.dumps({"verdict": "AC", "cases": []})
        with database.engine.begin() as conn:
            conn.execute(text("INSERT INTO users (email, role, created_at) VALUES ('a@x.org', 'learner', :t)"),
                         {"t": utcnow()})
            for i, (kind, full) in enumerate((("run", doc), ("submit", json.dumps({"verdict": "AC", "full": 1})))):
                conn.execute(text(
                    "INSERT INTO submissions (id, user_id, problem, kind, source, source_sha256, charged, status, "
                    "priority, created_at, queued_at, attempts, verdict, report, full_report) VALUES "
                    "(:id, 1, :p, :kind, 'x = 1', :sha, false, 'done', 0, :t, :t, 1, 'AC', :r, :f)"),
                    {"id": f"s{i}", "p": P1, "kind": kind, "sha": "0" * 64, "t": utcnow(), "r": doc, "f": full})
        upgrade(database)
        with database.engine.connect() as conn:
            rows = dict((r[0], r[1:]) for r in conn.execute(text(
                "SELECT kind, full_report IS NULL, stored_bytes FROM submissions")).all())
    finally:
        database.close()
    assert rows["run"][0] and not rows["submit"][0]
    assert rows["run"][1] == len("x = 1") + len(doc) and rows["submit"][1] > rows["run"][1]


def test_the_custom_runs_migration_keeps_old_rows_admits_the_new_kind_and_goes_back(db_url):
    from alembic import command
    from sqlalchemy.exc import IntegrityError

    from grader.service.core.db import Database, alembic_config, upgrade

    row = ("INSERT INTO submissions (id, user_id, problem, kind, source, source_sha256, charged, status, priority, "
           "created_at, queued_at, attempts{extra}) VALUES (:id, 1, :p, :kind, 'x = 1', :sha, false, 'queued', 0, :t, "
           ":t, 0{values})")
    database = Database(db_url)
    try:
        with database.engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0002")
            conn.execute(text("INSERT INTO users (email, role, created_at) VALUES ('a@x.org', 'learner', :t)"),
                         {"t": utcnow()})
            conn.execute(text(row.format(extra="", values="")), {"id": "old", "p": P1, "kind": "run", "sha": "0" * 64,
                                                                  "t": utcnow()})
        upgrade(database)
        new = row.format(extra=", custom_input", values=", :input")
        with database.engine.begin() as conn:
            conn.execute(text(new), {"id": "new", "p": P1, "kind": "custom", "sha": "0" * 64, "t": utcnow(),
                                     "input": json.dumps({"x": [1.0]})})
        with pytest.raises(IntegrityError), database.engine.begin() as conn:
            conn.execute(text(new), {"id": "bad", "p": P1, "kind": "other", "sha": "0" * 64, "t": utcnow(),
                                     "input": None})
        with database.engine.connect() as conn:
            kinds = dict(conn.execute(text("SELECT id, kind FROM submissions")).all())
        with database.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0002")
        with database.engine.connect() as conn:
            left = [r[0] for r in conn.execute(text("SELECT id FROM submissions")).all()]
    finally:
        database.close()
    assert kinds == {"old": "run", "new": "custom"} and left == ["old"]


def test_the_courses_migration_puts_every_existing_account_in_the_default_course_in_its_role(db_url):
    from alembic import command

    from grader.service.core.db import Database, alembic_config, upgrade

    database = Database(db_url)
    try:
        with database.engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0003")
            for email, role in (("a@x.org", "learner"), ("t@x.org", "instructor")):
                conn.execute(text("INSERT INTO users (email, role, created_at) VALUES (:e, :r, :t)"),
                             {"e": email, "r": role, "t": utcnow()})
        upgrade(database)
        with database.engine.connect() as conn:
            members = dict(conn.execute(text(
                "SELECT u.email, m.role FROM memberships m JOIN users u ON u.id = m.user_id "
                "JOIN courses c ON c.id = m.course_id WHERE c.slug = 'default'")).all())
        make_user(db_url, "new@x.org")  # a course made after the migration gets the next id
        with database.engine.begin() as conn:
            conn.execute(text("INSERT INTO courses (slug, title, created_at) VALUES ('next', 'Next', :t)"),
                         {"t": utcnow()})
            ids = [r[0] for r in conn.execute(text("SELECT id FROM courses ORDER BY id")).all()]
            command.downgrade(alembic_config(conn), "0003")
        with database.engine.connect() as conn:
            users = {r[0] for r in conn.execute(text("SELECT email FROM users")).all()}
    finally:
        database.close()
    assert members == {"a@x.org": "learner", "t@x.org": "instructor"}
    assert ids == [1, 2] and users == {"a@x.org", "t@x.org", "new@x.org"}
