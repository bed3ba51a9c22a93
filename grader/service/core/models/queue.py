"""The queue and what grades it. The queue is the ``submissions`` table itself: a row
is queued, running or done, and its verdict (kept apart from that status) is written by
the worker that holds the claim. ``pk`` orders and joins; ``id`` is the unguessable
public name. Workers report here; rate buckets meter what a learner may enqueue."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, undefer

from .base import Base, JsonDoc, UTCDateTime


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
        Index("ix_submissions_finished", "finished_at"),
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
    # What the class insight counts, kept when the grade is recorded so that no view reads
    # a report (``jobs.grade_facts``): the mistake the report names (its hint), and the
    # first case that failed, with whether it is hidden. NULL when there is none.
    mistake: Mapped[str | None] = mapped_column(String(500))
    failed_case: Mapped[str | None] = mapped_column(String(200))
    failed_hidden: Mapped[bool | None] = mapped_column(Boolean)
    # The assignments a Submit counts for are ``SubmissionCredit`` rows (none: practice).

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
    # ``grade``: claims rows; ``warm``/``draw``: the server's own work, which yields to grades.
    role: Mapped[str] = mapped_column(String(8), default="grade", server_default="grade")
    doing: Mapped[str | None] = mapped_column(String(200))  # what its own work is building now

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
