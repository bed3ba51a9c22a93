"""A live server that grades with a drawn suite (`grader serve --suite DIR`): instructors
read which suite grades (`/api/v1/queue`, the queue page, the rejudge section of the
submissions page); a new draw grades from the next grade on, and the Submits graded
before it keep their verdicts until an instructor rejudges the problem."""
from __future__ import annotations

import re

from service_support import P1, Server, corpus, logged_in, make_user, post, sqlite_url, wait_done

from support import drawn_suite

SRC = corpus("accepted/flat_norm.py")
PASSWORD = "a long enough password"


def _draw_every_problem(folder, keep: int) -> str:
    """A drawn suite of ``keep`` hidden cases for every problem (serve --suite refuses to
    start while one lacks its suite); the suite's id."""
    from grader.problem import all_problem_ids, find_problem

    ids = {drawn_suite(folder, find_problem(pid), pid, keep=keep)[0] for pid in all_problem_ids()}
    assert len(ids) == 1
    return ids.pop()


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
