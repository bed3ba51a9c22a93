"""Back-pressure and limits against a live server that grades nothing (`--workers 0`),
so that queues stay put: the Run and Submit token buckets and the pending cap (429
with Retry-After, instructors exempt), the global queue cap (503 with Retry-After),
queue positions and ages, a report asked for before it exists (409), the queue's
state, and login attempts (429), counted per connection whatever X-Forwarded-For says
(no proxy is trusted by default)."""
from __future__ import annotations

import pytest
from service_support import P1, Server, corpus, make_user, post, sqlite_url

SRC = corpus("accepted/flat_norm.py")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("limits")
    url = sqlite_url(root)
    tokens = {name: make_user(url, f"{name}@example.org", instructor=name == "teacher",
                              password="secret password" if name == "pat" else None)
              for name in ("teacher", "ann", "bob", "pat")}
    server = Server(url, "--run-limit", "2/h", "--submit-limit", "1/h", "--max-pending", "3", "--queue-cap", "8",
                    workers=0).start()
    clients = {name: server.client(tok) for name, tok in tokens.items()}
    yield server, clients
    for c in clients.values():
        c.close()
    server.stop()


def _retry_after(r) -> int:
    return int(r.headers["retry-after"])


def test_run_bucket_refuses_past_its_burst_with_retry_after(env):
    _, c = env
    ann = c["ann"]
    assert [post(ann, SRC, "run").status_code for _ in range(2)] == [202, 202]
    refused = post(ann, SRC, "run")
    assert refused.status_code == 429 and "run rate limit" in refused.json()["detail"]
    assert 60 < _retry_after(refused) <= 1800  # one token back in half an hour at 2/h


def test_pending_cap_refuses_a_learner_with_too_many_waiting(env):
    _, c = env
    ann = c["ann"]  # two Runs waiting from the test above
    assert post(ann, SRC, "submit").status_code == 202
    refused = post(ann, SRC, "submit")
    assert refused.status_code == 429 and "waiting" in refused.json()["detail"] and _retry_after(refused) >= 1


def test_submit_bucket_is_separate_from_run(env):
    _, c = env
    bob = c["bob"]
    assert post(bob, SRC, "submit").status_code == 202
    refused = post(bob, SRC, "submit")
    assert refused.status_code == 429 and "submit rate limit" in refused.json()["detail"]
    assert post(bob, SRC, "run").status_code == 202


def test_queue_positions_and_ages_while_queued(env):
    _, c = env
    teacher = c["teacher"]
    rows = sorted(teacher.get("/submissions").json(), key=lambda r: r["created_at"])
    views = [teacher.get(f"/submissions/{r['id']}").json() for r in rows]
    assert [v["queue"]["position"] for v in views] == list(range(1, len(views) + 1))
    assert all(v["status"] == "queued" and v["verdict"] is None and v["queue"]["age_seconds"] >= 0 for v in views)
    assert views[0]["queue"]["age_seconds"] >= views[-1]["queue"]["age_seconds"]


def test_a_report_asked_for_before_grading_is_409(env):
    _, c = env
    sid = c["ann"].get("/submissions").json()[0]["id"]
    r = c["ann"].get(f"/submissions/{sid}", params={"format": "junit"})
    assert r.status_code == 409 and r.json()["status"] == "queued" and r.headers["retry-after"] == "1"


def test_instructors_are_exempt_from_learner_limits_but_not_the_queue_cap(env):
    server, c = env
    teacher = c["teacher"]
    depth = teacher.get("/queue").json()["depth"]
    codes = [post(teacher, SRC, "submit").status_code for _ in range(8 - depth)]
    assert codes == [202] * (8 - depth)  # far past the learners' buckets and pending cap
    full = post(teacher, SRC, "run")
    assert full.status_code == 503 and "queue is full" in full.json()["detail"] and _retry_after(full) >= 1
    assert post(c["pat"], SRC, "run").status_code == 503


def _done_row(url: str, email: str, version: str, verdict: str) -> str:
    from sqlalchemy import select

    from grader.service.queue import jobs
    from grader.service.core.models import User, utcnow
    from grader.service.server import open_database

    db = open_database(url)
    with db.write() as s:
        uid = s.scalar(select(User.id).where(User.email == email))
        sub = jobs.enqueue(s, uid, P1, "submit", SRC, "0" * 64)
        sub.status, sub.verdict, sub.passed, sub.total = "done", verdict, 39, 39
        sub.problem_version, sub.finished_at = version, utcnow()
        sid = sub.id
    db.close()
    return sid


def test_rejudge_requeues_stale_submits_behind_the_learners_keeping_their_verdict(env):
    server, c = env
    teacher = c["teacher"]
    from grader.problem import find_problem
    from grader.problem.catalogue import content_hash

    current = content_hash(find_problem(P1))
    stale = _done_row(server.db_url, "bob@example.org", "an-old-version", "WA")
    fresh = _done_row(server.db_url, "bob@example.org", current, "AC")
    r = teacher.post(f"/problems/{P1}/rejudge")
    assert r.json() == {"problem": P1, "problem_version": current, "requeued": 1, "suite": None}
    view = teacher.get(f"/submissions/{stale}").json()
    assert (view["status"], view["verdict"], view["problem_version"]) == ("queued", "WA", "an-old-version")
    depth = teacher.get("/queue").json()["depth"]
    assert view["queue"]["position"] == depth  # behind every learner's queued work
    assert teacher.get(f"/submissions/{fresh}").json()["status"] == "done"
    assert teacher.post(f"/problems/{P1}/rejudge", params={"all": "true"}).json()["requeued"] == 1
    assert teacher.get(f"/submissions/{fresh}").json()["status"] == "queued"


def test_queue_reports_depth_oldest_age_and_idle_workers(env):
    _, c = env
    q = c["teacher"].get("/queue").json()
    assert q["depth"] == 10 and q["running"] == 0 and q["queued_by_kind"]["submit"] >= 2
    assert q["oldest_age_seconds"] > 0 and q["workers"] == {"alive": 0, "busy": 0, "grading": 0, "own_work": 0}


def test_healthz_with_no_workers_is_healthy(env):
    server, c = env
    body = c["ann"].get(server.base + "/healthz").json()
    assert body["ok"] and body["workers"] == {"configured": 0, "alive": 0}


@pytest.mark.slow
def test_login_attempts_are_rate_limited_per_client_address_whatever_x_forwarded_for_says(env):
    # No --forwarded-allow-ips here: the address is the connection's, and a client that
    # names another in X-Forwarded-For (or claims HTTPS) changes nothing.
    server, _ = env
    with server.client() as anon:
        ok = anon.post("/auth/login", json={"email": "pat@example.org", "password": "secret password"},
                       headers={"X-Forwarded-For": "10.0.0.99", "X-Forwarded-Proto": "https"})
        assert ok.status_code == 200 and "secure" not in ok.headers["set-cookie"].lower()
        codes = [anon.post("/auth/login", json={"email": "pat@example.org", "password": "guess"},
                           headers={"X-Forwarded-For": f"10.0.{i}.1"}).status_code for i in range(10)]
        assert codes[:9] == [401] * 9 and codes[9] == 429  # the 11th attempt from this address
        r = anon.post("/auth/login", json={"email": "pat@example.org", "password": "secret password"},
                      headers={"X-Forwarded-For": "10.0.200.1"})
        assert r.status_code == 429 and _retry_after(r) >= 1
