"""A live server that grades with a drawn suite (`grader serve --suite DIR`): instructors
read which suite grades (`/api/v1/queue`, the queue page, the rejudge section of the
submissions page); a new draw grades from the next grade on, and the Submits graded
before it keep their verdicts until an instructor rejudges the problem. A problem the
folder has no suite for is drawn at the server's start, its Submits waiting for it."""
from __future__ import annotations

import json
import re
import time
from datetime import datetime

import httpx
import pytest
from service_support import P1, Server, corpus, logged_in, make_user, post, sqlite_url, wait_done

from support import SUBMISSIONS, drawn_suite

SRC = corpus("accepted/flat_norm.py")
PASSWORD = "a long enough password"


def _draw_every_problem(folder, keep: int) -> str:
    """A drawn suite of ``keep`` hidden cases for every problem (a server would otherwise
    spend minutes drawing the ones its folder lacks at its start); the suite's id."""
    from grader.problem import all_problem_ids, find_problem

    ids = {drawn_suite(folder, find_problem(pid), pid, keep=keep)[0] for pid in all_problem_ids()}
    assert len(ids) == 1
    return ids.pop()


@pytest.mark.slow  # a live server that grades, draws again and rejudges
def test_the_server_names_its_suite_and_a_new_draw_grades_from_the_next_grade_and_earlier_at_a_rejudge(tmp_path):
    from grader.problem import find_problem

    folder = tmp_path / "suite"
    first = _draw_every_problem(folder, keep=2)
    public = len(find_problem(P1).public_cases())
    url = sqlite_url(tmp_path)
    teacher = make_user(url, "teacher@example.org", instructor=True, password=PASSWORD)
    ann = make_user(url, "ann@example.org")
    server = Server(url, "--suite", str(folder), workers=1).start()
    try:
        with server.client(teacher) as t, server.client(ann) as a, \
                logged_in(server.base, "teacher@example.org", PASSWORD) as page:
            assert t.get("/queue").json()["suite"] == first
            assert re.search(rf'<dd class="suite">drawn suite <code>{first}</code>', page.get("/queue").text)
            sub = post(a, SRC, "submit").json()["id"]
            report = wait_done(a, sub)["report"]
            assert (report["verdict"], report["suite"], report["total"]) == ("AC", first, public + 2)

            (folder / "secret").unlink()  # a new secret: a new suite, drawn for every problem
            second = _draw_every_problem(folder, keep=3)
            assert second != first and t.get("/queue").json()["suite"] == second
            listing = page.get(f"/submissions?problem={P1}").text
            assert f"(hidden cases: <span class=\"suite\">drawn suite <code>{second}</code></span>)" in listing
            assert "1 was graded by another version" in listing
            assert a.get(f"/submissions/{sub}").json()["report"]["suite"] == first  # kept until rejudged

            rejudged = t.post(f"/problems/{P1}/rejudge").json()
            assert (rejudged["requeued"], rejudged["suite"]) == (1, second)
            report = wait_done(a, sub)["report"]
            assert (report["verdict"], report["suite"], report["total"]) == ("AC", second, public + 3)
            again = wait_done(a, post(a, SRC, "submit").json()["id"])["report"]
            assert (again["suite"], again["total"]) == (second, public + 3)
    finally:
        server.stop()


LATE = "global_norm_clipping"  # a small corpus: its real draw, the whole gate, takes seconds


@pytest.mark.slow  # a live server that draws a problem's suite for real, the whole gate
def test_a_server_draws_at_start_the_suite_a_problem_lacks_its_submits_wait_for_it_and_its_runs_do_not(tmp_path):
    from grader.problem import all_problem_ids, find_problem
    from grader.problem.suite import SuiteStore, load_secret, plan

    folder = tmp_path / "suite"
    for pid in all_problem_ids():  # stand-ins for the others: the whole catalogue's draw takes minutes
        if pid != LATE:
            drawn_suite(folder, find_problem(pid), pid, keep=2)
    secret = load_secret(folder / "secret")
    late = find_problem(LATE)
    url = sqlite_url(tmp_path)
    make_user(url, "teacher@example.org", instructor=True, password=PASSWORD)
    ann = make_user(url, "ann@example.org", password=PASSWORD)
    server = Server(url, "--suite", str(folder), workers=1).start()
    try:
        with server.client(ann) as a, server.client(make_user(url, "bob@example.org")) as b, \
                logged_in(server.base, "ann@example.org", PASSWORD) as page, \
                logged_in(server.base, "teacher@example.org", PASSWORD) as teacher:
            source = (SUBMISSIONS / LATE / "accepted" / "tree_map_linalg_norm.py").read_text()
            waiting = post(a, source, "submit", problem=LATE).json()["id"]
            other = wait_done(b, post(b, SRC, "submit").json()["id"])  # another problem is graded meanwhile
            run = wait_done(a, post(a, source, "run", problem=LATE).json()["id"])  # its Run is graded meanwhile
            panel = page.get(f"/submissions/{waiting}/panel").text
            queue = teacher.get("/queue").text
            shown = a.get(f"/problems/{LATE}").json()  # read while drawn: as shipped, counting the draw's cases
            listed = {p["id"] for p in a.get("/problems").json()}
            health = httpx.get(server.base + "/healthz").json()
            assert health["warming"].get(LATE) == "suite", "the draw ended before the test looked"
            assert not health["ready"] and httpx.get(server.base + "/readyz").status_code == 503
            assert other["report"]["verdict"] == "AC"
            assert (run["report"]["verdict"], run["report"]["suite"], run["total"]) == ("AC", secret.id,
                                                                                     len(late.public_cases()))
            assert {c["visibility"] for c in run["report"]["cases"]} == {"public"}
            assert "still drawing this problem's hidden cases" in panel
            assert "drawing its hidden suite" in queue
            assert shown["hidden_cases"] == len(plan(late)) and shown["examples"] and LATE in listed

            done = wait_done(a, waiting, timeout=600)
            report = done["report"]
            assert (report["verdict"], report["suite"]) == ("AC", secret.id)
            assert report["total"] == len(late.public_cases()) + len(plan(late))
            record = SuiteStore(folder, secret).folder(late) / "suite.json"
            started = datetime.fromisoformat(done["started_at"]).timestamp()
            assert started >= record.stat().st_mtime - 0.01  # claimed only once its suite was drawn
            doc = json.loads(record.read_text())
            assert doc["passed"] and doc["killed"][1] >= doc["killed"][0] > 0  # the whole gate ran
            kept = json.loads((SuiteStore(folder, secret).folder(find_problem(P1)) / "suite.json").read_text())
            assert kept["seconds"] == 0.0  # a problem drawn before the start is not drawn again
            deadline = time.time() + 120
            while httpx.get(server.base + "/readyz").status_code != 200 and time.time() < deadline:
                time.sleep(0.5)
            assert httpx.get(server.base + "/readyz").status_code == 200
    finally:
        server.stop()
    log = server.output()
    assert f"{LATE}: suite {secret.id} drawn" in log and secret.value.hex() not in log


def test_serve_with_a_suite_creates_its_secret_at_the_first_start_readable_by_its_owner_alone(tmp_path):
    from grader.problem.suite import load_secret

    folder = tmp_path / "deployment"
    server = Server(sqlite_url(tmp_path), "--suite", str(folder), workers=0).start()
    try:
        secret = folder / "secret"
        assert load_secret(secret).id and secret.stat().st_mode & 0o777 == 0o600  # a valid secret, its owner's alone
        assert secret.read_text().strip() not in server.output()
    finally:
        server.stop()
