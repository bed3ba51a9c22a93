"""The database: one engine per URL, SQLite set up for a busy queue, and the schema
brought to the newest migration.

SQLite runs in WAL mode (readers never wait for the writer), with a busy timeout
and foreign keys on. Its transactions that write begin ``IMMEDIATE``: a deferred
transaction that reads and then writes can fail with "database is locked" at the
moment it upgrades, whatever the busy timeout, because another writer committed
since its snapshot. PostgreSQL needs none of this; its claims lock rows instead."""
from __future__ import annotations

import ast
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import CursorResult, Executable, create_engine, event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session, sessionmaker

BUSY_TIMEOUT_MS = 30_000
MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


class DatabaseError(Exception):
    """A database URL that cannot be used: the message is for the command line."""


def _sqlite_setup(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record) -> None:
        dbapi_conn.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across a killed process
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("jaxjudge_write") else "BEGIN")


def make_engine(url: str) -> Engine:
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseError(f"{url!r} is not a database URL (sqlite:///FILE or postgresql+psycopg://...)") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise DatabaseError("SQLite needs a file (sqlite:///PATH): the queue must outlive the process")
        Path(parsed.database).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
                               pool_size=10, max_overflow=20)
        _sqlite_setup(engine)
        return engine
    if backend == "postgresql":
        if parsed.get_driver_name() != "psycopg":
            parsed = parsed.set(drivername="postgresql+psycopg")
        try:
            return create_engine(parsed, pool_size=10, max_overflow=20, pool_pre_ping=True)
        except ImportError:
            raise DatabaseError("PostgreSQL needs psycopg: pip install 'jaxjudge[serve]'") from None
    raise DatabaseError(f"unsupported database {backend!r}: use sqlite:///FILE or postgresql+psycopg://...")


class Database:
    """Sessions for reading (``read``) and for writing (``write``, one transaction,
    committed on success)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.dialect = self.engine.dialect.name
        writer = self.engine.execution_options(jaxjudge_write=True) if self.dialect == "sqlite" else self.engine
        self._reader = sessionmaker(self.engine, expire_on_commit=False)
        self._writer = sessionmaker(writer, expire_on_commit=False)

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._reader() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        with self._writer.begin() as session:
            yield session

    def ping(self) -> bool:
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return True
        except Exception:
            return False

    def close(self) -> None:
        self.engine.dispose()


def alembic_config(connection=None):
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg



def changed(session: Session, statement: Executable, **options) -> int:
    """Run an UPDATE or DELETE; the number of rows it changed."""
    result = session.execute(statement, execution_options=options)
    assert isinstance(result, CursorResult)  # what a DML statement returns
    return result.rowcount


def _heads() -> set[str] | None:
    """The revisions no migration revises, read from the migration files' own top-level
    ``revision = ...`` and ``down_revision = ...`` lines; None when a file does not say
    them that way (alembic's script directory then decides)."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        if path.name == "__init__.py":
            continue
        found: dict[str, object] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            name, eq, value = line.partition("=")
            name = name.split(":")[0].rstrip()  # revision: str = "0012" too
            if eq and name in ("revision", "down_revision"):
                try:
                    found[name] = ast.literal_eval(value.strip())
                except (ValueError, SyntaxError):
                    return None
        if "down_revision" not in found:
            return None
        revision, down = found.get("revision"), found["down_revision"]
        if isinstance(down, str) or down is None:
            down = () if down is None else (down,)
        if not isinstance(revision, str) or not isinstance(down, (tuple, list)):
            return None
        revisions.add(revision)
        revised.update(str(parent) for parent in down)
    return (revisions - revised) or None


def _at_head(db: Database) -> str | None:
    """The revision when the database is at the newest already, else None. Importing
    alembic to find that out took most of a second of every `grader user add`."""
    heads = _heads()
    if heads is None or len(heads) != 1:
        return None
    try:
        with db.engine.connect() as conn:
            current = {row[0] for row in conn.execute(text("SELECT version_num FROM alembic_version"))}
    except DBAPIError:  # no such table yet: a new database
        return None
    return current.pop() if current == heads else None


def upgrade(db: Database) -> str:
    """Apply every migration not applied yet; returns the revision now current.
    Concurrent starts are safe: each migration runs in one transaction (on SQLite the
    IMMEDIATE lock serializes them) and a second start finds nothing to do.

    A database at the newest revision is left alone without loading alembic; any other
    (new, older, or at a revision this code does not know) goes through alembic as it
    always did, which migrates it or refuses it."""
    at_head = _at_head(db)
    if at_head is not None:
        return at_head
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    with db.engine.execution_options(jaxjudge_write=True).begin() as conn:
        if db.dialect == "postgresql":  # serializes concurrent starts until this transaction ends
            conn.execute(text("SELECT pg_advisory_xact_lock(7340033)"))
        command.upgrade(alembic_config(conn), "head")
    with db.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision() or ""
