"""Writes applied on behalf of an approved proposal, recorded with the write itself.

A token (``<proposal id>:<n>``) is stored in the same transaction as the write it names, so
executing a proposal again after a crash replays what was done and does only what was not.

Revision ID: 0002_applied_writes
Revises: 0001_reminders
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_applied_writes"
down_revision = "0001_reminders"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "applied_writes",
        sa.Column("token", sa.Text, primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("result", sa.Text, nullable=False),  # JSON of what the write returned
    )


def downgrade() -> None:
    op.drop_table("applied_writes")
