"""``grader serve``: migrate the database, say how to create the first instructor if
there is none, then run uvicorn with the workers inside the application's lifespan."""
from __future__ import annotations

import logging
import sys

from .core.config import ServiceConfig

log = logging.getLogger("grader.service")


def open_database(url: str):
    """The database at ``url``, migrated to the newest schema."""
    from .core.db import Database, upgrade

    db = Database(url)
    upgrade(db)
    return db


def first_start_hint(db, db_option: str) -> str | None:
    from .domain.accounts import count_instructors

    with db.read() as s:
        if count_instructors(s):
            return None
    return ("no instructor account yet. Create one (it asks for a password), then log in or use the token:\n"
            f"    grader user add YOU@EXAMPLE.ORG --instructor --token cli{db_option}\n"
            f"learners: grader user add LEARNER@EXAMPLE.ORG{db_option} (--password-stdin in scripts)")


def serve(config: ServiceConfig, explicit_db: bool = True) -> None:
    import uvicorn

    from .api.app import create_app
    from .queue.workers import Workers

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    db = open_database(config.db_url)
    shown = db.engine.url.render_as_string(hide_password=True)
    hint = first_start_hint(db, f" --db '{shown}'" if explicit_db else "")
    if hint:
        print(hint, file=sys.stderr, flush=True)
    workers = Workers(db, config)
    app = create_app(config, db, workers)
    print(f"JAX Judge on http://{config.host}:{config.port} (API /api/v1, docs /docs), "
          f"{config.workers} {config.engine} worker(s), database {shown}",
          file=sys.stderr, flush=True)
    try:
        proxied = config.forwarded_allow_ips is not None
        uvicorn.run(app, host=config.host, port=config.port, log_level="warning", access_log=False,
                    timeout_graceful_shutdown=5, proxy_headers=proxied,
                    forwarded_allow_ips=config.forwarded_allow_ips if proxied else None)
    finally:
        db.close()
