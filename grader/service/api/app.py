"""The FastAPI application: routes under ``/api/v1``, OpenAPI at ``/docs``, the web
pages (``grader.service.web``) and their static files, the body size limit, the
security headers, one JSON shape for every error (``{"detail": message}``), and the
workers started and stopped with the application."""
from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI, HTTPException
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp

from ... import __version__
from ..core.config import MAX_BODY_BYTES, ServiceConfig
from ..web import mount as mount_pages
from ..web.pages import HEADERS as PAGE_HEADERS
from . import (assignments, auth, courses, errors, insight, instructor, lti, lti_contexts, problems, streams,
               submissions)
from .changes import Changes
from .deps import CSRF_COOKIE, SESSION_COOKIE, AppContext
from .docs import add_docs
from .errors import NulGuard
from .headers import SecurityHeaders
from .schemas import HealthOut

PREFIX = "/api/v1"


class BodyLimit:
    """413 for a body over ``limit`` bytes: at once from Content-Length, or while a
    chunked body streams in (before it is all in memory)."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            response = JSONResponse({"detail": f"request body larger than {self.limit} bytes"}, status_code=413)
            return await response(scope, receive, send)
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    # FastAPI passes an HTTPException raised while reading the body on to its handler.
                    raise HTTPException(413, f"request body larger than {self.limit} bytes")
            return message

        return await self.app(scope, limited, send)


def document_edge_answers(app: FastAPI) -> None:
    """The answers every operation may give whatever its route lists, written into the
    OpenAPI document so that clients (and the fuzz test) can rely on it: 422 from the NUL
    guard and from request validation, in our one error shape rather than FastAPI's
    default; 413 from the body limit wherever a body is taken."""
    shape = {"schema": {"$ref": "#/components/schemas/ErrorOut"}}
    error = {"description": "an error", "content": {"application/json": shape}}

    def openapi() -> dict:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = FastAPI.openapi(app)  # kept in app.openapi_schema: built once
        for path, operations in schema["paths"].items():
            if not path.startswith(PREFIX):
                continue
            for operation in operations.values():
                answers = operation.setdefault("responses", {})
                answers["422"] = {**error, "description": "the request does not validate"}
                if "requestBody" in operation:
                    answers.setdefault("413", {**error, "description": f"a body over {MAX_BODY_BYTES} bytes"})
        schema["components"]["schemas"].pop("HTTPValidationError", None)
        schema["components"]["schemas"].pop("ValidationError", None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(config: ServiceConfig, db, workers) -> ASGIApp:
    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await changes.start()
        passback = getattr(app.state, "passback", None)
        if passback is None:
            workers.on_change = changes.notify
        else:  # scores back to the LMS after each grade of a Submit made for an assignment
            passback.start()

            def on_change(sub_id=None):
                changes.notify(sub_id)
                passback.notice(sub_id)

            workers.on_change = on_change
        workers.start()
        try:
            yield
        finally:
            workers.stop(config.shutdown_grace)
            await changes.stop()
            if passback is not None:
                passback.stop()

    # FastAPI's own /docs would load Swagger UI from a CDN; add_docs serves the vendored copy.
    app = FastAPI(title="JAX Judge", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/openapi.json",
                  description="Grade JAX submissions: Run (public cases, full feedback) and Submit (every case, "
                              "hidden ones reduced). Authenticate with a bearer token or a session cookie.")
    changes = Changes(db)
    app.state.ctx = AppContext(config, db, workers, changes)

    errors.install(app)

    for module in (submissions, streams, problems, instructor, auth, courses, assignments, insight, lti,
                   lti_contexts):
        app.include_router(module.router, prefix=PREFIX)
    if config.lti_config:
        lti.mount(app, config, db, workers)
    mount_pages(app, api_prefix=PREFIX, session_cookie=SESSION_COOKIE, csrf_cookie=CSRF_COOKIE)
    add_docs(app, "/openapi.json", PAGE_HEADERS)
    document_edge_answers(app)

    def health() -> HealthOut:
        ok_db = db.ping()
        alive = workers.alive()
        ready = workers.ready()  # before the list: a ready answer never lists a probe still to build
        return HealthOut(ok=ok_db and alive == config.workers, database=ok_db,
                         workers={"configured": config.workers, "alive": alive}, engine=config.engine,
                         sandbox=workers.sandbox_info, warming=workers.pending(), ready=ready,
                         version=__version__)

    @app.get("/healthz", response_model=HealthOut, tags=["health"], responses={503: {"model": HealthOut}})
    def healthz():
        """No authentication: the database is reachable, the workers are alive, and
        which sandbox layers the latest grade had (503 when not ``ok``)."""
        body = health()
        return JSONResponse(body.model_dump(), status_code=200 if body.ok else 503)

    @app.get("/readyz", response_model=HealthOut, tags=["health"], responses={503: {"model": HealthOut}})
    def readyz():
        """As ``/healthz``, but 503 until every hidden suite the server draws at start is
        drawn and every problem's probe table is built too: from then on a problem's first
        Run waits for nothing its hundredth does not."""
        body = health()
        return JSONResponse(body.model_dump(), status_code=200 if body.ok and body.ready else 503)

    return SecurityHeaders(NulGuard(BodyLimit(app, MAX_BODY_BYTES)), PREFIX)
