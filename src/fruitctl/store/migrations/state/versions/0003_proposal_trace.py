"""Proposals keep the trace id of their filing, so the approval's execution is recorded under it.

Revision ID: 0003_proposal_trace
Revises: 0002_approvals
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_proposal_trace"
down_revision = "0002_approvals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("proposals") as batch:
        batch.add_column(sa.Column("trace_id", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("proposals") as batch:
        batch.drop_column("trace_id")
