"""Proposals, the append-only audit log and the config table (seed 003).

Revision ID: 0002_approvals
Revises: 0001_state
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_approvals"
down_revision = "0001_state"
branch_labels = None
depends_on = None

STATUSES = "'PENDING', 'APPROVED', 'EXECUTED', 'REJECTED', 'EXPIRED', 'FAILED'"


def upgrade() -> None:
    op.create_table(
        "proposals",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("tool", sa.Text, nullable=False),
        sa.Column("args", sa.Text, nullable=False),  # validated arguments, JSON
        sa.Column("args_hash", sa.Text, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("actor_kind", sa.Text, nullable=False),
        sa.Column("status", sa.Text, sa.CheckConstraint(f"status IN ({STATUSES})"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("resolved_at", sa.Float),
        sa.Column("resolved_by", sa.Text),
        sa.Column("reason", sa.Text),
        sa.Column("before", sa.Text, nullable=False),  # JSON snapshot of what the write touches
        sa.Column("verified", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("claim", sa.Text),  # who is executing it: host:pid:start
        sa.Column("result", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("inverse", sa.Text),  # JSON {tool, args} that undoes it
        sa.Column("undo_of", sa.Text, sa.ForeignKey("proposals.id")),
        sa.Column("idempotency_key", sa.Text),
    )
    op.create_index("ix_proposals_status_expires", "proposals", ["status", "expires_at"])
    op.create_index(
        "ux_proposals_idempotency",
        "proposals",
        ["actor", "idempotency_key"],
        unique=True,
        sqlite_where=sa.text("idempotency_key IS NOT NULL"),
    )
    op.create_table(
        "audit_log",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Text, nullable=False),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("proposal_id", sa.Text),
        sa.Column("tool", sa.Text),
        sa.Column("payload", sa.Text, nullable=False),  # JSON
        sa.Column("prev_hash", sa.Text, nullable=False),
        sa.Column("hash", sa.Text, nullable=False),
    )
    op.create_index("ix_audit_proposal", "audit_log", ["proposal_id"])
    for action in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER audit_log_no_{action.lower()} BEFORE {action} ON audit_log "
            "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"
        )
    op.create_table(
        "config",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),  # JSON
        sa.Column("updated", sa.Text, nullable=False),
        sa.Column("updated_by", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("config")
    op.execute("DROP TRIGGER IF EXISTS audit_log_no_update")
    op.execute("DROP TRIGGER IF EXISTS audit_log_no_delete")
    op.drop_table("audit_log")
    op.drop_table("proposals")
