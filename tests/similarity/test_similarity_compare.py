"""Scores and regions: a renamed copy scores high, unrelated solutions low, the starter alone
nothing, reordering changes nothing, and the regions name the lines that match."""
from __future__ import annotations

from support import P1, SUBMISSIONS
from grader.problem import find_problem
from grader.similarity import Source, SourceSet, compare, starter_texts
from grader.similarity.starter import stub

ACCEPTED = SUBMISSIONS / P1 / "accepted"
ENTRY = "per_example_grad_clip"


def sub(name: str, text: str, path: str = "") -> SourceSet:
    return SourceSet(name, (Source(path or f"{name}.py", text),))


def pair(a: str, b: str, starter: list[str] | None = None, **kw):
    report = compare(P1, [sub("a", a), sub("b", b)], starter or [], **kw)
    return report.pairs[0] if report.pairs else None


def test_a_renaming_only_copy_scores_at_least_0_9(copies):
    rename_only, _ = copies
    base = starter_texts(find_problem(P1))
    for path in sorted(ACCEPTED.glob("*.py")):
        text = path.read_text()
        copy = rename_only(text, ENTRY)
        assert copy != text
        found = pair(text, copy, base)
        assert found is not None and found.score >= 0.9, (path.name, found)


def test_two_unrelated_accepted_solutions_score_lower_than_a_copy(copies):
    rename_only, _ = copies
    base = starter_texts(find_problem(P1))
    flat, inside = (ACCEPTED / "flat_norm.py").read_text(), (ACCEPTED / "clip_inside_vmap.py").read_text()
    honest = pair(flat, inside, base)
    copied = pair(flat, rename_only(flat, ENTRY), base)
    assert copied is not None and (honest is None or honest.score < 0.3 < copied.score), (honest, copied)


def test_the_starter_alone_shared_by_two_files_scores_about_nothing():
    problem = find_problem(P1)
    starter = stub(problem)
    a = starter.replace("    pass\n", "    return {'grads': params, 'norms': x.sum(axis=1) * 3}\n")
    b = starter.replace("    pass\n", "    out = [y[i] ** 2 for i in range(4)]\n    return max_norm - out[0]\n")
    assert pair(a, b) is not None and pair(a, b).score > 0  # without the exclusion the stub matches
    excluded = pair(a, b, starter_texts(problem))
    assert excluded is None or excluded.score < 0.05, excluded


def test_reordering_top_level_functions_changes_nothing():
    text = (ACCEPTED / "flat_norm.py").read_text()
    head, loss, entry = text.split("\n\n\n")
    found = pair(text, "\n\n\n".join([head, entry, loss]) + "\n")
    assert found is not None and found.score == 1.0 and found.left_share == found.right_share == 1.0


def test_regions_map_back_to_the_lines_of_each_side():
    text = (ACCEPTED / "flat_norm.py").read_text()
    head, loss, entry = text.split("\n\n\n")
    moved = "\n\n\n".join([head, entry, loss]) + "\n"
    found = pair(text, moved, starter_texts(find_problem(P1)))
    assert found is not None and len(found.matches) == 2
    def line(source: str, start: str) -> int:
        return next(n for n, x in enumerate(source.splitlines(), 1) if x.startswith(start))

    by_left = {m.left_lines: m.right_lines for m in found.matches}
    at = line(moved, "def loss")
    assert by_left[(6, 8)] == (at, at + 2)  # loss: last in the moved file
    entry_left = next(m for m in found.matches if m.left_lines[0] > 8)
    assert entry_left.left_lines[1] == line(text, "    return {")
    assert entry_left.right_lines[1] == line(moved, "    return {")
    assert all(m.left_file == "a.py" and m.right_file == "b.py" for m in found.matches)


def test_a_file_that_does_not_parse_is_still_compared():
    text = (ACCEPTED / "flat_norm.py").read_text()
    broken = text.replace("    norms = jnp", "    oops = (1,\n    norms = jnp")
    broken = broken.replace("\ndef loss", "\ndef (:\ndef loss")
    found = pair(text, broken)
    assert found is not None and found.score > 0.6, found


def test_code_shared_by_most_submissions_is_left_out_and_counted():
    common = "def helper(a):\n    return jnp.sqrt(jnp.sum(a ** 2, axis=-1)) / jnp.maximum(1.0, a.mean())\n"
    subs = [sub(f"s{i}", common + f"def f{i}(x):\n" + "    y = x\n" * i + "    return y\n") for i in range(1, 5)]
    kept = compare(P1, subs, [], common=1.0)
    dropped = compare(P1, subs, [], common=0.5)
    assert kept.fingerprints_common == 0 and kept.pairs and kept.pairs[0].score > 0
    assert dropped.fingerprints_common > 0 and all(p.score < kept.pairs[0].score for p in dropped.pairs)


def test_containment_ranks_a_padded_copy_higher_than_jaccard_does():
    text = (ACCEPTED / "flat_norm.py").read_text()
    padded = text + "".join(f"\n\ndef extra{i}(v):\n    return jnp.cumsum(v[{i}:] * {i}, axis=0) - v.max()\n"
                            for i in range(12))
    jaccard, containment = pair(text, padded), pair(text, padded, score="containment")
    assert containment.score == 1.0 > jaccard.score and containment.jaccard == jaccard.score
    assert jaccard.left_share == 1.0 and jaccard.right_share < 1.0


def test_folder_submissions_name_the_file_of_each_region():
    text = (ACCEPTED / "flat_norm.py").read_text()
    head, loss, entry = text.split("\n\n\n")
    split = SourceSet("b", (Source("model/loss.py", head + "\n\n\n" + loss + "\n"),
                             Source("solution.py", head + "\n\n\n" + entry + "\n")))
    report = compare(P1, [sub("a", text), split], [])
    files = {m.right_file for m in report.pairs[0].matches}
    assert report.pairs[0].score > 0.9 and files == {"model/loss.py", "solution.py"}
