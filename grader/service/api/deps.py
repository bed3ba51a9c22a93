"""Who is asking: a bearer token (scripts) or a session cookie (browsers), and the
CSRF check on cookie-authenticated writes. A bearer token is never sent by a
browser on its own, so token-authenticated writes need no CSRF token; a cookie is,
so every unsafe method that rides on one must echo the session's CSRF token in
``X-CSRF-Token``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, HTTPException, Request

from ..domain.accounts import Principal, csrf_matches, principal_from_cookie, principal_from_token
from ..core.config import ServiceConfig

SESSION_COOKIE = "jaxjudge_session"
CSRF_COOKIE = "jaxjudge_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


if TYPE_CHECKING:  # the app builds them; a route only reads them
    from sqlalchemy.orm import Session

    from ..core.db import Database
    from ..core.models import Course
    from ..queue.workers import Workers
    from .changes import Changes


@dataclass
class AppContext:
    """What every request may use: the configuration, the database, the workers and the
    watcher of finished rows that the event streams share."""

    config: ServiceConfig
    db: Database
    workers: Workers
    changes: Changes


def ctx(request: Request) -> AppContext:
    return request.app.state.ctx


def _unauthorized(message: str) -> HTTPException:
    return HTTPException(401, message, headers={"WWW-Authenticate": "Bearer"})


def current(request: Request, c: Annotated[AppContext, Depends(ctx)]) -> Principal:
    auth = request.headers.get("authorization")
    if auth is not None:
        scheme, _, secret = auth.partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise _unauthorized("Authorization: use 'Bearer <token>'")
        who = principal_from_token(c.db, secret.strip())
        if who is None:
            raise _unauthorized("unknown or revoked token")
        return who
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        found = principal_from_cookie(c.db, cookie)
        if found is None:
            raise _unauthorized("the session expired or was ended; log in again")
        who, csrf_hash = found
        if request.method not in SAFE_METHODS and not csrf_matches(csrf_hash, request.headers.get(CSRF_HEADER)):
            raise HTTPException(403, f"CSRF check failed: send the session's CSRF token in {CSRF_HEADER}")
        return who
    raise _unauthorized("log in (POST /api/v1/auth/login) or send 'Authorization: Bearer <token>'")


def instructor(who: Annotated[Principal, Depends(current)]) -> Principal:
    if not who.instructor:
        raise HTTPException(403, "instructors only")
    return who


def course_or_404(s: Session, who: Principal, slug: str, teach: bool = True) -> Course:
    """The course ``slug`` if ``who`` is in it (with ``teach``: teaches it), else a 404
    that is the same whether it exists or not."""
    from ..domain.courses import course_for

    try:
        return course_for(s, who, slug, teach=teach)
    except LookupError:
        raise HTTPException(404, "no such course" + (" (or you do not teach it)" if teach else "")) from None


def taught(c: AppContext, who: Principal, slug: str | None):
    """SQL: the course ids an instructor's request covers: ``slug`` (404 unless they teach
    it) or, without one, every course they teach."""
    from ..domain.courses import course_for
    from ..domain.trust import taught_by

    if slug is None:
        return taught_by(who.user_id)
    with c.db.read() as s:
        try:
            return [course_for(s, who, slug, teach=True).id]
        except LookupError:
            raise HTTPException(404, "no such course") from None


# The dependencies routes declare, as FastAPI's Annotated aliases: ``c: ContextDep``,
# ``who: CurrentUser`` (any account; 401 without one), ``who: CurrentInstructor`` (403 for
# a learner).
ContextDep = Annotated[AppContext, Depends(ctx)]
CurrentUser = Annotated[Principal, Depends(current)]
CurrentInstructor = Annotated[Principal, Depends(instructor)]
