"""LTI 1.3: accounts as an LMS knows them (issuer and subject), and where each learner's
assignment score goes (the AGS endpoint of their launch) with the last passback's result.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lti_users",
        sa.Column("issuer", sa.String(255), primary_key=True),
        sa.Column("subject", sa.String(255), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_index("ix_lti_users_user_id", "lti_users", ["user_id"])
    op.create_table(
        "lti_links",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("assignment_id", sa.Integer, sa.ForeignKey("assignments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("resource_link_id", sa.String(255), nullable=True),
        sa.Column("lineitem", sa.String(2000), nullable=True),
        sa.Column("lineitems", sa.String(2000), nullable=True),
        sa.Column("scope", sa.String(1000), nullable=False),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.Column("sent_at", WHEN, nullable=True),
        sa.Column("sent_status", sa.String(300), nullable=True),
        sa.UniqueConstraint("user_id", "assignment_id", "issuer", name="uq_lti_links_target"),
    )
    op.create_index("ix_lti_links_assignment_id", "lti_links", ["assignment_id"])


def downgrade() -> None:
    op.drop_table("lti_links")
    op.drop_table("lti_users")
