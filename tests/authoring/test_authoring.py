"""add-case and generate: validated inputs, atomic writes, nothing lost on bad input."""
import json
import subprocess
import sys
import threading

import pytest

from support import SUBMISSIONS as ROOT_SUBMISSIONS, tree_digest

P1 = "per_example_grad_clipping"
GOOD = {"params": {"w": [0.25, -0.5], "b": 0.125}, "x": [[1.0, 2.0], [3.0, -1.0]], "y": [0.5, 2.0], "max_norm": 2.5}


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def with_change(path, value):
    import copy

    raw = copy.deepcopy(GOOD)
    node = raw
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return raw


BAD = [
    ("not json", "{oops", "not a readable JSON"),
    ("missing key", json.dumps({k: v for k, v in GOOD.items() if k != "y"}), "'y'"),
    ("N=9", json.dumps(with_change(["x"], [[1.0, 2.0]] * 9) | {"y": [0.0] * 9}), "N=9"),
    ("D=0", json.dumps(with_change(["x"], [[], []]) | {"params": {"w": [], "b": 0.0}}), "D=0"),
    ("max_norm 0", json.dumps(with_change(["max_norm"], 0)), "max_norm"),
    ("max_norm 101", json.dumps(with_change(["max_norm"], 101)), "max_norm"),
    ("NaN in x", json.dumps(with_change(["x"], [[float("nan"), 1.0], [1.0, 1.0]])), "'x'"),
    ("width mismatch", json.dumps(with_change(["params", "w"], [1.0, 2.0, 3.0])), "D="),
]


@pytest.mark.parametrize("label, text, words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_changes_nothing(problem_copy, tmp_path, label, text, words):
    root = problem_copy()
    before = tree_digest(root.parent)
    src = tmp_path / "input.json"
    src.write_text(text)
    r = cli("add-case", P1, str(src), "--hidden", cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert words in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert tree_digest(root.parent) == before


def test_duplicate_of_existing_case_is_refused(problem_copy, tmp_path):
    root = problem_copy()
    before = tree_digest(root.parent)
    existing = json.loads((root / "cases" / "public" / "example_1.json").read_text())["input"]
    src = tmp_path / "dup.json"
    src.write_text(json.dumps(existing))
    r = cli("add-case", P1, str(src), cwd=tmp_path)
    assert r.returncode == 2 and "duplicate of the existing case 'example_1'" in r.stderr
    assert tree_digest(root.parent) == before


@pytest.mark.slow
def test_add_case_writes_reference_output_and_reports_catches(problem_copy, tmp_path):
    root = problem_copy(submissions=True)
    src = tmp_path / "new.json"
    src.write_text(json.dumps(GOOD))
    r = cli("add-case", P1, str(src), "--public", "--name", "mine", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    case = json.loads((root / "cases" / "public" / "mine.json").read_text())
    assert case["input"] == GOOD and set(case["expected"]) == {"grads", "norms"}
    assert "caught by the new case(s):" in r.stdout and "sum_not_mean.py" in r.stdout
    again = cli("add-case", P1, str(src), "--public", "--name", "mine", cwd=tmp_path)
    assert again.returncode == 2


@pytest.mark.slow
def test_concurrent_add_cases_both_land(problem_copy, tmp_path):
    root = problem_copy()
    results = []
    for i in range(2):
        (tmp_path / f"in{i}.json").write_text(json.dumps(with_change(["max_norm"], 1.5 + i)))

    def run(i):
        results.append(cli("add-case", P1, str(tmp_path / f"in{i}.json"), "--hidden", cwd=tmp_path))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    new = sorted(p.name for p in (root / "cases" / "hidden").glob("in*.json")) + \
        sorted(p.name for p in (root / "cases" / "hidden").glob("case_*.json"))
    files = [p for p in (root / "cases" / "hidden").iterdir() if p.name.startswith(("in", "case_"))]
    assert len(files) == 2, new
    for p in files:
        json.loads(p.read_text())
    assert not list((root / "cases" / "hidden").glob(".*.tmp"))


def test_generate_is_deterministic(problem1):
    from grader.problem.modules import generated_inputs

    a = generated_inputs(problem1, 12, seed=5)
    b = generated_inputs(problem1, 12, seed=5)
    c = generated_inputs(problem1, 12, seed=6)
    assert json.dumps(a) == json.dumps(b) and json.dumps(a) != json.dumps(c)


def test_generated_hidden_cases_cover_the_statement(problem1):
    import numpy as np

    from grader.problem.modules import load_module

    oracle = load_module(problem1.oracle_path, "cov").oracle
    seen = set()
    for case in problem1.cases:
        if not case.hidden:
            continue
        x = np.asarray(case.input["x"])
        n, d = x.shape
        norms = oracle(**case.input)["norms"]
        c = case.input["max_norm"]
        seen |= {f"N={n}", f"D={d}"}
        seen |= {"zero" for v in norms if v == 0} | ({"all clipped"} if (norms > c).all() else set())
        seen |= {"none clipped"} if (norms <= c).all() else set()
        seen |= {f"C={c:g}"}
        seen |= {"tiny"} if np.abs(x).max() < 1e-2 else set()
        seen |= {"huge"} if np.abs(x).max() > 1e2 else set()
    for need in ["N=1", "N=8", "D=1", "D=4", "zero", "all clipped", "none clipped", "C=0.1", "C=100", "tiny", "huge"]:
        assert need in seen, need
    shapes = {np.asarray(c.input["x"]).shape for c in problem1.cases}
    assert len(shapes) <= 12


@pytest.mark.slow
def test_reference_breaking_its_own_requirements_writes_nothing(problem_copy, tmp_path):
    root = problem_copy()
    dead = (ROOT_SUBMISSIONS / P1 / "rejected" / "dead_branch.py").read_text()
    (root / "reference.py").write_text(dead)
    before = tree_digest(root.parent)
    src = tmp_path / "new.json"
    src.write_text(json.dumps(GOOD))
    r = cli("add-case", P1, str(src), cwd=tmp_path)
    assert r.returncode == 2 and "fails its own requirement" in r.stderr
    assert tree_digest(root.parent) == before


@pytest.mark.slow
def test_add_case_refuses_an_input_the_oracles_disagree_on(problem_copy, tmp_path):
    root = problem_copy()
    oracle = root / "oracle.py"
    good = '    return {"grads": {"w": weights @ x, "b": weights.sum()}, "norms": norms}'
    oracle.write_text(oracle.read_text().replace(good, good[:-1] + " * 1.01}"))
    before = tree_digest(root.parent)
    src = tmp_path / "new.json"
    src.write_text(json.dumps(GOOD))
    r = cli("add-case", P1, str(src), "--hidden", cwd=tmp_path)
    assert r.returncode == 2 and "oracle_closed_form" in r.stderr and "disagree" in r.stderr, r.stderr
    assert tree_digest(root.parent) == before


@pytest.mark.slow
def test_generate_writes_the_seeded_cases_with_the_reference_outputs(problem_copy, tmp_path):
    from grader.problem.modules import generated_inputs

    root = problem_copy()
    before = set((root / "cases" / "hidden").iterdir())
    r = cli("generate", P1, "--count", "2", "--seed", "97", "--hidden", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    new = sorted(set((root / "cases" / "hidden").iterdir()) - before)
    assert len(new) == 2
    from grader.problem import load_problem

    wanted = [raw for _, raw in generated_inputs(load_problem(root), 2, seed=97)]
    cases = [json.loads(p.read_text()) for p in new]
    assert sorted(json.dumps(c["input"], sort_keys=True) for c in cases) == \
        sorted(json.dumps(w, sort_keys=True) for w in wanted)
    assert all(set(c["expected"]) == {"grads", "norms"} for c in cases)
