"""A wrong answer's first grade on a fresh machine against an accepted one's, side by
side in one run; prints times and their ratio, not verdicts.

    python3 bench/feedback_first_grade.py [--problem ID] [--rounds R]

Each grade is a cold `grader grade` process with empty judge caches (a fresh
machine: no probe table, no misconception table, no compilation cache), the two
alternating so that drift in the machine's speed hits both. Goal (issue 13): the
wrong answer's first grade takes at most twice the accepted one's, feedback included.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import header

ROOT = Path(__file__).resolve().parent.parent


def first_grade(path: Path, problem: str) -> float:
    with tempfile.TemporaryDirectory(prefix="jj-bench-") as cache:
        env = dict(os.environ, JAXJUDGE_CACHE=cache + "/judge", JAXJUDGE_XLA_CACHE=cache + "/xla")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path), "--problem", problem],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"grading {path} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="dp_sgd_mlp_step")
    ap.add_argument("--rounds", type=int, default=3)
    header.add_save_option(ap)
    args = ap.parse_args()
    header.start(args)
    corpus = ROOT / "submissions" / args.problem
    accepted = sorted((corpus / "accepted").glob("*.py"))[0]
    wrong = next(p for p in sorted((corpus / "wrong_answer").glob("*.py")) if "# hint:" in p.read_text())
    a, w = [], []
    for _ in range(args.rounds):
        a.append(first_grade(accepted, args.problem))
        w.append(first_grade(wrong, args.problem))
    ma, mw = statistics.median(a), statistics.median(w)
    print(f"problem {args.problem}, {args.rounds} rounds, medians; accepted {accepted.name}, wrong {wrong.name}")
    print(f"  accepted, first grade on a fresh machine: {ma:.2f} s  (all: {', '.join(f'{x:.2f}' for x in a)})")
    print(f"  wrong answer, first grade with feedback:  {mw:.2f} s  (all: {', '.join(f'{x:.2f}' for x in w)})")
    ratios = [y / x for x, y in zip(a, w)]
    print(f"  wrong / accepted = {statistics.median(ratios):.2f} (pairwise median; goal <= 2: "
          f"{'met' if statistics.median(ratios) <= 2 else 'not met'})")
    header.save(args)


if __name__ == "__main__":
    main()
