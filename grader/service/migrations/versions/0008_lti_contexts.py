"""LTI: each course bound to the platform, deployment and LMS context it is linked with.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""
import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lti_contexts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("course_id", sa.Integer, sa.ForeignKey("courses.id", ondelete="CASCADE"), nullable=False),
        sa.Column("title", sa.String(255), nullable=True),
        sa.Column("bound_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.UniqueConstraint("issuer", "deployment_id", "context_id", name="uq_lti_contexts_context"),
    )
    op.create_index("ix_lti_contexts_course_id", "lti_contexts", ["course_id"])


def downgrade() -> None:
    op.drop_table("lti_contexts")
