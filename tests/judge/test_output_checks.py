"""Every output check, tripped on a synthetic output (and passed by a correct one)."""

import numpy as np
import pytest

from grader.judge.output_checks import CHECKS, CheckContext, run_checks
from grader.sandbox.wire import Leaf, Opaque


def jax_leaf(value, dtype="float32"):
    return Leaf("jax", np.asarray(value, dtype=dtype))


def good_output(case):
    e = case.expected
    return {"grads": {"w": jax_leaf(e["grads"]["w"]), "b": jax_leaf(e["grads"]["b"])}, "norms": jax_leaf(e["norms"])}


def args_after(case):
    p = case.input["params"]
    return {"params": {"w": jax_leaf(p["w"]), "b": jax_leaf(p["b"])}, "x": jax_leaf(case.input["x"]),
            "y": jax_leaf(case.input["y"]), "max_norm": Leaf("float", np.asarray(case.input["max_norm"], np.float64))}


def run(problem, case, got, after=None):
    meta = problem.meta
    ctx = CheckContext.for_input(meta, case.input, got, case.expected, after if after is not None else args_after(case))
    return run_checks(ctx, meta.output_checks)


@pytest.fixture
def case(problem1):
    return next(c for c in problem1.cases if c.id == "example_1")


def test_correct_output_passes_every_check(problem1, case):
    assert run(problem1, case, good_output(case)) is None


def mutate(case, fn):
    out = good_output(case)
    fn(out)
    return out


TRIPS = [
    ("structure", lambda o: o.pop("norms")),
    ("structure", lambda o: o.__setitem__("extra", jax_leaf(1.0))),
    ("structure", lambda o: o.__setitem__("grads", [o["grads"]["w"], o["grads"]["b"]])),
    ("type", lambda o: o["grads"].__setitem__("w", Leaf("numpy", o["grads"]["w"].array))),
    ("type", lambda o: o["grads"].__setitem__("b", Leaf("float", np.asarray(0.5, np.float64)))),
    ("type", lambda o: o.__setitem__("norms", Opaque("submission.AlwaysEqual"))),
    ("dtype", lambda o: o.__setitem__("norms", jax_leaf(o["norms"].array, "float16"))),
    ("dtype", lambda o: o["grads"].__setitem__("b", jax_leaf(o["grads"]["b"].array, "int32"))),
    ("shape", lambda o: o["grads"].__setitem__("b", jax_leaf([o["grads"]["b"].array]))),
    ("shape", lambda o: o.__setitem__("norms", jax_leaf(o["norms"].array[:2]))),
    ("nan", lambda o: o.__setitem__("norms", jax_leaf([np.nan, 3.0, 12.649111]))),
    ("nan", lambda o: o["grads"].__setitem__("w", jax_leaf([np.inf, 0.0]))),
    ("value", lambda o: o.__setitem__("norms", jax_leaf(o["norms"].array * 1.001))),
    ("value", lambda o: o["grads"].__setitem__("b", jax_leaf(o["grads"]["b"].array + 1e-3))),
]


@pytest.mark.parametrize("reason, change", TRIPS)
def test_each_check_trips(problem1, case, reason, change):
    found = run(problem1, case, mutate(case, change))
    assert found is not None and found.reason == reason, found


def test_value_within_tolerance_passes(problem1, case):
    out = mutate(case, lambda o: o.__setitem__("norms", jax_leaf(o["norms"].array * (1 + 5e-5))))
    assert run(problem1, case, out) is None


@pytest.mark.parametrize("change", [
    lambda a: a["params"].__setitem__("w", jax_leaf([1.0, -2.0])),
    lambda a: a["params"].__setitem__("extra", jax_leaf(0.0)),
    lambda a: a["params"].pop("b"),
    lambda a: a["params"].__setitem__("b", Leaf("numpy", a["params"]["b"].array)),
])
def test_inputs_unchanged_trips(problem1, case, change):
    after = args_after(case)
    change(after)
    found = run(problem1, case, good_output(case), after)
    assert found is not None and found.reason == "params_mutated"


def test_every_registered_check_is_tripped_above():
    tripped = {reason for reason, _ in TRIPS} | {"params_mutated"}
    reason_of = {"structure": "structure", "type": "type", "dtype": "dtype", "shape": "shape", "finite": "nan",
                 "value": "value", "inputs_unchanged": "params_mutated"}
    assert set(CHECKS) == set(reason_of) and set(reason_of.values()) <= tripped


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_each_check_stands_alone_on_a_broken_output(problem1, case, name):
    """A problem may name any subset of the checks: each one handles a result whose
    structure is wrong (a missing leaf, a dict where an array belongs) by failing,
    never by raising."""
    meta = problem1.meta
    broken = [{"grads": {"w": jax_leaf([0.0, 0.0])}, "norms": {"not": "an array"}}, Opaque("builtins.str"), {}]
    for got in broken:
        ctx = CheckContext.for_input(meta, case.input, got, case.expected, args_after(case))
        found = CHECKS[name](ctx)
        if name != "inputs_unchanged":  # the only check that does not look at the output
            assert found is not None and found.reason in ("structure", "type"), (name, got, found)


def test_value_check_alone_refuses_a_wrong_shape(problem1, case):
    meta = problem1.meta
    got = good_output(case)
    got["norms"] = jax_leaf([1.0])
    ctx = CheckContext.for_input(meta, case.input, got, case.expected, args_after(case))
    assert CHECKS["value"](ctx).reason == "shape"


def test_a_non_finite_output_names_its_positions(problem1, case):
    meta = problem1.meta
    got = mutate(case, lambda o: o.__setitem__("norms", jax_leaf([3.0, np.nan, np.inf])))
    ctx = CheckContext.for_input(meta, case.input, got, case.expected, args_after(case))
    found = run_checks(ctx, meta.output_checks)
    assert found.reason == "nan" and "2 NaN or infinite value(s)" in found.message
    assert found.detail == {"leaf": "norms", "positions": [[1], [2]]}
