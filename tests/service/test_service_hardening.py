"""A hostile learner against a live `grader serve` on SQLite and on PostgreSQL: NUL in
what a submission prints or returns is stored (escaped visibly, alike on both), NUL in
any request string is a 422, an unexpected database error is a JSON 500, out-of-range
ids are 404/422, stored reports are bounded, list views never parse reports, and one
learner's storage of a day is bounded."""
from __future__ import annotations

import json

import pytest
from service_support import P1, Server, corpus, make_user, post, problem_copy, sqlite_url, wait_done
from sqlalchemy import create_engine, text

from grader.report.stored import VIEW_CHARS
from grader.service.core.config import MAX_SOURCE_BYTES

BUDGET = 600 * 1024  # --storage-per-day of these servers
PENDING = 2  # --max-pending
TEACHER_PASSWORD = "teacher-password"


def _solution(extra_return: str = "", prints: str = "") -> str:
    """The accepted flat_norm solution, printing ``prints`` and returning ``extra_return`` keys too."""
    src = corpus("accepted/flat_norm.py")
    head, ret = src.rsplit("    return ", 1)
    body = ret.strip()
    assert body.endswith("}")
    return head + (f"    print({prints})\n" if prints else "") + "    return " + body[:-1] + extra_return + "}\n"


NUL_SOURCE = 'print("before\\x00after")\n' + _solution(', "bad\\x00key": norms', '"in\\x00case"')
# 15000 float32 per case, about 59 KiB: under the problem's 64 KB output limit.
BIG_OUTPUT = _solution(', "extra": jnp.linspace(0.0, 1.0, 15000) * jnp.sum(x)', '"p" * 4000')


def _padded(source: str) -> str:
    """``source`` grown to the largest a learner may send, with a comment."""
    room = MAX_SOURCE_BYTES - len(source.encode()) - 8
    return source + "\n# " + "x" * room + "\n"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def env(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"hard-{request.param}")
    url = sqlite_url(root) if request.param == "sqlite" else request.getfixturevalue("postgres").new_database()
    problems = problem_copy(root / "problems")
    tokens = {n: make_user(url, f"{n}@example.org", instructor=n == "teacher",
                           password=TEACHER_PASSWORD if n == "teacher" else None)
              for n in ("teacher", "ann", "bob", "flood")}
    server = Server(url, "--no-feedback", "--run-limit", "1000/min", "--submit-limit", "1000/min",
                    "--max-pending", str(PENDING), "--storage-per-day", f"{BUDGET}", workers=1,
                    problems=problems).start()
    clients = {n: server.client(t) for n, t in tokens.items()}
    yield request.param, url, server, clients
    for c in clients.values():
        c.close()
    server.stop()


def _sql(url: str, query: str, **params):
    engine = create_engine(url.replace("postgresql+psycopg", "postgresql+psycopg"))
    try:
        with engine.begin() as conn:
            return conn.execute(text(query), params).all() if query.lstrip().upper().startswith("SELECT") \
                else conn.execute(text(query), params)
    finally:
        engine.dispose()


def _stored(url: str, sub_id: str) -> int:
    return _sql(url, "SELECT stored_bytes FROM submissions WHERE id = :i", i=sub_id)[0][0]


def test_nul_printed_or_returned_is_stored_escaped_and_graded(env):
    _, _, _, c = env
    done = wait_done(c["ann"], post(c["ann"], NUL_SOURCE, "run").json()["id"])
    report = done["report"]
    assert done["verdict"] == "WA" and report["reason"] == "structure"
    assert "before\\x00after" in report["stdout"]
    case = report["cases"][0]
    assert "in\\x00case" in case["stdout"] and "bad\\x00key" in case["got"]
    assert "\x00" not in json.dumps(report)


def test_both_databases_store_the_same_report_for_nul(env, tmp_path):
    """The escaping is the service's, not the database's: a second server on the other
    dialect stores the same document (up to ids and times)."""
    dialect, _, _, c = env
    if dialect != "postgresql":
        pytest.skip("compared from the PostgreSQL side")
    url = sqlite_url(tmp_path)
    token = make_user(url, "ann@example.org")
    other = Server(url, "--no-feedback", workers=1, problems=problem_copy(tmp_path / "problems")).start()
    try:
        with other.client(token) as ann_sqlite:
            a = wait_done(ann_sqlite, post(ann_sqlite, NUL_SOURCE, "run").json()["id"])["report"]
        b = wait_done(c["ann"], post(c["ann"], NUL_SOURCE, "run").json()["id"])["report"]
    finally:
        other.stop()

    def plain(r):
        # Timings are the machine's, not the stored document's: they differ run to run.
        return {**r, "submission": "", "cases": [{**k, "time_ms": 0, "cost": None} for k in r["cases"]]}

    assert plain(a) == plain(b)


@pytest.mark.parametrize("where", ["email", "source", "token name", "problem", "query", "path", "idempotency id"])
def test_nul_in_any_request_string_is_a_422_with_a_json_error(env, where):
    _, _, server, c = env
    ann = c["ann"]
    r = {
        "email": lambda: ann.post("/auth/login", json={"email": "a\x00@example.org", "password": "whatever1"}),
        "source": lambda: post(ann, "x = 1\x00\n"),
        "token name": lambda: ann.post("/tokens", json={"name": "a\x00b"}),
        "problem": lambda: ann.post("/submissions", json={"problem": "per\x00", "source": "x=1", "kind": "run"}),
        "query": lambda: ann.get("/submissions", params={"problem": "a\x00b"}),
        "path": lambda: ann.get("/submissions/abc%00def"),
        "idempotency id": lambda: ann.delete("/tokens/1%00"),
    }[where]()
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/json") and "NUL" in r.json()["detail"] \
        or where in ("problem", "idempotency id") and "detail" in r.json()


@pytest.mark.parametrize("token_id", ["99999999999999999999", "-1", str(2**200), "0", "1e3", str(2**31)])
def test_out_of_range_ids_are_422_or_404_as_json(env, token_id):
    _, _, _, c = env
    r = c["ann"].delete(f"/tokens/{token_id}")
    assert r.status_code in (404, 422) and r.headers["content-type"].startswith("application/json"), r.text
    assert "detail" in r.json()


@pytest.mark.parametrize("sub_id", ["x" * 200, "a b", "..", "%ff"])
def test_malformed_submission_ids_are_422_or_404_as_json(env, sub_id):
    _, _, _, c = env
    for path in (f"/submissions/{sub_id}", f"/submissions/{sub_id}/events"):
        r = c["ann"].get(path)
        assert r.status_code in (404, 422) and r.json()["detail"], (path, r.text)


def test_an_unexpected_database_error_is_a_json_500_without_internals_and_is_logged(env):
    dialect, url, server, c = env
    _sql(url, "ALTER TABLE rate_buckets RENAME TO rate_buckets_away")
    try:
        r = post(c["bob"], corpus("accepted/flat_norm.py"))
    finally:
        _sql(url, "ALTER TABLE rate_buckets_away RENAME TO rate_buckets")
    assert r.status_code == 500 and r.headers["content-type"].startswith("application/json")
    detail = r.json()["detail"]
    assert "rate_buckets" not in detail and "SELECT" not in detail and "sqlalchemy" not in detail.lower()
    assert "rate_buckets" in server.output()  # the traceback went to the log


def test_a_run_stores_one_copy_of_its_report(env):
    _, url, _, c = env
    sub = wait_done(c["ann"], post(c["ann"], corpus("accepted/flat_norm.py"), "run").json()["id"])
    (full,) = _sql(url, "SELECT full_report IS NULL FROM submissions WHERE id = :i", i=sub["id"])[0]
    assert full and c["teacher"].get(f"/submissions/{sub['id']}").json()["report"] == sub["report"]


@pytest.mark.slow
def test_a_large_output_is_stored_as_a_summary_that_says_so(env):
    _, url, _, c = env
    sub = wait_done(c["ann"], post(c["ann"], BIG_OUTPUT, "submit").json()["id"])
    assert sub["verdict"] == "WA"
    learner, full = sub["report"], c["teacher"].get(f"/submissions/{sub['id']}").json()["report"]
    got = learner["cases"][0]["got"]["extra"]["summary"]
    assert got["shape"] == [15000] and got["elements"] == 15000 and len(got["sha256"]) == 64
    assert "case example_1: got" in learner["summarized"]
    assert any(s.endswith(": got") and "example" not in s for s in full["summarized"])  # hidden cases too
    stored = _stored(url, sub["id"])
    # Before the bound: 0.9 MB (learner) + 12 MB (full) for this file.
    assert stored < 150 * 1024, stored


def test_list_views_never_parse_reports(env):
    """A report the database holds but no one could parse breaks its own page only."""
    dialect, url, _, c = env
    if dialect != "sqlite":
        pytest.skip("only SQLite lets a JSON column hold text that is not JSON")
    sub = wait_done(c["bob"], post(c["bob"], corpus("accepted/flat_norm.py"), "submit").json()["id"])
    _sql(url, "UPDATE submissions SET report = '{not json', full_report = '{not json' WHERE id = :i", i=sub["id"])
    assert c["bob"].get("/submissions").status_code == 200
    assert c["teacher"].get("/gradebook").status_code == 200
    assert c["teacher"].get("/submissions", params={"problem": P1}).status_code == 200
    broken = c["bob"].get(f"/submissions/{sub['id']}")
    assert broken.status_code == 500 and broken.json()["detail"]


@pytest.mark.slow
def test_a_learner_flooding_at_the_rate_limit_stays_within_the_storage_bound(env):
    """What a learner's submissions of a day store is at most the budget plus what the
    submissions admitted below it can add: the largest source and two bounded views each."""
    _, url, _, c = env
    flood, source = c["flood"], _padded(BIG_OUTPUT)
    refused, ids = None, []
    for i in range(200):
        r = post(flood, source, "submit" if i % 2 else "run")
        if r.status_code == 429 and "storage" in r.json()["detail"]:
            refused = r
            break
        if r.status_code == 429:  # --max-pending: wait for one to finish
            wait_done(flood, ids[-PENDING])
            continue
        assert r.status_code == 202, r.text
        ids.append(r.json()["id"])
    assert refused is not None and int(refused.headers["retry-after"]) >= 60
    for sid in ids:
        wait_done(flood, sid)
    total = _sql(url, "SELECT sum(stored_bytes) FROM submissions s JOIN users u ON u.id = s.user_id "
                      "WHERE u.email = 'flood@example.org'")[0][0]
    item = MAX_SOURCE_BYTES + 2 * VIEW_CHARS * 2  # JSON characters are at most 2 bytes here (ASCII escapes)
    assert BUDGET <= total <= BUDGET + PENDING * item, total


def test_the_queue_page_shows_what_each_learner_stores(env):
    import httpx

    _, _, server, c = env
    wait_done(c["ann"], post(c["ann"], corpus("accepted/flat_norm.py"), "run").json()["id"])
    with httpx.Client(base_url=server.base, timeout=60) as web:
        assert web.post("/api/v1/auth/login", json={"email": "teacher@example.org",
                                                    "password": TEACHER_PASSWORD}).status_code == 200
        page = web.get("/queue")
    assert page.status_code == 200
    table = page.text.split('<table class="list storage">', 1)[1].split("</table>", 1)[0]
    assert "ann@example.org" in table and "MiB" in table
