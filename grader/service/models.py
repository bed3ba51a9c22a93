"""The schema, as SQLAlchemy 2 typed mappings. The migrations under ``migrations/``
create exactly this (a test compares them on SQLite and PostgreSQL).

The queue is the ``submissions`` table itself: a row is queued, running or done,
and its verdict (kept apart from that status) is written by the worker that holds
the claim. ``pk`` orders and joins; ``id`` is the unguessable public name."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, undefer


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


class User(Base):
    __tablename__ = "users"
    __table_args__ = (CheckConstraint("role IN ('learner', 'instructor')", name="ck_users_role"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class WebSession(Base):
    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Submission(Base):
    __tablename__ = "submissions"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'running', 'done')", name="ck_submissions_status"),
        CheckConstraint("kind IN ('run', 'submit', 'custom')", name="ck_submissions_kind"),
        UniqueConstraint("user_id", "idempotency_key", name="uq_submissions_idempotency"),
        Index("ix_submissions_queue", "status", "priority", "queued_at", "pk"),
        Index("ix_submissions_user", "user_id", "pk"),
        Index("ix_submissions_problem", "problem", "kind"),
        Index("ix_submissions_user_created", "user_id", "created_at"),
        Index("ix_submissions_assignment", "assignment_id", "user_id"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(32), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    problem: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    # Deferred: a list view never loads what a learner sent or got back, only the
    # columns it shows; one submission's view asks for them (``REPORT_COLUMNS``).
    source: Mapped[str] = mapped_column(Text, deferred=True)
    source_sha256: Mapped[str] = mapped_column(String(64))
    # A custom run's input, as the learner sent it (checked against the constraints); NULL otherwise.
    custom_input: Mapped[dict[str, Any] | None] = mapped_column(JsonDoc, deferred=True)
    idempotency_key: Mapped[str | None] = mapped_column(String(100))
    charged: Mapped[bool] = mapped_column(Boolean, default=False)  # a rate token was taken (refunded on IE/CE)
    status: Mapped[str] = mapped_column(String(8))
    priority: Mapped[int] = mapped_column(Integer, default=0)  # 0 learners' work, 1 rejudges
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    queued_at: Mapped[datetime] = mapped_column(UTCDateTime())
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    verdict: Mapped[str | None] = mapped_column(String(4))
    passed: Mapped[int | None] = mapped_column(Integer)
    total: Mapped[int | None] = mapped_column(Integer)
    problem_version: Mapped[str | None] = mapped_column(String(64))
    judge_version: Mapped[str | None] = mapped_column(String(32))
    report: Mapped[dict[str, Any] | None] = mapped_column(JsonDoc, deferred=True)  # what the learner may see
    # Hidden cases in full, for instructors; NULL where it would equal ``report`` (a Run).
    full_report: Mapped[dict[str, Any] | None] = mapped_column(JsonDoc, deferred=True)
    stored_bytes: Mapped[int | None] = mapped_column(Integer)  # source + stored reports, as JSON bytes
    # A Submit made for an assignment (NULL: practice), and whether it came after its due time.
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignments.id", ondelete="SET NULL"))
    late: Mapped[bool] = mapped_column(Boolean, default=False)

    def view(self, full: bool) -> dict[str, Any] | None:
        """The report a viewer gets: the full one (instructors) or the learner's."""
        return (self.full_report or self.report) if full else self.report


class Worker(Base):
    __tablename__ = "workers"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    instance: Mapped[str] = mapped_column(String(64), index=True)
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    heartbeat_at: Mapped[datetime] = mapped_column(UTCDateTime())
    busy_with: Mapped[str | None] = mapped_column(String(32))
    graded: Mapped[int] = mapped_column(Integer, default=0)
    sandbox: Mapped[dict[str, Any] | None] = mapped_column(JsonDoc)  # layers seen in its last grade
    zygote_pid: Mapped[int | None] = mapped_column(Integer)  # its sandbox's process group, for the reaper


class Course(Base):
    """A class: its instructors and learners (``Membership``). Every account created before
    courses existed is a member of the one with the slug ``default``."""

    __tablename__ = "courses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Membership(Base):
    __tablename__ = "memberships"
    __table_args__ = (CheckConstraint("role IN ('learner', 'instructor')", name="ck_memberships_role"),
                      Index("ix_memberships_user", "user_id"))

    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Invitation(Base):
    """A link that signs people up to a course (or adds an existing account to it): only
    the code's SHA-256 is kept; it expires, may be revoked, and may require an email domain."""

    __tablename__ = "invitations"
    __table_args__ = (CheckConstraint("role IN ('learner', 'instructor')", name="ck_invitations_role"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    email_domain: Mapped[str | None] = mapped_column(String(255))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    uses: Mapped[int] = mapped_column(Integer, default=0)


class PasswordLink(Base):
    """A one-time link that sets an account's password: ``set`` for an account an
    instructor's roster import created, ``reset`` for one an instructor resets. Only the
    secret's SHA-256 is kept; using it (or a newer link for the same account) ends it."""

    __tablename__ = "password_links"
    __table_args__ = (CheckConstraint("purpose IN ('set', 'reset')", name="ck_password_links_purpose"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    purpose: Mapped[str] = mapped_column(String(8))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class Assignment(Base):
    """A course's list of problems with a window: Submits made for it before ``opens_at``
    are refused, after ``due_at`` marked late (their score reduced by ``late_penalty``,
    a fraction), after ``late_until`` (or after ``due_at`` when it is NULL) refused."""

    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("course_id", "slug", name="uq_assignments_slug"),
                      CheckConstraint("credit IN ('partial', 'accepted')", name="ck_assignments_credit"),
                      CheckConstraint("late_penalty >= 0 AND late_penalty <= 1", name="ck_assignments_penalty"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    slug: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(String(200))
    opens_at: Mapped[datetime] = mapped_column(UTCDateTime())
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    late_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    late_penalty: Mapped[float] = mapped_column(Float, default=0.0)
    credit: Mapped[str] = mapped_column(String(8))  # partial: cases passed / all; accepted: AC or nothing
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class AssignmentProblem(Base):
    __tablename__ = "assignment_problems"
    __table_args__ = (CheckConstraint("weight > 0", name="ck_assignment_problems_weight"),)

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    weight: Mapped[float] = mapped_column(Float)  # the points it is worth


class Extension(Base):
    """One learner's own window on an assignment, and who gave it, when and why."""

    __tablename__ = "extensions"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    late_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    reason: Mapped[str] = mapped_column(String(500))
    granted_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    granted_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LtiUser(Base):
    """An account as an LMS knows it: the launch's ``sub`` at its issuer (never its email,
    which a platform may change or share)."""

    __tablename__ = "lti_users"

    issuer: Mapped[str] = mapped_column(String(255), primary_key=True)
    subject: Mapped[str] = mapped_column(String(255), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LtiLink(Base):
    """Where a learner's score on an assignment goes: the AGS endpoint of their latest
    launch of it, and what the last passback got back."""

    __tablename__ = "lti_links"
    __table_args__ = (UniqueConstraint("user_id", "assignment_id", "issuer", name="uq_lti_links_target"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(255))
    resource_link_id: Mapped[str | None] = mapped_column(String(255))
    lineitem: Mapped[str | None] = mapped_column(String(2000))
    lineitems: Mapped[str | None] = mapped_column(String(2000))
    scope: Mapped[str] = mapped_column(String(1000))  # space-separated, as the claim lists them
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    sent_status: Mapped[str | None] = mapped_column(String(300))  # "ok" or why not


class RateBucket(Base):
    __tablename__ = "rate_buckets"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


# Loader options: what one submission's API answer needs beyond the list columns, and
# its page, which shows the code too (``select(Submission).options(*REPORT_COLUMNS)``).
REPORT_COLUMNS = (undefer(Submission.report), undefer(Submission.full_report))
DETAIL_COLUMNS = (undefer(Submission.source), *REPORT_COLUMNS)
