"""The database: one engine per URL, SQLite set up for a busy queue, and the schema
brought to the newest migration.

SQLite runs in WAL mode (readers never wait for the writer), with a busy timeout
and foreign keys on. Its transactions that write begin ``IMMEDIATE``: a deferred
transaction that reads and then writes can fail with "database is locked" at the
moment it upgrades, whatever the busy timeout, because another writer committed
since its snapshot. PostgreSQL needs none of this; its claims lock rows instead."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import CursorResult, Executable, create_engine, event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError
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


def upgrade(db: Database) -> str:
    """Apply every migration not applied yet; returns the revision now current.
    Concurrent starts are safe: each migration runs in one transaction (on SQLite the
    IMMEDIATE lock serializes them) and a second start finds nothing to do."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    with db.engine.execution_options(jaxjudge_write=True).begin() as conn:
        if db.dialect == "postgresql":  # serializes concurrent starts until this transaction ends
            conn.execute(text("SELECT pg_advisory_xact_lock(7340033)"))
        command.upgrade(alembic_config(conn), "head")
    with db.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision() or ""
