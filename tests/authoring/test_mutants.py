"""``grader validate --mutants``: mutants are built from the reference's AST, graded on the
public and hidden cases by the trusted worker, and every survivor is searched for an input
that tells it from the oracle. Most tests use a small problem made here (``gate``: y = x
where x > t, else 0) whose generator produces exact ties x == t and whose stored cases
hold none."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from support import PROBLEMS, ROOT

TOML = """
title = "Gate"
difficulty = "easy"
[entry]
name = "gate"
args = ["x", "t"]
[limits]
time_seconds = 10.0
[dims]
N = [1, 6]
[inputs.x]
kind = "array"
dtype = "float32"
shape = ["N"]
min = -4.0
max = 4.0
[inputs.t]
kind = "float"
min = -2.0
max = 2.0
[outputs.y]
dtype = "float32"
shape = ["N"]
atol = 1e-6
rtol = 1e-6
"""

REFERENCE = """
import time
import jax.numpy as jnp


def gate(x, t):
    for _ in range(0):
        time.sleep(5)
    return {"y": jnp.where(x > t, x * 1.0, 0.0).reshape(-1)}
"""

ORACLE = """
import numpy as np


def oracle(x, t):
    x = np.asarray(x, dtype=np.float64)
    return {"y": np.where(x > t, x, 0.0)}
"""

GENERATOR = """
import numpy as np


def generate(rng, index):
    n = [3, 5][index % 2]
    t = float(np.float32(rng.uniform(-2.0, 2.0)))
    x = rng.uniform(-4.0, 4.0, size=n).astype(np.float32)
    if index % 2:
        x[0] = t  # an exact tie: the stored cases have none
    return {"x": x.tolist(), "t": t}
"""

RESHAPED = "jnp.where(x > t, x * 1.0, 0.0).reshape(-1)"
STATEMENT = "# Gate\n\nReturn `y = x` where `x > t`, else `0`.\n"
TIES_EXCLUDED = "Exact ties between an entry of x and t are excluded from the tests.\n"


def make_gate(folder: Path, statement: str = STATEMENT, reference: str = REFERENCE) -> Path:
    root = folder / "gate"
    for sub in ("cases/public", "cases/hidden"):
        (root / sub).mkdir(parents=True)
    files = {"problem.toml": TOML, "reference.py": reference, "oracle.py": ORACLE, "generator.py": GENERATOR,
             "statement.md": statement}
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip())
    # Every x > t but in h0: only one hidden case sees the else branch.
    cases = {"public/example": ([1.0, 2.0, 3.0], 0.5), "hidden/h0": ([-1.5, 2.0, 3.0, 0.5], 0.25),
             "hidden/h1": ([1.0, 2.0, 3.5, 0.75], 0.5), "hidden/h2": ([0.5, 1.5, 2.5, 3.5], -1.0),
             "hidden/h3": ([0.5, 1.5, 2.5, 3.5, 1.0], 0.0), "hidden/h4": ([2.0, 1.5, 2.5, 3.5, 1.0], 0.75)}
    for name, (x, t) in cases.items():
        y = np.where(np.asarray(x, dtype=np.float64) > t, x, 0.0).tolist()
        (root / "cases" / f"{name}.json").write_text(json.dumps({"input": {"x": x, "t": t}, "expected": {"y": y}}))
    return root


SLEEPER_TIMEOUT = 4.0  # below the 5 s the mutant range(0) -> range(1) sleeps


def analyse(root: Path):
    from grader.authoring.mutation import analysis as mutants
    from grader.problem import load_problem

    with pytest.MonkeyPatch.context() as patch, mutants.MutationSession() as session:
        patch.setattr(mutants, "run_timeout", lambda _p, variant: SLEEPER_TIMEOUT if variant == "alone" else 120.0)
        return session.analyse(load_problem(root))


def outcome(analysis, before: str, after: str):
    found = [o for o in analysis.outcomes if o.mutant.before == before and o.mutant.after == after]
    assert len(found) == 1, [o.mutant.describe() for o in analysis.outcomes]
    return found[0]


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    return analyse(make_gate(tmp_path_factory.mktemp("mutants")))


# ------------------------------------------------------------- no JAX needed

def test_schema_holds_every_kind_of_mutant():
    from grader.authoring.mutation.ops import build_schema

    source = textwrap.dedent("""
        import jax
        import jax.numpy as jnp

        def f(x, y):
            z = jnp.sum(x * y, axis=1) - 2.0
            w = jnp.maximum(z, 1.0).astype(jnp.float16)
            return jnp.where(z < y, w, jax.lax.stop_gradient(-z))
    """)
    mutants, _ = build_schema(source)
    kinds = {m.kind for m in mutants}
    assert kinds == {"operator", "drop", "constant", "swap", "axis", "guard", "cast", "comparison", "boundary shift",
                     "max epsilon"}
    texts = {(m.before, m.after) for m in mutants}
    assert ("x * y", "x / y") in texts
    assert ("jnp.sum(x * y, axis=1) - 2.0", "2.0 - jnp.sum(x * y, axis=1)") in texts
    assert ("jnp.sum(x * y, axis=1)", "jnp.mean(x * y, axis=1)") in texts
    assert ("jnp.sum(x * y, axis=1)", "jnp.sum(x * y, axis=0)") in texts
    assert ("z < y", "z <= y") in texts
    assert ("jnp.maximum(z, 1.0)", "z") in texts
    assert ("jax.lax.stop_gradient(-z)", "-z") in texts
    assert ("jnp.float16", "jnp.float32") in texts


def test_schema_holds_the_guards_learners_add_each_family_by_name():
    from grader.authoring.mutation.ops import build_schema

    source = textwrap.dedent("""
        import jax.numpy as jnp

        def f(g, max_norm, n):
            norm = jnp.sqrt(jnp.sum(g ** 2))
            rms = jnp.mean(g ** 2) ** 0.5
            return g * (max_norm / norm) / 2.0 + rms / n
    """)
    mutants, _ = build_schema(source)
    texts = {(m.kind, m.before, m.after) for m in mutants}
    assert ("epsilon denominator", "max_norm / norm", "max_norm / (norm + 1e-06)") in texts
    assert ("max guard", "max_norm / norm", "max_norm / jnp.maximum(norm, 1e-06)") in texts
    assert ("epsilon sqrt", "jnp.sqrt(jnp.sum(g ** 2))", "jnp.sqrt(jnp.sum(g ** 2) + 1e-06)") in texts
    assert ("norm floor", "jnp.sqrt(jnp.sum(g ** 2))", "jnp.maximum(jnp.sqrt(jnp.sum(g ** 2)), 1e-06)") in texts
    assert ("epsilon sqrt", "jnp.mean(g ** 2) ** 0.5", "(jnp.mean(g ** 2) + 1e-06) ** 0.5") in texts
    # A literal divisor gets no epsilon: nobody guards a division by 2.0.
    assert not any(kind in ("epsilon denominator", "max guard") and before.endswith("/ 2.0")
                   for kind, before, _after in texts)


def test_schema_holds_the_mistakes_at_the_edges_each_family_by_name():
    from grader.authoring.mutation.ops import build_schema

    source = textwrap.dedent("""
        import jax.numpy as jnp

        def f(x, y, w, max_norm):
            r = x @ w - y
            sq = jnp.sum(r * r)
            norm = jnp.sqrt(sq)
            keep = jnp.abs(x) <= 1.0
            ok = jnp.isfinite(norm)
            late = 2.0
            return jnp.where(ok & keep, r * max_norm / jnp.maximum(norm, max_norm), late)
    """)
    mutants, _ = build_schema(source)
    texts = {(m.kind, m.before, m.after) for m in mutants}
    assert ("clamp", "x @ w - y", "jnp.clip(x @ w - y, -100.0, 100.0)") in texts
    assert ("clamp", "x @ w - y", "jnp.clip(x @ w - y, -10000.0, 10000.0)") in texts
    assert ("epsilon sqrt", "jnp.sqrt(sq)", "jnp.sqrt(sq + 1e-12)") in texts
    assert ("sqrt floor", "jnp.sqrt(sq)", "jnp.sqrt(jnp.maximum(sq, 1e-12))") in texts
    assert ("max epsilon", "jnp.maximum(norm, max_norm)", "jnp.maximum(norm, max_norm + 1e-08)") in texts
    assert ("boundary shift", "jnp.abs(x) <= 1.0", "jnp.abs(x) <= 1.0 + 1e-06") in texts
    assert ("boundary shift", "jnp.abs(x) <= 1.0", "jnp.abs(x) <= 1.0 - 1e-06") in texts
    finite = {after for kind, _before, after in texts if kind == "finite of another"}
    # Each value bound before the test, not the one it tests, nor one bound after it.
    assert finite == {f"jnp.isfinite({n})" for n in ("x", "y", "w", "max_norm", "r", "sq", "keep")}


@pytest.mark.parametrize("imports, path", [("import jax.numpy as jnp", "jnp"), ("import jax", "jax.numpy"),
                                           ("from jax import numpy as np_", "np_"), ("import math", None)])
def test_the_max_guard_names_jax_numpy_as_the_source_imports_it(imports, path):
    from grader.authoring.mutation.ops import build_schema

    mutants, _ = build_schema(f"{imports}\n\ndef f(a, b):\n    return a / b\n")
    guards = [m.after for m in mutants if m.kind == "max guard"]
    assert guards == ([f"a / {path}.maximum(b, 1e-06)"] if path else [])


def test_validate_reports_each_named_family_with_its_kills():
    from grader.authoring.mutation.analysis import Analysis, MutantResult, findings
    from grader.authoring.mutation.sites import Mutant

    def result(i, kind, kills, status="killed"):
        return MutantResult(Mutant(i, 1, kind, "a / b", "a / (b + 1e-06)"), "alone", hidden_kills=kills, status=status)

    a = Analysis("p", [result(0, "epsilon denominator", 3), result(1, "epsilon denominator", 0, "equivalent"),
                       result(2, "norm floor", 0, "hole"), result(3, "operator", 5), result(4, "clamp", 1),
                       result(5, "boundary shift", 0, "hole")])
    lines = [f.message for f in findings(a) if f.message.startswith(("the guards learners add", "the mistakes at"))]
    assert lines == ["the guards learners add: epsilon denominator 1/2 killed by hidden cases (1 equivalent); "
                     "norm floor 0/1 killed by hidden cases",
                     "the mistakes at the edges: clamp 1/1 killed by hidden cases; boundary shift 0/1 killed by "
                     "hidden cases"]


def test_schema_with_no_mutant_on_computes_what_the_source_computes_and_each_mutant_its_own():
    from grader.authoring.mutation.ops import SWITCH, build_schema
    from grader.authoring.mutation.worker import Switchboard

    source = "def f(a, b):\n    return (a + 2 * b) / (a - b) if a > b else a * b\n"
    mutants, schema = build_schema(source)
    plain: dict = {}
    exec(source, plain)
    for k in [None] + [m.id for m in mutants]:
        space = {SWITCH: Switchboard(static=k)} if k is not None else {SWITCH: Switchboard()}
        exec(schema, space)
        mutant = source if k is None else None
        if mutant is None:
            m = mutants[k]
            mutant = source.replace(m.before, m.after, 1) if source.count(m.before) == 1 else None
        if mutant is not None:
            own: dict = {}
            exec(mutant, own)
            for a, b in ((5.0, 3.0), (1.0, 4.0), (7.0, -2.0)):
                assert space["f"](a, b) == own["f"](a, b), (k, a, b)


def test_a_sentence_of_the_statement_excludes_ties():
    from grader.authoring.mutation.search import statement_excludes_ties

    assert statement_excludes_ties("Intro.\n" + TIES_EXCLUDED)
    assert statement_excludes_ties("No test input has an exact tie.")
    assert not statement_excludes_ties("Halfway cases (ties) go to the nearest even integer.")
    assert not statement_excludes_ties(STATEMENT)


def test_the_search_pushes_generated_inputs_to_their_edges_within_the_constraints(tmp_path):
    from grader.authoring.mutation.search import FUZZ_PER_INPUT, fuzzed
    from grader.problem import load_problem
    from grader.problem.inputs import check_input
    from grader.problem.modules import generated_inputs

    problem = load_problem(make_gate(tmp_path))
    raws = [raw for _, raw in generated_inputs(problem, 20, 3)]
    pushed = fuzzed(problem, raws)
    assert len(pushed) == FUZZ_PER_INPUT * len(raws)
    for raw in pushed:
        check_input(problem.meta, raw)
    edges = {0.0, -4.0, 4.0, -2.0, 2.0}
    assert not any(v in edges for raw in raws for v in raw["x"] + [raw["t"]])
    assert sum(any(v in edges for v in raw["x"] + [raw["t"]]) for raw in pushed) >= len(pushed) // 2


# ---------------------------------------------------------- with the worker

@pytest.mark.slow
def test_a_mutant_only_the_hidden_cases_catch_is_counted_as_killed(gate):
    o = outcome(gate, "jnp.where(x > t, x * 1.0, 0.0)", "x * 1.0")  # the else branch dropped
    assert (o.status, o.public_kills, o.hidden_kills) == ("killed", 0, 1)
    assert gate.killed_by("hidden") > gate.killed_by("public")
    assert gate.score("hidden") == gate.killed_by("hidden") / (len(gate.outcomes) - gate.count("equivalent"))


@pytest.mark.slow
def test_a_mutant_one_or_two_hidden_cases_catch_is_a_warning(gate):
    from grader.authoring.mutation import findings

    weak = [f for f in findings(gate) if f.status == "warn"]
    assert any("jnp.where(x > t, x * 1.0, 0.0) -> x * 1.0" in f.message and "1 hidden case(s)" in f.message
               for f in weak), weak
    assert all(o.hidden_kills in (1, 2) for o in gate.weak)
    summary = findings(gate)[0].message
    assert f"hidden cases per killed mutant: 1 for {sum(o.hidden_kills == 1 for o in gate.weak)}, 2 for" in summary


@pytest.mark.slow
def test_the_switched_program_grades_each_mutant_as_its_own_program_does(tmp_path):
    from grader.authoring.mutation.client import WorkerClient
    from grader.authoring.mutation.ops import build_schema
    from grader.authoring.mutation.search import check
    from grader.problem import load_problem

    problem = load_problem(make_gate(tmp_path))
    source = problem.reference_path.read_text()
    mutants, schema = build_schema(source)
    raws = [c.input for c in problem.cases]
    client = WorkerClient()
    try:
        client.load(problem, source, schema)
        client.run(problem, "switched", [-1], raws, 120.0)
        carried = [m.id for m in mutants if m.id not in client.static_ids]
        assert len(carried) >= 5
        switched = client.run(problem, "switched", carried, raws, 120.0)
        alone = client.run(problem, "alone", carried, raws, 120.0)
    finally:
        client.close()
    for (k, i), r in switched.items():
        verdict = [check(problem, raws[i], got.output, problem.cases[i].expected) is None for got in (r, alone[(k, i)])]
        assert verdict[0] == verdict[1], (mutants[k].describe(), problem.cases[i].id)
        assert np.array_equal(r.output["y"].array, alone[(k, i)].output["y"].array, equal_nan=True)


@pytest.mark.slow
def test_an_equivalent_mutant_is_not_a_hole(gate):
    for after in ("x / 1.0", "x"):
        o = outcome(gate, "x * 1.0", after)
        assert o.status == "equivalent" and o.evidence is None


@pytest.mark.slow
def test_a_survivor_on_an_exact_tie_is_a_hole_unless_the_statement_excludes_ties(gate, tmp_path):
    o = outcome(gate, "x > t", "x >= t")
    assert o.status == "hole" and o.evidence.tie
    x, t = o.evidence.input["x"], o.evidence.input["t"]
    assert x == [t]  # shrunk from the generator's 5 entries to the tie alone
    excluded = analyse(make_gate(tmp_path, STATEMENT + TIES_EXCLUDED))
    assert outcome(excluded, "x > t", "x >= t").status == "tie"
    assert excluded.count("hole") == 0


@pytest.mark.slow
def test_a_mutant_that_runs_out_of_time_or_raises_is_killed(gate):
    o = outcome(gate, "0", "1")  # range(1): sleeps 5 s while tracing, beyond SLEEPER_TIMEOUT
    assert o.status == "killed" and o.hidden_kills >= 1
    for after in ("0", "-2"):  # reshape(0), reshape(-2) raise
        o = outcome(gate, RESHAPED, RESHAPED.replace("-1", after))
        assert o.status == "killed" and o.hidden_kills >= 1


@pytest.mark.slow
def test_a_mutant_with_a_program_of_its_own_stops_after_three_hidden_kills(gate):
    everywhere = outcome(gate, "x * 1.0", "x * 2.0")  # on the switched program: every case runs
    assert (everywhere.variant, everywhere.hidden_kills) == ("switched", 5)
    # The hidden cases come in two shapes: 3 of size 4, then 2 of size 5.
    alone = outcome(gate, RESHAPED, RESHAPED.replace("-1", "0"))
    assert (alone.variant, alone.hidden_kills) == ("alone", 3)


@pytest.mark.slow
def test_a_reference_that_fails_its_own_case_stops_the_analysis(tmp_path):
    broken = REFERENCE.replace("x * 1.0, 0.0", "x * 1.0, 0.5")
    analysis = analyse(make_gate(tmp_path, reference=broken))
    assert analysis.error and "the reference fails" in analysis.error and not analysis.outcomes


@pytest.mark.slow
def test_validate_mutants_reports_the_holes_of_a_copy_without_its_hidden_cases(tmp_path):
    """Two problems proved at once (``--jobs 2``, a mutation worker each), reported in the
    order given: the copy of ema_with_scan with holes, then an intact value_and_grad_loss."""
    copy = tmp_path / "problems" / "ema_with_scan"
    shutil.copytree(PROBLEMS / "ema_with_scan", copy)
    shutil.copytree(PROBLEMS / "value_and_grad_loss", tmp_path / "problems" / "value_and_grad_loss")
    for case in (copy / "cases" / "hidden").glob("*.json"):
        if case.name != "gen_s2026_001.json":  # keep one case, with decay = 0: the suite stays valid
            case.unlink()
    done = subprocess.run([sys.executable, "-m", "grader", "validate", "--mutants", "--no-submissions", "--jobs", "2",
                           "ema_with_scan", "value_and_grad_loss"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "JAXJUDGE_PROBLEMS": str(tmp_path / "problems"),
                                            "JAXJUDGE_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 1, done.stdout[-3000:]
    out = done.stdout
    assert out.index("ema_with_scan\n") < out.index("value_and_grad_loss\n") < out.index("Mutation analysis")
    assert "1/2 problem(s) valid" in out
    ema, vgl = out.split("value_and_grad_loss\n", 1)
    fails = [line for line in ema.splitlines() if line.strip().startswith("FAIL")]
    assert fails and all("suite hole" in line for line in fails), fails
    assert not [line for line in vgl.split("Mutation analysis")[0].splitlines() if line.strip().startswith("FAIL")]
    rows = [line for line in out.splitlines() if "│" in line and ("ema_with_scan" in line or "value_and_grad" in line)]
    assert [r.split("│")[1].strip() for r in rows] == ["ema_with_scan", "value_and_grad_loss"]
    assert int(rows[0].split("│")[7]) == len(fails) and int(rows[1].split("│")[7]) == 0
    from grader.problem import load_problem
    from grader.problem.inputs import check_input

    meta = load_problem(copy).meta
    suggested = [json.loads(line) for line in ema.splitlines() if line.strip().startswith("{")]
    assert len(suggested) == len([f for f in fails if "differs" in f])
    for raw in suggested:
        check_input(meta, raw)  # ready for add-case


def test_ci_validates_with_the_mutation_analysis():
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert "grader validate --mutants" in lines


@pytest.mark.slow
def test_asked_about_some_mutants_only_those_run_and_only_on_the_hidden_cases(gate, tmp_path):
    from grader.authoring.mutation import analysis as mutants
    from grader.problem import load_problem

    among = frozenset(o.mutant.id for o in gate.outcomes if o.hidden_kills or o.public_kills)
    with pytest.MonkeyPatch.context() as patch, mutants.MutationSession() as session:
        patch.setattr(mutants, "run_timeout", lambda _p, variant: SLEEPER_TIMEOUT if variant == "alone" else 120.0)
        asked = session.analyse(load_problem(make_gate(tmp_path)), among=among)
    assert {o.mutant.id for o in asked.outcomes} == among
    assert all(o.public_kills == 0 and o.evidence is None for o in asked.outcomes)
    assert {o.mutant.id for o in asked.outcomes if o.hidden_kills} == {o.mutant.id for o in gate.outcomes
                                                                       if o.hidden_kills and o.mutant.id in among}
