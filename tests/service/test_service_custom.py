"""Custom runs against a live `grader serve`: a learner's own input, checked against the
problem's constraints before it takes a place in line, then the learner's code and the
reference run on it; the report shows both outputs, the diff and what was printed. It
draws on the Run rate limit, and its code can be loaded back (the source route)."""
from __future__ import annotations

import copy

import pytest
from service_support import P1, Server, corpus, make_user, sqlite_url, wait_done

# A live server and sandboxed grades.
pytestmark = pytest.mark.slow

EXAMPLE = {"params": {"w": [1.0, -1.0], "b": 0.0}, "x": [[1.0, 0.0], [2.0, 2.0], [0.0, 3.0]],
           "y": [0.0, 1.0, 1.0], "max_norm": 1.0}
CRASHES_ON_ONE_ROW = corpus("accepted/flat_norm.py") + (
    "\n\n_inner = per_example_grad_clip\n\n\ndef per_example_grad_clip(params, x, y, max_norm):\n"
    "    print('rows:', x.shape[0])\n"
    "    if x.shape[0] == 1:\n        raise ValueError('one row is not enough for me')\n"
    "    return _inner(params, x, y, max_norm)\n")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("custom")
    url = sqlite_url(root)
    tokens = {name: make_user(url, f"{name}@example.org", instructor=name == "teacher")
              for name in ("ann", "bob", "rita", "teacher")}
    server = Server(url, "--no-feedback", "--run-limit", "3/h", "--submit-limit", "5/h", "--max-pending", "10",
                    workers=1).start()
    clients = {name: server.client(tok) for name, tok in tokens.items()}
    yield server, clients
    for c in clients.values():
        c.close()
    server.stop()


def custom(client, source: str, raw_input, **extra):
    return client.post("/submissions", json={"problem": P1, "source": source, "kind": "custom", "input": raw_input,
                                             **extra})


def changed(path: tuple, value) -> dict:
    out = copy.deepcopy(EXAMPLE)
    *parents, last = path
    node = out
    for key in parents:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return out


# One input per rule the constraints state, and the words the refusal must carry.
REFUSED = [
    (changed(("x",), KeyError), "input 'x': is missing"),
    (dict(EXAMPLE, z=1.0), "input 'z': is not an input of this problem"),
    (changed(("x",), [[1.0, 0.0, 0.0], [2.0, 2.0, 2.0], [0.0, 3.0, 3.0]]), "input 'x': has D=3, but another input"),
    (changed(("x",), [[1.0, 0.0]] * 9), "outside the allowed 1..8"),
    (changed(("y",), [0.0, 1.0, 2000.0]), "input 'y': has a value 2000 above the maximum 1000"),
    (changed(("max_norm",), 0.01), "input 'max_norm': has a value 0.01 below the minimum 0.1"),
    (changed(("max_norm",), "big"), "input 'max_norm': must be a number, got str"),
    (changed(("x",), [[1.0, 0.0], [2.0]]), "input 'x': is not a rectangular numeric array"),
    (changed(("params", "b"), [0.0]), "input 'params.b': has shape (1,), expected ()"),
    (changed(("params",), 3.0), "input 'params': must be an object"),
]


@pytest.mark.parametrize("raw_input, words", REFUSED, ids=[w for _, w in REFUSED])
def test_an_input_that_breaks_a_constraint_is_refused_naming_the_field_and_the_rule(env, raw_input, words):
    _, clients = env
    r = custom(clients["teacher"], corpus("accepted/flat_norm.py"), raw_input)  # instructors pass the rate limit
    assert r.status_code == 422 and words in r.json()["detail"], r.text


def test_an_input_with_several_faults_is_refused_naming_every_one(env):
    _, clients = env
    three = dict(changed(("y",), [0.0, 1.0, 2000.0]), max_norm=0.01, z=1.0)
    r = custom(clients["teacher"], corpus("accepted/flat_norm.py"), three)
    assert r.status_code == 422 and r.json()["detail"] == (
        "input 'y': has a value 2000 above the maximum 1000; input 'max_norm': has a value 0.01 below the minimum 0.1; "
        "input 'z': is not an input of this problem"), r.text


def test_only_a_custom_run_takes_an_input_and_a_custom_run_needs_one(env):
    _, clients = env
    t = clients["teacher"]
    r = t.post("/submissions", json={"problem": P1, "source": "x = 1\n", "kind": "run", "input": EXAMPLE})
    assert r.status_code == 422 and "only a custom run takes an input" in r.json()["detail"]
    r = t.post("/submissions", json={"problem": P1, "source": "x = 1\n", "kind": "custom"})
    assert r.status_code == 422 and "needs the input" in r.json()["detail"]


def test_a_differing_output_shows_the_reference_output_beside_the_learners(env):
    _, clients = env
    ann = clients["ann"]
    r = custom(ann, corpus("wrong_answer/sum_not_mean.py"), EXAMPLE)
    assert r.status_code == 202, r.text
    done = wait_done(ann, r.json()["id"])
    assert (done["kind"], done["verdict"], done["total"]) == ("custom", "WA", 1)
    (case,) = done["report"]["cases"]
    assert (case["id"], case["visibility"], case["input"]) == ("custom", "public", EXAMPLE)
    # The reference's mean against the learner's sum: three times as large on three rows.
    ref, got = case["expected"]["grads"]["w"], case["got"]["grads"]["w"]
    assert ref == pytest.approx([0.01348, -0.53845], abs=1e-5) and got == pytest.approx([3 * v for v in ref], rel=1e-5)
    assert case["worst"]["leaf"] == "grads.w" and case["cost"]["compile_ms"] >= 0


def test_an_input_that_crashes_the_learners_code_but_not_the_references_shows_the_error_and_the_reference(env):
    _, clients = env
    bob = clients["bob"]
    one_row = {"params": {"w": [0.5], "b": 0.5}, "x": [[1.0]], "y": [1.5], "max_norm": 10.0}
    r = custom(bob, CRASHES_ON_ONE_ROW, one_row)
    assert r.status_code == 202, r.text
    done = wait_done(bob, r.json()["id"])
    (case,) = done["report"]["cases"]
    assert done["verdict"] == "RE" and "ValueError: one row is not enough for me" in case["message"]
    assert case["expected"]["norms"] == pytest.approx([0.707107], abs=1e-6) and case["got"] is None
    assert "rows: 1" in (case["stdout"] or "")  # what it printed before it raised
    r = custom(bob, CRASHES_ON_ONE_ROW, EXAMPLE)
    done = wait_done(bob, r.json()["id"])
    assert done["verdict"] == "AC" and "matches the reference" in done["report"]["message"]


def test_a_custom_run_draws_on_the_run_rate_limit(env):
    _, clients = env
    rita, source = clients["rita"], corpus("wrong_answer/sum_not_mean.py")  # compiles: no refund
    for _ in range(2):
        r = rita.post("/submissions", json={"problem": P1, "source": source, "kind": "run"})
        assert r.status_code == 202
        wait_done(rita, r.json()["id"])
    r = custom(rita, source, EXAMPLE)
    assert r.status_code == 202
    wait_done(rita, r.json()["id"])
    r = custom(rita, source, EXAMPLE)
    assert r.status_code == 429 and "run rate limit: 3 per 3600 s" in r.json()["detail"] and r.headers["Retry-After"]


def test_the_source_route_gives_ones_own_code_and_input_and_nobody_elses(env):
    _, clients = env
    ann, bob = clients["ann"], clients["bob"]
    source = corpus("accepted/flat_norm.py")
    sid = custom(ann, source, EXAMPLE).json()["id"]
    got = ann.get(f"/submissions/{sid}/source")
    assert got.status_code == 200 and got.json() == {"id": sid, "problem": P1, "kind": "custom", "source": source,
                                                     "input": EXAMPLE}
    assert bob.get(f"/submissions/{sid}/source").status_code == 404
    assert clients["teacher"].get(f"/submissions/{sid}/source").status_code == 200
    wait_done(ann, sid)


def test_the_same_idempotency_key_with_another_input_is_refused(env):
    _, clients = env
    t = clients["teacher"]
    source = corpus("accepted/flat_norm.py")
    key = {"Idempotency-Key": "custom-1"}
    a = t.post("/submissions", json={"problem": P1, "source": source, "kind": "custom", "input": EXAMPLE}, headers=key)
    b = t.post("/submissions", json={"problem": P1, "source": source, "kind": "custom", "input": EXAMPLE}, headers=key)
    c = t.post("/submissions", json={"problem": P1, "source": source, "kind": "custom",
                                     "input": changed(("max_norm",), 2.0)}, headers=key)
    assert (a.status_code, b.status_code, b.json()["id"]) == (202, 200, a.json()["id"])
    assert c.status_code == 422 and "Idempotency-Key" in c.json()["detail"]
    wait_done(t, a.json()["id"])
