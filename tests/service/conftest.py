"""Fixtures of the service's and the web pages' tests: a PostgreSQL server per module
and a fresh database of each kind. The helpers are in service_support.py.

Every test that needs PostgreSQL (it asks for the ``postgres`` fixture, or is the
``postgresql`` case of a test parametrized over the database) is marked ``postgres`` and
``slow``: each module starts a server of its own (initdb, then pg_ctl: seconds), and the
SQLite case of the same test stays in the inner loop (``pytest -m "not slow"``). Every
test here is marked ``service``: ``pytest -m "not service"`` is the judge's own loop."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def postgres():
    from service_support import REQUIRE_PG, Postgres, pg_bin

    if pg_bin() is None:
        if os.environ.get(REQUIRE_PG):
            pytest.fail(f"PostgreSQL's server binaries are missing and {REQUIRE_PG} is set")
        pytest.skip("PostgreSQL's server binaries are not installed")
    server = Postgres().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty database of each kind."""
    from service_support import sqlite_url

    if request.param == "sqlite":
        return sqlite_url(tmp_path)
    return request.getfixturevalue("postgres").new_database()


HERE = Path(__file__).parent


def _needs_postgres(item) -> bool:
    if "postgres" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and any(isinstance(v, str) and v == "postgresql" for v in callspec.params.values())


def pytest_collection_modifyitems(config, items):
    # Called with every item of the session, whichever conftest.py defines it: only this folder's.
    for item in items:
        if not item.path.is_relative_to(HERE):
            continue
        item.add_marker(pytest.mark.service)  # so that `-m "not service"` runs the judge's tests alone
        if _needs_postgres(item):
            item.add_marker(pytest.mark.postgres)
            item.add_marker(pytest.mark.slow)
