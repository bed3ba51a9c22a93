"""An instructor's rejudge against a live server that grades nothing (`--workers 0`):
the requeued Submits wait behind everyone's own work and count against neither the
learners' pending cap (429) nor the queue cap (503), which still bound what people
send themselves."""
from __future__ import annotations

import pytest
from service_support import P1, Server, corpus, make_user, post, sqlite_url
from sqlalchemy import select

from grader.service.queue import jobs
from grader.service.core.models import User, utcnow
from grader.service.server import open_database

SRC = corpus("accepted/flat_norm.py")
REJUDGED = 12  # more than the queue cap and than ann's pending cap


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    url = sqlite_url(tmp_path_factory.mktemp("rejudge"))
    tokens = {name: make_user(url, f"{name}@example.org", instructor=name == "teacher")
              for name in ("teacher", "ann", "bob")}
    db = open_database(url)
    with db.write() as s:  # ann's graded Submits, from a version of the problem that is no more
        uid = s.scalar(select(User.id).where(User.email == "ann@example.org"))
        for i in range(REJUDGED):
            sub = jobs.enqueue(s, uid, P1, "submit", f"{SRC}\n# {i}", f"{i:064d}")
            sub.status, sub.verdict, sub.passed, sub.total = "done", "WA", 1, 39
            sub.problem_version, sub.finished_at = "an-old-version", utcnow()
    db.close()
    server = Server(url, "--run-limit", "100/min", "--max-pending", "2", "--queue-cap", "4", workers=0).start()
    clients = {name: server.client(tok) for name, tok in tokens.items()}
    r = clients["teacher"].post(f"/problems/{P1}/rejudge")
    assert r.status_code == 200 and r.json()["requeued"] == REJUDGED
    yield server, clients
    for c in clients.values():
        c.close()
    server.stop()


def test_a_learner_whose_submits_are_rejudged_can_still_run_first_in_line(env):
    _, c = env
    ann = c["ann"]
    assert c["teacher"].get("/queue").json()["depth"] == REJUDGED
    r = post(ann, SRC, "run")
    assert r.status_code == 202, r.text
    assert ann.get(f"/submissions/{r.json()['id']}").json()["queue"]["position"] == 1  # ahead of the rejudges
    assert post(ann, SRC, "run").status_code == 202
    refused = post(ann, SRC, "run")  # her own two are what the pending cap counts
    assert refused.status_code == 429 and "2 submission(s) waiting" in refused.json()["detail"]


def test_the_queue_cap_counts_what_people_sent_not_the_rejudges(env):
    _, c = env
    assert post(c["bob"], SRC, "run").status_code == 202  # ann's 2 + bob's 1: 3 of 4, beside 12 rejudged
    assert post(c["teacher"], SRC, "run").status_code == 202
    full = post(c["bob"], SRC, "run")
    assert full.status_code == 503 and "queue is full (4 waiting)" in full.json()["detail"]
    q = c["teacher"].get("/queue").json()
    assert q["depth"] == REJUDGED + 4 and q["queued_by_kind"] == {"run": 4, "submit": REJUDGED, "custom": 0}
