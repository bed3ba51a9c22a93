"""An index on ``submissions.finished_at``: the latest grade recorded is one index read,
the version the class insight's figures are kept under (``domain.insight_cache``).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-21
"""
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_submissions_finished", "submissions", ["finished_at"])


def downgrade() -> None:
    op.drop_index("ix_submissions_finished", table_name="submissions")
