"""A course's ``show_class_progress``: whether its instructors let its learners' progress
show, per problem, the share of the class who solved it. Off for every course.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # In place (SQLite's ALTER TABLE ADD COLUMN), never by a batch rebuild: dropping the
    # courses table would delete, through the foreign keys, every membership and assignment.
    op.add_column("courses", sa.Column("show_class_progress", sa.Boolean, nullable=False,
                                       server_default=sa.false()))


def downgrade() -> None:
    op.execute("ALTER TABLE courses DROP COLUMN show_class_progress")  # in place, as it was added
