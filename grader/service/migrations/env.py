"""Alembic's environment: runs on the connection the service hands over
(``grader.service.core.db.upgrade``), or on ``sqlalchemy.url`` for alembic's own CLI."""
from alembic import context
from sqlalchemy import create_engine

from grader.service.core.models import Base

config = context.config
target_metadata = Base.metadata


def run(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite", compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run(connection)
else:
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        raise SystemExit("alembic: set sqlalchemy.url, or run the migrations through `grader db upgrade`")
    with create_engine(url).begin() as conn:
        run(conn)
