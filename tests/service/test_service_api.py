"""The API against a live `grader serve` (uvicorn on 127.0.0.1, a SQLite file, one
warm sandbox): every route, and its refusals."""
from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest
from service_support import P1, Server, corpus, make_user, post, problem_copy, sqlite_url, wait_done

from support import ROOT, SUBMISSIONS

ACCEPTED, WRONG = "accepted/flat_norm.py", "wrong_answer/norm_without_bias.py"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("service")
    problems = problem_copy(root / "problems", broken=True)
    url = sqlite_url(root)
    tokens = {name: make_user(url, f"{name}@example.org", instructor=name == "teacher",
                              password="correct horse" if name == "cookie" else None)
              for name in ("teacher", "ann", "bob", "cat", "dan", "eve", "cookie")}
    # As behind a proxy on the loopback (test_service_limits runs the default: no proxy trusted).
    server = Server(url, "--no-feedback", "--run-limit", "100/min", "--submit-limit", "2/h", "--max-pending", "5",
                    "--forwarded-allow-ips", "127.0.0.1", workers=1, problems=problems).start()
    yield server, tokens, problems
    server.stop()


@pytest.fixture(scope="module")
def clients(env):
    server, tokens, _ = env
    made = {name: server.client(tok) for name, tok in tokens.items()}
    yield made
    for c in made.values():
        c.close()


@pytest.fixture(scope="module")
def graded(clients):
    """One Run and one Submit of ann's, graded."""
    ann = clients["ann"]
    out = {}
    for kind, rel in (("run", WRONG), ("submit", WRONG)):
        r = post(ann, corpus(rel), kind)
        assert r.status_code == 202, r.text
        out[kind] = (r, wait_done(ann, r.json()["id"]))
    return out


def test_healthz_reports_database_workers_and_sandbox_layers(env):
    server, _, _ = env
    body = server.client().get(server.base + "/healthz").json()
    assert body["ok"] and body["database"] and body["workers"] == {"configured": 1, "alive": 1}
    assert "rlimits" in body["sandbox"]["layers"]
    assert body["ready"] and server.client().get(server.base + "/readyz").status_code == 200  # --no-warm


def test_openapi_document_states_the_body_limits_413_and_a_422_in_the_one_error_shape_on_every_operation(env):
    server, _, _ = env
    spec = server.client().get(server.base + "/openapi.json").json()
    error = {"$ref": "#/components/schemas/ErrorOut"}
    operations = [(path, method, op) for path, ops in spec["paths"].items() if path.startswith("/api/v1/")
                  for method, op in ops.items()]
    assert len(operations) > 30
    for path, method, op in operations:
        assert op["responses"]["422"]["content"]["application/json"]["schema"] == error, (method, path)
        if "requestBody" in op:
            assert op["responses"]["413"]["content"]["application/json"]["schema"] == error, (method, path)
    assert "HTTPValidationError" not in json.dumps(spec)
    r = server.client().post(server.base + "/api/v1/courses/default/roster", content=b"x" * (1 << 20),
                             headers={"content-type": "application/json"})
    assert r.status_code == 413 and set(r.json()) == {"detail"}


def test_openapi_document_and_a_docs_page_that_loads_only_this_sites_files(env):
    server, _, _ = env
    c = server.client()
    spec = c.get(server.base + "/openapi.json").json()
    assert "/api/v1/submissions" in spec["paths"] and "/api/v1/gradebook" in spec["paths"]
    r = c.get(server.base + "/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    refs = re.findall(r"""(?:src|href|url)\s*[=:]\s*["']([^"']*)""", r.text)
    assert {"/static/vendor/swagger-ui/swagger-ui-bundle.js?v=5.35.0", "/openapi.json"} <= set(refs)
    assert all(ref.startswith("/") and not ref.startswith("//") or ref == "data:," for ref in refs), refs
    assert "//" not in re.sub(r"<!--.*?-->", "", r.text).replace("http://www.w3.org", "")  # no other origin
    for ref in refs:
        if ref.startswith("/static/"):
            assert c.get(server.base + ref).status_code == 200, ref
    policy = dict(d.strip().split(" ", 1) for d in r.headers["content-security-policy"].split(";"))
    inline = re.findall(r"<script>(.*?)</script>", r.text, re.S)
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert len(inline) == 1 and policy["script-src"] == f"'self' 'sha256-{digest}'"  # only that inline script
    assert policy["default-src"] == "'none'" and policy["connect-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'" and r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert c.get(server.base + "/redoc").status_code == 404  # FastAPI's other page would load from a CDN


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Basic YTpi"}, {"Authorization": "Bearer jjt_nope"}],
                         ids=["none", "wrong-scheme", "unknown-token"])
def test_requests_without_valid_credentials_get_401(env, headers):
    server, _, _ = env
    c = server.client()
    for method, path in (("GET", "/submissions/x"), ("POST", "/submissions"), ("GET", "/problems"),
                         ("GET", "/gradebook"), ("GET", "/queue"), ("POST", f"/problems/{P1}/rejudge"),
                         ("GET", "/tokens"), ("GET", "/me")):
        r = c.request(method, path, headers=headers, json={} if method == "POST" else None)
        assert r.status_code == 401, (method, path, r.text)
        assert r.json()["detail"] and r.headers["www-authenticate"] == "Bearer"


def test_run_is_accepted_with_location_and_grades_only_the_public_cases(graded, problems_public=3):
    r, done = graded["run"]
    assert r.headers["location"] == f"/api/v1/submissions/{r.json()['id']}" == r.json()["location"]
    assert len(r.json()["id"]) >= 22  # 128 random bits
    assert done["status"] == "done" and done["verdict"] == "WA" and done["queue"] is None
    assert done["total"] == problems_public and {c["visibility"] for c in done["report"]["cases"]} == {"public"}
    assert done["report"]["cases"][0]["input"] is not None  # a Run shows the worked examples in full
    # Compared as times, not strings: ISO 8601 leaves out a zero fraction of a second.
    at = {k: datetime.fromisoformat(done[k]) for k in ("created_at", "started_at", "finished_at")}
    assert at["finished_at"] >= at["started_at"] >= at["created_at"]
    assert done["created_at"].endswith(("Z", "+00:00"))


def _comparable(report: dict) -> dict:
    r = json.loads(json.dumps(report))
    r.pop("submission")
    for case in r["cases"]:  # times differ from run to run (the service's report carries compile and run apart)
        case["time_ms"] = case["cost"] = None
    return r


@pytest.mark.slow
def test_submit_report_is_the_one_grader_grade_prints(env, graded):
    _, _, problems = env
    _, done = graded["submit"]
    cli = subprocess.run([sys.executable, "-m", "grader", "grade", str(SUBMISSIONS / P1 / WRONG), "--problem", P1,
                          "--format", "json", "--no-feedback"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, env={**__import__("os").environ, "JAXJUDGE_PROBLEMS": str(problems)})
    assert _comparable(done["report"]) == _comparable(json.loads(cli.stdout))
    hidden = [c for c in done["report"]["cases"] if c["visibility"] == "hidden"]
    assert hidden and all(c["input"] is None and c["expected"] is None and c["got"] is None for c in hidden)


def test_instructors_see_the_full_report_and_can_ask_for_the_learners_view(clients, graded):
    _, done = graded["submit"]
    teacher = clients["teacher"]
    full = teacher.get(f"/submissions/{done['id']}").json()
    assert full["user"] == "ann@example.org"
    hidden = [c for c in full["report"]["cases"] if c["visibility"] == "hidden"]
    assert all(c["input"] is not None and c["expected"] is not None for c in hidden)
    learner_view = teacher.get(f"/submissions/{done['id']}", params={"view": "learner"}).json()
    assert learner_view["report"] == done["report"] and done["user"] is None


def test_formats_render_through_the_judges_formats(clients, graded):
    ann = clients["ann"]
    sid = graded["submit"][1]["id"]
    got = {fmt: ann.get(f"/submissions/{sid}", params={"format": fmt}) for fmt in
           ("json", "junit", "gradescope", "markdown", "text")}
    assert all(r.status_code == 200 for r in got.values())
    assert json.loads(got["json"].text) == graded["submit"][1]["report"]
    suite = ET.fromstring(got["junit"].text).find("testsuite")
    assert int(suite.get("tests")) >= 41 and got["junit"].headers["content-type"].startswith("application/xml")
    assert json.loads(got["gradescope"].text)["max_score"] == 41
    assert got["markdown"].text.startswith("### ") and "WA" in got["text"].text
    assert ann.get(f"/submissions/{sid}", params={"format": "pdf"}).status_code == 422


def test_someone_elses_submission_is_404_like_one_that_does_not_exist(clients, graded):
    sid = graded["submit"][1]["id"]
    bob = clients["bob"]
    for path, params in ((f"/submissions/{sid}", None), (f"/submissions/{sid}", {"format": "junit"}),
                         (f"/submissions/{sid}/events", None), ("/submissions/doesnotexist", None)):
        r = bob.get(path, params=params)
        assert r.status_code == 404 and r.json() == {"detail": "no such submission"}, path
    assert all(row["id"] != sid for row in bob.get("/submissions").json())
    assert any(row["id"] == sid for row in clients["ann"].get("/submissions").json())
    others = bob.get("/submissions", params={"user": "ann@example.org"}).json()  # ?user= is for instructors
    assert all(row["id"] != sid for row in others)
    mine = clients["teacher"].get("/submissions", params={"user": "ann@example.org"}).json()
    assert sid in [r["id"] for r in mine] and {r["user"] for r in mine} == {"ann@example.org"}


def test_oversized_source_and_body_get_413(clients):
    bob = clients["bob"]
    r = post(bob, "#" * (64 * 1024 + 1))
    assert r.status_code == 413 and "64 KiB" in r.json()["detail"]
    r = bob.post("/submissions", content=b"{" + b" " * (1 << 20), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "larger than" in r.json()["detail"]

    def chunks():  # no Content-Length: counted as it streams in
        yield b'{"problem": "x", "source": "'
        for _ in range(64):
            yield b"a" * 16384
        yield b'", "kind": "run"}'

    r = bob.post("/submissions", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "larger than" in r.json()["detail"]
    assert post(bob, "#" * (64 * 1024 - 10)).status_code == 202  # just under the limit


@pytest.mark.parametrize("body, needle", [
    ({"problem": "no_such_problem", "source": "", "kind": "run"}, "no such problem"),
    ({"problem": P1, "source": "", "kind": "grade"}, "kind"),
    ({"problem": P1, "source": "", "kind": "run", "extra": 1}, "extra"),
    ({"problem": P1, "kind": "run"}, "source"),
    ({"problem": "../etc", "source": "", "kind": "run"}, "problem"),
])
def test_bad_submissions_get_422_with_one_message(clients, body, needle):
    r = clients["bob"].post("/submissions", json=body)
    assert r.status_code == 422 and isinstance(r.json()["detail"], str) and needle in r.json()["detail"]


def test_events_stream_status_then_done(clients):
    cat = clients["cat"]
    sid = post(cat, corpus(ACCEPTED), "run").json()["id"]
    events = []
    with cat.stream("GET", f"/submissions/{sid}/events", timeout=120) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, json.loads(line[6:])))
                if name == "done":
                    break
    assert events[-1][0] == "done" and events[-1][1]["verdict"] == "AC" and events[-1][1]["status"] == "done"
    assert all(name == "status" for name, _ in events[:-1])


def test_problems_show_statement_examples_and_limits_never_a_hidden_case(clients, env):
    _, _, problems = env
    ann = clients["ann"]
    listing = ann.get("/problems").json()
    mine = [p for p in listing if p["id"] == P1]  # the server's private copy shadows the built-in one
    assert len(mine) == 1 and mine[0]["public_cases"] == 3 and mine[0]["hidden_cases"] == 38
    detail = ann.get(f"/problems/{P1}").json()
    assert [e["id"] for e in detail["examples"]] == ["example_1", "example_2", "example_3"]
    assert detail["limits"]["time_seconds"] > 0 and detail["requirements"]["nest"] == [["jax.vmap", "jax.grad"]]
    assert "**Example 1**" in detail["statement"] and detail["entry"]["name"]
    for path in (problems / P1 / "cases" / "hidden").glob("*.json"):
        assert path.stem not in json.dumps(detail)
    assert ann.get("/problems/nope").status_code == 404


@pytest.mark.parametrize("method, path", [("GET", "/gradebook"), ("POST", f"/problems/{P1}/rejudge"),
                                          ("GET", "/queue")])
def test_instructor_routes_refuse_learners_with_403(clients, method, path):
    r = clients["ann"].request(method, path)
    assert r.status_code == 403 and r.json()["detail"] == "instructors only"


def test_idempotency_key_returns_the_first_submission(clients):
    dan = clients["dan"]
    first = post(dan, corpus(ACCEPTED), "run", headers={"Idempotency-Key": "k1"})
    again = post(dan, corpus(ACCEPTED), "run", headers={"Idempotency-Key": "k1"})
    assert (first.status_code, again.status_code) == (202, 200) and first.json()["id"] == again.json()["id"]
    other = post(dan, corpus(WRONG), "run", headers={"Idempotency-Key": "k1"})
    assert other.status_code == 422
    wait_done(dan, first.json()["id"])


def test_an_empty_idempotency_key_is_no_key(clients):
    # Blank is empty on the wire: HTTP drops the spaces around a header's value.
    eve, key = clients["eve"], ""
    first = post(eve, corpus(ACCEPTED), "run", headers={"Idempotency-Key": key})
    second = post(eve, corpus(WRONG), "run", headers={"Idempotency-Key": key})
    assert (first.status_code, second.status_code) == (202, 202) and first.json()["id"] != second.json()["id"]
    for r in (first, second):
        wait_done(eve, r.json()["id"])


def test_the_submission_list_filters_by_problem(clients):
    eve = clients["eve"]
    ids = {pid: post(eve, corpus(ACCEPTED), "run", problem=pid).json()["id"] for pid in (P1, "broken_problem")}
    for pid, sid in ids.items():
        rows = eve.get("/submissions", params={"problem": pid}).json()
        assert sid in [r["id"] for r in rows] and {r["problem"] for r in rows} == {pid}
    assert eve.get("/submissions", params={"problem": "no_such_problem"}).json() == []
    assert set(ids.values()) <= {r["id"] for r in eve.get("/submissions").json()}
    for sid in ids.values():
        wait_done(eve, sid)


def test_api_answers_are_nosniff_uncached_and_inert_in_a_browser(env, clients, graded):
    server, _, _ = env
    ann, sid = clients["ann"], graded["submit"][1]["id"]
    answers = {"json": ann.get("/me"), "error": server.client().get("/me"),
               "markdown": ann.get(f"/submissions/{sid}", params={"format": "markdown"}),
               "text": ann.get(f"/submissions/{sid}", params={"format": "text"}),
               "junit": ann.get(f"/submissions/{sid}", params={"format": "junit"}),
               "csv": clients["teacher"].get("/gradebook", params={"format": "csv"}),
               "login": server.client().post("/auth/login", json={"email": "x@example.org", "password": "nope"})}
    assert answers["markdown"].headers["content-type"].startswith("text/markdown")
    assert answers["text"].headers["content-type"].startswith("text/plain")
    for name, r in answers.items():
        assert r.headers["x-content-type-options"] == "nosniff", name
        assert r.headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'", name
        assert r.headers["cache-control"] == "no-store", name
    health = ann.get(server.base + "/healthz")
    assert health.headers["x-content-type-options"] == "nosniff" and "default-src 'none'" in \
        health.headers["content-security-policy"]


def test_cookie_sessions_need_the_csrf_token_on_writes(env):
    server, _, _ = env
    with server.client() as c:
        assert c.post("/auth/login", json={"email": "cookie@example.org", "password": "wrong one"}).status_code == 401
        r = c.post("/auth/login", json={"email": "Cookie@Example.org", "password": "correct horse"})
        assert r.status_code == 200 and r.json()["role"] == "learner"
        csrf = r.json()["csrf_token"]
        assert "httponly" in r.headers["set-cookie"].lower() and "samesite=lax" in r.headers["set-cookie"].lower()
        assert c.get("/me").json()["email"] == "cookie@example.org"
        refused = post(c, corpus(ACCEPTED), "run")
        assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
        assert post(c, corpus(ACCEPTED), "run", headers={"X-CSRF-Token": "forged"}).status_code == 403
        ok = post(c, corpus(ACCEPTED), "run", headers={"X-CSRF-Token": csrf})
        assert ok.status_code == 202
        assert c.post("/auth/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
        c.cookies.set("jaxjudge_session", r.cookies["jaxjudge_session"])
        assert c.get("/me").status_code == 401  # the session ended on the server too
        wait_done(server.client(env[1]["teacher"]), ok.json()["id"])


def test_sessions_expire_and_cookies_are_secure_behind_an_https_proxy(env):
    from sqlalchemy import update

    from grader.service.core.models import WebSession, utcnow
    from grader.service.server import open_database

    server, _, _ = env
    creds = {"email": "cookie@example.org", "password": "correct horse"}
    with server.client() as c:
        r = c.post("/auth/login", json=creds, headers={"X-Forwarded-Proto": "https"})
        assert r.status_code == 200 and "secure" in r.headers["set-cookie"].lower()
    with server.client() as c:
        r = c.post("/auth/login", json=creds)
        assert "secure" not in r.headers["set-cookie"].lower()
        assert c.get("/me").status_code == 200
        db = open_database(server.db_url)
        with db.write() as s:
            s.execute(update(WebSession).values(expires_at=utcnow()))
        db.close()
        assert c.get("/me").status_code == 401


def test_no_cors_headers_for_other_origins(env, clients):
    r = clients["ann"].get("/problems", headers={"Origin": "https://evil.example"})
    assert r.status_code == 200 and not any(h.startswith("access-control-") for h in r.headers)


def test_a_cors_preflight_from_another_origin_is_never_granted(env):
    server, _, _ = env
    with server.client() as c:
        for path in ("/auth/login", "/submissions", f"/problems/{P1}/rejudge", "/tokens"):
            r = c.options(path, headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST",
                                         "Access-Control-Request-Headers": "content-type, x-csrf-token"})
            assert r.status_code == 405 and isinstance(r.json()["detail"], str), (path, r.status_code)
            assert not any(h.startswith("access-control-") for h in r.headers), path


def test_sessions_keep_only_hashes_of_their_256_bit_cookie_and_csrf_token_for_12_hours(env):
    from sqlalchemy import select

    from grader.service.core.models import WebSession
    from grader.service.server import open_database

    server, _, _ = env
    with server.client() as c:
        r = c.post("/auth/login", json={"email": "cookie@example.org", "password": "correct horse"})
        cookie, csrf = r.cookies["jaxjudge_session"], r.json()["csrf_token"]
    assert "max-age=43200" in r.headers["set-cookie"].lower()
    assert len(base64.urlsafe_b64decode(cookie + "=")) == 32 and len(base64.urlsafe_b64decode(csrf + "=")) == 32
    db = open_database(server.db_url)
    with db.read() as s:
        row = s.scalar(select(WebSession).where(WebSession.token_hash == hashlib.sha256(cookie.encode()).hexdigest()))
    db.close()
    assert row is not None and row.csrf_hash == hashlib.sha256(csrf.encode()).hexdigest()
    assert (row.expires_at - row.created_at).total_seconds() == 12 * 3600
    stored = b"".join(p.read_bytes() for p in Path(server.db_url.removeprefix("sqlite:///")).parent.glob("*.sqlite3*"))
    assert row.token_hash.encode() in stored and cookie.encode() not in stored and csrf.encode() not in stored


def test_a_trusted_proxy_names_the_client_whose_login_attempts_are_counted(env):
    server, _, _ = env  # started with --forwarded-allow-ips 127.0.0.1
    with server.client() as c:
        codes = {c.post("/auth/login", json={"email": "cookie@example.org", "password": "wrong one"},
                        headers={"X-Forwarded-For": f"10.0.{i}.1"}).status_code for i in range(12)}
    assert codes == {401}  # each address its own bucket, as the proxy says


def test_tokens_are_created_listed_and_revoked(env, clients):
    server, _, _ = env
    bob = clients["bob"]
    made = bob.post("/tokens", json={"name": "ci"})
    assert made.status_code == 201 and made.json()["token"].startswith("jjt_")
    listed = bob.get("/tokens").json()
    assert all(t["token"] is None for t in listed) and "ci" in [t["name"] for t in listed]
    with server.client(made.json()["token"]) as fresh:
        assert fresh.get("/me").json()["email"] == "bob@example.org"
        assert clients["ann"].delete(f"/tokens/{made.json()['id']}").status_code == 404  # not ann's
        assert bob.delete(f"/tokens/{made.json()['id']}").status_code == 204
        assert fresh.get("/me").status_code == 401
    assert bob.post("/tokens", json={"name": "   "}).status_code == 422


def test_compile_errors_and_judge_failures_do_not_consume_submit_budget(clients):
    cat = clients["cat"]  # Submit budget: 2 per hour
    for _ in range(2):
        r = post(cat, corpus("compile_error/imports_os.py"), "submit")
        assert r.status_code == 202, r.text
        assert wait_done(cat, r.json()["id"])["verdict"] == "CE"
    for _ in range(2):
        r = post(cat, corpus(ACCEPTED), "submit", problem="broken_problem")
        assert r.status_code == 202, r.text
        ie = wait_done(cat, r.json()["id"])
        assert (ie["verdict"], ie["attempts"]) == ("IE", 3)  # retried, then IE with the reason
        assert ie["report"]["reason"] == "judge" and "cannot be loaded" in ie["report"]["message"]
    for _ in range(2):
        r = post(cat, corpus("rejected/analytic_in_strings.py"), "submit")
        assert r.status_code == 202
        assert wait_done(cat, r.json()["id"])["verdict"] == "RJ"
    refused = post(cat, corpus("rejected/analytic_in_strings.py"), "submit")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert "submit rate limit" in refused.json()["detail"]
    assert post(cat, corpus(ACCEPTED), "run").status_code == 202  # Run has its own bucket


def test_gradebook_keeps_the_best_and_the_last_verdict(clients):
    dan, teacher = clients["dan"], clients["teacher"]
    for rel in (ACCEPTED, WRONG):
        wait_done(dan, post(dan, corpus(rel), "submit").json()["id"])
    rows = teacher.get("/gradebook", params={"problem": P1}).json()
    row = next(r for r in rows if r["learner"] == "dan@example.org")
    assert (row["best_verdict"], row["last_verdict"], row["submits"]) == ("AC", "WA", 2)
    assert row["best_passed"] == row["best_total"] == 41 and row["best_problem_version"]
    assert not any(r["learner"] == "teacher@example.org" for r in rows)
    assert not any(r["learner"] == "cat@example.org" and r["problem"] == "broken_problem" for r in rows)  # IE only
    csv_text = teacher.get("/gradebook", params={"format": "csv"})
    assert csv_text.headers["content-type"].startswith("text/csv")
    assert csv_text.text.splitlines()[0].startswith("learner,problem,best_verdict")
    assert "dan@example.org,per_example_grad_clipping,AC,41,41" in csv_text.text


def test_queue_answers_with_its_fields_and_the_one_live_worker(clients):
    # Its values while something waits and runs: test_service_limits and test_web_pages.
    q = clients["teacher"].get("/queue").json()
    assert set(q) >= {"depth", "running", "oldest_age_seconds", "workers", "queued_by_kind"}
    assert q["workers"]["alive"] == 1 and 0 <= q["workers"]["busy"] <= 1


def test_rejudge_regrades_after_the_cases_change_and_records_the_version(env, clients, graded):
    _, _, problems = env
    teacher, ann = clients["teacher"], clients["ann"]
    before = graded["submit"][1]
    assert teacher.post(f"/problems/{P1}/rejudge").json()["requeued"] == 0  # nothing stale
    hidden = problems / P1 / "cases" / "hidden"
    (hidden / "zz_extra.json").write_text((hidden / "gen_s2026_000.json").read_text())
    r = teacher.post(f"/problems/{P1}/rejudge")
    assert r.status_code == 200 and r.json()["requeued"] >= 1
    assert r.json()["problem_version"] != before["problem_version"]
    after = wait_done(ann, before["id"])
    assert after["problem_version"] == r.json()["problem_version"] and after["total"] == before["total"] + 1
    assert teacher.post("/problems/nope/rejudge").status_code == 404
