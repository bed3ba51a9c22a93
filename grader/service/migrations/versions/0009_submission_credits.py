"""A Submit counts for every open assignment of the learner's courses that includes its problem.

``submissions.assignment_id`` and ``late`` (one assignment per Submit) become rows of
``submission_credits`` (one per assignment it counts for); existing ones are copied over.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""
import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)

# Rows wait in a table no foreign key names while ``submissions`` is rebuilt: on SQLite the
# batch rebuild drops the old table, and with foreign keys on that deletes every row that
# references it (ON DELETE CASCADE) before the new table exists.
HOLD = "_submission_credits_hold"


def _hold_table():
    return op.create_table(
        HOLD,
        sa.Column("submission_pk", sa.Integer, nullable=False),
        sa.Column("assignment_id", sa.Integer, nullable=False),
        sa.Column("late", sa.Boolean, nullable=False),
    )


def _credits_table():
    return op.create_table(
        "submission_credits",
        sa.Column("submission_pk", sa.Integer, sa.ForeignKey("submissions.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("assignment_id", sa.Integer, sa.ForeignKey("assignments.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("late", sa.Boolean, nullable=False),
    )


def upgrade() -> None:
    hold = _hold_table()
    subs = sa.table("submissions", sa.column("pk", sa.Integer), sa.column("assignment_id", sa.Integer),
                    sa.column("late", sa.Boolean))
    op.execute(hold.insert().from_select(["submission_pk", "assignment_id", "late"],
                                         sa.select(subs.c.pk, subs.c.assignment_id, subs.c.late)
                                         .where(subs.c.assignment_id.is_not(None))))
    with op.batch_alter_table("submissions") as batch:
        batch.drop_index("ix_submissions_assignment")
        batch.drop_constraint("fk_submissions_assignment_id", type_="foreignkey")
        batch.drop_column("late")
        batch.drop_column("assignment_id")
    credits = _credits_table()
    op.create_index("ix_submission_credits_assignment", "submission_credits", ["assignment_id"])
    op.execute(credits.insert().from_select(["submission_pk", "assignment_id", "late"],
                                            sa.select(hold.c.submission_pk, hold.c.assignment_id, hold.c.late)))
    op.drop_table(HOLD)


def downgrade() -> None:
    """One assignment per Submit again: of several, the first created is kept."""
    hold = _hold_table()
    credits = sa.table("submission_credits", sa.column("submission_pk", sa.Integer),
                       sa.column("assignment_id", sa.Integer), sa.column("late", sa.Boolean))
    first = sa.select(credits.c.submission_pk, sa.func.min(credits.c.assignment_id).label("assignment_id")) \
        .group_by(credits.c.submission_pk).subquery()
    op.execute(hold.insert().from_select(
        ["submission_pk", "assignment_id", "late"],
        sa.select(credits.c.submission_pk, credits.c.assignment_id, credits.c.late)
        .join(first, (first.c.submission_pk == credits.c.submission_pk)
              & (first.c.assignment_id == credits.c.assignment_id))))
    op.drop_index("ix_submission_credits_assignment", table_name="submission_credits")
    op.drop_table("submission_credits")
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("assignment_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("late", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.create_foreign_key("fk_submissions_assignment_id", "assignments", ["assignment_id"], ["id"],
                                 ondelete="SET NULL")
        batch.create_index("ix_submissions_assignment", ["assignment_id", "user_id"])
    subs = sa.table("submissions", sa.column("pk", sa.Integer), sa.column("assignment_id", sa.Integer),
                    sa.column("late", sa.Boolean))
    held = sa.select(hold).where(hold.c.submission_pk == subs.c.pk)
    op.execute(subs.update().where(sa.exists(held))
               .values(assignment_id=held.with_only_columns(hold.c.assignment_id).scalar_subquery(),
                       late=held.with_only_columns(hold.c.late).scalar_subquery()))
    op.drop_table(HOLD)
