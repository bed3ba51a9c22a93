"""Custom runs: a learner's own input graded beside the reference's output. A third kind
of submission, ``custom``, and the input it was sent with.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _kinds(batch, kinds: str) -> None:
    batch.drop_constraint("ck_submissions_kind", type_="check")
    batch.create_check_constraint("ck_submissions_kind", f"kind IN ({kinds})")


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("custom_input", DOC, nullable=True))
        _kinds(batch, "'run', 'submit', 'custom'")


def downgrade() -> None:
    op.execute("DELETE FROM submissions WHERE kind = 'custom'")
    with op.batch_alter_table("submissions") as batch:
        _kinds(batch, "'run', 'submit'")
        batch.drop_column("custom_input")
