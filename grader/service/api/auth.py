"""Log in and out (browsers: a session cookie plus a CSRF token) and manage one's
own API tokens (scripts). Failed logins are rate limited per client address."""
from __future__ import annotations

import threading
import time

from fastapi import APIRouter, HTTPException, Path, Request, Response
from sqlalchemy import select, update

from ..core.db import changed
from ..core.config import Rate
from ..domain.accounts import end_session, new_session, new_token, verify_password
from ..core.models import ApiToken, utcnow
from .deps import CSRF_COOKIE, SESSION_COOKIE, AppContext, ContextDep, CurrentUser
from .schemas import DB_INT_MAX, LoginIn, Me, TokenIn, TokenOut, errors

router = APIRouter(tags=["accounts"])


class _LoginBuckets:
    """In memory: a restart forgets them, which costs an attacker nothing they could
    not get by waiting a minute."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str, rate: Rate) -> float | None:
        now = time.monotonic()
        with self.lock:
            tokens, at = self.buckets.get(key, (rate.burst, now))
            tokens = min(rate.burst, tokens + (now - at) * rate.per_second)
            if tokens < 1:
                self.buckets[key] = (tokens, now)
                return (1 - tokens) / rate.per_second
            if len(self.buckets) > 100_000:
                self.buckets.clear()
            self.buckets[key] = (tokens - 1, now)
            return None


_LOGINS = _LoginBuckets()


def throttle(request: Request, c: AppContext) -> None:
    """Login-like requests (a password or a one-time secret is tried) share one bucket
    per client address (``--login-limit``)."""
    wait = _LOGINS.take(request.client.host if request.client else "?", c.config.quotas.login)
    if wait is not None:
        raise HTTPException(429, "too many attempts; wait", headers={"Retry-After": str(int(wait) + 1)})


def start_session(s, user, request: Request, response: Response, c: AppContext) -> Me:
    """A new browser session for ``user``: its cookie and CSRF cookie set on ``response``."""
    cookie, csrf = new_session(s, user, c.config.session_hours)
    secure = request.url.scheme == "https"
    age = int(c.config.session_hours * 3600)
    response.set_cookie(SESSION_COOKIE, cookie, max_age=age, httponly=True, samesite="lax", secure=secure,
                        path="/")
    response.set_cookie(CSRF_COOKIE, csrf, max_age=age, httponly=False, samesite="lax", secure=secure, path="/")
    return Me(email=user.email, role=user.role, csrf_token=csrf)


@router.post("/auth/login", response_model=Me, responses=errors(400, 401, 422, 429))
def login(body: LoginIn, request: Request, response: Response, c: ContextDep):
    throttle(request, c)
    with c.db.write() as s:
        user = verify_password(s, body.email, body.password)
        if user is None:
            raise HTTPException(401, "wrong email or password")
        return start_session(s, user, request, response, c)


@router.post("/auth/logout", status_code=204, responses=errors(401, 403))
def logout(response: Response, who: CurrentUser, c: ContextDep):
    if who.session_id is not None:
        with c.db.write() as s:
            end_session(s, who.session_id)
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")
    response.status_code = 204
    return response


@router.get("/me", response_model=Me, responses=errors(401))
def me(who: CurrentUser):
    return Me(email=who.email, role=who.role)


def _token_out(t: ApiToken, secret: str | None = None) -> TokenOut:
    return TokenOut(id=t.id, name=t.name, created_at=t.created_at, last_used_at=t.last_used_at,
                    revoked=t.revoked_at is not None, token=secret)


@router.post("/tokens", response_model=TokenOut, status_code=201, responses=errors(400, 401, 403, 422))
def create_token(body: TokenIn, who: CurrentUser, c: ContextDep):
    with c.db.write() as s:
        row, secret = new_token(s, who.user_id, body.name)
        return _token_out(row, secret)


@router.get("/tokens", response_model=list[TokenOut], responses=errors(401))
def tokens(who: CurrentUser, c: ContextDep):
    with c.db.read() as s:
        rows = s.scalars(select(ApiToken).where(ApiToken.user_id == who.user_id).order_by(ApiToken.id)).all()
    return [_token_out(t) for t in rows]


@router.delete("/tokens/{token_id}", status_code=204, responses=errors(401, 403, 404, 422))
def revoke(who: CurrentUser, c: ContextDep, token_id: int = Path(ge=1, le=DB_INT_MAX)):
    with c.db.write() as s:
        n = changed(s, update(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == who.user_id,
                                              ApiToken.revoked_at.is_(None)).values(revoked_at=utcnow()))
    if n != 1:
        raise HTTPException(404, "no such token")
    return Response(status_code=204)
