"""The XLA compilation cache: only the judge fills it; children read it and never write it."""
import pytest

from support import SUBMISSIONS, grade_source

P1 = "per_example_grad_clipping"
EAGER = (SUBMISSIONS / P1 / "accepted" / "python_control_flow.py").read_text()  # falls back to eager


@pytest.mark.slow
def test_judge_fills_once_and_children_only_read(problem1, pool, tmp_path, monkeypatch):
    from grader.sandbox import xla_cache as compile_cache

    monkeypatch.setenv(compile_cache.CACHE_ENV, str(tmp_path / "xla"))
    root = compile_cache.cache_dir()
    assert compile_cache.readable_cache() is None  # nothing to read before the fill
    assert compile_cache.fill(problem1)
    filled = sorted(p.name for p in root.iterdir())
    assert any(n.startswith(f"filled-{P1}-") for n in filled) and len(filled) > 10, filled
    assert compile_cache.fill(problem1) and sorted(p.name for p in root.iterdir()) == filled  # marker: no refill

    sandbox = pool.take()
    try:
        report = grade_source(problem1, EAGER, sandbox).report
    finally:
        pool.give(sandbox)
    assert report.verdict == "AC" and report.passed == report.total
    assert sorted(p.name for p in root.iterdir()) == filled  # the child compiled, but wrote nothing


# Jitted, with 500 sorts XLA compiles one by one: seconds of compile per input shape.
SLOW_COMPILE = """import jax
import jax.numpy as jnp


def _loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2


def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(_loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    v = norms
    for i in range(500):
        v = jnp.sort(v * 1.0001 + i)
    s = jnp.minimum(1.0, max_norm / jnp.maximum(norms, 1e-12)) + 0.0 * jnp.sum(v)
    return {"grads": {"w": jnp.mean(g["w"] * s[:, None], axis=0), "b": jnp.mean(g["b"] * s)}, "norms": norms}
"""
JAX_DEFAULT_MIN_COMPILE_S = 1.0  # jax_persistent_cache_min_compile_time_secs unless a process sets it


@pytest.mark.slow
def test_children_never_try_to_write_the_cache_even_where_landlock_would_let_them(problem1, pool, tmp_path,
                                                                                  monkeypatch):
    """With Landlock off only the minimum compile time keeps a child from writing. An eager
    submission cannot show it (its compiles are far below JAX's default minimum anyway):
    this one compiles for longer than the default, so JAX would write an entry unless
    the minimum were the child's 1e9 s. An attempt leaves a file even when it fails
    (RLIMIT_FSIZE lets the file be created, empty)."""
    from grader.judge.request import make_request
    from grader.judge.submission import parse_source
    from grader.sandbox import xla_cache as compile_cache

    monkeypatch.setenv(compile_cache.CACHE_ENV, str(tmp_path / "xla"))
    monkeypatch.setenv("JAXJUDGE_DISABLE_LAYERS", "landlock")
    root = compile_cache.cache_dir()
    root.mkdir(parents=True)
    sandbox = pool.take()
    try:
        run = sandbox.run(make_request(parse_source(SLOW_COMPILE), problem1, problem1.public_cases()[:1], cost=True))
    finally:
        pool.give(sandbox)
    assert "landlock" not in run.layers and run.judge_error is None, run
    (case,) = run.cases.values()
    assert case.status == "ok" and case.cost.compile_ms > 1000 * JAX_DEFAULT_MIN_COMPILE_S, case
    assert list(root.iterdir()) == []


def test_cache_can_be_turned_off(monkeypatch):
    from grader.sandbox import xla_cache as compile_cache

    monkeypatch.setenv(compile_cache.CACHE_ENV, "off")
    assert compile_cache.cache_dir() is None and compile_cache.readable_cache() is None


def test_unwritable_cache_is_skipped_not_fatal(problem1, tmp_path, monkeypatch):
    from grader.sandbox import xla_cache as compile_cache

    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv(compile_cache.CACHE_ENV, str(blocker / "xla"))  # a directory cannot be made here
    assert compile_cache.fill(problem1) is False
    assert compile_cache.readable_cache() is None
