"""A case that ends the sandboxed process (a time, memory or output limit) is the
cause of the verdict: the runtime record, the program sizes and the probe reruns
that the child never got to send fail their rules with that limit's verdict, and
say so as a consequence, without naming a hidden case."""
from __future__ import annotations

import pytest

from support import PROBLEMS, SUBMISSIONS, grade_source

BASE = '''
import jax
import jax.numpy as jnp


def loss(params, x, y):
    return 0.5 * (x @ params["w"] + params["b"] - y) ** 2

def per_example_grad_clip(params, x, y, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    norms = jnp.sqrt(jnp.sum(g["w"] ** 2, axis=1) + g["b"] ** 2)
    f = jnp.maximum(1.0, norms / max_norm)
    SPOIL
    return {"grads": {"w": jnp.mean(g["w"] / f[:, None], axis=0), "b": jnp.mean(g["b"] / f)}, "norms": norms}
'''
HONEST = BASE.replace("SPOIL", "pass")
# x.shape[0] == 5: no public case has five examples, some hidden cases do.
HANGS_ON_FIVE = BASE.replace("SPOIL", "norms = norms + 0.0 * jax.lax.while_loop("
                             "lambda c: c >= 0.0, lambda c: c + 1.0, jnp.float32(-abs(x.shape[0] - 5)))")
RECORD_RULES = ["calls jax.vmap", "calls jax.grad", "jax.vmap of jax.grad"]


def _cases(problem, killer_size: int, key: str = "x"):
    """The public cases, a hidden case that passes, the first hidden case of
    ``killer_size`` rows (it ends the process) and one more hidden case (never run)."""
    public = problem.public_cases()
    hidden = [c for c in problem.cases if c.hidden]
    killer = next(c for c in hidden if len(c.input[key]) == killer_size)
    before = next(c for c in hidden if len(c.input[key]) not in (killer_size, *(len(p.input[key]) for p in public)))
    after = next(c for c in hidden if c not in (killer, before))
    return [*public, before, killer, after], killer


def _grade(problem, source, pool, cases, box_wrapper=None):
    sandbox = pool.take()
    try:
        return grade_source(problem, source, box_wrapper(sandbox) if box_wrapper else sandbox, cases)
    finally:
        pool.give(sandbox)


def _assert_limit_is_the_cause(graded, killer, verdict: str, reason: str, limit_words: str, rules: list[str]):
    report = graded.report
    assert (report.verdict, report.reason) == (verdict, reason), report.message
    failing = [c for c in report.runtime_checks if not c.passed]
    assert [c.name for c in failing] == rules
    for check in failing:
        assert check.message.startswith(f"the sandboxed process {limit_words} on a hidden case, so the judge has no ")
    assert report.message == failing[0].message
    assert "no record of the transforms it ran" in report.message
    assert killer.id not in report.message and all(killer.id not in c.message for c in report.runtime_checks)
    # The hidden cases are reduced to id, verdict, reason and a stock phrase.
    rows = {c.id: c for c in report.cases}
    assert (rows[killer.id].verdict, rows[killer.id].reason) == (verdict, reason)
    for c in report.cases:
        if c.visibility == "hidden":
            assert c.input is None and c.expected is None and c.got is None and c.stdout is None
            assert c.message in ("passed", "not run", {"time": "time limit exceeded", "memory": "memory limit "
                                 "exceeded", "output_size": "output limit exceeded"}[reason])
    assert report.cases[-1].verdict == "--"  # the case after the killer never ran


@pytest.mark.slow
def test_a_hidden_case_killed_for_time_is_tle_and_the_missing_record_its_consequence(problem1, pool):
    cases, killer = _cases(problem1, 5)
    graded = _grade(problem1, HANGS_ON_FIVE, pool, cases)
    _assert_limit_is_the_cause(graded, killer, "TLE", "time", "was ended by the time limit", RECORD_RULES)


class _KilledOn:
    """The real sandbox, except that the child is killed on one case as the zygote
    kills it: by the output cap (a frame over the cap: no submission can make the child
    send one, its own encoder refuses an oversized result first) or by the kernel at the
    memory limit (a submission can reach it, but not on every run: how much a hoard
    takes before the child's own MemoryError varies). The host's own attribution
    (``_finish``) turns the exit into the case's status."""

    def __init__(self, sandbox, source: str, case_id: str, exit_info: dict):
        self.sandbox, self.source, self.case_id, self.exit_info = sandbox, source, case_id, exit_info

    def run(self, request):
        from grader.sandbox.host import _finish
        from grader.sandbox.request import CaseRun

        run = self.sandbox.run(request)
        if request.source != self.source or self.case_id not in run.cases:
            return run  # the probe table's runs of the reference
        ids = list(run.cases)
        for cid in ids[ids.index(self.case_id):]:
            run.cases[cid] = CaseRun(cid)
        run.runtime, run.probes, run.complete = None, [], False
        run.exit = dict(self.exit_info)
        _finish(run, ("case", self.case_id), run.exit)
        return run


OLE_KILL = {"type": "exit", "killed": "ole", "signal": 9, "code": None, "maxrss_kb": 0}


def _oom_kill(problem) -> dict:
    # XLA aborts when an allocation fails under RLIMIT_DATA: SIGABRT near the limit.
    return {"type": "exit", "killed": None, "signal": 6, "code": None,
            "maxrss_kb": problem.meta.limits.memory_mb * 1024}


def test_a_hidden_case_killed_for_memory_is_mle_and_the_missing_record_its_consequence(problem1, pool):
    cases, killer = _cases(problem1, 5)
    graded = _grade(problem1, HONEST, pool, cases,
                    lambda sandbox: _KilledOn(sandbox, HONEST, killer.id, _oom_kill(problem1)))
    assert graded.run.cases[killer.id].status == "crash"
    _assert_limit_is_the_cause(graded, killer, "MLE", "memory", "was ended by the memory limit", RECORD_RULES)


def test_a_hidden_case_killed_for_output_is_ole_and_the_missing_record_its_consequence(problem1, pool):
    cases, killer = _cases(problem1, 5)
    graded = _grade(problem1, HONEST, pool, cases, lambda sandbox: _KilledOn(sandbox, HONEST, killer.id, OLE_KILL))
    assert graded.run.cases[killer.id].status == "ole"
    _assert_limit_is_the_cause(graded, killer, "OLE", "output_size", "was ended by the output limit", RECORD_RULES)


def test_a_public_case_killed_for_memory_is_named_by_its_id(problem1, pool):
    public = problem1.public_cases()
    report = _grade(problem1, HONEST, pool, public,
                    lambda sandbox: _KilledOn(sandbox, HONEST, public[-1].id, _oom_kill(problem1))).report
    assert (report.verdict, report.reason) == ("MLE", "memory")
    assert report.message == (f"the sandboxed process was ended by the memory limit on case {public[-1].id}, so "
                              f"the judge has no record of the transforms it ran")


@pytest.mark.slow
def test_a_hidden_case_killed_for_time_fails_the_vectorized_rule_as_a_consequence(pool):
    from grader.problem import load_problem

    problem = load_problem(PROBLEMS / "ema_with_scan")
    cases, killer = _cases(problem, 5, key="xs")
    source = (SUBMISSIONS / "ema_with_scan" / "time_limit_exceeded"
              / "chunked_scan_endless_for_ragged_lengths.py").read_text()
    report = _grade(problem, source, pool, cases).report
    assert (report.verdict, report.reason) == ("TLE", "time")
    checks = {c.name: c for c in report.runtime_checks}
    vectorized = checks["vectorized"]
    assert not vectorized.passed and "no size of the programs that computed that case" in vectorized.message
    assert vectorized.message.startswith("the sandboxed process was ended by the time limit on a hidden case")
    assert not checks["calls jax.lax.scan"].passed and killer.id not in report.message


@pytest.mark.parametrize("status", ["mle", "ole"])
def test_a_limit_the_child_reports_itself_ends_nothing(status):
    """A MemoryError caught, or a result over the cap, is reported by the child, which
    goes on to the next case: no case ended the process, and a record missing for no
    known reason stays RJ."""
    from grader.judge.runtime_checks import check_record
    from grader.judge.verdict import ended_by, judge_case
    from grader.problem import Requirements, load_problem
    from grader.sandbox.request import CaseRun, RunResult

    problem = load_problem(PROBLEMS / "per_example_grad_clipping")
    case = problem.public_cases()[0]
    run = RunResult(load_status="ok", cases={case.id: CaseRun(case.id, status)}, complete=True)
    judged = [judge_case(problem, case, run.cases[case.id], 1024, {})]
    assert ended_by(run, judged) is None
    failed = check_record(run, Requirements(calls=("jax.vmap",)), ended_by(run, judged))
    assert [(c.passed, c.verdict) for c in failed] == [(False, "RJ")]
    assert "received no record" in failed[0].message
