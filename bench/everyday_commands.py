"""Everyday commands of the service, timed: `grader user add`, a login, a server's stop.

    python3 bench/everyday_commands.py [--runs 10] [--logins 50] [--stops 3]

- `grader user add EMAIL --password-stdin --db URL`, --runs fresh processes one after
  another on a SQLite database already at the newest schema (as every run but a
  deployment's first finds it): min, median and max of the wall time. Beside it, one run
  on a new database, whose schema alembic creates.
- A login: a live `grader serve --workers 0` on 127.0.0.1 (a temporary SQLite file, and
  `--login-limit` raised so that the bench's own logins are not throttled) answers
  --logins `POST /api/v1/auth/login` of an account `grader user add` made, one at a time,
  after one untimed. The service sends no timing header, so the time is the client's
  round trip on the loopback, which holds the server's time.
- The password hash: the argon2 parameters the service uses, one hash's and one
  verification's time in this process (median of 5), and argon2-cffi's defaults beside
  them (what the service used before).
- A stop: --stops times a `grader serve --workers 0` is started (its time to a healthy
  `/healthz` beside) and sent SIGTERM; the time until the process has exited.

Goals (the issue): user add <= 2 s, login p95 <= 0.3 s, stop <= 3 s, on a quiet 2-core
machine (the header's load average says how quiet it was).
Everything is on 127.0.0.1; servers are stopped and the folder removed however it ends."""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import header
import httpx
from service_harness import ROOT, Serve, percentile

GOAL_USER_ADD, GOAL_LOGIN_P95, GOAL_STOP = 2.0, 0.3, 3.0
PASSWORD = "a long enough password"


def user_add(url: str, email: str) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grader", "user", "add", email, "--password-stdin", "--db", url],
                          cwd=ROOT, input=PASSWORD + "\n", capture_output=True, text=True, timeout=120, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"grader user add failed: {done.stderr}")
    return elapsed


def logins(base: str, email: str, n: int) -> list[float]:
    def one() -> float:
        start = time.perf_counter()
        r = httpx.post(base + "/api/v1/auth/login", json={"email": email, "password": PASSWORD}, timeout=60)
        elapsed = time.perf_counter() - start
        if r.status_code != 200:
            sys.exit(f"login refused: {r.status_code} {r.text[:300]}")
        return elapsed

    one()  # untimed: the first request of the route
    return [one() for _ in range(n)]


def hash_times(time_cost: int, memory_kib: int, parallelism: int, n: int = 5) -> tuple[float, float]:
    """Median seconds of one hash and of one verification with these parameters."""
    from argon2 import PasswordHasher

    ph = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism)
    hashes, verifies = [], []
    for _ in range(n):
        start = time.perf_counter()
        stored = ph.hash(PASSWORD)
        hashes.append(time.perf_counter() - start)
        start = time.perf_counter()
        ph.verify(stored, PASSWORD)
        verifies.append(time.perf_counter() - start)
    return statistics.median(hashes), statistics.median(verifies)


def stops(url: str, n: int) -> list[tuple[float, float]]:
    """(seconds to a healthy /healthz, seconds from SIGTERM to the exit) of n servers."""
    out = []
    for _ in range(n):
        start = time.perf_counter()
        server = Serve(url, workers=0).start()
        started = time.perf_counter() - start
        try:
            start = time.perf_counter()
            server.proc.send_signal(signal.SIGTERM)
            server.proc.wait(timeout=60)
            out.append((started, time.perf_counter() - start))
        finally:
            server.stop()
            server.log.unlink(missing_ok=True)
    return out


def mark(value: float, goal: float) -> str:
    return "met" if value <= goal else "NOT met"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="grader user add processes timed")
    ap.add_argument("--logins", type=int, default=50, help="logins timed")
    ap.add_argument("--stops", type=int, default=3, help="servers started and stopped")
    header.add_save_option(ap)
    opts = ap.parse_args()
    header.start(opts)
    from grader.service.domain.accounts import ARGON2_MEMORY_KIB, ARGON2_PARALLELISM, ARGON2_TIME_COST

    with tempfile.TemporaryDirectory() as tmp:
        fresh = user_add(f"sqlite:///{Path(tmp) / 'new.sqlite3'}", "first@example.org")
        url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        done = subprocess.run([sys.executable, "-m", "grader", "db", "upgrade", "--db", url], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            sys.exit(f"grader db upgrade failed: {done.stderr}")
        adds = [user_add(url, f"user{k}@example.org") for k in range(opts.runs)]
        server = Serve(url, "--login-limit", "100000/min", workers=0).start()
        try:
            login = logins(server.base, "user0@example.org", opts.logins)
        finally:
            server.stop()
            server.log.unlink(missing_ok=True)
        ours = hash_times(ARGON2_TIME_COST, ARGON2_MEMORY_KIB, ARGON2_PARALLELISM)
        before = hash_times(3, 65536, 4)
        stopped = stops(url, opts.stops)

    median_add = statistics.median(adds)
    print(f"grader user add --password-stdin, {len(adds)} processes on a database at the newest schema: "
          f"min {min(adds):.2f} s, median {median_add:.2f} s, max {max(adds):.2f} s  "
          f"goal median <= {GOAL_USER_ADD} s: {mark(median_add, GOAL_USER_ADD)}")
    print(f"  beside: one on a new database (alembic creates the schema): {fresh:.2f} s")
    p95 = percentile(login, 0.95)
    print(f"login, POST /api/v1/auth/login, {len(login)} one at a time after one untimed, round trip on the "
          f"loopback (no timing header: the server's time is within it): p50 {statistics.median(login):.3f} s, "
          f"p95 {p95:.3f} s, max {max(login):.3f} s  goal p95 <= {GOAL_LOGIN_P95} s: {mark(p95, GOAL_LOGIN_P95)}")
    print(f"password hash: argon2id t={ARGON2_TIME_COST}, m={ARGON2_MEMORY_KIB} KiB, p={ARGON2_PARALLELISM} "
          f"(OWASP's Password Storage Cheat Sheet: t=2, m=19456 KiB, p=1 at least): one hash {ours[0] * 1000:.0f} ms, "
          f"one verification {ours[1] * 1000:.0f} ms (medians of 5, in this process)")
    print(f"  beside: argon2-cffi's defaults (t=3, m=65536 KiB, p=4), used before: one hash {before[0] * 1000:.0f} ms, "
          f"one verification {before[1] * 1000:.0f} ms")
    slowest = max(s for _, s in stopped)
    print(f"stop of grader serve --workers 0 (SIGTERM to the exit), {len(stopped)} server(s): "
          + ", ".join(f"{s:.2f} s" for _, s in stopped)
          + f"  goal <= {GOAL_STOP} s: {mark(slowest, GOAL_STOP)}")
    print("  beside: their start to a healthy /healthz: " + ", ".join(f"{s:.2f} s" for s, _ in stopped))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average at the end: {load}")
    header.save(opts)


if __name__ == "__main__":
    main()
