"""Accounts and credentials. Passwords are argon2id hashes; API tokens and session
cookies are 256-bit random strings of which only a SHA-256 is stored (they are too
long to guess, so a slow hash buys nothing, and a stolen database yields no usable
credential). A CSRF token belongs to each browser session."""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from ..core.db import changed
from ..core.models import DEFAULT_COURSE, ApiToken, Course, Membership, PasswordLink, User, WebSession, utcnow

TOKEN_PREFIX = "jjt_"  # lets secret scanners recognise a leaked token
EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,255}$")
MIN_PASSWORD = 8
TOKEN_TOUCH_SECONDS = 60  # last_used_at is refreshed at most this often (reads stay reads)


class AccountError(Exception):
    """Bad account input: one message for the command line or a 4xx answer."""


@dataclass(frozen=True)
class Principal:
    user_id: int
    email: str
    role: str
    via: str  # "token" or "cookie"
    session_id: int | None = None

    @property
    def instructor(self) -> bool:
        return self.role == "instructor"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# OWASP's Password Storage Cheat Sheet: "Use Argon2id with a minimum configuration of 19 MiB
# of memory, an iteration count of 2, and 1 degree of parallelism" (m=19456 KiB, t=2, p=1).
# argon2-cffi's defaults (64 MiB, t=3, p=4) cost ~0.2 s of four threads per login, which on
# a two-core server took both cores from the grading beside it: one lane keeps a login on
# one core. Of the cheat sheet's settings of equal strength (46 MiB and t=1 down to 7 MiB
# and t=5) this is the one it sums up with. A hash made with other parameters still
# verifies, and is rehashed with these at its next login (verify_password).
ARGON2_TIME_COST = 2
ARGON2_MEMORY_KIB = 19 * 1024
ARGON2_PARALLELISM = 1


def _hasher():
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=ARGON2_TIME_COST, memory_cost=ARGON2_MEMORY_KIB, parallelism=ARGON2_PARALLELISM)


def hash_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password has at least {MIN_PASSWORD} characters")
    return _hasher().hash(password)


# Verified against when the email is unknown, so a wrong email costs the same time as a wrong password.
_DUMMY_HASH: list[str] = []


def verify_password(session: Session, email: str, password: str) -> User | None:
    from argon2.exceptions import InvalidHashError, VerificationError

    ph = _hasher()
    user = session.scalar(select(User).where(User.email == normalize_email(email, strict=False)))
    if user is None or not user.password_hash:
        if not _DUMMY_HASH:
            _DUMMY_HASH.append(ph.hash(secrets.token_urlsafe(16)))
        try:
            ph.verify(_DUMMY_HASH[0], password)
        except (VerificationError, InvalidHashError):
            pass
        return None
    stored = user.password_hash
    try:
        ph.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return None
    if ph.check_needs_rehash(stored):
        user.password_hash = ph.hash(password)
    return user


def normalize_email(email: str, strict: bool = True) -> str:
    email = email.strip().lower()
    if strict and not EMAIL_RE.match(email):
        raise AccountError(f"{email!r} is not an email address")
    return email


def add_user(session: Session, email: str, role: str, password: str | None,
             course: str | None = DEFAULT_COURSE) -> User:
    """A new account, a member of ``course`` (its slug) in its role unless None."""
    email = normalize_email(email)
    if role not in ("learner", "instructor"):
        raise AccountError("a role is learner or instructor")
    if session.scalar(select(User).where(User.email == email)) is not None:
        raise AccountError(f"{email} already has an account")
    user = User(email=email, role=role, password_hash=hash_password(password) if password is not None else None,
                created_at=utcnow())
    session.add(user)
    session.flush()
    if course is not None:
        course_id = session.scalar(select(Course.id).where(Course.slug == course))
        if course_id is None:
            raise AccountError(f"no course {course!r}")
        session.add(Membership(course_id=course_id, user_id=user.id, role=role, created_at=user.created_at))
        session.flush()
    return user


def count_instructors(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(User).where(User.role == "instructor")) or 0


def new_token(session: Session, user: User | int, name: str) -> tuple[ApiToken, str]:
    """Returns the row and the token itself, which is shown once and never stored."""
    name = name.strip()
    if not 1 <= len(name) <= 100:
        raise AccountError("a token name has 1 to 100 characters")
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(user_id=user if isinstance(user, int) else user.id, name=name, token_hash=digest(secret),
                   created_at=utcnow())
    session.add(row)
    session.flush()
    return row, secret


def principal_from_token(db, secret: str) -> Principal | None:
    with db.read() as s:
        row = s.execute(select(ApiToken, User).join(User, User.id == ApiToken.user_id)
                        .where(ApiToken.token_hash == digest(secret), ApiToken.revoked_at.is_(None))).first()
    if row is None:
        return None
    token, user = row
    now = utcnow()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > TOKEN_TOUCH_SECONDS:
        with db.write() as s:
            s.execute(update(ApiToken).where(ApiToken.id == token.id).values(last_used_at=now))
    return Principal(user.id, user.email, user.role, "token")


def new_session(session: Session, user: User, hours: float) -> tuple[str, str]:
    """Returns (cookie value, CSRF token); only their hashes are stored."""
    cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    now = utcnow()
    session.add(WebSession(user_id=user.id, token_hash=digest(cookie), csrf_hash=digest(csrf), created_at=now,
                           expires_at=now + timedelta(hours=hours)))
    return cookie, csrf


def principal_from_cookie(db, cookie: str) -> tuple[Principal, str] | None:
    """The session's principal and its CSRF hash, unless unknown or expired."""
    with db.read() as s:
        row = s.execute(select(WebSession, User).join(User, User.id == WebSession.user_id)
                        .where(WebSession.token_hash == digest(cookie))).first()
    if row is None:
        return None
    ws, user = row
    if ws.expires_at <= utcnow():
        return None
    return Principal(user.id, user.email, user.role, "cookie", ws.id), ws.csrf_hash


def csrf_matches(expected_hash: str, presented: str | None) -> bool:
    if not presented:
        return False
    return hmac.compare_digest(expected_hash, digest(presented))


def end_session(session: Session, session_id: int) -> None:
    ws = session.get(WebSession, session_id)
    if ws is not None:
        session.delete(ws)


# ---------------------------------------------------------------- passwords

LINK_HOURS = {"set": 24 * 7, "reset": 24}  # a roster's accounts get a week to set theirs; a reset a day


@dataclass(frozen=True)
class PasswordChanged:
    sessions_ended: int  # the account's other browser sessions, now logged out
    tokens_kept: int  # its API tokens, which still work (the owner chose the new password)


def _end_links(session: Session, user_id: int) -> None:
    """Every outstanding one-time link of the account stops working: it was meant for a
    password that no longer is."""
    session.execute(update(PasswordLink).where(PasswordLink.user_id == user_id, PasswordLink.used_at.is_(None))
                    .values(used_at=utcnow()))


def change_password(session: Session, user_id: int, current: str, new: str,
                    keep_session: int | None) -> PasswordChanged:
    """The account's own change: the current password first (a stolen session alone
    cannot lock its owner out). Every other session of the account ends, and so does
    every one-time link handed out for it; its API tokens stay (the owner revokes them on
    the account page), and the answer says how many there are."""
    user = session.get(User, user_id)
    if user is None or verify_password(session, user.email, current) is None:
        raise AccountError("the current password is wrong")
    user.password_hash = hash_password(new)
    _end_links(session, user_id)
    others = delete(WebSession).where(WebSession.user_id == user_id)
    ended = changed(session, others if keep_session is None else others.where(WebSession.id != keep_session))
    tokens = session.scalar(select(func.count()).select_from(ApiToken)
                            .where(ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None))) or 0
    return PasswordChanged(ended, int(tokens))


def new_password_link(session: Session, user_id: int, purpose: str, by: int | None) -> str:
    """A one-time secret that sets ``user_id``'s password; earlier unused links of that
    account end (the newest one handed out is the only one that works)."""
    now = utcnow()
    session.execute(update(PasswordLink).where(PasswordLink.user_id == user_id, PasswordLink.used_at.is_(None))
                    .values(used_at=now))
    secret = secrets.token_urlsafe(32)
    session.add(PasswordLink(user_id=user_id, token_hash=digest(secret), purpose=purpose, created_by=by,
                             created_at=now, expires_at=now + timedelta(hours=LINK_HOURS[purpose])))
    session.flush()
    return secret


def use_password_link(session: Session, secret: str, password: str) -> User:
    """Set the password the link is for, once. Someone else handed the link out, so
    whoever held the account before is shut out: every session ends, every API token is
    revoked, and every other outstanding link of the account ends too (OWASP ASVS,
    credential recovery)."""
    link = session.scalar(select(PasswordLink).where(PasswordLink.token_hash == digest(secret)))
    now = utcnow()
    if link is None or link.used_at is not None or link.expires_at <= now:
        raise AccountError("this link is unknown, used or expired: ask your instructor for a new one")
    user = session.get(User, link.user_id)
    assert user is not None  # the link's row goes with its account (ON DELETE CASCADE)
    user.password_hash = hash_password(password)
    _end_links(session, user.id)
    session.execute(delete(WebSession).where(WebSession.user_id == user.id))
    session.execute(update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
                    .values(revoked_at=now))
    return user
