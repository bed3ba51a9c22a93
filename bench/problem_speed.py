"""Each problem's accepted grade in a warm sandbox, every problem in one run; prints
seconds per grade beside the budget, not verdicts.

    python3 bench/problem_speed.py [PROBLEM ...] [--rounds R]

"Warm" is how `grader batch` and `grader serve` grade: a zygote that imported JAX
once, the problem's probe table built (the first grade of a problem builds it and is
not timed), then every accepted file of the problem graded R times, all cases, feedback
off. Budget (issue 14): no problem's accepted grade takes over 10 s warm. Printed per
problem: the median and the slowest grade, the cases and input shapes they cover, and
the slowest grade over the budget.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import header

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 10.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*")
    ap.add_argument("--rounds", type=int, default=2)
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    sys.path.insert(0, str(ROOT))
    from grader.judge.pipeline import grade
    from grader.judge.submission import load_submission
    from grader.problem import load_problem
    from grader.problem.inputs import input_dims
    from grader.sandbox.host import Sandbox

    ids = opts.problems or sorted(p.name for p in (ROOT / "problems").iterdir() if (p / "problem.toml").exists())
    rows, worst = [], 0.0
    with Sandbox() as box:
        for pid in ids:
            problem = load_problem(ROOT / "problems" / pid)
            files = sorted((ROOT / "submissions" / pid / "accepted").glob("*.py"))
            if not files:
                sys.exit(f"{pid}: no accepted submission to time")
            subs = [load_submission(f) for f in files]
            first = grade(problem, subs[0], box)  # builds the probe table; not timed
            if first.report.verdict != "AC":
                sys.exit(f"{pid}: {files[0].name} got {first.report.verdict}, not AC: {first.report.message}")
            times = []
            for _ in range(opts.rounds):
                for f, sub in zip(files, subs):
                    start = time.perf_counter()
                    got = grade(problem, sub, box)
                    times.append(time.perf_counter() - start)
                    if got.report.verdict != "AC":
                        sys.exit(f"{pid}: {f.name} got {got.report.verdict}, not AC: {got.report.message}")
            shapes = len({tuple(sorted(input_dims(problem.meta, c.input).items())) for c in problem.cases})
            rows.append((pid, len(files), len(problem.cases), shapes, statistics.median(times), max(times)))
            worst = max(worst, max(times))
            print(f"  {pid}: median {rows[-1][4]:.2f} s, slowest {rows[-1][5]:.2f} s", file=sys.stderr)
    print(f"accepted grades in a warm sandbox, {opts.rounds} round(s) of every accepted file, all cases, no feedback")
    print(f"{'problem':32} {'files':>5} {'cases':>5} {'shapes':>6} {'median s':>9} {'slowest s':>9}")
    for pid, n, cases, shapes, med, slow in rows:
        print(f"{pid:32} {n:5d} {cases:5d} {shapes:6d} {med:9.2f} {slow:9.2f}")
    print(f"slowest grade / budget ({BUDGET:g} s) = {worst / BUDGET:.2f}   "
          f"({'met' if worst <= BUDGET else 'not met'})")
    header.save(opts)


if __name__ == "__main__":
    main()
