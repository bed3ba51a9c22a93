"""Normalisation and winnowing: what survives renaming and reformatting, and what does not."""
from __future__ import annotations

from support import P1, SUBMISSIONS
from grader.similarity.fingerprint import K, W, fingerprints, kgrams, winnow
from grader.similarity.tokens import normalise

FLAT = (SUBMISSIONS / P1 / "accepted" / "flat_norm.py").read_text()


def texts(source: str) -> list[str]:
    return [t.text for t in normalise(source)]


def test_identifiers_literals_comments_and_layout_stop_mattering():
    a = 'def f(x, y):\n    """Doc."""\n    # a comment\n    return jnp.sum(x * 2.0, axis=0) + len(y)\n'
    b = "def g(a,\n      b):\n\n    return jnp.sum(a*7,   # other\n                   axis=1)+len(b)\n"
    assert texts(a) == texts(b)
    assert "jnp" in texts(a) and "sum" in texts(a) and "axis" in texts(a) and "len" in texts(a)
    assert texts("x = 'a'\n") == ["V", "=", "S", ";"] and texts("x = 1e-5\n") == ["V", "=", "N", ";"]


def test_names_imported_from_a_library_are_kept_renamed_ones_are_not():
    assert texts("from jax import vmap\nvmap(f)\n")[-5:] == ["vmap", "(", "V", ")", ";"]
    assert texts("from jax import vmap as m\nm(f)\n")[-5:] == ["V", "(", "V", ")", ";"]


def test_parentheses_that_change_nothing_are_dropped():
    assert texts("return (a, b)\n") == texts("return a, b\n")
    assert texts("x = sum((v for v in w))\n") == texts("x = sum(v for v in w)\n")
    assert texts("x = (a / b) @ c\n") != texts("x = a / (b @ c)\n")


def test_top_level_units_keep_decorators_with_their_def():
    units = [(t.text, t.unit) for t in normalise("import jax\n@jax.jit\ndef f(x):\n    return x\ny = 1\n")]
    assert units[0][1] == 0 and {u for t, u in units if t in ("@", "def", "return")} == {1} and units[-1][1] == 2


def test_a_source_that_does_not_tokenize_is_read_by_the_fallback_lexer():
    broken = FLAT.replace("    norms = jnp", "    oops = (1,\n    norms = jnp").replace("import jax\n", "def (:\n", 1)
    tokens = texts(broken)
    assert tokens.count("concatenate") == 1 and tokens.count(";") >= 8  # statements still end
    assert texts("x = '''open\n")[:3] == ["V", "=", "S"]  # an unclosed string: the rest of the file is in it


def test_lines_are_kept_per_token():
    tokens = normalise(FLAT)
    concat = next(t for t in tokens if t.text == "concatenate")
    assert FLAT.splitlines()[concat.line - 1].lstrip().startswith("flat = jnp.concatenate")


def test_winnowing_keeps_one_fingerprint_per_window_and_never_spans_two_units():
    tokens = normalise(FLAT)
    grams = kgrams(tokens)
    kept = fingerprints(tokens)
    assert 0 < len(kept) < len(grams)
    units = {t.unit for t in tokens}
    assert all(tokens[f.start].unit == tokens[f.end - 1].unit for f in kept) and len(units) == 3
    runs: dict[int, list[int]] = {}
    for g in grams:
        runs.setdefault(tokens[g.start].unit, []).append(g.start)
    for starts in runs.values():  # every window of W consecutive k-grams of a unit holds a kept one
        chosen = {f.start for f in kept}
        assert all(chosen & set(starts[i:i + W]) for i in range(max(1, len(starts) - W + 1)))
    assert winnow(grams) == kept and K > W
