"""Case labels (grader.problem.labels), on two real problems: a generated case is its
generator's scenario at its index, a recipe case its recipe, any other its id; ids the
problem no longer holds (an earlier drawn suite's) are read the same way."""
from grader.problem import find_problem
from grader.problem.labels import case_labels


def test_a_generated_case_is_labelled_by_the_scenario_its_index_picks():
    labels = case_labels(find_problem("per_example_grad_clipping"))
    # SCENARIOS has nine entries: index 1 and index 10 pick the same one.
    assert labels["gen_s2026_001"] == labels["gen_s2026_010"] == "all_clipped"
    assert labels["gen_s2026_000"] == "mixed" and labels["gen_s2026_008"] == "integers"
    assert labels["example_1"] == "example_1"  # a public example names no scenario


def test_a_recipe_case_is_labelled_by_its_recipe_and_ids_it_no_longer_holds_too():
    problem = find_problem("global_norm_clipping")
    labels = case_labels(problem, ["gen_s77_003", "small_norm_s77_004", "by_hand", "nosuch_s1_000"])
    assert {labels[c.id] for c in problem.cases if c.recipe} == {"small_norm", "tiny_norm", "smallest_max_norm_clipped",
                                                                 "smallest_max_norm_unclipped", "largest_entries",
                                                                 "largest_max_norm"}
    assert labels["small_norm_s2027_001"] == "small_norm"
    assert labels["gen_s2026_003"] == labels["gen_s77_003"] == "tiny_max_norm"
    assert labels["small_norm_s77_004"] == "small_norm"  # a recipe the generator has, by its id's form
    assert labels["by_hand"] == "by_hand" and labels["nosuch_s1_000"] == "nosuch_s1_000"
    assert case_labels(problem, ["gen_003"])["gen_003"] == "tiny_max_norm"  # as a drawn suite names it


def test_a_generator_without_a_list_of_scenarios_leaves_the_ids(tmp_path):
    from shutil import copytree

    from grader.problem import load_problem

    root = tmp_path / "per_example_grad_clipping"
    copytree(find_problem("per_example_grad_clipping").root, root)
    gen = root / "generator.py"
    gen.write_text(gen.read_text() + "\nSCENARIOS = 'not a list'\n")
    assert case_labels(load_problem(root))["gen_s2026_001"] == "gen_s2026_001"
