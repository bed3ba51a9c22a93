"""What each submission stores, counted: ``stored_bytes`` (source plus stored reports,
as JSON bytes), for the per-learner storage budget and the queue page; an index for
summing a learner's recent rows; and one stored copy of a Run's report (its full view
is the learner's view, so ``full_report`` is NULL and read as ``report``).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("stored_bytes", sa.Integer, nullable=True))
    op.create_index("ix_submissions_user_created", "submissions", ["user_id", "created_at"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE submissions SET full_report = NULL WHERE full_report IS NOT NULL AND full_report = report")
        size = "coalesce(octet_length({}::text), 0)"
    else:
        op.execute("UPDATE submissions SET full_report = NULL WHERE full_report IS NOT NULL AND full_report = report")
        size = "coalesce(length(CAST({} AS BLOB)), 0)"
    op.execute("UPDATE submissions SET stored_bytes = " + " + ".join(
        size.format(c) for c in ("source", "report", "full_report")))


def downgrade() -> None:
    op.execute("UPDATE submissions SET full_report = report WHERE full_report IS NULL")
    op.drop_index("ix_submissions_user_created", "submissions")
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("stored_bytes")
