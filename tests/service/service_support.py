"""Helpers for the service's and the web pages' tests (tests/service/, tests/service/web/;
their fixtures are in tests/service/conftest.py): a live `grader serve` on 127.0.0.1 and
a free port, talking HTTP; a real SQLite file; a real PostgreSQL server started from the
machine's binaries (skipped only when they are absent and JAXJUDGE_REQUIRE_POSTGRES is
unset)."""
from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from support import PROBLEMS, ROOT, SUBMISSIONS

P1 = "per_example_grad_clipping"
REQUIRE_PG = "JAXJUDGE_REQUIRE_POSTGRES"  # CI sets it: there, nothing of the service may be skipped

if not os.environ.get(REQUIRE_PG):
    pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[test,serve]'")
import httpx  # noqa: E402


def corpus(rel: str) -> str:
    return (SUBMISSIONS / P1 / rel).read_text(encoding="utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sqlite_url(folder: Path) -> str:
    return f"sqlite:///{folder / 'judge.sqlite3'}"


def make_user(url: str, email: str, instructor: bool = False, password: str | None = None,
              course: str | None = "default") -> str:
    """An account (a member of ``course`` unless None) and a bearer token for it, written
    straight into the database."""
    from grader.service.domain.accounts import add_user, new_token
    from grader.service.server import open_database

    db = open_database(url)
    try:
        with db.write() as s:
            user = add_user(s, email, "instructor" if instructor else "learner", password, course=course)
            return new_token(s, user, "tests")[1]
    finally:
        db.close()


def add_assignment(s, problems, slug: str = "hw", credit: str = "partial"):
    """A course (``ml``) with an assignment open from a day ago to a day ahead on
    ``problems``, written in session ``s``; the assignment."""
    from datetime import datetime, timedelta, timezone

    from grader.service.core.models import Assignment, AssignmentProblem, Course

    now = datetime.now(timezone.utc)
    course = Course(slug="ml", title="ML", created_at=now)
    s.add(course)
    s.flush()
    a = Assignment(course_id=course.id, slug=slug, title=slug, opens_at=now - timedelta(days=1),
                   due_at=now + timedelta(days=1), late_until=None, late_penalty=0.0, credit=credit, created_at=now)
    s.add(a)
    s.flush()
    for i, pid in enumerate(problems):
        s.add(AssignmentProblem(assignment_id=a.id, problem=pid, position=i, weight=1.0))
    return a


class Server:
    """`python -m grader serve` in a process of its own; ``kill()`` is kill -9."""

    def __init__(self, db_url: str, *args: str, workers: int | None = 1, problems: Path | None = None,
                 log: Path | None = None, warm: bool = False) -> None:
        # Idle workers warming every problem would compete with what a test times or
        # kills; test_service_warming.py runs the default.
        self.db_url, self.args, self.workers = db_url, [*args, *([] if warm else ["--no-warm"])], workers
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ)
        if problems is not None:
            self.env["JAXJUDGE_PROBLEMS"] = str(problems)
        self.log_path = log or Path(tempfile.mkstemp(prefix="jaxjudge-serve-", suffix=".log")[1])
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 180.0, healthy: bool = True) -> "Server":
        """Once /healthz says healthy (every worker warm), or with ``healthy=False`` once it answers at all."""
        self.log = open(self.log_path, "ab")
        workers = [] if self.workers is None else ["--workers", str(self.workers)]  # None: serve's default
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grader", "serve", "--db", self.db_url, "--port", str(self.port), *workers,
             *self.args], cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self.proc.returncode}):\n{self.output()[-3000:]}")
            try:
                r = httpx.get(self.base + "/healthz", timeout=2)
                if r.status_code == 200 or not healthy:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the server did not become healthy:\n{self.output()[-3000:]}")

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.log.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc is not None:
            self.log.close()

    def client(self, token: str | None = None, **kw) -> "httpx.Client":
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base + "/api/v1", headers=headers, timeout=60, **kw)


def csrf(client: "httpx.Client") -> dict:
    """The header a cookie-authenticated write carries: the session's CSRF token."""
    return {"X-CSRF-Token": client.cookies.get("jaxjudge_csrf", "")}


@contextmanager
def logged_in(base: str, email: str, password: str) -> Iterator["httpx.Client"]:
    """A client with a browser's session cookies, logged in as ``email``, for the pages
    (paths from the site's root)."""
    with httpx.Client(base_url=base, timeout=30) as page:
        r = page.post("/api/v1/auth/login", json={"email": email, "password": password})
        assert r.status_code == 200, r.text
        yield page


def mark_graded(url: str, sub_id: str, verdict: str, passed: int = 3, total: int = 3, **columns) -> None:
    """A submission as a worker leaves it, graded now, written straight into the database
    (for servers without workers); ``columns``: more of its columns to set."""
    from sqlalchemy import update

    from grader.service.core.db import Database
    from grader.service.core.models import Submission, utcnow

    values = {"status": "done", "verdict": verdict, "passed": passed, "total": total, "finished_at": utcnow(),
              **columns}
    db = Database(url)
    try:
        with db.engine.begin() as conn:  # through the model's column types, as the service writes them
            conn.execute(update(Submission).where(Submission.id == sub_id).values(**values))
    finally:
        db.close()


def open_course(client, assignment: str, problems: dict[str, float], title: str = "Week 1") -> None:
    """Through the API, as an instructor (``client``): course ``ml`` and an assignment open
    from an hour ago to a day ahead on ``problems`` (id: weight)."""
    from datetime import datetime, timedelta, timezone

    now = datetime.now(timezone.utc)
    assert client.post("/courses", json={"slug": "ml", "title": "ML"}).status_code == 201
    r = client.post("/courses/ml/assignments", json={
        "slug": assignment, "title": title, "opens_at": (now - timedelta(hours=1)).isoformat(),
        "due_at": (now + timedelta(days=1)).isoformat(),
        "problems": [{"problem": pid, "weight": w} for pid, w in problems.items()]})
    assert r.status_code == 201, r.text


@contextmanager
def lti_judge(folder: Path, *args: str, url: str | None = None) -> Iterator["Server"]:
    """`grader serve --lti-config` (one worker) registered with a simulated LMS
    (lti_platform.py), both started, with course ``ml`` and its assignment ``week1``
    (P1 for 10 points, open a day) made by the instructor ``t@example.org``
    (``server.teacher``, a token); ``server.platform`` is the LMS."""
    from lti_platform import Platform

    from grader.service.lti.config import generate_key_pair

    generate_key_pair(folder / "tool.pem", folder / "tool.pub")
    platform = Platform()
    (folder / "lti.json").write_text(json.dumps({platform.issuer: {
        **platform.tool_config(), "private_key_file": "tool.pem", "public_key_file": "tool.pub"}}))
    url = url or sqlite_url(folder)  # or a PostgreSQL database's
    teacher = make_user(url, "t@example.org", instructor=True, course=None)
    server = Server(url, "--lti-config", str(folder / "lti.json"), "--login-limit", "100000/min", *args, workers=1)
    server.args += ["--public-url", server.base]
    server.start()
    try:
        platform.start(server.base)
        with server.client(teacher) as t:
            open_course(t, "week1", {P1: 10})
        server.teacher, server.platform = teacher, platform  # type: ignore[attr-defined]
        yield server
    finally:
        platform.stop()
        server.stop()


def wait_done(client, sub_id: str, timeout: float = 180.0) -> dict:
    deadline = time.time() + timeout
    while time.time() < deadline:
        r = client.get(f"/submissions/{sub_id}")
        assert r.status_code == 200, r.text
        if r.json()["status"] == "done":
            return r.json()
        time.sleep(0.1)
    raise AssertionError(f"{sub_id} was not graded within {timeout} s")


def post(client, source: str, kind: str = "run", problem: str = P1, **kw):
    return client.post("/submissions", json={"problem": problem, "source": source, "kind": kind}, **kw)


def problem_copy(dest: Path, pids=(P1,), broken: bool = False) -> Path:
    """The problems ``pids`` copied under ``dest``; with ``broken``, also a folder that is
    listed (it has a problem.toml) but cannot be loaded, so that grading it is IE."""
    for pid in pids:
        shutil.copytree(PROBLEMS / pid, dest / pid, ignore=shutil.ignore_patterns("__pycache__"))
    if broken:
        (dest / "broken_problem").mkdir()
        (dest / "broken_problem" / "problem.toml").write_text("title = [unterminated\n")
    return dest


def _numbers(tree):
    if isinstance(tree, dict):
        for v in tree.values():
            yield from _numbers(v)
    elif isinstance(tree, list):
        for v in tree:
            yield from _numbers(v)
    elif isinstance(tree, float):
        yield tree


def _spellings(x: float) -> set[str]:
    """How a page or report may print ``x``; only spellings of 7+ significant digits,
    which cannot turn up by chance."""
    f32 = np.float32(x)
    return {s for s in {repr(x), f"{x:.9g}", f"{x:.8g}", f"{x:.7g}", repr(float(f32)), np.format_float_positional(f32),
                        str(f32)} if len(s.strip("-0.")) >= 7}


def hidden_needles(root: Path) -> set[str]:
    """Spellings of every number of the hidden cases of the problem at ``root``, minus any
    that the public cases or the statement also contain, in any spelling: a page prints
    public numbers its own way, and a number that is also public is no secret."""
    public_files = [json.loads(p.read_text()) for p in (root / "cases" / "public").glob("*.json")]
    public = (root / "statement.md").read_text() + json.dumps(public_files) + "".join(
        p.read_text() for p in (root / "cases" / "public").glob("*.json"))
    public_spellings = {s for x in _numbers(public_files) for s in _spellings(x)}
    found = set()
    for path in (root / "cases" / "hidden").glob("*.json"):
        for x in _numbers(json.loads(path.read_text())):
            found |= _spellings(x)
    return {s for s in found - public_spellings if s not in public}


# ------------------------------------------------------------------ PostgreSQL

def pg_bin() -> Path | None:
    for name in ("pg_ctl",):
        found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
        if found:
            return Path(found[-1]).parent
        which = shutil.which(name)
        if which:
            return Path(os.path.realpath(which)).parent
    return None


class Postgres:
    def __init__(self) -> None:
        self.bin = pg_bin()
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="jaxjudge-pg-"))
        self.data = self.root / "data"
        os.chmod(self.root, 0o755)
        self.as_root = os.geteuid() == 0

    def _run(self, *cmd: str) -> None:
        full = (["runuser", "-u", "postgres", "--"] if self.as_root else []) + list(cmd)
        done = subprocess.run(full, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")

    def start(self) -> "Postgres":
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--no-sync")
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w",
                  "-t", "60", "start")
        return self

    def new_database(self) -> str:
        import psycopg

        name = "jj_" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
