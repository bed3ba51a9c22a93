"""Another user's latency, and the server's CPU, while N `/events` streams are held open.

    python3 bench/service_streams.py [--streams 600] [--requests 100] [--baseline DIR]

A live `grader serve` (a new SQLite file, --workers 0 so that every Run stays
queued, --no-feedback) on 127.0.0.1. N streams, spread over as many learners as the
per-learner cap needs (8 each: 600 over 75 learners), each learner following their
own queued Run, are opened and held (their events read as they come). Another user's
`GET /api/v1/problems` and `GET /api/v1/submissions/ID` (one at a time, ~R each) are
timed with no stream open and with the N held, and the server process's CPU use is
read from /proc/PID/stat over each measurement (and over a few seconds with the
streams held and no request at all). With --baseline DIR the same is done, in the
same run, against another checkout of the project (`python3 -m grader serve` with
cwd=DIR and PYTHONPATH=DIR), e.g. one made with
`git worktree add /tmp/jj_base COMMIT`: the old code has no caps, and its streams
are laid out the same way. Everything stays on the loopback and stops by itself."""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import header
import httpx
from service_harness import P1, ROOT, free_port, percentile

PER_LEARNER = 8
IDLE_SECONDS = 5.0
MEASURE_SECONDS = 120.0  # one measurement's bound, whatever --requests says
SOURCE = (ROOT / "submissions" / P1 / "accepted" / "flat_norm.py").read_text()

MAKE_USERS = """
import json, sys
from grader.service.domain.accounts import add_user, new_token
from grader.service.server import open_database
db = open_database(sys.argv[1])
out = {}
with db.write() as s:
    for email in sys.argv[2:]:
        out[email] = new_token(s, add_user(s, email, "learner", None), "bench")[1]
db.close()
print(json.dumps(out))
"""


def checkout_env(folder: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(folder), NO_COLOR="1")


def make_users(folder: Path, url: str, emails: list[str]) -> dict[str, str]:
    """Accounts made by that checkout's own code (its schema, its migrations)."""
    done = subprocess.run([sys.executable, "-c", MAKE_USERS, url, *emails], cwd=folder, env=checkout_env(folder),
                          capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        sys.exit(f"could not make the accounts in {folder}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class Serve:
    def __init__(self, folder: Path, url: str) -> None:
        self.folder, self.url, self.port = folder, url, free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = Path(tempfile.mkstemp(prefix="jaxjudge-bench-streams-", suffix=".log")[1])

    def start(self, timeout: float = 120) -> "Serve":
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grader", "serve", "--db", self.url, "--host", "127.0.0.1", "--port",
             str(self.port), "--workers", "0", "--no-feedback", "--run-limit", "100000/min", "--max-pending", "10"],
            cwd=self.folder, env=checkout_env(self.folder), stdout=self.log.open("ab"), stderr=subprocess.STDOUT)
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

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Streams:
    """N event streams held open by one asyncio loop in a thread of its own."""

    def __init__(self, port: int, targets: list[tuple[str, str]]) -> None:
        self.port, self.targets = port, targets
        self.opened = self.refused = self.events = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.tasks: list[asyncio.Future] = []

    async def _one(self, token: str, sub_id: str, ready: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            writer.write((f"GET /api/v1/submissions/{sub_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
            await writer.drain()
            status = int((await reader.readline()).split()[1])
            if status != 200:
                self.refused += 1
                return
            self.opened += 1
            ready.set()
            while chunk := await reader.read(65536):
                self.events += chunk.count(b"\nevent: ")
        finally:
            ready.set()
            writer.close()

    async def _open_all(self, timeout: float) -> None:
        readies = []
        for i, (token, sub_id) in enumerate(self.targets):
            ready = asyncio.Event()
            readies.append(ready)
            self.tasks.append(asyncio.ensure_future(self._one(token, sub_id, ready)))
            if i % 50 == 49:
                await asyncio.sleep(0.05)  # not all at once: the listen backlog
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout)

    def open(self, timeout: float = 120) -> None:
        asyncio.run_coroutine_threadsafe(self._open_all(timeout), self.loop).result(timeout + 5)

    def close(self) -> None:
        async def cancel():
            for t in self.tasks:
                t.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def measure(server: Serve, token: str, sub_id: str, requests: int) -> dict:
    """``requests`` of each route, alternated, one at a time; the server's CPU meanwhile."""
    times: dict[str, list[float]] = {"problems": [], "submission": []}
    paths = {"problems": "/api/v1/problems", "submission": f"/api/v1/submissions/{sub_id}"}
    with httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
        for _ in range(3):  # warm: the first answer builds caches
            for p in paths.values():
                c.get(p).raise_for_status()
        cpu0, wall0 = server.cpu_seconds(), time.perf_counter()
        deadline = time.time() + MEASURE_SECONDS
        for _ in range(requests):
            for name, p in paths.items():
                start = time.perf_counter()
                c.get(p).raise_for_status()
                times[name].append(time.perf_counter() - start)
            if time.time() > deadline:
                break
        cpu, wall = server.cpu_seconds() - cpu0, time.perf_counter() - wall0
    out = {name: {"p50_ms": round(statistics.median(t) * 1000, 1), "p95_ms": round(percentile(t, 0.95) * 1000, 1),
                  "max_ms": round(max(t) * 1000, 1), "n": len(t)} for name, t in times.items()}
    out["cpu_percent"] = round(100 * cpu / wall, 1)
    return out


def idle_cpu(server: Serve) -> float:
    cpu0, wall0 = server.cpu_seconds(), time.perf_counter()
    time.sleep(IDLE_SECONDS)
    return round(100 * (server.cpu_seconds() - cpu0) / (time.perf_counter() - wall0), 1)


def run(folder: Path, n: int, requests: int) -> dict:
    learners = max(1, -(-n // PER_LEARNER))
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        emails = ["other@example.org"] + [f"holder{i}@example.org" for i in range(learners)]
        tokens = make_users(folder, url, emails)
        server = Serve(folder, url).start()
        streams = None
        try:
            subs = {}
            for email, token in tokens.items():
                r = httpx.post(server.base + "/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                               json={"problem": P1, "source": SOURCE, "kind": "run"}, timeout=30)
                r.raise_for_status()
                subs[email] = r.json()["id"]
            other, other_sub = tokens["other@example.org"], subs["other@example.org"]
            result = {"learners": learners, "none": measure(server, other, other_sub, requests),
                      "idle_cpu_none": idle_cpu(server)}
            holders = [e for e in emails if e != "other@example.org"]
            targets = [(tokens[holders[i % learners]], subs[holders[i % learners]]) for i in range(n)]
            streams = Streams(server.port, targets)
            streams.open()
            time.sleep(2.0)  # every stream past its first look
            result.update(opened=streams.opened, refused=streams.refused, idle_cpu_held=idle_cpu(server),
                          held=measure(server, other, other_sub, requests))
            result["events_per_stream"] = round(streams.events / max(1, streams.opened), 2)
        finally:
            if streams is not None:
                streams.close()
            server.stop()
    return result


def commit_of(folder: Path) -> str:
    done = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, timeout=30, check=False, env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
    return done.stdout.strip() or "unknown"


def report(label: str, r: dict, n: int) -> None:
    print(f"{label}: {n} streams over {r['learners']} learner(s): {r['opened']} open, {r['refused']} refused, "
          f"{r['events_per_stream']} event(s) per stream")
    for phase, title, idle in (("none", "no streams", "idle_cpu_none"), ("held", f"{n} held", "idle_cpu_held")):
        m = r[phase]
        cells = "   ".join(f"GET {'/problems' if k == 'problems' else '/submissions/ID'} p50 {m[k]['p50_ms']:.1f} "
                           f"p95 {m[k]['p95_ms']:.1f} max {m[k]['max_ms']:.1f} ms (n {m[k]['n']})"
                           for k in ("problems", "submission"))
        print(f"  {title:<11} {cells}   server CPU {m['cpu_percent']:.0f}% of a core "
              f"(no requests: {r[idle]:.0f}%)")


def out_of_time(*_) -> None:
    raise TimeoutError("the bench ran out of time (--max-seconds)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=600)
    ap.add_argument("--requests", type=int, default=100, help="requests of each route per measurement")
    ap.add_argument("--baseline", type=Path, default=None, metavar="DIR",
                    help="another checkout of the project, measured the same way in the same run")
    ap.add_argument("--max-seconds", type=float, default=900, help="the whole bench's bound")
    header.add_save_option(ap)
    opts = ap.parse_args()
    if opts.baseline is not None and not (opts.baseline / "grader" / "service").is_dir():
        sys.exit(f"{opts.baseline}: not a checkout of the project")
    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(int(opts.max_seconds))
    header.start(opts)
    out = {"this": run(ROOT, opts.streams, opts.requests)}
    if opts.baseline is not None:
        out["baseline"] = run(opts.baseline.resolve(), opts.streams, opts.requests)
    signal.alarm(0)
    print("SQLite, --workers 0 (every Run stays queued), another user's requests one at a time")
    report(f"this checkout ({commit_of(ROOT)})", out["this"], opts.streams)
    if "baseline" in out:
        report(f"baseline {opts.baseline} ({commit_of(opts.baseline)})", out["baseline"], opts.streams)
    print(json.dumps(out))
    header.save(opts)


if __name__ == "__main__":
    main()
