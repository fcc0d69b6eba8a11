"""Standing grants: a person's "allow this tool, for this agent, on this list, for a while".

Revision ID: 0004_grants
Revises: 0003_proposal_trace
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_grants"
down_revision = "0003_proposal_trace"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "grants",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("tool", sa.Text, nullable=False),
        sa.Column("agent", sa.Text, nullable=False),  # the agent's identity: agent:uid:1000
        sa.Column("scope", sa.Text),  # JSON list of containers ("list:Inbox"); NULL: the tool
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("created_by", sa.Text, nullable=False),
        sa.Column("proposal_id", sa.Text, sa.ForeignKey("proposals.id")),
        sa.Column("revoked_at", sa.Float),
        sa.Column("revoked_by", sa.Text),
    )
    op.create_index("ix_grants_agent_tool", "grants", ["agent", "tool", "expires_at"])


def downgrade() -> None:
    op.drop_table("grants")
