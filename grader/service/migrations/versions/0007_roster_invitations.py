"""Invitations addressed to an existing account: a roster import that names an account
which exists already offers it a membership its holder accepts, instead of adding it.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "roster_invitations",
        sa.Column("course_id", sa.Integer, sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.CheckConstraint("role IN ('learner', 'instructor')", name="ck_roster_invitations_role"),
    )
    op.create_index("ix_roster_invitations_user", "roster_invitations", ["user_id"])


def downgrade() -> None:
    op.drop_table("roster_invitations")
