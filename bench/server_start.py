"""A fresh server's start, and the grades sent while it works for itself.

    python3 bench/server_start.py [--grades N] [--gap S] [--no-suite] [--save FILE]

1. ready: `grader serve --workers 2` on a new SQLite file with every judge cache in an
   empty temporary folder (the built-in catalogue's shipped tables are all it has) and no
   assignment (every problem in use): seconds from the start to /healthz healthy, to
   /readyz ready (every probe table and every hint), and to every problem warm (XLA's
   caches for eager code too, which no table ships).
2. in line while it warms: on that server, from ready on, a learner sends a Run and a
   Submit of an accepted file of per_example_grad_clipping every --gap seconds, --grades
   of each, while its warmers build XLA's caches; each grade's wait in line is its started_at minus its
   created_at (the server's own clock), and its grade time finished_at minus started_at.
3. in line while it draws (unless --no-suite): `grader serve --suite DIR` on an empty DIR
   but for per_example_grad_clipping's suite, drawn and warmed before the start (`grader
   suite draw`, `grader warm --suite`, untimed), so that the server draws every other problem's suite in the background
   while the same Runs and Submits come in (Submits of a problem whose suite is not drawn
   yet wait for it by design: per_example_grad_clipping's is drawn).
Goal: every wait in line <= 0.5 s at p95; ready <= 15 s.
Everything is on 127.0.0.1; the servers are stopped and the folders removed however it ends.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

import header
import httpx
from service_harness import P1, ROOT, Serve, make_user, percentile, submit, wait

WAIT_GOAL, READY_GOAL = 0.5, 15.0
FILE = ROOT / "submissions" / P1 / "accepted" / "flat_norm.py"


def _until(ok, timeout: float, poll: float = 0.25) -> float | None:
    """Seconds until ``ok()`` holds, or None after ``timeout``."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            if ok():
                return time.monotonic() - t0
        except httpx.HTTPError:
            pass
        time.sleep(poll)
    return None


def _grades(serve: Serve, token: str, n: int, gap: float) -> list[dict]:
    """A Run and a Submit every ``gap`` seconds, ``n`` of each, in a thread each; their
    finished records."""
    source = FILE.read_text()
    ids: list[str] = []
    lock = threading.Lock()

    def send(kind: str) -> None:
        sub = submit(serve.base, token, P1, source, kind)
        with lock:
            ids.append(sub)

    threads = []
    for _ in range(n):
        for kind in ("run", "submit"):
            t = threading.Thread(target=send, args=(kind,))
            t.start()
            threads.append(t)
        time.sleep(gap)
    for t in threads:
        t.join()
    deadline = time.time() + 900
    return [wait(serve.base, token, sub, deadline, poll=0.2) for sub in ids]


def _line(records: list[dict], phase: str) -> None:
    for kind in ("run", "submit"):
        mine = [r for r in records if r["kind"] == kind]
        waits = [(datetime.fromisoformat(r["started_at"]) - datetime.fromisoformat(r["created_at"])).total_seconds()
                 for r in mine]
        graded = [(datetime.fromisoformat(r["finished_at"]) - datetime.fromisoformat(r["started_at"])).total_seconds()
                  for r in mine]
        verdicts = sorted({r["verdict"] for r in mine})
        met = "met" if percentile(waits, 0.95) <= WAIT_GOAL else "NOT met"
        print(f"  {phase:<14} {kind:<7} {len(mine):>3}   in line p50 {percentile(waits, 0.5):6.3f}  "
              f"p95 {percentile(waits, 0.95):6.3f}  max {max(waits):6.3f}   graded p50 {percentile(graded, 0.5):5.2f}"
              f"   {','.join(verdicts)}   (goal p95 <= {WAIT_GOAL} s: {met})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grades", type=int, default=10, help="Runs and Submits each, per phase")
    ap.add_argument("--gap", type=float, default=3.0, help="seconds between two pairs of grades")
    ap.add_argument("--no-suite", action="store_true", help="leave out the phase with drawn suites")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    tmp = Path(tempfile.mkdtemp(prefix="jaxjudge-bench-start-"))
    os.environ["JAXJUDGE_CACHE"] = str(tmp / "cache")  # the servers inherit it: nothing built ahead
    os.environ["JAXJUDGE_XLA_CACHE"] = str(tmp / "xla")
    servers: list[Serve] = []
    try:
        url = f"sqlite:///{tmp / 'warm.sqlite3'}"
        token = make_user(url, "learner@example.org")
        t0 = time.monotonic()
        serve = Serve(url).start()
        servers.append(serve)
        healthy = time.monotonic() - t0
        ready = _until(lambda: httpx.get(serve.base + "/readyz", timeout=5).status_code == 200, 600)
        ready_at = None if ready is None else healthy + ready
        results: dict = {}

        def load() -> None:  # while the warmers build XLA's caches, after ready
            results["warm"] = _grades(serve, token, opts.grades, opts.gap)

        sender = threading.Thread(target=load)
        sender.start()
        warm = _until(lambda: not httpx.get(serve.base + "/healthz", timeout=5).json()["warming"], 900)
        warm_at = None if warm is None else healthy + (ready or 0) + warm
        sender.join()
        print("server: 2 workers, SQLite, feedback on, no assignment (every problem in use), every judge cache empty "
              "at start but the shipped tables")
        met = "met" if ready_at is not None and ready_at <= READY_GOAL else "NOT met"
        print(f"  start -> /healthz healthy {healthy:.1f} s -> /readyz ready (every probe table and hint) "
              f"{ready_at if ready_at is None else round(ready_at, 1)} s (goal <= {READY_GOAL} s: {met}) -> "
              f"every problem warm, XLA's caches too, {warm_at if warm_at is None else round(warm_at, 1)} s")
        print()
        print(f"grades sent while the server works for itself (from ready on, while it warms XLA's caches; then "
              f"while it draws): a Run and a Submit of accepted/{FILE.name} every "
              f"{opts.gap} s, {opts.grades} of each; in line = started - created, graded = finished - started (s)")
        _line(results["warm"], "warming")
        serve.stop()
        if not opts.no_suite:
            folder = tmp / "suite"
            drawn = subprocess.run([sys.executable, "-m", "grader", "suite", "draw", P1, "--suite", str(folder)],
                                   cwd=ROOT, capture_output=True, text=True)
            if drawn.returncode != 0:
                sys.exit(f"could not draw {P1}'s suite:\n{drawn.stdout[-2000:]}{drawn.stderr[-2000:]}")
            # Its tables too, beside the suite, as a deployment warms ahead (else the first Submit builds them).
            warmed = subprocess.run([sys.executable, "-m", "grader", "warm", P1, "--suite", str(folder)],
                                    cwd=ROOT, capture_output=True, text=True)
            if warmed.returncode != 0:
                sys.exit(f"could not warm {P1}'s drawn suite:\n{warmed.stdout[-2000:]}{warmed.stderr[-2000:]}")
            url = f"sqlite:///{tmp / 'draw.sqlite3'}"
            token = make_user(url, "learner@example.org")
            serve = Serve(url, "--suite", str(folder), "--no-warm").start()
            servers.append(serve)
            drawing = httpx.get(serve.base + "/healthz", timeout=5).json()["warming"]
            records = _grades(serve, token, opts.grades, opts.gap)
            still = httpx.get(serve.base + "/healthz", timeout=5).json()["warming"]
            _line(records, "drawing")
            print(f"  (with --suite and --no-warm: {len(drawing)} problems' suites to draw at healthy, "
                  f"{len(still)} still to draw after the last grade)")
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    header.save(opts)


if __name__ == "__main__":
    main()
