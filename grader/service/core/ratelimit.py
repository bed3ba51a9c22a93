"""Token buckets per learner and kind (Run, Submit), kept in the database so that
they survive restarts and hold across servers sharing one database."""
from __future__ import annotations

import math

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from .config import Quotas, Rate
from .models import RateBucket, utcnow


class Refused(Exception):
    """A request the service will not take now: status, message and Retry-After."""

    def __init__(self, status: int, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status, self.message = status, message
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))


def bucket_of(kind: str) -> str:
    """A custom run draws on the Run bucket: it costs what a Run costs."""
    return "submit" if kind == "submit" else "run"


def _rate(limits: Quotas, kind: str) -> Rate:
    return limits.submit if kind == "submit" else limits.run


def _bucket(s: Session, user_id: int, kind: str, rate: Rate) -> RateBucket:
    insert = postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert
    s.execute(insert(RateBucket).values(user_id=user_id, kind=kind, tokens=float(rate.burst), updated_at=utcnow())
              .on_conflict_do_nothing())
    bucket = s.scalars(select(RateBucket).where(RateBucket.user_id == user_id, RateBucket.kind == kind)
                       .with_for_update()).one()
    now = utcnow()
    elapsed = max(0.0, (now - bucket.updated_at).total_seconds())
    bucket.tokens = min(float(rate.burst), bucket.tokens + elapsed * rate.per_second)
    bucket.updated_at = now
    return bucket


def take(s: Session, user_id: int, kind: str, limits: Quotas) -> None:
    kind = bucket_of(kind)
    rate = _rate(limits, kind)
    bucket = _bucket(s, user_id, kind, rate)
    if bucket.tokens < 1.0:
        wait = (1.0 - bucket.tokens) / rate.per_second
        raise Refused(429, f"{kind} rate limit: {rate.burst} per {rate.period_seconds:g} s; "
                           f"try again in {math.ceil(wait)} s", wait)
    bucket.tokens -= 1.0


def refund(s: Session, user_id: int, kind: str, limits: Quotas) -> None:
    kind = bucket_of(kind)
    rate = _rate(limits, kind)
    bucket = _bucket(s, user_id, kind, rate)
    bucket.tokens = min(float(rate.burst), bucket.tokens + 1.0)


