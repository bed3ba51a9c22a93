"""The first schema: users, API tokens, browser sessions, the submissions queue,
worker heartbeats and rate buckets.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)
DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("role IN ('learner', 'instructor')", name="ck_users_role"),
        sa.UniqueConstraint("email"),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("last_used_at", TS, nullable=True),
        sa.Column("revoked_at", TS, nullable=True),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_api_tokens_user_id", "api_tokens", ["user_id"])
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("csrf_hash", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "submissions",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("source_sha256", sa.String(64), nullable=False),
        sa.Column("idempotency_key", sa.String(100), nullable=True),
        sa.Column("charged", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("priority", sa.Integer, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("queued_at", TS, nullable=False),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("verdict", sa.String(4), nullable=True),
        sa.Column("passed", sa.Integer, nullable=True),
        sa.Column("total", sa.Integer, nullable=True),
        sa.Column("problem_version", sa.String(64), nullable=True),
        sa.Column("judge_version", sa.String(32), nullable=True),
        sa.Column("report", DOC, nullable=True),
        sa.Column("full_report", DOC, nullable=True),
        sa.CheckConstraint("status IN ('queued', 'running', 'done')", name="ck_submissions_status"),
        sa.CheckConstraint("kind IN ('run', 'submit')", name="ck_submissions_kind"),
        sa.UniqueConstraint("id"),
        sa.UniqueConstraint("user_id", "idempotency_key", name="uq_submissions_idempotency"),
    )
    op.create_index("ix_submissions_queue", "submissions", ["status", "priority", "queued_at", "pk"])
    op.create_index("ix_submissions_user", "submissions", ["user_id", "pk"])
    op.create_index("ix_submissions_problem", "submissions", ["problem", "kind"])
    op.create_table(
        "workers",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("instance", sa.String(64), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("heartbeat_at", TS, nullable=False),
        sa.Column("busy_with", sa.String(32), nullable=True),
        sa.Column("graded", sa.Integer, nullable=False),
        sa.Column("sandbox", DOC, nullable=True),
        sa.Column("zygote_pid", sa.Integer, nullable=True),
    )
    op.create_index("ix_workers_instance", "workers", ["instance"])
    op.create_table(
        "rate_buckets",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("tokens", sa.Float, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )


def downgrade() -> None:
    for table in ("rate_buckets", "workers", "submissions", "sessions", "api_tokens", "users"):
        op.drop_table(table)
