"""LTI 1.3: accounts as an LMS knows them, where each learner's score goes, and which
LMS course is bound to which judge course."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UTCDateTime


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


class LtiContext(Base):
    """An LMS course (a context at one deployment of one platform) bound to a judge course:
    only launches from a bound context reach that course's assignments. A context is bound
    to one course at most; a course may have several contexts (sections of one class)."""

    __tablename__ = "lti_contexts"
    __table_args__ = (UniqueConstraint("issuer", "deployment_id", "context_id", name="uq_lti_contexts_context"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    deployment_id: Mapped[str] = mapped_column(String(255))
    context_id: Mapped[str] = mapped_column(String(255))
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    title: Mapped[str | None] = mapped_column(String(255))  # the context's label and title, as the LMS gave them
    bound_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
