"""Schemathesis against a live `grader serve` on 127.0.0.1: requests generated from the
service's own OpenAPI document (valid and invalid ones), as a learner and as an
instructor. No answer is a 5xx, every status code and body is the one the document
states, every error is JSON. Beside what the document describes, fuzz_hooks.py sends
date-times at the edges of their range and large or oddly delimited roster CSVs, to
the course and assignment the accounts belong to. Bounded in examples and time; the
seed is fixed so that a failure replays."""
from __future__ import annotations

import os
import shutil
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from service_support import P1, Server, make_user, problem_copy, sqlite_url

pytestmark = pytest.mark.slow

COURSE, ASSIGNMENT = "fuzz", "week"  # fuzz_hooks.py's, where it sends bodies
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    url = sqlite_url(root)
    # Spare tokens first: the fuzzer tries DELETE /tokens/1 and its neighbours, which must
    # not be the tokens it runs with.
    for i in range(3):
        make_user(url, f"spare{i}@example.org")
    tokens = {role: make_user(url, f"{role}@example.org", instructor=role == "instructor")
              for role in ("learner", "instructor")}
    # No worker: what the fuzzer submits waits in the queue; generous limits, so that it
    # meets the refusals it causes (429) only now and then.
    server = Server(url, "--no-feedback", "--run-limit", "1000/min", "--submit-limit", "1000/min",
                    "--max-pending", "1000", workers=0, problems=problem_copy(root / "problems")).start()
    now = datetime.now(timezone.utc)
    with server.client(tokens["instructor"]) as t:
        assert t.post("/courses", json={"slug": COURSE, "title": "Fuzz"}).status_code == 201
        r = t.post(f"/courses/{COURSE}/assignments",
                   json={"slug": ASSIGNMENT, "title": "Week", "opens_at": (now - timedelta(days=1)).isoformat(),
                         "due_at": (now + timedelta(days=1)).isoformat(), "problems": [{"problem": P1}]})
        assert r.status_code == 201, r.text
        code = t.post(f"/courses/{COURSE}/invitations", json={}).json()["code"]
    with server.client(tokens["learner"]) as learner:
        assert learner.post("/join", json={"code": code}).status_code == 200
    yield server, tokens, root
    server.stop()


def _schemathesis() -> list[str]:
    exe = shutil.which("schemathesis") or shutil.which("st")
    if exe is None:
        pytest.fail("schemathesis is not installed (it is in the test extra: pip install -e '.[test]')")
    return [exe]


@pytest.mark.parametrize("role", ["learner", "instructor"])
def test_generated_requests_get_no_5xx_and_answers_match_the_openapi_document(env, role):
    server, tokens, root = env
    report = root / f"schemathesis-{role}.xml"
    cmd = [*_schemathesis(), "run", f"{server.base}/openapi.json", "--checks", CHECKS,
           "-H", f"Authorization: Bearer {tokens[role]}", "--max-examples", "12", "--max-time", "70",
           "--seed", "2026", "--phases", "examples,coverage,fuzzing", "--request-timeout", "30",
           "--workers", "2", "--no-color", "--report", "junit", "--report-junit-path", str(report),
           # The event stream of a real submission stays open for minutes by design; it is
           # tested with its caps in test_service_streams.py.
           "--exclude-path", "/api/v1/submissions/{sub_id}/events",
           "--suppress-health-check", "all"]
    hooks = Path(__file__).with_name("fuzz_hooks.py")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "SCHEMATHESIS_HOOKS": str(hooks)})
    tail = (done.stdout + done.stderr)[-6000:]
    assert done.returncode == 0, tail
    assert "5xx" not in server.output() and "Traceback" not in server.output(), server.output()[-4000:]
