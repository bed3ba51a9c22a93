"""Static requirement checks: alias-aware, and blind to comments, docstrings and strings."""
import ast

import pytest

from grader.problem import Requirements
from grader.judge.static_checks import check_source, used_names

REQ = Requirements(calls=("jax.vmap", "jax.grad"), forbid=("jax.hessian",))


def failing(src: str) -> list[str]:
    return [c.name for c in check_source(ast.parse(src), REQ) if not c.passed]


@pytest.mark.parametrize("src", [
    "import jax\nf = jax.vmap(jax.grad(g))",
    "import jax as J\nf = J.vmap(J.grad(g))",
    "from jax import vmap as v, grad as gr\nf = v(gr(g))",
    "import jax\n@jax.grad\ndef g(p): return p\nf = jax.vmap(g)",
    "import jax\nfrom functools import partial\nf = partial(jax.vmap, in_axes=0)(jax.grad(g))",
    "import jax\nV = jax.vmap\nG = jax.grad\nf = V(G(g))",
])
def test_transforms_found_through_aliases(src):
    assert failing(src) == []


@pytest.mark.parametrize("src, missing", [
    ('"""jax.vmap(jax.grad(loss))"""\nimport jax\nf = jax.vmap(h)', ["uses jax.grad"]),
    ("import jax\n# jax.grad(loss)\nf = jax.vmap(h)", ["uses jax.grad"]),
    ("import jax\nS = 'jax.grad'\nf = jax.vmap(h)", ["uses jax.grad"]),
    ("import jax\nf = jax.grad(h)", ["uses jax.vmap"]),
    ("def vmap(f): return f\ndef grad(f): return f\nf = vmap(grad(h))", ["uses jax.vmap", "uses jax.grad"]),
    ("import jax\nf = jax.vmap(jax.grad(h))\nH = jax.hessian(h)", ["avoids jax.hessian"]),
])
def test_missing_or_forbidden_names_are_reported(src, missing):
    assert failing(src) == missing


@pytest.mark.parametrize("src", ["import os", "from subprocess import run", "import jax.experimental",
                                 "from jax import profiler as p", "from . import x"])
def test_disallowed_imports(src):
    results = check_source(ast.parse(src), Requirements())
    imports = next(c for c in results if c.name == "imports")
    assert not imports.passed and imports.verdict == "CE"


def test_first_line_of_use_is_reported():
    assert used_names(ast.parse("import jax\n\n\nx = jax.grad")) ["jax.grad"] == 4
