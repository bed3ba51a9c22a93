"""Where a grade's time goes: the judge's stages (``Graded.seconds``), the child's phases
as the judge saw them (``RunResult.seconds``), and each jit case's compile and run time
(``CaseRun.cost``), which a report shows only when feedback asks for costs."""

from support import SUBMISSIONS, grade_source

P1 = "per_example_grad_clipping"


def graded(problem1, pool, name):
    with pool.borrow() as sandbox:
        return grade_source(problem1, (SUBMISSIONS / P1 / "accepted" / name).read_text(), sandbox)


def test_a_grade_times_its_stages_and_the_childs_phases(problem1, pool):
    g = graded(problem1, pool, "flat_norm.py")
    assert g.report.verdict == "AC"
    assert list(g.seconds) == ["static", "plan", "sandbox", "checks", "feedback", "report"]
    assert {"start", "load", "case", "runtime", "probe", "exit"} <= set(g.run.seconds)
    assert all(v >= 0 for v in [*g.seconds.values(), *g.run.seconds.values()])
    # The child's phases are timed inside the sandbox stage, from the request sent to the exit.
    assert sum(g.run.seconds.values()) <= g.seconds["sandbox"]


def test_each_jit_case_has_its_compile_and_run_time_but_the_report_shows_them_only_when_asked(problem1, pool):
    g = graded(problem1, pool, "flat_norm.py")
    costs = [c.cost for c in g.run.cases.values()]
    assert all(c is not None and c.compile_ms >= 0 and c.run_ms >= 0 for c in costs)
    # One compile per input shape: a case whose shape ran before compiles nothing.
    assert sum(1 for c in costs if c is not None and c.compile_ms > 0) < len(costs)
    assert all(c.cost is None for c in g.report.cases)


def test_a_grade_that_ends_before_the_run_times_only_its_static_stage(problem1, pool):
    with pool.borrow() as sandbox:
        g = grade_source(problem1, "def per_example_grad_clip(:\n", sandbox)
    assert g.report.verdict == "CE" and g.run is None and list(g.seconds) == ["static"]
