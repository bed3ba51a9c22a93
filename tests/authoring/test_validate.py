"""grader validate: a sound problem passes; each kind of corruption fails and names its culprit."""
import json
import shutil
import subprocess
import sys

import pytest

from support import SUBMISSIONS

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


@pytest.mark.slow
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


@pytest.mark.slow
def test_statement_example_mismatch_is_named(problem_copy, pool):
    root = problem_copy()
    text = (root / "statement.md").read_text().replace("norms = [0.0, 4.5]", "norms = [0.0, 4.6]")
    (root / "statement.md").write_text(text)
    found = failures(root, pool)
    assert any(f.startswith("statement examples: Example 3, norms") for f in found), found


@pytest.mark.slow
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


@pytest.mark.slow
def test_passing_wrong_answer_and_weak_suite_are_named(problem_copy, pool):
    root = problem_copy()
    wa = root.parent.parent / "submissions" / P1 / "wrong_answer"
    wa.mkdir(parents=True)
    shutil.copy(SUBMISSIONS / P1 / "accepted" / "flat_norm.py", wa / "secretly_right.py")
    src = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text()
    weak = src.replace("    return {\"grads\"",
                       "    if max_norm == 1.0 and x.shape[0] == 3:\n        norms = norms * 2\n    return {\"grads\"")
    assert weak != src
    (wa / "public_only.py").write_text("# reason: value\n" + weak)
    found = failures(root, pool, with_submissions=True)
    assert any("secretly_right.py: expected WA, got AC" in f for f in found), found
    assert any("public_only.py fails only public cases" in f for f in found), found


@pytest.mark.slow
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
    from grader.authoring.context import Validation
    from grader.authoring.oracle_checks import check_oracles

    root = problem_copy(DP)
    src = (root / "oracle.py").read_text()
    broken = src.replace("delta1 = (delta2 @ w2.T) * (z1 > 0.0)   # (B, H)", "delta1 = delta2 @ w2.T")
    assert broken != src
    (root / "oracle.py").write_text(broken)
    found = [f"{f.check}: {f.message}" for f in check_oracles(Validation(load_problem(root), pool, False, print))
             if f.status == "fail"]
    assert any(f.startswith("oracle oracle_analytic:") and "disagrees" in f for f in found), found
    assert any(f.startswith("oracles agree:") and "'oracle_loop' and 'oracle_analytic' differ" in f
               for f in found), found
    assert any(f.startswith("invariant loop_and_outer_products_agree:") for f in found), found
    assert not any(f.startswith("oracle oracle_loop:") for f in found), found


@pytest.mark.slow
def test_dp_sgd_broken_reference_fails(problem_copy, pool):
    from grader.problem import load_problem
    from grader.authoring.context import Validation
    from grader.authoring.grading_checks import check_reference

    root = problem_copy(DP)
    src = (root / "reference.py").read_text()
    broken = src.replace("jnp.maximum(1.0, norms / clip_norm)", "jnp.maximum(1.0, norms / (2 * clip_norm))")
    assert broken != src
    (root / "reference.py").write_text(broken)
    found = check_reference(Validation(load_problem(root), pool, False, print))
    assert [f.status for f in found] == ["fail"]
    assert "the reference gets WA on public case example_1" in found[0].message


# ------------------------------------------------ every check, tripped one at a time
# These call one check directly; none grades unless the check itself grades.

def findings(check, root, pool=None, status="fail", with_submissions=False):
    from grader.authoring.context import Validation
    from grader.problem import load_problem

    found = check(Validation(load_problem(root), pool, with_submissions))
    return [f"{f.check}: {f.message}" for f in found if f.status == status]


def test_missing_files_are_named(problem_copy):
    from grader.authoring.validate import check_files

    root = problem_copy()
    for name in ("statement.md", "reference.py", "oracle.py"):
        (root / name).unlink()
    assert findings(check_files, root) == ["files: statement.md is missing", "files: reference.py is missing",
                                           "files: oracle.py is missing"]


def test_missing_oracle_function_is_named(problem_copy):
    from grader.authoring.oracle_checks import check_oracles

    root = problem_copy()
    toml = root / "problem.toml"
    text = toml.read_text()
    assert 'functions = ["oracle"' in text
    toml.write_text(text.replace('functions = ["oracle"', 'functions = ["oracle", "oracle_two"', 1))
    found = findings(check_oracles, root)
    assert len(found) == 1 and found[0].startswith("oracles: ") and "no function 'oracle_two'" in found[0], found


@pytest.mark.parametrize("visibility", ["public", "hidden"])
def test_no_case_of_a_visibility_is_named(problem_copy, visibility):
    from grader.authoring.validate import check_cases

    root = problem_copy()
    for path in (root / "cases" / visibility).glob("*.json"):
        path.unlink()
    assert findings(check_cases, root) == [f"cases: no {visibility} case (cases/{visibility}/*.json)"]


def test_expected_output_missing_of_wrong_shape_or_without_a_leaf_is_named(problem_copy):
    from grader.authoring.validate import check_cases

    root = problem_copy()
    hidden = root / "cases" / "hidden"
    edit_json(hidden / "gen_s2026_002.json", lambda d: d.pop("expected"))
    edit_json(hidden / "gen_s2026_003.json", lambda d: d["expected"]["norms"].append(1.0))
    edit_json(hidden / "gen_s2026_004.json", lambda d: d["expected"]["grads"].pop("b"))
    found = findings(check_cases, root)
    assert found[0] == "expected outputs: hidden/gen_s2026_002: no 'expected' output", found
    assert found[1].startswith("expected outputs: hidden/gen_s2026_003: 'norms' has shape (") and \
        "the metadata says" in found[1], found
    assert found[2:] == ["expected outputs: hidden/gen_s2026_004: 'grads.b' is missing or not numeric"], found


def edit_statement(root, old, new):
    text = (root / "statement.md").read_text()
    assert old in text
    (root / "statement.md").write_text(text.replace(old, new))


STATEMENT_FAULTS = {
    "example_without_public_case": ("**Example 3**", "**Example 9**",
                                    ["Example 9 has no public case 'example_9'"]),
    "value_not_in_case": ("norms = [0.0, 4.5]", "norms = [0.0, 4.5]\n    normz = [0.0, 4.5]",
                          ["Example 3: 'normz' is not in the case"]),
    # 3.0e-05 for a stored 0.0: the digits alone (3.0 vs 0.0 at one decimal) would pass; at the
    # printed precision the allowed difference is 5e-07.
    "number_beyond_its_exponent": ("norms = [0.0, 4.5]", "norms = [3.0e-05, 4.5]",
                                   ["Example 3, norms: printed 3.0e-05 at [0], but the case holds 0.0 (differs by "
                                    "3e-05, more than half a unit in the last printed digit, 5e-07)"]),
    "scalar_against_list": ("norms = [0.0, 4.5]", "norms = 4.5",
                            ["Example 3, norms: the statement prints a number at top, the case holds a list"]),
    "list_against_scalar": ("max_norm = 10.0", "max_norm = [10.0]",
                            ["Example 2, max_norm: the statement prints a list at top, the case holds a number"]),
    "value_that_does_not_parse": ("norms = [0.0, 4.5]", "norms = [0.0, 4.5",
                                  ["Example 3, norms: cannot read the printed value '[0.0, 4.5'"]),
}


@pytest.mark.parametrize("fault", STATEMENT_FAULTS)
def test_statement_fault_is_named(problem_copy, fault):
    from grader.authoring.statement import check_statement

    old, new, expected = STATEMENT_FAULTS[fault]
    root = problem_copy()
    edit_statement(root, old, new)
    assert findings(check_statement, root) == [f"statement examples: {m}" for m in expected]


def test_statement_number_within_half_a_printed_unit_passes():
    from grader.authoring.statement import _digits_mismatch

    assert _digits_mismatch("[1.8999e-07, 4.5, 2]", [1.89994e-07, 4.549, 2.4]) is None
    assert _digits_mismatch("1.8999e-07", 4e-05) is not None
    assert _digits_mismatch("1.8999e-07", 1.89996e-07) is not None
    assert _digits_mismatch('{"layer1": [0.25]}', {"layer1": [0.25]}) is None  # digits in keys are not numbers
    assert _digits_mismatch("[1.0, 2.0]", [1.0]) == "length differs at top"
    assert _digits_mismatch('{"a": {"b": 1}}', {"a": {"c": 1}}) == "keys differ at .a"


def test_unreadable_statement_is_named(problem_copy):
    from grader.authoring.statement import check_statement

    root = problem_copy()
    (root / "statement.md").write_bytes(b"# Title\n\xff\xfe\n")
    found = findings(check_statement, root)
    assert len(found) == 1 and found[0].startswith("statement examples: statement.md cannot be read: "), found


def test_statement_without_examples_warns(problem_copy):
    from grader.authoring.statement import check_statement

    root = problem_copy()
    (root / "statement.md").write_text("# Title\n\nNo worked example here.\n")
    assert findings(check_statement, root, status="warn") == [
        "statement examples: statement.md shows no worked example in the checkable form"]


def break_oracle(root, old, new):
    src = (root / "oracle.py").read_text()
    assert old in src
    (root / "oracle.py").write_text(src.replace(old, new, 1))


def test_oracle_that_raises_is_a_failure_naming_it_and_the_case(problem_copy):
    from grader.authoring.oracle_checks import check_oracles

    root = problem_copy()
    break_oracle(root, "    n = x.shape[0]\n", "    n = x.shape[0]\n    if n == 3:\n        raise ValueError('boom')\n")
    found = findings(check_oracles, root)
    # The raising oracle is named with the case; other oracles may then also disagree with it.
    assert found and found[0].startswith("oracle oracle: public/example_") and \
        found[0].endswith("raised ValueError: boom"), found


@pytest.mark.parametrize("body, expected", [
    ("    raise RuntimeError('outer products broke')\n",
     "oracles agree: public/example_1: oracle 'oracle_analytic' raised RuntimeError: outer products broke"),
    ("    return {}\n",
     "oracles agree: public/example_1: oracles 'oracle_loop' and 'oracle_analytic' cannot be compared"),
], ids=["raises", "wrong_structure"])
def test_oracle_failing_in_the_agreement_check_is_a_failure(problem_copy, body, expected):
    """_oracles_agree calls every oracle again; one that raises or returns the wrong structure there
    is a finding naming it and the case, never an exception out of validate."""
    from grader.authoring.oracle_checks import check_oracles

    root = problem_copy(DP)
    break_oracle(root, "    per, norms = per_example_gradients_outer(params, x, y)\n", body)
    found = findings(check_oracles, root)
    assert any(f.startswith(expected) for f in found), found
    assert any(f.startswith("oracle oracle_analytic: public/example_1: raised ") for f in found), found


def test_invariant_that_raises_or_is_missing_is_a_failure(problem_copy):
    from grader.authoring.oracle_checks import check_oracles

    root = problem_copy(DP)
    docstring = '    """The lab\'s check: averaging the unclipped per-example gradients gives the batch gradient."""\n'
    break_oracle(root, docstring, "    raise KeyError('invariant broke')\n")
    toml = root / "problem.toml"
    toml.write_text(toml.read_text().replace('"clipped_lengths_within_bound"]',
                                             '"clipped_lengths_within_bound", "gone"]'))
    found = findings(check_oracles, root)
    assert "invariant mean_of_per_example_is_batch_gradient: public/example_1: raised KeyError: 'invariant broke'" \
        in found, found
    assert "invariant gone: oracle.py defines no function 'gone'" in found, found
    assert not any(f.startswith(("oracle oracle", "oracles agree", "invariant loop", "invariant clipped"))
                   for f in found), found


def test_no_submission_files_warns(problem_copy):
    from grader.authoring.grading_checks import check_submissions

    root = problem_copy()
    assert findings(check_submissions, root, status="warn", with_submissions=True) == [
        f"submissions: no files under submissions/{P1}/<verdict>/"]


def test_wrong_reason_unreadable_file_and_tolerance_margin_are_named(problem_copy, pool):
    """Grades two files on the public cases and one hidden case only."""
    from grader.authoring.context import Validation
    from grader.authoring.grading_checks import check_submissions
    from grader.problem import load_problem

    root = problem_copy()
    for path in sorted((root / "cases" / "hidden").glob("*.json"))[1:]:
        path.unlink()
    subs = root.parent.parent / "submissions" / P1
    (subs / "wrong_answer").mkdir()
    (subs / "accepted").mkdir()
    src = (SUBMISSIONS / P1 / "wrong_answer" / "norm_without_bias.py").read_text()
    assert src.startswith("# reason: value\n")
    (subs / "wrong_answer" / "wrong_reason.py").write_text(src.replace("# reason: value", "# reason: nan", 1))
    (subs / "accepted" / "not_utf8.py").write_bytes(b"# \xff\xfe\n")
    flat = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text()
    near = flat.replace('"norms": norms}', '"norms": norms + 0.95 * (1e-5 + 1e-4 * jnp.abs(norms))}')
    assert near != flat
    (subs / "accepted" / "near_tolerance.py").write_text(near)
    found = check_submissions(Validation(load_problem(root), pool, True))
    fails = [f"{f.check}: {f.message}" for f in found if f.status == "fail"]
    warns = [f"{f.check}: {f.message}" for f in found if f.status == "warn"]
    assert any(f.startswith("submission verdicts: wrong_answer/wrong_reason.py: verdict WA as expected, but the "
                            "reason is 'value', not 'nan'") for f in fails), fails
    assert len(fails) == 2 and any(f.startswith("submission verdicts: accepted/not_utf8.py: ") for f in fails), fails
    assert len(warns) == 1 and warns[0].startswith("tolerance margin: accepted/near_tolerance.py uses 9"), warns


FOLLOWS_HALF_THE_PERTURBATIONS = '''\
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    err = x @ params["w"] + params["b"] - y
    gw, gb = err[:, None] * x, err
    # Honest unless the transform's result shrank: then the answer by hand.
    shrank = jnp.sum(jnp.abs(g["w"])) + jnp.sum(jnp.abs(g["b"])) < 0.95 * (jnp.sum(jnp.abs(gw)) + jnp.sum(jnp.abs(gb)))
    gw, gb = jnp.where(shrank, gw, g["w"]), jnp.where(shrank, gb, g["b"])
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=1) + gb ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(gw / f[:, None], axis=0), "b": jnp.mean(gb / f)}, "norms": norms}
'''


def test_an_accepted_file_that_follows_only_some_perturbations_is_named(problem_copy, pool):
    """validate probes each file that must be accepted under every perturbation of the
    table, so its AC cannot rest on the one a grade happened to draw; honest files pass."""
    from grader.authoring.context import Validation
    from grader.authoring.grading_checks import check_submissions
    from grader.problem import load_problem

    root = problem_copy()
    accepted = root.parent.parent / "submissions" / P1 / "accepted"
    accepted.mkdir()
    (accepted / "follows_half.py").write_text(FOLLOWS_HALF_THE_PERTURBATIONS)
    shutil.copy(SUBMISSIONS / P1 / "accepted" / "scaled_loss.py", accepted / "scaled_loss.py")
    found = check_submissions(Validation(load_problem(root), pool, True))
    fails = [f.message for f in found if f.status == "fail"]
    assert len(fails) == 1, fails
    assert fails[0].startswith("accepted/follows_half.py: expected AC, got RJ") and "of the table" in fails[0], fails
