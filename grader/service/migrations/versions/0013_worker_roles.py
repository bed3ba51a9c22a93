"""A worker's ``role`` and ``doing``: besides the workers that grade (``grade``), a server
registers the threads that do its own work (``warm``: a problem's tables; ``draw``: the
hidden suites), so that the queue shows what they are doing (``doing``) and the reaper ends
their sandboxes when the server dies, as it ends a grading worker's.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""
import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # In place (ALTER TABLE ADD COLUMN): every existing row is a grading worker.
    op.add_column("workers", sa.Column("role", sa.String(8), nullable=False, server_default="grade"))
    op.add_column("workers", sa.Column("doing", sa.String(200), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE workers DROP COLUMN doing")
    op.execute("ALTER TABLE workers DROP COLUMN role")
