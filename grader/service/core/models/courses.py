"""Courses and their work: members, invitations (by link or by roster), assignments
with their problems and windows, extensions, and what each Submit counts for."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UTCDateTime


class Course(Base):
    """A class: its instructors and learners (``Membership``). Every account created before
    courses existed is a member of the one with the slug ``default``."""

    __tablename__ = "courses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # The instructors' choice: whether its learners' progress pages show, per problem, the
    # share of the class who solved it (nothing else of anyone else, either way).
    show_class_progress: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


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


class RosterInvitation(Base):
    """A roster import's row for an account that exists already: an offer of a membership
    that its holder accepts (then it is a ``Membership``) or declines. Until then the
    course's instructors see nothing of the account but the address they typed."""

    __tablename__ = "roster_invitations"
    __table_args__ = (CheckConstraint("role IN ('learner', 'instructor')", name="ck_roster_invitations_role"),
                      Index("ix_roster_invitations_user", "user_id"))

    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(16))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


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


class SubmissionCredit(Base):
    """An assignment a Submit counts for, and whether it was late for it. Decided once, when
    the Submit is admitted: every assignment of a course the learner is a learner of, that
    includes the problem and whose window (the learner's own, with an extension) takes a
    Submit then. A Submit with none is practice."""

    __tablename__ = "submission_credits"
    # The class insight and the scores read an assignment's credits from this index alone.
    __table_args__ = (Index("ix_submission_credits_counted", "assignment_id", "submission_pk", "late"),)

    submission_pk: Mapped[int] = mapped_column(ForeignKey("submissions.pk", ondelete="CASCADE"), primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    late: Mapped[bool] = mapped_column(Boolean, default=False)  # after the learner's due time
