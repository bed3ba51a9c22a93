"""Shared by the service benches: a live `grader serve` on 127.0.0.1 (a process of
its own), accounts, a PostgreSQL server from the machine's binaries, and clients
that submit and wait. Everything stays on the loopback and ends by itself."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # support.py, which service_support imports
sys.path.insert(0, str(ROOT / "tests" / "service"))  # service_support.py
P1 = "per_example_grad_clipping"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_user(url: str, email: str, instructor: bool = False) -> str:
    from grader.service.domain.accounts import add_user, new_token
    from grader.service.server import open_database

    db = open_database(url)
    try:
        with db.write() as s:
            return new_token(s, add_user(s, email, "instructor" if instructor else "learner", None), "bench")[1]
    finally:
        db.close()


class Serve:
    def __init__(self, url: str, *args: str, workers: int = 2, port: int | None = None) -> None:
        self.url, self.args, self.workers = url, args, workers
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = Path(tempfile.mkstemp(prefix="jaxjudge-bench-", suffix=".log")[1])

    def start(self, timeout: float = 300) -> "Serve":
        self.proc = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--db", self.url, "--port",
                                      str(self.port), "--workers", str(self.workers), *self.args], cwd=ROOT,
                                     stdout=self.log.open("ab"), stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"the server exited:\n{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(self.base + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        sys.exit("the server did not become healthy")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def submit(base: str, token: str, problem: str, source: str, kind: str, key: str | None = None,
           deadline: float | None = None) -> str:
    """POST until accepted: retried while the server is down (same Idempotency-Key, so
    a request that reached a server before it died is not submitted twice), and
    after a 429/503 for as long as Retry-After says."""
    deadline = deadline or time.time() + 900
    headers = {"Authorization": f"Bearer {token}", **({"Idempotency-Key": key} if key else {})}
    while time.time() < deadline:
        try:
            r = httpx.post(base + "/api/v1/submissions", headers=headers, timeout=60,
                           json={"problem": problem, "source": source, "kind": kind})
            if r.status_code in (200, 202):
                return r.json()["id"]
            if r.status_code not in (429, 503):
                raise RuntimeError(f"{r.status_code}: {r.text}")
            time.sleep(float(r.headers.get("retry-after", 1)))
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError("never accepted")


def wait(base: str, token: str, sub_id: str, deadline: float, poll: float = 0.02) -> dict:
    headers = {"Authorization": f"Bearer {token}"}
    while time.time() < deadline:
        try:
            r = httpx.get(f"{base}/api/v1/submissions/{sub_id}", headers=headers, timeout=60)
            if r.status_code == 200 and r.json()["status"] == "done":
                return r.json()
        except httpx.TransportError:
            pass
        time.sleep(poll)
    raise RuntimeError(f"{sub_id} not graded in time")


def wait_events(base: str, token: str, sub_id: str, timeout: float = 600) -> None:
    """Follow the submission's server-sent events until its `done` event."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.stream("GET", f"{base}/api/v1/submissions/{sub_id}/events", headers=headers, timeout=timeout) as r:
        for line in r.iter_lines():
            if line == "event: done":
                return
    raise RuntimeError(f"{sub_id}: the event stream ended before done")


def postgres():
    """A PostgreSQL server for the bench (tests/service/service_support.Postgres), or None."""
    import service_support

    if service_support.pg_bin() is None:
        return None
    return service_support.Postgres().start()


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def env_no_color() -> dict:
    return dict(os.environ, NO_COLOR="1")
