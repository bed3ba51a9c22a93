"""Requirement rules as data, enforced at run time by the instrumentation: composition
(jvp of grad, nested vmap, a custom_vjp whose backward rule runs), forbidden calls,
dependence on a named transform, and "must be vectorised"."""
import dataclasses

import pytest

from support import grade_source
from grader.problem import Requirements

BASE = '''
import jax
import jax.numpy as jnp

def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2

def finish(g, max_norm):
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)}, "norms": norms}
'''
VMAP_GRAD = "g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)"


def solution(*body: str) -> str:
    lines = "\n    ".join(body)
    return BASE + f"\ndef per_example_grad_clip(params, x, y, max_norm):\n    {lines}\n    return finish(g, max_norm)\n"


def _with_reference(problem1, reference: str):
    """problem1 with another reference.py: the dependence probe runs the reference under
    the same perturbation as the submission, so the reference must use the transform
    that a changed requirement names."""
    import shutil
    import tempfile
    from pathlib import Path

    from grader.problem import load_problem

    root = Path(tempfile.mkdtemp(prefix="jj-ref-")) / problem1.id
    shutil.copytree(problem1.root, root)
    (root / "reference.py").write_text(reference)
    return load_problem(root)


def _graded(problem1, pool, req: Requirements, source: str, reference: str | None = None):
    base = _with_reference(problem1, reference) if reference else problem1
    meta = dataclasses.replace(base.meta, requirements=req)
    problem = dataclasses.replace(base, meta=meta)
    sandbox = pool.take()
    try:
        return grade_source(problem, source, sandbox, problem.public_cases())
    finally:
        pool.give(sandbox)


def grade_with(problem1, pool, req: Requirements, source: str, reference: str | None = None):
    return _graded(problem1, pool, req, source, reference).report


def failed(report) -> list[str]:
    return [c.name for c in report.static_checks + report.runtime_checks if not c.passed]


JVP_OF_GRAD = "h = jax.jvp(jax.grad(lambda t: jnp.sum(t ** 3)), (x[0],), (jnp.ones_like(x[0]),))[1]"
GRAD_OF_JVP = "h = jax.grad(lambda t: jax.jvp(lambda u: jnp.sum(u ** 3), (t,), (jnp.ones_like(t),))[1])(x[0])"
CASES = [
    ("jvp of grad", Requirements(nest=(("jax.jvp", "jax.grad"),)), solution(VMAP_GRAD, JVP_OF_GRAD), []),
    ("jvp of grad", Requirements(nest=(("jax.jvp", "jax.grad"),)), solution(VMAP_GRAD, GRAD_OF_JVP),
     ["jax.jvp of jax.grad"]),
    ("vmap twice", Requirements(nest=(("jax.vmap", "jax.vmap"),)),
     solution(VMAP_GRAD, "d = jax.vmap(jax.vmap(lambda a, b: a - b, (None, 0)), (0, None))(x, x)"), []),
    ("vmap twice", Requirements(nest=(("jax.vmap", "jax.vmap"),)), solution(VMAP_GRAD), ["jax.vmap of jax.vmap"]),
    ("forbidden, reached by a built name", Requirements(forbid=("jax.hessian",)),
     solution(VMAP_GRAD, "hh = getattr(jax, 'hess' + 'ian')(lambda t: jnp.sum(t ** 2))(x[0])"),
     ["never calls jax.hessian"]),
    ("forbidden, static", Requirements(forbid=("jax.hessian",)),
     solution(VMAP_GRAD, "hh = jax.hessian(lambda t: jnp.sum(t ** 2))(x[0])"), ["avoids jax.hessian"]),
    ("dead code", Requirements(calls=("jax.jacfwd",)),
     solution(VMAP_GRAD, "if x.shape[0] > 100:\n        jax.jacfwd(loss)(params, x[0], y[0])"), ["calls jax.jacfwd"]),
]


@pytest.mark.parametrize("label, req, source, expected", CASES, ids=[c[0] for c in CASES])
def test_composition_and_forbidden_rules(problem1, pool, label, req, source, expected):
    report = grade_with(problem1, pool, req, source)
    assert failed(report) == expected, report.message
    assert report.verdict == ("RJ" if expected else "AC"), report.message


CUSTOM = BASE + '''
@jax.custom_vjp
def scaled(t):
    return t

def scaled_fwd(t):
    return t, None

def scaled_bwd(res, ct):
    return (ct,)

scaled.defvjp(scaled_fwd, scaled_bwd)

def loss2(params, x, y):
    return loss({"w": scaled(params["w"]), "b": params["b"]}, x, y)

def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(LOSS), in_axes=(None, 0, 0))(params, x, y)
    return finish(g, max_norm)
'''
RULE = Requirements(calls=("jax.custom_vjp", "jax.custom_vjp.defvjp", "jax.custom_vjp.bwd"))


def test_custom_vjp_rule_must_run(problem1, pool):
    used = grade_with(problem1, pool, RULE, CUSTOM.replace("LOSS", "loss2"))
    assert used.verdict == "AC", failed(used)
    unused = grade_with(problem1, pool, RULE, CUSTOM.replace("LOSS", "loss"))
    assert failed(unused) == ["calls jax.custom_vjp.bwd"]


SCAN_NORMS = '''
    def step(carry, row):
        return carry, jnp.sqrt(jnp.sum(row ** 2))
    _, scanned = jax.lax.scan(step, 0.0, jnp.concatenate([g["w"], g["b"][:, None]], axis=1))
    out = finish(g, max_norm)
    out["norms"] = NORMS
    return out
'''


def test_depends_on_a_single_transform(problem1, pool):
    req = Requirements(calls=("jax.lax.scan",), depends=("norms",), depends_on=("jax.lax.scan",))
    src = solution(VMAP_GRAD).replace("    return finish(g, max_norm)\n", SCAN_NORMS)
    honest = src.replace("NORMS", "scanned")
    assert grade_with(problem1, pool, req, honest, reference=honest).verdict == "AC"
    decoy = grade_with(problem1, pool, req, src.replace("NORMS", "out['norms']"), reference=honest)
    assert failed(decoy) == ["results come from the transforms"] and decoy.verdict == "RJ"


def test_vectorized_rule_measures_program_growth(problem1, pool):
    req = Requirements(vectorized=("N",))
    loop = solution("rows = [jax.grad(loss)(params, x[i], y[i]) for i in range(x.shape[0])]",
                    "g = {'w': jnp.stack([r['w'] for r in rows]), 'b': jnp.stack([r['b'] for r in rows])}")
    report = grade_with(problem1, pool, req, loop)
    assert failed(report) == ["vectorized"] and "changes with N" in report.message
    assert grade_with(problem1, pool, req, solution(VMAP_GRAD)).verdict == "AC"


def test_probe_switch_leaves_normal_results_bit_identical(problem1, pool):
    """Under jit the dependence probe is a traced switch compiled into every case's
    program: off, the outputs must be exactly those of a program without it; on, the
    rerun of the same program moves the outputs (the norms scale with the factor)."""
    import numpy as np

    from grader.sandbox.wire import Leaf

    probed = _graded(problem1, pool, problem1.meta.requirements, solution(VMAP_GRAD))
    plain = _graded(problem1, pool, Requirements(), solution(VMAP_GRAD))
    assert probed.report.verdict == plain.report.verdict == "AC"
    for cid, run in plain.run.cases.items():
        a, b = run.output, probed.run.cases[cid].output
        for path in (("grads", "w"), ("grads", "b"), ("norms",)):
            x, y = a, b
            for key in path:
                x, y = x[key], y[key]
            assert isinstance(x, Leaf) and x.array.dtype == y.array.dtype and x.array.tobytes() == y.array.tobytes()
    # The probe reran cases in the same child, on the programs already compiled.
    assert probed.run.probes and all(p.status == "ok" for p in probed.run.probes)
    for p in probed.run.probes:
        assert not np.array_equal(p.output["norms"].array, probed.run.cases[p.id].output["norms"].array)


def test_probe_inside_a_cached_jit_still_tells_honest_code_from_a_decoy(problem1, pool):
    """A switch inside a jax.jit the submission built would leak one trace's tracer
    into the next: there the probe runs perturbed in a second module instead."""
    nested = BASE + '''
@jax.jit
def grads(params, x, y):
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)

def per_example_grad_clip(params, x, y, max_norm):
    g = grads(params, x, y)
    return finish(DECOY, max_norm)
'''
    honest = _graded(problem1, pool, problem1.meta.requirements, nested.replace("DECOY", "g"))
    assert honest.report.verdict == "AC", failed(honest.report)
    decoy = _graded(problem1, pool, problem1.meta.requirements, nested.replace(
        "DECOY", "{'w': (x @ params['w'] + params['b'] - y)[:, None] * x, 'b': x @ params['w'] + params['b'] - y}"))
    assert failed(decoy.report) == ["results come from the transforms"] and decoy.report.verdict == "RJ"


@pytest.mark.slow
def test_traced_rule_refuses_python_branching_on_values(problem1, pool):
    req = Requirements(traced=True)
    assert grade_with(problem1, pool, req, solution(VMAP_GRAD)).verdict == "AC"
    branching = solution(VMAP_GRAD, "if float(max_norm) > 1e9:\n        g = jax.tree_util.tree_map(jnp.zeros_like, g)")
    report = grade_with(problem1, pool, req, branching)
    assert failed(report) == ["traced under jax.jit"] and report.verdict == "RJ"
    assert "could not run under jax.jit" in report.message
    # Without the rule the same code is accepted: it runs eagerly.
    assert grade_with(problem1, pool, Requirements(), branching).verdict == "AC"


def test_traced_rule_lets_a_runtime_error_speak(problem1, pool):
    """A case that raises under jit and eagerly is a runtime error: its failed traces are
    not retraces, so the traced rule does not hide the error behind a rejection."""
    raising = solution(VMAP_GRAD, "g = {'w': g['w'] @ jnp.ones((7, 7)), 'b': g['b']}")
    report = grade_with(problem1, pool, Requirements(traced=True), raising)
    assert report.verdict == "RE" and "traced under jax.jit" not in failed(report)
