"""Problem metadata and input validation: a malformed problem or input is named precisely."""
import pytest

from grader.problem.inputs import InputError, check_input, input_dims
from grader.problem import ProblemError, load_problem


def edit_toml(root, old, new):
    path = root / "problem.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("old, new, words", [
    ('difficulty = "medium"', 'difficulty = "medium"\ncolour = "red"', "unknown key 'colour'"),
    ("time_seconds = 10.0", "time_second = 10.0", "unknown key 'limits.time_second'"),
    ('title = "Per-Example Gradient Clipping"\n', "", "missing key 'title'"),
    ('dtype = "float32"\nshape = ["D"]\natol', 'dtype = "float32"\nshape = ["Q"]\natol', "dimension 'Q'"),
    ('kind = "float"', 'kind = "complex"', "kind"),
    ("atol = 1e-5", "atol = -1.0", "atol"),
    ('depends = ["grads.w"', 'depends = ["grads.z"', "grads.z"),
    ("[limits]", "[limits\n", "not valid TOML"),
    ('name = "per_example_grad_clip"', 'name = "not an identifier"', "identifiers"),
    ('depends = ["grads.w"', 'perturbation = "twice"\ndepends = ["grads.w"',
     "'requirements.perturbation' must be one of scale, passes"),
    ('depends = ["grads.w"', 'perturbation = "passes"\ndepends = ["grads.w"', "must be jax.lax.fori_loop"),
])
def test_broken_metadata_is_named(problem_copy, old, new, words):
    root = problem_copy()
    edit_toml(root, old, new)
    with pytest.raises(ProblemError) as err:
        load_problem(root)
    assert words in str(err.value) and "problem.toml" in str(err.value)


def test_broken_case_file_is_named(problem_copy):
    root = problem_copy()
    (root / "cases" / "hidden" / "broken.json").write_text("{not json")
    with pytest.raises(ProblemError, match="broken.json"):
        load_problem(root)


GOOD = {"params": {"w": [1.0, 2.0], "b": 0.5}, "x": [[1.0, 2.0]], "y": [1.0], "max_norm": 1.0}


def variant(path, value):
    import copy

    raw = copy.deepcopy(GOOD)
    node = raw
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return raw


@pytest.mark.parametrize("raw, field", [
    (variant(["x"], [[1.0, 2.0]] * 9), "x"),
    (variant(["y"], [1.0] * 2), "y"),
    (variant(["params", "w"], []), "params.w"),
    (variant(["max_norm"], 0.0), "max_norm"),
    (variant(["max_norm"], 101.0), "max_norm"),
    (variant(["max_norm"], "1.0"), "max_norm"),
    (variant(["x"], [[float("nan"), 1.0]]), "x"),
    (variant(["x"], [[1.0, 2.0, 3.0]]), "x"),
    (variant(["x"], [[1.0], [2.0, 3.0]]), "x"),
    (variant(["y"], KeyError), "y"),
    (variant(["params", "extra"], 1.0), "params.extra"),
    (variant(["x"], [[1e39, 1.0]]), "x"),
])
def test_bad_inputs_name_the_field(problem1, raw, field):
    with pytest.raises(InputError) as err:
        check_input(problem1.meta, raw)
    assert err.value.field == field


def test_a_case_is_bound_once_and_a_replaced_case_afresh(problem1):
    from dataclasses import replace

    case = problem1.cases[0]
    first = problem1.bind(case)
    assert problem1.bind(case) is first  # every stage reads the same typed inputs
    inputs, dims = first
    assert set(inputs) == set(problem1.meta.entry.args) and dims
    other = replace(case, input=problem1.cases[-1].input)
    assert problem1.bind(other) is not first


def test_good_input_binds_dims(problem1):
    assert input_dims(problem1.meta, GOOD) == {"D": 2, "N": 1}


def test_every_fault_of_an_input_is_named_at_once(problem1):
    raw = variant(["x"], [[1.0, 2.0]] * 9)  # N=9 of 1..8
    raw.update(y=[2000.0], max_norm=0.01, z=1.0)
    with pytest.raises(InputError) as err:
        check_input(problem1.meta, raw)
    assert err.value.faults == [("x", "has N=9, outside the allowed 1..8"),
                                ("y", "has a value 2000 above the maximum 1000"),
                                ("max_norm", "has a value 0.01 below the minimum 0.1"),
                                ("z", "is not an input of this problem")]
    assert str(err.value) == "; ".join(f"input '{f}': {m}" for f, m in err.value.faults)
    assert err.value.field == "x"


def test_a_group_that_is_not_an_object_is_one_fault_not_one_per_input_in_it(problem1):
    with pytest.raises(InputError) as err:
        check_input(problem1.meta, dict(GOOD, params=3.0, max_norm="big"))
    assert err.value.faults == [("params", "must be an object"), ("max_norm", "must be a number, got str")]


def test_one_input_may_break_its_range_and_its_size_at_once(problem1):
    with pytest.raises(InputError) as err:
        check_input(problem1.meta, variant(["y"], [5000.0, -5000.0]))  # x has one row
    assert [m for _, m in err.value.faults] == ["has a value -5000 below the minimum -1000",
                                                "has a value 5000 above the maximum 1000",
                                                "has N=2, but another input has N=1"]
