"""Problems warmed ahead of their grades (``service/queue/warming.py``): idle workers
build every problem's tables step by step from the server's start, every probe table
first, then the hints (the problems in use first), and ``/healthz`` lists the problems
still warming with their phase; ``/readyz`` waits for the probe tables and the hints of
the problems in use; a grade waits only for its problem's probe table, and a server that
is ready gives the first WA Submit the misconception hint the hundredth gets."""
from __future__ import annotations

import threading
import time

import httpx
import pytest

from service_support import P1, Server, add_assignment, corpus, make_user, post, problem_copy, sqlite_url, wait_done

P2 = "value_and_grad_loss"


def _fresh(tmp_path, warm: bool, copy: bool, workers: int = 1, assign: tuple[str, ...] = ()) -> tuple[Server, str]:
    """A server with nothing built ahead; ``copy``: over a copy of P1 (with two of its
    wrong answers) beside a folder that cannot be loaded, else the checkout's problems;
    ``assign``: the problems of an open assignment (the problems in use)."""
    url = sqlite_url(tmp_path)
    token = make_user(url, "ann@example.org")
    if assign:
        _open_assignment(url, assign)
    problems = problem_copy(tmp_path / "problems", broken=True) if copy else None
    if copy:  # two of its wrong answers, so that it has hints to build
        wrong = tmp_path / "submissions" / P1 / "wrong_answer"
        wrong.mkdir(parents=True)
        for name in ("sum_not_mean.py", "always_rescale.py"):
            (wrong / name).write_text(corpus(f"wrong_answer/{name}"))
    server = Server(url, workers=workers, problems=problems, warm=warm)
    server.env["JAXJUDGE_CACHE"] = str(tmp_path / "cache")  # nothing built ahead
    return server.start(), token


def _open_assignment(url: str, problems: tuple[str, ...]) -> None:
    from grader.service.server import open_database

    db = open_database(url)
    try:
        with db.write() as s:
            add_assignment(s, problems)
    finally:
        db.close()


def _warming(server: Server) -> dict[str, str]:
    return httpx.get(server.base + "/healthz", timeout=10).json()["warming"]


def _readyz(server: Server) -> tuple[int, dict[str, str]]:
    r = httpx.get(server.base + "/readyz", timeout=10)
    return r.status_code, r.json()["warming"]


# ---------------------------------------------------------------- the plan, without a sandbox

@pytest.fixture
def built(monkeypatch):
    """Every step run, in order, as (problem, phase); a step of ``hold`` waits for
    ``release`` (which a warmer's ``stop`` sets: the step ends as a killed one would)."""
    from grader.authoring.warm import Step

    log: list[tuple[str, str]] = []
    hold: dict = {"phase": None, "entered": threading.Event(), "release": threading.Event()}

    def run(step, sandbox, started=None):
        log.append((step.problem.id, step.phase))
        if step.phase == hold["phase"]:
            hold["entered"].set()
            hold["release"].wait(10)
        return "built"

    monkeypatch.setattr(Step, "run", run)
    return log, hold


class _Box:
    """A warmer's sandbox whose ``stop`` releases the held step."""

    def __init__(self, hold: dict | None = None) -> None:
        self.hold, self.stops = hold, 0

    def stop(self) -> None:
        self.stops += 1
        if self.hold is not None:
            self.hold["release"].set()


def _warmer(hold: dict | None = None):
    from grader.service.queue.warming import Warmer

    return Warmer(_Box(hold))


def _warm_all(warming) -> None:
    warmer = _warmer()
    while warming.warm_next(warmer):
        pass


def test_warming_builds_every_probe_table_then_every_hint_then_the_caches(built):
    from grader.authoring.warm import steps
    from grader.problem import find_problem
    from grader.service.queue.warming import Warming

    log, _ = built
    warming = Warming([P2, P1, "no_such_problem"])
    assert warming.failed == ["no_such_problem"] and list(warming.pending()) == [P2, P1]
    assert set(warming.pending().values()) == {"probe"}
    _warm_all(warming)
    phases = [phase for _pid, phase in log]
    assert phases == sorted(phases, key=["probe", "hint", "cache"].index)  # phase by phase, across problems
    assert log[:2] == [(P2, "probe"), (P1, "probe")]  # in the order given (most-submitted first)
    assert len(log) == len(steps(find_problem(P1))) + len(steps(find_problem(P2)))  # each step once
    assert warming.pending() == {} and warming.finished()


def test_warming_is_ready_once_every_probe_table_and_every_hint_is_built_before_any_cache(built):
    from grader.service.queue.warming import Warming

    log, _ = built
    warming = Warming([P2, P1])
    readiness = [warming.ready()]
    warmer = _warmer()
    while warming.warm_next(warmer):
        readiness.append(warming.ready())
    first_cache = next(i for i, (_pid, phase) in enumerate(log) if phase == "cache")
    assert readiness[first_cache] is True and readiness[first_cache - 1] is False  # ready at the last hint
    assert all(readiness[first_cache:])
    assert Warming([]).ready()  # nothing to warm (--no-warm, Dask): ready at once


def test_the_problems_in_use_are_warmed_first_and_ready_waits_for_theirs_alone(built):
    from grader.service.queue.warming import Warming

    log, _ = built
    warming = Warming([P1, P2], in_use=[P2])
    readiness = []
    warmer = _warmer()
    while warming.warm_next(warmer):
        readiness.append(warming.ready())
    at_ready = readiness.index(True)
    # P2's probe table and hints first, though P1 is listed first; ready then, before any of P1's.
    assert {pid for pid, _phase in log[:at_ready + 1]} == {P2} and log[at_ready] == (P2, "hint")
    assert log[at_ready + 1] == (P1, "probe")
    assert [phase for _pid, phase in log][-2:] == ["cache", "cache"]  # every cache last


def test_an_assignment_made_after_the_start_moves_its_problems_first_and_ready_follows_it(built):
    from grader.service.queue.warming import Warming

    log, _ = built
    used = [P1]
    warming = Warming([P1, P2], in_use=lambda: list(used), refresh=0.0)
    warmer = _warmer()
    while not warming.ready():
        assert warming.warm_next(warmer)
    assert {pid for pid, _phase in log} == {P1}  # P1 in use: P1's tables alone, and ready
    used.append(P2)  # an assignment with P2 was created (the server reads the database again)
    assert not warming.ready()  # /readyz follows: P2's tables are now waited for
    assert warming.warm_next(warmer) and log[-1] == (P2, "probe")  # before P1's caches
    while not warming.ready():
        assert warming.warm_next(warmer)
    assert all(phase != "cache" for _pid, phase in log)  # ready again before any cache


def test_a_grade_stops_the_warming_step_in_progress_which_is_redone_once_no_grade_runs(built):
    from grader.service.queue.warming import Warming

    log, hold = built
    hold["phase"] = "probe"
    warming = Warming([P2], settle=0.2)
    box = _Box(hold)
    from grader.service.queue.warming import Warmer

    warmer = Warmer(box)
    results: list[bool] = []
    background = threading.Thread(target=lambda: results.append(warming.warm_next(warmer)))
    background.start()
    assert hold["entered"].wait(10)
    started = time.monotonic()
    with warming.grading():
        background.join(5)
        assert not background.is_alive() and time.monotonic() - started < 0.5  # stopped at once
        assert box.stops == 1 and results == [False]  # not counted as built
        assert warming.pending() == {P2: "probe"}
        assert warming.warm_next(warmer) is False  # nothing starts while a grade runs
    assert warming.warm_next(warmer) is False  # nor until no grade has run for `settle` seconds
    time.sleep(0.25)
    hold["phase"] = None
    assert warming.warm_next(warmer) is True and log == [(P2, "probe"), (P2, "probe")]  # redone
    assert warming.pending() == {P2: "hint"}


def test_the_problems_in_use_are_those_of_assignments_not_yet_closed_else_all(tmp_path):
    from datetime import datetime, timedelta, timezone

    from grader.service.core.models import Assignment, AssignmentProblem, Course
    from grader.service.queue.warming import in_use
    from grader.service.server import open_database

    db = open_database(sqlite_url(tmp_path))
    try:
        everything = ["a", "b", "c", "d"]
        assert in_use(db, everything) == everything  # no assignment: the whole catalogue is practice
        now = datetime.now(timezone.utc)
        day = timedelta(days=1)
        with db.write() as s:
            course = Course(slug="ml", title="ML", created_at=now)
            s.add(course)
            s.flush()
            for slug, opens, due, late, problem in [("closed", now - 3 * day, now - 2 * day, None, "a"),
                                                    ("late", now - 3 * day, now - day, now + day, "b"),
                                                    ("upcoming", now + day, now + 2 * day, None, "d")]:
                a = Assignment(course_id=course.id, slug=slug, title=slug, opens_at=opens, due_at=due,
                               late_until=late, late_penalty=0.0, credit="partial", created_at=now)
                s.add(a)
                s.flush()
                s.add(AssignmentProblem(assignment_id=a.id, problem=problem, position=0, weight=1.0))
        assert in_use(db, everything) == ["b", "d"]
    finally:
        db.close()


def test_a_grade_waits_only_for_its_problems_probe_table(built):
    from grader.service.queue.warming import Warming

    log, _ = built
    warming = Warming([P2, P1])
    warming.ensure(P1, sandbox=None)
    assert log == [(P1, "probe")]
    assert warming.pending() == {P2: "probe", P1: "hint"}
    warming.ensure(P1, sandbox=None)  # built once
    assert log == [(P1, "probe")]


def test_a_grade_of_a_problem_whose_probe_table_a_warmer_is_building_stops_it_and_builds_it_itself(built):
    from grader.service.queue.warming import Warmer, Warming

    log, hold = built
    hold["phase"] = "probe"
    warming = Warming([P1])
    warmer = Warmer(_Box(hold))
    background = threading.Thread(target=warming.warm_next, args=(warmer,))
    background.start()
    assert hold["entered"].wait(10)
    hold["phase"] = None
    with warming.grading():
        grade = threading.Thread(target=warming.ensure, args=(P1, None))
        grade.start()
        for t in (background, grade):
            t.join(5)
            assert not t.is_alive()
    assert log == [(P1, "probe"), (P1, "probe")]  # the warmer's, stopped, then the grade's own
    assert warming.pending() == {P1: "hint"}  # built once: no warmer builds it again


# ---------------------------------------------------------------- a live server

@pytest.mark.slow  # builds every problem's tables from nothing: minutes
def test_a_fresh_server_is_ready_once_the_hints_of_the_problems_in_use_are_built_and_a_first_wrong_submit_gets_one(
        tmp_path):
    from grader.problem import all_problem_ids

    server, token = _fresh(tmp_path, warm=True, copy=True, assign=(P1,))
    try:
        everything = set(all_problem_ids())  # as the server sees them: the catalogue, P1 from the copy
        ready = [_readyz(server)]
        seen = [ready[0][1]]
        deadline = time.time() + 600
        # P1, the problem in use, first: its probe table, then its hints; then the other
        # problems' tables and the caches, left to finish after the test.
        while time.time() < deadline and ready[-1][0] != 200:
            time.sleep(0.5)
            ready.append(_readyz(server))
            seen.append(ready[-1][1])
        # /readyz: 503 while P1's probe table or a hint of P1 is still to build, 200 once none
        # is, whatever the other problems (not in use) still lack.
        assert ready[0][0] == 503 and ready[-1][0] == 200, server.output()[-3000:]
        assert all(code == 503 for code, pending in ready if pending.get(P1) in ("probe", "hint")), ready
        assert set(seen[0]) == everything - {"broken_problem"} and "broken_problem" not in seen[0]
        phases = [w[P1] for w in seen if P1 in w]
        assert phases == sorted(phases, key=["probe", "hint", "cache"].index) and "hint" in phases
        assert seen[-1].get(P1) in (None, "cache"), seen[-1]
        assert any((tmp_path / "cache" / "probe").iterdir())  # its dependence probe's table was built
        assert any((tmp_path / "cache" / "mistakes").iterdir())  # and its misconceptions
        with server.client(token) as ann:
            r = post(ann, corpus("wrong_answer/sum_not_mean.py"), "submit")
            assert r.status_code == 202, r.text
            report = wait_done(ann, r.json()["id"], timeout=600)["report"]
        assert report["verdict"] == "WA" and "summed" in (report["hint"] or ""), server.output()[-3000:]
        assert not report["hint_may_follow"]
    finally:
        server.stop()


@pytest.mark.slow
def test_without_warming_a_grade_puts_its_probe_table_in_place_itself_and_healthz_lists_nothing(tmp_path):
    server, token = _fresh(tmp_path, warm=False, copy=False)
    try:
        assert _warming(server) == {}  # --no-warm: nothing waits
        assert _readyz(server) == (200, {})
        with server.client(token) as ann:
            r = post(ann, corpus("accepted/flat_norm.py"), "run")
            assert r.status_code == 202, r.text
            assert wait_done(ann, r.json()["id"], timeout=600)["verdict"] == "AC"
        assert any((tmp_path / "cache" / "probe").iterdir())
    finally:
        server.stop()


def test_the_most_submitted_problems_are_warmed_first(tmp_path):
    from datetime import datetime, timezone

    from grader.service.domain.accounts import add_user
    from grader.service.core.models import Submission
    from grader.service.server import open_database
    from grader.service.queue.warming import most_used_first

    db = open_database(sqlite_url(tmp_path))
    try:
        now = datetime.now(timezone.utc)
        with db.write() as s:
            user = add_user(s, "ann@example.org", "learner", None)
            s.flush()
            for i, pid in enumerate(["b", "c", "c", "c", "b"]):
                s.add(Submission(id=f"s{i}", user_id=user.id, problem=pid, kind="run", source="", source_sha256="",
                                 status="done", created_at=now, queued_at=now))
        assert most_used_first(db, ["a", "b", "c", "d"]) == ["c", "b", "a", "d"]
    finally:
        db.close()


# Put on the server's PYTHONPATH: every warming step first runs a process for a minute
# (as a slow step would), which the warmer's ``stop`` kills; a grade's own steps are not slowed.
_SLOW_STEPS = '''
import subprocess, sys
from grader.authoring import warm

_run = warm.Step.run

def run(self, sandbox, started=None):
    if started is not None:
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        started(proc)
        sys.stderr.write(f"slow warming step: {self.problem.id} {self.phase}\\n")
        sys.stderr.flush()
        if proc.wait() != 0:
            raise RuntimeError("killed")  # as a real step's sandbox run ends when killed
    return _run(self, sandbox, started)

warm.Step.run = run
'''


def _warming_slowly(tmp_path, url: str) -> Server:
    """A server (one worker, an empty judge cache) whose every warming step first runs a
    process for a minute (``_SLOW_STEPS``), once its first step is under way."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(_SLOW_STEPS)
    server = Server(url, workers=1, warm=True)
    server.env["JAXJUDGE_CACHE"] = str(tmp_path / "cache")
    server.env["PYTHONPATH"] = str(hooks)
    server.start()
    deadline = time.time() + 120
    while "slow warming step" not in server.output() and time.time() < deadline:
        time.sleep(0.2)
    if "slow warming step" not in server.output():
        server.stop()
        raise AssertionError(server.output()[-3000:])
    return server


@pytest.mark.slow  # a live server and a graded Run: about 20 s
def test_a_run_sent_while_a_slow_warming_step_runs_is_claimed_at_once_and_the_step_is_redone(tmp_path):
    from datetime import datetime

    url = sqlite_url(tmp_path)
    token = make_user(url, "ann@example.org")
    teacher = make_user(url, "tess@example.org", instructor=True)
    server = _warming_slowly(tmp_path, url)
    try:
        with server.client(teacher) as tess:
            deadline = time.time() + 10  # recorded within half a second (own_work.RECORD_EVERY)
            while not (queue := tess.get("/queue").json())["own_work"] and time.time() < deadline:
                time.sleep(0.1)
        # The queue counts the warmer as busy and says with what; the worker that grades is free.
        assert queue["workers"]["busy"] == queue["workers"]["own_work"] == 1, queue
        assert queue["workers"]["grading"] == 0 and queue["own_work"][0].startswith("warming "), queue
        with server.client(token) as ann:
            r = post(ann, corpus("accepted/flat_norm.py"), "run")
            assert r.status_code == 202, r.text
            done = wait_done(ann, r.json()["id"], timeout=300)
        assert done["verdict"] == "AC", done
        waited = (datetime.fromisoformat(done["started_at"]) - datetime.fromisoformat(done["created_at"]))
        assert waited.total_seconds() <= 0.5, waited  # in line for no longer than half a second
        first = server.output().split("slow warming step: ")[1].split("\n")[0]
        deadline = time.time() + 40  # stopped, not left to end its minute: redone once no grade runs
        while server.output().count(f"slow warming step: {first}") < 2 and time.time() < deadline:
            time.sleep(0.2)
        assert server.output().count(f"slow warming step: {first}") == 2, server.output()[-3000:]
    finally:
        server.stop()


def test_the_worker_roles_migration_makes_every_existing_worker_a_grading_one_and_goes_back(db_url):
    from datetime import datetime, timezone

    from alembic import command
    from sqlalchemy import text

    from grader.service.core.db import Database, alembic_config, upgrade

    db = Database(db_url)
    try:
        with db.engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0012")
            at = {"at": datetime.now(timezone.utc).replace(tzinfo=None)}
            conn.execute(text("INSERT INTO workers (id, instance, host, pid, started_at, heartbeat_at, graded) "
                              "VALUES ('w1', 'i', 'h', 1, :at, :at, 3)"), at)
        upgrade(db)
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT id, role, doing, graded FROM workers")).all() == [("w1", "grade", None, 3)]
        with db.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0012")
        with db.engine.connect() as conn:
            rows = conn.execute(text("SELECT * FROM workers"))
            assert {"role", "doing"}.isdisjoint(rows.keys()) and len(rows.all()) == 1
    finally:
        db.close()


@pytest.mark.slow  # a live server: about 15 s
def test_a_server_stopped_while_it_warms_exits_within_three_seconds_and_leaves_no_warming_process(tmp_path):
    import os
    import signal

    server = _warming_slowly(tmp_path, sqlite_url(tmp_path))
    try:
        step = [int(p) for p in os.listdir("/proc") if p.isdigit() and _is_slow_step(int(p))]
        assert step
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=30)
        assert time.monotonic() - started <= 3.0
        time.sleep(0.2)
        assert not any(_is_slow_step(pid) for pid in step)  # the step's process ended too
    finally:
        server.stop()


def _is_slow_step(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            line = f.read()
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return b"time.sleep(60)" in line and state != "Z"
