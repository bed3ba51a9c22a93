"""What the class insight counts of a grade, in columns: ``mistake`` (the report's hint),
``failed_case`` and ``failed_hidden`` (the first case that failed); rows graded before
are filled in from their stored reports.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-14
"""
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

COLUMNS = ("mistake", "failed_case", "failed_hidden")
BATCH = 500  # rows read at a time: a report may be large, and a service may hold many


def facts(report: Any) -> dict[str, Any]:
    """A frozen copy of ``queue.jobs.grade_facts`` as it was when this migration was
    written: a migration must do the same thing whatever the code becomes."""
    report = report if isinstance(report, dict) else {}
    hint = report.get("hint")
    failed = next((c for c in report.get("cases") or [] if isinstance(c, dict)
                   and c.get("verdict") not in ("AC", "--")), None)
    return {"mistake": hint[:500] if isinstance(hint, str) and hint else None,
            "failed_case": str(failed.get("id"))[:200] if failed else None,
            "failed_hidden": failed.get("visibility") == "hidden" if failed else None}


def upgrade() -> None:
    # Added in place (SQLite's ALTER TABLE ADD COLUMN), never by a batch rebuild: a rebuild
    # drops the table, and with foreign keys on that deletes every credit of every Submit.
    op.add_column("submissions", sa.Column("mistake", sa.String(500), nullable=True))
    op.add_column("submissions", sa.Column("failed_case", sa.String(200), nullable=True))
    op.add_column("submissions", sa.Column("failed_hidden", sa.Boolean, nullable=True))
    subs = sa.table("submissions", sa.column("pk", sa.Integer), sa.column("report", sa.JSON),
                    sa.column("full_report", sa.JSON), sa.column("verdict", sa.String),
                    *(sa.column(c) for c in COLUMNS))
    bind = op.get_bind()
    last = 0
    while True:
        rows = bind.execute(sa.select(subs.c.pk, subs.c.full_report, subs.c.report)
                            .where(subs.c.pk > last, subs.c.verdict.is_not(None))
                            .order_by(subs.c.pk).limit(BATCH)).all()
        if not rows:
            break
        for pk, full, learner in rows:
            found = facts(full if full is not None else learner)
            if any(v is not None for v in found.values()):
                bind.execute(subs.update().where(subs.c.pk == pk).values(**found))
        last = rows[-1].pk


def downgrade() -> None:
    for column in reversed(COLUMNS):  # in place, as they were added
        op.execute(f"ALTER TABLE submissions DROP COLUMN {column}")
