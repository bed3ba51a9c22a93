"""grader validate: a sound problem passes; each kind of corruption fails and names its culprit."""
import json
import shutil
import subprocess
import sys


from conftest import SUBMISSIONS

P1 = "per_example_grad_clipping"


def failures(root, pool, with_submissions=False):
    from grader.authoring.validate import validate_problem

    _, findings = validate_problem(root, pool, with_submissions)
    return [f"{f.check}: {f.message}" for f in findings if f.status == "fail"]


def edit_json(path, fn):
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data))


def test_sound_problem_passes(problem_copy, pool):
    assert failures(problem_copy(), pool) == []


def test_changed_expected_value_is_named(problem_copy, pool):
    root = problem_copy()
    edit_json(root / "cases" / "hidden" / "gen_s2026_004.json",
              lambda d: d["expected"]["norms"].__setitem__(0, d["expected"]["norms"][0] * 1.01 + 0.01))
    found = failures(root, pool)
    assert any(f.startswith("oracle oracle: hidden/gen_s2026_004") and "norms" in f for f in found), found
    assert any(f.startswith("reference: ") and "gen_s2026_004" in f for f in found), found


def test_case_out_of_constraints_is_named(problem_copy, pool):
    root = problem_copy()
    edit_json(root / "cases" / "hidden" / "gen_s2026_007.json", lambda d: d["input"].__setitem__("max_norm", 250.0))
    found = failures(root, pool)
    assert any("hidden/gen_s2026_007" in f and "max_norm" in f for f in found), found


def test_duplicate_case_is_named(problem_copy, pool):
    root = problem_copy()
    shutil.copy(root / "cases" / "public" / "example_2.json", root / "cases" / "hidden" / "copy.json")
    found = failures(root, pool)
    assert any(f.startswith("distinct cases") and "copy" in f and "example_2" in f for f in found), found


def test_statement_example_mismatch_is_named(problem_copy, pool):
    root = problem_copy()
    text = (root / "statement.md").read_text().replace("norms = [0.0, 4.5]", "norms = [0.0, 4.6]")
    (root / "statement.md").write_text(text)
    found = failures(root, pool)
    assert any(f.startswith("statement examples: Example 3, norms") for f in found), found


def test_broken_oracle_is_named(problem_copy, pool):
    root = problem_copy()
    src = (root / "oracle.py").read_text().replace("norms[i] / max_norm", "norms[i] / max_norm / 2")
    (root / "oracle.py").write_text(src)
    found = failures(root, pool)
    assert any(f.startswith("oracle oracle:") and "disagrees" in f for f in found), found


def test_unknown_metadata_key_is_named(problem_copy, pool):
    root = problem_copy()
    (root / "problem.toml").write_text((root / "problem.toml").read_text() + "\n[extra]\nx = 1\n")
    found = failures(root, pool)
    assert found and "problem.toml" in found[0] and "'extra'" in found[0]


def test_passing_wrong_answer_and_weak_suite_are_named(problem_copy, pool):
    root = problem_copy()
    wa = root.parent.parent / "submissions" / P1 / "wrong_answer"
    wa.mkdir(parents=True)
    shutil.copy(SUBMISSIONS / P1 / "accepted" / "flat_norm.py", wa / "secretly_right.py")
    src = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text()
    weak = src.replace("    return {\"grads\"", "    if max_norm == 1.0 and x.shape[0] == 3:\n        norms = norms * 2\n"
                       "    return {\"grads\"")
    assert weak != src
    (wa / "public_only.py").write_text("# reason: value\n" + weak)
    found = failures(root, pool, with_submissions=True)
    assert any("secretly_right.py: expected WA, got AC" in f for f in found), found
    assert any("public_only.py fails only public cases" in f for f in found), found


def test_cli_exit_status(problem_copy, tmp_path):
    root = problem_copy()
    ok = subprocess.run([sys.executable, "-m", "grader", "validate", P1, "--no-submissions"], cwd=tmp_path,
                        capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASS reference" in ok.stdout and "1/1 problem(s) valid" in ok.stdout
    (root / "reference.py").write_text((root / "reference.py").read_text().replace("jnp.mean(clipped_b)",
                                                                                   "jnp.sum(clipped_b)"))
    bad = subprocess.run([sys.executable, "-m", "grader", "validate", P1, "--no-submissions"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1 and "FAIL reference" in bad.stdout


DP = "dp_sgd_mlp_step"


def test_dp_sgd_broken_oracle_fails_three_ways(problem_copy, pool):
    """The lab's 'three ways must agree': an outer-product oracle that forgets the ReLU mask
    disagrees with the stored outputs, with the loop oracle, and with the loop's gradients."""
    from grader.problem import load_problem
    from grader.authoring.context import Context
    from grader.authoring.oracle_checks import check_oracles

    root = problem_copy(DP)
    src = (root / "oracle.py").read_text()
    broken = src.replace("delta1 = (delta2 @ w2.T) * (z1 > 0.0)   # (B, H)", "delta1 = delta2 @ w2.T")
    assert broken != src
    (root / "oracle.py").write_text(broken)
    found = [f"{f.check}: {f.message}" for f in check_oracles(Context(load_problem(root), pool, False, print))
             if f.status == "fail"]
    assert any(f.startswith("oracle oracle_analytic:") and "disagrees" in f for f in found), found
    assert any(f.startswith("oracles agree:") and "'oracle_loop' and 'oracle_analytic' differ" in f for f in found), found
    assert any(f.startswith("invariant loop_and_outer_products_agree:") for f in found), found
    assert not any(f.startswith("oracle oracle_loop:") for f in found), found


def test_dp_sgd_broken_reference_fails(problem_copy, pool):
    from grader.problem import load_problem
    from grader.authoring.context import Context
    from grader.authoring.grading_checks import check_reference

    root = problem_copy(DP)
    src = (root / "reference.py").read_text()
    broken = src.replace("jnp.maximum(1.0, norms / clip_norm)", "jnp.maximum(1.0, norms / (2 * clip_norm))")
    assert broken != src
    (root / "reference.py").write_text(broken)
    found = check_reference(Context(load_problem(root), pool, False, print))
    assert [f.status for f in found] == ["fail"] and "the reference gets WA on public case example_1" in found[0].message
