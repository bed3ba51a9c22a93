"""The allow-list is a deliberate table: every public name of each JAX module a
submission may import is either allowed or refused with a reason, against the JAX
installed here; the static checks and the child give the table's reasons; annotations
are checked by the policy and never run."""
from __future__ import annotations

import ast
import importlib
import types

import pytest

from support import SUBMISSIONS, grade_source
from grader.judge.static_checks import check_source
from grader.problem import Requirements
from grader.sandbox.allowlist import ALLOWED, REFUSED, may_use_line, module_message, refusal, refused_message
from grader.sandbox.language import compile_submission, restricted_errors

JAX_MODULES = [m for m in ALLOWED if m == "jax" or m.startswith("jax.")]


def public_names(module: types.ModuleType) -> set[str]:
    """A module's ``__all__`` where it has one, else what ``dir`` shows without a leading
    underscore: functions, classes, dtypes, constants and submodules alike."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return set(names)


@pytest.mark.parametrize("name", JAX_MODULES)
def test_every_public_name_is_allowed_or_refused_with_a_reason(name):
    module = importlib.import_module(name)
    unlisted = sorted(n for n in public_names(module) if n not in ALLOWED[name] and refusal(name, n) is None)
    assert not unlisted, f"{name}: allow or refuse (grader/sandbox/allowlist*.py) {unlisted}"


@pytest.mark.parametrize("name", JAX_MODULES)
def test_allowed_names_exist_are_not_refused_and_lead_to_no_raw_module(name):
    module = importlib.import_module(name)
    for attr in sorted(ALLOWED[name]):
        assert refusal(name, attr) is None, f"{name}.{attr} is both allowed and refused"
        if hasattr(module, attr):
            value = getattr(module, attr)
        else:  # a submodule that its parent does not import
            value = importlib.import_module(f"{name}.{attr}")
        if isinstance(value, types.ModuleType):
            assert f"{name}.{attr}" in ALLOWED, f"{name}.{attr} would expose a raw module"


def test_refusals_name_real_modules_and_give_a_reason():
    for full, reason in REFUSED.items():
        module = full.rpartition(".")[0]
        assert module in ALLOWED, full
        assert reason.why and reason.label, full
    assert refusal("jax.lax", "add_p") is not None and refusal("jax.random", "random_gamma_p") is not None


def test_the_newly_allowed_and_the_notable_refusals():
    assert {"dynamic_index_in_dim", "dynamic_update_index_in_dim", "psum"} <= ALLOWED["jax.lax"]
    for full in ["jax.pure_callback", "jax.device_put", "jax.devices", "jax.config", "jax.debug", "jax.profiler",
                 "jax.live_arrays", "jax.make_jaxpr", "jax.experimental", "jax.numpy.load", "jax.numpy.save",
                 "jax.lax.ppermute", "jax.lax.platform_dependent", "jax.tree_util.register_pytree_node"]:
        module, _, name = full.rpartition(".")
        assert name not in ALLOWED[module] and refusal(module, name) is not None, full


def test_messages_say_refused_and_why_or_suggest_the_nearest_name():
    assert refused_message("jax", "pure_callback") == (
        "'jax.pure_callback' is refused by the judge: it calls back into Python outside the sandboxed trace")
    assert refused_message("jax.numpy", "doot") == "no attribute 'doot' in jax.numpy; did you mean 'dot'?"
    assert "did you mean 'sqrt'" in refused_message("math", "sqtr")
    assert module_message("jax.experimental").startswith("'jax.experimental' is refused by the judge: ")
    assert module_message("os") == "module 'os' is not available to submissions"


@pytest.mark.parametrize("src, message", [
    ("from jax.numpy import doot", "line 1: no attribute 'doot' in jax.numpy; did you mean 'dot'?"),
    ("from jax import pure_callback", "line 1: 'jax.pure_callback' is refused by the judge: it calls back"),
    ("import jax.profiler", "line 1: 'jax.profiler' is refused by the judge: it profiles"),
    ("import os", "line 1: module 'os' is not available to submissions"),
])
def test_static_imports_use_the_table(src, message):
    imports = next(c for c in check_source(ast.parse(src), Requirements()) if c.name == "imports")
    assert not imports.passed and imports.message.startswith(message), imports.message


def test_static_imports_of_newly_allowed_names_and_future_annotations_pass():
    src = "from __future__ import annotations\nfrom jax.lax import dynamic_index_in_dim\nimport jax.numpy.fft\n"
    imports = next(c for c in check_source(ast.parse(src), Requirements()) if c.name == "imports")
    assert imports.passed, imports.message


def test_the_statement_line_is_built_from_the_table():
    line = may_use_line()
    assert line.startswith("Your code may use jax (transforms), jax.numpy, jax.lax, jax.nn, ")
    assert "jax.scipy.special" in line and "numpy (a few functions)" in line and "typing" in line
    assert "jax.numpy.linalg" not in line and "jax.scipy," not in line and "__future__" not in line
    assert line.endswith("; not callbacks, devices, config or I/O.")


@pytest.mark.parametrize("src", [
    "x: int = 3",
    "from typing import NamedTuple\nclass S(NamedTuple):\n    mu: dict\n    nu: dict = {}\n",
    "import jax\ndef f(p: dict, x: jax.Array, *a: int, k: float = 1.0, **kw: dict) -> dict:\n"
    "    y: int\n    return p\n",
    "class C:\n    lr: float = 0.1\n",
])
def test_annotations_compile(src):
    assert restricted_errors(src) == []


@pytest.mark.parametrize("src", [
    "x: ().__class__ = 3",
    "def f(x: ().__class__.__base__): pass",
    "def f() -> dict.__subclasses__(): pass",
    "class C:\n    leak: _getattr_ = 1\n",
    "d.__dict__: int = 1",
])
def test_annotations_are_checked_like_any_expression(src):
    assert restricted_errors(src)


def test_annotations_never_run():
    code = compile_submission("class C:\n    x: boom() = 1\ndef f(a: boom()) -> boom():\n    return a\n")
    calls = []
    space = {"_window_": _NoWindow, "_live_": lambda: None, "__metaclass__": type, "__name__": "submission",
             "boom": lambda: calls.append(1)}
    exec(code, space)
    assert calls == []


class _NoWindow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


PROBE = (SUBMISSIONS / "per_example_grad_clipping" / "accepted" / "flat_norm.py").read_text().replace(
    "def per_example_grad_clip(", """def _probe():
    import jax.numpy as jnp_view
    from typing import NamedTuple

    class State(NamedTuple):
        w: jax.Array
        n: int = 0

    row = jax.lax.dynamic_index_in_dim(jnp_view.arange(6.0).reshape(3, 2), 1, keepdims=False)
    assert float(State(row).w[0]) == 2.0 and State(row).n == 0
    errors = []
    for route in (lambda: jax.pure_callback, lambda: jnp_view.doot):
        try:
            route()
        except AttributeError as exc:
            errors.append(str(exc))
    raise RuntimeError(" | ".join(errors))


def per_example_grad_clip(params, x, y, max_norm):
    _probe()
    return _solve(params, x, y, max_norm)


def _solve(""")


def test_the_child_allows_the_new_names_and_refuses_with_the_table_s_reasons(problem1, pool):
    sandbox = pool.take()
    try:
        report = grade_source(problem1, PROBE, sandbox, problem1.public_cases()[:1]).report
    finally:
        pool.give(sandbox)
    assert report.verdict == "RE"
    text = " ".join(c.message for c in report.cases)
    assert "'jax.pure_callback' is refused by the judge: it calls back into Python" in text, text
    assert "no attribute 'doot' in jax.numpy; did you mean 'dot'?" in text, text


def test_annotations_count_as_text_for_the_static_requirements():
    req = Requirements(calls=("jax.vmap",), forbid=("jax.hessian",))
    src = "import jax\nx: jax.hessian = 1\ndef f(p: jax.vmap) -> jax.hessian:\n    return p\n"
    failed = [c.name for c in check_source(ast.parse(src), req) if not c.passed]
    assert failed == ["uses jax.vmap"]
