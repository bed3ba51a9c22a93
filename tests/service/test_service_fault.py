"""A server killed with SIGKILL in the middle of a load loses nothing: after a
restart every submission ends graded exactly once, none lost, none duplicated, with
the verdict the corpus gives it; the one being graded at the kill is requeued and
graded again. On SQLite and on PostgreSQL. A server stopped with SIGTERM lets a grade
finish within its grace period, and requeues one that does not."""
from __future__ import annotations

import re
import threading
import time

import httpx
import pytest
from service_support import P1, Server, corpus, make_user, wait_done
from sqlalchemy import select

from grader.service.core.models import REPORT_COLUMNS, Submission, Worker
from grader.service.queue.orphans import _members
from grader.service.server import open_database

# Slow: each test kills or stops a server in the middle of a load and waits for every grade.
pytestmark = pytest.mark.slow

SLOW = "time_limit_exceeded/attack_module_level_loop.py"  # 10 s in the sandbox: the kill lands inside it
FILES = {SLOW: "TLE", "accepted/flat_norm.py": "AC", "wrong_answer/norm_without_bias.py": "WA",
         "rejected/decoy_call.py": "RJ", "runtime_error/raises.py": "RE", "compile_error/imports_os.py": "CE",
         "accepted/ravel_pytree.py": "AC", "wrong_answer/sum_not_mean.py": "WA"}
CLIENTS = 4


def _zygote_groups(url: str) -> list[int]:
    db = open_database(url)
    with db.read() as s:
        pids = [p for p in s.scalars(select(Worker.zygote_pid)).all() if p]
    db.close()
    return pids


def _post_until_accepted(base: str, token: str, key: str, source: str, deadline: float) -> str:
    """POST with an Idempotency-Key, again and again while the server is down: a
    request that reached the server before it died returns the same submission."""
    while time.time() < deadline:
        try:
            r = httpx.post(base + "/api/v1/submissions", headers={"Authorization": f"Bearer {token}",
                                                                  "Idempotency-Key": key},
                           json={"problem": P1, "source": source, "kind": "submit"}, timeout=30)
            if r.status_code in (200, 202):
                return r.json()["id"]
            assert r.status_code == 503, r.text
        except (httpx.TransportError, httpx.RemoteProtocolError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"{key} was never accepted")


def test_a_killed_server_loses_and_duplicates_nothing(db_url):
    tokens = [make_user(db_url, f"c{i}@example.org") for i in range(CLIENTS)]
    teacher = make_user(db_url, "teacher@example.org", instructor=True)
    limits = ("--no-feedback", "--submit-limit", "100/min", "--max-pending", "10")
    server = Server(db_url, *limits, workers=2).start()
    files = list(FILES)
    ids: dict[str, str] = {}
    deadline = time.time() + 300

    def client(i: int) -> None:
        for n, rel in enumerate(files[i::CLIENTS]):
            ids[f"c{i}-{n}"] = _post_until_accepted(server.base, tokens[i], f"c{i}-{n}", corpus(rel), deadline)
            ids[f"c{i}-{n}-file"] = rel

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    with server.client(teacher) as watch:
        while time.time() < deadline:  # kill once the slow one is being graded
            mine = {r["id"]: r["status"] for r in watch.get("/submissions").json()}
            slow = ids.get("c0-0")
            if slow and mine.get(slow) == "running":
                break
            time.sleep(0.1)
    zygotes = _zygote_groups(db_url)
    assert len(zygotes) == 2
    server.kill()
    time.sleep(1.0)
    restarted = Server(db_url, *limits, workers=2)
    restarted.port, restarted.base = server.port, server.base  # clients keep their address
    restarted.start()
    try:
        for t in threads:
            t.join(timeout=300)
        with restarted.client(teacher) as c:
            done = {key: wait_done(c, sid, timeout=300) for key, sid in ids.items() if not key.endswith("-file")}
    finally:
        restarted.stop()
    requeued = re.search(r"requeued (\d+) submission\(s\) left running by a dead worker", restarted.output())
    assert requeued and int(requeued.group(1)) >= 1
    assert not [g for g in zygotes if _members(g)]  # the dead server's sandboxes were ended, not left to run
    db = open_database(db_url)
    with db.read() as s:
        rows = s.scalars(select(Submission).options(*REPORT_COLUMNS)).all()
    db.close()
    assert len(rows) == len(FILES)  # none lost, none duplicated
    assert all(r.status == "done" and r.report is not None for r in rows)
    for key, view in done.items():
        assert view["verdict"] == FILES[ids[key + "-file"]], (ids[key + "-file"], view["verdict"])
    attempts = {r.id: r.attempts for r in rows}
    assert attempts[ids["c0-0"]] == 2  # claimed by the dead server, then once more
    assert sum(1 for a in attempts.values() if a == 2) == int(requeued.group(1))
    assert set(attempts.values()) <= {1, 2}


def _run_slow_until_running(server: Server, token: str) -> int:
    """Submits the slow file as a run and returns its id once a worker has claimed it."""
    with server.client(token) as c:
        sid = c.post("/submissions", json={"problem": P1, "source": corpus(SLOW), "kind": "run"}).json()["id"]
        deadline = time.time() + 120
        while c.get(f"/submissions/{sid}").json()["status"] != "running" and time.time() < deadline:
            time.sleep(0.1)
    return sid


def test_a_stopped_server_ends_its_sandboxes_and_requeues_the_grade_uncounted(tmp_path):
    from service_support import sqlite_url

    url = sqlite_url(tmp_path)
    token = make_user(url, "slow@example.org")
    server = Server(url, "--no-feedback", "--shutdown-grace", "1", workers=1).start()
    sid = _run_slow_until_running(server, token)
    zygotes = _zygote_groups(url)
    time.sleep(1.0)  # the child is now inside the slow module
    server.stop()  # SIGTERM: a grace period, then the sandbox is ended
    assert server.proc.returncode in (0, -15)  # uvicorn re-raises the signal once it has shut down
    assert zygotes and not [g for g in zygotes if _members(g)]
    db = open_database(url)
    with db.read() as s:
        row = s.scalar(select(Submission).options(*REPORT_COLUMNS).where(Submission.id == sid))
        workers = s.scalars(select(Worker)).all()
    db.close()
    assert (row.status, row.attempts, row.verdict, row.claimed_by) == ("queued", 0, None, None)
    assert workers == []  # unregistered: nothing for the next start to reap


def test_a_stopped_server_lets_a_grade_that_ends_within_the_grace_finish_and_records_it(tmp_path):
    import signal

    from service_support import sqlite_url

    url = sqlite_url(tmp_path)
    token = make_user(url, "patient@example.org")
    server = Server(url, "--no-feedback", "--shutdown-grace", "90", workers=1).start()
    sid = _run_slow_until_running(server, token)
    server.proc.send_signal(signal.SIGTERM)  # the grade has about 10 s to go: well within the grace
    server.proc.wait(timeout=150)
    server.log.close()
    db = open_database(url)
    with db.read() as s:
        row = s.scalar(select(Submission).options(*REPORT_COLUMNS).where(Submission.id == sid))
        workers = s.scalars(select(Worker)).all()
    db.close()
    assert (row.status, row.verdict, row.attempts) == ("done", "TLE", 1)  # graded once, not requeued
    assert row.report is not None and workers == []


def test_kill_group_ends_a_sandbox_process_group_and_nothing_else():
    import os
    import subprocess
    import sys

    from grader.service.queue.orphans import kill_group

    # Processes named like the zygote: one forks a child (same group), as a zygote does.
    script = "import os, time; os.fork(); time.sleep(120)"
    group = subprocess.Popen([sys.executable, "-c", script, "grader.sandbox.zygote"], start_new_session=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "grader.sandbox.zygote"],
                             start_new_session=True)
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        deadline = time.time() + 30
        while len(_members(group.pid)) < 2 and time.time() < deadline:
            time.sleep(0.05)
        assert len(_members(group.pid)) == 2
        assert kill_group(group.pid) == 2
        group.wait(timeout=30)
        deadline = time.time() + 30
        while _members(group.pid) and time.time() < deadline:  # the forked child, reparented, is reaped by init
            time.sleep(0.05)
        assert _members(group.pid) == [] and other.poll() is None and bystander.poll() is None
        assert kill_group(os.getpgrp()) == 0  # pytest's own group holds no zygote: untouched
    finally:
        for p in (group, other, bystander):
            p.kill()
            p.wait()
