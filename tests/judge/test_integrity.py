"""A verdict that cannot be faked: requirement checks fail closed, the dependence
probe is differential, vectorisation is always measured, keyword arguments are
policed, and no file can crash the judge."""
from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from support import PROBLEMS, ROOT, SUBMISSIONS, grade_source

P1 = "per_example_grad_clipping"


def _grade(problem, path_or_source, pool, cases=None, feedback=None):
    source = path_or_source.read_text() if hasattr(path_or_source, "read_text") else path_or_source
    sandbox = pool.take()
    try:
        return grade_source(problem, source, sandbox, cases, feedback)
    finally:
        pool.give(sandbox)


# ----------------------------------------------------------- missing evidence

def _run(**kw):
    from grader.sandbox.request import CaseRun, RunResult

    run = RunResult(load_status="ok", cases={"a": CaseRun("a", "ok")}, **kw)
    return run


@pytest.mark.parametrize("rule", [{"calls": ("jax.grad",)}, {"nest": (("jax.vmap", "jax.grad"),)},
                                  {"forbid": ("jax.hessian",)}, {"traced": True}], ids=lambda r: next(iter(r)))
def test_a_missing_runtime_record_fails_each_kind_of_rule_that_needs_it(rule):
    from grader.judge.runtime_checks import check_record
    from grader.problem import Requirements

    failed = check_record(_run(runtime=None), Requirements(**rule))
    assert [c.passed for c in failed] == [False] and failed[0].verdict == "RJ"
    assert check_record(_run(runtime=None), Requirements()) == []  # nothing needed, nothing judged


def test_a_size_measurement_killed_for_time_fails_the_vectorized_rule_as_tle():
    from grader.judge.probe_checks import check_vectorized
    from grader.problem import Requirements

    failed = check_vectorized(_run(phase_failures={"sizes": "timeout"}), Requirements(vectorized=("N",)))
    assert [(c.passed, c.verdict, c.reason) for c in failed] == [(False, "TLE", "time")]


def test_an_unmeasurable_program_is_not_vectorised():
    from grader.judge.probe_checks import check_vectorized
    from grader.problem import Requirements

    from grader.sandbox.messages import ProgramSize

    sizes = [ProgramSize(2, None, "traced", "TypeError"), ProgramSize(8, None, "traced", "TypeError")]
    failed = check_vectorized(_run(sizes=sizes), Requirements(vectorized=("N",)))
    assert [(c.passed, c.verdict) for c in failed] == [(False, "RJ")]
    assert "could not be measured" in failed[0].message


def test_a_case_that_never_ran_is_not_a_pass():
    from grader.judge.verdict import case_outcome
    from grader.report.model import CaseReport

    outcome = case_outcome(CaseReport("c", "hidden", "--", "not_run", "not run", None))
    assert outcome.verdict.value == "RE" and outcome.reason == "not_run"


def test_the_recorder_keeps_a_bounded_record():
    from grader.sandbox.child.instrument import MAX_DEPTH, MAX_NESTS, Recorder

    rec = Recorder()
    for i in range(MAX_NESTS * 4):
        rec.stack = ["jax.vmap"] * (1 + i % (MAX_DEPTH * 3))
        rec.note_nest()
        rec.stack = [f"jax.grad{i}"]
        rec.note_nest()
    assert len(rec.nests) <= MAX_NESTS and all(len(n) <= MAX_DEPTH for n in rec.nests) and rec.overflow


# ------------------------------------------------------------ probe and policy

def test_probe_perturbations_are_random_away_from_neutral_with_distinct_lanes():
    import math

    from grader.judge.request import FACTOR_RANGES, SHIFT_RANGE, draw_perturbation
    from grader.sandbox.probe import LANE_AMPLITUDE

    drawn = {draw_perturbation() for _ in range(50)}
    assert len(drawn) == 50
    for factor, shift, frequency, phase, passes in drawn:
        assert passes == 0.0  # a "scale" perturbation lengthens no loop
        assert any(lo <= factor <= hi for lo, hi in FACTOR_RANGES) and abs(factor - 1.0) >= 0.2
        assert SHIFT_RANGE[0] <= abs(shift) <= SHIFT_RANGE[1]
        # lanes 0 and 1 of a vmap get factors at least 0.1 apart
        assert LANE_AMPLITUDE * abs(math.cos(frequency + phase) - math.cos(phase)) >= 0.1
    assert {s > 0 for _, s, _, _, _ in drawn} == {True, False}


def test_every_probe_table_of_a_problem_holds_the_same_perturbations_whatever_suite_it_is_built_from(tmp_path):
    from grader.judge.probe_table import PER_TABLE, table_perturbations
    from grader.problem import load_problem
    from grader.problem.suite import with_suite

    problem = load_problem(PROBLEMS / "per_example_grad_clipping")
    drawn = with_suite(problem, [c for c in problem.cases if c.hidden][:3], "s0")  # another hidden suite
    shipped = table_perturbations(problem)
    assert len({tuple(p) for p in shipped}) == PER_TABLE
    assert table_perturbations(drawn) == shipped
    assert table_perturbations(load_problem(PROBLEMS / "value_and_grad_loss")) != shipped


def test_a_passes_perturbation_lengthens_the_loop_by_a_drawn_count_and_scales_nothing():
    from grader.judge.request import EXTRA_PASSES, draw_perturbation

    drawn = [draw_perturbation("passes") for _ in range(60)]
    assert all(d[0] == 1.0 for d in drawn)
    assert {d[4] for d in drawn} == {float(k) for k in EXTRA_PASSES}


def test_more_passes_adds_the_drawn_passes_behind_the_switch_and_only_when_asked():
    import jax
    import jax.numpy as jnp

    from grader.sandbox.child.instrument import Recorder
    from grader.sandbox.child.perturb import more_passes

    params = (1.0, 0.0, 0.0, 0.0, 2.0)
    assert more_passes(Recorder(probe=True, params=params, passes=True), 5) == 7  # the second module's probe
    assert more_passes(Recorder(probe=True, params=params, passes=False), 5) == 5  # a "scale" problem's loop

    def traced(upper, flag):
        rec = Recorder(passes=True)
        rec.flag, rec.traced_params = flag, tuple(jnp.float32(v) for v in params)
        return more_passes(rec, upper)

    lengthened = jax.jit(traced)
    assert int(lengthened(jnp.int32(5), jnp.bool_(True))) == 7
    assert int(lengthened(jnp.int32(5), jnp.bool_(False))) == 5  # switched off: the loop as written

    # A trip count the code left concrete stays concrete: the switch is not placed, and
    # the probe then runs in a second module instead.
    rec = Recorder(passes=True)
    rec.flag, rec.traced_params = jnp.bool_(True), params
    assert more_passes(rec, 5) == 5 and rec.flag_blocked


def test_the_probe_table_covers_every_required_output(problem1, pool):
    from grader.judge import probe_table

    sandbox = pool.take()
    try:
        table = probe_table.get(problem1, sandbox)
    finally:
        pool.give(sandbox)
    rng = random.Random(0)
    graded = {c.id for c in problem1.cases}
    picks = [table.choose(graded, problem1.meta.requirements.depends, rng) for _ in range(20)]
    assert len({k for k, _ in picks}) > 1  # a different factor from grade to grade
    for k, ids in picks:
        for dep in problem1.meta.requirements.depends:
            assert any(table.moved[f"{cid}|{dep}"][k] for cid in ids), (k, ids, dep)


def test_a_cached_probe_table_in_another_shape_is_rebuilt_not_raised(problem1, pool):
    """A table written by an older judge under the same name (keys renamed, say) is
    treated as missing: the grade rebuilds it instead of failing."""
    import io
    import json

    import numpy as np

    from grader.judge import probe_table

    sandbox = pool.take()
    try:
        probe_table.get(problem1, sandbox)
        path = probe_table.path(problem1)
        meta = json.dumps({"factors": [[1.0]], "cases": [], "keys": [], "moved": {}}).encode()
        buf = io.BytesIO()
        np.savez(buf, meta=np.frombuffer(meta, dtype=np.uint8))
        path.write_bytes(buf.getvalue())
        assert probe_table.load(problem1) is None
        table = probe_table.get(problem1, sandbox)
    finally:
        pool.give(sandbox)
    assert table.perturbations and probe_table.load(problem1) is not None


def test_keyword_arguments_that_configure_compilation_are_refused():
    from grader.sandbox.child.guards import PolicyError
    from grader.sandbox.child.namespace import ModuleTable

    table = ModuleTable()
    jax, jnp = table.get("jax"), table.get("jax.numpy")
    with pytest.raises(PolicyError, match="compiler_options"):
        jax.jit(lambda v: v, compiler_options={"xla_dump_to": "/tmp/x"})
    with pytest.raises(PolicyError, match="backend"):
        jax.jit(lambda v: v, backend="cpu")
    with pytest.raises(PolicyError, match="device"):
        jnp.zeros(3, device=None)
    assert int(jax.jit(lambda v, k: v * k, static_argnums=(1,))(2, 3)) == 6  # allowed keywords work
    assert jnp.zeros(3, dtype=jnp.float32).shape == (3,)


def test_program_size_is_measured_before_any_hidden_case(pool):
    """The sizes in the message cannot depend on what the child saw: they are the same
    when only the public cases are graded."""
    from grader.problem import load_problem

    problem = load_problem(PROBLEMS / "ema_with_scan")
    path = SUBMISSIONS / "ema_with_scan" / "rejected" / "attack_size_measurement_channel.py"
    full = _grade(problem, path, pool).report
    public = _grade(problem, path, pool, problem.public_cases()).report
    assert full.verdict == public.verdict == "RJ" and "changes with T" in full.message
    assert full.message == public.message


# ----------------------------------------------------------- the judge stands

def test_a_file_nested_too_deeply_is_a_compile_error():
    from grader.judge.submission import parse_source

    sub = parse_source("x = " + "+".join(["1"] * 5000))
    assert sub.tree is None and "nests too deeply" in sub.syntax_error


def test_a_failure_of_the_judge_is_an_ie_report(problem1, pool, monkeypatch):
    from grader.judge import pipeline

    def boom(*a, **k):
        raise KeyError("secret hidden value 0.123456")

    monkeypatch.setattr(pipeline, "judge_case", boom)
    report = _grade(problem1, (SUBMISSIONS / P1 / "accepted" / "flat_norm.py"), pool).report
    assert report.verdict == "IE" and "KeyError" in report.message and "0.123456" not in report.message


@pytest.mark.slow
def test_batch_records_a_file_that_cannot_be_parsed_and_goes_on(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "deep.py").write_text("x = " + "+".join(["1"] * 5000))
    (folder / "good.py").write_text((SUBMISSIONS / P1 / "compile_error" / "syntax_error.py").read_text())
    (folder / "latin1.py").write_bytes("x = 'café'\n".encode("latin-1"))
    log, book = tmp_path / "out.jsonl", tmp_path / "grades.csv"
    run = subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--problem", P1, "--out", str(log),
                          "--csv", str(book), "--no-feedback"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    verdicts = {json.loads(line)["submission"].rsplit("/", 1)[-1]: json.loads(line)["verdict"]
                for line in log.read_text().splitlines()}
    assert verdicts == {"deep.py": "CE", "good.py": "CE", "latin1.py": "CE"}
    assert len(book.read_text().splitlines()) == 4  # a header and a row per file


def test_batch_records_a_file_the_judge_cannot_read_as_ie_and_reads_it_again_next_time(problem1, tmp_path,
                                                                                        monkeypatch):
    from pathlib import Path

    from grader.batch import run_batch

    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "locked.py").write_text("x = 1\n")
    real = Path.read_bytes

    def refuse(self):
        if self.name == "locked.py":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    log, seen = tmp_path / "out.jsonl", []
    def progress(todo, skipped):
        return seen.append
    first = run_batch(problem1, folder, lambda items: iter(()), log, None, progress)
    assert [(r["verdict"], "Permission denied" in r["message"]) for r in first] == [("IE", True)]
    assert [json.loads(line)["verdict"] for line in log.read_text().splitlines()] == ["IE"]
    again = run_batch(problem1, folder, lambda items: iter(()), log, None, progress)
    assert [r["verdict"] for r in again] == ["IE"] and len(seen) == 2  # tried again, not taken from the log


def test_arrays_too_large_to_spell_out_are_described():
    from grader.sandbox import wire

    packer = wire.Packer(1 << 20)
    node = packer.encode(np.zeros((2 ** 22, 0), np.float32))
    leaf = wire.decode_tree(node, packer.blob())
    assert wire.to_plain(leaf) == "<float32 array of shape (4194304, 0)>"
    huge = dict(node, shape=[2 ** 30, 0])
    with pytest.raises(wire.WireError, match="too large"):
        wire.decode_tree(huge, packer.blob())


# ------------------------------------------------- what the README promises of a grade

def test_a_child_killed_by_a_signal_mid_case_is_a_crash_of_that_case(problem1):
    """A case whose process died of a signal (say SIGSEGV in native code) is RE with reason
    crash; the cases after it never ran and are not passes."""
    from grader.judge.verdict import judge_case
    from grader.sandbox.host import _finish
    from grader.sandbox.request import CaseRun, RunResult

    first, second = problem1.cases[:2]
    run = RunResult(load_status="ok", cases={first.id: CaseRun(first.id), second.id: CaseRun(second.id)})
    _finish(run, ("case", first.id), {"killed": None, "signal": 11, "code": None, "maxrss_kb": 1024})
    crashed = judge_case(problem1, first, run.cases[first.id], problem1.meta.limits.memory_mb, {"maxrss_kb": 1024})
    never = judge_case(problem1, second, run.cases[second.id], problem1.meta.limits.memory_mb, {})
    assert (crashed.report.verdict, crashed.report.reason) == ("RE", "crash")
    assert (never.report.verdict, never.report.reason) == ("--", "not_run")


@pytest.mark.slow
def test_after_a_case_that_ends_the_process_the_rest_are_reported_not_run(problem1, pool):
    report = _grade(problem1, SUBMISSIONS / P1 / "time_limit_exceeded" / "python_loop.py", pool).report
    verdicts = [c.verdict for c in report.cases]
    assert report.verdict == "TLE" and "TLE" in verdicts
    after = verdicts[verdicts.index("TLE") + 1:]
    assert after and set(after) == {"--"}
    assert report.passed == verdicts.count("AC") < report.total


def test_a_dependence_probe_that_cannot_be_prepared_is_ie_not_a_pass(problem_copy, pool):
    """The reference cannot run under the probe (here: it raises): the requirement cannot
    be decided, which is the judge's failure (IE), never an AC."""
    from grader.problem import load_problem

    root = problem_copy()
    (root / "reference.py").write_text((SUBMISSIONS / P1 / "runtime_error" / "raises.py").read_text())
    report = _grade(load_problem(root), SUBMISSIONS / P1 / "accepted" / "flat_norm.py", pool).report
    assert report.verdict == "IE" and "dependence probe cannot be prepared" in report.message


def test_expected_outputs_never_enter_the_childs_request(problem1):
    from grader.judge.request import make_request
    from grader.judge.submission import load_submission

    sub = load_submission(SUBMISSIONS / P1 / "accepted" / "flat_norm.py")
    header, blob = make_request(sub, problem1, problem1.cases).frame()
    text = json.dumps(header)
    checked = 0
    for case in problem1.cases:
        for leaf in (case.expected["grads"]["w"], case.expected["norms"]):
            values = np.asarray(leaf, np.float32).ravel()
            if values.size < 2 or not np.all(values):
                continue  # too short or zero-filled to tell apart from an input by its bytes
            checked += 1
            assert values.tobytes() not in blob and values.astype(np.float64).tobytes() not in blob
            assert repr(float(np.asarray(leaf).ravel()[0])) not in text
    assert checked > 20


def test_a_requirement_failure_says_what_was_seen_and_what_is_expected(problem1, pool):
    report = _grade(problem1, SUBMISSIONS / P1 / "rejected" / "vmap_of_hand_gradient.py", pool).report
    assert report.verdict == "RJ"
    line = next(c for c in report.runtime_checks if not c.passed)
    assert "jax.vmap was called (called at line" in line.message
    assert "but never on a function that calls jax.grad; expected jax.vmap(jax.grad(...))" in line.message


# ------------------------------------------------------------- program sizes

def test_sub_programs_count_however_deep_they_are_nested():
    import jax
    import jax.numpy as jnp

    from grader.sandbox.child.sizes import count_ops

    def body(x):
        for _ in range(5):
            x = jnp.sin(x)
        return x

    f = body
    for _ in range(30):  # 30 levels of jit around five operations
        f = jax.jit(lambda *a, _inner=f: _inner(*a))
    assert count_ops(jax.make_jaxpr(f)(jnp.ones(3)).jaxpr) == 30 + 5


def test_a_jitted_function_called_eagerly_counts_its_program():
    import jax
    import jax.numpy as jnp

    from grader.sandbox.child.instrument import Recorder, watch
    from grader.sandbox.child.sizes import DispatchCounter

    jit = watch(Recorder(), "jax.jit", jax.jit)
    loop = jit(lambda x: [x := jnp.sin(x) for _ in range(int(x.shape[0]))][-1])
    sizes = []
    for n in (2, 8):
        with DispatchCounter() as counter:
            jax.block_until_ready(loop(jnp.ones(n)))
        sizes.append(counter.count)
    assert sizes[1] - sizes[0] == 6  # one sin per element: the loop shows


def _sized(small, large, cases):
    from grader.sandbox.messages import ProgramSize
    from grader.sandbox.outcome import ProgramOps
    from grader.sandbox.request import CaseRun, RunResult

    return RunResult(load_status="ok", sizes=[ProgramSize(2, small, "traced"), ProgramSize(16, large, "traced")],
                     cases={cid: CaseRun(cid, "ok", program=ProgramOps(ops, "traced")) for cid, ops in cases.items()})


@pytest.mark.parametrize("small, large, cases, ok, words", [
    (20, 20, {"example_1": 21, "gen_1": 24}, True, "does not change"),
    (20, 22, {"example_1": 30}, True, "does not change"),  # shapes alone: within a quarter plus ten
    (20, 60, {"example_1": 20}, False, "changes with T"),  # grows
    (306, 138, {"example_1": 140}, False, "changes with T"),  # shrinks: padding
    (20, 20, {"example_1": 20, "gen_1": 180}, False, "a hidden case"),  # loops on a hidden case only
    (20, 20, {"example_1": 180, "gen_1": 20}, False, "case example_1"),
    (500, 500, {"example_1": 30}, False, "the program that computed case example_1"),  # padded measurement
])
def test_every_program_measured_or_graded_must_be_alike_in_size(small, large, cases, ok, words):
    from grader.judge.probe_checks import check_vectorized
    from grader.problem import Requirements

    [result] = check_vectorized(_sized(small, large, cases), Requirements(vectorized=("T",)), frozenset({"gen_1"}))
    assert result.passed is ok and words in result.message, result.message
    hidden = cases.get("gen_1")
    if hidden is not None and hidden not in (small, large, *(v for k, v in cases.items() if k != "gen_1")):
        assert str(hidden) not in result.message  # a hidden case's size never shows


@pytest.mark.parametrize("others, ok", [
    # A loop over D: the programs grow with D, and are alike wherever D agrees.
    ({"measured": (2,), "example_1": (2,), "gen_1": (4,), "gen_2": (4,)}, True),
    # Cases of one D whose programs differ: a loop over the batch shows there.
    ({"measured": (2,), "example_1": (2,), "gen_1": (2,), "gen_2": (4,)}, False),
    ({}, False),  # without the other dims, every program is compared with every other
])
def test_programs_are_compared_only_between_cases_that_agree_in_the_dims_the_rule_is_not_about(others, ok):
    from grader.judge.probe_checks import check_vectorized
    from grader.problem import Requirements

    run = _sized(40, 40, {"example_1": 40, "gen_1": 80, "gen_2": 80})
    [result] = check_vectorized(run, Requirements(vectorized=("N", "M")), frozenset({"gen_1", "gen_2"}), None, others)
    assert result.passed is ok, result.message


def test_the_dims_a_vectorized_rule_is_not_about_are_read_from_each_graded_case():
    from grader.judge.probe_checks import MEASURED
    from grader.judge.runtime_checks import other_dims
    from grader.problem import load_problem

    problem = load_problem(PROBLEMS / "pairwise_distances_vmap")
    dims = other_dims(problem, problem.cases)
    assert dims[MEASURED] == dims[problem.cases[0].id] == (len(problem.cases[0].input["a"][0]),)  # (D,)
    assert {len(v) for v in dims.values()} == {1} and len(set(dims.values())) > 1
