"""Courses: a course has members (learners and instructors), invitations that sign
people up to it, and one-time links that set a password. Every existing account joins
the course ``default`` in its own role, so that existing instructors still see every
existing learner.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04
"""
from datetime import datetime, timezone

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    courses = op.create_table(
        "courses",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("slug", sa.String(64), nullable=False, unique=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_table(
        "memberships",
        sa.Column("course_id", sa.Integer, sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.CheckConstraint("role IN ('learner', 'instructor')", name="ck_memberships_role"),
    )
    op.create_index("ix_memberships_user", "memberships", ["user_id"])
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("course_id", sa.Integer, sa.ForeignKey("courses.id", ondelete="CASCADE"), nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("email_domain", sa.String(255), nullable=True),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
        sa.Column("revoked_at", WHEN, nullable=True),
        sa.Column("uses", sa.Integer, nullable=False),
        sa.CheckConstraint("role IN ('learner', 'instructor')", name="ck_invitations_role"),
    )
    op.create_index("ix_invitations_course_id", "invitations", ["course_id"])
    op.create_table(
        "password_links",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("purpose", sa.String(8), nullable=False),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
        sa.Column("used_at", WHEN, nullable=True),
        sa.CheckConstraint("purpose IN ('set', 'reset')", name="ck_password_links_purpose"),
    )
    op.create_index("ix_password_links_user_id", "password_links", ["user_id"])
    now = datetime.now(timezone.utc)
    if op.get_bind().dialect.name == "sqlite":
        now = now.replace(tzinfo=None)  # as models.UTCDateTime stores it there
    op.bulk_insert(courses, [{"id": 1, "slug": "default", "title": "Default course", "created_at": now}])
    op.execute(sa.text("INSERT INTO memberships (course_id, user_id, role, created_at) "
                       "SELECT 1, id, role, created_at FROM users"))
    if op.get_bind().dialect.name == "postgresql":  # the explicit id left the sequence behind
        op.execute("SELECT setval(pg_get_serial_sequence('courses', 'id'), 1)")


def downgrade() -> None:
    op.drop_table("password_links")
    op.drop_table("invitations")
    op.drop_table("memberships")
    op.drop_table("courses")
