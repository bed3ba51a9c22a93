"""The measurement: over a problem's accepted solutions (honest, independent), a copy of one of
them disguised (renamed, reformatted, functions reordered) must rank above every honest pair.
Every accepted file of every problem is disguised in turn; the margin (the copy's score less the
best honest pair's) is in each assertion message and printed (``pytest -s``)."""
from __future__ import annotations

import pytest

from support import P1, SUBMISSIONS
from grader.problem import find_problem
from grader.similarity import Source, SourceSet, compare, starter_texts

PROBLEMS = sorted(p.parent.name for p in SUBMISSIONS.glob("*/accepted") if any(p.glob("*.py")))


def _subs(problem_id: str) -> list[SourceSet]:
    return [SourceSet(p.name, (Source(p.name, p.read_text()),))
            for p in sorted((SUBMISSIONS / problem_id / "accepted").glob("*.py"))]


def _margins(problem_id: str, copies) -> list[tuple[float, str, float, float]]:
    _rename, disguise = copies
    problem = find_problem(problem_id)
    base, honest = starter_texts(problem), _subs(problem_id)
    out = []
    for original in honest:
        copy = SourceSet("zz_copy", (Source("copy.py", disguise(original.sources[0].text, problem.meta.entry.name)),))
        verbatim = set(original.sources[0].text.splitlines()) & set(copy.sources[0].text.splitlines())
        assert len({v for v in verbatim if v.strip() and not v.startswith(("import", "from"))}) <= 2, verbatim
        report = compare(problem_id, [*honest, copy], base, top=10_000)
        scores = {(p.left, p.right): p.score for p in report.pairs}
        ours = scores.get((original.name, "zz_copy"), 0.0)
        best = max((s for (a, b), s in scores.items() if "zz_copy" not in (a, b)), default=0.0)
        others = max((s for (a, b), s in scores.items() if b == "zz_copy" and a != original.name), default=0.0)
        assert report.pairs[0].left == original.name and report.pairs[0].right == "zz_copy", report.pairs[:2]
        assert others < ours
        out.append((round(ours - best, 3), original.name, ours, best))
    return out


def test_a_disguised_copy_ranks_above_every_honest_pair_per_example_grad_clipping(copies):
    margins = _margins(P1, copies)
    worst = min(margins)
    print(f"{P1}: worst margin {worst[0]} (copy of {worst[1]} {worst[2]} vs best honest pair {worst[3]})")
    assert worst[0] > 0.3, f"{P1}: copy vs best honest pair, per file: {margins}"


@pytest.mark.parametrize("problem_id", [p for p in PROBLEMS if p != P1])
def test_a_disguised_copy_ranks_above_every_honest_pair(problem_id, copies):
    margins = _margins(problem_id, copies)
    worst = min(margins)
    print(f"{problem_id}: worst margin {worst[0]} (copy of {worst[1]} {worst[2]} vs best honest pair {worst[3]})")
    assert worst[0] > 0.2, f"{problem_id}: copy vs best honest pair, per file: {margins}"


def test_honest_solutions_score_low():
    """Independent solutions share idioms, not regions: the best honest pair of the corpus."""
    problem = find_problem(P1)
    report = compare(P1, _subs(P1), starter_texts(problem))
    assert report.pairs and report.pairs[0].score < 0.35, [(p.left, p.right, p.score) for p in report.pairs[:3]]
