"""Hidden-case inputs, expected values and outputs never leave the server for a
learner, through any endpoint or format. The learner submits the attacks that echo
hidden inputs as outputs and print or raise them, with feedback on (hints and
counterexamples, as the service runs by default); every number of every hidden case
is then searched for in every answer the learner can get. The same search finds
them in the instructor's full report, so it would see a leak."""
from __future__ import annotations

import json

import pytest
from service_support import P1, Server, corpus, hidden_needles, make_user, post, sqlite_url, wait_done

from support import PROBLEMS

# Slow: the attacks are graded with feedback on before any search (half a minute).
pytestmark = pytest.mark.slow

ATTACKS = ["wrong_answer/attack_return_hidden_inputs.py", "runtime_error/attack_print_and_raise_hidden.py",
           "wrong_answer/norm_without_bias.py"]
FORMATS = ["json", "junit", "gradescope", "markdown", "text"]


@pytest.fixture(scope="module")
def needles():
    """Spellings of every hidden number that is not also public (see service_support)."""
    return hidden_needles(PROBLEMS / P1)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("leaks")
    url = sqlite_url(root)
    tokens = {n: make_user(url, f"{n}@example.org", instructor=n == "teacher") for n in ("teacher", "eve")}
    server = Server(url, "--submit-limit", "10/h", "--max-pending", "10", workers=1).start()
    eve, teacher = server.client(tokens["eve"]), server.client(tokens["teacher"])
    ids = []
    for rel in ATTACKS:
        for kind in ("submit", "run"):
            r = post(eve, corpus(rel), kind)
            assert r.status_code == 202, r.text
            ids.append(r.json()["id"])
    for sid in ids:
        wait_done(eve, sid, timeout=300)
    yield server, eve, teacher, ids
    eve.close()
    teacher.close()
    server.stop()


def _learner_answers(server, eve, ids):
    yield "list", eve.get("/submissions").text
    for sid in ids:
        yield sid, eve.get(f"/submissions/{sid}").text
        for fmt in FORMATS:
            yield f"{sid}?format={fmt}", eve.get(f"/submissions/{sid}", params={"format": fmt}).text
        with eve.stream("GET", f"/submissions/{sid}/events") as r:
            yield f"{sid}/events", "".join(r.iter_text())
    yield "problems", eve.get("/problems").text
    yield "problem", eve.get(f"/problems/{P1}").text
    for path in ("/gradebook", "/queue", "/me", "/tokens", "/submissions/none"):
        yield path, eve.get(path).text
    yield "healthz", eve.get(server.base + "/healthz").text


def test_the_attacks_were_graded_as_the_corpus_says(env):
    _, eve, _, ids = env
    verdicts = [eve.get(f"/submissions/{sid}").json()["verdict"] for sid in ids]
    assert verdicts == ["WA", "AC", "RE", "AC", "WA", "WA"]  # Submit and Run of each; Runs see public cases only


def test_no_hidden_number_reaches_the_learner_through_any_route_or_format(env, needles):
    server, eve, _, ids = env
    assert len(needles) > 200
    for where, body in _learner_answers(server, eve, ids):
        leaked = [n for n in needles if n in body]
        assert not leaked, f"{where} leaks hidden data: {leaked[:5]}"


def test_hidden_cases_carry_only_stock_words_for_the_learner(env):
    # What the attack printed or raised on a hidden case ("LEAK ...") is never shown;
    # the counterexample may show it, on the generator's input, which is no hidden case.
    _, eve, _, ids = env
    for sid in ids:
        report = eve.get(f"/submissions/{sid}").json()["report"]
        for case in report["cases"]:
            if case["visibility"] == "hidden":
                assert "LEAK" not in json.dumps(case)
                assert case["stdout"] is None and case["input"] is None and case["got"] is None


def test_the_same_search_finds_hidden_numbers_in_the_instructors_full_report(env, needles):
    _, _, teacher, ids = env
    for sid in ids[:1] + ids[2:3]:
        body = teacher.get(f"/submissions/{sid}").text
        assert any(n in body for n in needles)
    assert "LEAK" in teacher.get(f"/submissions/{ids[2]}").text
