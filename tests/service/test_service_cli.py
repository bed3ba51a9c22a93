"""The service's commands: `grader user add`, `grader db upgrade` and `grader serve`'s
refusals and first-start message; bad input gets one message and exit status 2."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from service_support import Server, httpx, sqlite_url

from support import ROOT

# Slow: every test starts grader processes of its own (2-12 s each).
pytestmark = pytest.mark.slow


def grader(*args, stdin: str | None = None, timeout: int = 120):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=ROOT, capture_output=True, text=True,
                          input=stdin, timeout=timeout)


def test_db_upgrade_creates_then_keeps_the_schema(tmp_path):
    url = sqlite_url(tmp_path / "new" / "folder")
    from alembic.script import ScriptDirectory

    from grader.service.core.db import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    for _ in range(2):
        done = grader("db", "upgrade", "--db", url)
        assert done.returncode == 0 and done.stdout == f"database at revision {head}\n"
    assert (tmp_path / "new" / "folder" / "judge.sqlite3").is_file()


def test_without_db_the_database_is_a_sqlite_file_in_the_current_folder_or_jaxjudge_db(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("JAXJUDGE_DB", None)
    run = [sys.executable, "-m", "grader", "db", "upgrade"]
    done = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and (tmp_path / "jaxjudge.sqlite3").is_file()
    other = tmp_path / "elsewhere.sqlite3"
    done = subprocess.run(run, cwd=tmp_path, env={**env, "JAXJUDGE_DB": f"sqlite:///{other}"}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and other.is_file()


def test_user_add_with_password_and_token_then_refuses_a_duplicate(tmp_path):
    url = sqlite_url(tmp_path)
    done = grader("user", "add", "Teacher@Example.org", "--instructor", "--password-stdin", "--token", "cli",
                  "--db", url, stdin="long enough password\n")
    assert done.returncode == 0 and "added instructor teacher@example.org" in done.stdout
    token = done.stdout.split("API token (shown once): ")[1].strip()
    assert token.startswith("jjt_")
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("judge.sqlite3*"))
    assert b"$argon2id$" in stored and b"long enough password" not in stored  # an argon2id hash, not the password
    assert token.encode() not in stored and hashlib.sha256(token.encode()).hexdigest().encode() in stored
    again = grader("user", "add", "teacher@example.org", "--no-password", "--db", url)
    assert again.returncode == 2 and again.stderr == "error: teacher@example.org already has an account\n"


def _imported(*args, stdin: str | None = None) -> set[str]:
    """The top-level packages ``grader ARGS`` imports (read from ``-X importtime``)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "grader", *args], cwd=ROOT, capture_output=True,
                          text=True, input=stdin, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip().split(".")[0] for line in done.stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


def test_user_add_imports_neither_jax_nor_the_web_framework_nor_alembic_at_the_newest_schema(tmp_path):
    url = sqlite_url(tmp_path)
    heavy = {"jax", "jaxlib", "numpy", "fastapi", "starlette", "uvicorn", "pydantic"}
    first = _imported("user", "add", "a@example.org", "--password-stdin", "--db", url, stdin="long enough password\n")
    assert not first & heavy and "alembic" in first  # a new database: alembic creates the schema
    again = _imported("user", "add", "b@example.org", "--password-stdin", "--db", url, stdin="long enough password\n")
    assert not again & (heavy | {"alembic"}) and {"argon2", "sqlalchemy", "click"} <= again


def test_user_add_refuses_bad_input_with_one_message(tmp_path):
    url = sqlite_url(tmp_path)
    cases = [(("user", "add", "not-an-email", "--no-password", "--db", url), None, "is not an email address"),
             (("user", "add", "a@b.org", "--password-stdin", "--db", url), "short\n", "at least 8 characters"),
             (("user", "add", "a@b.org", "--db", url), "", "no terminal to ask for a password"),
             (("user", "add", "a@b.org", "--no-password", "--password-stdin", "--db", url), None, "choose one"),
             (("user", "add", "a@b.org", "--no-password", "--db", "mysql://x/y"), None, "unsupported database"),
             (("user", "add", "a@b.org", "--no-password", "--db", "sqlite://"), None, "SQLite needs a file"),
             (("user", "add", "a@b.org", "--no-password", "--db", "nonsense"), None, "not a database URL"),
             (("user", "add", "a@b.org", "--no-password", "--course", "nope", "--db", url), None, "no course 'nope'")]
    for args, stdin, needle in cases:
        done = grader(*args, stdin=stdin)
        assert done.returncode == 2 and needle in done.stderr and len(done.stderr.splitlines()) == 1, (args, done)
    assert "a@b.org" not in grader("db", "upgrade", "--db", url).stderr
    assert grader("user", "add", "a@b.org", "--no-password", "--db", url).returncode == 0  # nothing was left behind


def _on_a_terminal(args: tuple[str, ...], answers: list[tuple[str, str]], timeout: float = 60) -> str:
    """What ``grader ARGS`` writes on a pseudo-terminal (its controlling one, as a person's is),
    typing each answer once the text before it has appeared."""
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child: nothing of pytest may run here
        try:
            os.chdir(ROOT)
            os.execv(sys.executable, [sys.executable, "-m", "grader", *args])
        finally:
            os._exit(127)
    seen = bytearray()

    def read() -> bool:
        ready, _, _ = select.select([fd], [], [], timeout)
        assert ready, f"nothing more within {timeout} s: {bytes(seen)!r}"
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            return False
        seen.extend(chunk)
        return bool(chunk)

    at = 0
    try:
        for expected, answer in answers:
            while (found := seen.find(expected.encode(), at)) < 0:
                assert read(), bytes(seen)
            at = found + len(expected)
            os.write(fd, answer.encode() + b"\r")
        while read():
            pass
    finally:
        os.waitpid(pid, 0)
        os.close(fd)
    return seen.decode().replace("\r\n", "\n")


def test_user_add_asks_for_the_password_naming_the_account_and_its_minimum_length(tmp_path):
    url = sqlite_url(tmp_path)
    ask = "Password for ada@example.org (at least 8 characters): "
    again = "The same password again, for ada@example.org: "
    said = _on_a_terminal(("user", "add", "Ada@Example.org", "--db", url),
                          [(ask, "short"), (ask, "long enough"), (again, "long enouhg"),  # a typo: asked anew
                           (ask, "long enough"), (again, "long enough")])
    assert "That has 5: a password has at least 8 characters." in said and "The two differ: once more." in said
    assert said.count(ask) == 3 and "long enough" not in said.replace(ask, "").replace(again, "")  # never echoed
    assert said.rstrip().endswith("added learner ada@example.org")
    import sqlite3

    from argon2 import PasswordHasher

    with sqlite3.connect(tmp_path / "judge.sqlite3") as db:
        (stored,) = db.execute("select password_hash from users where email = 'ada@example.org'").fetchone()
    assert PasswordHasher().verify(stored, "long enough")


def test_serve_refuses_bad_options(tmp_path):
    url = sqlite_url(tmp_path)
    for args, needle in ((("--engine", "dask"), "--engine dask needs --scheduler"),
                         (("--scheduler", "tcp://127.0.0.1:1"), "--scheduler goes with --engine dask"),
                         (("--run-limit", "fast"), "a rate is N/s, N/min or N/h"),
                         (("--forwarded-allow-ips", "127.0.0.1,proxy.example"), "'proxy.example': not an IP"),
                         (("--db", "postgresql+psycopg://nobody@127.0.0.1:1/none"), "cannot open the database")):
        done = grader("serve", *(args if "--db" in args else (*args, "--db", url)), timeout=60)
        assert done.returncode == 2 and needle in done.stderr, (args, done.stderr)


def test_first_start_explains_how_to_create_the_first_instructor(tmp_path):
    url = sqlite_url(tmp_path)
    server = Server(url, workers=0).start()
    server.stop()
    out = server.output()
    assert "no instructor account yet" in out and "grader user add YOU@EXAMPLE.ORG --instructor" in out
    assert f"--db '{url}'" in out


def _listening(port: int) -> list[tuple[str, str]]:
    """(table, local address) of every listening TCP socket on ``port`` on this machine."""
    found = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.append((table, address))
    return found


def test_serve_listens_on_the_loopback_only_with_two_workers_by_default(tmp_path):
    # Neither --host nor --workers; not waiting for the two sandboxes to warm up keeps it cheap.
    server = Server(sqlite_url(tmp_path), "--shutdown-grace", "0", workers=None).start(healthy=False)
    try:
        assert _listening(server.port) == [("tcp", "0100007F")]  # 127.0.0.1, little-endian; no IPv6
        assert httpx.get(server.base + "/healthz", timeout=10).json()["workers"]["configured"] == 2
    finally:
        server.stop()
