"""Problems warmed ahead of their grades (``service/warming.py``): idle workers build
every problem's tables from the server's start, and ``/healthz`` lists those still
waiting; a grade of a problem not warm yet waits for its tables, so the first WA Submit
gets the misconception hint the hundredth gets."""
from __future__ import annotations

import time

import httpx
import pytest

from service_support import Server, corpus, make_user, post, problem_copy, sqlite_url, wait_done

pytestmark = pytest.mark.slow  # builds a problem's tables from nothing: tens of seconds


def _fresh(tmp_path, warm: bool, copy: bool) -> tuple[Server, str]:
    """A server with nothing built ahead; ``copy``: over a copy of P1 beside a folder that
    cannot be loaded (else the checkout's problems, whose wrong answers make the hints)."""
    url = sqlite_url(tmp_path)
    token = make_user(url, "ann@example.org")
    problems = problem_copy(tmp_path / "problems", broken=True) if copy else None
    server = Server(url, workers=1, problems=problems, warm=warm)
    server.env["JAXJUDGE_CACHE"] = str(tmp_path / "cache")  # nothing built ahead
    return server.start(), token


def test_idle_workers_warm_every_problem_and_healthz_lists_those_still_waiting(tmp_path):
    from grader.problem import all_problem_ids

    server, _ = _fresh(tmp_path, warm=True, copy=True)
    try:
        everything = [*all_problem_ids(), "broken_problem"]  # as the server sees them, the copy's included
        seen = [httpx.get(server.base + "/healthz", timeout=10).json()["warming"]]
        deadline = time.time() + 300
        # Until two have left the list: the folder that cannot be loaded, and a real problem.
        while time.time() < deadline and len(seen[-1]) > len(everything) - 2:
            time.sleep(0.5)
            seen.append(httpx.get(server.base + "/healthz", timeout=10).json()["warming"])
        assert set(seen[0]) <= set(everything) and len(seen[0]) >= len(everything) - 1
        assert "broken_problem" not in seen[-1] and len(seen[-1]) <= len(everything) - 2
        real = [pid for pid in seen[0] if pid != "broken_problem"]
        assert real[len(real) - len(seen[-1]):] == seen[-1]  # warmed in the order listed, the rest still waiting
        assert any((tmp_path / "cache" / "probe").iterdir())  # its dependence probe's table was built
    finally:
        server.stop()


def test_the_first_wrong_submit_on_a_fresh_server_gets_the_hint(tmp_path):
    server, token = _fresh(tmp_path, warm=False, copy=False)
    try:
        with server.client(token) as ann:
            r = post(ann, corpus("wrong_answer/sum_not_mean.py"), "submit")
            assert r.status_code == 202, r.text
            report = wait_done(ann, r.json()["id"], timeout=600)["report"]
        assert report["verdict"] == "WA" and report["hint"] and "summed" in report["hint"], server.output()[-3000:]
        assert httpx.get(server.base + "/healthz", timeout=10).json()["warming"] == []  # --no-warm: nothing waits
    finally:
        server.stop()


def test_the_most_submitted_problems_are_warmed_first(tmp_path):
    from datetime import datetime, timezone

    from grader.service.accounts import add_user
    from grader.service.models import Submission
    from grader.service.server import open_database
    from grader.service.warming import most_used_first

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
