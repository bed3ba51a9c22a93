"""One JSON shape for every error, ``{"detail": "one message"}``, whatever failed:
a refusal of ours, a body that does not validate, NUL in a path or query, or a
failure nobody foresaw (a database error included), which is a 500 that names no
internals and is logged with its traceback."""
from __future__ import annotations

import logging
from urllib.parse import unquote_to_bytes

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..domain.accounts import AccountError

log = logging.getLogger("grader.service")
INTERNAL = "the service failed on this request; it was logged. Try again, or tell an instructor if it persists"
NUL_MESSAGE = "NUL characters are not allowed"


def has_nul(value: str) -> bool:
    return "\x00" in value


class NulGuard:
    """422 for NUL anywhere in the path or the query string: no database stores it in
    text (PostgreSQL refuses it outright), and no honest request has it. Bodies are
    checked field by field (``schemas.Strict``)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            where = None
            if has_nul(scope.get("path", "")) or b"\x00" in unquote_to_bytes(scope.get("raw_path") or b""):
                where = "path"
            elif b"\x00" in unquote_to_bytes(scope.get("query_string") or b""):
                where = "query"
            if where:
                response = JSONResponse({"detail": f"{where}: {NUL_MESSAGE}"}, status_code=422)
                return await response(scope, receive, send)
        return await self.app(scope, receive, send)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body",)) or "body"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


def install(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        return JSONResponse({"detail": _validation_message(exc)}, status_code=422)

    @app.exception_handler(AccountError)
    async def account(request: Request, exc: AccountError):
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception):
        # Starlette's outermost middleware sends this and then re-raises, so the server logs
        # the traceback too; the client learns nothing of the internals.
        log.error("unexpected %s on %s %s", type(exc).__name__, request.method, request.url.path, exc_info=exc)
        return JSONResponse({"detail": INTERNAL}, status_code=500)
