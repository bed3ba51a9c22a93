"""Latency of Run and Submit through HTTP and the database on a warm server with two
workers, one request at a time (POST, then the submission's event stream until done).

    python3 bench/service_latency.py [--rounds R] [--no-feedback] [--db URL]

The files are a class's: the accepted and wrong_answer submissions of
per_example_grad_clipping without the attacks. Feedback (hints, counterexamples) is
on, as `grader serve` runs by default, unless --no-feedback. Side by side, in the
same run and interleaved file by file (the machine's load drifts), the same files are
graded directly in this process on one warm sandbox (no HTTP, no database, no
queue): the ratio is what the service adds.
Goals (the issue): Run p50 <= 1.5 s, Submit p50 <= 2.5 s; p95 reported too."""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import header
from service_harness import P1, ROOT, Serve, make_user, percentile, submit, wait, wait_events


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2, help="passes over the files, per kind")
    ap.add_argument("--no-feedback", action="store_true")
    ap.add_argument("--db", default=None, help="database URL (default: a new SQLite file)")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    from grader.problem import find_problem
    from grader.sandbox.host import Sandbox
    from grader.service.queue.grading import grade_problem

    problem, feedback = find_problem(P1), not opts.no_feedback
    files = sorted(p for folder in ("accepted", "wrong_answer")
                   for p in (ROOT / "submissions" / P1 / folder).glob("*.py")
                   if "\n# attack:" not in "\n" + p.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        url = opts.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        token = make_user(url, "bench@example.org")
        args = ["--run-limit", "100000/min", "--submit-limit", "100000/min"]
        args += ["--no-feedback"] if opts.no_feedback else []
        server = Serve(url, *args, workers=2).start()
        try:
            for kind in ("run", "submit"):  # one of each untimed: the first grade of a kind builds caches
                wait(server.base, token, submit(server.base, token, P1, files[0].read_text(), kind), time.time() + 600)
            times: dict[str, list[float]] = {"run": [], "submit": []}
            direct: dict[str, list[float]] = {"run": [], "submit": []}
            with Sandbox() as box:
                grade_problem(problem, "submit", files[0].read_text(), "warm", box, feedback, False)
                for kind in ("run", "submit"):
                    for _ in range(opts.rounds):
                        for f in files:
                            start = time.perf_counter()
                            wait_events(server.base, token, submit(server.base, token, P1, f.read_text(), kind))
                            times[kind].append(time.perf_counter() - start)
                            start = time.perf_counter()
                            grade_problem(problem, kind, f.read_text(), "direct", box, feedback, False)
                            direct[kind].append(time.perf_counter() - start)
        finally:
            server.stop()
    print(f"{P1}: {len(files)} files x {opts.rounds} round(s) per kind, 2 workers, feedback "
          f"{'on' if feedback else 'off'}, "
          f"{url.split(':')[0]}")
    out = {}
    for kind, goal in (("run", 1.5), ("submit", 2.5)):
        t = times[kind]
        p50, p95 = statistics.median(t), percentile(t, 0.95)
        out[kind] = {"p50": round(p50, 3), "p95": round(p95, 3), "max": round(max(t), 3), "n": len(t)}
        d50 = statistics.median(direct[kind])
        out[kind]["direct_p50"] = round(d50, 3)
        print(f"  {kind:<7} p50 {p50:.2f} s   p95 {p95:.2f} s   max {max(t):.2f} s   "
              f"(goal p50 <= {goal}: {'met' if p50 <= goal else 'NOT met'});   direct grade p50 {d50:.2f} s, "
              f"service / direct = {p50 / d50:.2f}")
    print(json.dumps(out))
    header.save(opts)


if __name__ == "__main__":
    main()
