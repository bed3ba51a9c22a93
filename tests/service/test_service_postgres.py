"""The live service on a real PostgreSQL server: Run and Submit graded, queue
positions, per-learner limits, the gradebook and a rejudge, as on SQLite."""
from __future__ import annotations

import pytest
from service_support import P1, Server, corpus, make_user, post, problem_copy, wait_done


@pytest.fixture(scope="module")
def env(postgres, tmp_path_factory):
    url = postgres.new_database()
    problems = problem_copy(tmp_path_factory.mktemp("pg") / "problems")
    tokens = {n: make_user(url, f"{n}@example.org", instructor=n == "teacher") for n in ("teacher", "ann")}
    server = Server(url, "--no-feedback", "--submit-limit", "2/h", workers=1, problems=problems).start()
    clients = {n: server.client(t) for n, t in tokens.items()}
    yield server, clients, problems
    for c in clients.values():
        c.close()
    server.stop()


def test_run_and_submit_are_graded_on_postgresql(env):
    _, c, _ = env
    ann = c["ann"]
    run = wait_done(ann, post(ann, corpus("accepted/flat_norm.py"), "run").json()["id"])
    sub = wait_done(ann, post(ann, corpus("wrong_answer/norm_without_bias.py"), "submit").json()["id"])
    assert (run["verdict"], run["total"]) == ("AC", 3)
    assert (sub["verdict"], sub["passed"], sub["total"]) == ("WA", 7, 41)
    assert sub["report"]["cases"][-1]["input"] is None
    assert c["teacher"].get(f"/submissions/{sub['id']}").json()["report"]["cases"][-1]["input"] is not None


def test_limits_gradebook_and_rejudge_on_postgresql(env):
    _, c, problems = env
    ann, teacher = c["ann"], c["teacher"]
    ac = post(ann, corpus("accepted/flat_norm.py"), "submit")
    assert ac.status_code == 202
    refused = post(ann, corpus("accepted/flat_norm.py"), "submit")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    wait_done(ann, ac.json()["id"])
    row = next(r for r in teacher.get("/gradebook").json() if r["learner"] == "ann@example.org")
    assert (row["best_verdict"], row["last_verdict"], row["submits"]) == ("AC", "AC", 2)
    hidden = problems / P1 / "cases" / "hidden"
    (hidden / "zz_extra.json").write_text((hidden / "gen_s2026_000.json").read_text())
    r = teacher.post(f"/problems/{P1}/rejudge").json()
    assert r["requeued"] == 2
    after = wait_done(ann, ac.json()["id"])
    assert after["problem_version"] == r["problem_version"] and after["total"] == 42
    assert teacher.get("/queue").json()["depth"] == 0


def test_healthz_is_503_when_the_database_is_gone(postgres, tmp_path):
    import psycopg

    url = postgres.new_database()
    server = Server(url, workers=0).start()
    try:
        with server.client() as c:
            assert c.get(server.base + "/healthz").json()["database"] is True
            name = url.rsplit("/", 1)[1]
            with psycopg.connect(f"host=127.0.0.1 port={postgres.port} user=postgres dbname=postgres",
                                 autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            r = c.get(server.base + "/healthz")
            assert r.status_code == 503 and r.json()["database"] is False and r.json()["ok"] is False
    finally:
        server.stop()
