"""The constraint-box check of `grader validate`: its samples stay in the declared box and
reach its corners, extremes, zeros and ties; it passes a sound problem and fails one whose
tolerance or constraints admit inputs where the float32 reference is not within tolerance."""
import json
import re

import numpy as np
import pytest
from support import P1, PROBLEMS


def load(pid_or_root):
    from grader.problem import load_problem

    return load_problem(pid_or_root if not isinstance(pid_or_root, str) else PROBLEMS / pid_or_root)


def box(root, pool):
    from grader.authoring.box_check import check_box
    from grader.authoring.context import Validation

    return {f.check: f for f in check_box(Validation(load(root), pool))}


def leaf_values(problem, raw):
    from grader.common.trees import dotted, get_path

    return {dotted(leaf.path): np.asarray(get_path(raw, leaf.path), dtype=np.float64) for leaf in problem.meta.inputs}


def set_in_toml(root, table, key, value):
    text = (root / "problem.toml").read_text()
    head = f"[{table}]\n"
    start = text.index(head)
    end = text.find("\n[", start + 1)
    block = re.sub(rf"(?m)^{key} = .*$", f"{key} = {value}", text[start:end if end > 0 else len(text)], count=1)
    (root / "problem.toml").write_text(text[:start] + block + text[end if end > 0 else len(text):])


@pytest.mark.parametrize("pid", sorted(p.name for p in PROBLEMS.iterdir() if (p / "problem.toml").is_file()))
def test_every_sample_passes_the_problems_own_input_validator(pid):
    from grader.authoring.box_check import box_samples, root_samples
    from grader.problem.inputs import check_input
    from grader.problem.modules import oracles

    p = load(pid)
    samples = box_samples(p, 48) + root_samples(p, next(iter(oracles(p).values())), 4)
    assert len(samples) >= 40
    for _, raw, _ in samples:
        check_input(p.meta, raw)


def test_samples_reach_every_dims_corner_and_every_inputs_min_and_max():
    from grader.authoring.box_check import box_samples
    from grader.problem.inputs import input_dims

    p = load("dp_sgd_mlp_step")
    samples = box_samples(p)
    sizes = [input_dims(p.meta, raw) for _, raw, _ in samples]
    for dim, (lo, hi) in p.meta.dims.items():
        assert {lo, hi} <= {s[dim] for s in sizes}, dim
    assert {(s["B"], s["H"]) for s in sizes} == {(1, 1), (16, 32), (1, 32), (16, 1)}
    values = [leaf_values(p, raw) for _, raw, _ in samples]
    for leaf in p.meta.inputs:
        name = ".".join(leaf.path)
        if leaf.min is None:
            continue
        assert any(np.all(v[name] == leaf.min) for v in values), name
        assert any(np.all(v[name] == leaf.max) for v in values), name
        if leaf.kind == "array":
            assert any(set(np.unique(v[name])) == {leaf.min, leaf.max} for v in values), name


def test_samples_hold_zeros_ties_and_repeated_rows():
    from grader.authoring.box_check import box_samples

    p = load(P1)
    values = [leaf_values(p, raw) for _, raw, _ in box_samples(p)]
    assert any(all(np.all(v[k] == 0) for k in ("params.w", "params.b", "x", "y")) for v in values)
    assert any(v["x"].size > 1 and np.all(v["x"] == v["x"].flat[0]) and v["x"].flat[0] != 0 for v in values)
    assert any(v["x"].shape[0] > 1 and np.all(v["x"] == v["x"][0]) and len(np.unique(v["x"])) > 1 for v in values)


def test_samples_hold_near_zero_log_spread_and_one_input_at_an_extreme():
    from grader.authoring.box_check import box_samples

    p = load(P1)
    samples = box_samples(p)
    by_label = {label.split("; ")[-1]: leaf_values(p, raw) for _, raw, label in samples}
    small, log = by_label["small"], by_label["log"]
    assert np.all(np.abs(small["x"]) <= 2.0) and np.any(small["x"] != 0)  # 1e-3 of the range [-1000, 1000]
    mags = np.abs(log["x"][log["x"] != 0])
    assert mags.max() / mags.min() > 10
    alone = [label.split("; ")[-1] for _, _, label in samples if label.endswith("(others random)")]
    alone = [a for a in alone if a.count("=") == 1]
    assert any("x=lo" in a for a in alone) and any("max_norm=hi" in a for a in alone)


def test_tie_values_have_short_mantissas_so_float32_sums_of_them_are_exact():
    from grader.authoring.box_check import _short

    v = _short(np.random.default_rng(0).uniform(-1, 1, size=1000), -1.0, 1.0)
    m, _ = np.frexp(v)
    assert np.all(m * 16 == np.round(m * 16))
    assert np.all(np.abs(v) <= 1.0)


def test_samples_are_the_same_on_every_run():
    from grader.authoring.box_check import box_samples

    p = load(P1)
    assert json.dumps(box_samples(p)) == json.dumps(box_samples(p))


def test_root_samples_put_an_output_element_on_zero():
    from grader.authoring.box_check import root_samples
    from grader.problem.modules import oracles

    p = load(P1)
    fn = oracles(p)["oracle"]
    roots = root_samples(p, fn, 6)
    assert len(roots) >= 3
    for _, raw, label in roots:
        out = fn(**raw)
        flat = np.concatenate([np.ravel(out["grads"]["w"]), np.ravel(out["grads"]["b"]), np.ravel(out["norms"])])
        k = int(re.search(r"output element (\d+)", label).group(1))
        assert abs(flat[k]) <= 1e-3 * np.abs(flat).max(), label


@pytest.mark.slow
def test_a_sound_problem_passes_the_box(problem_copy, pool):
    found = box(problem_copy(), pool)
    assert found["constraint box"].status == "pass", found["constraint box"].message


@pytest.mark.slow
def test_dp_sgd_passes_the_box_and_its_zeros_on_64_samples(problem_copy, pool):
    from grader.authoring.box_check import SAMPLES

    found = box(problem_copy("dp_sgd_mlp_step"), pool)
    assert found["constraint box"].status == "pass", found["constraint box"].message
    assert found["zeros of the outputs"].status == "pass", found["zeros of the outputs"].message
    n_box = int(re.search(r"all (\d+) samples", found["constraint box"].message).group(1))
    n_zeros = int(re.search(r"at (\d+) zeros", found["zeros of the outputs"].message).group(1))
    assert n_box + n_zeros == SAMPLES == 64


@pytest.mark.slow
def test_a_tolerance_float32_cannot_meet_fails_and_writes_the_worst_sample(problem_copy, pool):
    from grader.authoring.box_check import check_box
    from grader.authoring.context import Validation
    from grader.common.files import cache_dir
    from grader.problem.inputs import check_input

    root = problem_copy()
    for leaf in ("outputs.grads.w", "outputs.grads.b", "outputs.norms"):
        set_in_toml(root, leaf, "atol", "1e-9")
        set_in_toml(root, leaf, "rtol", "1e-9")
    findings = check_box(Validation(load(root), pool))
    fail = next(f for f in findings if f.check == "constraint box")
    assert fail.status == "fail" and "disagree" in fail.message and "x the tolerance" in fail.message
    written = cache_dir("box") / f"{P1}-worst.json"
    assert str(written) in fail.message and "grader add-case" in fail.message
    check_input(load(root).meta, json.loads(written.read_text()))  # ready for add-case


@pytest.mark.slow
def test_a_constraint_widened_into_a_division_by_zero_fails(problem_copy, pool):
    root = problem_copy()
    set_in_toml(root, "inputs.max_norm", "min", "0.0")
    fail = box(root, pool)["constraint box"]
    assert fail.status == "fail" and "the reference cannot answer" in fail.message


@pytest.mark.slow
def test_dp_sgds_old_box_and_tolerances_fail(problem_copy, pool):
    root = problem_copy("dp_sgd_mlp_step")
    for leaf in ("params.layer1.w", "params.layer1.b", "params.layer2.w", "params.layer2.b", "x"):
        set_in_toml(root, f"inputs.{leaf}", "min", "-10.0")
        set_in_toml(root, f"inputs.{leaf}", "max", "10.0")
    set_in_toml(root, "inputs.clip_norm", "max", "100.0")
    for leaf in ("update.layer1.w", "update.layer1.b", "update.layer2.w", "update.layer2.b", "norms"):
        set_in_toml(root, f"outputs.{leaf}", "atol", "1e-6")
        set_in_toml(root, f"outputs.{leaf}", "rtol", "2e-5")
    fail = box(root, pool)["constraint box"]
    assert fail.status == "fail" and "disagree" in fail.message, fail.message


def test_a_disagreement_only_at_a_zero_of_an_output_is_a_warning(problem_copy, pool):
    found = box(problem_copy(), pool)  # per_example_grad_clipping: x and w up to 1000, atol 1e-5
    assert found["constraint box"].status == "pass"
    warn = found["zeros of the outputs"]
    assert warn.status == "warn" and "crosses zero" in warn.message and "-zero.json" in warn.message


def test_validate_runs_the_box_check(problem_copy, pool):
    from grader.authoring.box_check import check_box
    from grader.authoring.validate import CHECKS, validate_problem

    assert check_box in CHECKS
    _, findings = validate_problem(problem_copy(), pool, with_submissions=False)
    assert any(f.check == "constraint box" and f.status == "pass" for f in findings)
