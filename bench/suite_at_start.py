"""A deployment's first start with secret suites: how long `grader serve --suite DIR` takes
to draw the whole catalogue, and a second start on the same folder.

    python3 bench/suite_at_start.py [--workers 2] [--timeout 3600] [--save FILE]

1. first start: `grader serve --suite DIR --workers N --no-warm` on a new SQLite file and
   an empty DIR (a new secret); /healthz four times a second. For each problem: when it
   left the `suite` phase (seconds since the server was started), and its record
   (`suite.json`: the attempt that passed, the mutants the shipped and the drawn hidden
   suites kill, the seconds its draw took; below it, why each refused draw was refused).
   The total is the time to /readyz (`--no-warm`: ready once every suite is drawn).
2. second start on the same DIR: the time to /readyz (every suite kept).
Everything is on 127.0.0.1; the servers are stopped and the folders removed however it ends.
"""
from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import header
import httpx
from service_harness import Serve


def _until_ready(server: Serve, t0: float, timeout: float) -> tuple[float, dict[str, float]]:
    """Seconds from ``t0`` to /readyz 200, and when each problem left the ``suite`` phase."""
    left: dict[str, float] = {}
    seen: set[str] = set()
    deadline = t0 + timeout
    while time.time() < deadline:
        try:
            r = httpx.get(server.base + "/readyz", timeout=5)
        except httpx.HTTPError:
            time.sleep(0.25)
            continue
        now = time.time() - t0
        drawing = {pid for pid, phase in r.json()["warming"].items() if phase == "suite"}
        seen |= drawing
        for pid in seen - drawing - set(left):
            left[pid] = now
        if r.status_code == 200:
            return now, left
        time.sleep(0.25)
    raise SystemExit(f"not ready within {timeout:.0f} s:\n{server.log.read_text()[-3000:]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=3600)
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    tmp = Path(tempfile.mkdtemp(prefix="jaxjudge-suite-bench-"))
    folder = tmp / "suite"
    try:
        server = Serve(f"sqlite:///{tmp / 'judge.sqlite3'}", "--suite", str(folder), "--no-warm",
                       workers=opts.workers)
        t0 = time.time()
        server.start()
        try:
            healthy = time.time() - t0
            total, left = _until_ready(server, t0, opts.timeout)
        finally:
            server.stop()
        print(f"first start, --workers {opts.workers}: healthy after {healthy:.1f} s, every suite drawn "
              f"(/readyz 200) after {total:.1f} s")
        print()
        print("| problem | drawn at s | attempt | hidden cases | mutants killed, shipped | drawn | draw s |")
        print("|---|---|---|---|---|---|---|")
        refused = []
        for record in sorted(folder.glob("*/*/*/suite.json")):
            doc = json.loads(record.read_text())
            refused += [f"- {doc['problem']}, {reason}" for reason in (doc["reasons"] if doc["passed"] else [])]
            killed = doc["killed"] or ["-", "-"]
            at = left.get(doc["problem"])
            print(f"| {doc['problem']} | {'-' if at is None else f'{at:.1f}'} | {doc['attempt']} | "
                  f"{len(doc['cases'])} | {killed[0]} | {killed[1]} | {doc['seconds']} |"
                  + ("" if doc["passed"] else " FAILED: " + "; ".join(doc["reasons"])))
        if refused:
            print()
            print("draws the gate refused (each redrawn from the next seed):")
            print("\n".join(refused))
        again = Serve(f"sqlite:///{tmp / 'judge.sqlite3'}", "--suite", str(folder), "--no-warm",
                      workers=opts.workers)
        t1 = time.time()
        again.start()
        try:
            second, _ = _until_ready(again, t1, opts.timeout)
        finally:
            again.stop()
        print()
        print(f"second start on the same folder: /readyz 200 after {second:.1f} s (every suite kept)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    header.save(opts)


if __name__ == "__main__":
    main()
