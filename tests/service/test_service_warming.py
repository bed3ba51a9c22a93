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
    """Every step run, in order, as (problem, phase); a step of ``hold`` waits for ``release``."""
    from grader.authoring.warm import Step

    log: list[tuple[str, str]] = []
    hold: dict = {"phase": None, "entered": threading.Event(), "release": threading.Event()}

    def run(step, sandbox):
        log.append((step.problem.id, step.phase))
        if step.phase == hold["phase"]:
            hold["entered"].set()
            hold["release"].wait(10)
        return "built"

    monkeypatch.setattr(Step, "run", run)
    return log, hold


def test_warming_builds_every_probe_table_then_every_hint_then_the_caches(built):
    from grader.authoring.warm import steps
    from grader.problem import find_problem
    from grader.service.queue.warming import Warming

    log, _ = built
    warming = Warming([P2, P1, "no_such_problem"])
    assert warming.failed == ["no_such_problem"] and list(warming.pending()) == [P2, P1]
    assert set(warming.pending().values()) == {"probe"}
    while warming.warm_next(sandbox=None):
        pass
    phases = [phase for _pid, phase in log]
    assert phases == sorted(phases, key=["probe", "hint", "cache"].index)  # phase by phase, across problems
    assert log[:2] == [(P2, "probe"), (P1, "probe")]  # in the order given (most-submitted first)
    assert len(log) == len(steps(find_problem(P1))) + len(steps(find_problem(P2)))  # each step once
    assert warming.pending() == {}


def test_warming_is_ready_once_every_probe_table_and_every_hint_is_built_before_any_cache(built):
    from grader.service.queue.warming import Warming

    log, _ = built
    warming = Warming([P2, P1])
    readiness = [warming.ready()]
    while warming.warm_next(sandbox=None):
        readiness.append(warming.ready())
    first_cache = next(i for i, (_pid, phase) in enumerate(log) if phase == "cache")
    assert readiness[first_cache] is True and readiness[first_cache - 1] is False  # ready at the last hint
    assert all(readiness[first_cache:])
    assert Warming([]).ready()  # nothing to warm (--no-warm, Dask): ready at once


def test_the_problems_in_use_have_their_hints_built_first_and_ready_waits_for_theirs_alone(built):
    from grader.service.queue.warming import Warming

    log, _ = built
    warming = Warming([P1, P2], in_use=[P2])
    readiness = []
    while warming.warm_next(sandbox=None):
        readiness.append(warming.ready())
    hints = [pid for pid, phase in log if phase == "hint"]
    assert hints == sorted(hints, key=[P2, P1].index) and P1 in hints  # P2's first, though P1 is listed first
    at_ready = readiness.index(True)
    assert log[at_ready] == (P2, "hint") and log[at_ready + 1] == (P1, "hint")  # ready before P1's hints


def test_every_worker_warms_until_ready_and_one_stays_free_after(built):
    from grader.service.queue.warming import Warming

    log, hold = built
    hold["phase"] = "probe"
    warming = Warming([P2, P1], background=1, before_ready=2)
    first = threading.Thread(target=warming.warm_next, args=(None,))
    first.start()
    assert hold["entered"].wait(10)
    second = threading.Thread(target=warming.warm_next, args=(None,))
    try:
        second.start()
        second.join(0.5)
        assert (P1, "probe") in log  # not ready yet: the second worker warms too
    finally:
        hold["release"].set()
        first.join(10)
        second.join(10)
    while not warming.ready():
        warming.warm_next(sandbox=None)
    hold.update(phase="cache", entered=threading.Event(), release=threading.Event())
    first = threading.Thread(target=warming.warm_next, args=(None,))
    first.start()
    assert hold["entered"].wait(10)
    try:
        assert warming.warm_next(sandbox=None) is False  # ready: the second worker stays free to grade
    finally:
        hold["release"].set()
        first.join(10)


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


def test_no_warming_step_starts_while_a_grade_runs(built):
    from grader.service.queue.warming import Warming

    log, _ = built
    warming = Warming([P2, P1], background=2)
    with warming.grading():
        assert warming.warm_next(sandbox=None) is False  # the grade has the machine to itself
        assert log == []
    assert warming.warm_next(sandbox=None) is True and log == [(P2, "probe")]


def test_a_grade_of_a_problem_whose_probe_table_is_being_built_waits_for_that_build(built):
    from grader.service.queue.warming import Warming

    log, hold = built
    hold["phase"] = "probe"
    warming = Warming([P1], background=1)
    background = threading.Thread(target=warming.warm_next, args=(None,))
    background.start()
    assert hold["entered"].wait(10)
    grade = threading.Thread(target=warming.ensure, args=(P1, None))
    grade.start()
    grade.join(0.3)
    assert grade.is_alive()  # waiting on the background build, not building its own
    hold["release"].set()
    for t in (background, grade):
        t.join(10)
    assert log == [(P1, "probe")]


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
        # Phase-major: every probe table, then the hints of P1, the problem in use, then the
        # other problems' hints and the caches, left to finish after the test.
        while time.time() < deadline and ready[-1][0] != 200:
            time.sleep(0.5)
            ready.append(_readyz(server))
            seen.append(ready[-1][1])
        # /readyz: 503 while any probe table or a hint of P1 is still to build, 200 once none is.
        assert ready[0][0] == 503 and ready[-1][0] == 200, server.output()[-3000:]
        assert all(code == 503 for code, pending in ready if "probe" in pending.values()
                   or pending.get(P1) == "hint"), ready
        assert set(seen[0]) == everything - {"broken_problem"} and "broken_problem" not in seen[0]
        phases = [w[P1] for w in seen if P1 in w]
        assert phases == sorted(phases, key=["probe", "hint", "cache"].index) and "hint" in phases
        assert seen[-1].get(P1) in (None, "cache") and "probe" not in seen[-1].values(), seen[-1]
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
def test_without_warming_a_grade_builds_its_probe_table_and_healthz_lists_nothing(tmp_path):
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
