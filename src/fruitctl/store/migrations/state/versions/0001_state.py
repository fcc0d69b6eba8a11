"""Gateway state: settings (the mode) and the record of tool calls.

Revision ID: 0001_state
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_state"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "settings",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated", sa.Text, nullable=False),
        sa.Column("updated_by", sa.Text, nullable=False),
    )
    op.create_table(
        "tool_calls",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),  # epoch seconds
        sa.Column("trace_id", sa.Text, nullable=False),
        sa.Column("span_id", sa.Text, nullable=False),
        sa.Column("tool", sa.Text, nullable=False),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("actor_kind", sa.Text, nullable=False),
        # ok | failed | blocked | proposed
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("error_code", sa.Text),
        sa.Column("latency_ms", sa.Float, nullable=False),
    )
    op.create_index("ix_tool_calls_tool_at", "tool_calls", ["tool", "at"])
    op.create_index("ix_tool_calls_actor_tool_at", "tool_calls", ["actor", "tool", "at"])
    op.create_index("ix_tool_calls_at", "tool_calls", ["at"])


def downgrade() -> None:
    op.drop_table("tool_calls")
    op.drop_table("settings")
