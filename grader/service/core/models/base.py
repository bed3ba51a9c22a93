"""What every table shares: the declarative base, timezone-aware UTC times on every
database, JSON that is JSONB on PostgreSQL, and the fixed sets the tables check."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    JSON,
    DateTime,
    TypeDecorator,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC on every database: SQLite keeps no zone, so naive values
    read back are UTC by construction, and naive values are refused on the way in."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: the service stores timezone-aware UTC times only")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


# None is SQL NULL, not the JSON text "null": a Run's absent full view must read as IS NULL.
JsonDoc = JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


STATUSES = ("queued", "running", "done")


KINDS = ("run", "submit", "custom")  # custom: the learner's own input, beside the reference


ROLES = ("learner", "instructor")


DEFAULT_COURSE = "default"  # where accounts made before courses, and by `grader user add`, belong


class Base(DeclarativeBase):
    pass
