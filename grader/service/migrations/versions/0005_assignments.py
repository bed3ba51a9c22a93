"""Assignments: a course's problems with open and due times, a late window and penalty,
per-problem weights and per-learner extensions; a Submit records the assignment it was
made for and whether it was late.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("course_id", sa.Integer, sa.ForeignKey("courses.id", ondelete="CASCADE"), nullable=False),
        sa.Column("slug", sa.String(64), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("opens_at", WHEN, nullable=False),
        sa.Column("due_at", WHEN, nullable=False),
        sa.Column("late_until", WHEN, nullable=True),
        sa.Column("late_penalty", sa.Float, nullable=False),
        sa.Column("credit", sa.String(8), nullable=False),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.UniqueConstraint("course_id", "slug", name="uq_assignments_slug"),
        sa.CheckConstraint("credit IN ('partial', 'accepted')", name="ck_assignments_credit"),
        sa.CheckConstraint("late_penalty >= 0 AND late_penalty <= 1", name="ck_assignments_penalty"),
    )
    op.create_table(
        "assignment_problems",
        sa.Column("assignment_id", sa.Integer, sa.ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("problem", sa.String(64), primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("weight", sa.Float, nullable=False),
        sa.CheckConstraint("weight > 0", name="ck_assignment_problems_weight"),
    )
    op.create_table(
        "extensions",
        sa.Column("assignment_id", sa.Integer, sa.ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("due_at", WHEN, nullable=False),
        sa.Column("late_until", WHEN, nullable=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("granted_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("granted_at", WHEN, nullable=False),
    )
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("assignment_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("late", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.create_foreign_key("fk_submissions_assignment_id", "assignments", ["assignment_id"], ["id"],
                                 ondelete="SET NULL")
        batch.create_index("ix_submissions_assignment", ["assignment_id", "user_id"])


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_index("ix_submissions_assignment")
        batch.drop_constraint("fk_submissions_assignment_id", type_="foreignkey")
        batch.drop_column("late")
        batch.drop_column("assignment_id")
    op.drop_table("extensions")
    op.drop_table("assignment_problems")
    op.drop_table("assignments")
