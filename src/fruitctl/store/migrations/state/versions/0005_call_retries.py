"""A call's retries: how many times the gateway ran a read again after a retryable failure.

Revision ID: 0005_call_retries
Revises: 0004_grants
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_call_retries"
down_revision = "0004_grants"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tool_calls") as table:
        table.add_column(sa.Column("retries", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("tool_calls") as table:
        table.drop_column("retries")
